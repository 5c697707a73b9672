#!/usr/bin/env bash
# A second checkout to work in beside the main one, sharing the main checkout's virtual environment:
#   bash scripts/worktree.sh NAME            -> ../wt/NAME on branch NAME, kernels built in place
# then, inside it:
#   export PYTHONSAFEPATH=1 PYTHONPATH="$PWD/.tree"
#   ../../main/.venv/bin/python -m pytest ...   (or the venv of your choice)
# PYTHONSAFEPATH keeps the checkout's own semiprivate/ folder (no theory/ inside) from shadowing
# .tree/semiprivate, the link tree that lays the folders out under their import names.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME="${1:?usage: worktree.sh NAME}"
VPY="${VPY:-$ROOT/.venv/bin/python}"
WT="$(cd "$ROOT/.." && pwd)/wt/$NAME"
git -C "$ROOT" worktree add -q "$WT" -b "$NAME"
cd "$WT"
bash scripts/link_tree.sh .tree
"$VPY" setup.py -q build_ext --inplace >/dev/null
echo "$WT"

#!/usr/bin/env bash
# Lays out the package under its import name without installing it:
#   bash scripts/link_tree.sh DIR      -> DIR/semiprivate/{__init__.py, cli.py, ..., theory, kernels, proofs_checks}
# Each entry is a symbolic link into this checkout, the way setup.py's PACKAGE_DIRS installs the
# folders (theory/ -> semiprivate.theory, ...).  For tools that cannot follow an editable install's
# import hook (mypy) and for a machine without a virtual environment (scripts/gpu_check.sh):
# put DIR on PYTHONPATH or run the tool from DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:?usage: link_tree.sh DIR}"
rm -rf "$DIR/semiprivate"
mkdir -p "$DIR/semiprivate"
for f in "$ROOT"/semiprivate/*; do
    [ "$(basename "$f")" = __pycache__ ] || ln -s "$f" "$DIR/semiprivate/$(basename "$f")"
done
for d in theory kernels proofs_checks; do ln -s "$ROOT/$d" "$DIR/semiprivate/$d"; done

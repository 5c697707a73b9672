#!/usr/bin/env bash
# The main job: set up .venv (scripts/bootstrap.sh) and run `python -m semiprivate report`.
#   bash scripts/report.sh [--quick] [--out DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VPY="$(bash "$ROOT/scripts/bootstrap.sh" | tail -n 1)"
export MPLBACKEND=Agg
exec "$VPY" -m semiprivate report "$@"

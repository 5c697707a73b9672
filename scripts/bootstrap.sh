#!/usr/bin/env bash
# Creates the project's virtual environment (.venv, or $SEMIPRIVATE_VENV) if it is missing and
# installs semiprivate into it, editable, with the test, dev, dask and docs extras; this compiles the Cython
# kernels. Re-installs only when pyproject.toml, setup.py or a .pyx file changed.
# Sourced by scripts/test.sh and scripts/report.sh; prints the venv's python on the last line.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SEMIPRIVATE_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "bootstrap: creating virtual environment $VENV" >&2
    "$PY" -m venv "$VENV"
fi
VPY="$VENV/bin/python"

stamp="$VENV/.semiprivate-install-stamp"
want="$(cd "$ROOT" && cat pyproject.toml setup.py $(ls kernels/_cython/*.pyx kernels/_cython/*.pxd 2>/dev/null) | cksum)"
have="$(cat "$stamp" 2>/dev/null || true)"
missing_ext=0
for pyx in "$ROOT"/kernels/_cython/*.pyx; do
    base="${pyx%.pyx}"
    ls "$base".*.so >/dev/null 2>&1 || missing_ext=1
done
if [ "$want" != "$have" ] || [ "$missing_ext" = 1 ]; then
    echo "bootstrap: installing semiprivate[test,dev,dask,docs] (editable; builds the Cython kernels)" >&2
    "$VPY" -m pip install --quiet --disable-pip-version-check --upgrade "pip>=23" "setuptools>=77" wheel >&2
    # --no-compile: Python compiles the modules it imports (scripts/test.sh: into the venv's pycache/) instead of
    # pip byte-compiling all ~9,600 files of the extras up front (53 CPU-seconds measured here, under load)
    "$VPY" -m pip install --quiet --disable-pip-version-check --no-compile -e "$ROOT[test,dev,dask,docs]" >&2
    echo "$want" > "$stamp"
fi
echo "$VPY"

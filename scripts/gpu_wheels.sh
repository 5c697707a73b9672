#!/usr/bin/env bash
# A wheelhouse for scripts/gpu_check.sh: the project's runtime dependencies that a GPU image may lack
# (the device machine cannot reach a package index). Run here, then carry the folder to the device:
#
#   bash scripts/gpu_wheels.sh [DIR] [PYTHON_VERSION]     # DIR default .gpu_wheels/, version 3.12
#
# Downloads binary wheels (manylinux x86-64 or pure Python) of the dependencies below WITHOUT their own
# dependencies: NumPy and SciPy come with every GPU image, and their wheels would not fit a device
# transfer. gpu_check.sh installs from DIR (--no-index --no-deps) only the ones its Python cannot import.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${1:-$ROOT/.gpu_wheels}"
PYV="${2:-3.12}"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
mkdir -p "$DIR"
# dp-accounting and what it needs beyond NumPy/SciPy; the other project dependencies a bare image may lack
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYV" \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    -d "$DIR" dp-accounting absl-py "attrs>=22,<24" "dm-tree~=0.1.8" wrapt mpmath tqdm z3-solver threadpoolctl networkx
ls "$DIR"

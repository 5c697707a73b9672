#!/usr/bin/env bash
# Speed guards of the kernels, run as benchmarks (not by pytest: wall time depends on the load).
# Each check compares two methods timed in the same run, interleaved, against a stated tolerance,
# and exits 1 when it is exceeded:
#   bench_exponential.py --check   float64 sampling loop vs the int64 table path (<= 4x)
#   bench_pca.py --check           kernels.pca vs X.T@X + eigh (<= 1.5x)
# Usage: bash scripts/bench_check.sh   (exit status: the number of failed checks)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY=python
failed=0
for bench in bench_exponential.py bench_pca.py; do
    "$PY" "$ROOT/benchmarks/$bench" --check || failed=$((failed + 1))
done
exit "$failed"

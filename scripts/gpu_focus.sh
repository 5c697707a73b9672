#!/usr/bin/env bash
# A short, focused GPU check of the kernels (PCA on device data and the exponential-mechanism sampler),
# for a device run of a few minutes.  From the repository root:
#
#   bash scripts/gpu_check.sh --focus kernels OUTDIR      (or: bash scripts/gpu_focus.sh OUTDIR)
#
# Steps, each under its own time limit, each logging to OUTDIR (one failing step does not stop the others):
#   1. device and versions (nvidia-smi, CuPy);
#   2. pytest -p no:benchmark: the CuPy PCA and sampler tests and the CPU tests of the same code
#      (tests/kernels/pca/test_cupy.py, test_device_comoment.py, test_top_k_subspace.py,
#      tests/kernels/exponential/test_cupy_sampler.py) -> pytest.log, junit.xml;
#   3. benchmarks/bench_gpu.py --focus: PCA at 500,000 x 1,024 float32/float64 (this package against the
#      CuPy idiom and the previous implementation, accuracy against a float64 reference, and a profile of
#      the parts), then the sampler at N = 1e6, 1e7, 1e8 (1 and 1000 draws, floor/t, a profile of its
#      kernels) -> bench_gpu.md, bench_gpu.json, bench.log.
# No build step (the CuPy paths need no Cython) and no package installation beyond what gpu_check.sh does
# from a carried .gpu_wheels/ (the focused tests import neither dp_accounting nor z3).
# Time: about 150 s in all (FOCUS_BUDGET, default 150; per-step limits FOCUS_TEST_TIMEOUT 60,
# FOCUS_BENCH_TIMEOUT 80).  Exit status: pytest's (the benchmark's is logged).
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
OUTDIR="${1:-${OUT:-gpu_out}}"
mkdir -p "$OUTDIR"
PY="${PYTHON:-python3}"
T0=$(date +%s)
BUDGET="${FOCUS_BUDGET:-150}"
step() { echo "== $(date +%H:%M:%S) (+$(( $(date +%s) - T0 )) s) $*"; }
# limit DEFAULT: the smaller of DEFAULT and the budget left (at least 10 s)
limit() { local left=$(( BUDGET - ($(date +%s) - T0) )); local t="$1"; [ "$left" -lt "$t" ] && t="$left"; [ "$t" -lt 10 ] && t=10; echo "$t"; }

step "device" | tee "$OUTDIR/device.txt"
{ timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1
  timeout 30 "$PY" -c "import sys, numpy, scipy, cupy; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'scipy', scipy.__version__, 'cupy', cupy.__version__, 'devices', cupy.cuda.runtime.getDeviceCount())" 2>&1
} | tee -a "$OUTDIR/device.txt"

bash scripts/link_tree.sh "$ROOT/.gpu_tree" >/dev/null 2>&1 || echo "gpu_focus: link_tree failed" >&2
export PYTHONSAFEPATH=1 PYTHONPATH="$ROOT/.gpu_tree${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

step "pytest (CuPy PCA and sampler)"
XDIST=""
"$PY" -c "import xdist" 2>/dev/null && XDIST="-n 4"
# shellcheck disable=SC2086
timeout "$(limit "${FOCUS_TEST_TIMEOUT:-60}")" "$PY" -m pytest -p no:cacheprovider -p no:benchmark -q -rfEs \
    --durations=10 $XDIST --junitxml="$OUTDIR/junit.xml" \
    tests/kernels/pca/test_cupy.py tests/kernels/pca/test_device_comoment.py tests/kernels/pca/test_top_k_subspace.py \
    tests/kernels/exponential/test_cupy_sampler.py >"$OUTDIR/pytest.log" 2>&1
rc_test=$?
tail -n 25 "$OUTDIR/pytest.log"

step "benchmark (PCA, then the sampler)"
timeout "$(limit "${FOCUS_BENCH_TIMEOUT:-80}")" "$PY" benchmarks/bench_gpu.py --focus \
    --out "$OUTDIR/bench_gpu.md" --json "$OUTDIR/bench_gpu.json" >"$OUTDIR/bench.log" 2>&1
rc_bench=$?
echo "benchmark exit status $rc_bench"
cat "$OUTDIR/bench_gpu.md" 2>/dev/null || tail -n 60 "$OUTDIR/bench.log"

step "done in $(( $(date +%s) - T0 )) s: pytest $rc_test, benchmark $rc_bench"
printf '{"pytest": %s, "benchmark": %s, "seconds": %s}\n' "$rc_test" "$rc_bench" "$(( $(date +%s) - T0 ))" >"$OUTDIR/status.json"
exit "$rc_test"

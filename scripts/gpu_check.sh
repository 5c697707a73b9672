#!/usr/bin/env bash
# The GPU checks, in one run, on a machine with CuPy and a CUDA device (CI has none: there the
# gpu-marked tests skip).  From the repository root:
#
#   bash scripts/gpu_check.sh [OUTDIR]        # OUTDIR default gpu_out/ (or $OUT when set)
#
# Uses the Python on PATH as it is (no virtual environment: a GPU image brings CuPy, NumPy, SciPy,
# scikit-learn, hypothesis and pytest), the package laid out under its import name by
# scripts/link_tree.sh in .gpu_tree/ and put on PYTHONPATH.  Steps, each with its own
# time limit and log in OUTDIR:
#   1. build the Cython kernels in place (setup.py build_ext --inplace), so the CPU rows of the
#      benchmark are the compiled path;
#   2. pytest: the GPU tests, the CuPy modules' doctests, the rest of tests/kernels and the
#      tests that walk every public module or dispatch on CuPy (with CuPy importable they see a
#      real CuPy), the audit calibration of the CuPy sampler, and the audit's device sampling
#      (tests/theory/audit/device: the example mechanisms' law on the GPU against the host's);
#   3. the empirical DP audit of the CuPy sampler (python -m semiprivate audit --only "[cupy]");
#      (GPU_PYTEST_ARGS: the xdist/extra pytest arguments, default "-n auto" when xdist imports);
#   4. benchmarks/bench_gpu.py (GPU_BENCH_ARGS, default none: the exponential mechanism, PCA and
#      the audit's sampling of the example mechanisms); its last table states the hardware-floor
#      targets (sampler floor/t >= 0.7 at N = 1e8 and >= 0.4 at 1e7; PCA on device data >= 1.5x the
#      CuPy idiom at 500,000 x 1,024 in float32 and float64, same or better accuracy) as MET / NOT MET.
#   The pytest step includes the GPU sampler's checks against its NumPy specification
#   (kernels/_cupy/onepass.py): the device must make the emulation's picks from the same uniforms.
# Exit status: that of pytest (0 when every test passed), 1 when the audit verdict is not the
# expected one; the benchmark's status is only logged.
#
# Start-up cannot die on a third-party plugin: pytest runs with "-p no:benchmark" (pytest-benchmark,
# present in GPU images, warns under xdist, and the project's filterwarnings = error turned that
# into an INTERNALERROR; blocking a plugin that is not installed is a no-op) and with xdist's
# "-n auto" when pytest-xdist imports.
#
# Dependencies: a GPU image may lack some of the project's (dp-accounting, z3-solver, ...), and the device
# reaches no package index: the script installs the missing ones from .gpu_wheels/ (made here by
# scripts/gpu_wheels.sh and carried with the run), without touching the image's NumPy/SciPy/CuPy.
#
# Time: the steps fit one 8-minute run (GPU_BUDGET, default 470 s).  Each step's limit is its own
# default (build 120, pytest 200, audit 60, benchmark 150 s; GPU_TEST_TIMEOUT / GPU_BENCH_TIMEOUT
# override) or what is left of the budget, whichever is smaller; the benchmark's default arguments
# (GPU_BENCH_ARGS) are "--sizes 1e6,1e7,1e8 --repeats 3 --sampling-repeats 3".
#
# Focused mode: "bash scripts/gpu_check.sh --focus kernels [OUTDIR]" runs scripts/gpu_focus.sh instead (the PCA
# and sampler tests and their benchmark with a profile, about 150 s; see that script).
set -uo pipefail
if [ "${1:-}" = "--focus" ]; then
    if [ "${2:-}" != "kernels" ]; then echo "gpu_check: --focus takes 'kernels', got '${2:-}'" >&2; exit 2; fi
    exec bash "$(dirname "${BASH_SOURCE[0]}")/gpu_focus.sh" "${@:3}"
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUTDIR="${1:-${OUT:-gpu_out}}"
mkdir -p "$OUTDIR"
PY="${PYTHON:-python3}"
bash scripts/link_tree.sh "$ROOT/.gpu_tree"
# PYTHONSAFEPATH: the checkout's own semiprivate/ (no theory/ inside) must not shadow the link tree
export PYTHONSAFEPATH=1 PYTHONPATH="$ROOT/.gpu_tree${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
step() { echo "== $(date +%H:%M:%S) $*"; }
T0=$(date +%s)
BUDGET="${GPU_BUDGET:-470}"
# limit NAME DEFAULT: the smaller of DEFAULT and the budget left (at least 10 s)
limit() { local left=$(( BUDGET - ($(date +%s) - T0) )); local t="$2"; [ "$left" -lt "$t" ] && t="$left"; [ "$t" -lt 10 ] && t=10; echo "$t"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
"$PY" -c "import sys, numpy, cupy; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'cupy', cupy.__version__, 'devices', cupy.cuda.runtime.getDeviceCount())" || {
    echo "gpu_check: CuPy with a CUDA device is needed" >&2; exit 2; }

step "project dependencies the image lacks (from the wheelhouse .gpu_wheels/, see scripts/gpu_wheels.sh)"
# the device cannot reach a package index: install, without their dependencies, only the modules this
# Python cannot import, from wheels carried with the checkout (name .gpu_wheels in the run's carry)
MISSING=""
for pair in dp_accounting:dp_accounting absl:absl_py attr:attrs tree:dm_tree wrapt:wrapt mpmath:mpmath \
            tqdm:tqdm z3:z3_solver threadpoolctl:threadpoolctl networkx:networkx; do
    "$PY" -c "import ${pair%%:*}" 2>/dev/null || MISSING="$MISSING ${pair#*:}"
done
if [ -n "$MISSING" ]; then
    echo "missing:$MISSING"
    for w in $MISSING; do
        whl=$(ls "$ROOT"/.gpu_wheels/"$w"-*.whl 2>/dev/null | head -n 1)
        if [ -n "$whl" ]; then "$PY" -m pip install -q --no-index --no-deps "$whl" || echo "gpu_check: could not install $w" >&2
        else echo "gpu_check: no wheel for $w in .gpu_wheels/ (bash scripts/gpu_wheels.sh here, then carry it)" >&2; fi
    done
fi

step "build the Cython kernels in place"
if ! timeout "$(limit build 120)" "$PY" setup.py build_ext --inplace --parallel "$(nproc)" >"$OUTDIR/build.log" 2>&1; then
    # an older setuptools may refuse pyproject.toml's metadata: the extensions do not need it
    mv pyproject.toml pyproject.toml.gpu_check
    trap 'mv pyproject.toml.gpu_check pyproject.toml 2>/dev/null' EXIT  # put it back even when interrupted
    timeout "$(limit build 120)" "$PY" setup.py build_ext --inplace --parallel "$(nproc)" >>"$OUTDIR/build.log" 2>&1
    mv pyproject.toml.gpu_check pyproject.toml
    trap - EXIT
fi
"$PY" -c "from semiprivate import kernels; print(kernels.build_info())"

step "pytest"
XDIST=""
"$PY" -c "import xdist" 2>/dev/null && XDIST="-n auto"
# shellcheck disable=SC2086
timeout "$(limit pytest "${GPU_TEST_TIMEOUT:-200}")" "$PY" -m pytest -p no:cacheprovider -p no:benchmark -q -rfEs \
    --durations=15 ${GPU_PYTEST_ARGS:-$XDIST} \
    tests/kernels kernels/_cupy \
    tests/theory/audit/device tests/theory/audit/examples/test_vectorised_mechanisms.py \
    tests/contracts/test_bad_input.py \
    "tests/theory/audit/core/test_audit_mechanism.py::test_calibration_exponential_mechanism_every_backend" \
    2>&1 | tee "$OUTDIR/pytest.log"
rc_test=${PIPESTATUS[0]}

step "audit of the CuPy sampler"
timeout "$(limit audit 60)" "$PY" -m semiprivate audit --only "[cupy]" --no-broken --markdown 2>&1 | tee "$OUTDIR/audit.md"
rc_audit=${PIPESTATUS[0]}

step "benchmark"
# shellcheck disable=SC2086
timeout "$(limit bench "${GPU_BENCH_TIMEOUT:-150}")" "$PY" benchmarks/bench_gpu.py --out "$OUTDIR/bench_gpu.md" \
    ${GPU_BENCH_ARGS:---sizes 1e6,1e7,1e8 --repeats 3 --sampling-repeats 3} \
    >"$OUTDIR/bench.log" 2>&1
echo "benchmark exit status $?"
cat "$OUTDIR/bench_gpu.md" 2>/dev/null || tail -n 40 "$OUTDIR/bench.log"

step "done in $(( $(date +%s) - T0 )) s: pytest $rc_test, audit $rc_audit"
[ "$rc_test" = 0 ] || exit "$rc_test"
[ "$rc_audit" = 0 ] || exit 1

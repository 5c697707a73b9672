"""CuPy backend of the exponential mechanism: CUDA compile check (no GPU needed) and GPU tests.

The ``gpu``-marked tests are skipped without CuPy and a CUDA device.  Statistical assertions use
the G-test of ``test_exponential_stats.py`` at level 1e-7, at most 2 per test function, so each
test fails wrongly with probability <= 2e-7 (< 1e-6).  Seeds are fixed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from kernels import error_counts, exponential_log_probabilities, exponential_mechanism, pack_bits

CU = Path(__file__).resolve().parents[2] / "kernels" / "_cupy" / "expmech.cu"
ALPHA = 1e-7
KERNELS = ["sp_pass_f64", "sp_pass_f32", "sp_pass_i64", "sp_select_f64", "sp_select_f32", "sp_select_i64",
           "sp_errors_packed"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_cuda_source_compiles_with_nvcc(tmp_path: Path) -> None:
    """``nvcc -ptx`` compiles expmech.cu and every kernel the Python side launches is there."""
    out = tmp_path / "expmech.ptx"
    res = subprocess.run(["nvcc", "-ptx", "-std=c++14", str(CU), "-o", str(out)], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    ptx = out.read_text()
    for name in KERNELS:
        assert f".entry {name}(" in ptx, name


def test_cupy_module_imports_without_cupy() -> None:
    """Importing the backend module (and calling the CPU API) never imports CuPy (lazy import)."""
    import sys

    code = (
        "import sys, numpy as np, kernels; from kernels._cupy import exponential as gpu; "
        "kernels.exponential_mechanism(np.arange(5.0), 1.0, rng=0); "
        "assert gpu.CHUNK == 4096 and gpu.SOURCE.exists(); print('cupy' in sys.modules)"
    )
    root = str(Path(__file__).resolve().parents[2])
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert res.stdout.strip() == "False"


def _pool(e: np.ndarray, o: np.ndarray, min_expected: float) -> tuple[np.ndarray, np.ndarray]:
    """Greedy pooling of categories sorted by expected count: each group has expected >= min_expected."""
    ge: list[float] = []
    go: list[float] = []
    acc_e = acc_o = 0.0
    for ei, oi in zip(e.tolist(), o.tolist()):
        acc_e += ei
        acc_o += oi
        if acc_e >= min_expected:
            ge.append(acc_e)
            go.append(acc_o)
            acc_e = acc_o = 0.0
    if acc_e > 0 or acc_o > 0:  # the remainder joins the last group
        if ge:
            ge[-1] += acc_e
            go[-1] += acc_o
        else:
            ge.append(acc_e)
            go.append(acc_o)
    return np.array(ge), np.array(go)


def _g_test(counts: np.ndarray, probs: np.ndarray) -> float:
    keep = probs > 0
    if np.any(counts[~keep] > 0):
        return 0.0
    counts, probs = counts[keep].astype(float), probs[keep] / probs[keep].sum()
    n = counts.sum()
    order = np.argsort(probs)
    e, o = probs[order] * n, counts[order]
    eg, og = _pool(e, o, 20.0)
    if len(eg) < 2:
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 2 * np.sum(np.where(og > 0, og * np.log(og / eg), 0.0))
    q = 1 + (np.sum(n / eg) - 1) / (6 * n * (len(eg) - 1))
    return float(stats.chi2.sf(g / q, len(eg) - 1))


_R = np.random.default_rng(99)
GPU_VECTORS = [
    ("ties", np.zeros(50)),
    ("one", np.array([2.0])),
    ("+-1e300", np.array([1e300, -1e300, 1e300, 0.0])),
    ("spread", np.linspace(-30, 30, 257)),
    ("float32", (_R.standard_normal(300) * 5).astype(np.float32)),
    ("error counts", -_R.binomial(100, 0.3, 500)),
    ("int64 extremes", np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, np.iinfo(np.int64).max - 1])),
    ("-inf", np.array([-np.inf, 0.0, 1.0, -np.inf])),
    ("chunk ramp", (np.arange(4096 * 5 + 7) // 4096) * 1.0 + _R.random(4096 * 5 + 7)),
]


@pytest.mark.gpu
@pytest.mark.parametrize("name,scores", GPU_VECTORS, ids=[v[0] for v in GPU_VECTORS])
def test_gpu_sampler_matches_reference(name: str, scores: np.ndarray) -> None:
    import cupy

    probs = np.exp(exponential_log_probabilities(scores, 1.0))
    draws = exponential_mechanism(cupy.asarray(scores), 1.0, size=200_000, rng=3)
    assert isinstance(draws, cupy.ndarray) and draws.dtype == cupy.int64
    d = draws.get()
    assert _g_test(np.bincount(d, minlength=len(scores)), probs) > ALPHA, name
    if len(scores) > 4096:
        block = np.arange(len(scores)) // 4096
        assert _g_test(np.bincount(block[d], minlength=block[-1] + 1), np.bincount(block, weights=probs)) > ALPHA


@pytest.mark.gpu
def test_gpu_large_and_semantics() -> None:
    import cupy

    N = 10_000_000
    s = cupy.zeros(N)
    s[N - 3] = 1000.0
    assert exponential_mechanism(s, 1.0, rng=0) == N - 3
    s[5] = cupy.inf
    s[7] = cupy.inf
    assert set(exponential_mechanism(s, 1.0, size=500, rng=0).get().tolist()) == {5, 7}
    s[9] = cupy.nan
    with pytest.raises(ValueError, match="NaN"):
        exponential_mechanism(s, 1.0, rng=0)
    with pytest.raises(ValueError, match="-inf"):
        exponential_mechanism(cupy.full(10, -cupy.inf), 1.0, rng=0)
    a = exponential_mechanism(cupy.arange(100.0), 0.5, size=50, rng=8)
    b = exponential_mechanism(cupy.arange(100.0), 0.5, size=50, rng=8)
    assert bool((a == b).all())


@pytest.mark.gpu
def test_gpu_error_counts_match_cpu() -> None:
    import cupy

    g = np.random.default_rng(1)
    for H, m in [(1, 1), (7, 64), (300, 1001), (5000, 130)]:
        P = g.random((H, m)) < 0.4
        y = g.integers(0, 2, m)
        want = (P != y.astype(bool)).sum(axis=1)
        got_packed = error_counts(cupy.asarray(pack_bits(P)), cupy.asarray(y))
        got_bool = error_counts(cupy.asarray(P), cupy.asarray(y))
        assert np.array_equal(got_packed.get(), want) and np.array_equal(got_bool.get(), want)

"""CuPy backend of the exponential mechanism: CUDA compile check (no GPU needed) and GPU tests.

The ``gpu``-marked tests are skipped without CuPy and a CUDA device.  Statistical assertions use
the G-test of :mod:`semiprivate.kernels._testvectors` (shared with ``test_output_distribution.py``) at level
1e-7, at most 2 per test function, so each test fails wrongly with probability <= 2e-7 (< 1e-6).  Seeds are fixed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from semiprivate.kernels import error_counts, exponential_log_probabilities, exponential_mechanism, pack_bits
from semiprivate.kernels._testvectors import g_test_pvalue, score_vectors

CU = Path(__file__).resolve().parents[3] / "kernels" / "_cupy" / "expmech.cu"
ALPHA = 1e-7
KERNELS = ["sp_pass_f64", "sp_pass_f32", "sp_pass_i64", "sp_tiles_f", "sp_tiles_i64", "sp_select_f64",
           "sp_select_f32", "sp_select_i64", "sp_errors_packed"]


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
        "import sys, numpy as np; from semiprivate import kernels; from semiprivate.kernels._cupy import exponential as gpu; "
        "kernels.exponential_mechanism(np.arange(5.0), 1.0, rng=0); "
        "assert gpu.CHUNK == 4096 and gpu.SOURCE.exists(); print('cupy' in sys.modules)"
    )
    root = str(Path(__file__).resolve().parents[3])
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert res.stdout.strip() == "False"


# the adversarial vectors of test_output_distribution.py, with the GPU chunk size 4096
GPU_VECTORS = score_vectors(chunk=4096, seed=99)


@pytest.mark.gpu
@pytest.mark.parametrize("name,scores,eps,sens", GPU_VECTORS, ids=[v[0] for v in GPU_VECTORS])
def test_gpu_sampler_matches_reference(name: str, scores: np.ndarray, eps: float, sens: float) -> None:
    import cupy

    probs = np.exp(exponential_log_probabilities(scores, eps, sensitivity=sens))
    draws = exponential_mechanism(cupy.asarray(scores), eps, sensitivity=sens, size=200_000, rng=3)
    assert isinstance(draws, cupy.ndarray) and draws.dtype == cupy.int64
    d = draws.get()
    assert g_test_pvalue(np.bincount(d, minlength=len(scores)), probs) > ALPHA, name
    if len(scores) > 4096:
        block = np.arange(len(scores)) // 4096
        assert g_test_pvalue(np.bincount(block[d], minlength=block[-1] + 1), np.bincount(block, weights=probs)) > ALPHA


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


@pytest.mark.gpu
def test_gpu_same_uniforms_as_cython_but_different_indices() -> None:
    """Documented: CuPy (three uniforms per draw, chunks of 4096 in tiles of 256) and Cython (two per draw,
    chunks of 2048) give different indices from one seed; each backend is reproducible under its seed."""
    import cupy
    from semiprivate import kernels

    scores = np.random.default_rng(0).random(3 * 4096 + 11)
    a = exponential_mechanism(cupy.asarray(scores), 1.0, size=300, rng=5).get()
    assert np.array_equal(a, exponential_mechanism(cupy.asarray(scores), 1.0, size=300, rng=5).get())
    if "cython" in kernels.available_backends():
        c = exponential_mechanism(scores, 1.0, size=300, rng=5, backend="cython")
        assert not np.array_equal(a, c)


def _device_vs_emulation_vectors() -> list[tuple[str, np.ndarray]]:
    """More than one tile (256 chunks of 4096), a partial last tile and chunk, dead chunks."""
    n = 2 * 256 * 4096 + 7 * 4096 + 99
    g = np.random.default_rng(21)
    f = g.standard_normal(n) + 0.001 * (np.arange(n) // 4096)
    f[(np.arange(n) // 4096) % 97 == 5] = -np.inf
    i = g.integers(-5, 5, n).astype(np.int64) + (np.arange(n) // 65536)
    return [("float64", f), ("float32", f.astype(np.float32)), ("int64", i)]


@pytest.mark.gpu
@pytest.mark.parametrize("name,scores", _device_vs_emulation_vectors(), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("k", [1, 300, 6000])  # 6000 >= SORT_MIN: the sorted block order
def test_gpu_makes_the_emulated_algorithms_picks(name: str, scores: np.ndarray, k: int) -> None:
    """The device gives :mod:`semiprivate.kernels._cupy.onepass`'s draws from the same uniforms (the same seed).

    The two differ only where a uniform falls within a few ulps of a cell boundary (the sums are
    associated differently; CUDA's and NumPy's ``exp`` may differ by 1 ulp): probability about 1e-12 per
    draw, so all draws must agree."""
    import cupy
    from semiprivate.kernels._cupy import onepass

    c = 0.7
    got = exponential_mechanism(cupy.asarray(scores), 2 * c, size=k, rng=31)
    want = onepass.sample(scores, c, k, np.random.default_rng(31))
    assert np.array_equal(cupy.asnumpy(got), want), name


@pytest.mark.gpu
def test_gpu_sorted_order_changes_no_draw(monkeypatch) -> None:
    """Sorting the tile uniforms only reorders the blocks: the draws are those of the unsorted launch."""
    import cupy
    from semiprivate.kernels._cupy import exponential as gpu

    s = cupy.asarray(np.random.default_rng(2).standard_normal(600 * 4096))
    a = exponential_mechanism(s, 1.0, size=5000, rng=9)
    monkeypatch.setattr(gpu, "SORT_MIN", 10**9)
    b = exponential_mechanism(s, 1.0, size=5000, rng=9)
    assert bool((a == b).all())


def _many_chunk_vectors() -> list[tuple[str, np.ndarray]]:
    """More than 256 chunks of 4096 (several tiles): a ramp of chunk levels, whole chunks of weight 0
    inside a tile, at a tile's start and at the end, and a partial last chunk."""
    n = 4096 * 1001 + 123
    chunk = np.arange(n) // 4096
    g = np.random.default_rng(11)
    f = 0.004 * chunk + g.standard_normal(n)
    dead = (chunk >= 500) & (chunk < 503) | (chunk == 4) | (chunk >= 998)
    f[dead] = -np.inf
    i = (chunk % 13).astype(np.int64) - g.integers(0, 3, n)
    i[dead] = -(10**6)  # weight exp(-c 10^6) underflows to 0
    return [("many chunks float64", f), ("many chunks float32", f.astype(np.float32)), ("many chunks int64", i)]


@pytest.mark.gpu
@pytest.mark.parametrize("name,scores", _many_chunk_vectors(), ids=lambda v: v if isinstance(v, str) else "")
def test_gpu_sampler_many_chunks(name: str, scores: np.ndarray) -> None:
    """Chunk-level law over 1002 chunks (G-test, level 1e-7) and no draw from a chunk of weight 0."""
    import cupy

    probs = np.exp(exponential_log_probabilities(scores, 1.0))
    d = exponential_mechanism(cupy.asarray(scores), 1.0, size=300_000, rng=4).get()
    block = np.arange(len(scores)) // 4096
    pblock = np.bincount(block, weights=probs)
    cblock = np.bincount(block[d], minlength=block[-1] + 1)
    assert not cblock[pblock == 0].any(), name
    assert g_test_pvalue(cblock, pblock) > ALPHA, name


@pytest.mark.gpu
def test_gpu_single_draw_is_the_first_of_size_one() -> None:
    """``size=None`` (draw and status read in one copy) gives the first draw of ``size=1`` under the same seed."""
    import cupy

    for scores in (cupy.arange(5000.0) % 17, cupy.arange(9000, dtype=cupy.int64) % 5, cupy.asarray([0.0, -np.inf])):
        for seed in range(5):
            one = exponential_mechanism(scores, 1.0, rng=seed)
            assert isinstance(one, int)
            assert one == int(exponential_mechanism(scores, 1.0, size=1, rng=seed)[0])

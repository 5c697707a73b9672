"""PCAResult.transform(X, chunk_rows=...): the row-block projection used to stream a memory-mapped
public data set onto the top-k components (HPSY.Thm3 / PILLAR.Alg1 Step 2, ``A^T x``) equals the
one-shot product, releases each memmap block's pages, and names ``chunk_rows`` on bad input."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate import kernels
from semiprivate.kernels import _pca_result


@pytest.fixture()
def data() -> np.ndarray:
    g = np.random.default_rng(3)
    return (g.standard_normal((1003, 24)) @ g.standard_normal((24, 24))).astype(np.float32)


@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("chunk_rows", [1, 7, 100, 1003, 5000])
def test_chunked_equals_in_memory(data: np.ndarray, center: bool, chunk_rows: int) -> None:
    res = kernels.pca(data, 5, center=center)
    ref = res.transform(data)
    Z = res.transform(data, chunk_rows=chunk_rows)
    assert Z.shape == ref.shape == (1003, 5) and Z.dtype == ref.dtype
    # BLAS may pick another kernel for a short block (gemv for one row): float32 round-off apart
    np.testing.assert_allclose(Z, ref, rtol=0, atol=1e-5 * np.abs(ref).max())
    # and both are the float64 projection A^T x - A^T mean, to float32 round-off
    exact = data.astype(np.float64) @ res.components - res.mean @ res.components
    np.testing.assert_allclose(Z, exact, atol=1e-4 * np.abs(exact).max())


def test_memmap_chunks_equal_in_memory_and_release_pages(data: np.ndarray, tmp_path, monkeypatch) -> None:
    path = tmp_path / "pub.npy"
    np.save(path, data)
    M = np.load(path, mmap_mode="r")
    res = kernels.pca(M, 4, center=True)
    released: list[tuple[int, int]] = []
    real = _pca_result._page_releaser

    def spy(arr):
        rel = real(arr)
        assert rel is not None  # a read-only shared memmap: pages can be dropped

        def wrapped(block):
            released.append((int(block.ctypes.data), int(block.shape[0])))
            rel(block)
        return wrapped

    monkeypatch.setattr(_pca_result, "_page_releaser", spy)
    Z = res.transform(M, chunk_rows=64)
    ref = res.transform(data)
    np.testing.assert_allclose(Z, ref, rtol=0, atol=1e-5 * np.abs(ref).max())
    assert [r for _, r in released] == [64] * 15 + [1003 - 15 * 64]  # every block, once
    assert isinstance(Z, np.ndarray) and not isinstance(Z, np.memmap)


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-3, ValueError), (2.0, TypeError), (True, TypeError),
                                      ("8", TypeError)])
def test_bad_chunk_rows_is_named(data: np.ndarray, bad, exc) -> None:
    res = kernels.pca(data, 3)
    with pytest.raises(exc, match="chunk_rows"):
        res.transform(data, chunk_rows=bad)

"""The sparse-vector responses on CuPy arrays equal the NumPy reference bit for bit (ties, NaN,
infinities, -0.0, every cutoff, values, strided ``out``); the backend checks hold without a GPU."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.kernels import sparse_vector as sv
from semiprivate.kernels._backend import _cupy_available


def _tied_queries(g: np.random.Generator, n: int, m: int) -> np.ndarray:
    """Queries on a coarse grid (many ties with the thresholds), a few NaN and infinities."""
    x = np.round(g.laplace(0.0, 1.5, (n, m)) * 2) / 2
    x.flat[g.choice(x.size, 7, replace=False)] = [np.nan, np.inf, -np.inf, np.nan, -0.0, 0.0, np.inf]
    return x


@pytest.mark.gpu
@pytest.mark.parametrize("cutoff", [None, 1, 2, 5, 40])
@pytest.mark.parametrize("with_values", [False, True])
def test_device_responses_equal_the_reference(cutoff: int | None, with_values: bool) -> None:
    import cupy

    g = np.random.default_rng(7 if cutoff is None else cutoff)
    cmp, values = _tied_queries(g, 3000, 12), g.normal(size=(3000, 12))
    thr = np.round(g.laplace(0.0, 1.0, 3000) * 2) / 2
    want = sv._responses_numpy(cmp, thr, cutoff, values if with_values else None, 1.0, -1000.0, -2000.0)
    got = sv.sparse_vector_responses(cupy.asarray(cmp), cupy.asarray(thr), cutoff=cutoff,
                                     values=cupy.asarray(values) if with_values else None, below=-1000.0,
                                     aborted=-2000.0)
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    wide = cupy.full((3000, 30), 7.0)  # a block of columns of a wider output, as SVT34Parallel writes
    res = sv.sparse_vector_responses(cmp, thr, cutoff=cutoff, values=values if with_values else None,
                                     below=-1000.0, aborted=-2000.0, out=wide[:, 5:17], backend="cupy")
    assert res is not None
    host = cupy.asnumpy(wide)
    np.testing.assert_array_equal(host[:, 5:17], want)
    assert (host[:, :5] == 7.0).all() and (host[:, 17:] == 7.0).all()


@pytest.mark.gpu
def test_device_rejects_a_host_out_and_a_cpu_backend() -> None:
    import cupy

    cmp, thr = cupy.zeros((4, 3)), cupy.zeros(4)
    with pytest.raises(TypeError, match="out must be None or a writeable float64 CuPy array"):
        sv.sparse_vector_responses(cmp, thr, out=np.empty((4, 3)))
    with pytest.raises(ValueError, match="CuPy arrays need backend='cupy'"):
        sv.sparse_vector_responses(cmp, thr, backend="cython")


@pytest.mark.skipif(_cupy_available(), reason="checks the message without a GPU")
def test_cupy_backend_without_a_gpu_says_what_to_do() -> None:
    with pytest.raises(ValueError, match="backend 'cupy' needs CuPy and a CUDA device"):
        sv.sparse_vector_responses(np.zeros((2, 2)), np.zeros(2), backend="cupy")


def test_backend_names_are_checked() -> None:
    with pytest.raises(ValueError, match="backend"):
        sv.sparse_vector_responses(np.zeros((2, 2)), np.zeros(2), backend="gpu")
    with pytest.raises(ValueError, match="backend"):
        sv.row_pattern_keys(np.zeros((2, 2)), np.array([0]), np.array([0.0]), np.array([]), backend="cupy")

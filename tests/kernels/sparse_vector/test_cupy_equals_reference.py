"""The sparse-vector responses on CuPy arrays equal the NumPy reference bit for bit (ties, NaN,
infinities, -0.0, every cutoff, values, strided ``out``); the backend checks hold without a GPU."""

from __future__ import annotations

import sys
import types
from typing import Any

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
    want = ("^backend 'cupy' needs CuPy and a CUDA device \\(pip install 'semiprivate\\[gpu\\]'\\), "
            "or pass NumPy arrays$")
    with pytest.raises(ValueError, match=want):
        sv.sparse_vector_responses(np.zeros((2, 2)), np.zeros(2), backend="cupy")


def test_backend_names_are_checked() -> None:
    with pytest.raises(ValueError, match="^backend must be one of 'auto', 'cython', 'numpy', 'cupy', got 'gpu'$"):
        sv.sparse_vector_responses(np.zeros((2, 2)), np.zeros(2), backend="gpu")
    with pytest.raises(ValueError, match="^backend must be one of 'auto', 'cython', 'numpy', got 'cupy'$"):
        sv.row_pattern_keys(np.zeros((2, 2)), np.array([0]), np.array([0.0]), np.array([]), backend="cupy")


class _DeviceArray(np.ndarray):
    """A NumPy array that the backend checks read as a CuPy array (its type's module is ``cupy``); like
    CuPy, its arithmetic refuses host arrays."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out", ())
        if any(isinstance(x, np.ndarray) and not isinstance(x, _DeviceArray) for x in inputs + tuple(out)):
            raise TypeError(f"stand-in cupy: {ufunc.__name__} with a host array")
        args = [x.view(np.ndarray) if isinstance(x, _DeviceArray) else x for x in inputs]
        if out:
            kwargs["out"] = tuple(o.view(np.ndarray) for o in out)
        res = getattr(ufunc, method)(*args, **kwargs)
        if out:
            return out[0] if len(out) == 1 else out
        return res.view(_DeviceArray) if isinstance(res, np.ndarray) else res


_DeviceArray.__module__ = "cupy"


def _device_where(cond: Any, x: Any, y: Any) -> Any:
    if any(isinstance(v, np.ndarray) and not isinstance(v, _DeviceArray) for v in (cond, x, y)):
        raise TypeError("stand-in cupy: where with a host array")
    return np.where(*(v.view(np.ndarray) if isinstance(v, _DeviceArray) else v for v in (cond, x, y))).view(_DeviceArray)


@pytest.fixture
def numpy_as_cupy(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A stand-in ``cupy`` on NumPy: the device path's own code (dispatch, checks, ``out``) runs here."""
    cp = types.ModuleType("cupy")
    cp.ndarray = _DeviceArray  # type: ignore[attr-defined]
    cp.float64, cp.int32 = np.float64, np.int32  # type: ignore[attr-defined]
    cp.asarray = lambda x, dtype=None: np.asarray(x, dtype=dtype).view(_DeviceArray)  # type: ignore[attr-defined]
    cp.ascontiguousarray = lambda x, dtype=None: np.ascontiguousarray(x, dtype=dtype).view(_DeviceArray)  # type: ignore[attr-defined]
    cp.where = _device_where  # type: ignore[attr-defined]
    cp.cumsum = np.cumsum  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", cp)
    monkeypatch.setattr(sv, "_cupy_available", lambda: True)
    return cp


@pytest.mark.parametrize("cutoff", [None, 2])
def test_device_path_on_a_stand_in(numpy_as_cupy: Any, cutoff: int | None) -> None:
    g = np.random.default_rng(3)
    cmp, values, thr = _tied_queries(g, 500, 6), g.normal(size=(500, 6)), np.round(g.laplace(0.0, 1.0, 500) * 2) / 2
    want = sv._responses_numpy(cmp, thr, cutoff, values, 1.0, 0.0, -1.0)
    dev = numpy_as_cupy.asarray
    got = sv.sparse_vector_responses(dev(cmp), dev(thr), cutoff=cutoff, values=dev(values))  # "auto" sees CuPy
    assert type(got) is _DeviceArray
    np.testing.assert_array_equal(np.asarray(got), want)
    got = sv.sparse_vector_responses(cmp, thr.astype(np.float32), cutoff=cutoff, values=values, backend="cupy")
    assert type(got) is _DeviceArray  # host inputs are copied to the device
    np.testing.assert_array_equal(np.asarray(got), sv._responses_numpy(cmp, thr.astype(np.float32).astype(np.float64),
                                                                      cutoff, values, 1.0, 0.0, -1.0))
    wide = dev(np.full((500, 9), 7.0))
    res = sv.sparse_vector_responses(dev(cmp), dev(thr), cutoff=cutoff, values=dev(values), out=wide[:, 2:8])
    np.testing.assert_array_equal(np.asarray(wide[:, 2:8]), want)
    assert np.shares_memory(res, wide) and (np.asarray(wide[:, :2]) == 7.0).all() and (np.asarray(wide[:, 8:]) == 7.0).all()


def test_device_path_checks_on_a_stand_in(numpy_as_cupy: Any) -> None:
    dev = numpy_as_cupy.asarray
    cmp, thr = dev(np.zeros((4, 3))), dev(np.zeros(4))
    with pytest.raises(TypeError, match=r"out must be None or a writeable float64 CuPy array of shape \(4, 3\)"):
        sv.sparse_vector_responses(cmp, thr, out=np.empty((4, 3)))
    with pytest.raises(TypeError, match="out must be None or a writeable float64 CuPy array"):
        sv.sparse_vector_responses(cmp, thr, out=dev(np.empty((4, 3), dtype=np.float32)))
    with pytest.raises(TypeError, match="out must be None or a writeable float64 CuPy array"):
        sv.sparse_vector_responses(cmp, thr, out=dev(np.empty((4, 2))))
    with pytest.raises(ValueError, match="CuPy arrays need backend='cupy' \\(or 'auto'\\), got backend='numpy'"):
        sv.sparse_vector_responses(cmp, thr, backend="numpy")
    with pytest.raises(ValueError, match="CuPy arrays need backend='cupy'"):
        sv.sparse_vector_responses(np.zeros((4, 3)), np.zeros(4), out=dev(np.empty((4, 3))), backend="cython")
    with pytest.raises(ValueError, match="values must have the shape of compare"):
        sv.sparse_vector_responses(cmp, thr, values=dev(np.zeros((4, 2))))
    with pytest.raises(ValueError, match="thresholds must have 4 entries"):
        sv.sparse_vector_responses(cmp, dev(np.zeros(3)))
    with pytest.raises(TypeError, match="thresholds must be a 1-D array of numbers"):
        sv.sparse_vector_responses(cmp, None)
    with pytest.raises(TypeError, match="compare must be a 2-D array of numbers, got dtype"):
        sv.sparse_vector_responses(dev(np.array([["a"]])), thr)

"""The CuPy PCA backend's Python code, run on a NumPy stand-in for CuPy (no GPU needed).

What this checks: the logic of :mod:`semiprivate.kernels._cupy.pca` (``CupyOps``, ``stream_to_device``,
``_syrk_mode``) and of the ``backend="cupy"`` branches of :mod:`semiprivate.kernels._pca` and
:mod:`semiprivate.kernels._backend` -- attribute names of the CuPy API, shapes, dtypes and broadcasting,
which triangle the ``?syrk`` accumulator keeps and how it is symmetrised, host/device conversions
(device arrays in, device arrays out; host arrays in, host arrays out), the ordering of the
stream/event calls of the double-buffered host -> device copy, and the lazy NaN check.

What this does NOT check: cuBLAS/cuSOLVER numerics, real stream concurrency, pinned-memory
behaviour or CuPy's own correctness.  ``tests/kernels/pca/test_cupy.py`` checks those on a GPU;
the scenarios here are its scenarios (same data, same tolerances) plus the backend logic that
only a stand-in can provoke (a cuBLAS that fills the other triangle or fails, copies that land
late or early, a missing synchronisation).

The stand-in (fixture ``fake_cupy``) puts modules ``cupy``, ``cupy.cuda``, ``cupy.cuda.runtime``,
``cupy.cublas``, ``cupy.linalg`` and ``cupyx`` into ``sys.modules``, holding only the names the
backend uses, with CuPy's signatures (checked against CuPy's source):

* the device array type :class:`DeviceArray` is an ``np.ndarray`` subclass whose ``__module__``
  is ``"cupy"`` (so ``semiprivate.kernels._backend.is_cupy_array`` recognises it).  Operations on it stay on
  the "device"; as in CuPy, a host ``np.ndarray`` operand of a device operation (ufunc, NumPy
  function, ``cupy.*`` function) raises TypeError, ``cupy.asarray`` copies host -> device and
  ``cupy.asnumpy`` device -> host; ``ndarray.set`` accepts only a host array of the same shape
  and dtype.  Floating-point warnings are silenced, as on a GPU.
* a real CuPy array is no ``np.ndarray``: the backend modules (``semiprivate.kernels._pca`` and the modules it uses,
  ``semiprivate.kernels._cupy.pca``, ``semiprivate.kernels._reference_pca``) see a ``numpy`` whose ``ndarray`` excludes
  the device type (``isinstance`` is False, so ``flip_signs`` takes its CuPy branch) and whose
  ``asarray``/``array``/``asanyarray``/``ascontiguousarray`` refuse a device array, as CuPy's
  ``__array__`` does (TypeError: no implicit conversion).
* ``cupy.empty`` and ``cupyx.empty_pinned`` return NaN-filled memory, so a read of memory
  that was never written shows up.
* ``cupy.cublas.syrk`` follows CuPy's ``cupy/cublas.py``: ``trans='T'`` gives ``a.T @ a``
  (``'N'``: ``a @ a.T``); ``lower=True`` updates the lower triangle of ``out`` as indexed from
  Python, for a C- as for an F-ordered ``out`` (CuPy passes ``1 - uplo`` with the transposed
  layout for C order); ``out = alpha * op(a) op(a)^T + beta * out`` on that triangle only (``out``
  is not read when ``beta == 0``), the other triangle untouched.  Variants for the fallback
  paths: ``"raises"`` (a cuBLAS error), ``"absent"`` (no ``cupy.cublas``), ``"upper"`` (a
  library that fills the other triangle) and ``"wrong"`` (wrong numbers).
* streams and events: each stream is a FIFO queue of operations.  Device arithmetic runs at
  once on the current stream (after that stream's queued work); ``ndarray.set(host, stream=s)``
  is queued on ``s`` and reads the host buffer when it runs.  A stream can be *eager* (runs
  what is queued at once) or *lazy* (runs it only when something waits for it:
  ``Event.synchronize``, ``Stream.synchronize``, or a ``wait_event`` on a stream that then
  runs).  Both are legal GPU schedules; a copy that lands late catches a missing
  ``wait_event``, a consumer that runs late catches a buffer reused before its event was
  synchronised.

Deterministic: fixed seeds, no threads, no timing.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import semiprivate.kernels._backend as backend_mod
import semiprivate.kernels._covariance as covariance_mod
import semiprivate.kernels._cupy.pca as cupy_pca
import semiprivate.kernels._pca as pca_mod
import semiprivate.kernels._pca_eigen as eigen_mod
import semiprivate.kernels._pca_plan as plan_mod
import semiprivate.kernels._pca_randomized as randomized_mod
import semiprivate.kernels._pca_result as result_mod
import semiprivate.kernels._pca_sources as sources_mod
import semiprivate.kernels._reference_pca as ref_mod
from semiprivate import kernels
from semiprivate.kernels import CovarianceAccumulator, pca
from semiprivate.kernels._backend import is_cupy_array
from semiprivate.kernels._reference_pca import reference_pca, subspace_distance

# ---------------------------------------------------------------------------
# the stand-in
# ---------------------------------------------------------------------------


class _Runtime:
    """State of the stand-in device: streams, the syrk variant, counters."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, syrk_variant: str = "faithful", lazy_streams: bool = True) -> None:
        self.syrk_variant = syrk_variant
        self.lazy_streams = lazy_streams  # new (non-null) streams run their queue only when waited for
        self.sabotage: set[str] = set()  # "event_sync" / "wait_event": make that call a no-op
        self.streams: list[_Stream] = []
        self.null = _Stream(null=True)  # the compute stream: eager unless a test says otherwise
        self.stack: list[_Stream] = [self.null]
        self.host_reads = 0  # device -> host reads (bool/float/int of a device array, asnumpy, get)
        self.syrk_calls = 0
        self.pinned_allocs = 0

    @property
    def current(self) -> _Stream:
        return self.stack[-1]

    def flush_current(self) -> None:
        """A device operation runs now, on the current stream: that stream's queue runs first."""
        self.current._flush(self.current._issued)

    def pending(self) -> int:
        return sum(s._issued - s._done for s in self.streams)


class _Event:
    """``cupy.cuda.Event``: marks a position in a stream's queue."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False) -> None:
        self._stream: _Stream | None = None
        self._pos = 0

    @property
    def done(self) -> bool:
        return self._stream is None or self._stream._done >= self._pos

    def synchronize(self) -> None:
        if "event_sync" in _RT.sabotage or self._stream is None:
            return
        self._stream._flush(self._pos)


class _Stream:
    """``cupy.cuda.Stream``: a FIFO of queued operations (see the module docstring)."""

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False, priority: Any = None) -> None:
        self._queue: list[Callable[[], None]] = []
        self._issued = 0
        self._done = 0
        self.lazy = False
        if not null:
            self.lazy = _RT.lazy_streams
            _RT.streams.append(self)

    def _issue(self, op: Callable[[], None]) -> None:
        self._queue.append(op)
        self._issued += 1
        if not self.lazy:
            self._flush(self._issued)

    def _flush(self, upto: int) -> None:
        while self._done < upto:
            op = self._queue.pop(0)
            self._done += 1
            op()

    def record(self, event: _Event | None = None) -> _Event:
        ev = _Event() if event is None else event
        ev._stream, ev._pos = self, self._issued
        return ev

    def wait_event(self, event: _Event) -> None:
        if "wait_event" in _RT.sabotage or event._stream is None:
            return
        src, pos = event._stream, event._pos
        self._issue(lambda: src._flush(pos))

    def synchronize(self) -> None:
        self._flush(self._issued)

    def __enter__(self) -> _Stream:
        _RT.stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        assert _RT.stack.pop() is self


_RT = _Runtime()
_SCALARS = (bool, int, float, complex, np.generic)


def _check_operands(what: str, values: Iterable[Any]) -> None:
    """CuPy refuses host arrays as operands of device operations ("Unsupported type")."""
    for v in values:
        items = v if isinstance(v, (list, tuple)) else (v,)
        for x in items:
            if isinstance(x, np.ndarray) and not isinstance(x, DeviceArray):
                raise TypeError(f"stand-in cupy: {what}: unsupported type {type(x)} (a host array in a device operation)")


def _host(x: Any) -> Any:
    """The plain ndarray view of a device array (lists/tuples converted element-wise)."""
    if isinstance(x, DeviceArray):
        return x.view(np.ndarray)
    if isinstance(x, (list, tuple)):
        return type(x)(_host(v) for v in x)
    return x


def _wrap(x: Any) -> Any:
    """Results of device operations are device arrays (0-d for reductions, as in CuPy)."""
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, DeviceArray):
        return x
    if isinstance(x, np.ndarray):
        return x.view(DeviceArray)
    if isinstance(x, np.generic):
        return np.asarray(x).view(DeviceArray)
    return x


def _run(fn: Callable[..., Any], what: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _RT.flush_current()
    _check_operands(what, [*args, *kwargs.values()])
    with np.errstate(all="ignore"):
        return fn(*_host(args), **{k: _host(v) for k, v in kwargs.items()})


class DeviceArray(np.ndarray):
    """``cupy.ndarray`` of the stand-in."""

    __module__ = "cupy"

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is not None:
            _check_operands(f"{ufunc.__name__} out", out)
            if not all(isinstance(o, DeviceArray) for o in out if o is not None):
                raise TypeError(f"stand-in cupy: {ufunc.__name__}: out must be a cupy.ndarray")
        result = _run(getattr(ufunc, method), ufunc.__name__, inputs, kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        return _wrap(_run(func, func.__name__, args, kwargs))

    def __bool__(self) -> bool:
        _RT.flush_current()
        _RT.host_reads += 1
        return bool(self.view(np.ndarray))

    def __float__(self) -> float:
        _RT.flush_current()
        _RT.host_reads += 1
        return float(self.view(np.ndarray))

    def __int__(self) -> int:
        _RT.flush_current()
        _RT.host_reads += 1
        return int(self.view(np.ndarray))

    def get(self, stream: Any = None, order: str = "C", out: Any = None, blocking: bool = True) -> np.ndarray:
        _RT.flush_current()
        _RT.host_reads += 1
        return np.array(self.view(np.ndarray), order=order, copy=True)

    def set(self, arr: Any, stream: _Stream | None = None) -> None:
        """``cupy.ndarray.set``: host -> device copy, queued on ``stream`` (CuPy's checks)."""
        if not isinstance(arr, np.ndarray) or isinstance(arr, DeviceArray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if self.dtype != arr.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if self.shape != arr.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self.shape}, new shape: {arr.shape}")
        if not (self.flags.c_contiguous or self.flags.f_contiguous):
            raise RuntimeError("Cannot set to non-contiguous array")
        dst = self.view(np.ndarray)
        (_RT.current if stream is None else stream)._issue(lambda: np.copyto(dst, arr))  # reads arr when it runs


def _nan_filled(shape: Any, dtype: Any, order: str) -> np.ndarray:
    a = np.empty(shape, dtype=dtype, order=order)
    if a.dtype.kind in "fc":
        a.fill(np.nan)
    else:
        a.view(np.uint8).fill(0xA5)
    return a


def _asarray(a: Any, dtype: Any = None, order: Any = None, *, blocking: bool = False) -> DeviceArray:
    if isinstance(a, DeviceArray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    _RT.flush_current()
    return np.array(a, dtype=dtype, order=order or "K", copy=True).view(DeviceArray)


def _asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None, blocking: bool = True) -> np.ndarray:
    if isinstance(a, DeviceArray):
        return a.get(order=order)
    return np.asarray(a, order=order)


def _empty(shape: Any, dtype: Any = float, order: str = "C") -> DeviceArray:
    _RT.flush_current()
    return _nan_filled(shape, dtype, order).view(DeviceArray)


def _empty_pinned(shape: Any, dtype: Any = float, order: str = "C") -> np.ndarray:
    _RT.pinned_allocs += 1
    return _nan_filled(shape, dtype, order)  # a host ndarray, as cupyx.empty_pinned returns


def _device_fn(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return _wrap(_run(fn, fn.__name__, args, kwargs))

    call.__name__ = fn.__name__
    return call


def _syrk(trans: Any, a: Any, out: Any = None, alpha: float = 1.0, beta: float = 0.0, lower: bool = False) -> Any:
    """``cupy.cublas.syrk`` (see the module docstring for the semantics and the variants)."""
    _RT.flush_current()
    _RT.syrk_calls += 1
    variant = _RT.syrk_variant
    if variant == "raises":
        raise RuntimeError("CUBLAS_STATUS_NOT_SUPPORTED (stand-in cuBLAS error)")
    for name, arr in (("a", a), ("out", out)):
        if arr is not None and not isinstance(arr, DeviceArray):
            raise TypeError(f"stand-in cupy.cublas.syrk: {name} must be a cupy.ndarray, got {type(arr)}")
    assert a.ndim == 2
    if a.dtype.char not in "fdFD":
        raise TypeError("invalid dtype")
    if trans not in ("N", "T", "H"):
        raise TypeError(f"invalid trans (actual: {trans})")
    ha = a.view(np.ndarray)
    op = ha if trans == "N" else ha.T
    n = op.shape[0]
    if out is None:
        out = np.zeros((n, n), dtype=a.dtype, order="F").view(DeviceArray)
        beta = 0.0
    else:
        assert out.ndim == 2 and out.shape == (n, n) and out.dtype == a.dtype
    if not (out.flags.c_contiguous or out.flags.f_contiguous):
        raise AssertionError("stand-in: CuPy's syrk does not write back into a non-contiguous out")
    tri = np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T
    if variant == "upper":
        tri = tri.T
    o = out.view(np.ndarray)
    with np.errstate(all="ignore"):
        new = a.dtype.type(alpha) * (op @ op.T)
        if beta != 0:
            new += a.dtype.type(beta) * o
        if variant == "wrong":
            new += 1
    o[tri] = new[tri]
    return out


class _HostArrayMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, np.ndarray) and not isinstance(obj, DeviceArray)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, np.ndarray) and not issubclass(sub, DeviceArray)


class _HostArray(metaclass=_HostArrayMeta):
    """``np.ndarray`` as the backend sees it next to real CuPy: a device array is no instance."""


def _no_implicit_conversion(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(a, DeviceArray):
            raise TypeError(
                "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy "
                f"array explicitly. (stand-in cupy: numpy.{fn.__name__} of a device array)"
            )
        return fn(a, *args, **kwargs)

    return call


class _NumpySeenWithCupy:
    """``numpy`` for the backend modules: what differs when CuPy arrays are not ``np.ndarray``
    subclasses -- ``isinstance(x, np.ndarray)`` is False for them and ``np.asarray``/``np.array``/
    ``np.asanyarray``/``np.ascontiguousarray`` refuse them (CuPy's ``__array__`` raises TypeError)."""

    ndarray = _HostArray
    asarray = staticmethod(_no_implicit_conversion(np.asarray))
    asanyarray = staticmethod(_no_implicit_conversion(np.asanyarray))
    array = staticmethod(_no_implicit_conversion(np.array))
    ascontiguousarray = staticmethod(_no_implicit_conversion(np.ascontiguousarray))

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


def _build_modules(syrk_variant: str) -> dict[str, types.ModuleType]:
    cupy: Any = types.ModuleType("cupy")
    cupy.__path__ = []
    cuda: Any = types.ModuleType("cupy.cuda")
    cuda.__path__ = []
    runtime: Any = types.ModuleType("cupy.cuda.runtime")
    linalg: Any = types.ModuleType("cupy.linalg")
    cublas: Any = types.ModuleType("cupy.cublas")
    cupyx: Any = types.ModuleType("cupyx")

    cupy.ndarray = DeviceArray
    cupy.asarray = _asarray
    cupy.asnumpy = _asnumpy
    cupy.empty = _empty
    for name in ("zeros", "zeros_like", "arange", "ascontiguousarray", "outer", "tril", "triu", "trace", "where", "argsort",
                 "full", "ones", "flatnonzero"):
        setattr(cupy, name, _device_fn(getattr(np, name)))
    for name in ("subtract", "isfinite", "isnan", "maximum", "abs", "matmul"):  # ufuncs
        setattr(cupy, name, _device_fn(getattr(np, name)))
    linalg.eigh = _device_fn(np.linalg.eigh)
    linalg.qr = _device_fn(np.linalg.qr)
    runtime.getDeviceCount = lambda: 1
    cuda.Stream = _Stream
    cuda.Event = _Event
    cuda.get_current_stream = lambda device_id=None: _RT.current
    cuda.runtime = runtime
    cublas.syrk = _syrk
    cupyx.empty_pinned = _empty_pinned
    cupy.cuda = cuda
    cupy.linalg = linalg
    mods = {"cupy": cupy, "cupy.cuda": cuda, "cupy.cuda.runtime": runtime, "cupy.linalg": linalg, "cupyx": cupyx}
    if syrk_variant != "absent":
        cupy.cublas = cublas
        mods["cupy.cublas"] = cublas
    return mods


@pytest.fixture
def fake_cupy(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Any:
    """Install the stand-in; ``request.param`` (indirect) picks the syrk variant.  Yields the
    stand-in ``cupy`` module."""
    variant = getattr(request, "param", "faithful")
    # "gemm": the default product (GEMM, both triangles); every other variant runs the SYRK product
    # (SEMIPRIVATE_CUPY_PRODUCT=syrk) so that its triangle handling stays covered
    monkeypatch.setenv(cupy_pca.PRODUCT_ENV, "gemm" if variant == "gemm" else "syrk")
    variant = "faithful" if variant == "gemm" else variant
    _RT.reset(syrk_variant=variant)
    mods = _build_modules(variant)
    for name, mod in mods.items():
        monkeypatch.setitem(sys.modules, name, mod)
    if "cupy.cublas" not in mods:
        monkeypatch.delitem(sys.modules, "cupy.cublas", raising=False)
    monkeypatch.setattr(cupy_pca, "_SYRK_MODE", {})
    for mod in (pca_mod, covariance_mod, eigen_mod, plan_mod, randomized_mod, result_mod, sources_mod, cupy_pca, ref_mod):  # the backend's view of numpy next to real CuPy
        monkeypatch.setattr(mod, "np", _NumpySeenWithCupy())
    backend_mod._cupy_available.cache_clear()  # conftest cached False at collection
    yield mods["cupy"]
    backend_mod._cupy_available.cache_clear()  # re-evaluated (False) once the stand-in is gone
    _RT.reset()


# ---------------------------------------------------------------------------
# the scenarios of test_cupy.py
# ---------------------------------------------------------------------------


def _load_gpu_scenarios() -> Any:
    """tests/kernels/pca/test_cupy.py as a module (its scenarios run here on the stand-in)."""
    path = Path(__file__).with_name("test_cupy.py")
    spec = importlib.util.spec_from_file_location("_pca_gpu_scenarios", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GPU = _load_gpu_scenarios()
_data = _GPU._data
_merge_parts = _GPU.merge_parts


# ---------------------------------------------------------------------------
# the stand-in itself
# ---------------------------------------------------------------------------


def test_standin_behaves_like_cupy_where_the_backend_relies_on_it(fake_cupy: Any) -> None:
    cp = fake_cupy
    x = cp.asarray(np.arange(6.0).reshape(2, 3))
    assert is_cupy_array(x) and not is_cupy_array(np.zeros(1)) and "cupy" in kernels.available_backends()
    assert type(x + 1) is DeviceArray and type(x.sum()) is DeviceArray and x.sum().ndim == 0
    assert type(cp.asnumpy(x)) is np.ndarray and not is_cupy_array(cp.asnumpy(x))
    for bad in (lambda: x + np.ones(3), lambda: np.ones(3) * x, lambda: cp.outer(np.ones(2), x[0]), lambda: np.copyto(np.zeros((2, 3)), x)):
        with pytest.raises(TypeError, match="host array"):
            bad()
    with pytest.raises(TypeError, match="Only numpy.ndarray"):
        x.set(x)
    with pytest.raises(ValueError, match="Shape mismatch"):
        x.set(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="cannot be set"):
        x.set(np.zeros((2, 3), dtype=np.float32))
    assert np.isnan(cp.asnumpy(cp.empty((2, 2)))).all()
    with pytest.raises(AttributeError):
        _ = cp.not_a_cupy_function


@pytest.mark.parametrize("order", ["C", "F"])
def test_standin_syrk_writes_one_triangle(fake_cupy: Any, order: str) -> None:
    cp = fake_cupy
    a_host = np.arange(15.0).reshape(5, 3) / 7.0
    a = cp.asarray(a_host)
    ref = a_host.T @ a_host
    out = cp.asarray(np.full((3, 3), 7.0, order=order))
    cp.cublas.syrk("T", a, out=out, alpha=2.0, beta=1.0, lower=True)
    got = cp.asnumpy(out)
    low = np.tri(3, dtype=bool)
    np.testing.assert_allclose(got[low], 2 * ref[low] + 7.0, rtol=1e-15)
    assert (got[~low] == 7.0).all()  # the other triangle is not touched
    out = cp.empty((3, 3))  # NaN-filled: beta = 0 does not read it
    cp.cublas.syrk("T", a, out=out, lower=False)
    got = cp.asnumpy(out)
    np.testing.assert_allclose(got[low.T], ref[low.T], rtol=1e-15)
    assert np.isnan(got[~low.T]).all()
    outer = cp.asnumpy(cp.cublas.syrk("N", a, lower=True))  # trans='N': a @ a.T, new F-ordered out
    low5 = np.tri(5, dtype=bool)
    np.testing.assert_allclose(outer[low5], (a_host @ a_host.T)[low5], rtol=1e-15)
    assert (outer[~low5] == 0).all()


# ---------------------------------------------------------------------------
# ports of test_cupy.py
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["covariance", "randomized"])
def test_cupy_host_input_matches_reference(fake_cupy: Any, dtype: type, method: str) -> None:
    _GPU.test_cupy_host_input_matches_reference(dtype, method)
    if method == "covariance":  # the self-check found CuPy's triangle; the copies all landed
        assert cupy_pca._SYRK_MODE == {np.dtype(dtype).str: "lower"}
        assert _RT.syrk_calls > 1 and _RT.pinned_allocs == 2 and _RT.pending() == 0


def test_cupy_device_input_returns_device_arrays(fake_cupy: Any) -> None:
    _GPU.test_cupy_device_input_returns_device_arrays()
    assert _RT.pinned_allocs == 0  # device data are not staged


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_device_input_top_k_solver_with_a_large_mean(fake_cupy: Any, dtype: type) -> None:
    """The shifted GEMM pass and the Chebyshev solver keep host and device operands apart (d = 600, k = 10)."""
    _GPU.test_cupy_device_input_top_k_solver_with_a_large_mean(dtype)
    assert _RT.pinned_allocs == 0 and _RT.syrk_calls == 0  # no staging, no accumulator


def test_cupy_device_input_non_finite_is_refused_with_its_row(fake_cupy: Any) -> None:
    _GPU.test_cupy_device_input_non_finite_is_refused_with_its_row()


@pytest.mark.parametrize("chunk", [1, 7, 3000])
def test_cupy_streaming_equals_in_memory(fake_cupy: Any, chunk: int) -> None:
    _GPU.test_cupy_streaming_equals_in_memory(chunk)
    assert _RT.pending() == 0


def test_cupy_accumulator_merge_and_nan(fake_cupy: Any) -> None:
    _GPU.test_cupy_accumulator_merge_and_nan()


def test_cupy_nan_flag_survives_later_blocks_copy_and_merge(fake_cupy: Any) -> None:
    cp = fake_cupy
    X = _data(n=40, d=5, r=3)
    bad_block = X[:3].copy()
    bad_block[1, 2] = np.nan
    acc = CovarianceAccumulator(5, backend="cupy").update(cp.asarray(bad_block)).update(cp.asarray(X[3:]))
    for target in (acc, acc.copy()):
        with pytest.raises(ValueError, match="NaN or inf"):
            target.covariance()
    good = CovarianceAccumulator(5, backend="cupy").update(cp.asarray(X))
    with pytest.raises(ValueError, match="NaN or inf"):
        good.merge(acc)


def test_stream_to_device_rejects_blocks_larger_than_staging(fake_cupy: Any) -> None:
    blocks = [np.ones((3, 2)), np.ones((5, 2))]
    it = cupy_pca.stream_to_device(blocks, 2, np.float64, 4)
    next(it)
    with pytest.raises(ValueError, match="exceeds the staging size 4"):
        next(it)


# ---------------------------------------------------------------------------
# backend logic beyond the GPU file
# ---------------------------------------------------------------------------


def _blocks(sizes: list[int], d: int = 3) -> list[np.ndarray]:
    g = np.random.default_rng(7)
    return [g.standard_normal((m, d)) * 100 for m in sizes]


def _slow_parallel_staging(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """Stage every block with ``threads`` copy threads, and make the copies on the worker threads
    land 20 ms late: a pinned buffer handed on before all its slices are written shows up as a
    wrong block (the calling thread's own copies are not delayed)."""
    import threading
    import time

    monkeypatch.setattr(cupy_pca, "COPY_THREADS", threads)
    monkeypatch.setattr(cupy_pca, "_PARALLEL_COPY_BYTES", 0)
    real = cupy_pca.np.copyto

    def late(dst: Any, src: Any, casting: str = "same_kind") -> None:
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.02)
        real(dst, src, casting=casting)

    monkeypatch.setattr(cupy_pca.np, "copyto", late)


@pytest.mark.parametrize("threads", [1, 3], ids=["1-copy-thread", "3-copy-threads"])
@pytest.mark.parametrize("lazy_copies", [True, False], ids=["copies-late", "copies-early"])
@pytest.mark.parametrize("lazy_compute", [True, False], ids=["compute-late", "compute-now"])
def test_stream_to_device_double_buffering(fake_cupy: Any, monkeypatch: pytest.MonkeyPatch, lazy_copies: bool,
                                           lazy_compute: bool, threads: int) -> None:
    """Every block arrives intact (cast to the staging dtype) under either schedule of the copy
    stream and of the consumer's work, with the pinned buffer filled on the calling thread or by
    3 copy threads (landing late), each yielded array stays valid until the next-but-one block is
    requested, and nothing is left queued at the end."""
    cp = fake_cupy
    _slow_parallel_staging(monkeypatch, threads)
    _RT.lazy_streams = lazy_copies
    _RT.null.lazy = lazy_compute
    blocks = _blocks([5, 3, 5, 1, 4, 5, 2])
    seen: dict[int, np.ndarray] = {}
    prev: tuple[int, Any] | None = None
    for i, blk in enumerate(cupy_pca.stream_to_device(blocks, 3, np.float32, 5)):
        assert is_cupy_array(blk) and blk.dtype == np.float32 and blk.shape == blocks[i].shape
        # the consumer's read of the block, queued on the compute stream like a kernel
        cp.cuda.get_current_stream()._issue(lambda i=i, blk=blk: seen.__setitem__(i, blk.view(np.ndarray).copy()))
        if prev is not None and not lazy_compute:  # block i-1 is still valid while block i is in use
            np.testing.assert_array_equal(prev[1].view(np.ndarray), blocks[prev[0]].astype(np.float32))
        prev = (i, blk)
    assert sorted(seen) == list(range(len(blocks)))
    for i, b in enumerate(blocks):
        np.testing.assert_array_equal(seen[i], b.astype(np.float32))
    assert _RT.pinned_allocs == 2 and _RT.pending() == 0 and _RT.null._issued == _RT.null._done


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_stream_to_device_parallel_staging(fake_cupy: Any, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """With the pinned buffer filled by ``threads`` row slices in parallel (every block above the
    size limit, set to 0 here), every block arrives intact and cast, and each block is split once
    per thread (a block of fewer rows than threads: one slice per row)."""
    monkeypatch.setattr(cupy_pca, "COPY_THREADS", threads)
    monkeypatch.setattr(cupy_pca, "_PARALLEL_COPY_BYTES", 0)
    slices: list[int] = []
    real = cupy_pca.np.copyto

    def spy(dst: Any, src: Any, casting: str = "same_kind") -> None:
        slices.append(dst.shape[0])
        real(dst, src, casting=casting)

    monkeypatch.setattr(cupy_pca.np, "copyto", spy)
    sizes = [5, 3, 5, 1, 4, 5, 2]
    blocks = _blocks(sizes)
    seen = [blk.view(np.ndarray).copy() for blk in cupy_pca.stream_to_device(blocks, 3, np.float32, 5)]
    for got, b in zip(seen, blocks, strict=True):
        np.testing.assert_array_equal(got, b.astype(np.float32))
    want = list(sizes) if threads == 1 else [
        m * (i + 1) // min(threads, m) - m * i // min(threads, m) for m in sizes for i in range(min(threads, m))]
    assert sorted(slices) == sorted(want)  # the slices of one block finish in any order


@pytest.mark.parametrize(
    "sabotage, lazy_copies, lazy_compute",
    [("wait_event", True, False), ("event_sync", False, True)],
)
def test_standin_catches_a_missing_synchronisation(fake_cupy: Any, sabotage: str, lazy_copies: bool, lazy_compute: bool) -> None:
    """Control for the test above: with ``compute.wait_event`` (or ``Event.synchronize``) made a
    no-op, the consumer reads a block before its copy landed (or after its buffer was reused)."""
    cp = fake_cupy
    _RT.lazy_streams = lazy_copies
    _RT.null.lazy = lazy_compute
    _RT.sabotage = {sabotage}
    blocks = _blocks([5, 3, 5, 1, 4, 5, 2])
    seen: dict[int, np.ndarray] = {}
    for i, blk in enumerate(cupy_pca.stream_to_device(blocks, 3, np.float32, 5)):
        cp.cuda.get_current_stream()._issue(lambda i=i, blk=blk: seen.__setitem__(i, blk.view(np.ndarray).copy()))
    wrong = [i for i, b in enumerate(blocks) if not np.array_equal(seen.get(i), b.astype(np.float32))]
    assert len(wrong) >= len(blocks) - 2


def test_standin_catches_staging_that_does_not_wait_for_its_copy_threads(fake_cupy: Any,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Control for the 3-copy-thread runs above: a ``_fill`` that submits the row slices but does not
    wait for them hands half-written pinned buffers to the device copy, and blocks arrive wrong."""
    _slow_parallel_staging(monkeypatch, 3)
    pending: list[Any] = []

    def no_wait(dst: Any, src: Any, pool: Any) -> None:
        m = dst.shape[0]
        cuts = [m * i // 3 for i in range(4)]
        pending.extend(pool.submit(cupy_pca.np.copyto, dst[a:b], src[a:b], casting="unsafe")
                       for a, b in zip(cuts[:-1], cuts[1:]))

    monkeypatch.setattr(cupy_pca, "_fill", no_wait)
    _RT.lazy_streams = False  # the device copy reads the pinned buffer when it is issued
    blocks = _blocks([5, 3, 5, 4, 5])
    seen = [blk.view(np.ndarray).copy() for blk in cupy_pca.stream_to_device(blocks, 3, np.float32, 5)]
    for f in pending:
        f.result()
    assert sum(not np.array_equal(got, b.astype(np.float32)) for got, b in zip(seen, blocks)) >= 4


@pytest.mark.parametrize(
    "fake_cupy, mode",
    [("raises", "matmul"), ("absent", "matmul"), ("wrong", "matmul"), ("upper", "upper")],
    indirect=["fake_cupy"],
)
def test_syrk_fallbacks(fake_cupy: Any, mode: str) -> None:
    """A cuBLAS SYRK that fails, is missing, gives wrong numbers or fills the other triangle:
    the self-check picks the matching mode and the results are unchanged."""
    cp = fake_cupy
    parts = _merge_parts()
    accs = [CovarianceAccumulator(5, backend="cupy").update(cp.asarray(p)) for p in parts]
    merged = accs[0].copy().merge(accs[1]).merge(accs[2])
    np.testing.assert_allclose(cp.asnumpy(merged.covariance()), np.cov(np.vstack(parts), rowvar=False), rtol=1e-12, atol=1e-10)
    assert cupy_pca._SYRK_MODE == {"<f8": mode}
    X = _data(n=900)
    V_ref, lam_ref, _, _ = reference_pca(X, 5)
    res = pca(X, 5, backend="cupy", chunk_rows=300)
    assert subspace_distance(res.components, V_ref) <= 1e-8
    np.testing.assert_allclose(res.eigenvalues, lam_ref, rtol=1e-8, atol=1e-9 * lam_ref[0])


@pytest.mark.parametrize("method", ["covariance", "randomized"])
def test_cupy_mixed_host_and_device_chunks(fake_cupy: Any, method: str) -> None:
    """An iterable of chunks may mix host and device chunks (``_Source.blocks`` and the
    accumulator take either): with backend="cupy" the result does not depend on the mix."""
    cp = fake_cupy
    X = _data(n=600)
    whole = pca(X, 5, backend="cupy", method=method, rng=0)
    for first_on_device in (False, True):
        chunks = [cp.asarray(X[s : s + 100]) if (s // 100) % 2 != first_on_device else X[s : s + 100] for s in range(0, 600, 100)]
        res = pca(chunks, 5, backend="cupy", method=method, rng=0)
        assert isinstance(res.components, cp.ndarray) == first_on_device  # device first chunk: device results
        np.testing.assert_allclose(cp.asnumpy(res.components), whole.components, atol=1e-9)
        np.testing.assert_allclose(cp.asnumpy(res.eigenvalues), whole.eigenvalues, rtol=1e-11)


def test_flip_signs_on_device(fake_cupy: Any) -> None:
    cp = fake_cupy
    V = np.array([[0.6, -0.8, 0.0], [-0.8, -0.6, 0.0], [0.0, 0.0, -1.0]])
    got = ref_mod.flip_signs(cp.asarray(V))
    assert isinstance(got, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got), ref_mod.flip_signs(V.copy()))
    np.testing.assert_array_equal(cp.asnumpy(got), [[-0.6, 0.8, 0.0], [0.8, 0.6, 0.0], [0.0, 0.0, 1.0]])


def test_accumulator_blocks_need_no_host_sync_and_keep_one_triangle(fake_cupy: Any) -> None:
    """After the first block (whose SYRK self-check reads back once), folding blocks in -- the
    centred path and the shifted path of blocks >= 256 rows -- reads nothing back to the host;
    the raw buffer holds the SYRK sums in the lower triangle only, and the result is symmetric."""
    cp = fake_cupy
    X = _data(n=1210, d=6) + 1e3
    acc = CovarianceAccumulator(6, backend="cupy", block_rows=300)
    acc.update(cp.asarray(X[:300]))
    reads = _RT.host_reads
    acc.update(cp.asarray(X[300:1200]))
    acc.update(X[1200:1210])  # host chunk into a device accumulator: copied to the device
    assert _RT.host_reads == reads
    raw = cp.asnumpy(acc._m2)
    assert not np.allclose(raw, raw.T)  # one triangle kept, as cuBLAS does
    C = cp.asnumpy(acc.covariance())
    np.testing.assert_array_equal(C, C.T)
    np.testing.assert_allclose(C, np.cov(X, rowvar=False), rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(cp.asnumpy(acc.mean), X.mean(axis=0), rtol=1e-13)


def test_cupy_uncentred_and_device_randomized(fake_cupy: Any) -> None:
    cp = fake_cupy
    X = _data(n=800)
    for kwargs in ({"center": False}, {"method": "randomized", "rng": 0}):
        cpu = pca(X, 4, backend="numpy", **kwargs)
        host = pca(X, 4, backend="cupy", chunk_rows=256, **kwargs)
        dev = pca(cp.asarray(X), 4, **kwargs)
        assert type(host.components) is np.ndarray and isinstance(dev.components, cp.ndarray)
        for V in (host.components, cp.asnumpy(dev.components)):
            assert subspace_distance(V, cpu.components) <= 1e-8
        np.testing.assert_allclose(cp.asnumpy(dev.eigenvalues), cpu.eigenvalues, rtol=1e-9)
        np.testing.assert_allclose(cp.asnumpy(dev.mean), cpu.mean, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(host.total_variance, cpu.total_variance, rtol=1e-10)


@pytest.mark.parametrize("fake_cupy", ["gemm"], indirect=True)
def test_gemm_product_is_the_default_and_matches_the_reference(fake_cupy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default block product is GEMM (no SYRK call); covariance and pca equal the reference."""
    cp = fake_cupy
    monkeypatch.delenv(cupy_pca.PRODUCT_ENV)
    assert cupy_pca.product_mode() == "gemm"
    parts = _merge_parts()
    accs = [CovarianceAccumulator(5, backend="cupy").update(cp.asarray(p)) for p in parts]
    merged = accs[0].copy().merge(accs[1]).merge(accs[2])
    np.testing.assert_allclose(cp.asnumpy(merged.covariance()), np.cov(np.vstack(parts), rowvar=False), rtol=1e-12, atol=1e-10)
    X = _data(n=900)
    V_ref, lam_ref, _, _ = reference_pca(X, 5)
    res = pca(X, 5, backend="cupy", chunk_rows=300)
    assert subspace_distance(res.components, V_ref) <= 1e-8
    np.testing.assert_allclose(res.eigenvalues, lam_ref, rtol=1e-8, atol=1e-9 * lam_ref[0])
    assert _RT.syrk_calls == 0
    monkeypatch.setenv(cupy_pca.PRODUCT_ENV, "blas3")
    with pytest.raises(ValueError, match="SEMIPRIVATE_CUPY_PRODUCT"):
        cupy_pca.product_mode()

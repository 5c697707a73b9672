"""Backend discovery and choice for the kernels.

Backends
--------
``"numpy"``  the reference implementations (:mod:`semiprivate.kernels._reference`): the specification.
``"cython"`` compiled CPU kernels (:mod:`semiprivate.kernels._cython`), present when the package was built.
``"cupy"``   GPU kernels (:mod:`semiprivate.kernels._cupy`), present when CuPy imports and sees a CUDA device.

``backend="auto"`` picks ``"cupy"`` when an input is a CuPy array, else ``"cython"`` when
built, else ``"numpy"``.  The environment variable ``SEMIPRIVATE_BACKEND`` (one of the
names above) overrides ``"auto"`` for NumPy inputs; an explicit ``backend=`` argument
always wins.

When ``"auto"`` falls back to ``"numpy"`` because the compiled backend was not built (an install
without a C compiler: pip hides the build's warning unless run with ``-v``), the first kernel call
of the process says so with a :class:`NumPyBackendWarning` (once per process).  Silence it by
choosing the backend (``SEMIPRIVATE_BACKEND=numpy``) or with
``warnings.filterwarnings("ignore", category=NumPyBackendWarning)``.  ``semiprivate --version``
lists the backends (:func:`backend_summary`).
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import warnings
from typing import Any

from semiprivate import validation as _rules
from semiprivate.kernels._memo import memo, memo_table
from semiprivate.validation import is_cupy_array as is_cupy_array  # the check lives with the array rules

BACKENDS = ("numpy", "cython", "cupy")
ENV_VAR = "SEMIPRIVATE_BACKEND"


class NumPyBackendWarning(UserWarning):
    """The kernels run on the NumPy reference backend because the compiled one was not built (same
    results, slower).  Issued once per process, at the first kernel call that picks a backend by "auto"."""


#: The once-per-process notices given ("numpy": the NumPy fallback's): a registered memo table, not a module flag, so
#: a search that hides its number of runs puts it back (a losing run's notice is dropped with the run's other
#: warnings and is given again later).
_NOTICES = memo_table(f"{__name__}._NOTICES", maxsize=4)


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside ``semiprivate.kernels`` and its input rules'
    ``validate_params`` wrapper (the user's call), counted from the caller of this function's caller
    (``warnings.warn`` in :func:`_numpy_fallback`)."""
    here = os.path.dirname(os.path.abspath(__file__))
    rules = os.path.abspath(_rules.__file__)
    frame = sys._getframe(2)  # _numpy_fallback's caller
    level = 2
    while frame is not None and (os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here
                                 or os.path.abspath(frame.f_code.co_filename) == rules):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def _numpy_fallback() -> str:
    """``"numpy"``, with the once-per-process :class:`NumPyBackendWarning` the first time."""
    if _NOTICES.get("numpy") is None:
        _NOTICES.store("numpy", True)
        warnings.warn("semiprivate.kernels: the compiled backend is not built in this installation, so the kernels "
                      "run on the NumPy reference backend (same results, slower; reinstall with a C compiler for the "
                      f"compiled kernels). Set {ENV_VAR}=numpy to choose it and silence this notice.",
                      NumPyBackendWarning, stacklevel=_caller_level())
    return "numpy"


@memo(maxsize=1)
def _cython_available() -> bool:
    try:
        importlib.import_module("semiprivate.kernels._cython._probe")
    except ImportError:
        return False
    return True


#: the compiled extensions; once one is loaded, OpenMP may have started a thread pool in this process
_COMPILED = ("semiprivate.kernels._cython._probe", "semiprivate.kernels._cython._expmech", "semiprivate.kernels._cython._pca")
_FORKED_AFTER_OPENMP = False


def forked_after_openmp() -> bool:
    """True in a process made by ``os.fork()`` from one that had loaded the compiled kernels.

    There the kernels run on one OpenMP thread (see :func:`_openmp_single_thread_in_forked_child`),
    and asking for more would hang the next parallel region.
    """
    return _FORKED_AFTER_OPENMP


def _openmp_single_thread_in_forked_child() -> None:
    """Run the compiled kernels on one thread in a child made by ``os.fork()``.

    A forked child keeps only the forking thread: libgomp's thread pool stays behind in the
    parent, and the child's first OpenMP parallel region would wait forever for those threads
    (``os.fork``, multiprocessing's ``"fork"`` start method -- the default on Linux before
    Python 3.14 -- and so a ``ProcessPoolExecutor`` given to :func:`semiprivate.theory.audit.audit_pairs`
    after a kernel ran in parallel here).  Registered with :func:`os.register_at_fork`.  Such a child
    must not ask for threads again (``semiprivate.kernels._cython._probe.set_num_threads(n > 1)``: the stale
    pool would hang it); :func:`forked_after_openmp` says whether this process is such a child.
    Processes started by ``exec`` (``subprocess``, the ``"spawn"`` and ``"forkserver"`` methods)
    are not affected: they start with a fresh OpenMP runtime.
    """
    global _FORKED_AFTER_OPENMP
    if not any(name in sys.modules for name in _COMPILED):
        return  # no compiled kernel loaded: OpenMP cannot have started threads
    _FORKED_AFTER_OPENMP = True
    try:
        from semiprivate.kernels._cython import _probe
    except ImportError:  # pragma: no cover - a compiled kernel is loaded, so its probe builds too
        return
    _probe.set_num_threads(1)


os.register_at_fork(after_in_child=_openmp_single_thread_in_forked_child)


@memo(maxsize=1)
def _cupy_available() -> bool:
    try:
        import cupy  # type: ignore[import-not-found]

        return int(cupy.cuda.runtime.getDeviceCount()) > 0
    except Exception:  # ImportError, or CUDA driver/runtime errors: no usable GPU
        return False


def available_backends() -> list[str]:
    """Names of the backends usable in this process, reference first.

    >>> "numpy" in available_backends()
    True
    """
    out = ["numpy"]
    if _cython_available():
        out.append("cython")
    if _cupy_available():
        out.append("cupy")
    return out


def array_module(*arrays: Any) -> Any:
    """The array module of ``arrays``: :mod:`cupy` when one of them is a CuPy array, else :mod:`numpy`.

    Code written with the operations NumPy and CuPy share (``xp.where``, ``xp.cumsum``, ...) runs on
    either with ``xp = array_module(x)``; NumPy inputs never import CuPy.

    >>> import numpy as np
    >>> array_module(np.zeros(2)).__name__
    'numpy'
    """
    return importlib.import_module("cupy" if any(is_cupy_array(a) for a in arrays) else "numpy")


def resolve_backend(backend: Any, *arrays: Any) -> str:
    """Turn a ``backend=`` argument into a concrete, available backend name.

    Raises
    ------
    TypeError
        ``backend`` is not a string.
    ValueError
        Unknown name, an unavailable backend, or CuPy data with a CPU backend.
        (NumPy data with an explicit ``backend="cupy"`` is allowed: the kernel copies it
        to the device.)
    """
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a str, got {backend!r} ({type(backend).__name__})")
    if backend not in BACKENDS + ("auto",):
        raise ValueError(f"backend must be one of {BACKENDS + ('auto',)}, got {backend!r}")
    on_gpu = any(is_cupy_array(a) for a in arrays)
    if backend == "auto":
        if on_gpu:
            backend = "cupy"
        else:
            env = os.environ.get(ENV_VAR, "").strip()
            if env:
                if env not in BACKENDS:
                    raise ValueError(f"environment variable {ENV_VAR} must be one of {BACKENDS}, got {env!r}")
                backend = env
            else:
                backend = "cython" if _cython_available() else _numpy_fallback()
    if backend not in available_backends():
        raise ValueError(f"backend {backend!r} is not available here; available: {available_backends()}")
    if on_gpu and backend != "cupy":
        raise ValueError(f"CuPy arrays need backend='cupy' (or 'auto'), got backend={backend!r}")
    return backend


@memo(maxsize=1)
def cpu_model() -> str:
    """The CPU model name: ``/proc/cpuinfo``'s "model name" on Linux, else the platform's string.

    Every benchmark and the report print it next to a speed figure (a figure holds for the CPU
    it was measured on).

    >>> isinstance(cpu_model(), str) and len(cpu_model()) > 0
    True
    """
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def build_info() -> dict[str, Any]:
    """Facts about the compiled build: backends, OpenMP, thread count, SIMD path.

    ``simd`` names the instruction-set clone the exponential mechanism's float loops run on
    here (e.g. ``"x86-64-v3 (AVX2+FMA, clone)"``), or ``"none (NumPy backend)"`` without the
    compiled backend.

    >>> info = build_info()
    >>> sorted(info) == ["backends", "openmp", "simd", "threads"]
    True
    """
    info: dict[str, Any] = {"backends": available_backends(), "openmp": False, "threads": 1,
                            "simd": "none (NumPy backend)"}
    if _cython_available():
        from semiprivate.kernels._cython import _expmech, _probe

        info["openmp"] = bool(_probe.openmp_enabled())
        info["threads"] = int(_probe.max_threads())
        info["simd"] = str(_expmech.simd_path())
    return info


def backend_summary() -> str:
    """One line for ``semiprivate --version``: the backends usable here and what the compiled one runs on.

    >>> "numpy" in backend_summary()
    True
    """
    info = build_info()
    if "cython" not in info["backends"]:
        line = ("numpy only (the compiled backend is not built: the kernels run on the NumPy reference; "
                "reinstall with a C compiler for it)")
    else:
        line = (f"numpy (reference), cython (compiled; OpenMP {'on' if info['openmp'] else 'off'}, "
                f"{info['threads']} thread(s), SIMD {info['simd']})")
    if "cupy" in info["backends"]:
        line += ", cupy (GPU)"
    return line

"""Sparse-vector outputs: the responses of a sparse-vector mechanism and the row pattern keys an auditor
reads from them.

Implements: the response rule of the sparse vector technique (Lyu, Su, Li, PVLDB 2017, Algs. 1-6;
Wang et al., PLDI 2019, NumericalSVT) given its noisy queries and noisy thresholds, and the whole-row
pattern key of :class:`semiprivate.theory.audit.selection.RowPatterns`.  The noise is drawn by the
caller; these functions are the deterministic part, which costs as much as the noise in NumPy
(a cumulative sum, masks and a searchsorted per output).

Each function has a NumPy reference (``backend="numpy"``, the specification) and a compiled loop
(``backend="cython"``, :mod:`semiprivate.kernels._cython._svt`, one pass per row); they give the same
numbers bit for bit.  ``backend="auto"`` (the default) takes the compiled loop when it is built.
:func:`sparse_vector_responses` also takes CuPy arrays (``backend="cupy"``, chosen by ``"auto"`` for
them): the reference's array operations then run on the device and the result stays there, so a
mechanism that draws its noise on a GPU answers there too.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray
from semiprivate.kernels._backend import _cupy_available, array_module, is_cupy_array
from semiprivate.kernels._memo import memo
from semiprivate.validation import check_option

__all__ = ["row_pattern_codes", "row_pattern_keys", "sparse_vector_responses"]

_BACKENDS = ("auto", "cython", "numpy")
_RESPONSE_BACKENDS = _BACKENDS + ("cupy",)


@memo(maxsize=1)
def _compiled() -> Any:
    try:
        from semiprivate.kernels._cython import _svt
    except ImportError:
        return None
    return _svt


def _use_compiled(backend: str) -> bool:
    check_option(backend, "backend", _BACKENDS)  # the CPU backends (the device path is decided before)
    if backend == "numpy":
        return False
    if _compiled() is None:
        if backend == "cython":
            raise ValueError("backend 'cython' is not available: semiprivate.kernels._cython._svt is not built "
                             "(reinstall the package with a C compiler), or pass backend='numpy'")
        return False
    return True


def _float_array(value: Any, name: str, ndim: int, size: int | None = None, xp: Any = np) -> NDArray[np.float64]:
    """A float64 array of ``ndim`` dimensions (and ``size`` entries when given) of the array module
    ``xp`` (NumPy, or CuPy for the device path); 2-D arrays keep their strides (no copy when already
    float64), 1-D ones are made contiguous.  No finiteness check: NaN and infinities are outputs like
    any other here."""
    what = f"a {ndim}-D array"
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {what} of numbers, got {type(value).__name__}")
    try:
        a = xp.asarray(value)
    except Exception:
        raise TypeError(f"{name} must be {what} of numbers, got {type(value).__name__}") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be {what} of numbers, got dtype {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {what}{' (rows x queries)' if ndim == 2 else ''}, got {a.ndim} dimension(s)")
    if size is not None and a.size != size:
        raise ValueError(f"{name} must have {size} entries, got {a.size}")
    return xp.asarray(a, dtype=xp.float64) if ndim == 2 else xp.ascontiguousarray(a, dtype=xp.float64)


def _code(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number (an output code), got {type(value).__name__}")
    return float(value)


def sparse_vector_responses(compare: Any, thresholds: Any, *, cutoff: int | None = None, values: Any = None,
                            above: float = 1.0, below: float = 0.0, aborted: float = -1.0, out: Any = None,
                            backend: str = "auto") -> NDArray[np.float64]:
    """The responses of a sparse-vector mechanism to ``m`` noisy queries, ``n`` runs at a time.

    Query ``j`` of run ``r`` is *above* when ``compare[r, j] >= thresholds[r]`` (NaN is never above).
    Its response is ``values[r, j]`` when above (``above`` when ``values`` is None), ``below`` when
    not, and ``aborted`` once ``cutoff`` earlier queries of the run were above (``cutoff=None``: no
    cutoff, Lyu et al.'s Algs. 5 and 6).  Lyu et al.'s Alg. 1 is ``compare = a + Lap(2c/eps2)``,
    ``thresholds = T + Lap(1/eps1)``, ``cutoff = c``, codes 1 / 0 / -1; Alg. 3 passes
    ``values=compare``; NumericalSVT passes ``values = a + Lap(3c/eps)``.

    Parameters
    ----------
    compare : array_like, shape (n, m)
        The noisy queries compared with the threshold.
    thresholds : array_like, shape (n,)
        The noisy threshold of each run.
    cutoff : int >= 1 or None
        Queries above after which the run aborts.
    values : array_like, shape (n, m), optional
        The response of a query above (default: the constant ``above``).
    above, below, aborted : float
        Output codes.
    out : ndarray of float64, shape (n, m), optional
        Write the responses here (e.g. a block of columns of a wider output, which then needs no
        stacking copy) and return it; any strides.
    backend : {"auto", "cython", "numpy", "cupy"}
        ``"numpy"``: the reference; ``"cython"``: the compiled loop; ``"cupy"``: the reference's array
        operations on the GPU (host inputs are copied there); ``"auto"``: ``"cupy"`` when an input
        is a CuPy array, else compiled when built.

    Returns
    -------
    ndarray of float64, shape (n, m)
        A CuPy array for ``backend="cupy"``.
    """
    check_option(backend, "backend", _RESPONSE_BACKENDS)
    on_device = backend == "cupy" or (backend == "auto" and any(
        is_cupy_array(v) for v in (compare, thresholds, values, out)))
    if on_device and not _cupy_available():
        raise ValueError("backend 'cupy' needs CuPy and a CUDA device (pip install 'semiprivate[gpu]'), "
                         "or pass NumPy arrays")
    if not on_device and any(is_cupy_array(v) for v in (compare, thresholds, values, out)):
        raise ValueError(f"CuPy arrays need backend='cupy' (or 'auto'), got backend={backend!r}")
    xp = importlib.import_module("cupy") if on_device else np
    cmp = _float_array(compare, "compare", 2, xp=xp)
    thr = _float_array(thresholds, "thresholds", 1, cmp.shape[0], xp=xp)
    if cutoff is not None and (isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (int, np.integer))):
        raise TypeError(f"cutoff must be None or an integer >= 1, got {type(cutoff).__name__}")
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"cutoff must be None or an integer >= 1, got {cutoff!r}")
    vals = None if values is None else _float_array(values, "values", 2, xp=xp)
    if vals is not None and vals.shape != cmp.shape:
        raise ValueError(f"values must have the shape of compare {cmp.shape}, got {vals.shape}")
    codes = _code(above, "above"), _code(below, "below"), _code(aborted, "aborted")
    if out is not None and not (isinstance(out, xp.ndarray) and out.dtype == np.float64 and out.shape == cmp.shape
                                and (on_device or out.flags.writeable)):
        raise TypeError(f"out must be None or a writeable float64 {'CuPy ' if on_device else ''}array of shape "
                        f"{cmp.shape}")
    if not on_device and _use_compiled(backend):
        res = np.empty(cmp.shape) if out is None else out
        _compiled().responses(cmp, thr, cmp if vals is None else vals, vals is not None,
                              -1 if cutoff is None else int(cutoff), *codes, res)
        return res
    ref = _responses_numpy(cmp, thr, cutoff, vals, *codes)
    if out is None:
        return ref
    out[...] = ref
    return out


def _responses_numpy(compare: NDArray[np.float64], thresholds: NDArray[np.float64], cutoff: int | None,
                     values: NDArray[np.float64] | None, above: float, below: float,
                     aborted: float) -> NDArray[np.float64]:
    """The reference: a query's response from the mask of queries above and the count before it (array
    operations NumPy and CuPy share: on CuPy arrays it is the device path)."""
    xp = array_module(compare)
    is_above = compare >= thresholds[:, None]
    out = xp.where(is_above, above if values is None else values, below)
    if cutoff is not None:
        before = xp.cumsum(is_above, axis=1, dtype=xp.int32)
        before -= is_above
        out[before >= cutoff] = aborted
    return out


def _pattern_inputs(x: Any, cols: Any, atoms: Any) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]:
    """The checked ``x`` (2-D float64), ``cols`` (int64 indices of its columns) and ``atoms`` (1-D float64)."""
    xv = _float_array(x, "x", 2)
    c = np.asarray(cols)
    if c.ndim != 1 or c.dtype.kind not in "iu" or c.size < 1:
        raise TypeError(f"cols must be a non-empty 1-D array of column indices, got {type(cols).__name__}")
    c = np.ascontiguousarray(c, dtype=np.int64)
    if c.min() < 0 or c.max() >= xv.shape[1]:
        raise ValueError(f"cols must index the {xv.shape[1]} columns of x")
    at = _float_array(atoms, "atoms", 1)
    if at.size < 1:
        raise ValueError("atoms must have at least one value")
    return xv, c, at


def row_pattern_codes(x: Any, cols: Any, atoms: Any, *, backend: str = "auto") -> NDArray[np.int64]:
    """Per row and column of ``cols``, the code of ``x[r, cols[j]]``: its index in the sorted ``atoms``
    when it equals one, else ``len(atoms)`` (see :meth:`semiprivate.theory.audit.selection.RowPatterns.codes`,
    which calls this; :func:`row_pattern_keys` combines the codes of a row into one key).

    Returns
    -------
    ndarray of int64, shape (n, len(cols))
    """
    xv, c, at = _pattern_inputs(x, cols, atoms)
    if _use_compiled(backend):
        out = np.empty((xv.shape[0], c.size), dtype=np.int64)
        _compiled().pattern_codes(xv, c, at, out)
        return out
    return _pattern_codes_numpy(xv, c, at)


def _pattern_codes_numpy(x: NDArray[np.float64], cols: NDArray[np.int64], atoms: NDArray[np.float64]) -> NDArray[np.int64]:
    """The reference: the atom index of each value by searchsorted, ``len(atoms)`` where it is none."""
    v = x[:, cols]
    idx = np.searchsorted(atoms, v)
    hit = (idx < atoms.size) & (atoms[np.minimum(idx, atoms.size - 1)] == v)
    return np.where(hit, idx, atoms.size).astype(np.int64)


def row_pattern_keys(x: Any, cols: Any, atoms: Any, edges: Any, *, backend: str = "auto") -> NDArray[np.int64]:
    """Whole-row pattern keys of the columns ``cols`` of ``x`` (see
    :class:`semiprivate.theory.audit.selection.RowPatterns`, which checks its inputs and calls this).

    Per row, ``sum_j code_j radix^j`` with ``code_j`` the index of ``x[r, cols[j]]`` in the sorted
    ``atoms`` when it equals one, else ``len(atoms)`` (:func:`row_pattern_codes`), and
    ``radix = len(atoms) + 1``.  With non-empty ``edges`` (sorted), the key is then
    ``key * (len(edges) + 2) + b``: ``b`` is ``searchsorted(edges, v)`` for the row's first non-atom
    value ``v``, ``len(edges) + 1`` for a row without one.  The caller makes sure the keys fit an int64.

    Returns
    -------
    ndarray of int64, shape (n,)
    """
    xv, c, at = _pattern_inputs(x, cols, atoms)
    ed = _float_array(edges, "edges", 1)
    if _use_compiled(backend):
        out = np.empty(xv.shape[0], dtype=np.int64)
        _compiled().pattern_keys(xv, c, at, ed, ed.size > 0, out)
        return out
    return _pattern_keys_numpy(xv, c, at, ed)


def _pattern_keys_numpy(x: NDArray[np.float64], cols: NDArray[np.int64], atoms: NDArray[np.float64],
                        edges: NDArray[np.float64]) -> NDArray[np.int64]:
    """The reference: per-column atom codes (:func:`_pattern_codes_numpy`), the key by a dot product with the
    radix powers."""
    codes = _pattern_codes_numpy(x, cols, atoms)
    key = codes @ ((atoms.size + 1) ** np.arange(cols.size, dtype=np.int64))
    if edges.size:
        n_bins = edges.size + 1
        free = codes == atoms.size
        first = np.argmax(free, axis=1)
        vf = x[np.arange(codes.shape[0]), cols[first]]
        b = np.where(free.any(axis=1), np.searchsorted(edges, vf, side="left"), n_bins)
        key = key * (n_bins + 1) + b
    return key

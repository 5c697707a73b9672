"""PCA kernels: streaming covariance and top-k eigenvectors (NumPy, Cython/BLAS and CuPy backends).

Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 -- the empirical covariance of the public unlabelled
data (centred) and its top-k eigenvectors ``A`` (d x k), used by HPSY Theorem 3 and PILLAR
Algorithm 1 to project private data onto ``A^T x``.  The specification is the NumPy reference
:mod:`semiprivate.kernels._reference_pca`; every backend here is tested against it.

Public names: :func:`pca`, :class:`PCAResult`, :class:`CovarianceAccumulator`.
"""

from __future__ import annotations

import importlib
import itertools
import math
import mmap
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
from semiprivate.kernels._backend import is_cupy_array, resolve_backend
from semiprivate.kernels._reference_pca import flip_signs
from semiprivate.kernels.validation import (
    NONNEGATIVE_INT,
    POSITIVE_INT,
    RNG,
    Boolean,
    Optional,
    Options,
    Real,
    as_generator,
    validate_params,
)

__all__ = ["pca", "PCAResult", "CovarianceAccumulator"]

_BACKEND = Options("auto", "numpy", "cython", "cupy")
_TOL = Real(0.0, math.inf, closed="left")
# Default work-buffer size for the CPU backends (rows = bytes / (d * itemsize)).  Each ?syrk call
# is a thread barrier in OpenBLAS, and each switch between the single-threaded centring and the
# two-thread ?syrk costs time on a loaded 2-core machine, so large inputs want large blocks: at
# n=2e5, d=1024 float32 under load, 8 MiB blocks took 1.19x the time of 64 MiB, 16 MiB 1.06x,
# 32 MiB 1.00x (paired medians of 7); earlier 32 MiB took 1.14-1.22x where 64 MiB took 1.08-1.16x
# of X.T@X + eigh.  A small input wants several blocks instead of one big first block (centred in
# two reads, into a freshly faulted buffer): at n=2e4, d=256, 8 MiB blocks took 0.91x (float32) and
# 0.79x (float64) of one 64 MiB block.  pca therefore uses about 1/8 of an in-memory input per
# block, clamped to [8 MiB, 64 MiB] (Cython backend); 64 MiB otherwise (the NumPy backend's
# per-block temporaries favour large blocks).
_BLOCK_BYTES = 64 << 20
_MIN_BLOCK_BYTES = 8 << 20
_GPU_BLOCK_BYTES = 64 << 20
# Blocks of at least this many rows (after the first) are shifted by the running mean in one read
# (``shift``); smaller ones are centred on their own mean (``center``, two reads, which are cheap
# for a block that small).  On a float32 stream sorted by one feature (block means drifting by
# many within-block standard deviations) the shifted update lost up to 15x more accuracy for
# blocks of 1-7 rows (6e-5 vs 4e-6 on the correlation scale, float32) and the same from 256 rows
# on (4e-7; tests/kernels/test_pca.py::test_drifting_stream_keeps_float32_accuracy);
# on 32 MiB blocks it saved 1-2% of the whole accumulation time (float64 most, measured).
_SHIFT_MIN_ROWS = 256
# pca's default ``uncentred_tol`` (normwise relative accuracy given up to skip the centring
# pass; see CovarianceAccumulator).  Measured at n=2e5, d=1024, float64: the ?syrk loop with the
# centred copy took 1.10x X.T @ X, uncentred (sums by dgemv) 1.01x.
_PCA_UNCENTRED_TOL = 1e-12
# Threaded accumulation (pca, Cython backend, array input; see _accumulate_threaded).  Each worker
# thread folds its own blocks into its own accumulator with single-threaded BLAS, so the
# single-threaded centring pass of one worker overlaps the ?syrk of another instead of leaving
# cores idle between multithreaded ?syrk calls.  Measured on 2 cores, two workers against one
# accumulator with two-thread BLAS (paired medians of 5-9): n=2e5, d=1024: 0.87x (float32) and
# 0.88x (float64) of the whole pca; n d^2 from 5e10 on: 0.81-1.0x; near 1e10 (n=1e4, d=1024):
# 1.02-1.09x; below (n=2e4..4e4, d=256): 1.2-1.4x.  So by default threads are used only from
# _THREAD_MIN_WORK = n d^2 on.  Per-worker blocks: about 1/8 of each worker's share, clamped to
# [4, 16] MiB (at n=2e5, d=1024: 16 MiB blocks took 0.98x (float32) and 1.00x (float64) the time
# of 8 MiB, and 0.95x / 1.00x of 32 MiB).  The extra workers' accumulators and work buffers
# ((workers - 1) (d^2 numbers + one block)) may use at most a quarter of the data's size and
# _THREAD_EXTRA_BYTES in all, otherwise fewer workers are used.  All of this was measured on 2
# cores; on more cores the same rules give every core a worker (not re-measured there).
_THREAD_BLOCK_BYTES = 16 << 20
_MIN_THREAD_BLOCK_BYTES = 4 << 20
_THREAD_EXTRA_BYTES = 256 << 20
_THREAD_MIN_WORK = 2e10
# One threaded accumulation at a time per process: the BLAS limit is process-wide, and two
# overlapping limits would restore each other's values out of order.  A pca call that finds
# the lock taken uses one accumulator instead.
_THREADED_LOCK = threading.Lock()


def _resolve_dtype(dtype: Any, data_dtype: np.dtype | None) -> np.dtype:
    """Accumulation dtype: float32 input stays float32, everything else float64, unless asked."""
    if dtype is None:
        return np.dtype(np.float32) if data_dtype == np.float32 else np.dtype(np.float64)
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be float32 or float64 (or None), got {dtype!r}") from exc
    if dt not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64 (or None), got {dt}")
    return dt


def _default_block_rows(d: int, dtype: np.dtype, backend: str, n: int | None = None, workers: int = 1) -> int:
    """Rows per block: see ``_BLOCK_BYTES`` (``n``: the number of rows when known; ``workers``:
    the threads of :func:`_accumulate_threaded`, see ``_THREAD_BLOCK_BYTES``)."""
    row = max(1, d * dtype.itemsize)
    if backend == "cupy":
        return max(64, _GPU_BLOCK_BYTES // row)
    target = _BLOCK_BYTES
    if workers > 1 and n is not None:
        target = min(_THREAD_BLOCK_BYTES, max(_MIN_THREAD_BLOCK_BYTES, n * row // (8 * workers)))
    elif n is not None and backend == "cython":
        target = min(_BLOCK_BYTES, max(_MIN_BLOCK_BYTES, n * row // 8))
    return max(64, target // row)


_BLAS_CONTROLLER: Any = None


def _blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded in this process (cached: its
    construction scans the loaded libraries; the thread counts it reports are read live)."""
    global _BLAS_CONTROLLER
    if _BLAS_CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _BLAS_CONTROLLER = ThreadpoolController().select(user_api="blas")
    return _BLAS_CONTROLLER


def _available_threads() -> int:
    """Threads the BLAS may use now (the largest limit among the loaded BLAS libraries, so a
    ``threadpoolctl.threadpool_limits(1)`` around the call gives 1), at most the usable CPUs."""
    blas = max((int(lib.num_threads) for lib in _blas_controller().lib_controllers), default=1)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(blas, cpus))


def _plan_workers(n_threads: int | None, src: Any, dtype: np.dtype, backend: str, chunk_rows: int | None) -> tuple[int, int]:
    """(workers, rows per block) for :func:`_pca_covariance`.  Threads only on the Cython
    backend and for a NumPy array (a memmap included): an iterable of chunks is consumed one
    chunk at a time, in order, because a generator may refill the buffer it yielded."""
    d = src.d
    if backend != "cython" or src.array is None or not isinstance(src.array, np.ndarray):
        rows = int(chunk_rows) if chunk_rows is not None else _default_block_rows(d, dtype, backend, None if src.array is None else int(src.array.shape[0]))
        return 1, rows
    n = int(src.array.shape[0])
    if n_threads is not None:
        workers = int(n_threads)
    elif float(n) * d * d < _THREAD_MIN_WORK:
        workers = 1
    else:
        workers = _available_threads()
        block = int(chunk_rows) * d * dtype.itemsize if chunk_rows is not None else _THREAD_BLOCK_BYTES
        extra = d * d * dtype.itemsize + block  # one more accumulator and work buffer (at most)
        budget = min(_THREAD_EXTRA_BYTES, n * d * src.array.dtype.itemsize // 4)
        workers = min(workers, 1 + budget // extra)
    rows = int(chunk_rows) if chunk_rows is not None else _default_block_rows(d, dtype, backend, n, workers)
    workers = max(1, min(workers, -(-n // rows)))  # no worker without a block
    if workers == 1 and chunk_rows is None:
        rows = _default_block_rows(d, dtype, backend, n)
    return workers, rows


# ---------------------------------------------------------------------------
# backend operations on the accumulator state
# ---------------------------------------------------------------------------


class _NumpyOps:
    """Reference-style operations (full symmetric matrix kept)."""

    name = "numpy"
    xp: Any = np
    defer_checks = False

    def to_device(self, block: Any, dtype: np.dtype) -> Any:
        return np.asarray(block)

    def center(self, block: Any, out: Any, mean: Any) -> None:
        with np.errstate(all="ignore"):  # non-finite data: reported by the caller from the mean
            mean[...] = block.mean(axis=0, dtype=np.float64)
        if np.isfinite(mean).all():
            np.subtract(block, mean, out=out[: block.shape[0]], casting="unsafe")

    def colsum(self, block: Any, sums: Any) -> None:
        """Float64 column sums of ``block`` (one read)."""
        with np.errstate(all="ignore"):  # non-finite data: reported by the caller from the sums
            sums[...] = block.sum(axis=0, dtype=np.float64)

    def shift(self, block: Any, out: Any, shift: Any, sums: Any) -> None:
        """``out[:m] = block - shift`` (cast to the accumulation dtype) and the float64 column sums
        of ``block - shift`` (not of the rounded ``out``: the mean keeps float64 accuracy)."""
        y = out[: block.shape[0]]
        with np.errstate(all="ignore"):  # non-finite data: reported by the caller from the sums
            sums[...] = block.sum(axis=0, dtype=np.float64) - block.shape[0] * shift
            np.subtract(block, shift, out=y, casting="unsafe")

    def syrk(self, centred: Any, rows: int, acc: Any) -> None:
        c = centred[:rows]
        acc += c.T @ c

    def syr(self, acc: Any, v: Any, alpha: float) -> None:
        v = v.astype(acc.dtype)
        acc += acc.dtype.type(alpha) * np.outer(v, v)

    def full(self, acc: Any) -> Any:
        return acc.copy()


class _CythonOps(_NumpyOps):
    """Compiled operations: ?syrk / ?syr into the lower triangle (C view) of a preallocated buffer."""

    name = "cython"

    def __init__(self) -> None:
        self.mod = importlib.import_module("semiprivate.kernels._cython._pca")
        self._ones = np.ones(1)

    def colsum(self, block: Any, sums: Any) -> None:
        if block.dtype == np.float64 and self._ones.shape[0] < block.shape[0]:
            self._ones = np.ones(block.shape[0])
        self.mod.column_sums(block, sums, self._ones)

    def center(self, block: Any, out: Any, mean: Any) -> None:
        if block.dtype not in (np.float32, np.float64):
            block = block.astype(out.dtype)
        self.mod.center_chunk(np.ascontiguousarray(block), out, mean, np.empty_like(mean))

    def shift(self, block: Any, out: Any, shift: Any, sums: Any) -> None:
        if block.dtype not in (np.float32, np.float64):
            block = block.astype(out.dtype)
        self.mod.shift_chunk(np.ascontiguousarray(block), out, shift, sums)

    def syrk(self, centred: Any, rows: int, acc: Any) -> None:
        self.mod.syrk_update(centred, rows, acc, 1.0)

    def syr(self, acc: Any, v: Any, alpha: float) -> None:
        self.mod.syr_update(acc, np.ascontiguousarray(v, dtype=acc.dtype), float(alpha))

    def full(self, acc: Any) -> Any:
        out = acc.copy()
        self.mod.symmetrize_lower(out)
        return out


def _make_ops(backend: str) -> Any:
    if backend == "cython":
        return _CythonOps()
    if backend == "cupy":
        from semiprivate.kernels._cupy.pca import CupyOps

        return CupyOps()
    return _NumpyOps()


# ---------------------------------------------------------------------------
# the accumulator
# ---------------------------------------------------------------------------


def _raise_non_finite(start: int, m: int, where: str) -> None:
    raise ValueError(
        f"chunk must not contain NaN or inf (or values whose sum overflows): rows "
        f"[{start}, {start + m}) {where}; the accumulator holds the rows before them"
    )


class CovarianceAccumulator:
    """Streaming count, mean and comoment of row vectors, with a pairwise merge.

    Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 (the empirical covariance of the public data),
    for data that arrive in chunks or do not fit in memory.

    State: ``count`` n, ``mean`` (float64) and the comoment ``M2 = sum_i (x_i - mean)(x_i - mean)^T``
    in the accumulation ``dtype``.  A chunk is centred (on its own mean, or on the running mean:
    see :meth:`_update_block`) and folded in with the Chan–Golub–LeVeque pairwise update (Chan, Golub & LeVeque 1979, eq. 2.1 generalised to
    matrices): for parts a and b with ``delta = mean_b - mean_a``,

    ``n = n_a + n_b``, ``mean = mean_a + delta n_b / n``, ``M2 = M2_a + M2_b + delta delta^T n_a n_b / n``.

    With the default ``uncentred_tol=0`` this never forms ``X^T X - n mean mean^T``, so a large
    mean does not cancel the variance away.  The chunk scatter ``M2_b`` is added by BLAS ``?syrk`` straight into a preallocated
    (d, d) buffer (Cython backend), by ``cupy.cublas.syrk`` (CuPy backend) or by ``c.T @ c``
    (NumPy backend).

    Parameters
    ----------
    d : int
        Number of columns (features), >= 1.
    dtype : float32 or float64
        Accumulation dtype of ``M2`` (the mean is always float64).  Default float64.
    backend : {"auto", "numpy", "cython", "cupy"}
        Where the state lives and which kernels update it; ``"auto"`` picks the compiled
        backend when built (see :func:`semiprivate.kernels.available_backends`).
    block_rows : int or None
        Rows per internal block (the size of the work buffer); a larger chunk is folded in
        block by block.  Default: about 64 MiB of work buffer.
    uncentred_tol : float >= 0
        Normwise accuracy that may be given up to skip the centring pass (CPU backends).  A
        block after the first, of at least ``_SHIFT_MIN_ROWS`` rows and already in the
        accumulation dtype, C-contiguous, is then folded in *uncentred* -- ``M2 += B^T B - m
        xbar xbar^T + (n_a m / n) delta delta^T`` (``xbar`` its float64 mean, ``delta = xbar -
        mean_a``), one read for the sums and ``?syrk`` on ``B`` itself, no centred copy -- when

        ``u * ||xbar||^2 <= uncentred_tol * trace(M2_a) / n_a``

        with ``u`` the unit roundoff of the accumulation dtype.  Rounding in ``B^T B`` is at most
        ``c u sum_i ||x_i||^2 = c u (m ||xbar||^2 + trace(M2_B))`` normwise (``c`` the growth
        factor of the BLAS sum, which also multiplies ``u`` on the centred path), so the block
        adds at most ``c * uncentred_tol * m * trace(M2_a) / n_a`` over centring: ``c *
        uncentred_tol`` per row, relative to the running spread.  While the spread per row
        does not shrink along the stream, the total is at most ``c * uncentred_tol *
        trace(M2)`` of the final comoment.  ``0`` (default) always centres, which keeps every
        entry, also of a column with a large mean and a small spread, to ``c u`` relative.
        :func:`pca` passes ``1e-12``.

    Raises
    ------
    TypeError, ValueError
        Bad ``d``, ``dtype``, ``backend``, ``block_rows`` or ``uncentred_tol``; at :meth:`update`, a chunk of the
        wrong shape, with a non-numeric dtype, or containing NaN/inf (the message names the
        block; rows before it in the same chunk have been added).  The CuPy backend checks
        finiteness when a result is read (no device synchronisation per chunk).

    Notes
    -----
    ``merge`` is associative up to rounding: ``(a + b) + c`` and ``a + (b + c)`` agree to a few
    ulps of the accumulation dtype (tested).

    References
    ----------
    T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae and a pairwise algorithm for
    computing sample variances", Stanford CS report STAN-CS-79-773 (1979).

    Examples
    --------
    >>> X = np.arange(12.0).reshape(6, 2) ** 2
    >>> a = CovarianceAccumulator(2, backend="numpy")
    >>> _ = a.update(X[:2]).update(X[2:])
    >>> a.count, a.mean
    (6, array([36.66666667, 47.66666667]))
    >>> bool(np.allclose(a.covariance(), np.cov(X, rowvar=False)))
    True
    """

    @validate_params(d=POSITIVE_INT, backend=_BACKEND, block_rows=Optional(POSITIVE_INT), uncentred_tol=_TOL)
    def __init__(
        self,
        d: int,
        dtype: Any = np.float64,
        *,
        backend: str = "auto",
        block_rows: int | None = None,
        uncentred_tol: float = 0.0,
    ) -> None:
        self.d = int(d)
        self.uncentred_tol = float(uncentred_tol)
        self.dtype = _resolve_dtype(dtype, None)
        self.backend = resolve_backend(backend)
        self._ops = _make_ops(self.backend)
        xp = self._ops.xp
        self.block_rows = int(block_rows) if block_rows is not None else _default_block_rows(self.d, self.dtype, self.backend)
        self._count = 0
        self._mean = xp.zeros(self.d, dtype=np.float64)
        self._m2 = xp.zeros((self.d, self.d), dtype=self.dtype)
        self._buf: Any = None
        self._chunk_mean = xp.zeros(self.d, dtype=np.float64)
        self._bad: Any = None  # deferred non-finite flag (CuPy)
        self._uncentred_blocks = 0  # blocks folded in uncentred (diagnostics, tests)

    # -- state ----------------------------------------------------------------
    @property
    def count(self) -> int:
        """Number of rows folded in so far."""
        return self._count

    @property
    def mean(self) -> Any:
        """Mean of the rows so far (float64, a copy)."""
        self._check_deferred()
        return self._mean.copy()

    def _check_deferred(self) -> None:
        if self._bad is not None and bool(self._bad):
            raise ValueError("chunk must not contain NaN or inf (found when reading the CuPy accumulator)")

    def _as_block(self, chunk: Any) -> Any:
        if is_cupy_array(chunk):
            if self.backend != "cupy":
                raise ValueError(f"CuPy chunks need backend='cupy', this accumulator uses {self.backend!r}")
            arr = chunk
        else:
            if chunk is None or isinstance(chunk, (str, bytes)):
                raise TypeError(f"chunk must be a 2-D numeric array, got {type(chunk).__name__}")
            arr = np.asarray(chunk)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"chunk must have a numeric dtype (bool, int or float), got {arr.dtype}")
        if arr.ndim != 2 or arr.shape[1] != self.d:
            raise ValueError(f"chunk must have shape (m, {self.d}), got shape {arr.shape}")
        if arr.dtype not in (np.float32, np.float64):
            arr = arr.astype(self.dtype)
        return arr

    def update(self, chunk: Any) -> CovarianceAccumulator:
        """Fold the rows of ``chunk`` (m, d) into the state; returns ``self``.  ``m = 0`` is a no-op."""
        return self._update_rows(chunk, 0, "of this chunk")

    def _update_rows(self, chunk: Any, offset: int, where: str) -> CovarianceAccumulator:
        """:meth:`update`, with error messages naming rows ``offset + i`` ``where``."""
        arr = self._as_block(chunk)
        m = arr.shape[0]
        for start in range(0, m, self.block_rows):
            self._update_block(arr[start : start + self.block_rows], offset + start, where)
        return self

    def _update_block(self, block: Any, start: int, where: str) -> None:
        """Fold one block in (see :mod:`semiprivate.kernels._cython._pca` for the arithmetic).

        The first block, and any block of fewer than ``_SHIFT_MIN_ROWS`` rows, is centred on its
        own mean (two reads of the block) and merged by Chan–Golub–LeVeque; every other block is
        shifted by the running mean in one read, and the merge becomes
        ``M2 += Y^T Y - (m^2 / n) dbar dbar^T`` with ``Y = block - mean`` and ``dbar = mean(Y)``.
        A block that qualifies under ``uncentred_tol`` is folded in uncentred instead
        (:meth:`_fold_uncentred`).
        """
        ops = self._ops
        xp = ops.xp
        m = block.shape[0]
        if m == 0:
            return
        block = ops.to_device(block, self.dtype)
        if self._fold_uncentred(block, start, where):
            return
        if self._buf is None or self._buf.shape[0] < m:
            # as many rows as needed, growing geometrically (chunks of growing size reallocate
            # O(log) times), never more than block_rows: a small input gets a small buffer
            rows = m if self._buf is None else max(m, min(self.block_rows, 2 * self._buf.shape[0]))
            self._buf = xp.empty((rows, self.d), dtype=self.dtype)
        own_mean = self._count == 0 or m < _SHIFT_MIN_ROWS
        if own_mean:
            ops.center(block, self._buf, self._chunk_mean)  # _chunk_mean: the block mean
        else:
            ops.shift(block, self._buf, self._mean, self._chunk_mean)  # _chunk_mean: sum(Y)
        if ops.defer_checks:
            bad = ~xp.isfinite(self._chunk_mean).all()
            self._bad = bad if self._bad is None else (self._bad | bad)
        elif not bool(np.isfinite(self._chunk_mean).all()):
            _raise_non_finite(start, m, where)
        ops.syrk(self._buf, m, self._m2)
        if own_mean:
            self._merge_stats(m, self._chunk_mean)
            return
        n = self._count + m
        dbar = self._chunk_mean / m
        ops.syr(self._m2, dbar, -m * m / n)
        self._mean += dbar * (m / n)
        self._count = n

    def _fold_uncentred(self, block: Any, start: int, where: str) -> bool:
        """The uncentred fold of a block (see ``uncentred_tol``); False, with nothing changed,
        when the block does not qualify.  The running mean screens first (no read of the block
        when it already fails); the block's own mean decides."""
        m = block.shape[0]
        if not (
            self.uncentred_tol > 0
            and self._count > 0
            and m >= _SHIFT_MIN_ROWS
            and self.backend != "cupy"
            and block.dtype == self.dtype
            and block.flags.c_contiguous
        ):
            return False
        unit = float(np.finfo(self.dtype).eps) / 2
        budget = self.uncentred_tol * float(np.trace(self._m2, dtype=np.float64)) / self._count
        if not unit * float(self._mean @ self._mean) <= budget:  # also refuses a NaN budget
            return False
        self._ops.colsum(block, self._chunk_mean)
        if not bool(np.isfinite(self._chunk_mean).all()):
            _raise_non_finite(start, m, where)
        xbar = self._chunk_mean / m
        if not unit * float(xbar @ xbar) <= budget:
            return False
        n_a, n = self._count, self._count + m
        self._ops.syrk(block, m, self._m2)
        delta = xbar - self._mean
        self._ops.syr(self._m2, xbar, -float(m))
        self._ops.syr(self._m2, delta, n_a * m / n)
        self._mean += delta * (m / n)
        self._count = n
        self._uncentred_blocks += 1
        return True

    def _merge_stats(self, n_b: int, mean_b: Any, m2_b: Any = None) -> None:
        """Chan–Golub–LeVeque merge of a part with ``n_b`` rows, mean ``mean_b`` and comoment
        ``m2_b`` (None: already added to ``M2``)."""
        n_a = self._count
        n = n_a + n_b
        if n_b == 0:
            return
        if m2_b is not None:
            self._m2 += m2_b
        if n_a == 0:
            self._mean[...] = mean_b
        else:
            delta = mean_b - self._mean
            self._ops.syr(self._m2, delta, n_a * n_b / n)
            self._mean += delta * (n_b / n)
        self._count = n

    def merge(self, other: CovarianceAccumulator) -> CovarianceAccumulator:
        """Fold another accumulator's rows into this one (Chan–Golub–LeVeque); returns ``self``."""
        if not isinstance(other, CovarianceAccumulator):
            raise TypeError(f"other must be a CovarianceAccumulator, got {type(other).__name__}")
        if other.d != self.d:
            raise ValueError(f"other must have d={self.d}, got d={other.d}")
        if other.backend != self.backend:
            raise ValueError(f"other must use backend {self.backend!r}, got {other.backend!r}")
        other._check_deferred()
        self._check_deferred()
        m2_b = other._ops.full(other._m2).astype(self.dtype)
        self._merge_stats(other._count, other._mean.copy(), m2_b)
        self._uncentred_blocks += other._uncentred_blocks
        return self

    def __getstate__(self) -> dict[str, Any]:
        """Picklable state (the backend's operations object is rebuilt on unpickling), so an
        accumulator can travel between processes, e.g. from a Dask worker to the client."""
        self._check_deferred()
        state = self.__dict__.copy()
        state.pop("_ops", None)
        state["_buf"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._ops = _make_ops(self.backend)

    def copy(self) -> CovarianceAccumulator:
        """An independent copy of the state."""
        new = CovarianceAccumulator(
            self.d, self.dtype, backend=self.backend, block_rows=self.block_rows, uncentred_tol=self.uncentred_tol
        )
        new._count = self._count
        new._mean = self._mean.copy()
        new._m2 = self._m2.copy()
        new._bad = None if self._bad is None else self._bad.copy()
        return new

    def comoment(self) -> Any:
        """``M2 = sum_i (x_i - mean)(x_i - mean)^T`` as a full symmetric (d, d) array (a copy)."""
        self._check_deferred()
        return self._ops.full(self._m2)

    def covariance(self, ddof: int = 1) -> Any:
        """Sample covariance ``M2 / (count - ddof)`` (full symmetric (d, d), accumulation dtype).

        Raises ValueError unless ``count > ddof`` (the default ddof=1 needs two rows).
        """
        ddof = int(NONNEGATIVE_INT.validate("ddof", ddof))
        self._check_deferred()
        if self._count - ddof <= 0:
            raise ValueError(f"covariance needs count > ddof, got count={self._count}, ddof={ddof}")
        out = self.comoment()
        out /= out.dtype.type(self._count - ddof)
        return out

    def second_moment(self) -> Any:
        """Uncentred second moment ``X^T X / count = (M2 + count mean mean^T) / count``."""
        self._check_deferred()
        if self._count == 0:
            raise ValueError("second_moment needs count >= 1, got count=0")
        m2 = self._m2.copy()
        self._ops.syr(m2, self._mean, float(self._count))
        out = self._ops.full(m2)
        out /= out.dtype.type(self._count)
        return out

    def __repr__(self) -> str:
        return f"CovarianceAccumulator(d={self.d}, dtype={self.dtype}, backend={self.backend!r}, count={self._count})"


# ---------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PCAResult:
    """Top-k principal components (Implements: HPSY.Thm3 / PILLAR.Alg1, step 1: ``A`` = ``components``).

    Attributes
    ----------
    components : (d, k) array
        Orthonormal eigenvectors of the covariance, one per column, in the order of ``eigenvalues``;
        sign convention: the entry of largest absolute value of each column is positive.
    eigenvalues : (k,) array
        Descending eigenvalues of the covariance ``M2 / (n - 1)`` (of ``X^T X / n`` when
        ``center=False``); round-off negatives clipped to 0.
    mean : (d,) array
        Mean of the rows (zeros when ``center=False``).
    explained_variance_ratio : (k,) array
        ``eigenvalues / total_variance`` (zeros when the total variance is 0).
    n_samples : int
    total_variance : float
        Trace of the covariance (second moment when ``center=False``).
    method, backend : str
        How it was computed.

    Arrays are NumPy arrays for host input and CuPy arrays for CuPy input.
    """

    components: Any
    eigenvalues: Any
    mean: Any
    explained_variance_ratio: Any
    n_samples: int
    total_variance: float
    method: str
    backend: str

    @property
    def n_components(self) -> int:
        return int(self.components.shape[1])

    def transform(self, X: Any, chunk_rows: int | None = None) -> Any:
        """Project rows: ``X @ V - mean @ V`` (no centred copy of ``X``); shape (m, k).

        ``chunk_rows`` (positive int, host arrays): project ``chunk_rows`` rows at a time into the
        preallocated (m, k) output; for a ``numpy.memmap`` each block's pages are released after
        use (as :func:`pca` streams), so projecting a file larger than memory keeps the resident set
        at about ``m * k`` output plus one block.  Same values as the one-shot product (row blocks of
        one matrix product).  None (default): one product.
        """
        if chunk_rows is not None:
            if isinstance(chunk_rows, (bool, np.bool_)) or not isinstance(chunk_rows, (int, np.integer)):
                raise TypeError(f"chunk_rows must be a positive int or None, got {chunk_rows!r}")
            if chunk_rows < 1:
                raise ValueError(f"chunk_rows must be a positive int or None, got {chunk_rows!r}")
        release = _page_releaser(X) if chunk_rows is not None else None
        X = self._check_rows(X, self.components.shape[0], "X")
        V = self.components.astype(np.result_type(X.dtype, np.float32), copy=False)
        shift = (self.mean @ self.components).astype(V.dtype)
        if chunk_rows is None or is_cupy_array(X):
            out = X @ V
            out -= shift.astype(out.dtype)
            return out
        m, step = int(X.shape[0]), int(chunk_rows)
        out = np.empty((m, V.shape[1]), dtype=np.result_type(X.dtype, V.dtype))
        for s in range(0, m, step):
            block = X[s:s + step]
            np.matmul(block, V, out=out[s:s + step])
            if release is not None:
                release(block)
        out -= shift.astype(out.dtype)
        return out

    def inverse_transform(self, Z: Any) -> Any:
        """Back to feature space: ``Z @ V^T + mean``; shape (m, d)."""
        Z = self._check_rows(Z, self.components.shape[1], "Z")
        out = Z @ self.components.T.astype(np.result_type(Z.dtype, np.float32), copy=False)
        out += self.mean.astype(out.dtype)
        return out

    def _check_rows(self, X: Any, width: int, name: str) -> Any:
        if not is_cupy_array(X):
            if X is None or isinstance(X, (str, bytes)):
                raise TypeError(f"{name} must be a 2-D numeric array, got {type(X).__name__}")
            X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must have a numeric dtype, got {X.dtype}")
        if X.ndim != 2 or X.shape[1] != width:
            raise ValueError(f"{name} must have shape (m, {width}), got shape {X.shape}")
        if X.dtype.kind != "f":
            X = X.astype(np.float64)
        return X


# ---------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------


def _page_releaser(arr: Any) -> Callable[[Any], None] | None:
    """For a shared ``numpy.memmap``: a function dropping a consumed block's pages from this process.

    ``madvise(MADV_DONTNEED)`` on a shared file mapping only unmaps the pages (they stay in the
    OS page cache, and a later access re-reads them), so streaming a memmap does not grow the
    resident set with ``n``.  Copy-on-write maps (mode ``"c"``) are left alone: there DONTNEED
    would discard the private changes.  Returns None where this does not apply.
    """
    mm = getattr(arr, "_mmap", None)
    if not isinstance(arr, np.memmap) or mm is None or getattr(arr, "mode", "c") not in ("r", "r+", "w+"):
        return None
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is None or not hasattr(mm, "madvise"):
        return None
    view = np.frombuffer(mm, dtype=np.uint8)
    base, size = int(view.ctypes.data), int(view.size)
    del view
    page = mmap.PAGESIZE

    def release(block: Any) -> None:
        start = int(block.ctypes.data) - base
        end = start + int(block.nbytes)
        start -= start % page
        end = min(size, end + (-end) % page)
        if 0 <= start < end:
            try:
                mm.madvise(advice, start, end - start)
            except (OSError, ValueError):  # closed or unsupported: keep the pages, nothing is lost
                pass

    return release


class _Source:
    """Row blocks of the data, re-iterable when the input allows several passes."""

    def __init__(self, X: Any) -> None:
        self.array: Any = None
        self.iterable: Any = None
        self.first: Any = None
        if X is None or isinstance(X, (str, bytes, dict)):
            raise TypeError(f"X must be a 2-D array or an iterable of 2-D row chunks, got {type(X).__name__}")
        if is_cupy_array(X) or isinstance(X, np.ndarray):
            self.array = X
        elif isinstance(X, (list, tuple)) and not (len(X) > 0 and np.ndim(X[0]) == 2):
            self.array = np.asarray(X)
        elif isinstance(X, Iterable):
            self.iterable = X
        else:
            raise TypeError(f"X must be a 2-D array or an iterable of 2-D row chunks, got {type(X).__name__}")
        if self.array is not None:
            if self.array.dtype.kind not in "biuf":
                raise TypeError(f"X must have a numeric dtype, got {self.array.dtype}")
            if self.array.ndim != 2:
                raise ValueError(f"X must be 2-D (n, d), got ndim={self.array.ndim} (shape {self.array.shape})")
            self.d = int(self.array.shape[1])
            self.dtype = self.array.dtype
            self.on_gpu = is_cupy_array(self.array)
        else:
            self._pending: Iterator[Any] | None = iter(self.iterable)
            self.one_shot = self._pending is self.iterable
            try:
                first = next(self._pending)
            except StopIteration:
                raise ValueError("X must contain at least 2 rows, got an empty iterable") from None
            if not is_cupy_array(first):
                first = np.asarray(first)
            if first.ndim != 2:
                raise ValueError(f"each chunk of X must be 2-D (m, d), got shape {first.shape}")
            self.first = first
            self.d = int(first.shape[1])
            self.dtype = first.dtype
            self.on_gpu = is_cupy_array(first)
        if self.d < 1:
            raise ValueError("X must have at least one column")

    @property
    def multipass(self) -> bool:
        return self.array is not None or not self.one_shot

    def blocks(self, rows: int) -> Iterator[Any]:
        """Yield row blocks of at most ``rows`` rows (chunks larger than that are split)."""
        if self.array is not None:
            release = _page_releaser(self.array)
            for s in range(0, self.array.shape[0], rows):
                block = self.array[s : s + rows]
                yield block
                if release is not None:  # the consumer asked for the next block: this one is done
                    release(block)
            return
        if self._pending is not None:
            it: Iterator[Any] = itertools.chain([self.first], self._pending)
            self._pending = None
        else:
            it = iter(self.iterable)
        for chunk in it:
            c = chunk if is_cupy_array(chunk) else np.asarray(chunk)
            if c.ndim != 2 or c.shape[1] != self.d:
                raise ValueError(f"each chunk of X must have shape (m, {self.d}), got shape {c.shape}")
            for s in range(0, c.shape[0], rows):
                yield c[s : s + rows]


# ---------------------------------------------------------------------------
# pca
# ---------------------------------------------------------------------------


@validate_params(
    k=POSITIVE_INT,
    center=Boolean(),
    method=Options("covariance", "randomized"),
    backend=_BACKEND,
    chunk_rows=Optional(POSITIVE_INT),
    rng=RNG,
    n_oversamples=NONNEGATIVE_INT,
    n_iter=NONNEGATIVE_INT,
    uncentred_tol=_TOL,
    n_threads=Optional(POSITIVE_INT),
)
def pca(
    X: Any,
    k: int,
    *,
    center: bool = True,
    method: str = "covariance",
    dtype: Any = None,
    backend: str = "auto",
    chunk_rows: int | None = None,
    rng: Any = None,
    n_oversamples: int = 10,
    n_iter: int = 4,
    uncentred_tol: float = _PCA_UNCENTRED_TOL,
    n_threads: int | None = None,
) -> PCAResult:
    """Top-k principal components of the rows of ``X``, streamed in chunks.

    Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 -- "compute the empirical covariance of the
    (public, unlabelled) data and its top-k eigenvectors A" (HPSY Theorem 3, seed 000; PILLAR
    Algorithm 1, seed 002).  No constants are involved; the conventions (normalisation
    ``1/(n-1)``, descending order, sign rule) are those of :mod:`semiprivate.kernels._reference_pca`.

    Parameters
    ----------
    X : (n, d) array, memory-mapped array, dask array, or iterable of (m_i, d) row chunks
        The data.  Arrays (NumPy, ``numpy.memmap``, CuPy) are read block by block, so a memmap
        larger than memory works.  A ``dask.array`` chunked by rows (whole rows per chunk;
        optional extra ``semiprivate[dask]``) is reduced on the active Dask scheduler: one
        accumulator per chunk on the workers, merged in a fixed order (Chan–Golub–LeVeque), the
        eigensolve here (``method="covariance"`` only; ``backend`` reads ``"dask+cython"``).  An iterable of chunks (list, generator, ...) is read once for
        ``method="covariance"``; ``method="randomized"`` needs several passes and therefore a
        re-iterable (a list of chunks, or an object whose ``__iter__`` restarts).
    k : int
        Number of components, ``1 <= k <= d``.
    center : bool
        Subtract the mean (covariance ``M2/(n-1)``); ``False`` uses the second moment ``X^T X / n``.
    method : {"covariance", "randomized"}
        ``"covariance"``: accumulate the (d, d) covariance with BLAS ``?syrk`` (one pass, cost
        ``n d^2``), then the top-k eigenpairs by LAPACK ``dsyevr`` restricted to the k largest
        (``scipy.linalg.eigh(subset_by_index=...)``; ``cupy.linalg.eigh`` on the GPU).  The
        small (d, d) eigenproblem is solved in float64 even for float32 data (float32 LAPACK
        loses ~1e-3 of subspace accuracy there); the results are cast back to the dtype.
        ``"randomized"``: the Halko–Martinsson–Tropp randomized range finder (HMT 2011,
        Algorithm 4.4 with QR re-orthonormalisation, then Algorithm 5.3-style Rayleigh–Ritz) applied
        to the covariance operator without forming it: ``l = min(d, k + n_oversamples)``
        Gaussian test vectors, ``n_iter`` power (subspace) iterations, each a pass over the data
        computing ``(X - s)^T ((X - s) Q)`` (cost ``2 n d l`` per pass, ``n_iter + 2`` passes),
        then the eigenpairs of the l x l projected matrix.  Its accuracy depends on the spectral
        gap ``lambda_{k+1} / lambda_{l+1}``; it beats ``"covariance"`` only when
        ``2 l (n_iter + 2) < d / 2``.
    dtype : None, float32 or float64
        Accumulation dtype.  None: float32 input stays float32, everything else is float64;
        ``float64`` with float32 input accumulates in float64.
    backend : {"auto", "numpy", "cython", "cupy"}
        ``"auto"``: CuPy for CuPy input, else the compiled backend when built (see
        :mod:`semiprivate.kernels._backend`).  ``"cupy"`` with host data streams the chunks to the GPU.
    chunk_rows : int or None
        Rows per block (work-buffer size; per worker thread when several run).  Default: on
        the Cython backend, about 1/8 of an in-memory ``X`` per block, between 8 and 64 MiB
        (one thread), or 1/8 of each worker's share between 4 and 16 MiB (several); 64 MiB
        otherwise.
    rng : None, int, numpy.random.Generator
        Randomness for ``method="randomized"`` (the Gaussian test matrix); unused otherwise.
    n_oversamples : int
        Extra test vectors p of the randomized method (HMT's oversampling, default 10).
    n_iter : int
        Power iterations q of the randomized method (default 4).
    uncentred_tol : float >= 0
        ``method="covariance"`` on a CPU backend: the normwise relative accuracy of the
        covariance that may be given up to fold a block in without a centred copy (see
        :class:`CovarianceAccumulator`).  Default ``1e-12``: with float64 accumulation the
        centring pass is skipped while the mean is within about ``sqrt(1e-12 / u) ~ 95`` times
        the root total variance (``u = 2^-53``), which keeps the eigenproblem's input to 12
        digits normwise, far below the spread of any sample covariance.  Float32 accumulation
        (``u = 2^-24``) qualifies only while the mean is within about ``0.004`` root total
        variances (nearly centred data), where the added error is far below float32's own.
        ``0`` always centres.
    n_threads : int or None
        Worker threads of the ``method="covariance"`` accumulation on the Cython backend for an
        array ``X`` (NumPy array or memmap).  Each worker folds every ``n_threads``-th block into
        its own accumulator with single-threaded BLAS, and the accumulators are merged
        (Chan–Golub–LeVeque), so one worker's centring pass runs while another's ``?syrk``
        runs.  While they run, threadpoolctl limits every loaded BLAS library to one thread
        (the one behind ``scipy.linalg.cython_blas`` cannot be told apart portably), which
        also slows BLAS calls that other threads of the process make meanwhile.  ``None``
        (default): as many workers as the BLAS may use (``threadpoolctl.threadpool_limits``
        around the call lowers it) once ``n d^2 >= 2e10`` (below that, threads cost more than
        they save), fewer when the extra workers' accumulators and work buffers
        (``d^2`` numbers and one block each) would exceed a quarter of ``X``'s size or
        256 MiB.  ``1``: one accumulator, multithreaded BLAS.  An explicit count is used as
        given (no CPU or memory cap), but never more workers than blocks.  One threaded
        accumulation runs at a time per process; a call made while another is running uses
        one accumulator.  The result is reproducible for a given worker count and
        ``chunk_rows`` and agrees with other counts to rounding.  Iterables of chunks
        (a generator may refill the buffer it yielded, so chunks are consumed one at a time,
        in order), the NumPy and CuPy backends and ``method="randomized"`` ignore it.

    Returns
    -------
    PCAResult

    Raises
    ------
    TypeError
        Non-numeric data, a wrong type for a parameter.
    ValueError
        ``k < 1`` or ``k > d``, fewer than 2 rows, NaN or inf in the data, ``X`` not 2-D (or
        chunks of different widths), a one-shot iterator with ``method="randomized"``.

    Notes
    -----
    Streaming: only one block of ``chunk_rows`` rows and the (d, d) accumulator are in memory at
    a time, so the peak memory is about ``(chunk_rows + 3 d) d`` numbers plus what the input
    itself keeps resident.  For a shared ``numpy.memmap`` the pages of each consumed block are
    released (``madvise(MADV_DONTNEED)``; they stay in the OS page cache), so the resident set
    does not grow with ``n``.
    The centring is done per block (Chan–Golub–LeVeque merge, see
    :class:`CovarianceAccumulator`), never on a full copy of ``X``.

    Sign convention: in each column of ``components`` the entry of largest absolute value (the
    first on exact ties) is positive, as scikit-learn's ``svd_flip(u_based_decision=False)``.

    References
    ----------
    N. Halko, P.-G. Martinsson, J. A. Tropp, "Finding structure with randomness: probabilistic
    algorithms for constructing approximate matrix decompositions", SIAM Review 53(2), 2011.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 3)) * np.array([3.0, 1.0, 0.1])
    >>> res = pca(X, 2)
    >>> res.components.shape, res.n_samples
    ((3, 2), 500)
    >>> bool(np.allclose(np.abs(res.components[:, 0]), [1, 0, 0], atol=0.05))
    True
    >>> res.transform(X[:2]).shape
    (2, 2)
    """
    if method not in ("covariance", "randomized"):  # pragma: no cover - validated above
        raise ValueError(f"method must be 'covariance' or 'randomized', got {method!r}")
    if _is_dask_array(X):
        return _pca_dask(X, k, center=center, method=method, dtype=dtype, backend=backend, chunk_rows=chunk_rows,
                         uncentred_tol=float(uncentred_tol))
    src = _Source(X)
    d = src.d
    if k > d:
        raise ValueError(f"k must be <= d = {d}, got k={k}")
    data_dtype = np.dtype(src.dtype) if src.dtype.kind == "f" else None
    acc_dtype = _resolve_dtype(dtype, data_dtype)
    probe = src.array if src.array is not None else src.first
    be = resolve_backend(backend, probe)
    if method == "covariance":
        workers, rows = _plan_workers(n_threads, src, acc_dtype, be, chunk_rows)
        V, lam, mean, total, n = _pca_covariance(src, k, center, acc_dtype, be, rows, float(uncentred_tol), workers)
    else:
        n_known = int(src.array.shape[0]) if src.array is not None else None
        rows = int(chunk_rows) if chunk_rows is not None else _default_block_rows(d, acc_dtype, be, n_known)
        if not src.multipass:
            raise ValueError(
                "method='randomized' reads X several times: pass an array or a re-iterable of chunks "
                "(e.g. a list), not a one-shot iterator/generator; or use method='covariance'"
            )
        V, lam, mean, total, n = _pca_randomized(src, k, center, acc_dtype, be, rows, as_generator(rng), n_oversamples, n_iter)
    xp: Any = np
    if be == "cupy":
        xp = importlib.import_module("cupy")
        if not src.on_gpu:  # host data in, host results out
            V, lam, mean = (xp.asnumpy(a) for a in (V, lam, mean))
            xp = np
    lam = xp.maximum(lam, 0.0)
    V = flip_signs(xp.ascontiguousarray(V))
    evr = lam / total if total > 0 else xp.zeros_like(lam)
    return PCAResult(
        components=V,
        eigenvalues=lam,
        mean=mean,
        explained_variance_ratio=evr,
        n_samples=int(n),
        total_variance=float(total),
        method=method,
        backend=be,
    )


def _top_k_eigh_gpu(C: Any, k: int) -> tuple[Any, Any]:
    """Top-k eigenpairs of a symmetric CuPy matrix, descending, computed in float64 (cuSOLVER)."""
    xp = importlib.import_module("cupy")
    w, U = xp.linalg.eigh(C.astype(np.float64))
    return w[::-1][:k].copy(), U[:, ::-1][:, :k].copy()


def _top_k_eigh_upper(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs, descending, of the symmetric float64 Fortran-order matrix whose *upper*
    triangle is ``A``'s (the lower one is ignored; the upper one is overwritten), by LAPACK
    ``dsyevr``.

    The (d, d) solve costs ``O(d^2 k)`` next to the ``O(n d^2)`` accumulation, so it is always
    done in float64: LAPACK's float32 ``ssyevr`` alone loses about 1e-3 in the subspace at
    d=256 where the float32-accumulated covariance itself is accurate to 1e-7 (measured).
    """
    d = A.shape[0]
    w, U = scipy.linalg.eigh(A, lower=False, subset_by_index=[d - k, d - 1], driver="evr", overwrite_a=True, check_finite=False)
    return w[::-1].copy(), U[:, ::-1]


def _need_two(n: int) -> None:
    if n < 2:
        raise ValueError(f"X must have at least 2 rows (n >= 2), got n={n}")


def _accumulate_threaded(src: _Source, workers: int, dtype: np.dtype, rows: int, uncentred_tol: float) -> CovarianceAccumulator:
    """The covariance state of the array ``src.array`` accumulated by ``workers`` threads.

    Block ``i`` (rows ``[i rows, (i + 1) rows)``) goes to worker ``i mod workers``, which folds it
    into its own :class:`CovarianceAccumulator` (centring, ``?syrk`` and ``?syr`` as in the
    sequential path) with BLAS limited to one thread by threadpoolctl -- process-wide by the
    calling thread, and again in each worker for OpenMP builds of OpenBLAS, whose limit is per
    thread -- so that the workers' BLAS calls run side by side on the cores.  The accumulators
    are then merged in worker order (Chan–Golub–LeVeque).  The assignment is static, so the
    result is reproducible for a given ``workers`` and ``rows``; against the sequential path it
    differs by rounding only (the same merge formula, applied to other partial sums).

    Errors: a worker that fails on a block (NaN/inf, ...) records its row offset; every worker
    skips the blocks past the lowest offset recorded so far but still folds the ones before it,
    so the raised error names the *first* bad block, as the sequential path does.  A
    ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt`` in the calling thread)
    stops every worker and propagates.  A memmap's consumed pages are released by the worker
    that read them.
    """
    arr = src.array
    n = int(arr.shape[0])
    release = _page_releaser(arr)
    accs = [CovarianceAccumulator(src.d, dtype, backend="cython", block_rows=rows, uncentred_tol=uncentred_tol) for _ in range(workers)]
    lowest = [n]  # no worker folds blocks starting at or past this row (lowered by failures)
    failures: list[tuple[int, Exception]] = []
    lock = threading.Lock()
    controller = _blas_controller()

    def run(t: int) -> None:
        with controller.limit(limits=1, user_api="blas"):
            for start in range(t * rows, n, workers * rows):
                if start >= lowest[0]:
                    return
                block = arr[start : start + rows]
                try:
                    accs[t]._update_rows(block, start, "of X")
                except Exception as exc:  # re-raised by the calling thread
                    with lock:
                        lowest[0] = min(lowest[0], start)
                        failures.append((start, exc))
                    return
                except BaseException:
                    lowest[0] = -1
                    raise
                if release is not None:
                    release(block)

    with controller.limit(limits=1, user_api="blas"):
        started: list[threading.Thread] = []
        try:
            for t in range(1, workers):
                th = threading.Thread(target=run, args=(t,), name=f"semiprivate-pca-{t}", daemon=True)
                th.start()
                started.append(th)
            run(0)  # the calling thread is worker 0
            for th in started:
                th.join()
        finally:  # interrupted (or a thread failed to start): stop the others and wait for them
            if any(th.is_alive() for th in started):
                lowest[0] = -1
                for th in started:
                    th.join()
    if failures:
        raise min(failures, key=lambda f: f[0])[1]
    acc = accs[0]
    for other in accs[1:]:  # both keep the lower triangle (C view): add the raw buffers
        acc._merge_stats(other._count, other._mean, other._m2)
        acc._uncentred_blocks += other._uncentred_blocks
    return acc


def _pca_covariance(
    src: _Source, k: int, center: bool, dtype: np.dtype, backend: str, rows: int, uncentred_tol: float, workers: int = 1
) -> tuple[Any, ...]:
    if workers > 1 and _THREADED_LOCK.acquire(blocking=False):
        try:
            acc = _accumulate_threaded(src, workers, dtype, rows, uncentred_tol)
        finally:
            _THREADED_LOCK.release()
    else:
        acc = CovarianceAccumulator(src.d, dtype, backend=backend, block_rows=rows, uncentred_tol=uncentred_tol)
        if backend == "cupy" and not src.on_gpu:
            from semiprivate.kernels._cupy.pca import stream_to_device

            blocks: Iterable[Any] = stream_to_device(src.blocks(rows), src.d, dtype, rows)
        else:
            blocks = src.blocks(rows)
        offset = 0
        for block in blocks:
            acc._update_rows(block, offset, "of X")
            offset += block.shape[0]
    return _finish_covariance(acc, k, center, backend, dtype)


def _finish_covariance(acc: CovarianceAccumulator, k: int, center: bool, backend: str, dtype: np.dtype) -> tuple[Any, ...]:
    """Top-k eigenpairs of the accumulated covariance (or second moment): (U, w, mean, total, n)."""
    _need_two(acc.count)
    n = acc.count
    if backend == "cupy":
        C = acc.covariance() if center else acc.second_moment()
        total = float(acc._ops.xp.trace(C, dtype=np.float64))
        _check_total(total)
        w, U = _top_k_eigh_gpu(C, k)
    else:
        # No symmetrised, scaled copy: the float64 Fortran-order copy of M2^T holds, in its
        # upper triangle, the triangle the BLAS calls kept up to date (the lower one of the C view;
        # the NumPy backend keeps both), and the scale 1/(n-1) (or 1/n) moves to the eigenvalues.
        acc._check_deferred()
        A = np.array(acc._m2.T, dtype=np.float64, order="F")
        if not center:  # X^T X = M2 + n mean mean^T
            A += n * np.outer(acc._mean, acc._mean)
        scale = 1.0 / (n - 1) if center else 1.0 / n
        total = float(np.trace(A)) * scale
        _check_total(total)
        w, U = _top_k_eigh_upper(A, k)
        w *= scale
    mean = acc.mean if center else acc._ops.xp.zeros(acc.d, dtype=np.float64)
    return U.astype(dtype), w.astype(dtype), mean, total, n


# ---------------------------------------------------------------------------------------------
# dask.array input (optional extra semiprivate[dask])
# ---------------------------------------------------------------------------------------------

#: how many accumulators one task of the tree reduction merges
_DASK_SPLIT_EVERY = 8


def _is_dask_array(X: Any) -> bool:
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "to_delayed") and hasattr(X, "chunks")


def _dask_block_accumulator(block: Any, start: int, d: int, dtype: np.dtype, rows: int | None,
                            uncentred_tol: float) -> CovarianceAccumulator:
    """One row block of a dask array folded into its own accumulator (runs on a worker; the
    Cython kernel where the worker has it, else NumPy).  Errors name rows of the whole array."""
    acc = CovarianceAccumulator(d, dtype, backend="auto", block_rows=rows, uncentred_tol=uncentred_tol)
    acc._update_rows(np.asarray(block), start, "of X")
    return acc


def _dask_merge(*accs: CovarianceAccumulator) -> CovarianceAccumulator:
    """Chan–Golub–LeVeque merge of accumulators, left to right (a fixed order: the result does not
    depend on which worker ran what)."""
    out = accs[0].copy()
    for other in accs[1:]:
        other._check_deferred()
        out._merge_stats(other._count, other._mean.copy(), other._ops.full(other._m2).astype(out.dtype))
        out._uncentred_blocks += other._uncentred_blocks
    return out


def _pca_dask(X: Any, k: int, *, center: bool, method: str, dtype: Any, backend: str, chunk_rows: int | None,
              uncentred_tol: float) -> PCAResult:
    """PCA of a dask array chunked by rows: per-chunk accumulators on the workers, a tree
    reduction with the Chan–Golub–LeVeque merge, the eigensolve here.  Runs on the active Dask
    scheduler (a ``distributed.Client`` if one is current, else Dask's default)."""
    if method != "covariance":
        raise ValueError("method='randomized' is not available for dask arrays; use method='covariance' "
                         "(one pass over the chunks) or X.compute() first")
    if backend not in ("auto", "numpy", "cython"):
        raise ValueError(f"backend={backend!r} is not available for dask arrays (the workers choose Cython or "
                         "NumPy); use backend='auto'")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d), got ndim={X.ndim} (shape {X.shape})")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"X must have a numeric dtype, got {X.dtype}")
    if X.numblocks[1] != 1:
        raise ValueError(f"X is a dask array chunked along columns ({X.numblocks[1]} column chunks); the covariance "
                         "needs whole rows per chunk: pass X.rechunk({1: -1})")
    import dask

    n_rows, d = (int(v) for v in X.shape)
    if k > d:
        raise ValueError(f"k must be <= d = {d}, got k={k}")
    data_dtype = np.dtype(X.dtype) if X.dtype.kind == "f" else None
    acc_dtype = _resolve_dtype(dtype, data_dtype)
    rows = int(chunk_rows) if chunk_rows is not None else None
    starts = np.cumsum((0, *X.chunks[0]))[:-1]
    blocks = X.to_delayed().ravel()
    parts = [dask.delayed(_dask_block_accumulator, pure=True)(b, int(s), d, acc_dtype, rows, uncentred_tol)
             for b, s in zip(blocks, starts)]
    while len(parts) > 1:
        parts = [dask.delayed(_dask_merge, pure=True)(*parts[i:i + _DASK_SPLIT_EVERY])
                 for i in range(0, len(parts), _DASK_SPLIT_EVERY)]
    (acc,) = dask.compute(parts[0])
    if acc.count != n_rows:  # pragma: no cover - a dask bug, not user input
        raise RuntimeError(f"dask reduction saw {acc.count} rows, expected {n_rows}")
    V, lam, mean, total, n = _finish_covariance(acc, k, center, acc.backend, acc_dtype)
    lam = np.maximum(lam, 0.0)
    V = flip_signs(np.ascontiguousarray(V))
    evr = lam / total if total > 0 else np.zeros_like(lam)
    return PCAResult(components=V, eigenvalues=lam, mean=mean, explained_variance_ratio=evr, n_samples=int(n),
                     total_variance=float(total), method=method, backend=f"dask+{acc.backend}")


def _check_total(total: float) -> None:
    if not math.isfinite(total):
        raise ValueError("the covariance of X is not finite (values too large for the accumulation dtype)")


def _pca_randomized(
    src: _Source,
    k: int,
    center: bool,
    dtype: np.dtype,
    backend: str,
    rows: int,
    gen: np.random.Generator,
    p: int,
    q: int,
) -> tuple[Any, ...]:
    ops = _make_ops(backend)
    xp = ops.xp
    d = src.d
    ell = min(d, k + p)
    Q = xp.asarray(gen.standard_normal((d, ell)).astype(dtype))
    shift: Any = None  # fixed shift s (first block's mean) for the first pass, the exact mean afterwards
    n = 0

    def blocks() -> Iterator[Any]:
        for b in src.blocks(rows):
            if is_cupy_array(b) or xp is np:
                arr = b if is_cupy_array(b) else np.asarray(b)
            else:
                arr = xp.asarray(np.asarray(b))
            if arr.dtype != dtype:
                arr = arr.astype(dtype)
            yield arr

    def apply(Qm: Any, first: bool) -> Any:
        """A Qm with A = sum (x - mean)(x - mean)^T (or sum x x^T), one pass over the data."""
        nonlocal shift, n
        Y = xp.zeros((d, Qm.shape[1]), dtype=dtype)
        s_sum = xp.zeros(d, dtype=np.float64)
        sq = 0.0
        count = 0
        for b in blocks():
            if b.shape[0] == 0:
                continue
            if first:
                with np.errstate(all="ignore"):
                    bm = b.mean(axis=0, dtype=np.float64)
                if not bool(xp.isfinite(bm).all()):
                    raise ValueError("X must not contain NaN or inf (or values whose sum overflows)")
                if center and shift is None:
                    shift = bm
            bs = b - shift.astype(dtype) if center else b
            Y += bs.T @ (bs @ Qm)
            count += b.shape[0]
            if first:
                s_sum += bs.sum(axis=0, dtype=np.float64)
                sq += float((bs.astype(np.float64, copy=False) ** 2).sum())
                if not math.isfinite(sq) or not bool(xp.isfinite(s_sum).all()):
                    raise ValueError("X must not contain NaN or inf (or values whose squares overflow)")
        if first:
            n = count
            _need_two(n)
            if center:
                delta = s_sum / n
                Y -= (n * xp.outer(delta, delta @ Qm.astype(np.float64))).astype(dtype)
                apply.mean = shift + delta  # type: ignore[attr-defined]
                apply.trace = sq - n * float(delta @ delta)  # type: ignore[attr-defined]
            else:
                apply.mean = xp.zeros(d, dtype=np.float64)  # type: ignore[attr-defined]
                apply.trace = sq  # type: ignore[attr-defined]
        return Y

    Y = apply(Q, True)
    mean = apply.mean  # type: ignore[attr-defined]
    trace = apply.trace  # type: ignore[attr-defined]
    if center:
        shift = mean  # exact mean from now on: later passes need no correction
    for _ in range(q):
        Q, _r = xp.linalg.qr(Y)
        Y = apply(Q, False)
    Q, _r = xp.linalg.qr(Y)
    AQ = apply(Q, False)
    T = Q.T @ AQ
    T = (T + T.T) / 2
    w, U = xp.linalg.eigh(T.astype(np.float64))
    order = xp.argsort(w)[::-1][:k]
    div = (n - 1) if center else n
    V = (Q.astype(np.float64) @ U[:, order]).astype(dtype)
    lam = (w[order] / div).astype(dtype)
    return V, lam, mean, trace / div, n


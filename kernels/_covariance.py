"""Streaming covariance: :class:`CovarianceAccumulator` and the per-backend block operations.

Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 -- the empirical covariance of the public unlabelled
data, folded in block by block with the Chan–Golub–LeVeque pairwise update, on the NumPy,
Cython/BLAS (``?syrk``) and CuPy backends.  The specification is
:mod:`semiprivate.kernels._reference_pca`.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
from semiprivate.kernels._backend import is_cupy_array, resolve_backend
from semiprivate.kernels._pca_plan import _default_block_rows, _resolve_dtype
from semiprivate.validation import NONNEGATIVE_INT, POSITIVE_INT, Optional, Options, Real, validate_params

__all__ = ["CovarianceAccumulator"]

_BACKEND = Options("auto", "numpy", "cython", "cupy")
_TOL = Real(0.0, math.inf, closed="left")
# Blocks of at least this many rows (after the first) are shifted by the running mean in one read
# (``shift``); smaller ones are centred on their own mean (``center``, two reads, cheap for a block
# that small).  On a float32 stream whose block means drift by many within-block standard
# deviations, the shifted update loses accuracy for blocks of a few rows and none from 256 rows on
# (tests/kernels/pca/test_decomposition.py::test_drifting_stream_keeps_float32_accuracy).
_SHIFT_MIN_ROWS = 256


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


class NonFiniteRows(ValueError):
    """NaN or inf (or a column sum that overflows) in rows ``[start, start + m)``.

    ``start`` is None when the rows are not known (the CuPy accumulator's deferred check).
    :func:`semiprivate.kernels.pca` turns it into a message that names the first bad row of ``X``.
    """

    def __init__(self, message: str, start: int | None = None, m: int | None = None) -> None:
        super().__init__(message)
        self.start, self.m = start, m


def _raise_non_finite(start: int, m: int, where: str) -> None:
    raise NonFiniteRows(
        f"chunk must not contain NaN or inf (or values whose sum overflows): rows "
        f"[{start}, {start + m}) {where}; the accumulator holds the rows before them", start, m
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
            raise NonFiniteRows("chunk must not contain NaN or inf (found when reading the CuPy accumulator)")

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

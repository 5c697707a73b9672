"""The covariance of a device-resident array in one shifted GEMM pass (no centred copy of ``X``).

Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 -- the empirical covariance of the (public, unlabelled)
data -- for an ``X`` already in GPU memory, where :func:`semiprivate.kernels.pca` spends its time in
the covariance pass.  The specification is :mod:`semiprivate.kernels._reference_pca`.

The pass (:func:`shifted_comoment`), with ``s`` the float64 mean of at most :data:`SHIFT_ROWS` rows
spread evenly over ``X`` (a strided sample: a shift near the mean keeps the cancellation small even
for sorted or drifting rows):

* per block of rows ``B`` (one reused work buffer): ``Y = fl(B - s)`` (float64 difference, rounded
  to the accumulation dtype), ``A += Y^T Y`` (one GEMM per block, the block products summed in
  float64) and ``t += Y^T 1`` (one GEMV, summed in float64);
* then, with ``ybar = t / n``: ``M2 = A - n ybar ybar^T`` and ``mean = s + ybar``.

This is the exact identity ``sum_i (y_i - ybar)(y_i - ybar)^T = sum_i y_i y_i^T - n ybar ybar^T``
applied to the shifted rows ``y_i``; because ``s`` is close to the mean, ``n ybar ybar^T`` is small
against ``M2`` and nothing cancels, unlike the uncentred ``X^T X - n mean mean^T``, which loses about
``||mean||^2 / (trace(M2)/n)`` times the unit roundoff (``1500 u`` on the benchmark's data, 1e-4 in
float32).  The work is the GEMM (``n d^2``), one elementwise read/write of each block and one GEMV: no
column reduction of ``X`` (CuPy's ``X.mean(axis=0)`` reads a C-ordered array column-wise) and no
centred copy of ``X``.

Written with the array module ``xp`` (NumPy or CuPy), so the CPU test suite runs the same code.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.kernels._covariance import NonFiniteRows
from semiprivate.kernels._pca_eigen import _check_total, _need_two, _top_k_eigh_gpu

__all__ = ["shifted_comoment", "device_covariance_pca", "device_block_rows", "SHIFT_ROWS", "DEVICE_BLOCK_BYTES"]

#: rows of ``X`` (spread evenly over it) whose float64 mean is the shift
SHIFT_ROWS = 4096
#: the work buffer of one block of rows on the device (fewer, larger GEMMs than the streaming path's 64 MiB)
DEVICE_BLOCK_BYTES = 256 << 20


def device_block_rows(d: int, dtype: np.dtype) -> int:
    """Rows per block for :func:`shifted_comoment` (``DEVICE_BLOCK_BYTES`` of work buffer, at least 256)."""
    return max(256, DEVICE_BLOCK_BYTES // max(1, d * np.dtype(dtype).itemsize))


def shifted_comoment(X: Any, dtype: Any, rows: int, xp: Any) -> tuple[Any, Any, bool]:
    """``(M2, mean, finite)`` of the rows of the 2-D array ``X`` (``n >= 1``): the float64 comoment
    ``sum_i (x_i - mean)(x_i - mean)^T`` (symmetric), the float64 mean, and whether every sum was finite
    (False: ``X`` holds NaN/inf, or a product overflowed the accumulation dtype).

    ``dtype`` is the accumulation dtype of the block products (float32 or float64; ``X`` is rounded to
    it after the shift), ``rows`` the rows per block.  See the module docstring for the arithmetic.
    """
    dtype = np.dtype(dtype)
    n, d = (int(v) for v in X.shape)
    step = max(1, n // SHIFT_ROWS)
    sample = X[::step][:SHIFT_ROWS].astype(np.float64)
    s = xp.matmul(xp.full(int(sample.shape[0]), 1.0 / int(sample.shape[0])), sample)  # GEMV, not a column reduction
    rows = max(1, min(int(rows), n))
    buf = xp.empty((rows, d), dtype=dtype)
    ones = xp.ones(rows, dtype=dtype)
    A = xp.zeros((d, d), dtype=np.float64)
    t = xp.zeros(d, dtype=np.float64)
    with np.errstate(all="ignore"):  # NumPy twin: non-finite data is reported by the flag, not a warning
        for start in range(0, n, rows):
            B = X[start : start + rows]
            m = int(B.shape[0])
            Y = buf[:m]
            xp.subtract(B, s, out=Y, casting="unsafe")  # float64 difference, rounded to dtype
            t += xp.matmul(ones[:m], Y)  # GEMV
            A += Y.T @ Y  # GEMM (the transposed operand is a view: cuBLAS reads it as such)
        ybar = t / n
        M2 = A - n * xp.outer(ybar, ybar)
        M2 = (M2 + M2.T) * 0.5  # not in place: CuPy does not guard overlapping operands
        finite = bool(xp.isfinite(t).all() & xp.isfinite(xp.trace(M2)))  # the one host synchronisation
    return M2, s + ybar, finite


def device_covariance_pca(X: Any, k: int, center: bool, dtype: Any, rows: int | None,
                          xp: Any) -> tuple[Any, Any, Any, float, int]:
    """``(U, w, mean, total, n)`` of :func:`semiprivate.kernels.pca` (``method="covariance"``) for an array
    ``X`` in the memory of ``xp`` (CuPy; NumPy in the CPU tests): :func:`shifted_comoment`, then the top-k
    eigenpairs of the covariance ``M2 / (n - 1)`` (or of the second moment ``(M2 + n mean mean^T) / n``
    when ``center`` is False) in float64 by :func:`semiprivate.kernels._pca_eigen._top_k_eigh_gpu`.
    ``U`` and ``w`` are cast to ``dtype``; ``mean`` is float64 (zeros when not centred).

    Raises :class:`semiprivate.kernels._covariance.NonFiniteRows` (rows unknown) for NaN/inf or an overflow.
    """
    n, d = (int(v) for v in X.shape)
    _need_two(n)
    dtype = np.dtype(dtype)
    M2, mean, finite = shifted_comoment(X, dtype, rows if rows is not None else device_block_rows(d, dtype), xp)
    if not finite:
        raise NonFiniteRows("X must not contain NaN or inf (or values whose products overflow)")
    if center:
        C = M2 / (n - 1)
    else:
        C = (M2 + n * xp.outer(mean, mean)) / n
        mean = xp.zeros(d, dtype=np.float64)
    total = float(xp.trace(C))
    _check_total(total)
    w, U = _top_k_eigh_gpu(C, k, xp)
    return U.astype(dtype), w.astype(dtype), mean, total, n

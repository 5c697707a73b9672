"""PCA of a ``dask.array`` chunked by rows (optional extra ``semiprivate[dask]``): one accumulator
per chunk on the workers, a tree reduction with the Chan–Golub–LeVeque merge, the eigensolve here.
Step 1 of HPSY.Thm3 / PILLAR.Alg1 at cluster scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.kernels._covariance import CovarianceAccumulator
from semiprivate.kernels._pca_eigen import _finish_covariance
from semiprivate.kernels._pca_plan import _resolve_dtype
from semiprivate.kernels._pca_result import PCAResult
from semiprivate.kernels._reference_pca import flip_signs

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
    import dask  # optional extra semiprivate[dask]

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

"""The result of :func:`semiprivate.kernels.pca`: components, eigenvalues, mean and the projection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.kernels._backend import is_cupy_array
from semiprivate.kernels._pca_sources import _page_releaser

__all__ = ["PCAResult"]


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

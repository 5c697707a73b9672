"""NumPy reference PCA: the specification the Cython/BLAS and CuPy backends must match.

Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 (empirical covariance of the public unlabelled data,
centred, and its top-k eigenvectors ``A`` (d x k)).  HPSY Theorem 3 (seed 000) and PILLAR
Algorithm 1 (seed 002) only need the top-k eigenspace of ``Sigma_hat``; this module fixes every
convention the fast backends have to reproduce:

* covariance (``center=True``): ``Sigma_hat = (X - mu)^T (X - mu) / (n - 1)`` with
  ``mu = X.mean(axis=0)`` (the unbiased sample covariance, the same normalisation as
  scikit-learn's ``PCA.explained_variance_``);
* second moment (``center=False``): ``M = X^T X / n`` and the reported mean is the zero vector;
* eigenvalues in descending order, negative round-off clipped to 0 (the matrix is PSD), eigenvectors as the columns of ``components`` (d, k);
* sign convention (:func:`flip_signs`): in every column the entry of largest absolute value is
  positive (the first such entry on exact ties), the same rule as scikit-learn's
  ``svd_flip(u_based_decision=False)``;
* ``explained_variance_ratio = eigenvalues / trace(Sigma_hat)`` (all zeros when the trace is 0).

It computes everything in float64 with a full ``numpy.linalg.eigh``: slow and simple on purpose.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["flip_signs", "reference_moments", "reference_pca", "subspace_distance"]


def flip_signs(components: NDArray[Any]) -> NDArray[Any]:
    """Apply the sign convention in place and return ``components``.

    Each column is multiplied by -1 when its entry of largest absolute value (the first one
    on ties) is negative, so afterwards that entry is positive.  Works on NumPy and CuPy
    arrays (it only uses array methods).

    >>> V = np.array([[0.6, -0.8], [-0.8, -0.6]])
    >>> flip_signs(V)
    array([[-0.6, 0.8], [ 0.8, 0.6]])
    """
    k = components.shape[1]
    if k == 0:
        return components
    xp = np if isinstance(components, np.ndarray) else importlib.import_module("cupy")
    idx = xp.abs(components).argmax(axis=0)
    pivots = components[idx, xp.arange(k)]
    components *= xp.where(pivots < 0, -1.0, 1.0).astype(components.dtype)
    return components


def reference_moments(X: Any, *, center: bool = True) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """Mean and covariance (or second moment) of the rows of ``X``, in float64.

    Returns ``(mean, matrix, n)``: for ``center=True`` the sample mean and
    ``(X - mean)^T (X - mean) / (n - 1)``; for ``center=False`` zeros and ``X^T X / n``.

    >>> m, C, n = reference_moments(np.array([[0.0, 1.0], [2.0, 3.0]]))
    >>> m, C, n
    (array([1., 2.]), array([[2., 2.], [2., 2.]]), 2)
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if center:
        mean = X.mean(axis=0)
        Xc = X - mean
        return mean, (Xc.T @ Xc) / (n - 1), n
    return np.zeros(X.shape[1]), (X.T @ X) / n, n


def reference_pca(
    X: Any, k: int, *, center: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float]:
    """Top-k principal components of the rows of ``X`` (the specification).

    Returns ``(components (d, k), eigenvalues (k,) descending, mean (d,), total_variance)``
    where ``total_variance`` is the trace of the covariance (second moment when
    ``center=False``).  No input checks: :func:`semiprivate.kernels.pca` validates.

    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
    >>> V, lam, mu, tot = reference_pca(X, 1)
    >>> V.ravel(), lam, tot
    (array([1., 0.]), array([0.6666666...]), 0.8333333...)
    """
    mean, C, _ = reference_moments(X, center=center)
    w, U = np.linalg.eigh(C)
    order = np.argsort(w)[::-1][:k]
    V = flip_signs(np.ascontiguousarray(U[:, order]))
    return V, np.maximum(w[order], 0.0), mean, float(np.trace(C))


def subspace_distance(V: Any, W: Any) -> float:
    """``||V V^T - W W^T||_2`` for matrices ``V`` (d, k) and ``W`` (d, l) with orthonormal columns:
    the distance of the two orthogonal projections -- the sine of the largest principal angle
    between the spans when ``k == l``, and 1 whenever the widths differ.

    The accuracy measure of every PCA backend against :func:`reference_pca`, and the PCA error
    ``||A_hat A_hat^T - A_k A_k^T||`` of PILLAR Theorem 1 (bounded there by Zwald–Blanchard,
    Thm 4).  Computed in float64 as ``max(||V - W (W^T V)||_2, ||W - V (V^T W)||_2)`` (for
    orthogonal projections ``||P - Q|| = max(||(I - Q) P||, ||(I - P) Q||)``): two (d, k) spectral
    norms instead of the (d, d) one, and no ``sqrt(1 - sigma_min(V^T W)^2)``, which cannot resolve
    angles below ``sqrt(eps) ~ 1.5e-8``; the absolute error is a few ``eps``.  Columns are assumed
    orthonormal (not checked).

    >>> subspace_distance(np.eye(3)[:, :1], np.eye(3)[:, :1])
    0.0
    >>> round(subspace_distance(np.eye(2)[:, :1], np.eye(2)[:, 1:]), 12)
    1.0
    >>> subspace_distance(np.eye(3)[:, :1], np.eye(3)[:, :2])  # nested spans, different widths
    1.0
    """
    Vm = np.asarray(V, dtype=np.float64)
    Wm = np.asarray(W, dtype=np.float64)
    if Vm.ndim != 2 or Wm.ndim != 2 or Vm.shape[0] != Wm.shape[0]:
        raise ValueError(f"V and W must be 2-D with the same number of rows, got shapes {Vm.shape} and {Wm.shape}")
    one = float(np.linalg.norm(Vm - Wm @ (Wm.T @ Vm), 2)) if Vm.shape[1] else 0.0
    two = float(np.linalg.norm(Wm - Vm @ (Vm.T @ Wm), 2)) if Wm.shape[1] else 0.0
    return max(one, two)


"""semiprivate.kernels._pca_eigen.top_k_subspace (the GPU's top-k eigensolver), run as its NumPy twin.

Against the dense solver (``numpy.linalg.eigh``): eigenvalues to 1e-12 relative to the largest and the
subspace within the Davis-Kahan bound of the residual tolerance, on covariance matrices of data with a decaying spectrum (the PCA case), the residual
tolerance honoured, and None (the caller's fallback to the full solve) where the iteration cannot
converge in its budget (a flat spectrum) or the matrix is zero.
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.kernels._pca_eigen import top_k_subspace
from semiprivate.kernels._reference_pca import subspace_distance


def _cov(d: int, k: int, seed: int, decay: float) -> np.ndarray:
    g = np.random.default_rng(seed)
    top = 10.0 * decay ** np.arange(k + 5)
    scales = np.concatenate([top, np.full(d - k - 5, 0.3 * top[-1])])  # a noise floor below the top k + 5
    X = g.standard_normal((4 * d, d)) * scales
    X = X @ np.linalg.qr(g.standard_normal((d, d)))[0]
    return np.cov(X, rowvar=False)


@pytest.mark.parametrize("d,k,decay", [(128, 5, 0.5), (200, 12, 0.7), (256, 16, 0.6)])
def test_matches_the_dense_solver(d: int, k: int, decay: float) -> None:
    C = _cov(d, k, seed=d + k, decay=decay)
    found = top_k_subspace(C, k, np)
    assert found is not None
    theta, U, steps = found
    w_all, V = np.linalg.eigh(C)
    w_all, V = w_all[::-1], V[:, ::-1][:, :k]
    w, gap = w_all[:k], w_all[k - 1] - w_all[k]
    assert np.max(np.abs(theta - w)) <= 1e-12 * w[0]
    # Davis-Kahan: sin(angle) <= ||R|| / gap, with ||R|| <= sqrt(k) tol theta_1 (x10 for the dense solver's own error)
    assert subspace_distance(U, V) <= 10 * np.sqrt(k) * 1e-13 * w[0] / gap
    R = C @ U - U * theta
    assert np.linalg.norm(R, axis=0).max() <= 1e-13 * theta[0]
    assert np.allclose(U.T @ U, np.eye(k), atol=1e-12)
    assert steps <= 60


def test_flat_spectrum_returns_none_for_the_fallback() -> None:
    g = np.random.default_rng(1)
    C = np.cov(g.standard_normal((300, 150)), rowvar=False)  # Marchenko-Pastur bulk: no gap after k
    assert top_k_subspace(C, 20, np, max_iter=3) is None


def test_zero_matrix_returns_none() -> None:
    assert top_k_subspace(np.zeros((64, 64)), 4, np) is None

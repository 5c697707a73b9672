"""semiprivate.kernels._pca_gram.shifted_comoment (the device-data covariance pass), run as its NumPy twin.

The comoment and mean against the float64 two-pass reference (``reference_moments``), deterministic:
float64 to 1e-12 of ``||M2||``; float32 on data whose mean is 300 times its spread, where the uncentred
``X^T X - n mean mean^T`` in float32 is off by more than 1e-2 (checked here, so the test has the power to see a
lost shift) and the shifted pass must stay within 2e-5 -- the float32 rounding of the shifted block products.
Also: blocks of every size give the same result, sorted (drifting) rows keep the accuracy because the shift is
a strided sample, and NaN/inf or an overflowing product is reported as not finite.
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.kernels._pca_gram import device_block_rows, shifted_comoment
from semiprivate.kernels._reference_pca import reference_moments


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _data(n: int, d: int, mean: float, seed: int = 0) -> np.ndarray:
    g = np.random.default_rng(seed)
    return g.standard_normal((n, d)) * (0.97 ** np.arange(d)) @ np.linalg.qr(g.standard_normal((d, d)))[0] + mean


@pytest.mark.parametrize("rows", [1, 7, 256, 5000, 10**6])
def test_float64_matches_the_two_pass_reference(rows: int) -> None:
    X = _data(9001 if rows > 1 else 301, 24, 5.0)  # 9001 > SHIFT_ROWS: the shift is a sample mean, not the mean
    M2, mean, finite = shifted_comoment(X, np.float64, rows, np)
    mu, C, n = reference_moments(X)
    assert finite
    assert _rel(M2, C * (n - 1)) <= 1e-12
    np.testing.assert_allclose(mean, mu, rtol=0, atol=1e-12 * float(np.abs(mu).max()))
    assert np.array_equal(M2, M2.T)


def test_float32_large_mean_keeps_float32_accuracy() -> None:
    X = _data(20000, 32, 300.0).astype(np.float32)  # mean / spread ~ 300 / 1
    mu, C, n = reference_moments(X.astype(np.float64))
    M2, mean, finite = shifted_comoment(X, np.float32, 4096, np)
    assert finite
    assert _rel(M2, C * (n - 1)) <= 2e-5
    np.testing.assert_allclose(mean, mu, rtol=1e-9)
    # the power of the check: without the shift (X^T X - n mean mean^T in float32) the error is large
    G = (X.T @ X).astype(np.float64) - n * np.outer(mu, mu)
    assert _rel(G, C * (n - 1)) > 1e-2


def test_sorted_rows_keep_the_accuracy() -> None:
    """Rows sorted by their first coordinate drift along the array: the strided sample's mean is still a
    good shift (a shift from the first block alone would be far from the mean)."""
    X = _data(20000, 16, 50.0, seed=3)
    X = X[np.argsort(X[:, 0])].astype(np.float32)
    mu, C, n = reference_moments(X.astype(np.float64))
    M2, _, _ = shifted_comoment(X, np.float32, 1000, np)
    assert _rel(M2, C * (n - 1)) <= 2e-5


def test_float32_data_accumulated_in_float64() -> None:
    X = _data(5000, 12, 100.0).astype(np.float32)
    mu, C, n = reference_moments(X.astype(np.float64))
    M2, _, _ = shifted_comoment(X, np.float64, 999, np)
    assert _rel(M2, C * (n - 1)) <= 1e-12


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_reported(bad: float) -> None:
    X = _data(1000, 8, 1.0)
    X[637, 3] = bad
    assert shifted_comoment(X, np.float64, 100, np)[2] is False


def test_overflowing_products_are_reported() -> None:
    X = _data(1000, 8, 0.0).astype(np.float32)
    X[10] = 3e20  # finite, but its square overflows float32
    assert shifted_comoment(X, np.float32, 100, np)[2] is False


def test_block_rows_use_the_work_buffer_size() -> None:
    assert device_block_rows(1024, np.dtype(np.float32)) == (256 << 20) // 4096
    assert device_block_rows(10**9, np.dtype(np.float64)) == 256


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_device_pca_matches_the_reference(center: bool, dtype: type) -> None:
    """The whole device-data path (pass + top-k solver) at d = 600, k = 10 (the Chebyshev solver's range)."""
    from semiprivate.kernels._pca_gram import device_covariance_pca
    from semiprivate.kernels._reference_pca import reference_pca, subspace_distance

    X = _data(2000, 600, 20.0, seed=5)
    X[:, :10] *= 8.0  # a clear top 10
    V_ref, lam_ref, mu_ref, tot_ref = reference_pca(X.astype(dtype).astype(np.float64), 11, center=center)
    V_ref, gap, lam_ref = V_ref[:, :10], lam_ref[9] - lam_ref[10], lam_ref[:10]
    U, w, mean, total, n = device_covariance_pca(X.astype(dtype), 10, center, dtype, 700, np)
    # float64: the solver's residual test (Davis-Kahan: sqrt(k) 1e-13 lambda_1 / gap, x10) or 1e-9
    tol = max(1e-9, 10 * np.sqrt(10) * 1e-13 * lam_ref[0] / gap) if dtype == np.float64 else 1e-4
    assert n == 2000 and U.dtype == dtype and w.dtype == dtype
    assert subspace_distance(U.astype(np.float64), V_ref) <= tol
    np.testing.assert_allclose(w, lam_ref, rtol=1e-9 if dtype == np.float64 else 1e-4)
    np.testing.assert_allclose(total, tot_ref, rtol=tol)
    np.testing.assert_allclose(mean, mu_ref, atol=1e-9 * 20)

"""GPU tests of the CuPy PCA backend (skipped without CuPy and a CUDA device).

Deterministic, tolerances are rounding bounds (false-failure rate 0 up to floating point):
float64 subspace distance <= 1e-8 and eigenvalues <= 1e-9 relative to lambda_1; float32 1e-3 / 1e-4.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.kernels import CovarianceAccumulator, pca
from semiprivate.kernels._reference_pca import reference_pca, subspace_distance
from semiprivate.kernels._testvectors import low_rank

pytestmark = pytest.mark.gpu

TOL: dict[Any, tuple[float, float]] = {np.float64: (1e-8, 1e-9), np.float32: (1e-3, 1e-4)}


def _data(n: int = 3000, d: int = 40, r: int = 6, seed: int = 0) -> np.ndarray:
    return low_rank(n, d, r, seed=seed)


# The scenarios below are also run, unchanged, on a NumPy stand-in for CuPy by
# tests/kernels/pca/test_cupy_streaming_standin.py (which adds checks only the stand-in can make).


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["covariance", "randomized"])
def test_cupy_host_input_matches_reference(dtype: type, method: str) -> None:
    import semiprivate.kernels._cupy.pca as cupy_pca

    X = _data()
    V_ref, lam_ref, mu_ref, tot_ref = reference_pca(X, 5)
    res = pca(X.astype(dtype), 5, backend="cupy", method=method, chunk_rows=512, rng=0)
    assert isinstance(res.components, np.ndarray) and res.backend == "cupy"
    for a in (res.components, res.eigenvalues, res.mean, res.explained_variance_ratio):
        assert type(a) is np.ndarray  # host in, host out
    sub_tol, eig_tol = TOL[dtype]
    if method == "randomized":
        sub_tol, eig_tol = max(sub_tol, 1e-6), max(eig_tol, 1e-9)
    assert subspace_distance(res.components.astype(np.float64), V_ref) <= sub_tol
    np.testing.assert_allclose(res.eigenvalues, lam_ref, rtol=eig_tol * 10, atol=eig_tol * lam_ref[0])
    np.testing.assert_allclose(res.mean, mu_ref, atol=1e-4)
    np.testing.assert_allclose(res.total_variance, tot_ref, rtol=eig_tol * 10)
    if method == "covariance" and cupy_pca.product_mode() == "syrk":  # cuBLAS ?syrk passed the
        assert cupy_pca._SYRK_MODE[np.dtype(dtype).str] in ("lower", "upper")  # triangle self-check


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_host_input_matches_reference_with_the_syrk_product(dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same scenario with SEMIPRIVATE_CUPY_PRODUCT=syrk (GEMM is the default product)."""
    import semiprivate.kernels._cupy.pca as cupy_pca

    monkeypatch.setenv(cupy_pca.PRODUCT_ENV, "syrk")
    test_cupy_host_input_matches_reference(dtype, "covariance")


def test_cupy_device_input_returns_device_arrays() -> None:
    import cupy as cp

    X = _data()
    res = pca(cp.asarray(X), 4)
    assert res.backend == "cupy" and isinstance(res.components, cp.ndarray)
    for a in (res.eigenvalues, res.mean, res.explained_variance_ratio):
        assert isinstance(a, cp.ndarray)
    cpu = pca(X, 4, backend="numpy")
    np.testing.assert_allclose(cp.asnumpy(res.components), cpu.components, atol=1e-8)
    np.testing.assert_allclose(cp.asnumpy(res.eigenvalues), cpu.eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(cp.asnumpy(res.mean), cpu.mean, rtol=1e-12)
    Z = res.transform(cp.asarray(X[:10]))
    assert isinstance(Z, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(Z), cpu.transform(X[:10]), atol=1e-7)
    back = res.inverse_transform(Z)
    assert isinstance(back, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(back), cpu.inverse_transform(cpu.transform(X[:10])), atol=1e-7)


@pytest.mark.parametrize("chunk", [1, 7, 3000])
def test_cupy_streaming_equals_in_memory(chunk: int) -> None:
    X = _data(n=600)
    whole = pca(X, 5, backend="cupy")
    res = pca([X[s : s + chunk] for s in range(0, 600, chunk)], 5, backend="cupy")
    np.testing.assert_allclose(res.components, whole.components, atol=1e-9)
    np.testing.assert_allclose(res.eigenvalues, whole.eigenvalues, rtol=1e-11)


def merge_parts() -> list[np.ndarray]:
    g = np.random.default_rng(1)
    return [g.standard_normal((m, 5)) + c for m, c in ((10, 1.0), (1, -4.0), (30, 50.0))]


def test_cupy_accumulator_merge_and_nan() -> None:
    import cupy as cp

    parts = merge_parts()
    accs = [CovarianceAccumulator(5, backend="cupy").update(cp.asarray(p)) for p in parts]
    left = accs[0].copy().merge(accs[1]).merge(accs[2])
    right = accs[0].copy().merge(accs[1].copy().merge(accs[2]))
    ref = np.cov(np.vstack(parts), rowvar=False)
    np.testing.assert_allclose(cp.asnumpy(left.covariance()), ref, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(cp.asnumpy(right.covariance()), ref, rtol=1e-12, atol=1e-10)
    bad = CovarianceAccumulator(5, backend="cupy").update(np.array([[1.0, np.nan, 0, 0, 0]]))
    assert bad.count == 1  # no error at update: the check is deferred to the read
    with pytest.raises(ValueError, match="NaN or inf"):
        bad.covariance()
    with pytest.raises(ValueError, match="NaN or inf"):
        pca(np.array([[1.0, np.inf], [0.0, 1.0], [2.0, 2.0]]), 1, backend="cupy")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_device_input_top_k_solver_with_a_large_mean(dtype: type) -> None:
    """Device data at d = 600, k = 10 (the shifted GEMM pass and the Chebyshev top-k solver) with a mean
    200 times the spread: float32 stays within float32 rounding of the float64 reference, float64 within 1e-9."""
    import cupy as cp

    g = np.random.default_rng(11)
    X = g.standard_normal((4000, 600)) * (0.97 ** np.arange(600)) @ np.linalg.qr(g.standard_normal((600, 600)))[0]
    X[:, :10] *= 8.0
    X = (X + 200.0).astype(dtype)
    V_ref, lam_ref, mu_ref, _ = reference_pca(X.astype(np.float64), 10)
    res = pca(cp.asarray(X), 10, chunk_rows=1500)
    tol = 1e-9 if dtype == np.float64 else 1e-4
    assert subspace_distance(cp.asnumpy(res.components).astype(np.float64), V_ref) <= tol
    np.testing.assert_allclose(cp.asnumpy(res.eigenvalues), lam_ref, rtol=tol)
    np.testing.assert_allclose(cp.asnumpy(res.mean), mu_ref, rtol=1e-9)


def test_cupy_device_input_non_finite_is_refused_with_its_row() -> None:
    import cupy as cp

    X = _data(2000, 20)
    X[1234, 7] = np.nan
    with pytest.raises(ValueError, match="row 1234 has NaN"):
        pca(cp.asarray(X), 3)

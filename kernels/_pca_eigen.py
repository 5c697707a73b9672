"""From an accumulated covariance to its top-k eigenpairs (LAPACK ``dsyevr`` on the CPU,
cuSOLVER on the GPU), always solved in float64.  Step 1 of HPSY.Thm3 / PILLAR.Alg1, second half.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np
import scipy.linalg
from semiprivate.kernels._covariance import CovarianceAccumulator

#: the top-k solver is tried from this dimension on, for k <= d / SUBSPACE_MAX_FRACTION (else full eigh)
SUBSPACE_MIN_D = 512
SUBSPACE_MAX_FRACTION = 8


def top_k_subspace(C: Any, k: int, xp: Any, *, tol: float = 1e-13, max_iter: int = 60,
                   seed: int = 0) -> tuple[Any, Any, int] | None:
    """Top-k eigenpairs of a symmetric positive semi-definite float64 matrix by subspace iteration.

    Block power iteration on ``p = k + max(8, k // 2)`` columns (a fixed Gaussian start from
    ``numpy.random.default_rng(seed)``), each step ``Q = qr(C Q)``, then every second step the
    Rayleigh-Ritz pairs of ``Q^T C Q`` (a p x p ``eigh``) and their residuals
    ``R = C U - U diag(theta)``.  Returns ``(theta, U, steps)``, descending, once every one of the
    ``k`` residual columns has norm ``<= tol * theta_1`` (the backward error of a dense ``eigh`` is
    about ``d`` times float64's epsilon relative to ``||C||``, so 1e-13 keeps its accuracy at d ~ 1000),
    or None after ``max_iter`` steps (the caller then solves with the full ``eigh``).  The
    work per step is two (d, d) x (d, p) products and a (d, p) QR, against ``O(d^3)`` for the full
    solve.  Written with ``xp`` (NumPy or CuPy) so the NumPy twin is tested against the dense solver.
    """
    d = int(C.shape[0])
    p = min(d, k + max(8, k // 2))
    Q = xp.asarray(np.random.default_rng(seed).standard_normal((d, p)))
    Q, _ = xp.linalg.qr(C @ Q)
    for step in range(1, max_iter + 1):
        CQ = C @ Q
        if step % 2 == 0:
            H = Q.T @ CQ
            theta, S = xp.linalg.eigh((H + H.T) * 0.5)
            theta, S = theta[::-1][:k], S[:, ::-1][:, :k]
            U = Q @ S
            R = CQ @ S - U * theta[None, :]
            top = float(theta[0])
            worst = float(xp.sqrt((R * R).sum(axis=0)).max())
            if top > 0 and worst <= tol * top:
                return theta.copy(), U, step
            if top <= 0:  # C = 0 (or not PSD): the dense solver decides
                return None
        Q, _ = xp.linalg.qr(CQ)
    return None


def _top_k_eigh_gpu(C: Any, k: int) -> tuple[Any, Any]:
    """Top-k eigenpairs of a symmetric CuPy matrix, descending, computed in float64.

    For ``d >= SUBSPACE_MIN_D`` and ``k <= d / SUBSPACE_MAX_FRACTION``: :func:`top_k_subspace` (GEMMs and
    a thin QR on the device); when it does not converge to its tolerance, and otherwise, cuSOLVER's
    full ``eigh``.
    """
    xp = importlib.import_module("cupy")
    C64 = C.astype(np.float64)
    d = int(C64.shape[0])
    if d >= SUBSPACE_MIN_D and k * SUBSPACE_MAX_FRACTION <= d:
        found = top_k_subspace(C64, k, xp)
        if found is not None:
            return found[0], found[1]
    w, U = xp.linalg.eigh(C64)
    return w[::-1][:k].copy(), U[:, ::-1][:, :k].copy()


def _top_k_eigh_upper(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs, descending, of the symmetric float64 Fortran-order matrix whose *upper*
    triangle is ``A``'s (the lower one is ignored; the upper one is overwritten), by LAPACK
    ``dsyevr``.

    The (d, d) solve costs ``O(d^2 k)`` next to the ``O(n d^2)`` accumulation, so it is always
    done in float64: LAPACK's float32 ``ssyevr`` alone loses about 1e-3 in the subspace at
    d=256 where the float32-accumulated covariance itself is accurate to 1e-7 (benchmarks/RESULTS.md, "PCA: sizing rules").
    """
    d = A.shape[0]
    w, U = scipy.linalg.eigh(A, lower=False, subset_by_index=[d - k, d - 1], driver="evr", overwrite_a=True, check_finite=False)
    return w[::-1].copy(), U[:, ::-1]


def _need_two(n: int) -> None:
    if n < 2:
        raise ValueError(f"X must have at least 2 rows (n >= 2), got n={n}")


def _check_total(total: float) -> None:
    if not math.isfinite(total):
        raise ValueError("the covariance of X is not finite (values too large for the accumulation dtype)")


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

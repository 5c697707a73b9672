"""From an accumulated covariance to its top-k eigenpairs (LAPACK ``dsyevr`` on the CPU,
cuSOLVER or a Chebyshev-filtered subspace iteration on the GPU), always solved in float64.  Step 1 of HPSY.Thm3 / PILLAR.Alg1, second half.
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
#: the Chebyshev filter's largest degree, and the most it may amplify the top Ritz direction over the k-th
#: (rounding in a filtered column grows by that ratio; 1e8 keeps it below 1e-8 of the column)
FILTER_MAX_DEGREE = 8
FILTER_MAX_SPREAD = 1e8


def _host(a: Any) -> np.ndarray:
    """A NumPy copy of a (small) NumPy or CuPy array."""
    get = getattr(a, "get", None)
    return np.asarray(get() if callable(get) else a)


def _cholesky_orthonormal(Y: Any, xp: Any) -> Any | None:
    """Orthonormal columns spanning ``Y`` by Cholesky QR, twice (CholQR2; the p x p Gram factored on the
    host), or None when a Gram is not numerically positive definite (the caller uses Householder QR)."""
    for _ in range(2):
        G = _host(Y.T @ Y)
        try:
            L = np.linalg.cholesky((G + G.T) * 0.5)
        except np.linalg.LinAlgError:
            return None
        Rinv = scipy.linalg.solve_triangular(L, np.eye(L.shape[0]), lower=True).T  # (L^T)^{-1}
        if not np.isfinite(Rinv).all():
            return None
        Y = Y @ xp.asarray(Rinv)
    return Y


def _chebyshev_filter(C: Any, U: Any, m: int, lo: float, hi: float) -> Any:
    """``T_m((C - c I) / e) U`` with ``c, e`` the centre and half-width of ``[lo, hi]`` (three-term recurrence)."""
    c, e = (hi + lo) / 2, (hi - lo) / 2
    prev, cur = U, (C @ U - c * U) * (1.0 / e)
    for _ in range(m - 1):
        nxt = C @ cur
        nxt -= c * cur
        nxt *= 2.0 / e
        nxt -= prev
        prev, cur = cur, nxt
    return cur


def _chebyshev_values(x: np.ndarray, m: int, lo: float, hi: float) -> np.ndarray:
    """``T_m((x - c) / e)`` for the scalars ``x`` (the filter's gain on each Ritz value)."""
    c, e = (hi + lo) / 2, (hi - lo) / 2
    t = (x - c) / e
    prev, cur = np.ones_like(t), t
    for _ in range(m - 1):
        prev, cur = cur, 2.0 * t * cur - prev
    return cur


def top_k_subspace(C: Any, k: int, xp: Any, *, tol: float = 1e-13, max_iter: int = 20,
                   seed: int = 0) -> tuple[Any, Any, int] | None:
    """Top-k eigenpairs of a symmetric positive semi-definite float64 matrix by Chebyshev-filtered
    subspace iteration (Zhou & Saad 2007), or None when it does not converge (the caller then solves
    with the full ``eigh``).

    On ``p = k + max(8, k // 2)`` columns (a fixed Gaussian start from ``numpy.random.default_rng(seed)``),
    each step is a Rayleigh-Ritz projection -- the p x p ``eigh`` of ``Q^T C Q`` on the host, Ritz pairs
    ``(theta, U = Q S)`` and residuals ``R = C U - U diag(theta)`` -- and, unless every one of the ``k``
    residual columns has norm ``<= tol * theta_1`` (then it returns ``(theta, U, steps)``, descending), a
    Chebyshev filter ``T_m`` of the interval ``[0, theta_p]`` (the unwanted end of the spectrum, damped
    below 1) applied to the Ritz vectors, each column scaled by the filter's gain on its Ritz value, and
    re-orthonormalised by Cholesky QR (Householder QR when the Gram is not numerically definite).  The
    degree ``m <= FILTER_MAX_DEGREE`` is the largest whose gain on ``theta_1`` over its gain on ``theta_k``
    stays below ``FILTER_MAX_SPREAD``: a filtered column carries the rounding of the top direction times
    that ratio.  The convergence test is the one of a dense solver's accuracy: ``||r_i|| <= 1e-13
    theta_1`` is about the backward error of ``eigh`` at d ~ 1000 (``d`` times float64's epsilon), so
    the eigenvalues are within ``tol theta_1`` and, by Davis-Kahan, the subspace within
    ``sqrt(k) tol theta_1 / gap``.

    The work per step is ``m + 1`` products ``C @ (d, p)``, a few (d, p) updates and three p x p
    host round trips, against ``O(d^3)`` for the full solve.  Written with ``xp`` (NumPy or CuPy) so the
    NumPy twin is tested against the dense solver.

    References
    ----------
    Y. Zhou, Y. Saad, "A Chebyshev-Davidson algorithm for large symmetric eigenproblems", SIAM J.
    Matrix Anal. Appl. 29(3), 2007; Y. Zhou, Y. Saad, M. L. Tiago, J. R. Chelikowsky,
    "Self-consistent-field calculations using Chebyshev-filtered subspace iteration", J. Comput.
    Phys. 219(1), 2006.
    """
    d = int(C.shape[0])
    p = min(d, k + max(8, k // 2))
    Q = xp.asarray(np.random.default_rng(seed).standard_normal((d, p)))
    Qn = _cholesky_orthonormal(Q, xp)
    Q = Qn if Qn is not None else xp.linalg.qr(Q)[0]
    for step in range(1, max_iter + 1):
        CQ = C @ Q
        H = _host(Q.T @ CQ)
        theta, S = np.linalg.eigh((H + H.T) * 0.5)
        theta, S = theta[::-1].copy(), np.ascontiguousarray(S[:, ::-1])
        top = float(theta[0])
        if not top > 0:  # C = 0 (or not PSD): the dense solver decides
            return None
        Sd = xp.asarray(S)
        U = Q @ Sd
        R = CQ @ Sd[:, :k] - U[:, :k] * xp.asarray(theta[:k])[None, :]
        worst = float(np.sqrt(_host((R * R).sum(axis=0)).max()))
        if worst <= tol * top:
            return xp.asarray(theta[:k]), U[:, :k], step
        if step == max_iter:
            break
        lo, hi = 0.0, max(float(theta[-1]), 1e-8 * top)  # the damped interval: [0, theta_p]
        m = FILTER_MAX_DEGREE
        t1, tk = (np.array([top, theta[k - 1]]) - (hi + lo) / 2) / ((hi - lo) / 2)
        if tk > 1.0:  # the gain of T_m on a value t > 1 grows as (t + sqrt(t^2 - 1))^m
            g1, gk = t1 + np.sqrt(t1 * t1 - 1.0), tk + np.sqrt(tk * tk - 1.0)
            if g1 > gk:
                m = int(min(m, max(1, np.floor(np.log(FILTER_MAX_SPREAD) / np.log(g1 / gk)))))
        Y = _chebyshev_filter(C, U, m, lo, hi)
        gain = _chebyshev_values(theta, m, lo, hi)
        Y *= xp.asarray(1.0 / np.maximum(np.abs(gain), 1.0))[None, :]  # 1 inside the damped interval
        Qn = _cholesky_orthonormal(Y, xp)
        Q = Qn if Qn is not None else xp.linalg.qr(Y)[0]
    return None


def _top_k_eigh_gpu(C: Any, k: int, xp: Any = None) -> tuple[Any, Any]:
    """Top-k eigenpairs of a symmetric CuPy matrix, descending, computed in float64.

    For ``d >= SUBSPACE_MIN_D`` and ``k <= d / SUBSPACE_MAX_FRACTION``: :func:`top_k_subspace` (GEMMs on
    the device, p x p problems on the host); when it does not converge to its tolerance, and otherwise,
    cuSOLVER's full ``eigh``.  ``xp``: the array module (default CuPy; NumPy for the CPU tests).
    """
    if xp is None:
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

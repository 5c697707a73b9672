"""Exact binomial confidence bounds and the epsilon lower bound they imply.

Implements: AUDIT (Clopper–Pearson intervals; the (epsilon, delta) inequality
``P[M(D) in E] <= e^epsilon P[M(D') in E] + delta`` turned into a lower bound).

References
----------
.. [CP34] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
   illustrated in the case of the binomial", Biometrika 26(4), 1934.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import betainccinv, betaincinv

__all__ = ["cp_lower", "cp_upper", "clopper_pearson", "epsilon_bound"]


def cp_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound: ``P(p >= lower) >= 1 - alpha``.

    ``lower = 0`` for ``k = 0``, else the ``alpha`` quantile of ``Beta(k, n - k + 1)``
    ([CP34]_).  Vectorised over ``k`` and ``n``.

    Implements: AUDIT (exact binomial interval).

    Examples
    --------
    >>> float(cp_lower(0, 10, 0.05))
    0.0
    >>> round(float(cp_lower(10, 10, 0.05)), 6)  # alpha ** (1/n)
    0.741134
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        out = betaincinv(np.maximum(k, 1.0), n - k + 1.0, alpha)
    return np.where(k <= 0, 0.0, out)


def cp_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound: ``P(p <= upper) >= 1 - alpha``.

    ``upper = 1`` for ``k = n``; ``1 - alpha ** (1/n)`` (computed as ``-expm1(log(alpha)/n)``,
    no cancellation) for ``k = 0``; else the ``1 - alpha`` quantile of ``Beta(k + 1, n - k)``
    computed through the complemented inverse so that tiny bounds keep full precision.
    The bound is never 0 for finite ``n``: no event is ever declared impossible.

    Implements: AUDIT (exact binomial interval).

    Examples
    --------
    >>> round(float(cp_upper(0, 10, 0.05)), 6)
    0.258866
    >>> float(cp_upper(5, 5, 0.05))
    1.0
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        general = betainccinv(k + 1.0, np.maximum(n - k, 1.0), alpha)
        zero = -np.expm1(math.log(alpha) / np.maximum(n, 1.0))
    return np.where(k >= n, 1.0, np.where(k <= 0, zero, general))


def clopper_pearson(k: Any, n: Any, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper–Pearson interval at the given confidence (``alpha/2`` per side).

    Implements: AUDIT.

    Examples
    --------
    >>> lo, hi = clopper_pearson(5, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.1871, 0.8129)
    """
    a = (1.0 - confidence) / 2.0
    return cp_lower(k, n, a), cp_upper(k, n, a)


def epsilon_bound(p_lower: Any, q_upper: Any, delta: float) -> np.ndarray:
    """``log((p_lower - delta) / q_upper)``, the epsilon that an event with
    ``P[M(D) in E] >= p_lower`` and ``P[M(D') in E] <= q_upper`` forces for the given delta.

    ``-inf`` when ``p_lower <= delta`` (no evidence); ``+inf`` when ``q_upper == 0`` and
    ``p_lower > delta`` (only possible with exact, non-estimated probabilities).

    Implements: AUDIT (the (epsilon, delta)-DP inequality, rearranged).

    Examples
    --------
    >>> float(epsilon_bound(0.5, 0.5 / math.e, 0.0))
    1.0
    >>> float(epsilon_bound(0.01, 0.1, 0.05))
    -inf
    """
    p = np.asarray(p_lower, dtype=np.float64) - float(delta)
    q = np.asarray(q_upper, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.maximum(p, 0.0)) - np.log(q)
    out = np.where(p <= 0, -np.inf, out)
    return np.where((q <= 0) & (p > 0), np.inf, out)

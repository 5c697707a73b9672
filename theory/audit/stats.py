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
from semiprivate.validation import DELTA, PROBABILITY

__all__ = ["cp_lower", "cp_upper", "clopper_pearson", "epsilon_bound", "beta_lower", "beta_upper"]


def _real_array(value: Any, name: str) -> np.ndarray:
    """``value`` as a float64 array (numbers, NumPy arrays, Fractions, Python ints beyond int64),
    or TypeError naming ``name``; NaN is a ValueError naming ``name``."""
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r} ({type(value).__name__})")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(
            f"{name} must be a number or an array of numbers, got {type(value).__name__}: {exc}"
        ) from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN, got {value!r}")
    return arr


def _counts(k: Any, n: Any, integer: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validated success counts ``0 <= k <= n`` and trial counts ``n >= 1`` (finite; broadcastable).

    Counts must be whole numbers unless ``integer=False`` (the Beta quantiles are defined for
    real counts; the audit's selection step plugs expected counts ``p n`` into
    :func:`beta_lower` / :func:`beta_upper`)."""
    kk, nn = _real_array(k, "k"), _real_array(n, "n")
    if not np.isfinite(nn).all() or (nn < 1).any():
        raise ValueError(f"n must be a finite number of trials >= 1, got {n!r}")
    if not np.isfinite(kk).all() or (kk < 0).any():
        raise ValueError(f"k must be a finite number of successes >= 0, got {k!r}")
    try:
        kb, nb = np.broadcast_arrays(kk, nn)
    except ValueError:
        raise ValueError(f"k and n must have broadcastable shapes, got {kk.shape} and {nn.shape}") from None
    if (kb > nb).any():
        raise ValueError(f"k must be <= n (successes cannot exceed trials), got k={k!r}, n={n!r}")
    if integer:
        for arr, name, given in ((kk, "k", k), (nn, "n", n)):
            if (arr != np.floor(arr)).any():
                raise ValueError(f"{name} must be a whole number of {'successes' if name == 'k' else 'trials'}, "
                                 f"got {given!r}")
    return kk, nn


def _level(alpha: Any, name: str = "alpha") -> float:
    return float(PROBABILITY.validate(name, alpha))


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
    >>> cp_lower(5, 3, 0.05)
    Traceback (most recent call last):
    ...
    ValueError: k must be <= n (successes cannot exceed trials), got k=5, n=3
    """
    return beta_lower(*_counts(k, n), alpha)


def beta_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    """:func:`cp_lower` for real-valued counts ``0 <= k <= n`` (the Beta quantile is defined for
    them): the audit's selection step scores expected counts ``p n`` with it."""
    k, n = _counts(k, n, integer=False)
    return _beta_lower_checked(k, n, _level(alpha))


def _beta_lower_checked(k: np.ndarray, n: Any, alpha: float) -> np.ndarray:
    """:func:`beta_lower` of counts already validated (float64 ``0 <= k <= n``, ``n >= 1``, ``alpha`` in
    (0, 1)): the same computation without the checks, for callers that validated their inputs once (the
    audit's selection scores thousands of count vectors)."""
    with np.errstate(all="ignore"):
        out = betaincinv(np.maximum(k, 1.0), n - k + 1.0, alpha)
    out = np.where(np.isnan(out), 0.0, out)  # a failed inverse at an extreme level: 0 is valid
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
    return beta_upper(*_counts(k, n), alpha)


def beta_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    """:func:`cp_upper` for real-valued counts ``0 <= k <= n`` (see :func:`beta_lower`)."""
    k, n = _counts(k, n, integer=False)
    return _beta_upper_checked(k, n, _level(alpha))


def _beta_upper_checked(k: np.ndarray, n: Any, alpha: float) -> np.ndarray:
    """:func:`beta_upper` of counts already validated (see :func:`_beta_lower_checked`)."""
    with np.errstate(all="ignore"):
        general = betainccinv(k + 1.0, np.maximum(n - k, 1.0), alpha)
        zero = -np.expm1(math.log(alpha) / np.maximum(n, 1.0))
    # at extreme levels (alpha ~ 1e-300, the p-value search) the inverse can fail (NaN): 1 is
    # then the valid, conservative upper bound
    general = np.where(np.isnan(general), 1.0, general)
    return np.where(k >= n, 1.0, np.where(k <= 0, zero, general))


def clopper_pearson(k: Any, n: Any, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper–Pearson interval at the given confidence (``alpha/2`` per side).

    ``k`` successes out of ``n`` trials (whole numbers, ``0 <= k <= n``, ``n >= 1``, broadcastable
    arrays; a fractional count is a ValueError naming it);
    ``confidence`` in (0, 1).

    Implements: AUDIT.

    Examples
    --------
    >>> lo, hi = clopper_pearson(5, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.1871, 0.8129)
    """
    a = (1.0 - _level(confidence, "confidence")) / 2.0
    return cp_lower(k, n, a), cp_upper(k, n, a)


def epsilon_bound(p_lower: Any, q_upper: Any, delta: float) -> np.ndarray:
    """``log((p_lower - delta) / q_upper)``, the epsilon that an event with
    ``P[M(D) in E] >= p_lower`` and ``P[M(D') in E] <= q_upper`` forces for the given delta.

    ``-inf`` when ``p_lower <= delta`` (no evidence); ``+inf`` when ``q_upper == 0`` and
    ``p_lower > delta`` (only possible with exact, non-estimated probabilities).
    ``p_lower`` and ``q_upper`` are probabilities in [0, 1] (broadcastable arrays), ``delta``
    in [0, 1); anything else is a ValueError naming the parameter.

    Implements: AUDIT (the (epsilon, delta)-DP inequality, rearranged).

    Examples
    --------
    >>> float(epsilon_bound(0.5, 0.5 / math.e, 0.0))
    1.0
    >>> float(epsilon_bound(0.01, 0.1, 0.05))
    -inf
    """
    dl = float(DELTA.validate("delta", delta))
    p0, q = _real_array(p_lower, "p_lower"), _real_array(q_upper, "q_upper")
    for arr, name, given in ((p0, "p_lower", p_lower), (q, "q_upper", q_upper)):
        if ((arr < 0) | (arr > 1)).any():
            raise ValueError(f"{name} must be a probability in [0, 1], got {given!r}")
    try:
        np.broadcast_shapes(p0.shape, q.shape)
    except ValueError:
        raise ValueError(f"p_lower and q_upper must have broadcastable shapes, got {p0.shape} and {q.shape}") from None
    return _epsilon_bound_checked(p0, q, dl)


def _epsilon_bound_checked(p_lower: np.ndarray, q_upper: np.ndarray, delta: float) -> np.ndarray:
    """:func:`epsilon_bound` of probabilities already validated (float64 arrays in [0, 1], broadcastable;
    ``delta`` in [0, 1)): the same computation without the checks."""
    q = q_upper
    p = p_lower - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.maximum(p, 0.0)) - np.log(q)
    out = np.where(p <= 0, -np.inf, out)
    return np.where((q <= 0) & (p > 0), np.inf, out)

"""Exact privacy loss of mechanisms whose output distributions can be computed.

For two output distributions ``P = M(D)`` and ``Q = M(D')`` on a finite (or truncated)
output set:

* pure epsilon: ``max_o |log P(o) - log Q(o)|`` (``inf`` when one side puts mass where the
  other has none);
* ``delta(epsilon) = max(H_eps(P || Q), H_eps(Q || P))`` with the hockey-stick divergence
  ``H_eps(P || Q) = sum_o max(0, P(o) - e^eps Q(o))``: the mechanism is (epsilon, delta)-DP
  on this pair iff ``delta >= delta(epsilon)``.

Implements: AUDIT (exact-ratio checks).

References
----------
.. [BBG18] B. Balle, G. Barthe, M. Gaboardi, "Privacy amplification by subsampling: tight
   analyses via couplings and divergences", NeurIPS 2018 (hockey-stick divergence and DP).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.validation import DELTA, Boolean, Real, validate_params

__all__ = ["ExactPrivacyLoss", "exact_privacy_loss", "hockey_stick"]


def _as_log(p: Any, log: bool, name: str) -> np.ndarray:
    if p is None or isinstance(p, (str, bytes)):
        raise TypeError(f"{name} must be a vector of probabilities, got {type(p).__name__}")
    try:
        arr = np.asarray(p, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a vector of probabilities, got {type(p).__name__}: {exc}") from None
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if log:
        if np.any(np.isnan(arr)) or np.any(arr == np.inf):
            raise ValueError(f"{name} must be log-probabilities (no NaN or +inf)")
        lp = arr
    else:
        if np.any(~np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name} must be finite non-negative probabilities")
        with np.errstate(divide="ignore"):
            lp = np.log(arr)
    total = float(np.exp(lp).sum())
    if total > 1 + 1e-9:
        raise ValueError(f"{name} sums to {total} > 1")
    return lp


def _hs(lp: np.ndarray, lq: np.ndarray, eps: float) -> float:
    """sum_o max(0, P(o) - e^eps Q(o)), computed as P(o) * -expm1(eps + lq - lp)."""
    mask = lp > eps + lq
    if not np.any(mask):
        return 0.0
    a, b = lp[mask], lq[mask]
    with np.errstate(invalid="ignore"):
        terms = np.exp(a) * -np.expm1(eps + b - a)
    terms = np.where(np.isneginf(b), np.exp(a), terms)
    return float(np.sum(terms))


@validate_params(epsilon=Real(0.0, math.inf, closed="left"), log=Boolean())
def hockey_stick(p: Any, q: Any, epsilon: float, *, log: bool = False) -> float:
    """Hockey-stick divergence ``H_eps(P || Q) = sum max(0, P - e^eps Q)`` ([BBG18]_).

    Implements: AUDIT.

    Examples
    --------
    >>> hockey_stick([0.5, 0.5], [0.25, 0.75], 0.0)
    0.25
    """
    lp, lq = _as_log(p, log, "p"), _as_log(q, log, "q")
    if lp.shape != lq.shape:  # no silent broadcast of a length-1 q against p
        raise ValueError(f"p and q must have the same length (one entry per output), got {lp.size} and {lq.size}")
    return _hs(lp, lq, float(epsilon))


@dataclass
class ExactPrivacyLoss:
    """Exact privacy loss between two output distributions (see :func:`exact_privacy_loss`)."""

    epsilon: float  # max |log P/Q| over outputs (inf on support mismatch)
    argmax: int  # output index where it is attained
    direction: str  # "P/Q" or "Q/P"
    log_p: np.ndarray
    log_q: np.ndarray

    def delta(self, epsilon: float) -> float:
        """``max(H_eps(P||Q), H_eps(Q||P))``: the smallest delta for this epsilon on this pair."""
        e = float(epsilon)
        if not e >= 0:
            raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
        return max(_hs(self.log_p, self.log_q, e), _hs(self.log_q, self.log_p, e))

    def epsilon_for(self, delta: float) -> float:
        """Smallest epsilon >= 0 with ``delta(epsilon) <= delta`` (``inf`` if none)."""
        d = float(DELTA.validate("delta", delta))
        if self.delta(0.0) <= d:
            return 0.0
        finite = np.isfinite(self.log_p) & np.isfinite(self.log_q)
        hi = float(np.max(np.abs(self.log_p[finite] - self.log_q[finite]))) if np.any(finite) else 0.0
        if self.delta(hi) > d:
            return math.inf
        lo = 0.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if self.delta(mid) <= d:
                hi = mid
            else:
                lo = mid
            if hi - lo <= 1e-13 * max(1.0, hi):
                break
        return hi


@validate_params(log=Boolean())
def exact_privacy_loss(p: Any, q: Any, *, log: bool = False) -> ExactPrivacyLoss:
    """Exact privacy loss between ``P = M(D)`` and ``Q = M(D')`` given as probability vectors
    over the same outputs (or log-probabilities with ``log=True``).

    Returns the max log ratio over outputs and both directions (``epsilon``; ``inf`` on a
    support mismatch), with ``.delta(eps)`` (hockey-stick, both directions) and
    ``.epsilon_for(delta)``.  A mechanism claims (epsilon, delta)-DP correctly on this pair
    iff ``loss.delta(epsilon) <= delta``.

    Implements: AUDIT (exact-ratio check).

    Examples
    --------
    >>> import math
    >>> e = math.log(3)
    >>> loss = exact_privacy_loss([0.75, 0.25], [0.25, 0.75])  # randomized response, eps = log 3
    >>> bool(abs(loss.epsilon - e) < 1e-12), loss.delta(e)
    (True, 0.0)
    >>> round(loss.delta(0.0), 6)
    0.5
    >>> exact_privacy_loss([1.0, 0.0], [0.5, 0.5]).epsilon
    inf
    """
    lp = _as_log(p, log, "p")
    lq = _as_log(q, log, "q")
    if lp.shape != lq.shape:
        raise ValueError(f"p and q must have the same length, got {lp.size} and {lq.size}")
    with np.errstate(invalid="ignore"):
        r = lp - lq
    r = np.where(np.isneginf(lp) & np.isneginf(lq), 0.0, r)
    fwd = int(np.argmax(r))
    bwd = int(np.argmax(-r))
    if r[fwd] >= -r[bwd]:
        return ExactPrivacyLoss(float(r[fwd]), fwd, "P/Q", lp, lq)
    return ExactPrivacyLoss(float(-r[bwd]), bwd, "Q/P", lp, lq)

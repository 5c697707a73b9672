"""Rényi-DP testing of order ``alpha`` from an audit's counts (data processing onto one event).

Implements: AUDIT (Rényi-DP lower bound; Mironov 2017 [Mir17]_ Def. 4: a mechanism is
``(alpha, eps_R)``-RDP when ``D_alpha(M(A) || M(B)) <= eps_R`` for every neighbouring ``A``, ``B``).

Post-processing cannot increase a Rényi divergence, so for every event ``E`` (the coarsening of an output
to ``1{x in E}``) ``D_alpha(M(A) || M(B)) >= d_alpha(P, Q)``, the divergence of the two Bernoulli laws,

    ``d_alpha(P, Q) = log(P^alpha Q^(1 - alpha) + (1 - P)^alpha (1 - Q)^(1 - alpha)) / (alpha - 1)``,

with ``P = P[M(A) in E]``, ``Q = P[M(B) in E]``.  For ``alpha > 1`` the sum inside the log is convex in ``P``
with its minimum at ``P = Q``, and convex in ``Q`` with its minimum at ``Q = P``, so ``d_alpha`` increases in ``P``
on ``P > Q`` and decreases in ``Q`` on ``Q < P``: on a confidence rectangle ``[p_lo, p_hi] x [q_lo, q_hi]`` with
``p_lo > q_hi`` its smallest value is at the corner ``(p_lo, q_hi)``, and it is 0 when the rectangle meets the
diagonal.  :func:`renyi_lower_bound` takes the kept one-direction tests of an
audit (fixed before its estimation outputs), one-sided Clopper–Pearson bounds ``p_lo``, ``q_hi`` at level
``(1 - confidence) / (2 K)`` each (``K`` such tests; a union bound over the ``2 K`` intervals, conditionally on
the batch sizes, so Poisson-sized batches are covered), and returns the largest corner value: with
probability ``>= confidence`` it is at most ``D_alpha`` of the mechanism on that pair, so a claimed ``eps_R``
below it is refuted.  Pooled tests count two inputs' outputs together and are not used here.

The bound is tight when one event carries the whole divergence (binary outputs: randomized response) and
loose otherwise (an event keeps only part of a continuous law's divergence).

References
----------
.. [Mir17] I. Mironov, "Rényi differential privacy", IEEE CSF 2017.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from semiprivate.theory.audit.pooled import PooledEvent
from semiprivate.theory.audit.result import AuditResult, Witness
from semiprivate.theory.audit.stats import cp_lower, cp_upper
from semiprivate.validation import Real, validate_params

__all__ = ["RenyiBound", "bernoulli_renyi", "renyi_lower_bound"]


@validate_params(order=Real(1.0, math.inf, closed="neither"))
def bernoulli_renyi(p: float, q: float, order: float) -> float:
    """``D_order(Bernoulli(p) || Bernoulli(q))`` in nats (``inf`` where ``q`` is 0 or 1 and ``p`` is not).

    >>> round(bernoulli_renyi(0.75, 0.25, 2.0), 6)  # log(0.75^2 / 0.25 + 0.25^2 / 0.75)
    0.847298
    >>> bernoulli_renyi(0.3, 0.3, 5.0)
    0.0
    """
    for name, v in (("p", p), ("q", q)):
        if not (isinstance(v, (int, float, np.floating, np.integer)) and 0.0 <= float(v) <= 1.0):
            raise ValueError(f"{name} must be a probability in [0, 1], got {v!r}")
    p, q, a = float(p), float(q), float(order)
    terms = []
    for x, y in ((p, q), (1.0 - p, 1.0 - q)):
        if x == 0.0:
            continue
        if y == 0.0:
            return math.inf
        terms.append(a * math.log(x) + (1.0 - a) * math.log(y))
    top = max(terms)
    return max(0.0, (top + math.log(sum(math.exp(t - top) for t in terms))) / (a - 1.0))


@dataclass
class RenyiBound:
    """A lower bound on the Rényi divergence of order ``order`` between the outputs on one neighbouring pair.

    ``bound`` holds with probability ``>= confidence``; ``witness`` is the test behind it (``None`` when no
    one-direction test gave evidence: ``bound`` is then 0), ``p_lo`` and ``q_hi`` the corner it is taken at.
    """

    order: float
    bound: float
    confidence: float
    witness: Witness | None
    p_lo: float
    q_hi: float

    def refutes(self, epsilon_rdp: float) -> bool:
        """Whether the claim ``(order, epsilon_rdp)``-RDP is refuted at ``confidence``."""
        return self.bound > float(epsilon_rdp)


@validate_params(order=Real(1.0, math.inf, closed="neither"))
def renyi_lower_bound(result: AuditResult, order: float) -> RenyiBound:
    """The largest valid lower bound on ``D_order(M(A) || M(B))`` over ``result``'s one-direction tests
    (module docstring), at the audit's confidence.

    Examples
    --------
    >>> from semiprivate.theory.audit import audit_pairs
    >>> from semiprivate.theory.privacy.mechanisms import RandomizedResponse
    >>> res = audit_pairs(RandomizedResponse(1.0), [(0, 1)], epsilon=1.0, trials=200_000, rng=0)
    >>> rb = renyi_lower_bound(res, 2.0)  # the true D_2 is 0.7353
    >>> bool(0.7 < rb.bound <= 0.7353), rb.refutes(0.5), rb.refutes(0.8)
    (True, True, False)
    """
    if not isinstance(result, AuditResult):
        raise TypeError(f"result must be an AuditResult, got {type(result).__name__}")
    tests = [w for w in result.tests if not isinstance(w.event, PooledEvent)]
    conf = float(result.confidence)
    best = RenyiBound(float(order), 0.0, conf, None, math.nan, math.nan)
    if not tests:
        return best
    a = (1.0 - conf) / (2 * len(tests))
    for w in tests:
        kn, ko, n = w.counts
        n_a, n_b = w.trials if w.trials is not None else (n, n)
        p_lo = float(cp_lower(kn, max(n_a, 1), a))
        q_hi = float(cp_upper(ko, max(n_b, 1), a))
        d = bernoulli_renyi(p_lo, q_hi, order) if p_lo > q_hi else 0.0
        if d > best.bound:
            best = RenyiBound(float(order), d, conf, w, p_lo, q_hi)
    return best

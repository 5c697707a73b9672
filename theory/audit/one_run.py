"""Privacy auditing in one run: m canaries, each included with probability 1/2, and a lower bound on epsilon.

Implements: AUDIT (one-run auditing; Steinke, Nasr, Jagielski, "Privacy auditing with one (1) training
run", NeurIPS 2023, arXiv 2305.08846, [SNJ23]).

The experiment.  Each of ``m`` canaries is included in the input independently with probability 1/2
(``S_i = +1``) or left out (``S_i = -1``); the mechanism runs *once*; from its output the auditor
computes a score per canary and guesses ``T_i in {-1, 0, +1}`` (``0``: abstain), ``r`` guesses in
all, ``v`` of them right (``T_i = S_i``).  The guesses may depend on the output only.

The theorem ([SNJ23], main theorem: the (epsilon, delta) form; for delta = 0 it says that ``v`` is
stochastically dominated by ``Binomial(r, e^eps / (1 + e^eps))``, the accuracy of randomized
response): if the mechanism is (epsilon, delta)-DP with respect to adding or removing one canary,
then for every ``v``

    P[W >= v] <= f(v) + 2 m delta max_{1 <= i <= v} (f(v - i) - f(v)) / i,
    f(u) = P[Binomial(r, e^eps / (1 + e^eps)) >= u],

so :func:`one_run_p_value` is a valid p-value for the claim "(epsilon, delta)-DP" and
:func:`one_run_epsilon_bound` the largest epsilon that the claim's p-value rejects at level
``1 - confidence``: with probability ``>= confidence`` the mechanism is not (eps', delta)-DP for any
eps' below it.  The binomial tails are computed exactly (SciPy's regularised incomplete beta; the
difference ``f(v - i) - f(v)`` as a sum of point masses, not a difference of tails).

:func:`one_run_guesses` makes the guesses from scores: ``+1`` for the ``k_plus`` highest, ``-1`` for
the ``k_minus`` lowest, abstain elsewhere.  :func:`one_run_audit` runs the whole analysis; with several
``(k_plus, k_minus)`` choices it splits ``1 - confidence`` evenly over them (Bonferroni), so picking
the best after seeing the scores keeps the stated confidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import binom
from semiprivate.validation import DELTA, Integer, Real, check_array, validate_params

__all__ = ["one_run_p_value", "one_run_epsilon_bound", "one_run_guesses", "one_run_audit", "OneRunAudit"]


def _check_counts(m: int, r: int, v: int) -> None:
    if not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= v <= r <= m (correct guesses, guesses, canaries), got v={v}, r={r}, m={m}")


@validate_params(m=Integer(1), r=Integer(0), v=Integer(0), epsilon=Real(0.0, math.inf, closed="left"), delta=DELTA)
def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """Upper bound on ``P[W >= v]`` for an (epsilon, delta)-DP mechanism ([SNJ23], see the module docstring).

    ``m`` canaries, ``r`` guesses, ``v`` correct.  A p-value for the claim: small means the claim is refuted.

    Examples
    --------
    >>> round(one_run_p_value(1000, 100, 100, 1.0, 0.0), 6)  # 100 right of 100 at eps 1: (e/(1+e))^100
    0.0
    >>> round(one_run_p_value(1000, 100, 60, 1.0, 0.0), 4)  # 60 of 100 is no evidence against eps 1
    1.0
    """
    m, r, v = int(m), int(r), int(v)
    _check_counts(m, r, v)
    q = 1.0 / (1.0 + math.exp(-float(epsilon)))  # e^eps / (1 + e^eps)
    tail = float(binom.sf(v - 1, r, q))  # P[Binomial(r, q) >= v]
    extra = _delta_term(r, v, q) if delta > 0 and v > 0 else 0.0
    return min(1.0, tail + 2.0 * m * float(delta) * extra)


#: the masses P[B = u] are summed down to ``mode - _WINDOW_SD`` standard deviations; below, their total
#: (at most about e^(-_WINDOW_SD^2 / 2)) enters as a bound
_WINDOW_SD = 40.0
#: the most binomial masses the delta term sums (2^25 float64: 256 MiB); more is refused
_MAX_MASSES = 2**25


def _delta_term(r: int, v: int, q: float) -> float:
    """An upper bound, tight to rounding, on ``max_{1 <= i <= v} P[v - i <= B < v] / i``, B ~ Binomial(r, q).

    The masses ``P[B = v - i]`` are summed (no difference of tails).  Only ``u = v - i`` down to ``lo``,
    about 40 standard deviations below the mode, are summed one by one; for every larger ``i`` the
    ratio is at most ``(S + P[B < lo]) / (i_lo + 1)``, where ``S`` is the window's sum and ``i_lo`` its
    length, and that bound joins the maximum (so truncating errs on the valid side)."""
    lo = max(0, math.floor(r * q - _WINDOW_SD * math.sqrt(r * q * (1 - q)) - 1))
    if lo >= v:
        lo = 0
    if v - lo > _MAX_MASSES:  # refused before allocating: one float64 per mass
        raise ValueError(f"r: with delta > 0, r = {r} guesses and v = {v} correct need {v - lo:.3g} binomial masses "
                         f"for the delta term (at most {_MAX_MASSES:.3g} are summed); use fewer guesses or delta=0")
    masses = binom.pmf(np.arange(v - 1, lo - 1, -1), r, q)  # P[B = v-1], ..., P[B = lo]
    sums = np.cumsum(masses)
    best = float(np.max(sums / np.arange(1, sums.size + 1)))
    if lo > 0:
        best = max(best, (float(sums[-1]) + float(binom.cdf(lo - 1, r, q))) / (sums.size + 1))
    return best


@validate_params(m=Integer(1), r=Integer(0), v=Integer(0), delta=DELTA, confidence=Real(0.0, 1.0, closed="neither"))
def one_run_epsilon_bound(m: int, r: int, v: int, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Largest epsilon whose claim :func:`one_run_p_value` rejects at level ``1 - confidence`` (0 if none).

    Bisection on epsilon (the p-value increases with epsilon) to an absolute accuracy of 1e-9,
    returning the lower end, so the bound errs on the valid side.

    Examples
    --------
    >>> round(one_run_epsilon_bound(1000, 100, 100, 0.0, 0.95), 3)  # q = 0.05 ** (1/100), eps = log(q / (1 - q))
    3.49
    >>> one_run_epsilon_bound(1000, 100, 50)
    0.0
    """
    m, r, v = int(m), int(r), int(v)
    _check_counts(m, r, v)
    beta = 1.0 - float(confidence)

    def rejects(eps: float) -> bool:
        return one_run_p_value(m, r, v, eps, delta) < beta

    if r == 0 or not rejects(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejects(hi):
        lo, hi = hi, 2 * hi
        if hi > 1e4:
            return lo
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        if rejects(mid):
            lo = mid
        else:
            hi = mid
    return lo


def one_run_guesses(scores: Any, k_plus: int, k_minus: int = 0) -> np.ndarray:
    """Guesses ``+1`` for the ``k_plus`` highest scores, ``-1`` for the ``k_minus`` lowest, 0 elsewhere.

    Ties are broken by position (stable sort), a fixed rule that does not look at the canaries' membership.

    >>> one_run_guesses([0.3, 2.0, -1.0, 0.1], 1, 1).tolist()
    [0, 1, -1, 0]
    """
    s = np.asarray(check_array(scores, "scores", ndim=1, dtype_kinds="biuf"), dtype=np.float64)
    for name, k in (("k_plus", k_plus), ("k_minus", k_minus)):
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {k!r}")
    if k_plus + k_minus > s.size:
        raise ValueError(f"k_plus + k_minus must be <= the number of canaries {s.size}, got {k_plus} + {k_minus}")
    order = np.argsort(-s, kind="stable")
    out = np.zeros(s.size, dtype=np.int64)
    out[order[:k_plus]] = 1
    if k_minus:
        out[order[s.size - k_minus:]] = -1
    return out


@dataclass
class OneRunAudit:
    """Result of :func:`one_run_audit`: the bound and the guesses behind it."""

    epsilon_lower_bound: float
    m: int
    guesses: int  # r
    correct: int  # v
    k_plus: int
    k_minus: int
    delta: float
    confidence: float
    n_choices: int  # Bonferroni factor over the (k_plus, k_minus) choices

    def describe(self) -> str:
        return (f"one-run audit: {self.correct}/{self.guesses} guesses right among m = {self.m} canaries "
                f"(top {self.k_plus}, bottom {self.k_minus}; best of {self.n_choices} choices) -> epsilon >= "
                f"{self.epsilon_lower_bound:.4f} at delta {self.delta:g}, confidence {self.confidence:g}")


def _guess_counts(choice: Any, m: int) -> tuple[int, int]:
    """One entry of ``one_run_audit``'s ``choices`` as ``(k_plus, k_minus)``: a pair of whole numbers (ints,
    not bools or floats) with ``0 <= k_plus + k_minus <= m``, or a TypeError / ValueError naming ``choices``."""
    if isinstance(choice, (str, bytes)) or not hasattr(choice, "__len__") or len(choice) != 2:
        raise ValueError(f"choices must hold (k_plus, k_minus) pairs, got {choice!r:.60}")
    if not all(isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) for k in choice):
        raise TypeError(f"choices must hold (k_plus, k_minus) pairs of ints, got {choice!r:.60}")
    kp, km = int(choice[0]), int(choice[1])
    if kp < 0 or km < 0 or kp + km > m:
        raise ValueError(f"choices must hold (k_plus, k_minus) with 0 <= k_plus + k_minus <= {m}, got ({kp}, {km})")
    return kp, km


def one_run_audit(scores: Any, included: Any, *, delta: float = 0.0, confidence: float = 0.95,
                  choices: Sequence[tuple[int, int]] | None = None) -> OneRunAudit:
    """Lower bound on epsilon from one run: canary ``scores`` (higher: more likely included) and the truth.

    ``included``: bool per canary (which were put in; each with probability 1/2, independently, before the
    run).  ``choices``: ``(k_plus, k_minus)`` guess counts to try (default: ``k_plus = k_minus = k`` for
    ``k`` in m/100, m/50, m/20, m/10, m/4, m/2 (at least 1)); each is tested at level
    ``(1 - confidence) / len(choices)``, and the best bound is reported.

    Implements: AUDIT (one-run auditing, [SNJ23]).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> inc = rng.random(2000) < 0.5
    >>> res = one_run_audit(inc * 3.0 + rng.normal(size=2000), inc)  # a strong signal: far from private
    >>> res.epsilon_lower_bound > 2
    True
    """
    s = np.asarray(check_array(scores, "scores", ndim=1, dtype_kinds="biuf"), dtype=np.float64)
    inc = np.asarray(included)
    if inc.dtype.kind != "b" or inc.shape != s.shape:
        raise ValueError(f"included must be a bool array of the scores' shape {s.shape}, got {inc.dtype} {inc.shape}")
    dl = float(DELTA.validate("delta", delta))
    conf = float(Real(0.0, 1.0, closed="neither").validate("confidence", confidence))
    m = s.size
    if choices is None:
        ks = sorted({max(1, m // d) for d in (100, 50, 20, 10, 4)} | {m // 2})
        choices = [(k, k) for k in ks if 2 * k <= m]
    if isinstance(choices, (str, bytes)) or not isinstance(choices, (list, tuple, np.ndarray)):
        raise TypeError(f"choices must be a list of (k_plus, k_minus) pairs, got {type(choices).__name__}")
    choices = [_guess_counts(c, m) for c in choices]
    if not choices:
        raise ValueError("choices must name at least one (k_plus, k_minus)")
    level = conf if len(choices) == 1 else 1.0 - (1.0 - conf) / len(choices)
    # one sort serves every choice: the guesses of one_run_guesses(s, kp, km) are the first kp and last km
    # positions of this order; cumulative counts of included canaries give the right guesses
    inc_sorted = inc[np.argsort(-s, kind="stable")]
    in_top = np.r_[0, np.cumsum(inc_sorted)]  # in_top[k]: included among the k highest
    out_bottom = np.r_[0, np.cumsum(~inc_sorted[::-1])]  # out_bottom[k]: left out among the k lowest
    best: OneRunAudit | None = None
    for kp, km in choices:
        r = kp + km
        v = int(in_top[kp]) + int(out_bottom[km])
        eps = one_run_epsilon_bound(m, r, v, dl, level)
        if best is None or eps > best.epsilon_lower_bound:
            best = OneRunAudit(eps, m, r, v, kp, km, dl, conf, len(choices))
    assert best is not None
    return best

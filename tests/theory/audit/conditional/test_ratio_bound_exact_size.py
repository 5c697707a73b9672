"""The conditional ratio bound's exact size on Poisson counts, its duality with the p-value, and its gain.

The size is computed, not simulated: for independent ``k_A ~ Poisson(mu_A)``, ``k_B ~ Poisson(mu_B)``
with ``mu_A / mu_B = e^eps`` (a tight claim), the probability that ``ratio_epsilon_bound(k_A, k_B, alpha)``
exceeds ``eps`` is the sum over ``T = k_A + k_B`` of ``Poisson(T; mu_A + mu_B)`` times the binomial
mass of the ``k_A`` whose bound exceeds ``eps`` (``k_A | T ~ Binomial(T, e^eps / (1 + e^eps))``), up
to a ``T`` whose remaining Poisson mass is below 1e-12; the rejecting ``k_A`` of each ``T`` are a tail
``k_A >= k*(T)`` found by bisection (checked against every count on three cases).  The module's claim is that this is ``<= alpha``
for every ``mu``; the same computation on a broken bound (level ``2 alpha``) exceeds ``alpha``, so the
check has the power to fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, poisson
from semiprivate.theory.audit.conditional import ratio_epsilon_bound, ratio_p_value
from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound


def _size_every_count(bound: object, mu_total: float, eps: float, alpha: float) -> float:
    """P[bound(k_A, k_B, alpha) > eps] under the tight Poisson law with mean ``mu_total`` in all: every
    ``(T, k_A)`` evaluated (the reference for :func:`_size`)."""
    r = 1.0 / (1.0 + math.exp(-eps))
    t_max = int(poisson.isf(1e-12, mu_total)) + 1
    total = 0.0
    for t in range(t_max + 1):
        k = np.arange(t + 1)
        rejects = bound(k, t - k, alpha) > eps  # type: ignore[operator]
        if rejects.any():
            total += poisson.pmf(t, mu_total) * float(binom.pmf(k[rejects], t, r).sum())
    return total


def _size(bound: object, mu_total: float, eps: float, alpha: float) -> float:
    """:func:`_size_every_count` through each ``T``'s smallest rejecting ``k_A``: a lower confidence bound
    grows with the successes at a fixed number of trials, so ``{k_A : bound > eps}`` is ``{k_A >= k*(T)}``;
    ``k*(T)`` is found by bisection, for every ``T`` at once (about ``log2 T`` evaluations of the bound
    instead of ``T``), and the size is the Poisson mixture of the binomial tails ``P[k_A >= k*(T)]``.
    The ``T`` below the 1e-16 quantile are left out (their mass, < 1e-16, is far below the tolerance)."""
    r = 1.0 / (1.0 + math.exp(-eps))
    t = np.arange(int(poisson.ppf(1e-16, mu_total)), int(poisson.isf(1e-12, mu_total)) + 2)
    lo, hi = np.zeros_like(t), t + 1  # k* in [lo, hi]; hi = t + 1: no k_A rejects
    while (lo < hi).any():
        mid = (lo + hi) // 2
        rejects = (bound(mid, t - np.minimum(mid, t), alpha) > eps) & (mid <= t)  # type: ignore[operator]
        hi, lo = np.where(rejects, mid, hi), np.where(rejects | (lo >= hi), lo, mid + 1)
    return float(np.sum(poisson.pmf(t, mu_total) * binom.sf(lo - 1, t, r)))


def test_bisection_size_is_the_size_over_every_count() -> None:
    for mu_total, eps, alpha in [(3.0, 0.0, 0.1), (30.0, 1.0, 0.01), (100.0, 0.1, 0.1)]:
        assert _size(ratio_epsilon_bound, mu_total, eps, alpha) == pytest.approx(
            _size_every_count(ratio_epsilon_bound, mu_total, eps, alpha), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("mu_total", [3.0, 30.0, 300.0, 1500.0])
@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("alpha", [0.1, 0.01])
def test_size_is_at_most_alpha_on_tight_poisson_counts(mu_total: float, eps: float, alpha: float) -> None:
    size = _size(ratio_epsilon_bound, mu_total, eps, alpha)
    assert size <= alpha + 1e-12, f"size {size:.6g} > alpha {alpha} at mu {mu_total}, eps {eps}"
    if mu_total >= 300:  # not trivially conservative: the discreteness costs little with many counts
        assert size >= 0.6 * alpha, f"size {size:.6g} far below alpha {alpha}"


def test_the_size_check_catches_a_bound_at_twice_the_level() -> None:
    def broken(kn: np.ndarray, ko: np.ndarray, alpha: float) -> np.ndarray:
        return ratio_epsilon_bound(kn, ko, 2 * alpha)

    assert _size(broken, 300.0, 0.1, 0.1) > 0.1


def test_p_value_is_below_alpha_exactly_when_the_bound_exceeds_the_claim() -> None:
    kn, ko = np.meshgrid(np.arange(0, 120), np.arange(0, 120))
    kn, ko = kn.ravel(), ko.ravel()
    for eps in (0.0, 0.1, 0.7):
        for alpha in (0.1, 0.05, 1e-3):
            p = ratio_p_value(kn, ko, eps)
            b = ratio_epsilon_bound(kn, ko, alpha)
            # away from exact ties (a p-value equal to alpha to 1e-9 relative), the two tests agree
            clear = np.abs(p - alpha) > 1e-9 * alpha
            assert np.array_equal((p < alpha)[clear], (b > eps)[clear])


def test_p_value_is_the_binomial_tail() -> None:
    for kn, ko, eps in [(60, 40, 0.0), (60, 40, 0.1), (5, 0, 0.3), (0, 7, 0.1), (1000, 800, 0.2), (1, 3, 0.0),
                        (1, 0, 0.5), (1, 0, 800.0)]:
        r = 1.0 / (1.0 + math.exp(-eps))
        want = 1.0 if kn == 0 else float(binom.sf(kn - 1, kn + ko, r))
        assert float(ratio_p_value(kn, ko, eps)) == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_edge_counts() -> None:
    assert float(ratio_epsilon_bound(0, 0, 0.05)) == -math.inf
    assert float(ratio_epsilon_bound(0, 5, 0.05)) == -math.inf  # r_lower = 0
    only_a = float(ratio_epsilon_bound(10, 0, 0.05))  # r_lower = 0.05 ** (1/10): finite, grows with the count
    assert only_a == pytest.approx(math.log(0.05 ** 0.1 / (1 - 0.05 ** 0.1)))
    assert float(ratio_epsilon_bound(100, 0, 0.05)) > only_a
    # one count in all: r_lower = alpha ** (1/1) of one trial
    assert float(ratio_epsilon_bound(1, 0, 0.05)) == pytest.approx(math.log(0.05 / 0.95))
    assert float(ratio_epsilon_bound([1, 0], [0, 1], 0.05)[1]) == -math.inf


def test_closer_to_the_true_ratio_than_the_clopper_pearson_rectangle() -> None:
    """At the same confidence and counts (n = 10^6 per side, true log ratio log 2): rare events gain
    44% of the distance (0.090 -> 0.050), events of probability 1/2 30% (0.0045 -> 0.0031)."""
    n = 1_000_000
    for kn, ko, gain in [(2_000, 1_000, 0.4), (500_000, 250_000, 0.1)]:
        rect = float(epsilon_bound(cp_lower(kn, n, 0.05), cp_upper(ko, n, 0.05), 0.0))
        cond = float(ratio_epsilon_bound(kn, ko, 0.1))
        truth = math.log(kn / ko)
        assert cond > rect and truth - cond < (1 - gain) * (truth - rect), (kn, ko, rect, cond)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: ratio_epsilon_bound(-1, 2, 0.1), r"k_num must be whole event counts >= 0, got -1"),
    (lambda: ratio_epsilon_bound(1, 2.5, 0.1), r"k_other must be whole event counts >= 0, got 2.5"),
    (lambda: ratio_epsilon_bound([1, 2], [1, 2, 3], 0.1),
     r"^k_num and k_other must have broadcastable shapes, got \(2,\) and \(3,\)$"),
    (lambda: ratio_epsilon_bound(1, 2, 1.5), r"^alpha must be in \(0, 1\), got 1.5$"),
    (lambda: ratio_p_value(1, 2, -0.1), r"epsilon"),
    (lambda: ratio_p_value(float("nan"), 2, 0.1), r"k_num must not be NaN"),
])
def test_bad_counts_and_levels_are_refused(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]

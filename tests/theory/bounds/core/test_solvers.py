"""Solver round trips: the returned n satisfies the stated inequality and n - 1 does not.

Exact integer searches (exponential search + bisection, log space) are checked against the
inequality itself, not against the solver's own code path, and against closed forms where
they exist.  Deterministic (hypothesis draws only).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from semiprivate.theory.bounds._core import ceil_int, near_integer, smallest_integer
from semiprivate.theory.bounds.abm19 import (
    abm19_cover_log_failure_probability,
    abm19_public_lower_bound,
    abm19_public_sample_size,
)
from semiprivate.theory.bounds.bns15 import (
    bns15_labelboost_max_unlabeled,
    bns15_labelboost_min_labeled,
    expmech_log_failure_probability,
    expmech_sample_size,
)
from semiprivate.theory.bounds.pillar import bst14_excess_risk_explicit, bst14_sample_size
from semiprivate.theory.validity import ConditionNotMet

alphas = st.floats(0.005, 0.5)
betas = st.floats(1e-6, 0.5)


@given(st.integers(1, 200), st.integers(0, 10**6))
def test_smallest_integer_on_a_threshold(lo: int, threshold: int) -> None:
    n = smallest_integer(lambda k: k >= threshold, lo)
    assert n == max(lo, threshold)


def test_smallest_integer_gives_up_past_the_limit() -> None:
    with pytest.raises(ValueError, match="no integer"):
        smallest_integer(lambda k: False, 1, limit=1000)


@given(st.integers(1, 60), alphas, betas)
def test_abm19_public_sample_size_round_trip(d: int, alpha: float, beta: float) -> None:
    n = abm19_public_sample_size(d, alpha, beta)
    assert abm19_cover_log_failure_probability(n, d, alpha) <= math.log(beta)
    if 2 * (n - 1) >= d:
        assert abm19_cover_log_failure_probability(n - 1, d, alpha) > math.log(beta)


def test_abm19_solver_smallest_over_the_whole_valid_range() -> None:
    # brute force over every n >= d/2: the first n that satisfies the inequality
    d, alpha, beta = 3, 0.3, 0.1
    n = abm19_public_sample_size(d, alpha, beta)
    first = next(k for k in range((d + 1) // 2, 10**6) if abm19_cover_log_failure_probability(k, d, alpha)
                 <= math.log(beta))
    assert n == first


@given(st.integers(1, 10**9), st.floats(0.05, 5.0), st.floats(0.01, 0.9), betas)
def test_expmech_sample_size_round_trip_and_closed_form(h: int, eps: float, gap: float, beta: float) -> None:
    m = expmech_sample_size(h, eps, gap, beta)
    assert expmech_log_failure_probability(h, eps, gap, m) <= math.log(beta)
    if m > 1:
        assert expmech_log_failure_probability(h, eps, gap, m - 1) > math.log(beta)
    closed = 2 * (math.log(h) + math.log(1 / beta)) / (eps * gap)
    assert abs(m - max(1, math.ceil(closed))) <= 1  # equal up to float rounding at integers


@given(st.integers(0, 10**8), st.integers(1, 20), st.floats(0.01, 0.5), st.floats(0.001, 0.5))
def test_labelboost_min_labeled_round_trip(t: int, vc: int, alpha: float, beta: float) -> None:
    s = bns15_labelboost_min_labeled(t, vc, alpha, beta)
    assert bns15_labelboost_max_unlabeled(s, vc, alpha, beta) >= t - 1  # floor of a float, within 1
    if s > 1:
        try:
            below = bns15_labelboost_max_unlabeled(s - 1, vc, alpha, beta)
        except ConditionNotMet:
            return
        assert below < t + 1


@given(st.integers(1, 200), st.floats(0.1, 5.0), st.floats(0.1, 5.0), st.floats(0.1, 3.0),
       st.floats(1e-8, 1e-2), st.floats(0.05, 5.0))
def test_bst14_sample_size_round_trip(p: int, lip: float, diam: float, eps: float, delta: float,
                                      alpha: float) -> None:
    n = bst14_sample_size(p, lip, diam, eps, delta, alpha)
    assume(n < 10**12)
    assert bst14_excess_risk_explicit(n, p, lip, diam, eps, delta) / n <= alpha
    if n > 1:
        assert bst14_excess_risk_explicit(n - 1, p, lip, diam, eps, delta) / (n - 1) > alpha


@given(st.integers(1, 500), st.floats(0.1, 5.0), st.floats(1e-9, 0.5))
def test_bst14_average_excess_risk_decreases_from_n_3(p: int, eps: float, delta: float) -> None:
    # the monotonicity the solver relies on (n >= 3)
    values = [bst14_excess_risk_explicit(n, p, 1.0, 1.0, eps, delta) / n for n in (3, 4, 5, 10, 100, 10**4)]
    assert all(b <= a * (1 + 1e-12) for a, b in zip(values, values[1:]))


@pytest.mark.parametrize("x", [1e12 + 0.3, 1e12 + 0.7, 5e13 + 0.5, 2.0**52 + 1.0])
def test_ceil_int_rounds_up_at_every_magnitude(x: float) -> None:
    """A relative 1e-12 tolerance once rounded 1e12 + 0.3 DOWN; only a few ulps count as noise."""
    n = ceil_int(x)
    assert n >= x and n - 1 < x
    assert near_integer(x) == (int(x) if x == int(x) else None)


def test_ceil_int_absorbs_only_ulp_noise() -> None:
    assert ceil_int(3.0 + 2 * math.ulp(3.0)) == 3
    assert ceil_int(3.0 + 1e-13) == 4
    assert ceil_int(1e12 + 4 * math.ulp(1e12)) == 10**12


@pytest.mark.parametrize("target", [1e12 + 0.3, 1e12 + 0.7, 123456789012.5])
def test_abm19_public_lower_bound_strict_at_large_sizes(target: float) -> None:
    """n_pub > 1/(1600 alpha): the smallest integer above x, also for x near 1e12."""
    alpha = 1 / (1600 * target)
    x = 1 / (1600 * alpha)
    n = abm19_public_lower_bound(alpha)
    assert n > x and n - 1 <= x

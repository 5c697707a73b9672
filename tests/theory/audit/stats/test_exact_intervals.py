"""Clopper–Pearson bounds, the epsilon bound, and the exact privacy-loss checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from semiprivate.theory.audit import (
    clopper_pearson,
    cp_lower,
    cp_upper,
    epsilon_bound,
    exact_privacy_loss,
    hockey_stick,
)
from semiprivate.theory.privacy.mechanisms import gaussian_delta

# this machine is shared and loaded: data generation may be slow; that is not a test failure
SLOW_OK = [HealthCheck.too_slow]


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(n=st.integers(1, 10_000), frac=st.floats(0, 1), alpha=st.sampled_from([0.5, 0.05, 1e-3, 1e-9]))
def test_cp_bounds_are_the_exact_binomial_tail_inversions(n: int, frac: float, alpha: float) -> None:
    k = int(round(frac * n))
    lo, hi = float(cp_lower(k, n, alpha)), float(cp_upper(k, n, alpha))
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    # definition: P_lo(X >= k) = alpha and P_hi(X <= k) = alpha (when not at the edges)
    if k > 0:
        assert binom.sf(k - 1, n, lo) == pytest.approx(alpha, rel=1e-6)
    else:
        assert lo == 0.0
    if k < n:
        assert binom.cdf(k, n, hi) == pytest.approx(alpha, rel=1e-6)
    else:
        assert hi == 1.0


def test_cp_upper_of_zero_count_is_positive_and_precise() -> None:
    # no floor and no cancellation: 1 - alpha^(1/n) for huge n
    n = 10**12
    u = float(cp_upper(0, n, 0.05))
    assert u == pytest.approx(-math.log(0.05) / n, rel=1e-9)
    assert u > 0


def test_clopper_pearson_two_sided() -> None:
    lo, hi = clopper_pearson(5, 10, 0.95)
    assert float(lo) == pytest.approx(float(cp_lower(5, 10, 0.025)))
    assert float(hi) == pytest.approx(float(cp_upper(5, 10, 0.025)))


def test_clopper_pearson_coverage_by_exact_enumeration() -> None:
    # exact coverage of the one-sided lower bound for n = 30 over a grid of p: >= 1 - alpha
    n, alpha = 30, 0.1
    ks = np.arange(n + 1)
    lows = cp_lower(ks, n, alpha)
    for p in np.linspace(0.01, 0.99, 99):
        coverage = float(np.sum(binom.pmf(ks, n, p)[lows <= p]))
        assert coverage >= 1 - alpha - 1e-12


def test_epsilon_bound_cases() -> None:
    assert float(epsilon_bound(0.5, 0.5 / math.e, 0.0)) == pytest.approx(1.0)
    assert float(epsilon_bound(0.3, 0.1, 0.1)) == pytest.approx(math.log(2.0))
    assert float(epsilon_bound(0.1, 0.2, 0.1)) == -math.inf
    assert float(epsilon_bound(0.2, 0.0, 0.1)) == math.inf


def test_exact_privacy_loss_randomized_response() -> None:
    e = 1.3
    p = np.array([math.exp(e), 1.0]) / (1 + math.exp(e))
    loss = exact_privacy_loss(p, p[::-1])
    assert loss.epsilon == pytest.approx(e)
    assert loss.delta(e) == 0.0
    assert loss.delta(e - 0.1) > 0
    assert loss.epsilon_for(0.0) == pytest.approx(e, abs=1e-9)


def test_exact_privacy_loss_support_mismatch_is_infinite() -> None:
    loss = exact_privacy_loss([0.9, 0.1, 0.0], [0.5, 0.3, 0.2])
    assert loss.epsilon == math.inf and loss.direction == "Q/P"
    assert loss.delta(50.0) == pytest.approx(0.2)
    assert loss.epsilon_for(0.1) == math.inf
    assert loss.epsilon_for(0.2) < math.inf


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6), st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6),
       st.floats(0, 3))
def test_hockey_stick_matches_brute_force(a: list[float], b: list[float], eps: float) -> None:
    m = min(len(a), len(b))
    p = np.array(a[:m]) / sum(a[:m])
    q = np.array(b[:m]) / sum(b[:m])
    brute = float(np.sum(np.maximum(0.0, p - math.exp(eps) * q)))
    assert hockey_stick(p, q, eps) == pytest.approx(brute, abs=1e-12)
    assert hockey_stick(np.log(p), np.log(q), eps, log=True) == pytest.approx(brute, abs=1e-12)
    loss = exact_privacy_loss(p, q)
    assert loss.delta(loss.epsilon) <= 1e-12
    d = loss.delta(eps)
    assert d == pytest.approx(max(brute, float(np.sum(np.maximum(0.0, q - math.exp(eps) * p)))), abs=1e-12)
    if d > 1e-9:
        assert loss.epsilon_for(d) <= eps + 1e-7


def test_gaussian_delta_equals_hockey_stick_of_a_fine_discretisation() -> None:
    # delta(eps) of N(0,s^2) vs N(1,s^2) from the closed form vs a Riemann sum of the densities
    s, e = 1.5, 0.7
    x = np.linspace(-20, 21, 400_001)
    h = x[1] - x[0]
    f0 = np.exp(-x**2 / (2 * s * s)) / (s * math.sqrt(2 * math.pi))
    f1 = np.exp(-(x - 1) ** 2 / (2 * s * s)) / (s * math.sqrt(2 * math.pi))
    numeric = float(np.sum(np.maximum(0.0, f0 - math.exp(e) * f1)) * h)
    assert gaussian_delta(e, s) == pytest.approx(numeric, rel=1e-5)


def test_exact_privacy_loss_validates() -> None:
    with pytest.raises(ValueError, match="p and q"):
        exact_privacy_loss([0.5, 0.5], [1.0])
    with pytest.raises(ValueError, match="p"):
        exact_privacy_loss([-0.5, 0.5], [0.5, 0.5])
    with pytest.raises(ValueError, match="sums to"):
        exact_privacy_loss([0.9, 0.9], [0.5, 0.5])

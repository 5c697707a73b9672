"""Poisson-sized estimation batches: the mean keeps the truncation below its tail, sizes never exceed the cap."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from semiprivate.theory.audit.conditional import poisson_mean, poisson_sizes, poisson_tail_bound


def _exact_tail(n: int, lam: float) -> float:
    """``P[Poisson(lam) > n]`` summed term by term: the first term from mpmath's log-gamma at 40 digits,
    then the pmf ratios ``lam / j`` in log space, until the terms fall below 1e-40 of the first."""
    mpmath.mp.dps = 40
    k = n + 1
    log_first = float(k * mpmath.log(lam) - lam - mpmath.loggamma(k + 1))
    total, start, log_t = 1.0, k + 1, 0.0  # terms relative to the first
    while True:
        j = np.arange(start, start + 1_000_000, dtype=np.float64)
        logs = log_t + np.cumsum(np.log1p((lam - j) / j))
        total += float(np.exp(logs).sum())
        log_t, start = float(logs[-1]), start + j.size
        if log_t < -92.0:
            return math.exp(log_first) * total


@pytest.mark.parametrize("n", [1, 10, 1_000, 1_000_000, 10**8, 10**9, 10**10])
@pytest.mark.parametrize("tail", [1e-3, 1e-6, 1e-7, 1e-13])
def test_poisson_mean_keeps_the_exact_tail_and_gives_up_little(n: int, tail: float) -> None:
    """The exact tail at the returned mean is at most ``tail`` and above 0.8 ``tail`` (the bound is tight to
    a few percent).  A mean from ``scipy.special.pdtrc`` fails the first at large ``n``: at ``n = 1e9`` and
    ``tail = 1e-6`` its exact tail is 3.4e-6."""
    lam = poisson_mean(n, tail)
    assert 0.0 < lam <= n
    exact = _exact_tail(n, lam)
    assert 0.8 * tail < exact <= tail
    assert exact <= poisson_tail_bound(n, lam) <= tail


def test_poisson_tail_bound_is_above_the_exact_tail() -> None:
    for n, lam in [(1, 1.0), (1, 0.01), (5, 4.9), (1_000, 500.0), (1_000, 999.0), (10**6, 10**6 - 3000.0)]:
        exact = _exact_tail(n, lam)
        assert exact <= poisson_tail_bound(n, lam)
        if exact < 1e-2:  # tight where the audit uses it; loose (but valid) inside the bulk
            assert poisson_tail_bound(n, lam) <= 1.2 * exact
    assert poisson_tail_bound(3, 0.0) == 0.0
    with pytest.raises(ValueError, match=r"^lam must be at most n = 3 \(the bound is for the tail beyond the mean\), "
                                         r"got 3.5$"):
        poisson_tail_bound(3, 3.5)


def test_poisson_mean_costs_about_four_standard_deviations() -> None:
    n = 10**8
    lam = poisson_mean(n, 1e-5)
    assert 4.0 < (n - lam) / np.sqrt(n) < 4.5


def test_poisson_sizes_are_capped_poisson_draws() -> None:
    n, tail = 10_000, 1e-2
    g = np.random.default_rng(0)
    sizes = np.array(poisson_sizes(n, 20_000, tail, g))
    lam = poisson_mean(n, tail)
    assert sizes.max() <= n
    # mean and variance of a Poisson(lam) truncated at its 1% tail: within 5 standard errors
    assert abs(sizes.mean() - lam) < 5 * np.sqrt(lam / sizes.size) + 0.01 * lam * 0.05
    assert 0.9 * lam < sizes.var() < 1.05 * lam


def test_poisson_sizes_follow_the_generator() -> None:
    a = poisson_sizes(1_000, 5, 1e-6, np.random.default_rng(7))
    b = poisson_sizes(1_000, 5, 1e-6, np.random.default_rng(7))
    assert a == b and len(set(a)) > 1


def test_poisson_mean_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="n"):
        poisson_mean(0, 1e-6)
    with pytest.raises(ValueError, match="tail"):
        poisson_mean(10, 0.0)


def test_a_size_may_equal_the_cap() -> None:
    """Only sizes above ``n`` are redrawn: with n = 1 and a 50% tail the mean is capped at n = 1, and
    P[N = 1 | N <= 1] = 1/2 (1,000 draws: 5 standard deviations either side)."""
    sizes = poisson_sizes(1, 1_000, 0.5, np.random.default_rng(1))
    assert poisson_mean(1, 0.5) == pytest.approx(1.0)
    assert set(sizes) == {0, 1} and 420 < sizes.count(1) < 580


@pytest.mark.parametrize(("n", "lam"), [(1, 0.3), (1, 1.0), (2, 1.5), (5, 2.0), (40, 30.0)])
def test_poisson_tail_bound_is_the_documented_formula(n: int, lam: float) -> None:
    """bound / (P[k] (k + 1) / (k + 1 - lam)) = (1 + 1e-6) exp(s(k) - 1/(12 k) + 1/(360 k^3)), with ``P[k]`` the exact
    pmf at k = n + 1 and ``s(k) = log k! - (k log k - k + log(2 pi k) / 2)`` Stirling's remainder (both from mpmath
    at 40 digits): Stirling's lower bound on log k! with its two remainder terms, and the rounding margin 1e-6.
    The ratio is >= 1 + 1e-6 (the remainder bound holds) and equal to the formula to 1e-12."""
    mpmath.mp.dps = 40
    k = n + 1
    pmf = mpmath.exp(-lam + k * mpmath.log(lam) - mpmath.loggamma(k + 1))
    remainder = mpmath.loggamma(k + 1) - (k * mpmath.log(k) - k + mpmath.log(2 * mpmath.pi * k) / 2)
    expected = (1 + mpmath.mpf("1e-6")) * mpmath.exp(remainder - mpmath.mpf(1) / (12 * k) + mpmath.mpf(1) / (360 * k**3))
    ratio = poisson_tail_bound(n, lam) / (pmf * (k + 1) / (k + 1 - lam))
    assert float(expected) >= 1 + 1e-6
    assert abs(float(ratio / expected) - 1.0) < 1e-12

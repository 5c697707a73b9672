"""Poisson-sized estimation batches: the mean keeps the truncation below its tail, sizes never exceed the cap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import pdtrc
from semiprivate.theory.audit.conditional import poisson_mean, poisson_sizes


@pytest.mark.parametrize("n", [1, 10, 1_000, 1_000_000, 10**9])
@pytest.mark.parametrize("tail", [1e-3, 1e-6])
def test_poisson_mean_is_the_largest_mean_within_the_tail(n: int, tail: float) -> None:
    lam = poisson_mean(n, tail)
    assert 0.0 < lam < n
    assert pdtrc(n, lam) <= tail
    assert pdtrc(n, lam * (1 + 1e-6) + 1e-9) > tail  # maximal: a slightly larger mean breaks the tail


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

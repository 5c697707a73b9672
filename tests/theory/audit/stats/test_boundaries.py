"""Boundary cases of semiprivate.theory.audit.stats: the k = 1 and k = 0 branches of the Clopper-Pearson bounds, inputs
numpy cannot hold as int64, and epsilon_bound at p_lower == delta with q_upper == 0."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound


@pytest.mark.parametrize("n", [1, 2, 10, 1000])
def test_cp_lower_at_one_success_is_the_beta_1_n_quantile(n: int) -> None:
    # Beta(1, n) has cdf 1 - (1 - x)^n: its alpha quantile is 1 - (1 - alpha)^(1/n) > 0
    a = 0.05
    assert float(cp_lower(1, n, a)) == pytest.approx(-math.expm1(math.log1p(-a) / n), rel=1e-10)
    assert float(cp_lower(1, n, a)) > 0.0


@pytest.mark.parametrize("n", [2, 10, 1000])
def test_cp_upper_at_one_success_is_the_beta_2_n_minus_1_quantile(n: int) -> None:
    from scipy.stats import beta

    a = 0.05
    assert float(cp_upper(1, n, a)) == pytest.approx(float(beta.isf(a, 2, n - 1)), rel=1e-9)
    assert float(cp_upper(1, n, a)) > float(cp_upper(0, n, a))


def test_cp_upper_at_zero_successes_keeps_full_precision() -> None:
    # 1 - alpha^(1/n) for n = 1e15: the closed form via expm1 (the general branch loses digits here)
    n, a = 10**15, 0.05
    want = -math.expm1(math.log(a) / n)
    assert float(cp_upper(0, n, a)) == pytest.approx(want, rel=1e-12)


def test_bounds_accept_counts_beyond_int64() -> None:
    n = 2**70
    assert float(cp_lower(n, n, 0.05)) == pytest.approx(0.05 ** (1 / n), rel=1e-12)
    assert float(cp_upper(0, n, 0.05)) == pytest.approx(-math.expm1(math.log(0.05) / n), rel=1e-12)
    assert float(cp_lower(0, n, 0.05)) == 0.0 and float(cp_upper(n, n, 0.05)) == 1.0


def test_epsilon_bound_on_exact_fractions_and_degenerate_events() -> None:
    assert float(epsilon_bound(Fraction(1, 2), Fraction(1, 4), 0.0)) == pytest.approx(math.log(2))
    # p_lower == delta: no evidence, even when q_upper == 0 (not nan, not +inf)
    assert float(epsilon_bound(0.05, 0.0, 0.05)) == -math.inf
    assert float(epsilon_bound(0.0, 0.0, 0.0)) == -math.inf
    assert float(epsilon_bound(0.2, 0.0, 0.05)) == math.inf
    np.testing.assert_allclose(epsilon_bound([0.05, 0.5], [0.0, 0.5 / math.e], 0.05),
                               [-math.inf, math.log(0.45 / (0.5 / math.e))], rtol=1e-12)

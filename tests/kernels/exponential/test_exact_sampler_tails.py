"""The exact exponential mechanism gives every finite score a positive probability, however far below the
others (the float samplers set weights under exp(-708) to 0: pure DP fails there), and its bounds on exp
are rigorous at every level."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from semiprivate.kernels import exponential_mechanism
from semiprivate.kernels._reference import _exp_neg_multiples, reference_exact_weighted_sample


class _TopBits:
    """A stream whose uniform bits are all ones (U -> 1 from below) and whose bounded integers are 0: the draw
    it forces is the last group, the least likely one."""

    def bytes(self, n: int) -> bytes:
        return b"\xff" * n

    def integers(self, low: int, high: int | None = None, size: int | None = None) -> int:
        return 0


@pytest.mark.parametrize("gap", [800, 2000])
def test_a_score_whose_weight_underflows_a_double_is_still_drawn(gap):
    from semiprivate.kernels._reference import reference_exact_sample

    scores = np.array([0, -gap], dtype=np.int64)
    assert reference_exact_sample(scores, Fraction(1), Fraction(1), None, _TopBits()) == 1
    # the float sampler cannot: its weight is exactly 0
    assert float(np.exp(-gap / 2)) == 0.0 or gap < 1416


def test_the_weighted_sampler_draws_the_underflowing_cell_too():
    assert reference_exact_weighted_sample(np.array([0, -3000]), [1, 2**64], Fraction(1), Fraction(1), _TopBits()) == 1


@pytest.mark.parametrize("unit", [Fraction(1, 2), Fraction(0.3), Fraction(7, 1000), Fraction(5)])
@pytest.mark.parametrize("p", [64, 128])
def test_the_power_bounds_bracket_exp_and_are_tight(unit, p):
    mpmath.mp.prec = 600
    ds = [0, 1, 2, 5, 17, 100, 1000, 100_000]
    for d, (lo, hi) in zip(ds, _exp_neg_multiples(unit, ds, p)):
        v = mpmath.exp(-mpmath.mpf(unit.numerator) / unit.denominator * d) * mpmath.mpf(2) ** p
        assert lo <= v <= hi, (d, lo, hi)
        assert hi - lo <= max(2, v / 2**40)


def test_the_exact_law_on_a_small_case():
    from scipy.stats import chisquare

    s = np.array([0, -1, -2, -3, -3])
    w = np.exp(s / 2.0)
    x = exponential_mechanism(s, 1.0, size=20_000, rng=4, exact=True)
    # false-failure rate 1e-4; a doubled epsilon moves the cells by >= 5% of 20,000 draws
    assert chisquare(np.bincount(x, minlength=5), w / w.sum() * 20_000).pvalue > 1e-4


@pytest.mark.parametrize(("gap", "eps"), [(10**7, 1e-6), (10**12, 1e-12)])
def test_huge_gaps_at_tiny_epsilon_are_bounded_by_square_and_multiply(gap, eps):
    # exp(-unit)^gap by square-and-multiply: O(log gap) products (a product per unit of gap would not finish)
    assert exponential_mechanism(np.array([0, -gap]), eps, exact=True, rng=0) in (0, 1)

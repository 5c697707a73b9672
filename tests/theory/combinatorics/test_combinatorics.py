"""COMB.Sauer and COMB.XorClass."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semiprivate.theory.classes import FiniteClass, Intervals, PointFunctions, Rectangles, Thresholds
from semiprivate.theory.combinatorics import (
    growth_function,
    log_sauer_exponential_bound,
    sauer_bounds,
    sauer_exponential_bound,
    sauer_sum,
    xor_dichotomies,
    xor_vc_bound,
    xor_vc_constant,
)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_sauer_sum_is_the_binomial_sum(m, d):
    assert sauer_sum(m, d) == sum(math.comb(m, i) for i in range(min(m, d) + 1))


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 300), st.integers(1, 40))
def test_exponential_bound_dominates_sum(m, d):
    if m >= d:
        assert sauer_sum(m, d) <= sauer_exponential_bound(m, d) * (1 + 1e-12)
        assert sauer_bounds(m, d)["tighter"] in ("sum", "equal")


def test_exponential_bound_overflow_warns():
    with pytest.warns(RuntimeWarning, match="overflows"):
        assert sauer_exponential_bound(10**6, 200) == math.inf
    assert log_sauer_exponential_bound(10**6, 200) == pytest.approx(200 * (1 + math.log(10**6 / 200)))


@pytest.mark.parametrize("cls", [Thresholds(3), Intervals(3), PointFunctions(3), Rectangles(2, 1)])
@pytest.mark.parametrize("m", [0, 1, 2, 3, 4])
def test_growth_closed_form_equals_brute_force_and_sauer(cls, m):
    g = growth_function(cls, m)
    assert g == growth_function(cls, m, method="brute_force")
    assert g <= sauer_sum(m, cls.vc_dimension)


def test_growth_function_finite_class_and_bad_input():
    C = FiniteClass(np.random.default_rng(0).integers(0, 2, (12, 6)))
    for m in range(7):
        assert growth_function(C, m) <= sauer_sum(m, C.vc_dimension)
    with pytest.raises(ValueError):
        growth_function(C, 7)
    with pytest.raises(ValueError):
        growth_function(Thresholds(20), 3, method="bogus")
    with pytest.raises(ValueError):
        sauer_sum(-1, 2)
    with pytest.raises(TypeError):
        sauer_sum(2.5, 2)


def test_xor_constant_is_the_root_and_below_ten():
    c = xor_vc_constant()
    assert 2 * (1 + math.log(c)) == pytest.approx(c * math.log(2), abs=1e-10)
    assert 9 < c < 10
    for d in range(1, 30):
        assert xor_vc_bound(d) < c * d + 1e-9 <= 10 * d  # the paper's 10 VC(C)
        assert xor_vc_bound(d, "sum") <= xor_vc_bound(d)


def test_xor_class_projection_and_vc_on_small_domain():
    """Pi_Cxor(B) = Pi_C(B) xor Pi_C(B), |.| <= |Pi_C(B)|^2, VC(Cxor) <= the argument's bound."""
    T = Thresholds(3)
    hyps = T.hypotheses()
    M = T.evaluate_many(hyps, np.arange(8))
    xor_table = np.unique((M[:, None, :] ^ M[None, :, :]).reshape(-1, 8), axis=0)
    Cx = FiniteClass(xor_table.astype(int))
    for B in ([0, 3, 5], [1, 2, 6, 7], list(range(8))):
        P = T.dichotomies(B).patterns
        direct = Cx.dichotomies(B).pattern_set()
        assert {np.packbits(r).tobytes() + bytes([len(r) % 8]) for r in xor_dichotomies(P)} == direct
        assert len(direct) <= len(P) ** 2
    assert Cx.vc_dimension == 2  # xor of two thresholds = an interval-like set
    assert Cx.vc_dimension <= xor_vc_bound(T.vc_dimension, "sum") <= xor_vc_bound(T.vc_dimension)


@pytest.mark.parametrize("m,exc", [(0.0, TypeError), (False, TypeError), (3.0, TypeError), (-1, ValueError)])
def test_log_sauer_bound_validates_m_before_the_zero_shortcut(m, exc):
    """m = 0.0 or False once took the m == 0 shortcut and returned -inf without validation."""
    with pytest.raises(exc, match="m"):
        log_sauer_exponential_bound(m, 2)
    assert log_sauer_exponential_bound(0, 2) == -math.inf

"""COMB.Projection / COMB.VC: dichotomies by structure vs closed forms and brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from semiprivate.theory.classes import (
    Disjunctions,
    FiniteClass,
    Halfspaces,
    Intervals,
    PointFunctions,
    Rectangles,
    Thresholds,
)


def _same(cls, B):
    """Structured dichotomies == brute force (as sets), and representatives realise them."""
    D = cls.dichotomies(B)
    F = cls.brute_force_dichotomies(B)
    assert D.pattern_set() == F.pattern_set()
    assert len(D) == len(D.pattern_set())  # one representative per dichotomy
    for h, row in zip(D.representatives, D.patterns):
        assert np.array_equal(cls.evaluate(h, D.points), row)
    return len(D)


@settings(max_examples=25, deadline=None)
@given(st.sets(st.integers(0, 15), max_size=10))
@example(set())
@example(set(range(16)))
def test_integer_classes_structured_equals_brute_force(points):
    B = sorted(points)
    n = len(B)
    assert _same(Thresholds(4), B) == n + 1
    assert _same(PointFunctions(4), B) == (n + 1 if n < 16 else n)
    assert _same(Intervals(4), B) == math.comb(n + 1, 2) + 1


@settings(max_examples=15, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=8))
def test_rectangles_structured_equals_brute_force(points):
    _same(Rectangles(2, 2), sorted(points))
    _same(Rectangles(2, 1), sorted({(x,) for x, _ in points}))  # one axis: every pair of values, no masks


@settings(max_examples=15, deadline=None)
@given(st.sets(st.tuples(*[st.integers(0, 1)] * 5), min_size=1, max_size=8), st.integers(1, 5))
def test_disjunctions_structured_equals_brute_force(points, k):
    _same(Disjunctions(5, k), sorted(points))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sets(st.integers(0, 11), min_size=1, max_size=8))
def test_finite_class_structured_equals_brute_force(seed, points):
    table = np.random.default_rng(seed).integers(0, 2, (9, 12))
    _same(FiniteClass(table), sorted(points))


def _cover_count(n, p):
    """Cover (1965): dichotomies of n points in general position by homogeneous halfspaces in R^p."""
    return 2 * sum(math.comb(n - 1, k) for k in range(p))


@pytest.mark.parametrize("p,n", [(1, 5), (2, 7), (3, 8)])
def test_halfspace_counts_match_cover_function_counting(p, n):
    X = np.random.default_rng(10 * p + n).standard_normal((n, p))
    aff = Halfspaces(p, affine=True).dichotomies(X)
    assert len(aff) == _cover_count(n, p + 1)  # affine in R^p = homogeneous in R^{p+1}
    hom = Halfspaces(p).dichotomies(X)
    # strict dichotomies (Cover) plus possibly the all-zero one realised only by w = 0
    all_zero_strict = Halfspaces(p)._lp(X, np.zeros(n, dtype=bool), 1.0) is not None
    assert len(hom) == _cover_count(n, p) + (0 if all_zero_strict else 1)
    for H, D in ((Halfspaces(p, affine=True), aff), (Halfspaces(p), hom)):
        for h, row in zip(D.representatives, D.patterns):
            assert np.array_equal(H.evaluate(h, X), row)


def test_halfspace_exact_enumeration_in_2d_homogeneous():
    """Exact 2-d enumeration: w at every critical angle and between them, and w = 0."""
    X = np.random.default_rng(3).standard_normal((6, 2))
    crit = np.sort(np.concatenate([np.arctan2(X[:, 1], X[:, 0]) + s * np.pi / 2 for s in (1, -1)]) % (2 * np.pi))
    mids = (crit + np.diff(np.append(crit, crit[0] + 2 * np.pi)) / 2) % (2 * np.pi)
    angles = np.concatenate([crit, mids])
    W = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    vals = X @ W.T
    vals[np.abs(vals) < 1e-12] = 0.0
    pats = {tuple(col) for col in (vals > 0).T} | {(False,) * 6}
    D = Halfspaces(2).dichotomies(X)
    assert {tuple(r) for r in D.patterns} == pats


@pytest.mark.parametrize(
    "cls",
    [Thresholds(3), Intervals(3), PointFunctions(3), Rectangles(2, 1), Rectangles(2, 2),
     Disjunctions(4, 1), FiniteClass(np.eye(4, dtype=int))],
)
def test_vc_closed_form_equals_brute_force(cls):
    assert cls.vc_dimension == cls.brute_force_vc_dimension()


def test_vc_disjunction_brute_force_small():
    # DISJ_4^4 (all non-empty monotone disjunctions): unit vectors minus the all-zero labeling
    assert Disjunctions(4, 4).vc_dimension == Disjunctions(4, 4).brute_force_vc_dimension() == 3
    with pytest.raises(ValueError, match="no closed form"):
        _ = Disjunctions(8, 2).vc_dimension


@pytest.mark.parametrize("p", [1, 2, 3])
def test_halfspace_vc(p):
    rng = np.random.default_rng(p)
    for affine, vc in ((False, p), (True, p + 1)):
        H = Halfspaces(p, affine=affine)
        assert H.vc_dimension == vc
        assert H.shatters(rng.standard_normal((vc, p)))
        assert not H.shatters(rng.standard_normal((vc + 1, p)))


def test_d64_domain():
    T = Thresholds(64)
    top = 2**64 - 1
    assert T.evaluate(2**64, [top]).tolist() == [True]
    assert T.evaluate(top, [top, top - 1]).tolist() == [False, True]
    D = T.dichotomies([top, 0, 2**63])
    assert sorted(D.representatives) == [0, 1, 2**63 + 1, 2**64]
    assert len(Intervals(64).dichotomies([top, 0, 5])) == 7
    assert PointFunctions(64).evaluate(top, np.array([top], dtype=np.uint64)).tolist() == [True]
    assert 0 <= T.random_hypothesis(0) <= 2**64


@pytest.mark.parametrize(
    "bad,exc",
    [([1, 1], ValueError), ([-1], ValueError), ([16], ValueError), ([1.5], ValueError),
     ([float("nan")], ValueError), (["a"], TypeError), (None, TypeError), ([[1, 2]], ValueError)],
)
def test_bad_points(bad, exc):
    with pytest.raises(exc):
        Thresholds(4).dichotomies(bad)


def test_bad_constructor_and_hypotheses():
    with pytest.raises(ValueError):
        Thresholds(65)
    with pytest.raises(ValueError):
        Rectangles(1, 2)
    with pytest.raises(ValueError):
        Disjunctions(3, 4)
    with pytest.raises(ValueError):
        Thresholds(4).evaluate(17, [0])
    with pytest.raises(ValueError):
        Intervals(4).evaluate((3, 2), [0])
    with pytest.raises(ValueError):
        Disjunctions(3, 2).dichotomies([[0, 2, 1]])
    with pytest.raises(ValueError):
        Halfspaces(2).dichotomies([[0.0, np.inf]])
    with pytest.raises(ValueError):
        FiniteClass([[0, 2]])
    with pytest.raises(ValueError):
        Thresholds(4).validate_points([])


@pytest.mark.parametrize(
    "cls,h,exc",
    [
        (Thresholds(4), 2.0, TypeError), (Thresholds(4), True, TypeError), (Thresholds(4), 17, ValueError),
        (Intervals(4), (1.5, 3), TypeError), (Intervals(4), (True, 3), TypeError),
        (Intervals(4), ("1", 3), TypeError), (Intervals(4), (1, 2, 3), ValueError),
        (Intervals(4), (1,), ValueError), (Intervals(4), 3, TypeError),
        (PointFunctions(4), 1.0, TypeError), (PointFunctions(4), np.True_, TypeError),
        (Rectangles(4, 2), ((0, 0.5), (1, 1)), TypeError), (Rectangles(4, 2), ((0,), (1,)), ValueError),
        (Rectangles(4, 2), ((0, 0), (1, 16)), ValueError),
        (Disjunctions(3, 2), (0, 1.0), TypeError), (Disjunctions(3, 2), (0, False), TypeError),
        (Disjunctions(3, 2), 1, TypeError), (Disjunctions(3, 2), (0, 3), ValueError),
        (FiniteClass([[0, 1], [1, 1]]), 1.0, TypeError), (FiniteClass([[0, 1], [1, 1]]), True, TypeError),
        (FiniteClass([[0, 1], [1, 1]]), 2, ValueError),
        (Halfspaces(2), [1.0, np.nan], ValueError), (Halfspaces(2), ["a", "b"], TypeError),
        (Halfspaces(2), [1.0, 2.0, 3.0], ValueError),
    ],
)
def test_check_h_rejects_hypotheses_outside_the_class(cls, h, exc):
    """Every class validates a hypothesis the same way: ints are ints (no float/bool/str), the
    tuple has the class's length, the values lie in the class; evaluate() goes through it."""
    with pytest.raises(exc):
        cls._check_h(h)
    X = cls.domain_points() if cls.domain_points() is not None else np.zeros((1, 2))
    with pytest.raises(exc):
        cls.evaluate(h, X[:1])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**64 - 1), st.booleans()), min_size=0, max_size=12),
       st.lists(st.integers(0, 2**64), min_size=1, max_size=6), st.integers(0, 2**32 - 1))
def test_fast_error_counts_equal_matrix_counts(data, ts, seed):
    from semiprivate.theory.classes.base import ConceptClass
    from semiprivate.theory.privacy.exponential import error_counts_of

    X = [x for x, _ in data]
    y = np.array([v for _, v in data], dtype=bool)
    rng = np.random.default_rng(seed)
    T, Iv = Thresholds(64), Intervals(64)
    ivs = [None] + [Iv.random_hypothesis(rng) for _ in range(5)] + [(x, x) for x in X[:3]]
    for cls, hyps in ((T, ts), (Iv, ivs)):
        fast = cls.error_counts(hyps, X, y)
        slow = ConceptClass.error_counts(cls, hyps, X, y)
        np.testing.assert_array_equal(fast, slow)
        if X:
            np.testing.assert_array_equal(fast, error_counts_of(cls.evaluate_many(hyps, X), y))


# ---------------------------------------------------------------------------------------
# uniform_int's large-n branch (n > 2^62: rejection over 64-bit words) and the samplers built on
# it at d = 64.  Uniformity by chi-square over 16 equal-width bins of r/n (N = 4000 draws,
# expected 250 per bin), rejected at p < 1e-6: false-failure rate <= 1e-6 per case, 8 cases,
# <= 8e-6 in all (fixed seeds: the outcome is deterministic).  An off-by-one in the bit count
# (draws confined to [0, n/2) or to [0, 0.75 * 2^64)) leaves >= 4 bins empty: p < 1e-100.
# ---------------------------------------------------------------------------------------

_UNIF_N, _UNIF_BINS, _UNIF_LEVEL = 4000, 16, 1e-6


def _uniform_bins_pvalue(draws, n):
    from scipy.stats import chisquare

    draws = [int(r) for r in draws]
    assert all(0 <= r < n for r in draws)
    counts = np.bincount([r * _UNIF_BINS // n for r in draws], minlength=_UNIF_BINS)
    return float(chisquare(counts).pvalue)


@pytest.mark.parametrize("n", [2**62 + 1, 3 * 2**62, 2**64 - 1, 2**64, 2**64 + 1, 2**100 + 3],
                         ids=["2^62+1", "3*2^62", "2^64-1", "2^64", "2^64+1", "2^100+3"])
def test_uniform_int_large_n_is_uniform(n):
    from semiprivate.theory.classes import uniform_int

    g = np.random.default_rng(n % 1_000_003)
    assert _uniform_bins_pvalue([uniform_int(g, n) for _ in range(_UNIF_N)], n) > _UNIF_LEVEL


def test_d64_random_hypotheses_are_uniform():
    """Thresholds(64) draws t uniformly in [0, 2^64] (n = 2^64 + 1), PointFunctions(64) in [0, 2^64)."""
    for cls, n in ((Thresholds(64), 2**64 + 1), (PointFunctions(64), 2**64)):
        g = np.random.default_rng(7)
        assert _uniform_bins_pvalue([cls.random_hypothesis(g) for _ in range(_UNIF_N)], n) > _UNIF_LEVEL


def test_d64_structured_threshold_mechanism_is_uniform_in_its_cell():
    """One private point (0, label 0): every t >= 1 errs once, so given t >= 1 the output is
    uniform on [1, 2^64] (the within-cell draw is uniform_int(2^64)); P[t = 0] = 1/(1 + 2^64 e^-eps/2)
    is ~1e-19, so every draw is from the large cell."""
    from semiprivate.theory.privacy.exponential import structured_threshold_mechanism

    g = np.random.default_rng(11)
    draws = [structured_threshold_mechanism([0], [0], 1.0, 64, rng=g) for _ in range(_UNIF_N)]
    assert min(draws) >= 1
    assert _uniform_bins_pvalue([t - 1 for t in draws], 2**64) > _UNIF_LEVEL


@pytest.mark.slow
def test_disagreement_matrix_counts_exactly_above_2_24_points():
    """ABM19 Sec 2 empirical disagreement on n = 2^24 + 3 points: thresholds t = 2^24 + 1 and 0
    disagree on exactly 2^24 + 1 points and t = 2^24 + 1, t = 1 on 2^24; float32 counts round
    both to 2^24 + {0, 4}."""
    from semiprivate.theory.covers import disagreement_matrix

    n = 2**24 + 3
    X = np.arange(n, dtype=np.uint64)
    M = disagreement_matrix(Thresholds(25), [2**24 + 1], [0, 1, 2**24 + 1], X)
    assert M.shape == (1, 3)
    assert M[0, 0] == (2**24 + 1) / n and M[0, 1] == 2**24 / n and M[0, 2] == 0.0

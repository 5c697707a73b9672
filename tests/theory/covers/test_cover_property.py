"""ABM19.Alg1.cover, ABM19.Def2.7 and ABM19.Lem3.3 (cover property at the lemma's n_pub).

n_pub is the smallest n with 2 (2e n/d)^{2d} exp(-alpha n/4) <= beta: the inequality of the
proof of ABM19 Lemma 3.3 with the paper's own constants, solved by
``semiprivate.theory.bounds.abm19.abm19_public_sample_size``.
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.bounds.abm19 import abm19_public_sample_size
from semiprivate.theory.classes import Intervals, Rectangles, Thresholds
from semiprivate.theory.covers import build_cover, distinct_points, empirical_cover_check, empirical_disagreement
from semiprivate.theory.distributions import IntervalDistribution, RectangleDistribution, ThresholdDistribution


def test_alg1_steps_on_a_small_example():
    T = Thresholds(8)
    cov = build_cover(T, [9, 3, 3, 200, 9])
    assert distinct_points(T, [9, 3, 3]).tolist() == [3, 9]
    assert cov.points.tolist() == [3, 9, 200]
    assert sorted(cov.hypotheses) == [0, 4, 10, 201]
    assert len(build_cover(Intervals(8), [1, 5, 5, 7])) == 7  # C(4,2) + 1
    assert len(build_cover(T, [])) == 1  # one (arbitrary) hypothesis for the empty dichotomy
    assert empirical_disagreement(T, 4, 10, [0, 5, 9, 100]) == 0.5


def _probes(cls, cover, rng, n_random=100):
    """Random hypotheses plus adversarial ones half-way between consecutive cover points."""
    probes = [cls.random_hypothesis(rng) for _ in range(n_random)]
    vals = sorted(int(v) for v in np.asarray(cover.points).reshape(-1))
    edges = [-1, *vals, 2**cls.d]
    mids = [(a + b) // 2 + 1 for a, b in zip(edges[:-1], edges[1:]) if b - a > 1]
    if isinstance(cls, Thresholds):
        return probes + mids
    picks = rng.choice(len(mids), size=(100, 2))
    out = []
    for i, j in picks:
        a, b = sorted((mids[i], mids[j]))
        b = min(b, 2**cls.d - 1)
        a = min(a, b)
        out.append(((a,), (b,)) if isinstance(cls, Rectangles) else (a, b))
    return probes + out


CASES = [
    # (class, distribution, VC, alpha, beta, trials)
    (Thresholds(64), ThresholdDistribution(64, 2**62), 1, 0.1, 0.1, 20),
    (Intervals(32), IntervalDistribution(32, (2**30, 3 * 2**30)), 2, 0.3, 0.25, 8),
    pytest.param(Rectangles(32, 1), RectangleDistribution(32, 1, ((2**29,), (2**31,))), 2, 0.3, 0.25, 8,
                 marks=pytest.mark.slow),
]


@pytest.mark.slow
@pytest.mark.parametrize("cls,D,vc,alpha,beta,trials", CASES, ids=["thresholds", "intervals", "rectangles"])
def test_cover_property_at_lemma_3_3_size(cls, D, vc, alpha, beta, trials):
    """Claim: P[cover fails] <= beta.  Checked: >= 1 - beta of seeded trials pass (binomial
    false-failure rate at most P[Bin(trials, beta) > beta*trials], which is < 0.35 even if the
    lemma were tight; in fact the lemma is loose and the observed radius is << alpha)."""
    assert cls.vc_dimension == vc
    n_pub = abm19_public_sample_size(vc, alpha, beta)
    ok = 0
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        cover = build_cover(cls, D.sample_X(n_pub, rng))
        fresh = D.sample_X(20000, rng)
        res = empirical_cover_check(cls, cover, _probes(cls, cover, rng), fresh, alpha=alpha)
        ok += bool(res.is_cover)
    assert ok >= (1 - beta) * trials


def test_cover_check_has_power():
    """With 3 public points the cover is far from a 0.1-cover: the check must see it."""
    cls, D = Thresholds(64), ThresholdDistribution(64, 2**62)
    fails = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        cover = build_cover(cls, D.sample_X(3, rng))
        res = empirical_cover_check(cls, cover, _probes(cls, cover, rng), D.sample_X(5000, rng), alpha=0.1)
        fails += not res.is_cover
    assert fails == 10


def test_neighbour_search_equals_full_matrix():
    cls, D = Intervals(16), IntervalDistribution(16, (100, 40000))
    rng = np.random.default_rng(5)
    cover = build_cover(cls, D.sample_X(25, rng))
    probes = [cls.random_hypothesis(rng) for _ in range(40)] + [None]
    fresh = D.sample_X(3000, rng)
    fast = empirical_cover_check(cls, cover, probes, fresh)
    slow = empirical_cover_check(cls, list(cover.hypotheses), probes, fresh)
    np.testing.assert_allclose(fast.per_probe, slow.per_probe)


def test_bad_input():
    with pytest.raises(ValueError):
        build_cover(Thresholds(4), [16])
    with pytest.raises(ValueError):
        empirical_cover_check(Thresholds(4), [0], [], [1, 2])
    with pytest.raises(ValueError):
        empirical_cover_check(Thresholds(4), [], [1], [1, 2])

"""semiprivate.theory.covers (ABM19 Alg 1 steps 1-5, Def 2.7): the 1-d neighbour search gives exactly the full-matrix
minimum for thresholds, intervals and 1-d rectangles (edge probes included), exact disagreement counts, the check's
worst probe / radius / is_cover, and the errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.classes import Intervals, Rectangles, Thresholds
from semiprivate.theory.covers import (
    Cover,
    build_cover,
    disagreement_matrix,
    distinct_points,
    empirical_cover_check,
    empirical_disagreement,
)


def _same_as_full_matrix(cls, T_pub, probes, fresh) -> np.ndarray:
    cover = build_cover(cls, T_pub)
    fast = empirical_cover_check(cls, cover, probes, fresh)
    slow = empirical_cover_check(cls, list(cover.hypotheses), probes, fresh)
    assert fast.per_probe.tolist() == slow.per_probe.tolist()
    assert (fast.radius, fast.worst_probe) == (slow.radius, slow.worst_probe)
    return fast.per_probe


def test_threshold_neighbours_give_the_exact_minimum() -> None:
    d = 5
    cls = Thresholds(d)
    fresh = np.arange(2**d)  # every point once: disagreement = |t - t'| / 32
    T_pub = [4, 9, 9, 20]  # cover {0, 5, 10, 21}
    probes = list(range(2**d + 1))
    per = _same_as_full_matrix(cls, T_pub, probes, fresh)
    cover = [0, 5, 10, 21]
    assert per.tolist() == [min(abs(t - c) for c in cover) / 32 for t in probes]


def test_interval_and_rectangle_neighbours_give_the_exact_minimum() -> None:
    d = 4
    fresh = np.arange(2**d)
    T_pub = [2, 5, 5, 11]
    probes = [None] + [(a, b) for a in range(2**d) for b in range(a, 2**d)]
    per = _same_as_full_matrix(Intervals(d), T_pub, probes, fresh)
    assert per[0] == 0.0  # the empty interval is in the cover
    assert per.max() > 0
    rprobes = [None if h is None else ((h[0],), (h[1],)) for h in probes]
    per_r = _same_as_full_matrix(Rectangles(d, 1), np.array(T_pub).reshape(-1, 1), rprobes, fresh.reshape(-1, 1))
    assert per_r.tolist() == per.tolist()
    # an empty public sample: the cover holds the empty interval only
    per_e = _same_as_full_matrix(Intervals(d), [], probes[:5], fresh)
    assert per_e.tolist() == [0.0, 1 / 16, 2 / 16, 3 / 16, 4 / 16]


def test_disagreement_matrix_counts_exactly() -> None:
    cls = Thresholds(6)
    X = [0, 1, 5, 9, 9, 33, 63]
    a, b = [0, 2, 10, 64], [1, 9, 34]
    M = disagreement_matrix(cls, a, b, X)
    assert M.shape == (4, 3) and M.dtype == np.float64
    want = [[empirical_disagreement(cls, h1, h2, X) for h2 in b] for h1 in a]
    assert M.tolist() == want
    assert M[3, 0] == 6 / 7 and M[0, 2] == 6 / 7 and M[1, 1] == 1 / 7


def test_cover_check_reports_worst_probe_radius_and_is_cover() -> None:
    cls = Thresholds(4)
    X = np.arange(16)
    res = empirical_cover_check(cls, [0, 8], [0, 12, 3, 16], X, alpha=4 / 16)
    assert res.per_probe.tolist() == [0.0, 4 / 16, 3 / 16, 8 / 16]
    assert (res.worst_probe, res.radius, res.is_cover) == (3, 0.5, False)
    assert empirical_cover_check(cls, [0, 8], [0, 12], X, alpha=4 / 16).is_cover is True  # radius == alpha
    assert empirical_cover_check(cls, [0, 8], [0, 12], X).is_cover is None


def test_cover_and_check_errors() -> None:
    with pytest.raises(TypeError, match="^dichotomies must be a Dichotomies .* got list$"):
        Cover([0, 1])
    cov = build_cover(Thresholds(4), [3, 1, 3])
    assert len(cov) == 3 and cov.patterns.tolist() == [[False, False], [True, False], [True, True]]
    assert distinct_points(Thresholds(4), []).tolist() == []
    assert distinct_points(Rectangles(4, 2), [[3, 1], [1, 2], [3, 1]]).tolist() == [[1, 2], [3, 1]]
    with pytest.raises(ValueError, match="^probes must not be empty$"):
        empirical_cover_check(Thresholds(4), [0], [], [1, 2])
    with pytest.raises(ValueError, match="^cover must not be empty$"):
        empirical_cover_check(Thresholds(4), [], [1], [1, 2])


def test_two_dimensional_rectangles_use_the_full_minimum() -> None:
    # the 1-d neighbour search does not apply to l = 2: the check must equal the full matrix
    cls = Rectangles(3, 2)
    g = np.random.default_rng(4)
    T_pub = g.integers(0, 8, size=(6, 2))
    probes = [None] + [cls.random_hypothesis(g) for _ in range(30)]
    fresh = np.array([[a, b] for a in range(8) for b in range(8)])
    per = _same_as_full_matrix(cls, T_pub, probes, fresh)
    assert per.max() > 0


def test_cover_check_errors_name_their_parameter() -> None:
    T = Thresholds(4)
    with pytest.raises(TypeError, match="^cover must be a list of hypotheses, got str$"):
        empirical_cover_check(T, "abc", [1], [1, 2])
    with pytest.raises(TypeError, match="^probes must be a list of hypotheses, got str$"):
        empirical_cover_check(T, [0], "abc", [1, 2])
    with pytest.raises(ValueError, match=r"^X_fresh must lie in X_d = \[0, 2\^4 - 1\] \(d=4\)$"):
        empirical_cover_check(T, [0], [1], [1, 99])
    with pytest.raises(ValueError, match=r"^X_fresh must lie in X_d"):
        empirical_cover_check(T, build_cover(T, [1]), [1], [1, 99])


def test_distinct_points_names_t_pub_and_keeps_one_point() -> None:
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.covers import distinct_points

    with pytest.raises(TypeError) as err:
        distinct_points(Thresholds(4), "ab")
    assert str(err.value) == "T_pub must be an array of integers, got str"
    one = distinct_points(Thresholds(4), [3])
    assert one.dtype == np.uint64 and one.tolist() == [3]
    assert distinct_points(Thresholds(4), [3, 1, 3]).tolist() == [1, 3]

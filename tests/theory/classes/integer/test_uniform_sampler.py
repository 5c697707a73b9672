"""semiprivate.theory.classes.integer: the exact uniform sampler behind ``random_hypothesis`` (scripts/mutation.sh).

The large-n branch of ``uniform_int`` (n > 2^62) assembles 64-bit words, keeps the top
``n.bit_length()`` bits and rejects values >= n.  A scripted word source pins the assembly and the
rejection boundary exactly (a draw equal to n has probability ~2^-64 and no sampling test sees it);
a seeded draw through the public API checks the top of the range is reached.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import Intervals, PointFunctions, Thresholds
from semiprivate.theory.classes.integer import uniform_int


class _Words(np.random.Generator):
    """A Generator whose ``integers`` returns the scripted values, recording each call."""

    def __init__(self, *values: Any) -> None:
        super().__init__(np.random.PCG64(0))
        self.values: list[Any] = list(values)
        self.calls: list[Any] = []

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        return self.values.pop(0)


def test_large_n_words_are_assembled_and_truncated_to_the_bit_length() -> None:
    n = 2**64 + 1  # 65 bits: two words, keep the top 65 of 128 bits
    g = _Words(np.array([5, 2**63], dtype=np.uint64))
    assert uniform_int(g, n) == 11  # (5 << 64 | 2^63) >> 63
    assert g.calls == [((0, 2**64), {"size": 2, "dtype": np.uint64, "endpoint": False})]
    g = _Words(np.array([2**63 + 5], dtype=np.uint64))
    assert uniform_int(g, 3 * 2**62) == 2**63 + 5  # 64 bits, one word, no shift
    n = 2**62 + 1  # 63 bits: one word, drop its lowest bit
    g = _Words(np.array([2**64 - 1], dtype=np.uint64), np.array([7], dtype=np.uint64))
    assert uniform_int(g, n) == 3  # 2^63 - 1 >= n rejected, then 7 >> 1
    assert len(g.calls) == 2


def test_draws_at_or_above_n_are_rejected_and_n_minus_1_is_kept() -> None:
    n = 2**64 + 1
    at_n = np.array([2**63, 2**63], dtype=np.uint64)  # -> 2^64 + 1 = n: rejected
    above = np.array([2**64 - 1, 2**64 - 1], dtype=np.uint64)  # -> 2^65 - 1 > n: rejected
    last = np.array([2**63, 0], dtype=np.uint64)  # -> 2^64 = n - 1: kept
    g = _Words(at_n, above, last)
    assert uniform_int(g, n) == n - 1
    assert len(g.calls) == 3


def test_small_n_is_one_generator_call() -> None:
    g = _Words(7)
    assert uniform_int(g, 10) == 7
    assert g.calls == [((10,), {})]


def test_seeded_draws_cover_the_whole_range() -> None:
    # n = 2^64 + 1 (a threshold of THRESH_64): about a quarter of the draws lie above 0.75 * 2^64
    g = np.random.default_rng(0)
    draws = [uniform_int(g, 2**64 + 1) for _ in range(400)]
    assert all(0 <= v <= 2**64 for v in draws)
    assert 60 <= sum(v >= 3 * 2**62 for v in draws) <= 140
    assert 60 <= sum(v < 2**62 for v in draws) <= 140
    # the classes' random hypotheses draw through it
    t = [Thresholds(64).random_hypothesis(s) for s in range(200)]
    assert sum(v >= 2**63 for v in t) >= 60
    p = [PointFunctions(64).random_hypothesis(s) for s in range(200)]
    assert max(p) < 2**64 and sum(v >= 2**63 for v in p) >= 60
    a, b = Intervals(64).random_hypothesis(3)
    assert 0 <= a <= b < 2**64


def test_numpy_integer_n_above_2_62() -> None:
    # NumPy integers have no bit_length: n is converted to int (was an AttributeError)
    g = np.random.default_rng(1)
    assert 0 <= uniform_int(g, np.int64(2**62 + 5)) < 2**62 + 5
    assert 0 <= uniform_int(g, np.uint64(2**64 - 1)) < 2**64 - 1


# ---- the sorted-prefix error counts of thresholds and intervals (what the exponential mechanism scores)


def _brute(cls: Any, hyps: list[Any], X: Any, y: np.ndarray) -> list[int]:
    return [int(np.sum(cls.evaluate(h, X) != y)) for h in hyps]


def test_error_counts_equal_brute_force_on_every_hypothesis() -> None:
    g = np.random.default_rng(11)
    T, Iv, P = Thresholds(4), Intervals(3), PointFunctions(3)
    for n in (1, 2, 5, 9, 20):
        X = g.integers(0, 8, size=n)  # unsorted, with repeats
        y = g.random(n) < 0.5
        for cls in (T, Iv, P):
            hyps = cls.hypotheses()
            got = cls.error_counts(hyps, X, y)
            assert got.dtype == np.int64
            assert got.tolist() == _brute(cls, hyps, X, y), (cls, X.tolist(), y.tolist())
        # labels as 0/1 ints, and as a list
        assert T.error_counts([0, 3, 16], X, y.astype(int)).tolist() == _brute(T, [0, 3, 16], X, y)
        assert Iv.error_counts([None, (2, 5)], X.tolist(), y.tolist()).tolist() == _brute(Iv, [None, (2, 5)], X, y)
    # an empty sample: no errors
    assert T.error_counts([0, 5], [], np.zeros(0, dtype=bool)).tolist() == [0, 0]
    assert Iv.error_counts([None, (1, 2)], [], np.zeros(0, dtype=int)).tolist() == [0, 0]


def test_error_counts_at_the_top_of_x_64() -> None:
    T, Iv = Thresholds(64), Intervals(64)
    top = 2**64 - 1
    X = [top, 0, top - 1, 2**63]
    y = np.array([True, True, False, True])
    ts = [0, 1, 2**63, 2**63 + 1, top, 2**64]
    assert T.error_counts(ts, X, y).tolist() == _brute(T, ts, X, y) == [3, 2, 2, 1, 2, 1]
    ivs = [None, (0, top), (top, top), (2**63, top - 1), (0, 0)]
    assert Iv.error_counts(ivs, X, y).tolist() == _brute(Iv, ivs, X, y)


def test_domain_points_growth_function_and_repr() -> None:
    for cls in (Thresholds(12), Intervals(12), PointFunctions(12)):
        pts = cls.domain_points()
        assert pts.dtype == np.uint64 and pts.tolist() == list(range(4096))
    assert Thresholds(13).domain_points() is None and Intervals(40).domain_points() is None
    # the closed forms equal the number of dichotomies of m distinct points (whole domain included)
    for cls in (Thresholds(3), Intervals(3), PointFunctions(3)):
        for m in range(0, 9):
            assert cls.growth_function_closed_form(m) == len(cls.dichotomies(list(range(m)))), (cls, m)
    assert (Thresholds(3).growth_function_closed_form(20), Intervals(3).growth_function_closed_form(20)) == (21, 211)
    assert PointFunctions(3).growth_function_closed_form(20) == 20
    assert repr(Intervals(7)) == "Intervals(d=7)" and repr(PointFunctions(2)) == "PointFunctions(d=2)"


def test_random_intervals_are_seeded_ordered_and_cover_every_pair() -> None:
    Iv = Intervals(3)
    draws = [Iv.random_hypothesis(s) for s in range(1500)]
    assert draws == [Iv.random_hypothesis(s) for s in range(1500)]
    assert all(0 <= a <= b < 8 for a, b in draws)
    assert set(draws) == {(a, b) for a in range(8) for b in range(a, 8)}
    # a = b has probability 1/64 per value, a < b 2/64 per pair
    assert 1500 * 6 / 64 <= sum(a == b for a, b in draws) <= 1500 * 18 / 64


def test_enumeration_limits_and_label_checks() -> None:
    assert len(Thresholds(12).hypotheses()) == 4097 and Thresholds(13).hypotheses() is None
    assert len(PointFunctions(12).hypotheses()) == 4096 and PointFunctions(13).hypotheses() is None
    assert len(Intervals(6).hypotheses()) == 64 * 65 // 2 + 1 and Intervals(7).hypotheses() is None
    for cls in (Thresholds(3), Intervals(3)):
        with pytest.raises(ValueError, match=r"^y must be 1-d of length 2, got shape \(1,\)$"):
            cls.error_counts([0], [1, 2], [1])
        with pytest.raises(ValueError, match=r"^y must contain only 0 and 1"):
            cls.error_counts([0], [1, 2], [1, 3])


# ---- evaluation near the top of X_64 (uint64 throughout: a float64 or int64 detour loses the last bits)

_TOP_X = [0, 1, 2**53, 2**53 + 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1]


def test_thresholds_evaluate_many_matches_evaluate_at_the_top() -> None:
    T = Thresholds(64)
    ts = [0, 1, 2**53 + 1, 2**63 + 1, 2**64 - 1, 2**64]
    M = T.evaluate_many(ts, _TOP_X)
    assert M.dtype == bool and M.shape == (6, 8)
    assert M.tolist() == [T.evaluate(t, _TOP_X).tolist() for t in ts]
    assert M[-1].all() and M[-2].tolist() == [True] * 7 + [False]
    for t in ts:
        assert T.evaluate(t, _TOP_X).dtype == bool


def test_intervals_evaluate_many_matches_evaluate_at_the_top() -> None:
    Iv = Intervals(64)
    ivs = [None, (0, 2**64 - 1), (2**53 + 1, 2**53 + 1), (2**63 + 1, 2**64 - 2), (2**64 - 1, 2**64 - 1), (1, 2**53)]
    M = Iv.evaluate_many(ivs, _TOP_X)
    assert M.dtype == bool and M.shape == (6, 8)
    assert M.tolist() == [Iv.evaluate(h, _TOP_X).tolist() for h in ivs]
    assert M[2].tolist() == [False, False, False, True, False, False, False, False]
    assert M[3].tolist() == [False] * 5 + [True, True, False]
    assert Iv.evaluate(None, _TOP_X).dtype == bool and not Iv.evaluate(None, _TOP_X).any()


def test_hypotheses_are_validated_with_their_names() -> None:
    Iv, P = Intervals(3), PointFunctions(3)
    cases = [(Iv, 5, TypeError, r"^interval must be a pair \(a, b\) of ints or None, got 5$"),
             (Iv, (1, 2, 3), ValueError, r"^interval must be a pair \(a, b\) of ints or None, got \(1, 2, 3\)$"),
             (Iv, (1.5, 2), TypeError, r"^interval start must be an int, got 1.5$"),
             (Iv, (1, 2.5), TypeError, r"^interval end must be an int, got 2.5$"),
             (Iv, (0, 8), ValueError, r"^interval must satisfy 0 <= a <= b < 2\^3, got \(0, 8\)$"),
             (Iv, (8, 8), ValueError, r"^interval must satisfy"),
             (Thresholds(3), 1.5, TypeError, r"^threshold must be an int, got 1.5$"),
             (Thresholds(3), 9, ValueError, r"^threshold must be in \[0, 2\^3\], got 9$"),
             (P, 1.5, TypeError, r"^point must be an int, got 1.5$"),
             (P, 8, ValueError, r"^point must be in X_d, got 8$"),
             (P, 9, ValueError, r"^point must be in X_d, got 9$")]
    for cls, h, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            cls._check_h(h)
    assert Iv._check_h((0, 7)) == (0, 7) and P._check_h(7) == 7 and Thresholds(3)._check_h(8) == 8
    # points: the parameter name defaults to X
    with pytest.raises(ValueError, match=r"^X must lie in X_d = \[0, 2\^3 - 1\] \(d=3\)"):
        Iv.validate_points([9])
    with pytest.raises(ValueError, match=r"^T must lie in X_d"):
        Iv.validate_points([9], "T")


def test_random_thresholds_and_points_are_seeded_and_reach_every_value() -> None:
    T, P = Thresholds(2), PointFunctions(3)
    t = [T.random_hypothesis(s) for s in range(300)]
    assert t == [T.random_hypothesis(s) for s in range(300)] and set(t) == {0, 1, 2, 3, 4}
    p = [P.random_hypothesis(s) for s in range(300)]
    assert p == [P.random_hypothesis(s) for s in range(300)] and set(p) == set(range(8))


def test_point_function_dichotomies_use_the_smallest_point_outside_b() -> None:
    import itertools

    for d in (1, 2):
        P = PointFunctions(d)
        for r in range(0, 2**d + 1):
            for B in itertools.combinations(range(2**d), r):
                dic = P.dichotomies(list(B))
                reps = dic.representatives
                assert len(reps) == P.growth_function_closed_form(len(B))
                outside = [j for j in range(2**d) if j not in B]
                assert sorted(reps) == sorted(list(B) + outside[:1]), (d, B, reps)
                pats = [P.evaluate(h, dic.points).tolist() for h in reps]
                assert pats == dic.patterns.tolist() and len({tuple(x) for x in pats}) == len(reps)


_D4 = "[0, 2^4 - 1] (d=4)"
_POINTS_OK: list[tuple[Any, int, list[int]]] = [
    (5, 4, [5]), (np.int64(7), 4, [7]), ([0, 15], 4, [0, 15]), ([[3], [4]], 4, [3, 4]),
    (np.array([[3], [4]]), 4, [3, 4]), (np.array([0.0, 15.0]), 4, [0, 15]), (np.array([2.0**53 - 1]), 53, [2**53 - 1]),
    (np.array([1, 2], dtype=np.uint8), 4, [1, 2]), ([2**64 - 1], 64, [2**64 - 1]), ([5], 4, [5]),
    (np.array([2**62 + 1]), 63, [2**62 + 1]), (np.array([15]), 4, [15]),
]
_POINTS_BAD: list[tuple[Any, int, type, str]] = [
    (None, 4, TypeError, "X must be an array of integers, got None"),
    ("abc", 4, TypeError, "X must be an array of integers, got str"),
    (True, 4, ValueError, "X must be 1-d, got shape ()"),
    (np.array([1, "a"], dtype=object), 4, TypeError, "X must contain integers"),
    (np.array([1, True], dtype=object), 4, TypeError, "X must contain integers"),
    ([16], 4, ValueError, f"X must lie in X_d = {_D4}"), ([-1], 4, ValueError, f"X must lie in X_d = {_D4}"),
    (np.array([16], dtype=object), 4, ValueError, f"X must lie in X_d = {_D4}"),
    ([[1, 2], [3, 4]], 4, ValueError, "X must be 1-d, got shape (2, 2)"),
    ([], 4, ValueError, "X must not be empty"),
    (np.array([True, False]), 4, TypeError, "X must contain integers, got dtype bool"),
    (np.array([1.0, np.nan]), 4, ValueError, "X must not contain NaN or inf"),
    (np.array([1.5]), 4, ValueError, "X must contain integers, got non-integer floats"),
    (np.array([-1.0]), 4, ValueError, f"X must lie in X_d = {_D4}"),
    (np.array([16.0]), 4, ValueError, f"X must lie in X_d = {_D4}"),
    (np.array([1.0]), 54, TypeError, "X: float input cannot represent X_54 exactly; pass integers"),
    (np.array([-1]), 4, ValueError, f"X must lie in X_d = {_D4}, got a negative value"),
    # the message never states the offending value: X may be private (a learner's labelled points)
    (np.array([16]), 4, ValueError, f"X must lie in X_d = {_D4}, got a value of 2^4 or more"),
    (np.array([16], dtype=np.uint32), 4, ValueError, f"X must lie in X_d = {_D4}, got a value of 2^4 or more"),
    (np.array([3, 1234567]), 4, ValueError, f"X must lie in X_d = {_D4}, got a value of 2^4 or more"),
    (np.array(["a"]), 4, TypeError, "X must contain integers, got dtype <U1"),
]


@pytest.mark.parametrize("X, d, want", _POINTS_OK)
def test_validate_integer_points_accepts_and_converts(X: Any, d: int, want: list[int]) -> None:
    """Every accepted input form (scalar, list, column, float, small unsigned, up to 2^64 - 1, int64 values
    beyond 2^53 kept exact) becomes the same 1-d uint64 array."""
    from semiprivate.theory.classes.integer import validate_integer_points

    out = validate_integer_points(X, d)
    assert out.dtype == np.uint64 and out.ndim == 1 and [int(v) for v in out] == want


@pytest.mark.parametrize("X, d, exc, msg", _POINTS_BAD)
def test_validate_integer_points_rejects_with_the_exact_message(X: Any, d: int, exc: type, msg: str) -> None:
    """Every rejected input form raises its own exception type and message (X_d's bounds are [0, 2^d - 1]:
    2^d - 1 passes, 2^d does not; floats are exact only up to d = 53)."""
    from semiprivate.theory.classes.integer import validate_integer_points

    with pytest.raises(exc) as err:
        validate_integer_points(X, d)
    assert str(err.value) == msg


def test_validate_integer_points_name_empty_and_no_copy() -> None:
    from semiprivate.theory.classes.integer import validate_integer_points

    with pytest.raises(TypeError) as err:
        validate_integer_points([1], 4, 3)  # type: ignore[arg-type]
    assert str(err.value) == "name must be a string (the parameter name for messages), got int"
    with pytest.raises(ValueError) as err:
        validate_integer_points([[1, 2]], 4, "T_pub")
    assert str(err.value) == "T_pub must be 1-d, got shape (1, 2)"
    empty = validate_integer_points([], 4, allow_empty=True)
    assert empty.dtype == np.uint64 and empty.shape == (0,)
    a = np.array([1, 2, 3], dtype=np.uint64)
    assert validate_integer_points(a, 4) is a  # uint64 input is used as is (no copy of a large sample)

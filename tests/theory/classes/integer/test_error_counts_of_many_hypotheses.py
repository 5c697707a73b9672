"""Thresholds and Intervals count the errors of (and evaluate) a whole list of hypotheses at once: equal to one
:meth:`evaluate` per hypothesis (the reference) on random inputs, and a list with one bad hypothesis is refused
with the message the per-hypothesis check gives for it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semiprivate.theory.classes import Intervals, Thresholds


def _reference_counts(cls, hyps, X, y):
    return np.array([int(np.sum(cls.evaluate(h, X) != np.asarray(y, dtype=bool))) for h in hyps], dtype=np.int64)


def _intervals(d):
    top = 2**d - 1
    pair = st.tuples(st.integers(0, top), st.integers(0, top)).map(lambda p: (min(p), max(p)))
    return st.lists(st.one_of(st.none(), pair, pair.map(list)), max_size=12)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 3, 8, 40, 62, 63, 64]), st.data())
def test_interval_counts_and_values_equal_one_evaluation_per_hypothesis(d, data):
    cls = Intervals(d)
    X = data.draw(st.lists(st.integers(0, 2**d - 1), min_size=1, max_size=10))
    y = data.draw(st.lists(st.integers(0, 1), min_size=len(X), max_size=len(X)))
    hyps = data.draw(_intervals(d))
    assert np.array_equal(cls.error_counts(hyps, X, y), _reference_counts(cls, hyps, X, y))
    assert np.array_equal(cls.error_counts(iter(hyps), X, y), _reference_counts(cls, hyps, X, y))
    expected = np.array([cls.evaluate(h, X) for h in hyps], dtype=bool).reshape(len(hyps), len(X))
    assert np.array_equal(cls.evaluate_many(hyps, X), expected)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 3, 8, 40, 62, 63, 64]), st.data())
def test_threshold_counts_and_values_equal_one_evaluation_per_hypothesis(d, data):
    cls = Thresholds(d)
    X = data.draw(st.lists(st.integers(0, 2**d - 1), min_size=1, max_size=10))
    y = data.draw(st.lists(st.integers(0, 1), min_size=len(X), max_size=len(X)))
    hyps = data.draw(st.lists(st.integers(0, 2**d), max_size=12))
    assert np.array_equal(cls.error_counts(hyps, X, y), _reference_counts(cls, hyps, X, y))
    expected = np.array([cls.evaluate(h, X) for h in hyps], dtype=bool).reshape(len(hyps), len(X))
    assert np.array_equal(cls.evaluate_many(hyps, X), expected)


@pytest.mark.parametrize("bad", [(True, 2), (0, 1.0), (3, 1), (0, 256), (-1, 0), (0, 1, 2), "ab", (0, 2**70),
                                 (np.float64(1), 2)])
def test_a_bad_interval_in_a_list_is_refused_as_on_its_own(bad):
    cls = Intervals(8)
    with pytest.raises((TypeError, ValueError)) as alone:
        cls.evaluate(bad, [1])
    for method in (lambda h: cls.error_counts(h, [1, 2], [0, 1]), lambda h: cls.evaluate_many(h, [1, 2])):
        with pytest.raises(type(alone.value)) as inlist:
            method([(0, 1), None, bad, (2, 3)])
        assert str(inlist.value) == str(alone.value)


@pytest.mark.parametrize("bad", [True, 1.0, -1, 257, "3", 2**70])
def test_a_bad_threshold_in_a_list_is_refused_as_on_its_own(bad):
    cls = Thresholds(8)
    with pytest.raises((TypeError, ValueError)) as alone:
        cls.evaluate(bad, [1])
    for method in (lambda h: cls.error_counts(h, [1, 2], [0, 1]), lambda h: cls.evaluate_many(h, [1, 2])):
        with pytest.raises(type(alone.value)) as inlist:
            method([0, 5, bad, 256])
        assert str(inlist.value) == str(alone.value)

"""The geometric mechanism maps a Python-int answer by value and refuses by type only; every mechanism's
fixed-at-construction state holds through unpickling.

Deterministic (no statistics): a refusal either happens or not, and a loaded state is compared with the one
its parameters give.
"""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction

import numpy as np
import pytest
from semiprivate.theory.privacy.mechanisms import (
    GaussianMechanism,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
)

MAX = GeometricMechanism.MAX_ANSWER


@pytest.mark.parametrize("D, Dp", [([2**64 - 1], [2**64]), ([-2**63], [-2**63 - 1]), ([2**70], [2**70 + 1])])
def test_a_sum_query_answers_both_neighbours_whatever_numpy_would_infer(D, Dp):
    m = GeometricMechanism(1.0, query=sum)
    for data in (D, Dp):
        out = m(data, 3, None)
        assert out.dtype == np.int64
    assert m._int_answer(D) == m._int_answer(Dp) == int(np.sign(D[0])) * MAX  # both clipped by value


def test_python_int_vectors_are_mapped_exactly_not_through_float64():
    m = GeometricMechanism(1.0)
    # NumPy infers float64 for this list (a negative entry and one past 2^63) and rounds 2^53 + 1 to 2^53
    assert m._int_answer([-1, 2**63, 2**53 + 1]).tolist() == [-1, MAX, 2**53 + 1]
    assert m._int_answer((3, -2**80)).tolist() == [3, -MAX]
    assert m._int_answer(True) == 1


@pytest.mark.parametrize("answer", [Fraction(3, 2), "7", [Fraction(1, 2)], np.array([1], dtype=object)])
def test_a_non_numeric_answer_is_refused_by_its_type(answer):
    with pytest.raises(TypeError, match="numeric answer"):
        GeometricMechanism(1.0)._int_answer(answer)


MECHANISMS = [
    lambda: LaplaceMechanism(1.0),
    lambda: GaussianMechanism(1.0, 1e-5),
    lambda: GeometricMechanism(1.0),
    lambda: RandomizedResponse(1.0, n_categories=3),
    lambda: ReportNoisyMax(1.0),
]


@pytest.mark.parametrize("make", MECHANISMS)
def test_a_pickle_round_trip_and_a_copy_keep_the_mechanism(make):
    m = make()
    for m2 in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert type(m2) is type(m) and m2.privacy == m.privacy and repr(m2) == repr(m)


@pytest.mark.parametrize("make", MECHANISMS)
def test_a_loaded_state_whose_epsilon_was_edited_is_refused(make):
    m = make()
    state = dict(m.__getstate__())
    state["epsilon"] = 50.0  # privacy, scale, alpha, p_truth... still describe epsilon 1
    fresh = type(m).__new__(type(m))
    with pytest.raises(ValueError, match="does not follow from its parameters"):
        fresh.__setstate__(state)
    assert "epsilon" not in vars(fresh)  # nothing of the refused state was applied


def test_a_loaded_state_edited_consistently_is_checked_by_the_constructor():
    m = GeometricMechanism(1.0)
    state = dict(m.__getstate__())
    state["epsilon"] = -1.0
    with pytest.raises(ValueError, match="invalid parameters"):
        GeometricMechanism.__new__(GeometricMechanism).__setstate__(state)
    state = dict(m.__getstate__())
    state["privacy"] = (0.5, 0.0)  # a claim stronger than the noise
    with pytest.raises(ValueError, match="'privacy' does not follow"):
        GeometricMechanism.__new__(GeometricMechanism).__setstate__(state)

"""BNS15.Alg2 (LabelBoostProcedure): what it refuses, what it returns, and how it reads vector points.

Deterministic tests (exact enumeration, messages, seeded reproducibility); the seeded test has no
false-failure rate (a seed fixes every draw), and a sampler that ignored the seed would agree on ten
repeated pairs with probability <= 0.08^10 here (no relabelling has probability 0.08 or more).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from semiprivate.theory.classes import Rectangles, Thresholds
from semiprivate.theory.learners.labelboost_procedure import (
    label_boost_procedure,
    label_boost_procedure_distribution,
)


def test_a_non_class_is_refused_naming_the_parameter_and_its_type():
    with pytest.raises(TypeError, match=r"concept_class must be a ConceptClass, got list"):
        label_boost_procedure([1, 2], [1], [1], [], rng=0)
    with pytest.raises(TypeError, match=r"concept_class must be a ConceptClass, got list"):
        label_boost_procedure_distribution([1, 2], [1], [1], [])


@pytest.mark.parametrize("args, name", [
    (([1, 99], [1, 0], [3]), "X_labelled"),      # 99 is outside X_4 = {0, ..., 15}
    (([1, 9], [1, 0], [3, 99]), "X_unlabelled"),
    (([1, 9], [1, 0, 1], [3]), "y_labelled"),    # three labels for two points
    (([1, 9], [1, 2], [3]), "y_labelled"),       # a label outside {0, 1}
])
def test_bad_inputs_are_refused_naming_the_argument(args, name):
    for call in (lambda: label_boost_procedure(Thresholds(4), *args, rng=0),
                 lambda: label_boost_procedure_distribution(Thresholds(4), *args)):
        with pytest.raises(ValueError, match=rf"\b{name}\b"):  # the name itself, not a longer word
            call()


def test_the_result_is_the_chosen_representative_and_its_relabelling():
    C = Thresholds(4)
    XS, yS, XT = np.array([1, 9, 4]), np.array([1, 0, 1]), np.array([3, 12, 7])
    for seed in range(5):
        r = label_boost_procedure(C, XS, yS, XT, rng=seed)
        assert r.hypothesis == r.representatives[r.chosen]
        np.testing.assert_array_equal(r.errors, C.error_counts(r.representatives, XS, yS.astype(bool)))
        np.testing.assert_array_equal(r.labels, C.evaluate(r.hypothesis, np.r_[XS, XT]))
        assert r.labels.dtype == bool


def test_a_seed_fixes_the_draw():
    C = Thresholds(4)
    XS, yS, XT = np.array([0]), np.array([1]), np.arange(1, 13)  # 13 of the 14 relabellings err 0 times on S
    rows, probs = label_boost_procedure_distribution(C, XS, yS, XT)
    assert len(rows) == 14 and probs.max() < 0.08
    for seed in range(10):
        a = label_boost_procedure(C, XS, yS, XT, rng=seed)
        b = label_boost_procedure(C, XS, yS, XT, rng=seed)
        assert a.chosen == b.chosen
    assert len({label_boost_procedure(C, XS, yS, XT, rng=s).chosen for s in range(40)}) > 1


def _brute_force_relabellings(C, both):
    """Every labelling of ``both`` that some box (or the empty box) induces, from all boxes over X_d^2."""
    vals = range(2 ** C.d)
    out = {tuple(C.evaluate(None, both).tolist())}
    for lo in itertools.product(vals, repeat=2):
        for hi in itertools.product(vals, repeat=2):
            if all(a <= b for a, b in zip(lo, hi)):
                out.add(tuple(C.evaluate((lo, hi), both).tolist()))
    return out


def test_vector_points_are_read_as_rows():
    # P is the distinct rows of S∘T: reading the coordinates as separate points would give wrong dichotomies
    C = Rectangles(2, 2)
    XS = np.array([[0, 3], [1, 1], [2, 0]])
    yS = np.array([1, 1, 0])
    XT = np.array([[3, 3], [1, 1], [0, 2]])  # one repeated row
    rows, probs = label_boost_procedure_distribution(C, XS, yS, XT)
    both = np.r_[XS, XT]
    assert {tuple(r.tolist()) for r in rows} == _brute_force_relabellings(C, both)
    assert len(rows) == len({tuple(r.tolist()) for r in rows}) and np.isclose(probs.sum(), 1.0)

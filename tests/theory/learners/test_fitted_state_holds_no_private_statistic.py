"""A fitted learner keeps no exact statistic of its private sample outside the mechanism's output: the coin-free state
is the same on neighbours, and no error counts or private sample are kept."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit.end_to_end import encode_state
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.generic import GenericLearner
from semiprivate.theory.learners.labelboost import LabelBoost
from semiprivate.theory.learners.reduction import ReductionLearner
from semiprivate.theory.privacy.seeds import separate_seed_record

C2 = Thresholds(2)


# -- no exact statistic of the private sample on a fitted estimator ----------------------
def _tiny_labelboost(**kw):
    C1 = Thresholds(1)
    return LabelBoost(GenericPrivateLearner(1.0, concept_class=C1), concept_class=C1, n=1, alpha=0.5,
                      unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                      beta_factor=1, iteration_ratio=2, final_ratio=2, **kw)


def _state_without(obj, random):
    return encode_state(obj, exclude=random)


@pytest.mark.parametrize("make, random", [
    (lambda: GenericPrivateLearner(1.0, concept_class=C2, random_state=np.random.default_rng(0)), ("index_", "hypothesis_")),
    (lambda: ASSPP(1.0, concept_class=C2, random_state=np.random.default_rng(0)), ("index_", "hypothesis_")),
])
def test_state_outside_the_mechanism_output_does_not_see_one_label(make, random):
    X, Xpub = [0, 1, 2, 3], [0, 1, 2, 3]
    a = make().fit(X, [1, 1, 0, 0], Xpub)
    with separate_seed_record():  # the same coins on the neighbour, on purpose
        b = make().fit(X, [1, 1, 0, 1], Xpub)
    assert _state_without(a, random) == _state_without(b, random)


def test_disjunction_enumerate_path_keeps_no_error_counts():
    Xu = np.array([[1, 1, 0], [0, 0, 1]])
    Xp = np.array([[1, 0, 0], [0, 0, 1]])
    a = ComponentDisjunctionLearner(1.0, random_state=np.random.default_rng(0)).fit(Xp, [1, -1], Xu)
    with separate_seed_record():  # the same coins on the neighbour, on purpose
        b = ComponentDisjunctionLearner(1.0, random_state=np.random.default_rng(0)).fit(Xp, [1, 1], Xu)
    assert a.method_ == "enumerate"
    assert _state_without(a, ("union_", "hypothesis_")) == _state_without(b, ("union_", "hypothesis_"))


def test_generic_learner_and_labelboost_keep_no_error_counts():
    L = GenericLearner(1.0, concept_class=C2, random_state=0).fit([0, 3], [1, 0], [0, 1, 2, 3])
    assert not hasattr(L, "errors_")
    B = _tiny_labelboost(random_state=1).fit([0, 1], [1, 0], [0, 1, 1, 0, 1, 0])
    assert B.schedule_ and all("errors_on_S" not in it for it in B.schedule_)


def test_reduction_learner_keeps_no_private_sample():
    from semiprivate.theory.distributions import RandomLabelDistribution

    D0 = RandomLabelDistribution(lambda n, g: g.integers(0, 2, n))
    B = ReductionLearner(1.0, random_state=0, n_priv=20, n_pub=1, D0=D0,
                         base_learner=lambda e, d, g: GenericPrivateLearner(e, d, concept_class=Thresholds(1), random_state=g))
    B.fit(np.array([1, 0]), [1, 0])
    assert not any(np.array_equal(np.asarray(v), [1, 0]) for v in vars(B).values() if isinstance(v, np.ndarray))
    assert not hasattr(B, "private_sample_")

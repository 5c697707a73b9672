"""LabelBoost checks its base learner (BNS15 Alg 3 runs a private PSSL on the relabelled sample):
a base declared not private is refused, and a base that reports a weaker privacy_ after fit than the
base_privacy the guarantee was computed from is refused (privacy_ would not hold otherwise)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.labelboost import LabelBoost

C = Thresholds(6)
SMALL = dict(concept_class=C, n=4, alpha=0.5, unlabelled_factor=4000, target_factor=16, cap_factor=4000,
             exponent_constant=0.05, alpha_factor=1, beta_factor=1, iteration_ratio=60, final_ratio=300, random_state=1)


def _data():
    rng = np.random.default_rng(0)
    X_D, X_S = rng.integers(0, 64, 20000), rng.integers(0, 64, 60)
    return X_S, (X_S < 30).astype(int), X_D


class _NotPrivate(GenericPrivateLearner):
    privacy_model_ = "not private"


class _ReportsMore(GenericPrivateLearner):
    """Claims (1, 0) up front but reports (inf, 0) for what ran."""

    def fit(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().fit(*args, **kwargs)
        self.privacy_ = (float("inf"), 0.0)
        return self


def test_a_base_learner_declared_not_private_is_refused():
    with pytest.raises(ValueError, match=r"base_learner: _NotPrivate is not private"):
        LabelBoost(_NotPrivate(1.0, concept_class=C), base_privacy=(1.0, 0.0), **SMALL).fit(*_data())


def test_a_base_learner_reporting_a_weaker_guarantee_is_refused():
    with pytest.raises(ValueError, match=r"base_learner: it reported privacy_ = \(inf, 0\.0\) after fit"):
        LabelBoost(_ReportsMore(1.0, concept_class=C), **SMALL).fit(*_data())


def test_the_honest_base_learner_runs():
    assert LabelBoost(GenericPrivateLearner(1.0, concept_class=C), **SMALL).fit(*_data()).privacy_ == (1.0, 0.0)

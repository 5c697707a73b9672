"""scikit-learn's estimator checks over every learner (the learner protocol, semiprivate.theory.learners._base).

Each learner runs every check of ``sklearn.utils.estimator_checks``; a check it cannot pass is declared in the
class's ``expected_failed_checks`` with the reason (a finite concept class's points are not real-valued feature
matrices; a learner that needs public rows cannot be fitted with ``fit(X, y)`` alone; parameters validated in
``__init__``), and marked xfail with that reason, as scikit-learn's own estimators are.  A declared check that
passes (XPASS) fails this module: ``strict`` xfail, so a declaration cannot outlive its reason.

The checks refit one seeded estimator on many datasets (every check is a release of its own); the seed record
refuses one int seed on two different releases, so the module runs under ``seed_reuse_allowed``: these checks
test scikit-learn's conventions, not a release.  The label sets vary from check to check (strings, 3 classes), so
the halfspace learners cannot declare ``classes=``: they report ``privacy_ = (inf, 0)`` with a PrivacyWarning
(tested in tests/theory/learners/halfspaces), ignored here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import RandomLabelDistribution
from semiprivate.theory.learners._base import VALIDATED_IN_INIT, LearnerBase
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.generic import GenericLearner
from semiprivate.theory.learners.halfspaces import (
    FullDimensionHalfspace,
    NonPrivateHalfspace,
    RandomProjectionHalfspace,
    SemiPrivateHalfspace,
)
from semiprivate.theory.learners.labelboost import LabelBoost
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.learners.reduction import ReductionLearner
from sklearn.utils.estimator_checks import parametrize_with_checks

pytestmark = [pytest.mark.usefixtures("seed_reuse_allowed"),
              pytest.mark.filterwarnings("ignore::semiprivate.theory.privacy.public_rows.PrivacyWarning")]

_C = Thresholds(4)


def _klnrs(epsilon: float, delta: float, rng: Any) -> GenericPrivateLearner:
    return GenericPrivateLearner(epsilon, delta, random_state=rng, concept_class=_C)


def _uniform_points(n: int, g: np.random.Generator) -> np.ndarray:
    return g.integers(0, 16, n)


# small settings: the checks fit each learner about 60 times on their own small datasets.  FullDimensionHalfspace
# runs the Noisy SGD trainer (30 steps; the one configuration of these checks on that trainer: its accountant
# costs a fraction of a second per dataset size and label count, paid once per process);
# RandomProjectionHalfspace runs DP-SGD on full batches (q = 1) under the RDP accountant, whose calibration is
# the same for every dataset size and takes milliseconds (the projection is what this configuration adds)
LEARNERS = [
    GenericPrivateLearner(1.0, concept_class=_C, random_state=0),
    ASSPP(1.0, concept_class=_C, random_state=0),
    GenericLearner(1.0, concept_class=_C, random_state=0),
    LabelBoost(GenericPrivateLearner(1.0, concept_class=_C), concept_class=_C, n=10, random_state=0),
    ReductionLearner(1.0, base_learner=_klnrs, n_priv=200, n_pub=1, D0=RandomLabelDistribution(_uniform_points),
                     random_state=0),
    ComponentDisjunctionLearner(random_state=0),
    SemiPrivateHalfspace(k=1, accountant="rdp", row_norm="clip", random_state=0),
    RandomProjectionHalfspace(k=1, epochs=2, batch_size=10_000, accountant="rdp", row_norm="clip", random_state=0),
    FullDimensionHalfspace(trainer="noisy_sgd", noisy_sgd_steps=30, row_norm="clip", random_state=0),
    NonPrivateHalfspace(projection="none", n_iter=50, row_norm="clip", random_state=0),
    SemiPrivateMultinomial(projection="none", random_state=0),
]


def _declared(estimator: Any) -> dict[str, str]:
    return dict(type(estimator).expected_failed_checks)


@parametrize_with_checks(LEARNERS, expected_failed_checks=_declared, xfail_strict=True)
def test_sklearn_compatible_learner(estimator: Any, check: Any, run_estimator_check: Any) -> None:
    run_estimator_check(estimator, check, _declared(estimator))


def test_every_learner_is_checked_and_declares_reasons() -> None:
    """Every learner class of the package is in LEARNERS, and each declared check has a reason."""
    import semiprivate.theory.learners as learners

    public = {getattr(learners, n) for n in learners.__all__}
    classes = {c for c in public if isinstance(c, type) and issubclass(c, LearnerBase)}
    assert classes == {type(e) for e in LEARNERS}
    for est in LEARNERS:
        declared = _declared(est)
        assert set(VALIDATED_IN_INIT) <= set(declared)
        assert all(isinstance(r, str) and len(r) > 20 for r in declared.values()), type(est).__name__

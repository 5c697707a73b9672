"""Learners (SPEC sections 3-7): KLNRS generic, ASSPP (ABM19 Alg 1), the ABM19 reduction, BNS15 GenericLearner
and LabelBoost, ...

Scikit-learn style: ``Learner(epsilon, delta=0.0, *, rng=None, **params)``,
``fit(X_private, y_private, X_public=None)`` returns self, ``predict(X)``, and ``privacy``
= the (epsilon, delta) the theorem guarantees for what was run.  Import the sub-modules
directly (other engineers add theirs); the names below are re-exported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "GenericPrivateLearner": "theory.learners.exponential",
    "ASSPP": "theory.learners.asspp",
    "ReductionLearner": "theory.learners.reduction",
    "priv_samp": "theory.learners.reduction",
    "pub_samp": "theory.learners.reduction",
    "reduction_sample_size": "theory.learners.reduction",
    "GenericLearner": "theory.learners.generic",
    "LabelBoost": "theory.learners.labelboost",
    "label_boost_procedure": "theory.learners.labelboost",
    "labelboost_run_privacy": "theory.learners.labelboost",
    "ComponentDisjunctionLearner": "theory.learners.disjunctions",
    "thm2_instance": "theory.learners.disjunctions",
    "LabelOracle": "theory.learners.active",
    "BudgetExceededError": "theory.learners.active",
    "PrivacyClaim": "theory.learners.active",
    "check_claim": "theory.learners.active",
    "PSSLAsTPAL": "theory.learners.active",
    "SubSampling": "theory.learners.active",
    "subsampling_guarantee": "theory.learners.active",
    "BinarySearchThresholdLearner": "theory.learners.active",
    "SemiPrivateHalfspace": "theory.learners.halfspaces",
    "RandomProjectionHalfspace": "theory.learners.halfspaces",
    "FullDimensionHalfspace": "theory.learners.halfspaces",
    "NonPrivateHalfspace": "theory.learners.halfspaces",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'theory.learners' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

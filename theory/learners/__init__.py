"""Learners (SPEC sections 3-7): KLNRS generic, ASSPP (ABM19 Alg 1), the ABM19 reduction, BNS15 GenericLearner
and LabelBoost, ...

Scikit-learn style: ``Learner(epsilon, delta=0.0, *, rng=None, **params)``,
``fit(X, y, X_public=None)`` returns self, ``predict(X)``, and ``privacy``
= the (epsilon, delta) the theorem guarantees for what was run.  Import the sub-modules
directly (other engineers add theirs); the names below are re-exported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "GenericPrivateLearner": "semiprivate.theory.learners.exponential",
    "ASSPP": "semiprivate.theory.learners.asspp",
    "ReductionLearner": "semiprivate.theory.learners.reduction",
    "priv_samp": "semiprivate.theory.learners.reduction",
    "pub_samp": "semiprivate.theory.learners.reduction",
    "reduction_sample_size": "semiprivate.theory.learners.reduction",
    "GenericLearner": "semiprivate.theory.learners.generic",
    "LabelBoost": "semiprivate.theory.learners.labelboost",
    "label_boost_procedure": "semiprivate.theory.learners.labelboost",
    "labelboost_run_privacy": "semiprivate.theory.learners.labelboost",
    "ComponentDisjunctionLearner": "semiprivate.theory.learners.disjunctions",
    "thm2_instance": "semiprivate.theory.learners.disjunctions",
    "LabelOracle": "semiprivate.theory.learners.active",
    "BudgetExceededError": "semiprivate.theory.learners.active",
    "PrivacyClaim": "semiprivate.theory.learners.active",
    "check_claim": "semiprivate.theory.learners.active",
    "PSSLAsTPAL": "semiprivate.theory.learners.active",
    "SubSampling": "semiprivate.theory.learners.active",
    "subsampling_guarantee": "semiprivate.theory.learners.active",
    "BinarySearchThresholdLearner": "semiprivate.theory.learners.active",
    "SemiPrivateHalfspace": "semiprivate.theory.learners.halfspaces",
    "RandomProjectionHalfspace": "semiprivate.theory.learners.halfspaces",
    "FullDimensionHalfspace": "semiprivate.theory.learners.halfspaces",
    "NonPrivateHalfspace": "semiprivate.theory.learners.halfspaces",
    "SemiPrivateMultinomial": "semiprivate.theory.learners.multinomial",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'semiprivate.theory.learners' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

"""Shared plumbing of the learners: input checks and the scikit-learn style shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels._exponential import check_binary
from theory.classes.base import ConceptClass


def check_fit_inputs(concept_class: ConceptClass, X_private: Any, y_private: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a private labelled sample (non-empty, labels in {0,1}, same length)."""
    X = concept_class.validate_points(X_private, "X_private")
    y = check_binary(y_private, "y_private", length=len(X), as_bool=True)
    return X, y


class _Fitted:
    """Mixin: ``predict`` from the fitted ``hypothesis_``."""

    concept_class: ConceptClass
    hypothesis_: Any

    def predict(self, X: Any) -> np.ndarray:
        """Labels (0/1 as int64) of the learned hypothesis on ``X``."""
        if not hasattr(self, "hypothesis_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        return self.concept_class.evaluate(self.hypothesis_, X).astype(np.int64)

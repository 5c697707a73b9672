"""The declared rule for ``concept_class`` parameters (:func:`semiprivate.validation.validate_params`).

Apart from :mod:`semiprivate.theory.classes.base` because its valid example is a concrete class
(:class:`~semiprivate.theory.classes.integer.Thresholds`), which itself builds on ``base``.
"""

from __future__ import annotations

from typing import Any

from semiprivate.theory.classes.base import check_concept_class
from semiprivate.theory.classes.integer import Thresholds
from semiprivate.validation import Constraint

__all__ = ["CONCEPT_CLASS"]


class _ConceptClassConstraint(Constraint):
    """Declared rule (:func:`semiprivate.validation.validate_params`): an instance of :class:`ConceptClass`."""

    def describe(self) -> str:
        return "a ConceptClass of semiprivate.theory.classes"

    def validate(self, name: str, value: Any) -> Any:
        return check_concept_class(value, name)

    def valid_example(self) -> Any:
        return Thresholds(8)

    def invalid_examples(self) -> list[Any]:
        return [None, 3, "Thresholds"]


#: Constraint for a ``concept_class`` parameter.
CONCEPT_CLASS = _ConceptClassConstraint()

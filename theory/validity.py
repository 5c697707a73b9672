"""What the library does when a theorem's hypotheses do not hold for the given parameters.

One rule, used everywhere (README.md, "Input rules, randomness, theorem conditions"): a function that evaluates a theorem
**raises** :class:`ConditionNotMet` (a :class:`ValueError`) naming the item, the condition
and the offending values — unless it is called with ``check=False``/``strict=False`` where a
function offers that, in which case it returns a :class:`Checked` result carrying
``valid=False`` and the reason.  Never a silent number.

Examples
--------
>>> require(5 > 35, "HPSY.Lem2", "d > 35", d=5)
Traceback (most recent call last):
...
semiprivate.theory.validity.ConditionNotMet: HPSY.Lem2 needs d > 35 (got d=5)
>>> Checked(value=3.0, valid=True).unwrap()
3.0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

T = TypeVar("T")

__all__ = ["ConditionNotMet", "Checked", "require"]


class ConditionNotMet(ValueError):
    """A theorem's hypothesis fails for the given parameters.

    Attributes
    ----------
    item : str
        SPEC id of the theorem (e.g. ``"HPSY.Lem2"``).
    condition : str
        The hypothesis, in words or as a formula.
    values : dict
        The parameter values that violate it.
    """

    def __init__(self, item: str, condition: str, values: dict[str, Any] | None = None) -> None:
        self.item = item
        self.condition = condition
        self.values = dict(values or {})
        shown = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        super().__init__(f"{item} needs {condition}" + (f" (got {shown})" if shown else ""))


@dataclass(frozen=True)
class Checked(Generic[T]):
    """A value together with whether the theorem that produced it applies.

    ``valid=False`` results carry ``reason`` and must not be used as a guarantee;
    :meth:`unwrap` raises for them.
    """

    value: T
    valid: bool
    reason: str = ""
    item: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def unwrap(self) -> T:
        """The value, or :class:`ConditionNotMet` when ``valid`` is False."""
        if not self.valid:
            raise ConditionNotMet(self.item or "this result", self.reason, self.details)
        return self.value


def require(condition: bool, item: str, description: str, **values: Any) -> None:
    """Raise :class:`ConditionNotMet` unless ``condition`` holds.

    ``condition`` must be a ``bool`` (or NumPy bool): the truth value of an arbitrary object (a
    non-empty array, ``None``) is not a hypothesis check.  ``item`` (the SPEC id) and
    ``description`` must be non-empty strings.
    """
    if not isinstance(condition, (bool, np.bool_)):
        raise TypeError(f"condition must be a bool (the hypothesis evaluated), got {condition!r} "
                        f"({type(condition).__name__})")
    for pname, text in (("item", item), ("description", description)):
        if not isinstance(text, str) or not text:
            raise TypeError(f"{pname} must be a non-empty str, got {text!r} ({type(text).__name__})")
    if not condition:
        raise ConditionNotMet(item, description, values)

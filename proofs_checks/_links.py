"""Links from the checks to ``semiprivate.theory.bounds``: import lazily, report what was compared.

A link either returns a line for the check's details (and the function's name for
:attr:`Check.links`) or raises: a changed constant in ``semiprivate.theory.bounds`` breaks the check,
and so does a module that cannot be imported (:class:`LinkUnavailable`): a link that was not checked
is an error, never a silent skip.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LinkMismatch(AssertionError):
    """A ``semiprivate.theory.bounds`` function disagrees with the verified expression."""


class LinkUnavailable(AssertionError):
    """The ``semiprivate.theory.bounds`` module a check links to cannot be imported."""


def bounds_module(name: str) -> ModuleType:
    """``semiprivate.theory.bounds.<name>``; :class:`LinkUnavailable` when it cannot be imported."""
    try:
        return importlib.import_module(f"semiprivate.theory.bounds.{name}")
    except ImportError as exc:
        raise LinkUnavailable(f"semiprivate.theory.bounds.{name} cannot be imported ({exc}): link not checked") from exc


def close(a: float, b: float, rel: float = 1e-9, what: str = "") -> None:
    """Raise LinkMismatch unless a and b agree to a relative tolerance."""
    if not (abs(a - b) <= rel * max(1.0, abs(a), abs(b))):
        raise LinkMismatch(f"{what}: semiprivate.theory.bounds gives {a!r}, verified expression gives {b!r}")

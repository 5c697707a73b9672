"""Links from the checks to ``semiprivate.theory.bounds``: import lazily, report what was compared.

A link either returns a line for the check's details (and the function's name for
:attr:`Check.links`) or raises: a changed constant in ``semiprivate.theory.bounds`` breaks the check.
When a module is not importable the link says so in the details (it is not counted as checked).
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LinkMismatch(AssertionError):
    """A ``semiprivate.theory.bounds`` function disagrees with the verified expression."""


def bounds_module(name: str) -> ModuleType | None:
    """``semiprivate.theory.bounds.<name>`` or None when it is not importable (yet)."""
    try:
        return importlib.import_module(f"semiprivate.theory.bounds.{name}")
    except ImportError:
        return None


def close(a: float, b: float, rel: float = 1e-9, what: str = "") -> None:
    """Raise LinkMismatch unless a and b agree to a relative tolerance."""
    if not (abs(a - b) <= rel * max(1.0, abs(a), abs(b))):
        raise LinkMismatch(f"{what}: semiprivate.theory.bounds gives {a!r}, verified expression gives {b!r}")

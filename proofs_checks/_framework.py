"""The small framework every check uses: the :class:`Check` record, verdicts, the registry,
and the verification helpers (symbolic, grid, hypothesis search, exact probabilities).

A check is a function with no arguments that returns a :class:`Check`. It is registered with
:func:`register` under an id of the form ``PAPER.Item.step`` (SPEC ids, e.g.
``HPSY.Lem2.quadratic``). A check never "passes by default": every helper here raises
:class:`CannotDecide` when it cannot establish its claim (for example when sympy answers
``None``), and a check that errors is reported as an error, never as HOLDS.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Verdict",
    "Check",
    "CannotDecide",
    "register",
    "registry",
    "sympy_nonneg",
    "sympy_zero",
    "grid_violations",
    "hypothesis_counterexample",
    "fmt",
]


class Verdict(str, enum.Enum):
    """Outcome of a check.

    ``HOLDS``: verified for every parameter in the stated range. ``HOLDS_WITH_CONDITION``:
    verified under an extra condition, given in :attr:`Check.condition`. ``FAILS``: a concrete
    counterexample was found (:attr:`Check.counterexample`).
    """

    HOLDS = "HOLDS"
    HOLDS_WITH_CONDITION = "HOLDS WITH CONDITION"
    FAILS = "FAILS"


class CannotDecide(RuntimeError):
    """A verification step could not be completed (never to be read as a pass)."""


@dataclass(frozen=True)
class Check:
    """The record of one machine check of one paper step.

    Attributes
    ----------
    id : str
        ``PAPER.Item.step``, e.g. ``"ABM19.Lem4.4.confidence"``.
    claim : str
        The claim, with the paper's numbering, as the paper states or uses it.
    method : str
        How it was verified: ``symbolic`` (sympy, all parameters in range), ``exact``
        (exact arithmetic / exact probabilities), ``grid+hypothesis`` (numerical grid plus a
        derandomized hypothesis search), ``simulation`` (seeded, with stated confidence);
        several joined with ``+``.
    verdict : Verdict
    details : str
        What was verified, step by step, with the numbers.
    counterexample : str or None
        For FAILS: concrete parameter values and what goes wrong.
    corrected : str or None
        A corrected statement where one could be derived.
    condition : str or None
        For HOLDS WITH CONDITION: the condition.
    links : tuple of str
        ``semiprivate.theory.bounds`` functions whose constants this check asserted.
    """

    id: str
    claim: str
    method: str
    verdict: Verdict
    details: str
    counterexample: str | None = None
    corrected: str | None = None
    condition: str | None = None
    links: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise TypeError(f"verdict must be a Verdict, got {self.verdict!r}")
        if self.verdict is Verdict.FAILS and not self.counterexample:
            raise ValueError(f"{self.id}: a FAILS verdict needs a counterexample")
        if self.verdict is Verdict.HOLDS_WITH_CONDITION and not self.condition:
            raise ValueError(f"{self.id}: HOLDS WITH CONDITION needs the condition")


CheckFn = Callable[[], Check]
_REGISTRY: dict[str, CheckFn] = {}


def register(check_id: str) -> Callable[[CheckFn], CheckFn]:
    """Register a check function under ``check_id`` (the id must match the returned record)."""

    def deco(fn: CheckFn) -> CheckFn:
        if check_id in _REGISTRY:
            raise ValueError(f"duplicate check id {check_id!r}")

        def wrapped() -> Check:
            rec = fn()
            if rec.id != check_id:
                raise ValueError(f"check registered as {check_id!r} returned id {rec.id!r}")
            return rec

        wrapped.__name__ = fn.__name__
        wrapped.__doc__ = fn.__doc__
        wrapped.check_id = check_id  # type: ignore[attr-defined]
        _REGISTRY[check_id] = wrapped
        return wrapped

    return deco


def registry() -> dict[str, CheckFn]:
    """The registered checks (id -> function), after importing every check module."""
    from semiprivate.proofs_checks import _modules

    _modules.load_all()
    return dict(_REGISTRY)


# ----------------------------------------------------------------------------- helpers

def sympy_zero(expr: Any, what: str) -> None:
    """Assert that a sympy expression simplifies to exactly 0; raise CannotDecide otherwise."""
    import sympy as sp

    s = sp.simplify(sp.expand(expr))
    if s == 0:
        return
    s2 = sp.simplify(sp.expand_log(sp.powsimp(s, force=True), force=True))
    if s2 == 0:
        return
    raise CannotDecide(f"sympy could not show {what} == 0 (left with {s2})")


def sympy_nonneg(expr: Any, what: str) -> None:
    """Assert that sympy proves ``expr >= 0`` from the symbols' assumptions.

    Raises :class:`CannotDecide` if sympy answers False or None: an undecided answer is
    never a pass.
    """
    import sympy as sp

    for cand in (expr, sp.simplify(expr), sp.factor(sp.simplify(expr))):
        if cand.is_nonnegative is True:
            return
    raise CannotDecide(f"sympy could not prove {what} >= 0 ({sp.simplify(expr)})")


def grid_violations(pred: Callable[..., bool], axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Evaluate ``pred(**point)`` on the Cartesian grid; return the points where it is False."""
    import itertools

    names = list(axes)
    bad = []
    for values in itertools.product(*(axes[n] for n in names)):
        point = dict(zip(names, values))
        if not pred(**point):
            bad.append(point)
    return bad


def hypothesis_counterexample(pred: Callable[..., bool], strategies: dict[str, Any],
                              max_examples: int = 300) -> dict[str, Any] | None:
    """Derandomized hypothesis search for a point where ``pred`` is False (None if none found).

    Deterministic: ``derandomize=True`` and no example database, so reruns give the same answer.
    """
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    strat = st.fixed_dictionaries(strategies)
    try:
        found = find(
            strat,
            lambda kw: not pred(**kw),
            settings=settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                              suppress_health_check=list(HealthCheck)),
        )
    except NoSuchExample:
        return None
    return dict(found)


def fmt(x: float, digits: int = 6) -> str:
    """Deterministic short float formatting for reports."""
    if isinstance(x, int):
        return str(x)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Two-sided exact (Clopper–Pearson) interval for a binomial proportion."""
    from scipy.stats import beta as beta_dist

    a = 1.0 - confidence
    lo = 0.0 if k == 0 else float(beta_dist.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta_dist.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def join(lines: Iterable[str]) -> str:
    """Join detail lines into one markdown-friendly paragraph list."""
    return "\n".join(f"- {ln}" for ln in lines)

"""Every bound of the four papers as a function, a sympy form, a solver and a registry entry.

Modules (one per paper): :mod:`~theory.bounds.abm19`, :mod:`~theory.bounds.bns15`,
:mod:`~theory.bounds.hpsy`, :mod:`~theory.bounds.pillar` (BST14 noisy SGD + PILLAR),
:mod:`~theory.bounds.classic` (BNS15 App. A/B, KLNRS, HPSY Sec 3.3 baselines), plus
:mod:`~theory.bounds.privacy` (BNS15 privacy transformers) and
:mod:`~theory.bounds.compare` (comparison tables).  The command line is
``python -m theory bound`` (:mod:`theory.bounds.cli`).

The registry maps a SPEC-style id to a :class:`Bound` (description, parameters with their
constraints, function, sympy form, solvers, monotonicity):

>>> from theory.bounds import get_bound, evaluate, solve
>>> sorted(get_bound("ABM19.Lem3.3").solvers)
['n_pub']
>>> solve("ABM19.Lem3.3", "n_pub", d=10, alpha=0.05, beta=0.01)
14815
>>> evaluate("HPSY.Sec3.3.BST14", d=100, alpha=0.1, epsilon=1.0)
100

Conventions: natural logs; sample sizes are ints rounded up; O(.)-only results take
``constant`` (default 1); a failed hypothesis raises
:class:`theory.validity.ConditionNotMet` (``strict=False`` returns a ``Checked``).
"""

from __future__ import annotations

from typing import Any

from theory.bounds import abm19, bns15, classic, hpsy, pillar, privacy  # noqa: F401  (fill the registry)
from theory.bounds._core import REGISTRY, Bound, Param, Solver, smallest_integer

__all__ = [
    "Bound",
    "Param",
    "Solver",
    "REGISTRY",
    "list_bounds",
    "get_bound",
    "evaluate",
    "solve",
    "smallest_integer",
]


def list_bounds() -> list[Bound]:
    """All registered bounds, sorted by id.

    >>> len(list_bounds()) > 50
    True
    """
    return [REGISTRY[k] for k in sorted(REGISTRY)]


def get_bound(bound_id: str) -> Bound:
    """The bound registered under ``bound_id`` (KeyError listing close ids otherwise).

    >>> get_bound("HPSY.Lem2").id
    'HPSY.Lem2'
    """
    if bound_id in REGISTRY:
        return REGISTRY[bound_id]
    close = [k for k in REGISTRY if k.lower().startswith(bound_id.lower().split(".")[0])]
    raise KeyError(f"unknown bound id {bound_id!r}" + (f"; ids of that paper: {', '.join(sorted(close))}"
                                                        if close else ""))


def evaluate(bound_id: str, **params: Any) -> Any:
    """Evaluate a registered bound with keyword parameters."""
    return get_bound(bound_id).function(**params)


def solve(bound_id: str, name: str, **params: Any) -> Any:
    """Run the solver of ``bound_id`` for parameter ``name``."""
    b = get_bound(bound_id)
    if name not in b.solvers:
        raise KeyError(f"{bound_id} cannot be solved for {name!r}; solvable: {sorted(b.solvers) or 'none'}")
    return b.solvers[name].function(**params)

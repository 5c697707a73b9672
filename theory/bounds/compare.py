"""Comparison tables: which method needs fewer labelled (private) examples here?

Implements: HPSY.Sec3.3 (the comparison of HPSY Thm 3 with BST14, ABM19 and JL, as a table).
All four are O(.)-forms with the same ``constant`` (default 1): the table compares rates,
not exact sample sizes, and says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from semiprivate.theory.bounds._core import renamed_params
from semiprivate.theory.bounds.classic import abm19_halfspace_labeled, bst14_labeled, jl_labeled
from semiprivate.theory.bounds.hpsy import hpsy_thm3_labeled
from semiprivate.validation import (
    DELTA,
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Real,
    validate_params,
)

__all__ = ["ComparisonRow", "ComparisonTable", "compare_halfspace_labelled", "halfspace_labelled_curves"]


@dataclass(frozen=True)
class ComparisonRow:
    """One method in a comparison."""

    method: str
    bound_id: str
    n_lab: int | None
    formula: str
    privacy: str
    valid: bool = True
    note: str = ""


@dataclass(frozen=True)
class ComparisonTable:
    """Rows plus the parameters they were computed for."""

    rows: tuple[ComparisonRow, ...]
    params: dict[str, Any] = field(default_factory=dict)

    def best(self) -> ComparisonRow:
        """The valid row with the fewest labelled examples."""
        valid = [r for r in self.rows if r.valid and r.n_lab is not None]
        if not valid:
            raise ValueError("no method's hypotheses hold for these parameters")
        return min(valid, key=lambda r: r.n_lab if r.n_lab is not None else math.inf)

    def to_dicts(self) -> list[dict[str, Any]]:
        """Rows as plain dicts (for JSON)."""
        return [r.__dict__.copy() for r in self.rows]

    def to_markdown(self) -> str:
        """A markdown table."""
        lines = ["| method | bound id | n_lab | rate | privacy | note |", "|---|---|---:|---|---|---|"]
        for r in self.rows:
            n = f"{r.n_lab:,}" if r.n_lab is not None else "n/a"
            lines.append(f"| {r.method} | {r.bound_id} | {n} | {r.formula} | {r.privacy} | {r.note} |")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_markdown()


@renamed_params(d="dim")
@validate_params(dim=POSITIVE_INT, k=POSITIVE_INT, gamma=PROBABILITY, eta=Real(0.0, math.inf), alpha=PROBABILITY,
                 beta=PROBABILITY, epsilon=EPSILON, delta=DELTA, constant=POSITIVE_REAL)
def compare_halfspace_labelled(dim: int, k: int, gamma: float, eta: float, alpha: float, beta: float,
                               epsilon: float, delta: float = 0.0, *, constant: float = 1.0) -> ComparisonTable:
    r"""Labelled sample complexity of HPSY Thm 3 vs BST14 vs ABM19 vs JL for halfspaces with margin gamma.

    Implements: HPSY.Sec3.3 (comparison).  Rates (all with the same ``constant``):
    HPSY Thm 3 sqrt(k)/(a eps (gamma - sqrt(eta/beta))), BST14 sqrt(d)/(a eps),
    ABM19 d/(a eps), JL 1/(a eps gamma^2).  HPSY Thm 3 is marked invalid (n_lab None) when
    gamma <= sqrt(eta/beta).  ``k > d`` (a projection to more dimensions than there are) is a ValueError
    naming ``k``.

    Parameters
    ----------
    dim, k : int
        Ambient and projection dimension.
    gamma : float
        Margin.
    eta : float
        Tail eigenvalue mass beyond k.
    alpha, beta, epsilon, delta : float
        Accuracy, confidence, privacy (delta is reported, it does not enter the rates).
    constant : float
        Common hidden constant.

    Returns
    -------
    ComparisonTable

    Examples
    --------
    >>> t = compare_halfspace_labelled(1000, 5, 0.3, 1e-4, 0.1, 0.1, 1.0, 1e-5)
    >>> [(r.method, r.n_lab) for r in t.rows]
    [('HPSY Thm 3 (PCA + noisy SGD)', 84), ('BST14 (noisy SGD in R^d)', 317), ('ABM19 (generic)', 10000), ('JL + private learner', 112)]
    >>> t.best().method
    'HPSY Thm 3 (PCA + noisy SGD)'
    """
    if k > dim:
        raise ValueError(f"k must be <= dim (the projection dimension cannot exceed the ambient dimension dim = {dim}), "
                         f"got k={k}")
    rows = []
    thm3 = hpsy_thm3_labeled(k, alpha, beta, epsilon, gamma, eta, constant=constant, strict=False)
    valid = thm3.valid
    rows.append(ComparisonRow("HPSY Thm 3 (PCA + noisy SGD)", "HPSY.Thm3.n_lab", thm3.value if valid else None,
                              "sqrt(k)/(a eps (gamma - sqrt(eta/beta)))", f"({epsilon:g}, {delta:g})-DP",
                              valid, "" if valid else (thm3.reason or "")))
    rows.append(ComparisonRow("BST14 (noisy SGD in R^d)", "HPSY.Sec3.3.BST14",
                              bst14_labeled(dim, alpha, epsilon, constant=constant), "sqrt(d)/(a eps)",
                              f"({epsilon:g}, {delta:g})-DP"))
    rows.append(ComparisonRow("ABM19 (generic)", "HPSY.Sec3.3.ABM19",
                              abm19_halfspace_labeled(dim, alpha, epsilon, constant=constant), "d/(a eps)",
                              f"({epsilon:g}, 0)-DP"))
    rows.append(ComparisonRow("JL + private learner", "HPSY.Sec3.3.JL",
                              jl_labeled(alpha, epsilon, gamma, constant=constant), "1/(a eps gamma^2)",
                              f"({epsilon:g}, {delta:g})-DP"))
    params = {"dim": dim, "k": k, "gamma": gamma, "eta": eta, "alpha": alpha, "beta": beta, "epsilon": epsilon,
              "delta": delta, "constant": constant}
    return ComparisonTable(tuple(rows), params)


def halfspace_labelled_curves(ds: Sequence[int], k: int, gamma: float, eta: float, alpha: float, beta: float,
                              epsilon: float, *, constant: float = 1.0) -> dict[str, list[int | None]]:
    """n_lab of the four halfspace methods for each d in ``ds`` (for plots).

    ``ds``: a non-empty sequence of positive integers (each checked, e.g. ``ds[1]`` named in
    the error); the other parameters as in :func:`compare_halfspace_labelled`.

    Implements: HPSY.Sec3.3 (comparison, as curves).

    >>> c = halfspace_labelled_curves([10, 100], 5, 0.3, 1e-4, 0.1, 0.1, 1.0)
    >>> c["BST14 (noisy SGD in R^d)"]
    [32, 100]
    """
    if isinstance(ds, (str, bytes)) or not isinstance(ds, Iterable):
        raise TypeError(f"ds must be a sequence of positive integer dimensions, got {type(ds).__name__}")
    dims = list(ds)
    if not dims:
        raise ValueError("ds must hold at least one dimension, got an empty sequence")
    dims = [POSITIVE_INT.validate(f"ds[{i}]", d) for i, d in enumerate(dims)]
    k = POSITIVE_INT.validate("k", k)
    for i, d in enumerate(dims):
        if d < k:
            raise ValueError(f"ds[{i}] must be >= k = {k} (the projection dimension), got {d}")
    out: dict[str, list[int | None]] = {}
    for d in dims:
        t = compare_halfspace_labelled(d, k, gamma, eta, alpha, beta, epsilon, constant=constant)
        for r in t.rows:
            out.setdefault(r.method, []).append(r.n_lab)
    return out

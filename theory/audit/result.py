"""The outcome of an audit: the bound, the witness event behind it, what the search tried.

Implements: AUDIT (audit report).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from semiprivate.theory.audit.conditional import TRUNCATION_SHARE
from semiprivate.theory.audit.events import Event
from semiprivate.theory.audit.pvalues import format_p_value

__all__ = ["Witness", "PairSearch", "AuditResult"]


@dataclass
class Witness:
    """The (pair, event, direction) that gives the reported bound.

    ``p`` is the estimated ``P[M(A) in E]`` for the numerator dataset ``A`` and ``q`` the
    estimated ``P[M(B) in E]``; the intervals are the Bonferroni-corrected one-sided
    Clopper–Pearson bounds (both sides shown) used for the bound.  With
    ``interval="poisson-conditional"`` the bound comes from one conditional test on the two counts
    instead (:mod:`semiprivate.theory.audit.conditional`; the intervals are shown at the same level
    for reference), and ``trials`` holds the Poisson-sized outputs drawn under ``A`` and ``B``.
    """

    event: Event
    direction: str
    pair_index: int
    p: float
    p_interval: tuple[float, float]
    q: float
    q_interval: tuple[float, float]
    counts: tuple[int, int, int]  # (hits under A, hits under B, trials per side; under A when they differ)
    support_mismatch: bool
    lower_bound: float
    data: Any = field(default=None, repr=False)
    neighbour: Any = field(default=None, repr=False)
    seed: Any = None
    trials: tuple[int, int] | None = None  # (outputs under A, under B) when they differ (Poisson sizes)

    def pair(self) -> tuple[Any, Any]:
        """The neighbouring pair ``(data, neighbour)`` on which the event was tested (the objects
        the mechanism was called with, so the witness can be re-run)."""
        return self.data, self.neighbour

    def describe(self) -> str:
        k_a, k_b, n = self.counts
        n_a, n_b = self.trials if self.trials is not None else (n, n)
        # A (numerator) and B are the pair's data and neighbour, in the order of the direction
        a_name, b_name = ("neighbour", "data") if self.direction.startswith("neighbour") else ("data", "neighbour")
        seed = "a Generator (pass an int rng to make the audit reproducible)" if self.seed is None else repr(self.seed)
        lines = [
            f"event E = {{{self.event.description}}} on pair #{self.pair_index}, direction {self.direction}",
            f"  data      = {short_repr(self.data)}",
            f"  neighbour = {short_repr(self.neighbour)}",
            f"  audit rng = {seed} (witness.pair() returns the two objects)",
        ]
        if self.direction.startswith("pooled"):  # the counts add up both inputs' outputs (theory.audit.pooled)
            lines.append(f"  pooled test: k_data(E) + k_neighbour(F') = {k_a} against k_neighbour(E) + k_data(F') = "
                         f"{k_b}, of {n_a} outputs of the two inputs together (P_data(E) + P_neighbour(F') <= "
                         f"e^eps (P_neighbour(E) + P_data(F')))")
        else:
            lines += [
                f"  P[M({a_name}) in E] = {self.p:.6g}  ({k_a}/{n_a}), interval [{self.p_interval[0]:.6g}, "
                f"{self.p_interval[1]:.6g}]",
                f"  P[M({b_name}) in E] = {self.q:.6g}  ({k_b}/{n_b}), interval [{self.q_interval[0]:.6g}, "
                f"{self.q_interval[1]:.6g}]",
            ]
        if self.trials is not None:
            lines.append(f"  bound from the conditional test of {k_a} of {k_a + k_b} (Poisson-sized batches): "
                         f"log ratio >= {self.lower_bound:.6g}")
        if self.support_mismatch:
            lines.append(f"  support mismatch: E was never seen under the {b_name} (the bound grows like log(trials))")
        return "\n".join(lines)


def short_repr(obj: Any, limit: int = 240) -> str:
    """``repr`` of a dataset for reports: NumPy arrays summarised, anything cut at ``limit`` characters."""
    if isinstance(obj, np.ndarray):
        text = np.array2string(obj, threshold=32, edgeitems=4, max_line_width=10_000).replace("\n", "")
        text = f"array({text}, dtype={obj.dtype}, shape={obj.shape})"
    else:
        try:
            text = repr(obj)
        except Exception:  # a broken __repr__ must not hide the audit's result
            text = f"<{type(obj).__name__} object>"
    return text if len(text) <= limit else text[: limit - 5] + " ...)"


@dataclass
class PairSearch:
    """What the search tried on one neighbouring pair, and how far it got.

    ``families`` maps each candidate-event family (``thr`` thresholds of a scalar, ``coordN``
    thresholds of coordinate N, ``fisher`` / ``meandiff`` / ``logistic`` / ``mlp`` projections, ``sign``
    whitened-sign scores, ``value`` single
    values, ``valueset`` likelihood-ratio-ordered value sets, ``joint`` categorical-and-threshold
    events, ``pattern`` / ``patternset`` whole-row patterns of coded float columns and their
    cross-fitted sets, ``bits`` float bit patterns, ``user`` user events) to the number of (event, direction)
    candidates built from the selection batch.  ``best_anticipated`` is the best pessimistic
    anticipated bound (:func:`semiprivate.theory.audit.selection.anticipated_bound`) among them (``nan`` for user
    events: no selection), ``n_tested`` how many of the pair's candidates got one of the ``K`` tests and
    ``best_bound`` the best bound they gave on the estimation batch (``nan`` when none was tested).
    """

    pair_index: int
    families: dict[str, int]
    best_anticipated: float
    best_candidate: str
    n_tested: int
    best_bound: float

    def describe(self) -> str:
        fam = ", ".join(f"{k} {v}" for k, v in self.families.items())
        sel = ("" if math.isnan(self.best_anticipated) else
               f"; best anticipated bound on the selection batch {self.best_anticipated:.4g} ({self.best_candidate})")
        fin = f"best final bound {self.best_bound:.4g}" if self.n_tested else "no test (its candidates ranked below the K kept)"
        return f"pair #{self.pair_index}: {sum(self.families.values())} candidates ({fam}){sel}; " \
               f"{self.n_tested} tested, {fin}"


@dataclass
class AuditResult:
    """Outcome of :func:`audit_mechanism`.

    Attributes
    ----------
    epsilon_lower_bound : float
        Lower bound on the mechanism's epsilon at the given delta, valid with probability
        ``>= confidence`` (over the audit's randomness); 0 when no event gives evidence.
    violation : bool
        ``epsilon_lower_bound > epsilon`` (the claim is refuted at the stated confidence).
    p_value : float
        A p-value of the claim given the kept tests, ``violation == (p_value <= 1 - confidence)``:
        with ``interval="clopper-pearson"`` the smallest ``1 - confidence`` at which the claim would be
        refuted (1 when never); with ``"poisson-conditional"`` the Bonferroni-corrected smallest
        conditional p-value plus the truncation's share ``(1 - confidence) / 1000``, valid for this run's
        Poisson sizes (so never below that share).
    witness : Witness or None
        The event and probabilities behind the bound.
    trials_used : int
        Mechanism outputs drawn in total (selection + estimation, all datasets).
    estimate_on : str
        ``"all"``: every pair's best events tested on every dataset; ``"best"``: the two-stage design,
        the ``n_tests`` best tests on a choice batch estimated on their datasets only (see
        :func:`semiprivate.theory.audit.audit_pairs`).
    interval : str
        ``"clopper-pearson"``: two one-sided intervals per test; ``"poisson-conditional"``: one
        conditional test per test on Poisson-sized batches (:mod:`semiprivate.theory.audit.conditional`).
    """

    epsilon_lower_bound: float
    violation: bool
    p_value: float
    witness: Witness | None
    trials_used: int
    epsilon: float
    delta: float
    confidence: float
    n_tests: int
    n_pairs: int
    n_candidates: int
    seconds: float = 0.0
    tests: list[Witness] = field(default_factory=list, repr=False)
    search: list[PairSearch] = field(default_factory=list, repr=False)
    seed: Any = None
    estimate_on: str = "all"
    interval: str = "clopper-pearson"
    log_p_value: float | None = None
    curve: Any = field(default=None, repr=False)

    @property
    def bonferroni_level(self) -> float:
        """Level ``alpha / (2K)`` of each one-sided Clopper–Pearson interval (``alpha = 1 - confidence``);
        with ``interval="poisson-conditional"``, ``alpha (1 - TRUNCATION_SHARE) / K`` of each conditional test."""
        alpha = 1.0 - self.confidence
        if self.interval == "poisson-conditional":
            return alpha * (1.0 - TRUNCATION_SHARE) / self.n_tests
        return alpha / (2 * self.n_tests)

    @property
    def _level_text(self) -> str:
        if self.interval == "poisson-conditional":
            return (f"(1 - {self.confidence:g}) x (1 - {TRUNCATION_SHARE:g}) / {self.n_tests} tests, "
                    "one conditional test each")
        return f"(1 - {self.confidence:g}) / (2 x {self.n_tests} tests)"

    @property
    def _p_text(self) -> str:
        """The p-value as printed: 3 digits, or ``< 1e-300`` when its logarithm shows it is below."""
        return format_p_value(self.p_value, self.log_p_value)

    @property
    def families(self) -> dict[str, int]:
        """Candidates built per event family, summed over pairs (see :class:`PairSearch`)."""
        out: dict[str, int] = {}
        for ps in self.search:
            for k, v in ps.families.items():
                out[k] = out.get(k, 0) + v
        return out

    def explain(self) -> str:
        """Why the bound is what it is: the families tried per pair, the best selection score,
        the best final bound and p-value against the Bonferroni level."""
        lines = []
        best = max(self.tests, key=lambda w: w.lower_bound) if self.tests else None
        level = self.bonferroni_level
        # p_value = 2K * (smallest per-interval level at which some test refutes the claim); with the
        # conditional tests, K * (smallest per-test level) + the truncation's share of alpha
        if self.interval == "poisson-conditional":
            per_test = max(0.0, self.p_value - (1.0 - self.confidence) * TRUNCATION_SHARE) / self.n_tests
        else:
            per_test = self.p_value / (2 * self.n_tests)
        unit = "test" if self.interval == "poisson-conditional" else "one-sided interval"
        if self.violation:
            lines.append(f"why: the witness's bound {self.epsilon_lower_bound:.4g} exceeds the claim {self.epsilon:g} "
                         f"at the Bonferroni level {level:.3g} per {unit} (K = {self.n_tests} tests)")
        elif best is None:
            lines.append("why: no test was run")
        else:
            raw = best.lower_bound
            sel = [ps.best_anticipated for ps in self.search if not math.isnan(ps.best_anticipated)]
            if raw <= 0.0:
                if sel and max(sel) <= 0.0:
                    lines.append("why the bound is 0: no candidate event showed evidence on the selection batch "
                                 f"(best anticipated bound {max(sel):.4g} <= 0); more trials, other pairs or events "
                                 "(events=..., categorical=..., float_bits=True) may find one")
                else:
                    lines.append(f"why the bound is 0: the best tested event gave {raw:.4g} <= 0 on the estimation "
                                 "batch" + (f" (selection anticipated up to {max(sel):.4g})" if sel else ""))
            per = "test" if self.interval == "poisson-conditional" else "interval"
            pv = (f"the best test's p-value for the claim {per_test:.3g} per {per}" if self.p_value < 1.0 else
                  "no test refutes the claim at any level")
            lines.append(f"why no violation: best bound {max(raw, 0.0):.4g} <= claim {self.epsilon:g}; {pv} vs the "
                         f"Bonferroni level {level:.3g} = {self._level_text}")
        lines += ["  " + ps.describe() for ps in self.search]
        return "\n".join(lines)

    def report(self) -> str:
        """A readable multi-line report (claim, bound, verdict, witness and its pair, the search)."""
        verdict = "VIOLATION" if self.violation else "no violation found"
        fam = ", ".join(f"{k} {v}" for k, v in self.families.items())
        lines = [
            f"claimed (epsilon, delta) = ({self.epsilon:g}, {self.delta:g}); "
            f"epsilon lower bound = {self.epsilon_lower_bound:.4f} at confidence {self.confidence:g} -> {verdict}",
            f"p-value {self._p_text}; {self.n_pairs} neighbouring pair(s), {self.n_candidates} candidate events"
            + (f" ({fam})" if fam else "")
            + (f", {self.n_tests} tested (Bonferroni over pairs, events, directions)" if self.estimate_on == "all" else
               f", the {self.n_tests} best on a choice batch tested on their datasets (Bonferroni over those "
               "tests and directions)")
            + f"; {self.trials_used:,} trials",
        ]
        if self.witness is not None:
            lines.append(self.witness.describe())
        if self.search:
            lines.append(self.explain())
        return "\n".join(lines)

    __str__ = report

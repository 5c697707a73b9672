"""Epsilon curves: the p-value of every claim ``eps`` in a grid from one audit's counts.

Implements: AUDIT (p-value curve over test epsilons; StatDP [DWWZK18] reports the same curve from one run).

An audit's kept tests are fixed before its estimation outputs are drawn, and for each claimed ``eps`` the
audit's p-value (:attr:`AuditResult.p_value`) is a valid p-value of "the mechanism is (eps, delta)-DP":
``P[p(eps) <= alpha] <= alpha`` when the claim holds.  The counts do not depend on the claim, so one audit
gives the p-value of every claim at once (:func:`epsilon_curve`): the conditional test's
``min(1, K min_t P[Binomial(T_t, e^eps / (1 + e^eps)) >= k_t] + alpha / 1000)``
(:func:`semiprivate.theory.audit.conditional.ratio_p_value`, the audit's own formula) or the Clopper–Pearson
tests' dual p-value.  Each point is valid for its ``eps``; the curve increases with ``eps`` and crosses the
level ``1 - confidence`` at the audit's lower bound: every claim below :attr:`EpsilonCurve.bound` is refuted
at the audit's confidence, every claim above it is not.  Reading the curve at several claims is not a
multiple test: the claims are nested (refuting ``eps`` refutes every smaller one), and the event "some true
claim is refuted" is the event "the bound exceeds the true epsilon", of probability at most ``1 - confidence``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.audit.conditional import TRUNCATION_SHARE, ratio_p_value
from semiprivate.theory.audit.pvalues import cp_p_value_and_log
from semiprivate.theory.audit.result import AuditResult

__all__ = ["EpsilonCurve", "epsilon_curve"]


@dataclass
class EpsilonCurve:
    """The p-value of each claimed epsilon (:func:`epsilon_curve`).

    Attributes
    ----------
    epsilons, p_values : ndarray
        The claims (increasing) and their p-values.
    log_p_values : ndarray
        Their natural logarithms, finite where a p-value is below what a double holds
        (:mod:`semiprivate.theory.audit.pvalues`; the p-value is then 0.0).
    alpha : float
        ``1 - confidence`` of the audit: a claim with ``p <= alpha`` is refuted.
    bound : float
        The audit's ``epsilon_lower_bound``: where the curve crosses ``alpha``.
    refuted_up_to : float or None
        The largest claim of the grid that is refuted (``None`` when none is): the point where the
        claim starts to fail, read on the grid.
    """

    epsilons: np.ndarray
    p_values: np.ndarray
    alpha: float
    bound: float
    refuted_up_to: float | None
    log_p_values: np.ndarray | None = None

    def plot(self, ax: Any = None, claim: float | None = None) -> Any:
        """Plot the curve (log p-value against epsilon) with the level and the bound; returns the axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        ax.semilogy(self.epsilons, np.maximum(self.p_values, 1e-300), marker=".", label="p-value of the claim")
        ax.axhline(self.alpha, color="grey", linestyle="--", label=f"level 1 - confidence = {self.alpha:g}")
        ax.axvline(self.bound, color="tab:red", linestyle=":", label=f"lower bound {self.bound:.4g}")
        if claim is not None:
            ax.axvline(claim, color="black", linewidth=0.8, label=f"claimed epsilon {claim:g}")
        ax.set_xlabel("claimed epsilon")
        ax.set_ylabel("p-value (log scale)")
        ax.legend(loc="lower right", fontsize="small")
        return ax


def epsilon_curve(result: AuditResult, epsilons: Sequence[float]) -> EpsilonCurve:
    """The p-value of every claim in ``epsilons`` from the counts of ``result``'s kept tests (module docstring).

    Implements: AUDIT (p-value curve).

    Parameters
    ----------
    result : AuditResult
        An audit (:func:`semiprivate.theory.audit.audit_pairs`) with its kept tests.
    epsilons : sequence of float
        Claims ``>= 0``, finite.

    Returns
    -------
    EpsilonCurve

    Examples
    --------
    >>> from semiprivate.theory.audit import AuditOptions, audit_pairs
    >>> from semiprivate.theory.privacy.mechanisms import LaplaceMechanism
    >>> res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=50_000, rng=0,
    ...                   options=AuditOptions(interval="poisson-conditional", estimate_on="best"))
    >>> curve = epsilon_curve(res, [0.5, 0.8, 0.9, 1.0, 1.2])
    >>> bool(curve.p_values[0] < 1e-3), bool(curve.p_values[-1] == 1.0), curve.refuted_up_to  # the bound is 0.981
    (True, True, 0.9)
    """
    if not isinstance(result, AuditResult):
        raise TypeError(f"result must be an AuditResult, got {type(result).__name__}")
    if isinstance(epsilons, (str, bytes)) or not hasattr(epsilons, "__len__"):
        raise TypeError(f"epsilons must be a sequence of claimed epsilons, got {type(epsilons).__name__}")
    eps = np.asarray(epsilons, dtype=np.float64)
    if eps.ndim != 1 or eps.size == 0 or not np.isfinite(eps).all() or (eps < 0).any():
        raise ValueError(f"epsilons must be a non-empty 1-D sequence of finite claims >= 0, got {epsilons!r:.80}")
    eps = np.sort(eps)
    kn = np.array([w.counts[0] for w in result.tests], dtype=np.float64)
    ko = np.array([w.counts[1] for w in result.tests], dtype=np.float64)
    alpha = 1.0 - result.confidence
    k = result.n_tests
    if result.interval == "poisson-conditional":
        p = np.array([min(1.0, k * float(np.min(ratio_p_value(kn, ko, float(e)))) + alpha * TRUNCATION_SHARE)
                      for e in eps])
        log_p = np.log(p)
    else:
        n = int(result.tests[0].counts[2])
        p, log_p = np.array([cp_p_value_and_log(kn, ko, n, k, float(e), result.delta) for e in eps]).T
    refuted = eps[p <= alpha]
    return EpsilonCurve(eps, p, alpha, float(result.epsilon_lower_bound),
                        float(refuted.max()) if refuted.size else None, log_p)

"""The p-value curve over claimed epsilons (:func:`semiprivate.theory.audit.curves.epsilon_curve`).

Calibration: ``LaplaceMechanism(1.0)`` on the tight pairs (0, 1), (1, 2) (true epsilon = 1), spread design
with ``max_events=8`` (``K = 8`` tests), 2,000 outputs per dataset, confidence 0.8, ``R = 100`` seeds: the curve's p-value at the true
epsilon is at most 0.2 on at most the 1 - 1e-4 binomial quantile of 100 seeds at 20% (36) when valid
(false-failure rate <= 1e-4; detects a rate of 0.43 or more with probability 0.9).  Measured (2026-11-28): 7 of 100.  Break (kept as a test): the curve
without the multiplicity factor ``K`` refutes the true claim on 51 of 100.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.curves import EpsilonCurve, epsilon_curve
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 100
CONFIDENCE = 0.8
PAIRS = [(0.0, 1.0), (1.0, 2.0)]
LIMIT = int(binom.isf(1e-4, R, 1 - CONFIDENCE))


@pytest.mark.parametrize("interval,delta", [("poisson-conditional", 0.0), ("clopper-pearson", 0.0),
                                            ("clopper-pearson", 1e-3)])
def test_curve_matches_the_audit_at_the_claim_and_crosses_at_the_bound(interval: str, delta: float) -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0), (1.0, 2.0)], epsilon=1.0, delta=delta, trials=20_000,
                      rng=3, interval=interval, confidence=0.9)
    b = res.epsilon_lower_bound
    assert b > 0.5
    curve = epsilon_curve(res, [1.0, b + 1e-3, 0.0, b - 1e-3])
    assert np.all(np.diff(curve.epsilons) > 0) and np.all(np.diff(curve.p_values) >= 0)
    assert curve.p_values[list(curve.epsilons).index(1.0)] == pytest.approx(res.p_value, rel=1e-6)
    below, above = curve.p_values[list(curve.epsilons).index(b - 1e-3)], curve.p_values[
        list(curve.epsilons).index(b + 1e-3)]
    assert below <= curve.alpha < above
    assert curve.refuted_up_to == pytest.approx(b - 1e-3) and curve.bound == b


def _refuted_at_truth(drop_k: bool = False) -> int:
    hits = 0
    for i in range(R):
        res = audit_pairs(LaplaceMechanism(1.0), PAIRS, epsilon=1.0, trials=2_000, confidence=CONFIDENCE,
                          rng=7000 + i, selection_trials=2_000, interval="poisson-conditional", max_events=8)
        if drop_k:
            res.n_tests = 1
        hits += bool(epsilon_curve(res, [1.0]).p_values[0] <= 1 - CONFIDENCE)
    return hits


def test_curve_refutes_the_true_claim_at_most_at_its_level() -> None:
    assert LIMIT == 36
    hits = _refuted_at_truth()
    assert hits <= LIMIT, f"{hits}/{R} refuted the true epsilon (limit {LIMIT})"


@pytest.mark.slow
def test_dropping_the_multiplicity_factor_is_caught() -> None:
    hits = _refuted_at_truth(drop_k=True)
    assert hits > LIMIT, f"K dropped: only {hits}/{R} refuted the true epsilon (limit {LIMIT})"


def test_plot_has_labelled_axes() -> None:
    import matplotlib.pyplot as plt

    curve = EpsilonCurve(np.array([0.5, 1.0]), np.array([1e-4, 0.5]), 0.1, 0.8, 0.5)
    ax = curve.plot(claim=1.0)
    assert ax.get_xlabel() == "claimed epsilon" and "p-value" in ax.get_ylabel()
    plt.close("all")


def test_bad_input_is_refused() -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=2_000, rng=0)
    with pytest.raises(TypeError, match="result must be an AuditResult"):
        epsilon_curve("x", [1.0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="epsilons must be a sequence"):
        epsilon_curve(res, 1.0)  # type: ignore[arg-type]
    for bad in ([], [-1.0], [float("nan")], [[1.0]]):
        with pytest.raises(ValueError, match="epsilons must be a non-empty 1-D sequence"):
            epsilon_curve(res, bad)

"""Rényi-DP lower bounds from an audit's counts (:mod:`semiprivate.theory.audit.renyi`).

Calibration: randomized response with epsilon 1 on the pair (0, 1), whose output is binary, so the event
``{x == 1}`` carries the whole divergence and the bound is tight: ``D_2 = log(p^2 / q + q^2 / p) = 0.73533``
(``p = e / (1 + e)``, ``q = 1 - p``).  5,000 outputs per input, confidence 0.8, ``R = 150`` seeds: a valid
bound exceeds the true ``D_2`` with probability at most 0.2, so at most the 1 - 1e-4 binomial quantile of 150
seeds at 20% (49) exceed it (false-failure rate <= 1e-4; detects an exceedance rate of 0.38 or more with probability 0.9).  Measured (2026-11-28): 1 of 150 (the
Clopper-Pearson corner is conservative).  Break (kept as a test): the corner replaced by the point estimates
``(k_A / n, k_B / n)`` exceeds the truth on 96 of 150.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.audit import audit_pairs, renyi
from semiprivate.theory.audit.renyi import RenyiBound, bernoulli_renyi, renyi_lower_bound
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism, RandomizedResponse

R = 150
CONFIDENCE = 0.8
LIMIT = int(binom.isf(1e-4, R, 1 - CONFIDENCE))
P = math.e / (1 + math.e)
TRUE_D2 = math.log(P**2 / (1 - P) + (1 - P) ** 2 / P)


def test_bernoulli_renyi_against_the_definition() -> None:
    for p, q, a in [(0.9, 0.2, 2.0), (0.3, 0.6, 1.5), (0.01, 0.001, 8.0)]:
        direct = math.log(p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)
        assert bernoulli_renyi(p, q, a) == pytest.approx(direct, rel=1e-12)
    assert bernoulli_renyi(0.5, 0.0, 2.0) == math.inf and bernoulli_renyi(0.0, 0.5, 2.0) > 0
    with pytest.raises(ValueError, match="p must be a probability"):
        bernoulli_renyi(1.5, 0.5, 2.0)
    with pytest.raises(ValueError, match="order"):
        bernoulli_renyi(0.5, 0.5, 1.0)


def _exceed(point_estimates: bool = False) -> int:
    hits = 0
    for i in range(R):
        res = audit_pairs(RandomizedResponse(1.0), [(0, 1)], epsilon=1.0, trials=5_000, selection_trials=2_000,
                          confidence=CONFIDENCE, rng=9000 + i)
        hits += renyi_lower_bound(res, 2.0).bound > TRUE_D2
    return hits


def test_bound_exceeds_the_true_divergence_at_most_at_its_level() -> None:
    assert LIMIT == 49
    hits = _exceed()
    assert hits <= LIMIT, f"{hits}/{R} bounds above the true D_2 (limit {LIMIT})"


@pytest.mark.slow
def test_point_estimates_instead_of_the_corner_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def estimate(k: Any, n: Any, a: float) -> np.ndarray:
        return np.asarray(k, dtype=np.float64) / np.asarray(n, dtype=np.float64)

    monkeypatch.setattr(renyi, "cp_lower", estimate)
    monkeypatch.setattr(renyi, "cp_upper", estimate)
    hits = _exceed()
    assert hits > LIMIT, f"point estimates: only {hits}/{R} above the true D_2 (limit {LIMIT})"


def test_pooled_tests_are_skipped_and_no_evidence_gives_zero() -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=1,
                      interval="poisson-conditional", estimate_on="best")
    rb = renyi_lower_bound(res, 3.0)
    assert isinstance(rb, RenyiBound) and rb.witness is None and rb.bound == 0.0  # the kept test is pooled
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=1)
    rb = renyi_lower_bound(res, 3.0)
    assert rb.witness is not None and 0 < rb.bound < 3.0 / 2 and rb.p_lo > rb.q_hi  # D_3 of Laplace(1) < 3 / 2
    with pytest.raises(TypeError, match="result must be an AuditResult"):
        renyi_lower_bound("x", 2.0)  # type: ignore[arg-type]

"""Calibration of ``interval="poisson-conditional"``: Laplace on eight tight pairs, both designs.

Case (the same as ``test_calibration_two_stage.py``): ``LaplaceMechanism(1.0)`` on the pairs (0, 1), ...,
(7, 8), each tight (true epsilon = claim = 1), 2,000 selection and estimation outputs per dataset,
confidence 0.8 (alpha = 0.2: the audit guarantees <= 20% flags per seed).  The conditional test is
exact, so it spends more of its level than the Clopper-Pearson rectangle (about 15% flags here against
3%): the calibration limit is correspondingly closer to 20%.

References (other seeds, 300_000 + i, 1200 each, 2026-11-27): the two-stage design flagged 182, the
spread design 177; the 1 - 1e-4 Clopper-Pearson upper bounds of these rates, 19.3% and 18.9%, give
the limits (61 and 60 flags of R = 200, the 1 - 1e-4 binomial quantiles).  False-failure rate of each
test <= 1e-4 (binomial) + 1e-4 (reference bound).  Power, measured on the test's 200 seeds (1000 + i):
the correct audits flag 29 (two-stage) and 24 (spread); with the selection batch replayed into the
choice and the estimation (:class:`semiprivate.theory.audit.broken.ReplayFirstBatch`) the two-stage
design flags 163; with the spread design's Bonferroni correction dropped (each of the ``K = 8`` tests at
the full level) 159.  Each break is kept as a test that must exceed the limit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.stats import beta, binom
from semiprivate.theory.audit import audit_pairs, core
from semiprivate.theory.audit.broken import ReplayFirstBatch
from semiprivate.theory.audit.conditional import ratio_epsilon_bound
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 200
TRIALS = 2_000
CONFIDENCE = 0.8
PAIRS = [(float(i), float(i + 1)) for i in range(8)]
REF_SEEDS = 1200
REF_FLAGS = {"best": 182, "all": 177}


def _limit(design: str) -> int:
    p_ref = float(beta.ppf(1 - 1e-4, REF_FLAGS[design] + 1, REF_SEEDS - REF_FLAGS[design]))
    return int(binom.isf(1e-4, R, p_ref))


def _flags(design: str, replay: bool = False, stop_above: int | None = None) -> int:
    """Flags over the seeds 1000 + i, i < R; with ``stop_above``, the count as soon as it exceeds it (a
    "must exceed the limit" test: the rest of the seeds cannot change that verdict)."""
    mech = LaplaceMechanism(1.0)
    flags = 0
    for i in range(R):
        flags += audit_pairs(ReplayFirstBatch(mech) if replay else mech, PAIRS, epsilon=1.0, trials=TRIALS,
                             confidence=CONFIDENCE, rng=1000 + i,
                             options=AuditOptions(selection_trials=TRIALS, estimate_on=design,
                                                  interval="poisson-conditional")).violation
        if stop_above is not None and flags > stop_above:
            break
    return flags


def test_reference_limits() -> None:
    assert (_limit("best"), _limit("all")) == (61, 60)
    assert max(_limit("best"), _limit("all")) < R * (1 - CONFIDENCE) * 1.6  # well below "every seed"


@pytest.mark.parametrize("design", ["best", "all"])
def test_false_flag_rate_on_tight_laplace_pairs(design: str) -> None:
    flags = _flags(design)
    assert flags <= _limit(design), f"{flags}/{R} flagged with estimate_on={design!r} (limit {_limit(design)})"


@pytest.mark.slow
def test_selection_batch_reuse_is_caught() -> None:
    flags = _flags("best", replay=True, stop_above=_limit("best"))
    assert flags > _limit("best"), f"selection batch replayed: only {flags}/{R} flagged (limit {_limit('best')})"


@pytest.mark.slow
def test_dropping_the_bonferroni_correction_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of the spread design's ``K`` conditional tests at the full level ``K a`` instead of ``a``."""
    def uncorrected(kn: Any, ko: Any, a: float) -> np.ndarray:
        return ratio_epsilon_bound(kn, ko, min(0.5, a * len(kn)))

    monkeypatch.setattr(core, "ratio_epsilon_bound", uncorrected)
    flags = _flags("all", stop_above=_limit("all"))
    assert flags > _limit("all"), f"no Bonferroni correction: only {flags}/{R} flagged (limit {_limit('all')})"

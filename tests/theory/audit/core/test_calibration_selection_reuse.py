"""Calibration of the audit where event selection matters: randomized response on a bit vector.

The calibration tests in tests/theory/audit/core (test_calibration_*.py) catch "events estimated
on the selection batch" for the
Laplace and geometric mechanisms but not for scalar randomized response (rr, rr4).  That is not
a lack of seeds: with as many selection as estimation outputs, reusing the selection batch is
harmless there, because the audit's four tests already cover every distinct event of a 2- or
4-valued output (rr: {0}, {1} in both directions; rr4's extra candidates are those events plus
categories of equal probability).  Measured over seeds 1000-2999 (20,000 trials, confidence 0.9,
selection_trials = trials; a measurement, not a test here): rr 8 vs 8 flags, rr4 5 vs 2 flags out
of 2000 (correct vs reused); re-measured 2026-11-24: correct rr 8 flags at 0.9 (27 at 0.8).
Selection only matters when there are more distinct events than tests, so the power test for
randomized response uses the suite's vector case: RandomizedResponse(1.0) on 4 bits, the pair
(0,1,0,1) ~ (1,1,0,1) (tight: true epsilon = claim = 1), 16 output values, hundreds of candidate
events; the lucky ones win the selection, and re-counting them on the same outputs keeps the luck.

The tests below run at ``CONFIDENCE = 0.8`` (alpha = 0.2: a generous level, so that an
anti-conservative audit shows; the audit guarantees <= 20% flags per seed) with TRIALS = 2,000
outputs per batch: with fewer outputs the lucky events' selection counts stray further from their
probabilities, so re-counting them shows more (measured on the reference seeds 300_000 + i, i < 400:
correct 5, reused 48 flags; at 20,000 outputs and seeds 1000-1999 it was 8 against 56 of 1000).
Reference: the correct audit flagged 10 of 1200 other seeds (300_000 + i, same settings); the
1 - 1e-4 Clopper-Pearson upper bound of that rate is P_REF (2.30%).  The test fails when the flags over
R = 400 seeds (1000 + i) exceed the 1 - 1e-4 quantile of Binomial(R, P_REF) (limit 22): false-failure
rate <= 1e-4 (binomial) + 1e-4 (reference bound).  Power of the selection-reuse test: a flag rate of
12% (48/400) exceeds the limit with probability 0.99999 (0.993 at 9.0%, the 95% lower bound of that rate).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta, binom
from semiprivate.theory.audit import audit_mechanism
from semiprivate.theory.audit.broken import ReplayFirstBatch
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.privacy.mechanisms import RandomizedResponse

R = 400
TRIALS = 2_000
CONFIDENCE = 0.8
REF_FLAGS, REF_SEEDS = 10, 1200
P_REF = float(beta.ppf(1 - 1e-4, REF_FLAGS + 1, REF_SEEDS - REF_FLAGS))
LIMIT = int(binom.isf(1e-4, R, P_REF))

D0 = np.array([0, 1, 0, 1])
D1 = np.array([1, 1, 0, 1])


def _flags(broken: bool, stop_above: int | None = None) -> int:
    """Flags over the seeds 1000 + i, i < R; with ``stop_above``, the count as soon as it exceeds it (a
    "must exceed the limit" test: the rest of the seeds cannot change that verdict)."""
    mech = RandomizedResponse(1.0)
    flags = 0
    for i in range(R):
        m = ReplayFirstBatch(mech) if broken else mech
        flags += audit_mechanism(m, D0, D1, epsilon=1.0, trials=TRIALS, confidence=CONFIDENCE, rng=1000 + i,
                                 options=AuditOptions(selection_trials=TRIALS)).violation
        if stop_above is not None and flags > stop_above:
            break
    return flags


def test_reference_limits() -> None:
    assert 0.0 < P_REF < 0.03 and LIMIT < R * (1 - CONFIDENCE) / 3  # far below the guaranteed 20%


@pytest.mark.slow
def test_calibration_rr_vector_selection_matters() -> None:
    flags = _flags(broken=False)
    assert flags <= LIMIT, f"{flags}/{R} flagged; the correct audit flags <= {P_REF:.2%} (limit {LIMIT})"


@pytest.mark.slow
def test_selection_batch_reuse_is_caught_for_rr_vector() -> None:
    """Power of the test above: the break must exceed the limit (the 'must fail' side)."""
    flags = _flags(broken=True, stop_above=LIMIT)
    assert flags > LIMIT, f"selection batch reused: only {flags}/{R} flagged (limit {LIMIT})"

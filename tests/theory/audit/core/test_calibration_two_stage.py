"""Calibration of the two-stage audit (``estimate_on="best"``): Laplace on eight tight pairs.

The two-stage design keeps the best of the ``K`` tests on a choice batch and estimates it alone, at
level ``alpha / 2``, with no correction for the tests dropped; that is valid only because the choice
never sees the estimation outputs.  Case: ``LaplaceMechanism(1.0)`` (scale 1) on the pairs
(0, 1), (1, 2), ..., (7, 8), each tight (true epsilon = claim = 1), nine datasets, ``K = 8`` tests
offered to the choice, TRIALS = 2,000 estimation outputs per dataset and as many selection outputs,
confidence 0.8 (alpha = 0.2, generous, so that an anti-conservative audit shows; the audit
guarantees <= 20% flags per seed).

Reference: the correct audit flagged 35 of 1200 other seeds (300_000 + i, same settings); the
1 - 1e-4 Clopper-Pearson upper bound of that rate is P_REF (5.16%; limit 24 flags of R = 200).  The
test fails when the flags over R = 200 seeds (1000 + i) exceed the 1 - 1e-4 quantile of
Binomial(R, P_REF): false-failure rate <= 1e-4 (binomial) + 1e-4 (reference bound).  Power, measured on
these 200 seeds (the correct audit: 4 flags): with the selection batch re-used (choice and estimation
outputs replayed from it, :class:`semiprivate.theory.audit.broken.ReplayFirstBatch`) 129 flags; with
the best of the ``K`` tests chosen on the estimation counts themselves (no choice batch, level
``alpha / 2``: a break of the code, not run here) 47 flags; both far above the limit.  (With three
pairs, ``K = 4``, the second break flagged only 21 of 200: too few tests to choose among, so the case
has eight.)
"""

from __future__ import annotations

from scipy.stats import beta, binom
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.broken import ReplayFirstBatch
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 200
TRIALS = 2_000
CONFIDENCE = 0.8
REF_FLAGS, REF_SEEDS = 35, 1200
P_REF = float(beta.ppf(1 - 1e-4, REF_FLAGS + 1, REF_SEEDS - REF_FLAGS))
LIMIT = int(binom.isf(1e-4, R, P_REF))
PAIRS = [(float(i), float(i + 1)) for i in range(8)]


def _flags(broken: bool) -> int:
    mech = LaplaceMechanism(1.0)
    return sum(
        audit_pairs(ReplayFirstBatch(mech) if broken else mech, PAIRS, epsilon=1.0, trials=TRIALS,
                    confidence=CONFIDENCE, rng=1000 + i, selection_trials=TRIALS, estimate_on="best").violation
        for i in range(R)
    )


def test_reference_limits() -> None:
    assert 0.0 < P_REF < 0.06 and LIMIT < 0.65 * R * (1 - CONFIDENCE)  # 24 flags: 12%, well below the guaranteed 20%


def test_two_stage_false_flag_rate_on_tight_laplace_pairs() -> None:
    flags = _flags(broken=False)
    assert flags <= LIMIT, f"{flags}/{R} flagged; the correct two-stage audit flags <= {P_REF:.2%} (limit {LIMIT})"


def test_two_stage_selection_batch_reuse_is_caught() -> None:
    """Power of the test above: the break must exceed the limit (the 'must fail' side)."""
    flags = _flags(broken=True)
    assert flags > LIMIT, f"selection batch reused: only {flags}/{R} flagged (limit {LIMIT})"

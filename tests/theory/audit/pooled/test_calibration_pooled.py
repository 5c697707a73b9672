"""Calibration of the pooled two-direction tests (``interval="poisson-conditional"``, ``pooled=True``).

Case: randomized response with epsilon 1 on the pair (0, 1), 1,000 selection and estimation outputs per input,
the two-stage design (one test, ``K = 1``), confidence 0.5.  Both directions are exactly tight (ratio ``e`` on
``{x == 1}`` one way and on ``{x == 0}`` the other), so the pooled test of the two wins the choice on most seeds
(asserted: on at least half of them) and a valid test sits *at* its level: the flags measure the pooled test's
level directly, where a design at a small level only bounds it.

Limit: the audit guarantees at most 50% flags per seed, so the 1 - 1e-4 binomial quantile of ``R = 100`` seeds
at 50% (68) fails a valid implementation with probability at most 1e-4; it detects (with probability 0.9) a
false-flag rate of 0.74 or more, 1.5 times the level.  Measured on these seeds (2026-11-28): 45 flags, the
witness pooled on 78 of 100.  Break (kept as a test): the pooled test's denominator without ``k_A(F')`` (the
backward event's count under the data) flags 100 of 100.
"""

from __future__ import annotations

from typing import Any

import pytest
from scipy.stats import binom
from semiprivate.theory.audit import audit_pairs, core
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.audit.pooled import PooledEvent, pair_counts
from semiprivate.theory.privacy.mechanisms import RandomizedResponse

R = 100
TRIALS = 1_000
CONFIDENCE = 0.5
LIMIT = int(binom.isf(1e-4, R, 1 - CONFIDENCE))


def _runs() -> tuple[int, int]:
    flags = pooled = 0
    for i in range(R):
        res = audit_pairs(RandomizedResponse(1.0), [(0, 1)], epsilon=1.0, trials=TRIALS, confidence=CONFIDENCE,
                          rng=5000 + i, options=AuditOptions(selection_trials=TRIALS, estimate_on="best", interval="poisson-conditional"))
        flags += res.violation
        pooled += isinstance(res.witness.event, PooledEvent)
    return flags, pooled


def test_limit_is_well_below_every_seed() -> None:
    assert LIMIT == 68


def test_false_flag_rate_of_pooled_tests_on_tight_randomized_response() -> None:
    flags, pooled = _runs()
    assert pooled >= R // 2, f"the pooled test was the witness on only {pooled}/{R} seeds: the case does not test it"
    assert flags <= LIMIT, f"{flags}/{R} flagged (limit {LIMIT})"


@pytest.mark.slow
def test_dropped_denominator_term_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def dropped(c: Any, index: Any, counts: Any) -> tuple[int, int]:
        kn, ko = pair_counts(c, index, counts)
        if isinstance(c.event, PooledEvent):  # k_B(E) only: the backward event's count under A forgotten
            ko -= counts[(index[c.pair][0], id(c.event.backward))]
        return kn, ko

    monkeypatch.setattr(core, "pair_counts", dropped)
    flags, _ = _runs()
    assert flags > LIMIT, f"denominator term dropped: only {flags}/{R} flagged (limit {LIMIT})"

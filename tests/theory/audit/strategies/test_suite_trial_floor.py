"""The suite's floor of trials per dataset for scaled-down (slow) cases: 2,000 unless the caller asks for another
(the quick report asks for 1,000); cases at full scale are unaffected."""

from __future__ import annotations

import pytest
from semiprivate.theory import audit_suite as suite
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism


def _case(scale: float) -> suite.AuditCase:
    return suite.AuditCase("Laplace", LaplaceMechanism(1.0), [(0.0, 1.0)], 1.0, 0.0, True, trials_scale=scale)


def test_case_trials_scales_down_to_the_floor() -> None:
    assert suite.MIN_TRIALS == 2_000
    assert suite.case_trials(_case(0.005), 100_000) == 2_000
    assert suite.case_trials(_case(0.005), 100_000, 1_000) == 1_000
    assert suite.case_trials(_case(0.005), 1_000_000, 1_000) == 5_000
    assert suite.case_trials(_case(1.0), 100_000, 1_000) == 100_000


def test_run_case_audits_with_the_floor_it_is_given() -> None:
    low = suite.run_case(_case(0.005), trials=100_000, rng=1, min_trials=1_000)
    default = suite.run_case(_case(0.005), trials=100_000, rng=1)
    # two datasets, each: a selection batch of max(1,000, n / 2) and n estimation trials
    assert low.result.trials_used == 2 * (1_000 + 1_000) and default.result.trials_used == 2 * (1_000 + 2_000)
    assert low.as_expected and default.as_expected
    rows = suite.run_suite([_case(0.005)], trials=100_000, rng=1, min_trials=1_000)
    assert rows[0].result.trials_used == 2 * (1_000 + 1_000)


@pytest.mark.parametrize("bad", [0, -5, 1.5])
def test_a_bad_floor_is_refused(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="min_trials"):
        suite.run_case(_case(0.005), trials=100_000, min_trials=bad)  # type: ignore[arg-type]

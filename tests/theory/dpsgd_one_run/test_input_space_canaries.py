"""Black-box one-run audit of DP-SGD with input-space canaries ([SNJ23]): out-of-distribution training points with
random labels, scored by the final logistic model's loss on them.

Stated false-failure rate: confidence 0.95 (beta = 0.05) per audit of the correct trainer; fixed seeds.  The
claim is DP-SGD's own report of the configured noise.
"""

from __future__ import annotations

import pytest
from semiprivate.theory.dpsgd_one_run import one_run_input_canaries
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier

DELTA = 1e-5


@pytest.mark.parametrize("steps", [1, 4])
def test_correct_trainer_passes_and_skipped_clipping_is_flagged(steps: int) -> None:
    """Canaries of norm 20 C: clipped to C by the correct trainer, entering at 20 C when clipping is skipped."""
    sigma = float(calibrate_noise_multiplier(2.0, DELTA, 1.0, steps))
    ok = one_run_input_canaries(1000, noise_multiplier=sigma, steps=steps, delta=DELTA, canary_norm=20.0, rng=1)
    bad = one_run_input_canaries(1000, noise_multiplier=sigma, steps=steps, delta=DELTA, canary_norm=20.0,
                                 variant="clipping_skipped", rng=1)
    assert ok.claimed_epsilon == bad.claimed_epsilon
    assert not ok.violation, ok.describe()
    assert bad.violation, bad.describe()


def test_the_scores_carry_the_membership() -> None:
    """With little noise the included canaries have the lower loss, and the one-run bound reads them."""
    res = one_run_input_canaries(600, noise_multiplier=0.3, steps=1, delta=DELTA, rng=2)
    assert res.scores[res.membership].mean() > res.scores[~res.membership].mean()
    assert 1.5 < res.epsilon_lower_bound <= res.claimed_epsilon


def test_dim_must_leave_room_for_the_canaries() -> None:
    with pytest.raises(ValueError, match="dim"):
        one_run_input_canaries(100, noise_multiplier=1.0, steps=1, dim=10, d=10)


def test_guess_counts_must_be_pairs_within_m() -> None:
    from semiprivate.theory.dpsgd_one_run import one_run_dpsgd

    for bad in ([[1, 2, 3]], [[-1, 0]], [[60, 50]]):
        with pytest.raises(ValueError, match="choices"):
            one_run_dpsgd(100, noise_multiplier=2.0, steps=1, choices=bad, rng=0)

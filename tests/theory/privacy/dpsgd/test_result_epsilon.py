"""DPSGDResult.epsilon: dp-accounting's epsilon of the run's own (sigma, q, T) at any positive noise multiplier
(SPEC DPSGD, accounting), and infinity only for a noiseless reference run (sigma = 0)."""

from __future__ import annotations

import math
from typing import Any

from semiprivate.theory.privacy.accounting import dpsgd_epsilon
from semiprivate.theory.privacy.dpsgd import dp_sgd


def test_noise_multiplier_one_is_accounted_and_zero_is_infinite(half_ball_rows: Any):
    Z, y = half_ball_rows(50, 2, 0)
    res = dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.1, steps=20, rng=0)
    want = dpsgd_epsilon(1.0, 0.1, 20, 1e-5)
    assert math.isfinite(want) and res.epsilon(1e-5) == want
    assert res.epsilon(1e-5, "pld") == dpsgd_epsilon(1.0, 0.1, 20, 1e-5, accountant="pld")
    assert (res.epsilon(1e-5, "pld", relation="add_or_remove_one")
            == dpsgd_epsilon(1.0, 0.1, 20, 1e-5, accountant="pld", relation="add_or_remove_one"))
    noiseless = dp_sgd(Z, y, noise_multiplier=0.0, sampling_rate=0.1, steps=20, rng=0)
    assert noiseless.epsilon(1e-5) == math.inf

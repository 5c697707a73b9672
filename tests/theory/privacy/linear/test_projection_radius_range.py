"""The projection's radius range: inside [1e-150, 1e150] the iterates of Noisy SGD and DP-SGD stay in the
ball at both ends; outside it (where the squared norms under- or overflow in float64 and a row outside the
ball was left unprojected) the radius is refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy.dpsgd import dp_sgd
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd


def _norms(w: np.ndarray) -> np.ndarray:
    w = np.atleast_2d(w)
    scale = np.max(np.abs(w), axis=1, keepdims=True)  # a norm that neither underflows nor overflows
    return scale[:, 0] * np.linalg.norm(w / np.where(scale > 0, scale, 1.0), axis=1)


@pytest.mark.parametrize("radius", [1e-150, 1e150])
def test_iterates_stay_in_the_ball_at_the_range_ends(half_ball_rows, radius) -> None:
    Z, y = half_ball_rows(12, 3, 0)
    w = noisy_sgd(Z, y, 1.0, 1e-3, radius=radius, n_runs=4, rng=0).weights
    assert np.all(_norms(w) <= radius * (1 + 1e-12))
    assert np.all(_norms(w) > 0.2 * radius)  # scaled with the ball, not collapsed to 0
    w = dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.5, steps=20, radius=radius, n_runs=4, rng=0).weights
    assert np.all(_norms(w) <= radius * (1 + 1e-12))


@pytest.mark.parametrize("radius", [1e-170, 1e-151, 1e151, 1e300])
def test_radius_outside_the_range_is_refused(half_ball_rows, radius) -> None:
    Z, y = half_ball_rows(12, 3, 0)
    with pytest.raises(ValueError, match="radius"):
        noisy_sgd(Z, y, 1.0, 1e-3, radius=radius, rng=0)
    with pytest.raises(ValueError, match="radius"):
        dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.5, steps=5, radius=radius, rng=0)

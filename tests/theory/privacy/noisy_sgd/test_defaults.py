"""BST14 Noisy SGD's defaults: margin 1 (L = 1, the scaled hinge loss on the unit ball) and radius 1.

The noise scale and the step size are the theorem's at those constants (SPEC BST14.NoisySGD:
``sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / eps^2``, ``eta(1) = ||C|| / sqrt(n^2 L^2 + p sigma^2)``
with ``||C|| = 2 radius``), and a call without them runs exactly as one that passes them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.bounds.pillar import bst14_noise_scale, bst14_step_size
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd


def test_default_margin_and_radius_are_one(half_ball_rows: Any):
    Z, y = half_ball_rows(6, 3, 4)
    r = noisy_sgd(Z, y, 0.7, 1e-4, rng=3)
    assert r.lipschitz == 1.0
    assert r.sigma == bst14_noise_scale(6, 1.0, 0.7, 1e-4)
    assert r.step_size == bst14_step_size(1, 6, 3, 1.0, 2.0, 0.7, 1e-4)
    explicit = noisy_sgd(Z, y, 0.7, 1e-4, margin=1.0, radius=1.0, rng=3)
    assert np.array_equal(r.weights, explicit.weights)
    assert r.privacy == explicit.privacy

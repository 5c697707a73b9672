"""The margin losses' defaults: the scaled hinge loss ``max(0, 1 - y <w, z> / margin)`` at margin 1
(SPEC Sec 7's scaled hinge loss, PILLAR.Alg1), for the losses and for the per-example gradients."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.linear import loss_values, per_example_gradients


def test_losses_and_gradients_default_to_the_hinge_at_margin_one():
    w = np.array([0.5, -1.0])
    Z = np.array([[0.4, 0.1], [-0.2, 0.6], [0.9, -0.3]])
    y = np.array([1.0, -1.0, 1.0])
    s = y * (Z @ w)  # 0.1, 0.7, 0.75: inside the hinge at margin 1
    assert np.array_equal(loss_values(w, Z, y), np.maximum(0.0, 1.0 - s))
    assert np.array_equal(loss_values(w, Z, y), loss_values(w, Z, y, loss="hinge", margin=1.0))
    assert np.array_equal(per_example_gradients(w, Z, y), -y[:, None] * Z)
    assert np.array_equal(per_example_gradients(w, Z, y),
                          per_example_gradients(w, Z, y, loss="hinge", margin=1.0))

"""semiprivate.kernels._reference_pca.subspace_distance: ||V V^T - W W^T||_2 of orthonormal bases,
the accuracy measure of every PCA test and benchmark."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.kernels._reference_pca import subspace_distance


def _rotated_pair(d: int, k: int, angle: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal (d, k) bases V, W in a random orientation whose largest principal angle is ``angle``."""
    Q = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))[0]
    W = Q[:, :k]
    V = W.copy()
    V[:, 0] = np.cos(angle) * Q[:, 0] + np.sin(angle) * Q[:, k]  # turn one direction out of span(W)
    return V, W


@pytest.mark.parametrize("angle", [0.5, 1e-3, 1e-7, 1e-12])
def test_equal_widths_give_the_sine_of_the_largest_principal_angle(angle: float) -> None:
    """Within a few eps absolute of sin(angle), also below sqrt(eps) (where sqrt(1 - cos^2) gives 0
    or 1.5e-8 steps), in a random orientation; symmetric in V and W."""
    V, W = _rotated_pair(40, 5, angle, seed=3)
    assert abs(subspace_distance(V, W) - np.sin(angle)) <= 1e-14
    assert subspace_distance(V, W) == pytest.approx(subspace_distance(W, V), abs=1e-15)


def test_different_widths_are_at_distance_one_even_when_nested() -> None:
    """span(V) inside span(W), k < l: W W^T - V V^T is a non-zero projection, norm 1 (a one-sided
    ||V - W W^T V|| reads 0 here)."""
    Q = np.linalg.qr(np.random.default_rng(1).standard_normal((10, 10)))[0]
    assert subspace_distance(Q[:, :2], Q[:, :4]) == pytest.approx(1.0, abs=1e-12)
    assert subspace_distance(Q[:, :4], Q[:, :2]) == pytest.approx(1.0, abs=1e-12)


def test_float32_bases_are_measured_in_float64_and_shapes_are_checked() -> None:
    V, W = _rotated_pair(30, 3, 1e-5, seed=5)
    assert abs(subspace_distance(V.astype(np.float32), W) - 1e-5) <= 1e-6  # float32 rounding of V only
    with pytest.raises(ValueError, match="same number of rows"):
        subspace_distance(np.eye(3)[:, :1], np.eye(4)[:, :1])

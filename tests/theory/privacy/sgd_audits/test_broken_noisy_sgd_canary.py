"""The audit suite's broken Noisy SGD canary (``sgd_audits._noisy_sgd_noise_divided``) step by step.

Its docstring: BST14 Noisy SGD as :func:`noisy_sgd` runs it, with the noise divided by ``divisor``:
``sigma = 4 sqrt(2) L n sqrt(log(n / delta) log(1 / delta)) / eps / divisor`` (L = 1), step
``eta(t) = ||C|| / sqrt(t (n^2 L^2 + p sigma_0^2))`` with ``||C|| = 2`` and the undivided ``sigma_0``,
``n^2`` steps from ``theta_1 = 0``, one uniform example per step and run, the scaled hinge with margin 1
(``phi'(s) = -1`` for ``s < 1``, else 0), the gradient oracle ``n grad + N(0, sigma^2 I)``, and the
projection on the unit ball.  The reference below is that statement in plain Python, drawing from the
same generator in the same order (the examples of a step, then its noise).  Three regimes: the noise
divided by 100 (gradient steps dominate), multiplied by 100 (every step projected), and eps = 1000
on rows of norm 2 (large steps; projected iterates whose margins pass 1, where the hinge is flat).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.privacy import sgd_audits

Z = np.array([[1.0, 0.0], [0.6, 0.8], [-1.0, 0.0]])
Y = np.array([1.0, 1.0, -1.0])


def _reference(Z: np.ndarray, y: np.ndarray, epsilon: float, delta: float, divisor: float, runs: int,
               seed: int) -> tuple[np.ndarray, int]:
    n, p = Z.shape
    sigma0 = 4.0 * math.sqrt(2.0) * n * math.sqrt(math.log(n / delta) * math.log(1.0 / delta)) / epsilon
    sigma = sigma0 / divisor
    eta1 = 2.0 / math.sqrt(n * n + p * sigma0 * sigma0)
    g = np.random.default_rng(seed)
    W = [[0.0] * p for _ in range(runs)]
    inactive = 0
    for t in range(1, n * n + 1):
        idx = g.integers(0, n, size=runs)
        noise = g.standard_normal((runs, p))
        for r in range(runs):
            z, yr = Z[idx[r]], float(y[idx[r]])
            s = yr * sum(W[r][k] * float(z[k]) for k in range(p))
            dphi = -1.0 if s < 1.0 else 0.0
            inactive += dphi == 0.0
            for k in range(p):
                W[r][k] -= eta1 / math.sqrt(t) * (n * yr * dphi * float(z[k]) + sigma * float(noise[r, k]))
            norm = math.sqrt(sum(v * v for v in W[r]))
            if norm > 1.0:
                W[r] = [v / norm for v in W[r]]
    return np.array(W), inactive


@pytest.mark.parametrize(("epsilon", "divisor", "scale"), [(1.0, 100.0, 1.0), (1.0, 0.01, 1.0), (1000.0, 1.0, 2.0)])
def test_canary_follows_bst14_noisy_sgd_with_the_noise_divided(epsilon: float, divisor: float, scale: float) -> None:
    got = sgd_audits._noisy_sgd_noise_divided(scale * Z, Y, epsilon, 1e-5, divisor, 5, 3)
    want, inactive = _reference(scale * Z, Y, epsilon, 1e-5, divisor, 5, 3)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    if divisor == 0.01:
        np.testing.assert_allclose(np.linalg.norm(want, axis=1), 1.0, rtol=1e-12)  # projected
    if epsilon == 1000.0:
        assert inactive > 0  # the hinge's flat side is reached, so its derivative is pinned on both sides

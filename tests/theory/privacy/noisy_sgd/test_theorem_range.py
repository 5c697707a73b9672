"""BST14 Noisy SGD reports the theorem's epsilon only where it holds.

With one example (n = 1, T = n^2 = 1 step) the output is a post-processing of one Gaussian mechanism of
L2 sensitivity 2 n L (``n grad l`` for the example replaced by another, both of norm <= L) and noise sigma:
its exact privacy curve is the Gaussian one, ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``
with ``mu = 2 L / sigma``.  The reported (epsilon, delta) must satisfy ``delta(epsilon) <= delta``; BST14's
formula alone fails that at (10, 0.5), (100, 0.1) and (300, 0.01)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd


def _gaussian_delta(eps: float, mu: float) -> float:
    return float(norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2))


@pytest.mark.parametrize("eps, delta", [(10.0, 0.5), (100.0, 0.1), (300.0, 0.01), (1.0, 1e-5), (3.0, 1e-3)])
def test_one_example_reported_privacy_holds_exactly(eps, delta):
    Z, y = np.array([[1.0, 0.0]]), np.array([1.0])
    r = noisy_sgd(Z, y, eps, delta, rng=0)
    assert r.steps == 1 and r.n == 1
    mu = 2.0 * r.lipschitz / r.sigma
    got_eps, got_delta = r.privacy
    assert got_delta == delta
    assert _gaussian_delta(got_eps, mu) <= delta * (1 + 1e-9)
    assert got_eps >= r.theorem_epsilon  # the theorem's claim is kept only where it holds


def test_the_theorem_claim_alone_fails_outside_its_range():
    """What the reported epsilon replaces: at (10, 0.5) the theorem's own epsilon has exact delta 0.65 > 0.5."""
    r = noisy_sgd(np.array([[1.0, 0.0]]), np.array([1.0]), 10.0, 0.5, rng=0)
    assert _gaussian_delta(r.theorem_epsilon, 2.0 * r.lipschitz / r.sigma) > 0.6
    assert r.privacy[0] > 10.0

"""``sample_runs`` (the number of runs K ~ D_{eta, gamma} of the random-stopping search) inverts the CDF
without one Python step per unit of K: a closed form for the geometric, a vectorised walk of the pmf,
and a bisection on the incomplete-beta survival function for large E[K].  Each route is checked to give
the same k as the one-step-at-a-time inversion (the specification) on the same uniform.

Deterministic (fixed seeds): no false-failure rate."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy import random_stopping as rs


def _reference(eta: float, gamma: float, u: float) -> int:
    """The plain inversion: the smallest k with P[K <= k] > u, one k at a time."""
    p = rs._tnb_first(eta, gamma)
    cdf, k = p, 1
    while cdf <= u and p > 0.0:
        p *= (1.0 - gamma) * (k + eta) / (k + 1.0)
        cdf += p
        k += 1
    return k


@pytest.mark.parametrize("eta", [0.0, 0.3, 1.0, 2.5])
@pytest.mark.parametrize("gamma", [0.9, 0.2, 0.01])
def test_same_k_as_the_plain_inversion(eta, gamma):
    for seed in range(100):
        u = float(np.random.default_rng(seed).random())
        assert rs.sample_runs(eta, gamma, rng=seed) == _reference(eta, gamma, u)


@pytest.mark.parametrize("eta", [0.5, 2.0])
def test_bisection_route_matches_the_plain_inversion(monkeypatch, eta):
    monkeypatch.setattr(rs, "_WALK_MAX_MEAN", 1.0)  # force the incomplete-beta bisection at a modest E[K]
    for seed in range(30):
        u = float(np.random.default_rng(seed).random())
        assert rs.sample_runs(eta, 1e-3, rng=seed) == _reference(eta, 1e-3, u)


def test_tiny_gamma_is_drawn_without_walking():
    # E[K] = 1e9 (geometric) and ~1e9 (eta = 0.5): the old walk took one Python step per unit of K
    k1 = rs.sample_runs(1.0, 1e-9, rng=1)
    k2 = rs.sample_runs(0.5, 1e-9, rng=1)
    u = float(np.random.default_rng(1).random())
    assert k1 == int(np.floor(np.log1p(-u) / np.log1p(-1e-9))) + 1
    assert 1 <= k2 and rs._tnb_survival(k2, 0.5, 1e-9) < 1 - u <= rs._tnb_survival(k2 - 1, 0.5, 1e-9)


def test_logarithmic_law_with_a_huge_mean_is_refused():
    with pytest.raises(ValueError, match="gamma: eta = 0 with gamma = 1e-09"):
        rs.sample_runs(0.0, 1e-9, rng=0)

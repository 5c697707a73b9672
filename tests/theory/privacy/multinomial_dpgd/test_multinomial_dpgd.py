"""Full-batch multinomial DP-GD: the fast loop against the plain one, the clipped sensitivity, the noise
that is drawn, and the accounting against the closed form of the composed Gaussian mechanism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import chi2, norm
from semiprivate.theory.privacy import multinomial_dpgd as mdg


def _gdp_epsilon(mu: float, delta: float) -> float:
    """Epsilon at delta of mu-GDP (Dong-Roth-Su 2022 Cor 2.13), written here from the formula."""
    def excess(e: float) -> float:
        return float(norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta)

    return float(brentq(excess, 0.0, 200.0, xtol=1e-12))


def test_fast_loop_matches_the_plain_reference() -> None:
    g = np.random.default_rng(3)
    Z = g.normal(size=(30, 4)) * 2.0
    y = g.integers(0, 3, size=30)
    kw = dict(noise_multiplier=0.7, steps=12, clip=0.5, learning_rate=1.5, average=0.5)
    fast = mdg.multinomial_dp_gd(Z, y, 3, rng=np.random.default_rng(11), **kw).weights
    ref = mdg._multinomial_dp_gd_reference(Z, y, 3, rng=np.random.default_rng(11), **kw)
    np.testing.assert_allclose(fast, ref, rtol=1e-10, atol=1e-12)


def test_replacing_one_row_moves_the_sum_by_at_most_twice_the_clip() -> None:
    """Noise off, one step, average 1: W = -(lr/n) G, so ||W - W'|| n / lr is the change of the clipped sum."""
    g = np.random.default_rng(0)
    Z = g.normal(size=(40, 5))
    y = g.integers(0, 4, size=40)
    Z2, y2 = Z.copy(), y.copy()
    Z2[7] = 1e6 * g.normal(size=5)  # a far-away row with another label
    y2[7] = (y[7] + 1) % 4
    kw = dict(noise_multiplier=0.0, steps=1, clip=0.3, learning_rate=1.0, average=1.0)
    w1 = mdg.multinomial_dp_gd(Z, y, 4, rng=None, **kw).weights  # noise off: no coin is read
    w2 = mdg.multinomial_dp_gd(Z2, y2, 4, rng=None, **kw).weights
    moved = float(np.linalg.norm(w1 - w2)) * 40 / 1.0
    assert moved <= 2 * 0.3 * (1 + 1e-9)
    assert moved > 0.3  # the far row's clipped term really has norm ~ clip


def test_drawn_noise_has_the_stated_scale() -> None:
    """Zero features: every feature weight after one step is -(lr/n) sigma clip N(0, 1).

    4000 draws; the chi-square two-sided 1e-6 band on the sample variance; a halved noise multiplier
    gives a variance ratio of 1/4, far outside it."""
    n, p, C = 20, 2000, 2
    Z = np.zeros((n, p))
    y = np.arange(n) % C
    sig, lr, cl = 3.0, 0.5, 2.0
    w = mdg.multinomial_dp_gd(Z, y, C, noise_multiplier=sig, steps=1, clip=cl, learning_rate=lr, average=1.0,
                              rng=np.random.default_rng(5)).weights[:-1]
    s = lr / n * sig * cl
    stat = float(np.sum(w**2) / s**2)
    k = w.size
    assert chi2.ppf(5e-7, k) < stat < chi2.ppf(1 - 5e-7, k)


@pytest.mark.parametrize(("epsilon", "steps"), [(0.1, 100), (1.0, 100), (1.0, 7), (10.0, 300)])
def test_calibrated_noise_meets_the_target_by_the_closed_form(epsilon: float, steps: int) -> None:
    sigma = mdg.full_batch_noise_multiplier(epsilon, 1e-5, steps)
    exact = _gdp_epsilon(2.0 * math.sqrt(steps) / sigma, 1e-5)
    assert exact <= epsilon * (1 + 1e-9)
    assert exact >= epsilon * (1 - 2e-3)  # not much more noise than needed
    reported = mdg.full_batch_epsilon(sigma, steps, 1e-5)
    assert exact * (1 - 1e-6) <= reported <= epsilon  # the PLD accountant: an upper bound, close


def test_result_epsilon_is_the_accountant_of_what_ran() -> None:
    res = mdg.multinomial_dp_gd(np.ones((5, 2)), np.array([0, 1, 0, 1, 1]), 2, noise_multiplier=4.0, steps=9,
                                rng=np.random.default_rng(0))
    assert res.epsilon(1e-5) == pytest.approx(_gdp_epsilon(2 * 3 / 4.0, 1e-5), rel=1e-3)
    free = mdg.multinomial_dp_gd(np.ones((5, 2)), np.array([0, 1, 0, 1, 1]), 2, noise_multiplier=0.0, steps=2,
                                 rng=np.random.default_rng(1))  # another release: its own seed
    assert free.epsilon(1e-5) == math.inf


def test_bad_inputs_are_refused_by_name() -> None:
    Z, y = np.ones((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(TypeError, match="rng"):
        mdg.multinomial_dp_gd(Z, y, 2, noise_multiplier=1.0, steps=1, rng=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="class indices"):
        mdg.multinomial_dp_gd(Z, np.array([0, 1, 2, 1]), 2, noise_multiplier=1.0, steps=1,
                              rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="average"):
        mdg.multinomial_dp_gd(Z, y, 2, noise_multiplier=1.0, steps=1, average=0.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="finite"):
        mdg.multinomial_dp_gd(np.full((4, 2), np.nan), y, 2, noise_multiplier=1.0, steps=1,
                              rng=np.random.default_rng(0))

"""Distributions: exact err(h; D) against Monte Carlo, D0 labels, mixtures, bad input.

Each Monte Carlo comparison uses 200000 seeded draws and a tolerance of 5 standard errors
(false-failure rate < 1e-6 per comparison)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.distributions import (
    IntervalDistribution,
    MixtureDistribution,
    RandomLabelDistribution,
    RectangleDistribution,
    ThresholdDistribution,
    uniform_points,
)

N = 200_000


def _mc_error(D, h, seed):
    X, y = D.sample(N, seed)
    return float(np.mean(D.concept_class.evaluate(h, X) != y))


@pytest.mark.parametrize(
    "D,h",
    [
        (ThresholdDistribution(64, 2**63, noise=0.1), 2**62),
        (ThresholdDistribution(5, 0), 32),
        (IntervalDistribution(16, (100, 30000), noise=0.2), (5000, 60000)),
        (IntervalDistribution(16, None), (0, 65535)),
        (RectangleDistribution(8, 2, ((10, 20), (100, 200)), noise=0.05), ((50, 0), (255, 150))),
        (RectangleDistribution(8, 2, None), None),
    ],
)
def test_exact_error_matches_monte_carlo(D, h):
    exact = D.error(h)
    se = np.sqrt(max(exact * (1 - exact), 1e-12) / N)
    assert abs(_mc_error(D, h, 3) - exact) <= 5 * se + 1e-12
    assert D.error(D.target) == pytest.approx(D.optimal_error)


def test_random_label_distribution_and_mixture():
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 10, g))
    X, y = D0.sample(N, 1)
    assert abs(y.mean() - 0.5) <= 5 * np.sqrt(0.25 / N)
    assert D0.error(123) == 0.5
    D = ThresholdDistribution(10, 400)
    mix = MixtureDistribution(D, D0, 0.3)
    assert mix.error(600) == pytest.approx(0.3 * D.error(600) + 0.7 * 0.5)
    Xm, ym = mix.sample(N, 2)
    mc = float(np.mean(D.concept_class.evaluate(600, Xm) != ym))
    assert abs(mc - mix.error(600)) <= 5 * np.sqrt(0.25 / N)


def test_sampling_is_reproducible_and_in_domain():
    D = ThresholdDistribution(64, 2**64)
    a = D.sample(1000, 7)
    b = D.sample(1000, 7)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[0].dtype == np.uint64 and a[1].all()  # t = 2^64 labels everything 1


def test_bad_input():
    with pytest.raises(ValueError):
        ThresholdDistribution(8, 257)
    with pytest.raises(ValueError):
        ThresholdDistribution(65, 1)
    with pytest.raises(ValueError):
        ThresholdDistribution(8, 3, noise=0.5)
    with pytest.raises(ValueError):
        IntervalDistribution(8, (5, 2))
    with pytest.raises(TypeError):
        RandomLabelDistribution(3)
    with pytest.raises(ValueError):
        MixtureDistribution(None, None, 1.5)
    with pytest.raises(ValueError):
        ThresholdDistribution(8, 3).sample(-1)


@pytest.mark.parametrize(
    "h,exc",
    [(300, ValueError), (257, ValueError), (-5, ValueError), (1.7, TypeError), (True, TypeError),
     ("3", TypeError), (100.0, TypeError), (None, TypeError)],
)
def test_threshold_error_rejects_hypotheses_outside_the_class(h, exc):
    """err(h; D) is defined only for h in THRESH_d: t = 300 > 2^8 once gave 0.78125."""
    with pytest.raises(exc, match="threshold"):
        ThresholdDistribution(8, 100).error(h)


@pytest.mark.parametrize(
    "h,exc",
    [((1.5, 3), TypeError), ((True, 3), TypeError), (("1", 3), TypeError), ((1, 2, 3), ValueError),
     ((1,), ValueError), ((3, 256), ValueError), ((-1, 3), ValueError), (7, TypeError)],
)
def test_interval_hypotheses_must_be_int_pairs(h, exc):
    with pytest.raises(exc, match="interval"):
        IntervalDistribution(8, h)
    with pytest.raises(exc, match="interval"):
        IntervalDistribution(8, (2, 9)).error(h)


@pytest.mark.parametrize(
    "h,exc",
    [(((0, 0), (1.5, 3)), TypeError), (((0, True), (3, 3)), TypeError), (((0,), (3,)), ValueError),
     (((0, 0), (3, 256)), ValueError), (((0, 0), (3, 3), (4, 4)), ValueError)],
)
def test_rectangle_hypotheses_must_be_int_boxes(h, exc):
    with pytest.raises(exc, match="rectangle"):
        RectangleDistribution(8, 2, h)
    with pytest.raises(exc, match="rectangle"):
        RectangleDistribution(8, 2, ((0, 0), (3, 3))).error(h)


def test_valid_numpy_integer_hypotheses_still_work():
    D = IntervalDistribution(8, (np.uint64(2), np.int64(9)))
    assert D.error((2, 9)) == 0.0 and D.error(np.array([2, 9], dtype=np.uint64)) == 0.0
    assert ThresholdDistribution(8, 100).error(np.int32(100)) == 0.0

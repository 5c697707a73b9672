"""Basic mechanisms: output form, distributions (fixed seeds; each goodness-of-fit test has a
false-failure rate of 1e-4 at its threshold), calibration formulas, validation, and an audit
of each with its claimed (epsilon, delta)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from semiprivate.theory.audit import assert_private
from semiprivate.theory.privacy.mechanisms import (
    GaussianMechanism,
    GeometricMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    gaussian_delta,
    gaussian_sigma,
)
from semiprivate.theory.validity import ConditionNotMet

P_MIN = 1e-4  # goodness-of-fit tests fail below this p-value: false-failure rate 1e-4 each


def test_output_form_and_privacy_attribute() -> None:
    assert LaplaceMechanism(1.0)(2.0, 7, None).shape == (7,)
    assert LaplaceMechanism(1.0)(np.zeros(3), 7, None).shape == (7, 3)
    assert GaussianMechanism(1.0, 1e-6)(np.zeros(2), 4, None).shape == (4, 2)
    assert GeometricMechanism(1.0)(np.array([1, 2]), 4, None).shape == (4, 2)
    assert RandomizedResponse(1.0)(np.array([0, 1, 1]), 4, None).shape == (4, 3)
    assert ReportNoisyMax(1.0)([1.0, 2.0], 4, None).shape == (4,)
    assert LaplaceMechanism(0.3).privacy == (0.3, 0.0)
    assert GaussianMechanism(0.3, 1e-6).privacy == (0.3, 1e-6)
    assert GeometricMechanism(0.3).privacy == (0.3, 0.0)
    assert RandomizedResponse(0.3).privacy == (0.3, 0.0)
    assert ReportNoisyMax(0.3).privacy == (0.3, 0.0)
    np.testing.assert_array_equal(LaplaceMechanism(1.0)(0.0, 5, 3), LaplaceMechanism(1.0)(0.0, 5, 3))


def test_query_callable() -> None:
    m = LaplaceMechanism(1.0, query=lambda d: float(np.sum(d)))
    out = m(np.ones(4), 200_000, 1)
    assert abs(float(np.median(out)) - 4.0) < 0.02


def test_laplace_distribution() -> None:
    m = LaplaceMechanism(0.5, sensitivity=2.0)
    x = m(1.0, 50_000, 2)
    assert stats.kstest(x, stats.laplace(loc=1.0, scale=4.0).cdf).pvalue > P_MIN


def test_gaussian_distribution_and_calibration() -> None:
    m = GaussianMechanism(1.0, 1e-5, sensitivity=2.0)
    x = m(0.0, 50_000, 3)
    assert stats.kstest(x, stats.norm(scale=m.sigma).cdf).pvalue > P_MIN
    # analytic calibration is exact and never worse than the classic one (eps < 1)
    for e in (0.1, 0.5, 0.9):
        s_a, s_c = gaussian_sigma(e, 1e-6), gaussian_sigma(e, 1e-6, method="classic")
        assert s_a <= s_c
        assert gaussian_delta(e, s_a) <= 1e-6 and gaussian_delta(e, s_c) <= 1e-6
        assert gaussian_delta(e, s_a * (1 - 1e-6)) > 1e-6 * (1 - 1e-4)
    assert gaussian_sigma(1.0, 1e-5, sensitivity=3.0) == pytest.approx(3 * gaussian_sigma(1.0, 1e-5), rel=1e-9)
    with pytest.raises(ConditionNotMet):
        gaussian_sigma(1.5, 1e-5, method="classic")
    with pytest.raises(ConditionNotMet):
        gaussian_sigma(1.0, 0.0)


def test_gaussian_delta_limits() -> None:
    assert gaussian_delta(1.0, 1e-3) > 0.999  # almost no noise: delta -> 1
    assert gaussian_delta(50.0, 1.0) < 1e-300  # log-space evaluation: no negative or NaN result
    assert 0 < gaussian_delta(0.5, 2.0) < 1


def test_geometric_distribution() -> None:
    m = GeometricMechanism(0.8)
    x = m(3, 100_000, 4)
    support = np.arange(-12, 19)
    p = np.exp(m.log_probabilities(3, support))
    obs = np.array([np.count_nonzero(x == k) for k in support] + [np.count_nonzero((x < -12) | (x > 18))])
    exp_ = np.append(p, 1 - p.sum()) * len(x)
    assert stats.chisquare(obs, exp_).pvalue > P_MIN
    assert m(1.5, 3, 0).shape == (3,)  # a non-integer answer is floored (no refusal that depends on it)


def test_randomized_response_distribution() -> None:
    m = RandomizedResponse(1.0, n_categories=3)
    x = m(2, 60_000, 5)
    obs = np.bincount(x, minlength=3)
    assert stats.chisquare(obs, np.exp(m.log_probabilities(2)) * len(x)).pvalue > P_MIN
    with pytest.raises(ValueError, match="categories"):
        m(3, 2, 0)


def test_report_noisy_max_gumbel_is_the_exponential_mechanism() -> None:
    m = ReportNoisyMax(1.0, noise="gumbel")
    s = np.array([0.0, 1.0, 2.0, -1.0])
    x = m(s, 80_000, 6)
    obs = np.bincount(x, minlength=4)
    expected = np.exp(0.5 * s) / np.exp(0.5 * s).sum()
    assert stats.chisquare(obs, expected * len(x)).pvalue > P_MIN
    np.testing.assert_allclose(np.exp(m.log_probabilities(s)), expected)
    assert ReportNoisyMax(1.0, monotone=True).scale == 1.0 and ReportNoisyMax(1.0).scale == 2.0
    with pytest.raises(ValueError, match="gumbel"):
        ReportNoisyMax(1.0).log_probabilities(s)


def test_validation() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        LaplaceMechanism(0.0)
    with pytest.raises(TypeError, match="sensitivity"):
        LaplaceMechanism(1.0, sensitivity="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta"):
        GaussianMechanism(1.0, 1.0)
    with pytest.raises(ValueError, match="calibration"):
        GaussianMechanism(1.0, 1e-5, calibration="other")
    with pytest.raises(ValueError, match="n_categories"):
        RandomizedResponse(1.0, n_categories=1)
    with pytest.raises(ValueError, match="size"):
        LaplaceMechanism(1.0)(0.0, 0, 0)
    with pytest.raises(ValueError, match="finite"):
        LaplaceMechanism(1.0)(float("nan"), 2, 0)


@pytest.mark.parametrize(
    "mechanism, d0, d1",
    [
        (LaplaceMechanism(1.0), 0.0, 1.0),
        (GaussianMechanism(1.0, 1e-5), 0.0, 1.0),
        (GeometricMechanism(1.0), 0, 1),
        (RandomizedResponse(1.0, n_categories=3), 0, 2),
        (ReportNoisyMax(1.0), np.array([1.0, 0, 0]), np.array([0.0, 1, 1])),
        (ReportNoisyMax(1.0, noise="gumbel"), np.array([1.0, 0, 0]), np.array([0.0, 1, 1])),
    ],
    ids=repr,
)
def test_each_mechanism_passes_an_audit_of_its_claim(mechanism, d0, d1) -> None:  # type: ignore[no-untyped-def]
    # false-failure rate <= 0.001 per mechanism (assert_private's default confidence)
    eps, delta = mechanism.privacy
    res = assert_private(mechanism, d0, d1, epsilon=eps, delta=delta, trials=100_000, rng=7)
    assert res.epsilon_lower_bound > 0.3 * eps  # the audit sees real evidence, not a vacuous 0
    # and a claim of half the epsilon is refuted (except Gaussian: its tail needs more trials)
    if not isinstance(mechanism, GaussianMechanism):
        with pytest.raises(AssertionError):
            assert_private(mechanism, d0, d1, epsilon=eps / 2, delta=delta, trials=100_000, rng=7)
    assert math.isfinite(res.epsilon_lower_bound)


@pytest.mark.parametrize("answer", [np.inf, -np.inf, np.nan, 1e30, np.array([1.0, np.inf])])
def test_geometric_mechanism_maps_any_float_answer_into_int64(answer) -> None:
    """m(np.inf, 3, 0) once returned +-9.2e18 after a cast warning; now every float answer is mapped
    (floor, clip to +-2^62, NaN to 0) without a warning or a refusal that would depend on it."""
    out = GeometricMechanism(1.0)(answer, 3, 0)
    assert out.dtype == np.int64 and np.all(np.abs(out) <= 2**62 + 2**10)

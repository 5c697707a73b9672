"""semiprivate.theory.privacy.mechanisms: queries are applied, randomized response rejects what is not a category (and
says the range), seeded runs repeat, exact log-probabilities with a sensitivity and unsigned supports. Statistical
checks use 6-sigma bands with fixed seeds (false-failure rate < 1e-8).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.privacy.mechanisms import (
    GaussianMechanism,
    GeometricMechanism,
    RandomizedResponse,
    ReportNoisyMax,
)


def test_gaussian_applies_its_query() -> None:
    m = GaussianMechanism(1.0, 1e-5, query=np.sum)
    out = m(np.array([1.0, 2.0, 3.0]), 4000, 0)
    assert out.shape == (4000,)  # the query's scalar answer, not the 3-vector data
    assert abs(out.mean() - 6.0) < 6 * m.sigma / math.sqrt(4000)


def test_randomized_response_rejects_non_categories() -> None:
    rr = RandomizedResponse(1.0, n_categories=4)
    for bad in (-1, 4, 0.5, 1.0, np.array([0, -1]), np.zeros((2, 2), dtype=int), "a"):
        with pytest.raises(ValueError, match=r"^data must be categories in \[0, 3\] \(scalar or 1-D\); some entry is not$"):
            rr(bad, 3, None)
    with pytest.raises(ValueError, match=r"^data must be categories in \[0, 1\]"):
        RandomizedResponse(1.0).log_probabilities(2)
    assert rr(np.array([0, 3], dtype=np.uint8), 2, None).shape == (2, 2)
    assert RandomizedResponse(1.0)(True, 3, None).shape == (3,)


def test_randomized_response_uses_the_generator() -> None:
    rr = RandomizedResponse(1.0, n_categories=5)
    a, b = rr(np.arange(5), 50, 7), rr(np.arange(5), 50, 7)
    assert np.array_equal(a, b)
    g = np.random.default_rng(7)
    assert np.array_equal(rr(np.arange(5), 50, g), a)
    assert not np.array_equal(rr(np.arange(5), 50, g), a)


def test_geometric_log_probabilities_sensitivity_and_support_types() -> None:
    m = GeometricMechanism(1.0, sensitivity=2)
    k = np.arange(-60, 61)
    lp = m.log_probabilities(0, k)
    assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-12)
    assert lp[60] - lp[61] == pytest.approx(0.5)  # epsilon / sensitivity per unit step
    # an unsigned support below the answer: distances are |k - a|, not wrapped around 2^64
    m1 = GeometricMechanism(1.0)
    assert np.allclose(m1.log_probabilities(3, np.arange(6, dtype=np.uint64)), m1.log_probabilities(3, np.arange(6)))


def test_report_noisy_max_exact_probabilities() -> None:
    with pytest.raises(ValueError, match="^exact output probabilities are implemented for noise='gumbel' only$"):
        ReportNoisyMax(1.0).log_probabilities([0.0, 1.0])
    m = ReportNoisyMax(1.0, noise="gumbel", query=lambda d: 3.0 * np.asarray(d, dtype=float))
    s = 3.0 * np.array([0.0, 1.0, 0.5]) / m.scale
    expected = s - np.log(np.exp(s).sum())
    assert np.allclose(m.log_probabilities([0.0, 1.0, 0.5]), expected)


def test_geometric_answer_checks() -> None:
    m = GeometricMechanism(1.0)
    with pytest.raises(TypeError, match="^data: the geometric mechanism needs a numeric answer, got dtype"):
        m("a", 3, None)
    with pytest.raises(ValueError, match="^data: the query answer must be a number or a 1-D vector, got shape"):
        m(np.zeros((2, 2), dtype=int), 3, None)
    # the answer's values are mapped (floor, clip to +-2^62, NaN to 0), never refused: a refusal would depend
    # on the private answer (an error on one dataset, an output on its neighbour)
    m0 = GeometricMechanism(1e-3)
    for value, expected in [(0.5, 0), (-0.5, -1), (3.5, 3), (np.nan, 0), (np.inf, 2**62), (-np.inf, -(2**62)),
                            (2**62 + 1, 2**62), (-(2**62) - 1, -(2**62)), (2**62, 2**62)]:
        got = m0._int_answer(value)
        assert int(got) == expected
        assert m(value, 2, None).dtype == np.int64
    assert int(m0._int_answer(np.uint64(2**64 - 1))) == 2**62
    out = m(3.0, 5, None)  # integer-valued floats are answers too; the output is int64
    assert out.dtype == np.int64
    assert m.log_probabilities(3.0, [3]).shape == (1,)


def test_geometric_applies_query_generator_and_sensitivity() -> None:
    q = GeometricMechanism(1.0, query=np.sum)
    out = q(np.array([1, 2, 3]), 4001, 0)
    assert out.shape == (4001,) and np.median(out) == 6
    a, b = q(np.array([1, 2, 3]), 30, 9), q(np.array([1, 2, 3]), 30, 9)
    assert np.array_equal(a, b)
    g = np.random.default_rng(9)
    assert np.array_equal(q(np.array([1, 2, 3]), 30, g), a) and not np.array_equal(q(np.array([1, 2, 3]), 30, g), a)
    # Z = G1 - G2 with alpha = exp(-eps / sensitivity): Var Z = 2 alpha / (1 - alpha)^2 (7.83 at eps/s = 1/2)
    z = GeometricMechanism(1.0, sensitivity=2)(0, 40_000, 1)
    alpha = math.exp(-0.5)
    assert abs(z.var() / (2 * alpha / (1 - alpha) ** 2) - 1) < 0.06


def test_report_noisy_max_query_and_score_checks() -> None:
    m = ReportNoisyMax(1.0, query=lambda d: -np.asarray(d, dtype=float))
    out = m([0.0, 100.0, 0.0], 2000, None)
    assert not np.any(out == 1) and set(out.tolist()) == {0, 2}
    assert ReportNoisyMax(1.0)([5.0], 4, None).tolist() == [0, 0, 0, 0]
    for bad in ([], 5.0):
        with pytest.raises(ValueError, match="^report noisy max needs a non-empty 1-D score vector$"):
            ReportNoisyMax(1.0)(bad, 3, None)


def test_real_valued_answer_checks() -> None:
    from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

    m = LaplaceMechanism(1.0)
    big = m(2**70, 2, None)  # a Python int beyond int64 is a real answer (converted to float64)
    assert big.dtype == np.float64 and np.all(np.abs(big / 2.0**70 - 1) < 1e-9)
    with pytest.raises(ValueError, match=r"^the query answer must be a number or a 1-D vector, got shape \(2, 2\)$"):
        m(np.zeros((2, 2)), 3, None)
    with pytest.raises(ValueError, match=r"^the query answer must be a number or a 1-D vector"):
        m(np.zeros((2, 2, 2)), 3, None)
    with pytest.raises(ValueError, match="^the query answer must be finite$"):
        m(np.array([0.0, np.nan]), 3, None)
    with pytest.raises(ValueError, match=r"^size must be an integer in \[1, inf\], got 0$"):
        m(0.0, 0, None)


def test_laplace_report_noisy_max_law_and_generators() -> None:
    # two scores 4 apart, Lap(b = 2) noise: P(index 1) = P(Z0 - Z1 < 4) = 1 - (1/2) e^{-t/b} (1 + t/(2b))
    # = 1 - e^{-2} = 0.8647 (Gumbel noise would give the softmax 0.8808): 6-sigma band at 200,000 draws
    m = ReportNoisyMax(1.0)
    out = m([0.0, 4.0], 200_000, 2)
    p = 1 - math.exp(-2.0)
    assert abs(np.mean(out == 1) - p) < 6 * math.sqrt(p * (1 - p) / 200_000)
    for seed, (mech, data) in zip((13, 14), ((m, [0.0, 1.0, 0.5]), (GaussianMechanism(1.0, 1e-5), np.zeros(3)))):
        a, b = mech(data, 40, seed), mech(data, 40, seed)  # one seed per release; the same release reproduces
        assert np.array_equal(a, b)
        g = np.random.default_rng(seed)
        assert np.array_equal(mech(data, 40, g), a) and not np.array_equal(mech(data, 40, g), a)


@pytest.mark.parametrize("eps, sigma, sens", [(0.0, 1.0, 1.0), (0.5, 0.7, 1.0), (1.0, 1.0, 1.0), (3.0, 2.0, 1.5),
                                              (1.0, 0.3, 2.0), (2.0, 0.5, 1.0)])
def test_gaussian_delta_is_the_hockey_stick_divergence(eps: float, sigma: float, sens: float) -> None:
    """BW18 Thm 8's delta(eps) of N(0, s^2) vs N(D, s^2), checked against its definition
    delta = int max(p(x) - e^eps q(x), 0) dx by quadrature (relative 1e-7)."""
    from scipy import integrate, stats

    p, q = stats.norm(0.0, sigma), stats.norm(sens, sigma)
    kink = sens / 2 - eps * sigma**2 / sens  # where p = e^eps q (the integrand is positive to its left)
    want = sum(integrate.quad(lambda x: max(p.pdf(x) - math.exp(eps) * q.pdf(x), 0.0), lo, hi, epsabs=0,
                              epsrel=1e-11, limit=200)[0]
               for lo, hi in ((-np.inf, kink), (kink, np.inf)))
    from semiprivate.theory.privacy.mechanisms import gaussian_delta

    assert gaussian_delta(eps, sigma, sens) == pytest.approx(want, rel=1e-7)


def test_gaussian_delta_is_zero_where_the_two_log_terms_meet() -> None:
    # eps = 328, sigma = 100: log Phi(a) and eps + log Phi(b) are the same float (delta ~ exp(-5e8))
    from semiprivate.theory.privacy.mechanisms import gaussian_delta

    assert gaussian_delta(328.0, 100.0) == 0.0


@pytest.mark.parametrize("eps, delta, sens", [(1.0, 1e-5, 1.0), (5.0, 1e-3, 1.0), (0.3, 1e-6, 10.0),
                                              (2.0, 1e-5, 1e-4)])
def test_analytic_gaussian_sigma_is_the_smallest_to_1e_12(eps: float, delta: float, sens: float) -> None:
    """The analytic calibration returns sigma with delta(sigma) <= delta < delta(sigma (1 - 1e-12)): the smallest
    to the documented relative precision, for sigma below the sensitivity (eps 5), far above it (eps 0.3), and
    a sensitivity far from 1 (the bracket scales with it)."""
    from semiprivate.theory.privacy.mechanisms import gaussian_delta, gaussian_sigma

    s = gaussian_sigma(eps, delta, sens)
    assert gaussian_delta(eps, s, sens) <= delta < gaussian_delta(eps, s * (1 - 1e-12), sens)


def test_classic_gaussian_sigma_and_its_conditions_are_stated() -> None:
    from semiprivate.theory.privacy.mechanisms import gaussian_sigma
    from semiprivate.theory.validity import ConditionNotMet

    # DR14 Thm A.1: sigma = D sqrt(2 ln(1.25 / delta)) / eps
    assert gaussian_sigma(0.5, 1e-5, 2.0, "classic") == pytest.approx(2.0 * math.sqrt(2 * math.log(125_000.0)) / 0.5,
                                                                      rel=1e-15)
    with pytest.raises(ConditionNotMet) as err:
        gaussian_sigma(1.0, 1e-5, 1.0, "classic")  # epsilon < 1 is strict
    assert str(err.value) == "DR14 Thm A.1 (classic Gaussian calibration) needs epsilon < 1 (got epsilon=1.0)"
    for method in ("classic", "analytic"):
        with pytest.raises(ConditionNotMet) as err:
            gaussian_sigma(0.5, 0.0, 1.0, method)
        assert str(err.value) == ("AUDIT (Gaussian mechanism) needs delta > 0 (no finite sigma gives (epsilon, 0)-DP; "
                                  "use LaplaceMechanism for pure DP) (got delta=0.0)")


def test_whether_it_answers_does_not_depend_on_the_private_answer():
    # neighbouring answers on both sides of every former value check (integer, finite, |a| <= 2^62) are all
    # answered: raising on one and answering the other would tell them apart (delta = 1 on the error channel)
    m = GeometricMechanism(1.0)
    for good, other in [(3, 3.5), (np.array([1.0, 2.0]), np.array([1.0, np.inf])),
                        (np.array([2.0, 3.0]), np.array([2.0, np.nan])), (2**62, 2**62 + 7)]:
        for value in (good, other):
            assert m(value, 1, None).dtype == np.int64

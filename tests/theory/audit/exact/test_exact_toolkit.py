"""Exact-ratio checks: the toolkit's mechanisms with computable output distributions meet their
claimed epsilon on every neighbouring pair hypothesis draws (no statistics: exact, error rate 0)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from semiprivate import kernels
from semiprivate.theory.audit import broken, exact_privacy_loss
from semiprivate.theory.audit import strategies as aud_st
from semiprivate.theory.privacy.mechanisms import GeometricMechanism, RandomizedResponse, ReportNoisyMax

# this machine is shared and loaded: data generation may be slow; that is not a test failure
SLOW_OK = [HealthCheck.too_slow]


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.query_vectors(6, mode="all", low=-5, high=5))
def test_kernels_exponential_mechanism_exact(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    lp = kernels.exponential_log_probabilities(a, 0.7)
    lq = kernels.exponential_log_probabilities(b, 0.7)
    assert exact_privacy_loss(lp, lq, log=True).epsilon <= 0.7 + 1e-9
    # without the 1/2 (a broken exponential mechanism) the claim fails on the extreme pair
    s0 = np.zeros(50)
    s0[0] = 1.0
    bad = broken.ExponentialMechanismNoHalf(0.7)
    assert bad.true_epsilon((s0, 1.0 - s0)) > 0.7


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.query_vectors(5, mode="all", low=-5, high=5))
def test_report_noisy_max_gumbel_exact(pair) -> None:  # type: ignore[no-untyped-def]
    m = ReportNoisyMax(1.2, noise="gumbel")
    loss = exact_privacy_loss(m.log_probabilities(pair[0]), m.log_probabilities(pair[1]), log=True)
    assert loss.epsilon <= 1.2 + 1e-9
    np.testing.assert_allclose(m.log_probabilities(pair[0]), kernels.exponential_log_probabilities(pair[0], 1.2))


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.query_vectors(1, mode="one", integer=True, low=-20, high=20))
def test_geometric_exact_on_a_window(pair) -> None:  # type: ignore[no-untyped-def]
    m = GeometricMechanism(0.9)
    support = np.arange(-200, 201)
    lp = m.log_probabilities(int(pair[0][0]), support)
    lq = m.log_probabilities(int(pair[1][0]), support)
    assert exact_privacy_loss(lp, lq, log=True).epsilon <= 0.9 + 1e-9
    assert math.isclose(float(np.exp(lp).sum()), 1.0, rel_tol=1e-9)


def test_randomized_response_exact() -> None:
    for k in (2, 3, 7):
        m = RandomizedResponse(1.1, n_categories=k)
        for a in range(k):
            for b in range(k):
                loss = exact_privacy_loss(m.log_probabilities(a), m.log_probabilities(b), log=True)
                assert loss.epsilon <= 1.1 + 1e-12
                if a != b:
                    assert loss.epsilon == pytest.approx(1.1)
    bad = broken.BinaryFormulaRR(1.1, 4)
    assert bad.true_epsilon((0, 1)) == pytest.approx(1.1 + math.log(3))


@settings(max_examples=20, suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.replace_one_pairs(labelled=True, integer=True, low=0, high=15, min_size=2, max_size=6))
def test_learners_exact(pair) -> None:  # type: ignore[no-untyped-def]
    learners = pytest.importorskip("semiprivate.theory.learners")
    from semiprivate.theory.classes import Thresholds

    (X0, y0), (X1, y1) = pair
    C = Thresholds(4)
    gen = learners.GenericPrivateLearner(0.8, concept_class=C)
    p = gen.output_distribution(X0, y0)
    q = gen.output_distribution(X1, y1)
    assert exact_privacy_loss(p, q).epsilon <= gen.privacy[0] + 1e-9
    asspp = learners.ASSPP(0.8, concept_class=C)
    Xpub = [0, 2, 5, 7, 9, 12, 15]
    hp, pp = asspp.output_distribution(X0, y0, Xpub)
    hq, pq = asspp.output_distribution(X1, y1, Xpub)
    assert hp == hq  # the cover depends on the public data only
    assert exact_privacy_loss(pp, pq).epsilon <= asspp.privacy[0] + 1e-9


@settings(max_examples=20, suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.replace_one_pairs(labelled=True, integer=True, low=0, high=15, min_size=1, max_size=5))
def test_structured_threshold_mechanism_exact(pair) -> None:  # type: ignore[no-untyped-def]
    tex = pytest.importorskip("semiprivate.theory.privacy.exponential")
    (X0, y0), (X1, y1) = pair

    def lp(X, y):  # type: ignore[no-untyped-def]
        return np.array([tex.structured_threshold_log_probability(t, X, y, 1.0, 4) for t in range(17)])

    assert exact_privacy_loss(lp(X0, y0), lp(X1, y1), log=True).epsilon <= 1.0 + 1e-9


@settings(max_examples=10, suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.replace_one_pairs(labelled=True, integer=True, low=0, high=7, min_size=1, max_size=4))
def test_structured_interval_mechanism_exact(pair) -> None:  # type: ignore[no-untyped-def]
    tex = pytest.importorskip("semiprivate.theory.privacy.exponential")
    (X0, y0), (X1, y1) = pair
    outputs = [None] + [(a, b) for a in range(8) for b in range(a, 8)]

    def lp(X, y):  # type: ignore[no-untyped-def]
        return np.array([tex.structured_interval_log_probability(h, X, y, 1.0, 3) for h in outputs])

    assert math.isclose(float(np.exp(lp(X0, y0)).sum()), 1.0, rel_tol=1e-9)
    assert exact_privacy_loss(lp(X0, y0), lp(X1, y1), log=True).epsilon <= 1.0 + 1e-9

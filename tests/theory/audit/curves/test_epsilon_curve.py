"""The p-value curve over claimed epsilons (:func:`semiprivate.theory.audit.curves.epsilon_curve`).

Calibration with power (a tight design): randomized response with epsilon 1 on the pair (0, 1), the user events
``{x == 1}`` and ``{x == 0}`` in both directions (``K = 4`` conditional tests), 2,000 Poisson-sized outputs per
input, ``R = 600`` seeds; the curve's p-value at the true epsilon 1 is compared with ``u = 0.25``.  Two of the
four tests are exactly at their boundary (ratio ``e``: ``{x == 1}`` from 0 to 1, ``{x == 0}`` from 1 to 0);
the other two have ratio ``e^-1`` and refute the claim 1 at level ``u / K`` only if a Binomial(T, 1/(1+e))
count reaches 70% of T (``T`` Poisson with mean about 1,821, at least 1,500 except with probability below
1e-14): probability below 1e-14.  The exact conditional test of each tight one is below
``u / K`` with probability at most ``u / K``, so a valid curve refutes the true claim with probability at most
``2 u / 4 = 0.125`` and the limit is the smallest ``L`` with ``P[Binomial(600, 0.125) >= L] <= 1e-4``
(false-failure rate <= 1e-4).  Breaks (kept as tests, the conditional tails scaled as if the curve used
``K / 2`` or ``K / 4`` tests): measured 0.225 and 0.43 on 400 seeds (the first is caught with probability 0.996 at
that rate), against 0.1025 valid.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom, poisson
from semiprivate.theory.audit import AuditResult, audit_pairs, curves
from semiprivate.theory.audit.conditional import ratio_p_value
from semiprivate.theory.audit.curves import EpsilonCurve, epsilon_curve
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 600
LEVEL = 0.25
VALID_RATE = 2 * LEVEL / 4  # two tight tests of K = 4, each at LEVEL / K (the other two: below 1e-14)
E = math.e / (1 + math.e)


def _limit(rate: float) -> int:
    """The smallest L with P[Binomial(R, rate) >= L] <= 1e-4."""
    return int(np.argmax(binom.sf(np.arange(R + 1) - 1, R, rate) <= 1e-4))


LIMIT = _limit(VALID_RATE)


def rr(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    keep = rng.random(size) < E
    return np.where(keep, int(data), 1 - int(data))


@functools.lru_cache(maxsize=1)
def _audits() -> tuple[AuditResult, ...]:
    events = [lambda x: np.asarray(x) == 1, lambda x: np.asarray(x) == 0]
    return tuple(audit_pairs(rr, [(0, 1)], epsilon=1.0, trials=2_000, rng=10_000 + i, events=events,
                             options=AuditOptions(interval="poisson-conditional"), confidence=1 - LEVEL) for i in range(R))


def _refuted_at_truth() -> int:
    return sum(bool(epsilon_curve(res, [1.0]).p_values[0] <= LEVEL) for res in _audits())


def test_the_design() -> None:
    assert binom.sf(LIMIT - 1, R, VALID_RATE) <= 1e-4 < binom.sf(LIMIT - 2, R, VALID_RATE)
    assert binom.sf(LIMIT - 1, R, 0.225) >= 0.99  # the K / 2 break at its measured rate
    assert {res.n_tests for res in _audits()} == {4}
    # the slack tests: 70% of T successes at success probability 1 / (1 + e), T >= 1,500 but with tiny probability
    assert binom.logsf(1_050, 1_500, 1 / (1 + math.e)) < math.log(1e-100)
    assert poisson.logcdf(1_500, 2_000 - 4 * math.sqrt(2_000)) < math.log(1e-14)


def test_curve_refutes_the_true_claim_at_most_at_its_level() -> None:
    hits = _refuted_at_truth()
    assert hits < LIMIT, f"{hits}/{R} refuted the true epsilon (limit {LIMIT})"


@pytest.mark.parametrize("m", [2.0, 4.0])
def test_a_smaller_multiplicity_is_caught(monkeypatch: pytest.MonkeyPatch, m: float) -> None:
    _audits()
    monkeypatch.setattr(curves, "ratio_p_value", lambda kn, ko, eps: ratio_p_value(kn, ko, eps) / m)
    hits = _refuted_at_truth()
    assert hits >= LIMIT, f"K / {m:g}: only {hits}/{R} refuted the true epsilon (limit {LIMIT})"


@pytest.mark.parametrize("interval,delta", [("poisson-conditional", 0.0), ("clopper-pearson", 0.0),
                                            ("clopper-pearson", 1e-3)])
def test_curve_matches_the_audit_at_the_claim_and_crosses_at_the_bound(interval: str, delta: float) -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0), (1.0, 2.0)], epsilon=1.0, delta=delta, trials=20_000,
                      rng=3, options=AuditOptions(interval=interval), confidence=0.9)
    b = res.epsilon_lower_bound
    assert b > 0.5
    curve = epsilon_curve(res, [1.0, b + 1e-3, 0.0, b - 1e-3])
    assert np.all(np.diff(curve.epsilons) > 0) and np.all(np.diff(curve.p_values) >= 0)
    assert curve.p_values[list(curve.epsilons).index(1.0)] == pytest.approx(res.p_value, rel=1e-6)
    below, above = curve.p_values[list(curve.epsilons).index(b - 1e-3)], curve.p_values[
        list(curve.epsilons).index(b + 1e-3)]
    assert below <= curve.alpha < above
    assert curve.refuted_up_to == pytest.approx(b - 1e-3) and curve.bound == b


def test_plot_has_labelled_axes() -> None:
    import matplotlib.pyplot as plt

    curve = EpsilonCurve(np.array([0.5, 1.0]), np.array([1e-4, 0.5]), 0.1, 0.8, 0.5)
    ax = curve.plot(claim=1.0)
    assert ax.get_xlabel() == "claimed epsilon" and "p-value" in ax.get_ylabel()
    plt.close("all")


def test_bad_input_is_refused() -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=2_000, rng=0)
    with pytest.raises(TypeError, match="result must be an AuditResult"):
        epsilon_curve("x", [1.0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="epsilons must be a sequence"):
        epsilon_curve(res, 1.0)  # type: ignore[arg-type]
    for bad in ([], [-1.0], [float("nan")], [[1.0]]):
        with pytest.raises(ValueError, match="epsilons must be a non-empty 1-D sequence"):
            epsilon_curve(res, bad)

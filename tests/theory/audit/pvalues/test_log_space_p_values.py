"""The Clopper–Pearson audit's p-value in log space: equal to the bisection where doubles resolve it, finite far
below 1e-300, and printed as ``< 1e-300`` exactly when its logarithm is below ``log(1e-300)``."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.optimize import brentq
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.pvalues import (
    PRINT_FLOOR,
    bounds_at,
    cp_p_value,
    cp_p_value_and_log,
    format_p_value,
    log_betainc,
    log_cp_p_value,
)


@pytest.mark.parametrize("a, b, x", [(5.0, 20.0, 1e-30), (50.0, 60.0, 0.01), (200.0, 300.0, 0.05),
                                     (1000.0, 1001.0, 0.01), (3.0, 40.0, 0.999), (2.0, 3.0, 0.5)])
def test_log_betainc_matches_mpmath_far_below_the_doubles(a: float, b: float, x: float) -> None:
    mpmath.mp.dps = 50
    ref = float(mpmath.log(mpmath.betainc(a, b, 0, x, regularized=True)))
    assert log_betainc(a, b, x) == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_log_p_value_equals_the_bisection_where_doubles_resolve_it() -> None:
    g = np.random.default_rng(4)
    for _ in range(12):
        n = int(g.integers(200, 50_000))
        kn = g.integers(1, n // 2, 3)
        ko = (kn * g.uniform(0.1, 0.7, 3)).astype(np.int64)
        eps, delta = float(g.uniform(0.0, 0.6)), float(g.choice([0.0, 1e-3]))
        p = cp_p_value(kn, ko, n, 3, eps, delta)
        if 1e-280 < p < 1.0:
            assert log_cp_p_value(kn, ko, n, 3, eps, delta) == pytest.approx(math.log(p), rel=1e-9)


def test_log_p_value_is_where_the_bound_crosses_the_claim() -> None:
    """At the per-interval level e^(log p) / 2K the bound equals the claim: just above it exceeds, below not."""
    kn, ko, n = np.array([520.0]), np.array([200.0]), 1000
    lp = log_cp_p_value(kn, ko, n, 1, 0.5, 0.0)
    a = math.exp(lp) / 2
    assert bounds_at(kn, ko, n, a * (1 + 1e-6), 0.0)[0] > 0.5 >= bounds_at(kn, ko, n, a * (1 - 1e-6), 0.0)[0]


def test_a_support_mismatch_has_the_closed_form_log_p_value() -> None:
    """k = n against 0: p_lo = a^(1/n), q_hi = 1 - a^(1/n), so the crossing is log a = n log(c / (1 + c))."""
    n, eps = 100_000, 0.1
    lp = log_cp_p_value(np.array([n]), np.array([0]), n, 1, eps, 0.0)
    assert lp == pytest.approx(math.log(2) + n * math.log(math.exp(eps) / (1 + math.exp(eps))), rel=1e-9)
    p, lp2 = cp_p_value_and_log(np.array([n]), np.array([0]), n, 1, eps, 0.0)
    assert (p, lp2) == (0.0, lp) and format_p_value(p, lp2) == "< 1e-300"


def _claim_at(log_p: float) -> float:
    """The claim whose p-value is e^log_p for the counts 6,000 of 10,000 against 1,000 of 10,000 (one test)."""
    kn, ko = np.array([6_000]), np.array([1_000])
    return brentq(lambda e: log_cp_p_value(kn, ko, 10_000, 1, e, 0.0) - log_p, 0.0, math.log(6.0), xtol=1e-14)


@pytest.mark.parametrize("side, shift", [("above", 0.5), ("below", -0.5), ("above", 1e-6), ("below", -1e-6)])
def test_both_sides_of_1e_300(side: str, shift: float) -> None:
    target = math.log(PRINT_FLOOR) + shift
    eps = _claim_at(target)
    p, lp = cp_p_value_and_log(np.array([6_000]), np.array([1_000]), 10_000, 1, eps, 0.0)
    assert lp == pytest.approx(target, abs=1e-6)
    text = format_p_value(p, lp)
    if side == "above":
        assert text != "< 1e-300" and float(text) == pytest.approx(math.exp(target), rel=1e-2)
    else:
        assert text == "< 1e-300"


def test_an_audit_reports_the_log_p_value_below_1e_300() -> None:
    def exact(data: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.full(size, float(data))

    res = audit_pairs(exact, [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=0)
    assert res.violation and res.log_p_value is not None and res.log_p_value < math.log(1e-300)
    assert "p-value < 1e-300;" in res.report()
    # a p-value a double holds: its log is the log of the p-value
    res = audit_pairs(exact, [(0.0, 1.0)], epsilon=1.0, trials=200, rng=0)
    assert res.log_p_value == pytest.approx(math.log(res.p_value)) and "< 1e-300" not in res.report()


@pytest.mark.parametrize("p, log_p, err", [(1.5, None, ValueError), (float("nan"), None, ValueError),
                                           ("0.1", None, TypeError), (0.1, 0.5, ValueError), (0.1, "x", ValueError)])
def test_format_p_value_refuses_what_is_not_a_p_value(p: object, log_p: object, err: type) -> None:
    with pytest.raises(err, match="p must|log_p must"):
        format_p_value(p, log_p)  # type: ignore[arg-type]

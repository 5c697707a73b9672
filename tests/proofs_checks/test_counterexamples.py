"""The counterexamples stand on their own: recomputed here independently of the check code."""

from __future__ import annotations

import math
from fractions import Fraction

from scipy.stats import binom


def test_abm19_confidence_budget_arithmetic() -> None:
    assert Fraction(1, 18) + Fraction(1, 100) > Fraction(1, 17)
    assert Fraction(1, 17) + Fraction(1, 100) > Fraction(1, 16)
    assert Fraction(1, 24) + Fraction(2, 100) < Fraction(1, 16)


def test_abm19_loop_exit_probability() -> None:
    # n_pub = 1, n_priv = 10: p = 1/100, ñ = 1; early exit iff a success among the first 9 draws
    assert math.isclose(float(binom.sf(0, 9, 0.01)), 1 - 0.99**9)
    assert 1 - 0.99**9 > 0.01


def test_bns15_cl42_counterexample() -> None:
    vc, s, t, alpha, beta = 100, 1, 2, 0.5, 0.1
    assert t <= beta / math.e * vc * math.exp(alpha * s / (2 * vc)) - s
    # 8 dichotomies on 3 shattered points; 4 err on the labelled point; eps = 1, weights exp(-errors/2)
    p_bad = 4 * math.exp(-0.5) / (4 + 4 * math.exp(-0.5))
    assert p_bad > beta


def test_hpsy_thm2_isolated_vertex_lower_bound_by_simulation() -> None:
    """Monte Carlo of the empirical positive component graph at Thm 2's n_unl (false-failure rate: the
    bound 0.347 vs a simulated frequency near 0.44 with 400 runs; 3-sigma margin ~0.07, so < 0.2%)."""
    import numpy as np

    k, p, n = 120, 1e-3, 91
    rng = np.random.default_rng(5)
    iso = 0
    runs = 400
    for _ in range(runs):
        n_pos = rng.binomial(n, 0.5)
        touched = np.zeros(k, dtype=bool)
        for _s in range(n_pos):
            m = rng.binomial(k * (k - 1) // 2, p)
            if m == 0:
                continue
            iu, ju = np.triu_indices(k, 1)
            idx = rng.choice(len(iu), size=m, replace=False)
            touched[iu[idx]] = True
            touched[ju[idx]] = True
        iso += int(not touched.all())
    freq = iso / runs
    assert freq > 0.347 - 0.07


def test_abm19_beta_17_400_is_not_a_repair_at_ratio_10() -> None:
    # n_priv = 10 n_pub: the loop fails w.p. >= 1 - 0.99^9 (n_pub = 1), more for larger n_pub
    p_loop = 1 - 0.99**9
    assert 17 / 400 + 1 / 100 + p_loop > 1 / 16
    assert (1 / 18) / 0.99 + p_loop > 1 / 16


def test_abm19_fill_with_d0_repair_at_every_ratio() -> None:
    # repaired Alg 3: failure term P[Bin(n_priv, p) >= ñ + 1]; ñ = 1 worst, Poisson(0.1) limit
    slack = 1 / 16 - (1 / 18) / 0.99
    pois_tail = 1 - math.exp(-0.1) * 1.1
    assert pois_tail < slack
    for n_pub in (1, 4, 7, 50):
        for ratio in (1, 5, 10, 11, 20, 37):
            n_priv = ratio * n_pub
            nt = -(-n_priv // (10 * n_pub))
            assert float(binom.sf(nt, n_priv, 1 / (100 * n_pub))) <= pois_tail + 1e-15


def test_bns15_cl57_last_step_exact_condition() -> None:
    def coeff(eps: float, estar: float) -> tuple[float, float]:
        a = math.exp(2 * estar)
        q = eps / (3 + a)
        r = (q * a + 1 - q) / (q / a + 1 - q)
        return 2 * r + 1 + math.exp(estar), 7 + math.exp(estar)

    got, claimed = coeff(2.0, 1.0)
    assert got < claimed and round(got, 2) == 9.07 and round(claimed, 2) == 9.72
    got, claimed = coeff(3.0, 1.0)
    assert got > claimed
    # the threshold 2a/(a - 1): R = 3 there
    for estar in (0.1, 1.0, 4.0):
        a = math.exp(2 * estar)
        b = 2 * a / (a - 1)
        assert b > 2
        assert math.isclose(coeff(b, estar)[0], coeff(b, estar)[1], rel_tol=1e-12)

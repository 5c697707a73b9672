"""One-run auditing ([SNJ23]): the p-value is the theorem's bound computed exactly; the bound is valid and has power."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from semiprivate.theory.audit.one_run import (
    one_run_audit,
    one_run_epsilon_bound,
    one_run_guesses,
    one_run_p_value,
)


def _tail(r: int, q: float, v: int) -> float:
    """P[Binomial(r, q) >= v], summed exactly in rationals."""
    qq = Fraction(q)
    return float(sum(math.comb(r, k) * qq**k * (1 - qq) ** (r - k) for k in range(v, r + 1)))


def _theorem(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """f(v) + 2 m delta max_i (f(v - i) - f(v)) / i with f the binomial tail (the theorem, term by term)."""
    q = 1 / (1 + math.exp(-eps))
    f = [_tail(r, q, u) for u in range(v + 1)]
    extra = max((f[v - i] - f[v]) / i for i in range(1, v + 1)) if v else 0.0
    return min(1.0, f[v] + 2 * m * delta * extra)


@pytest.mark.parametrize("m, r, v, eps, delta", [(100, 40, 30, 0.5, 0.0), (1000, 60, 50, 1.0, 1e-5),
                                                 (200, 20, 20, 2.0, 1e-3), (50, 10, 3, 0.1, 1e-2)])
def test_p_value_is_the_theorem_term_by_term(m: int, r: int, v: int, eps: float, delta: float) -> None:
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(_theorem(m, r, v, eps, delta), rel=1e-9, abs=1e-15)


def test_bound_sits_where_the_p_value_crosses_the_level() -> None:
    m, r, v, delta = 1000, 200, 170, 1e-5
    eps = one_run_epsilon_bound(m, r, v, delta, 0.95)
    assert one_run_p_value(m, r, v, eps, delta) < 0.05 <= one_run_p_value(m, r, v, eps + 1e-6, delta)
    # all-correct guesses at delta 0: q^r = beta, eps = log(q / (1 - q))
    q = 0.05 ** (1 / 100)
    assert one_run_epsilon_bound(1000, 100, 100, 0.0, 0.95) == pytest.approx(math.log(q / (1 - q)), abs=1e-8)


def test_delta_weakens_the_bound() -> None:
    assert one_run_epsilon_bound(1000, 200, 170, 1e-4) < one_run_epsilon_bound(1000, 200, 170, 0.0)


def test_guesses_take_the_extremes() -> None:
    t = one_run_guesses(np.array([0.5, 3.0, -2.0, 1.0, -1.0]), 2, 1)
    assert t.tolist() == [0, 1, -1, 1, 0]
    with pytest.raises(ValueError, match="k_plus"):
        one_run_guesses(np.zeros(3), -1)
    with pytest.raises(ValueError, match="<= the number of canaries"):
        one_run_guesses(np.zeros(3), 2, 2)


def _rr_scores(eps: float, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Randomized response on each canary's membership: exactly eps-DP per canary, the theorem's extreme case."""
    inc = rng.random(m) < 0.5
    keep = rng.random(m) < 1 / (1 + math.exp(-eps))
    said = np.where(keep, inc, ~inc)
    return said + 1e-3 * rng.random(m), inc  # tiny jitter: ties broken at random, independent of membership


def test_eps_dp_randomized_response_is_flagged_at_most_at_the_stated_rate() -> None:
    """The stated false-failure rate: confidence 0.9, so at most 10% of audits of a mechanism that is exactly
    eps-DP may flag it.  200 fixed-seed repetitions: more than 30 flags (a 99.9% binomial bound at rate 0.1)
    fails the test."""
    flags = 0
    for seed in range(200):
        s, inc = _rr_scores(1.0, 1000, np.random.default_rng(seed))
        flags += one_run_audit(s, inc, confidence=0.9, choices=[(500, 500)]).epsilon_lower_bound > 1.0
    assert flags <= 30


def test_a_mechanism_three_times_its_claim_is_flagged() -> None:
    s, inc = _rr_scores(3.0, 2000, np.random.default_rng(7))
    res = one_run_audit(s, inc, confidence=0.95)
    assert res.epsilon_lower_bound > 2.0


def test_choosing_the_best_of_several_guess_counts_pays_for_it() -> None:
    """Each of the k choices is tested at level (1 - confidence) / k (Bonferroni), so the best one may be kept."""
    rng = np.random.default_rng(3)
    inc = rng.random(2000) < 0.5
    s = inc * 1.5 + rng.normal(size=2000)
    choices = [(200, 200), (100, 100), (50, 50)]
    several = one_run_audit(s, inc, choices=choices)
    truth = np.where(inc, 1, -1)
    want = 0.0
    for kp, km in choices:
        t = one_run_guesses(s, kp, km)
        want = max(want, one_run_epsilon_bound(2000, int(np.count_nonzero(t)), int(np.count_nonzero(t == truth)),
                                               0.0, 1 - 0.05 / 3))
    assert several.n_choices == 3 and several.epsilon_lower_bound == want > 0


@pytest.mark.parametrize("r, v, eps", [(500_000, 262_000, 0.08), (1022, 998, 2.6), (40_000, 30_000, 0.9),
                                       (200_000, 100_400, 0.0)])
def test_delta_term_at_large_r_is_the_full_sum(r: int, v: int, eps: float) -> None:
    """The delta term sums the binomial masses in a window below v and bounds the rest: the same value as the
    full sum max_i P[v - i <= B < v] / i over every i (to rounding), never less."""
    from scipy.stats import binom

    q = 1 / (1 + math.exp(-eps))
    full = float(np.max(np.cumsum(binom.pmf(np.arange(v - 1, -1, -1), r, q)) / np.arange(1, v + 1)))
    tail = float(binom.sf(v - 1, r, q))
    got = one_run_p_value(2 * r, r, v, eps, 1e-7)
    assert got == pytest.approx(min(1.0, tail + 2 * 2 * r * 1e-7 * full), rel=1e-12)
    assert got >= min(1.0, tail + 2 * 2 * r * 1e-7 * full) * (1 - 1e-14)


@pytest.mark.parametrize(("choices", "exc", "message"), [
    ([(1.9, 0)], TypeError, r"^choices must hold \(k_plus, k_minus\) pairs of ints, got \(1\.9, 0\)$"),
    ([(True, 1)], TypeError, r"^choices must hold \(k_plus, k_minus\) pairs of ints, got \(True, 1\)$"),
    ([(1,)], ValueError, r"^choices must hold \(k_plus, k_minus\) pairs, got \(1,\)$"),
    ([(3, -1)], ValueError, r"^choices must hold \(k_plus, k_minus\) with 0 <= k_plus \+ k_minus <= 10, got \(3, -1\)$"),
    ([(6, 5)], ValueError, r"^choices must hold \(k_plus, k_minus\) with 0 <= k_plus \+ k_minus <= 10, got \(6, 5\)$"),
    ((2, 2), ValueError, r"^choices must hold \(k_plus, k_minus\) pairs, got 2$"),
    (5, TypeError, r"^choices must be a list of \(k_plus, k_minus\) pairs, got int$"),
    ([], ValueError, r"^choices must name at least one \(k_plus, k_minus\)$"),
])
def test_choices_that_are_not_pairs_of_guess_counts_are_refused(choices: object, exc: type, message: str) -> None:
    """A float guess count was truncated silently (1.9 ran as 1); every bad entry now names ``choices``."""
    s = np.arange(10.0)
    with pytest.raises(exc, match=message):
        one_run_audit(s, s > 4, choices=choices)  # type: ignore[arg-type]


def test_choices_may_be_an_integer_array() -> None:
    s = np.arange(10.0)
    as_list = one_run_audit(s, s > 4, choices=[(2, 2)])
    assert one_run_audit(s, s > 4, choices=np.array([[2, 2]])) == as_list  # type: ignore[arg-type]

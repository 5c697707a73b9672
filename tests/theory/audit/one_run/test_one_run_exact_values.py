"""semiprivate.theory.audit.one_run ([SNJ23]): exact values and contracts of each step, against references written
here.

- The p-value is the theorem's bound, pure and with delta > 0. It is checked in rationals for every count up to
  r = 60. Large r takes the windowed sum, which is checked against differences of scipy tails.
- The bound is the largest rejected epsilon, with closed forms where there is one.
- The guesses take the extremes, with ties broken by position.
- The audit's counts and fields are exact. So are its default guess counts and its Bonferroni level.
- Bad input gets an error naming the parameter.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.audit.one_run import (
    OneRunAudit,
    one_run_audit,
    one_run_epsilon_bound,
    one_run_guesses,
    one_run_p_value,
)


def _q(eps: float) -> float:
    return 1.0 / (1.0 + math.exp(-eps))


@functools.cache
def _tails(r: int, eps: float) -> tuple[Fraction, ...]:
    """f(u) = P[Bin(r, q) >= u] for u = 0 .. r + 1, in exact rationals (q as the float the library uses)."""
    q = Fraction(_q(eps))
    pmf = [math.comb(r, u) * q**u * (1 - q) ** (r - u) for u in range(r + 1)]
    out = [Fraction(0)] * (r + 2)
    for u in range(r, -1, -1):
        out[u] = out[u + 1] + pmf[u]
    return tuple(out)


def _reference_p_value(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """[SNJ23]: P[W >= v] <= f(v) + 2 m delta max_{1 <= i <= v} (f(v - i) - f(v)) / i, f(u) = P[Bin(r, q) >= u],
    q = e^eps / (1 + e^eps), capped at 1."""
    tails = _tails(r, eps)
    extra = max(((tails[v - i] - tails[v]) / i for i in range(1, v + 1)), default=Fraction(0))
    return float(min(Fraction(1), tails[v] + 2 * m * Fraction(delta) * extra))


@pytest.mark.parametrize("r", [1, 5, 20, 60])
@pytest.mark.parametrize("eps", [0.0, 0.7, 2.5])
@pytest.mark.parametrize("delta", [0.0, 1e-6, 1e-3, 0.01])
def test_p_value_is_the_theorem_for_every_count(r: int, eps: float, delta: float) -> None:
    """Every v from 0 to r at m = 200. At delta = 0.01, 2 m delta = 4, so many p-values reach the cap of 1."""
    for v in range(r + 1):
        want = _reference_p_value(200, r, v, eps, delta)
        assert one_run_p_value(200, r, v, eps, delta) == pytest.approx(want, rel=1e-9, abs=1e-300), v


@pytest.mark.parametrize(("r", "eps", "v"), [(4000, 0.5, 2300), (4000, 0.5, 2480), (4000, 0.5, 2600), (4000, 0.5, 2800),
                                             (4000, 0.5, 3000), (4000, 0.5, 3900), (150_000, 5.0, 149_800)])
def test_p_value_with_many_guesses_is_the_theorem(r: int, eps: float, v: int) -> None:
    """Many guesses: the masses are summed over a window that starts about 40 standard deviations below the
    mode. The reference takes differences of scipy's binomial tails for every i from 1 to v.

    - r = 4000 at eps 0.5: mode 2490, 31 standard deviations.
    - r = 150,000 at eps 5: mode 149,000, 32 standard deviations. Here v is 25 standard deviations above the
      mode, so the window must reach down past the mode."""
    m, delta = 200_000, 1e-6
    q = _q(eps)
    i = np.arange(1, v + 1)
    extra = float(np.max((binom.sf(v - i - 1, r, q) - binom.sf(v - 1, r, q)) / i))
    want = min(1.0, float(binom.sf(v - 1, r, q)) + 2 * m * delta * extra)
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(want, rel=1e-7)


def test_p_value_when_one_correct_guess_is_below_the_window() -> None:
    """r = 3 guesses at eps 9.2 (q = 1 - 1e-4): the window starts at 1, above v = 1, so the only mass is
    P[B = 0] = (1 - q)^3, and the delta term is that mass over 1."""
    q = _q(9.2)
    want = float(binom.sf(0, 3, q)) + 2 * 10 * 1e-3 * float(binom.pmf(0, 3, q))
    assert one_run_p_value(10, 3, 1, 9.2, 1e-3) == pytest.approx(want, rel=1e-9)


def test_delta_defaults_to_zero() -> None:
    assert one_run_p_value(1000, 100, 70, 1.0) == one_run_p_value(1000, 100, 70, 1.0, 0.0)
    assert one_run_epsilon_bound(1000, 100, 90) == one_run_epsilon_bound(1000, 100, 90, 0.0, 0.95) > 0


def test_the_bound_of_no_correct_guess_or_no_guess_is_one_or_zero() -> None:
    assert one_run_p_value(10, 4, 0, 1.0, 1e-3) == 1.0  # v = 0: P[W >= 0] = 1
    assert one_run_epsilon_bound(10, 0, 0) == 0.0


@pytest.mark.parametrize(("r", "confidence"), [(1, 0.4), (10, 0.95), (100, 0.95), (100, 0.999)])
def test_the_bound_of_all_correct_guesses_is_the_closed_form(r: int, confidence: float) -> None:
    """delta = 0 and v = r: p = q^r, so the bound solves q^r = beta: eps = log(q / (1 - q)), q = beta^(1/r),
    from below within the bisection's 1e-9. With one guess at confidence 0.4 it is log(0.6 / 0.4)."""
    q = (1 - confidence) ** (1 / r)
    want = math.log(q / (1 - q))
    got = one_run_epsilon_bound(1000, r, r, 0.0, confidence)
    assert want - 2e-9 <= got <= want


@pytest.mark.parametrize(("m", "r", "v", "delta"), [(1000, 100, 70, 0.0), (1000, 100, 70, 1e-4), (500, 40, 38, 1e-3),
                                                      (100, 100, 55, 0.0)])
def test_the_bound_is_the_largest_rejected_epsilon(m: int, r: int, v: int, delta: float) -> None:
    """The first three have a bound in (0, 1): it is rejected, and 2e-9 more is not. The last (55 of 100)
    rejects nothing, so its bound is 0."""
    eps = one_run_epsilon_bound(m, r, v, delta, 0.95)
    if v == 55:
        assert eps == 0.0 and one_run_p_value(m, r, v, 0.0, delta) >= 0.05
        return
    assert 0.0 < eps < 1.0
    assert one_run_p_value(m, r, v, eps, delta) < 0.05 <= one_run_p_value(m, r, v, eps + 2e-9, delta)


def test_counts_outside_zero_v_r_m_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^need 0 <= v <= r <= m \(correct guesses, guesses, canaries\), "
                                         r"got v=5, r=4, m=10$"):
        one_run_p_value(10, 4, 5, 1.0)


# ------------------------------------------------------------------ guesses


def test_guesses_break_ties_by_position() -> None:
    """Scores 1, 0, 1, 0, ... (1,000): the first 300 of the 1s by position are guessed in, the last 200 of the 0s
    out (a stable sort; NumPy's default quicksort orders these ties otherwise)."""
    t = one_run_guesses(np.tile([1.0, 0.0], 500), 300, 200)
    assert t.dtype == np.int64
    ones, zeros = np.arange(0, 1000, 2), np.arange(1, 1000, 2)
    assert t[ones[:300]].tolist() == [1] * 300 and not t[ones[300:]].any()
    assert t[zeros[300:]].tolist() == [-1] * 200 and not t[zeros[:300]].any()
    audit = one_run_audit(np.tile([1.0, 0.0], 500), np.arange(1000) < 300, choices=[(300, 0)])
    assert audit.correct == 150  # the 1s at positions 0, 2, ..., 598: half of them among the first 300


def test_guesses_order_integer_scores_without_overflow() -> None:
    """The scores are compared as float64: negating the int64 minimum would overflow and rank it first."""
    low = np.iinfo(np.int64).min
    assert one_run_guesses(np.array([low, 0, 1]), 1, 1).tolist() == [-1, 0, 1]
    audit = one_run_audit(np.array([low, 0, 1]), np.array([False, False, True]), choices=[(1, 0)])
    assert audit.correct == 1


def test_guesses_may_take_every_canary_or_none_on_one_side() -> None:
    s = np.array([3.0, 1.0, 2.0])
    assert one_run_guesses(s, 2, 1).tolist() == [1, -1, 1]
    assert one_run_guesses(s, 0, 2).tolist() == [0, -1, -1]
    assert one_run_guesses(s, 1).tolist() == [1, 0, 0]


@pytest.mark.parametrize(("scores", "k_plus", "k_minus", "exc", "message"), [
    (np.zeros(3), 1.5, 0, ValueError, r"^k_plus must be an integer >= 0, got 1\.5$"),
    (np.zeros(3), True, 0, ValueError, r"^k_plus must be an integer >= 0, got True$"),
    (np.zeros(3), 1, -1, ValueError, r"^k_minus must be an integer >= 0, got -1$"),
    (np.zeros(3), 2, 2, ValueError, r"^k_plus \+ k_minus must be <= the number of canaries 3, got 2 \+ 2$"),
    (np.array([0.0, np.nan]), 1, 0, ValueError, r"^scores must not contain NaN$"),
    (np.zeros((2, 2)), 1, 0, ValueError, r"^scores must have ndim in \(1,\), got ndim=2 \(shape \(2, 2\)\)$"),
    (np.array([1 + 1j, 2j]), 1, 0, TypeError, r"^scores must have a dtype of kind 'biuf', got dtype complex128$"),
])
def test_bad_guess_input_is_refused_naming_it(scores: np.ndarray, k_plus: object, k_minus: object, exc: type,
                                              message: str) -> None:
    with pytest.raises(exc, match=message):
        one_run_guesses(scores, k_plus, k_minus)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the audit


def _separated_at(k: int, m: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Scores whose best guess count is exactly (k, k). The k highest are included and the k lowest left out,
    so those guesses are all right. The next ones are the other way round, so every guess beyond k is wrong.
    The middle alternates."""
    inc = np.zeros(m, dtype=bool)
    inc[:k] = True  # the k highest scores
    inc[k:2 * k] = False  # the next k: left out (wrong "in" guesses for larger k_plus)
    inc[m - 2 * k:m - k] = True  # included just above the k lowest (wrong "out" guesses)
    inc[2 * k:m - 2 * k] = np.arange(m - 4 * k) % 2 == 0
    return -np.arange(m, dtype=np.float64), inc  # scores decrease with position


@pytest.mark.parametrize("k", [10, 20, 50, 100, 250, 500])
def test_default_guess_counts_are_m_over_100_50_20_10_4_2(k: int) -> None:
    """m = 1000: the default choices are (k, k) for k = 10, 20, 50, 100, 250 and 500, with the Bonferroni factor
    6. Each k is found exactly where it is the best choice."""
    scores, inc = _separated_at(k)
    res = one_run_audit(scores, inc)
    assert (res.k_plus, res.k_minus, res.guesses, res.correct, res.n_choices) == (k, k, 2 * k, 2 * k, 6)
    assert res.epsilon_lower_bound == one_run_epsilon_bound(1000, 2 * k, 2 * k, 0.0, 1 - 0.05 / 6)


def test_default_guess_counts_of_few_canaries() -> None:
    """m = 7: m // 100 ... m // 10 are 0, raised to 1, and m // 4 = 1, m // 2 = 3: choices (1, 1) and (3, 3)."""
    scores, inc = -np.arange(7.0), np.array([True, True, True, False, False, False, False])
    res = one_run_audit(scores, inc, confidence=0.5)
    assert res.n_choices == 2
    assert res == one_run_audit(scores, inc, confidence=0.5, choices=[(1, 1), (3, 3)])
    # no signal: every bound is 0 and the first default choice, (1, 1), is reported
    flat = one_run_audit(scores, np.array([True, False, False, True, True, True, False]))
    assert flat.epsilon_lower_bound == 0.0 and (flat.k_plus, flat.k_minus) == (1, 1)


def test_one_canary_gets_the_empty_guess() -> None:
    """m = 1: m // 2 = 0, so the one default choice is (0, 0), no guess, bound 0 ((1, 1) would need 2 canaries)."""
    res = one_run_audit(np.zeros(1), np.array([True]))
    assert (res.epsilon_lower_bound, res.n_choices, res.k_plus, res.k_minus, res.guesses) == (0.0, 1, 0, 0, 0)


def test_audit_reports_what_it_counted() -> None:
    """Every field of the result, for a choice with no "in" guess: the counts come from the sorted order,
    not from a rule that would count a guess never made."""
    scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.0])
    inc = np.array([True, False, True, False, False, True])
    res = one_run_audit(scores, inc, delta=1e-4, confidence=0.8, choices=[(0, 2)])
    # the 2 lowest (scores 1 and 0) guessed out: one right (index 4), one wrong (index 5)
    assert res == OneRunAudit(one_run_epsilon_bound(6, 2, 1, 1e-4, 0.8), 6, 2, 1, 0, 2, 1e-4, 0.8, 1)
    res = one_run_audit(scores, inc, choices=[(2, 0)])
    assert (res.guesses, res.correct, res.k_plus, res.k_minus) == (2, 1, 2, 0)


def test_two_choices_pay_the_bonferroni_factor_two() -> None:
    scores, inc = _separated_at(100)
    res = one_run_audit(scores, inc, confidence=0.9, choices=[(100, 100), (10, 10)])
    assert res.n_choices == 2 and res.epsilon_lower_bound == one_run_epsilon_bound(1000, 200, 200, 0.0, 0.95)


def test_equal_bounds_keep_the_first_choice() -> None:
    scores, inc = -np.arange(10.0), np.arange(10) % 2 == 0  # no signal: every bound is 0
    res = one_run_audit(scores, inc, choices=[(1, 1), (2, 2), (3, 3)])
    assert res.epsilon_lower_bound == 0.0 and (res.k_plus, res.k_minus) == (1, 1)


@pytest.mark.parametrize(("kwargs", "exc", "message"), [
    ({"included": np.array([1, 0, 1, 0])}, ValueError,
     r"^included must be a bool array of the scores' shape \(4,\), got int64 \(4,\)$"),
    ({"included": np.array([True, False])}, ValueError,
     r"^included must be a bool array of the scores' shape \(4,\), got bool \(2,\)$"),
    ({"delta": 1.0}, ValueError, r"^delta must be in \[0, 1\), got 1\.0$"),
    ({"confidence": 1.0}, ValueError, r"^confidence must be in \(0, 1\), got 1\.0$"),
    ({"confidence": 1.5}, ValueError, r"^confidence must be in \(0, 1\), got 1\.5$"),
    ({"scores": np.array([0.0, np.nan, 1.0, 2.0])}, ValueError, r"^scores must not contain NaN$"),
    ({"scores": np.zeros((2, 2))}, ValueError, r"^scores must have ndim in \(1,\), got ndim=2 \(shape \(2, 2\)\)$"),
    ({"scores": np.array(["a", "b", "c", "d"])}, TypeError, r"^scores must have a dtype of kind 'biuf', got dtype <U1$"),
])
def test_bad_audit_input_is_refused_naming_it(kwargs: dict[str, object], exc: type, message: str) -> None:
    # two choices: a confidence that slipped through would reach the bound as 1 - (1 - confidence) / 2
    call: dict[str, object] = {"scores": np.arange(4.0), "included": np.array([True, False, True, False]),
                               "choices": [(1, 1), (2, 0)]}
    call.update(kwargs)
    with pytest.raises(exc, match=message):
        one_run_audit(**call)  # type: ignore[arg-type]


def test_zero_guesses_on_one_side_are_accepted_in_choices() -> None:
    s, inc = -np.arange(6.0), np.array([True, True, False, False, False, False])
    assert one_run_audit(s, inc, choices=[(0, 3)]).k_plus == 0
    assert one_run_audit(s, inc, choices=[(2, 0)]).k_minus == 0

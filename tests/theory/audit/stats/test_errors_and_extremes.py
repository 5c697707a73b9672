"""semiprivate.theory.audit.stats: errors name their parameter, probabilities 1 are valid, mismatched shapes are named,
and the conservative upper bound when the Beta inverse fails at an extreme level (no NaN, no floating-point
warning).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.audit.stats import beta_upper, clopper_pearson, cp_lower, cp_upper, epsilon_bound


def test_epsilon_bound_errors_name_their_parameter() -> None:
    with pytest.raises(ValueError, match=r"^delta must be in \[0, 1\), got 1.5$"):
        epsilon_bound(0.5, 0.1, 1.5)
    with pytest.raises(TypeError, match="^p_lower must be a number or an array of numbers"):
        epsilon_bound("a", 0.1, 0.0)
    with pytest.raises(TypeError, match="^q_upper must be a number or an array of numbers"):
        epsilon_bound(0.5, "a", 0.0)
    with pytest.raises(ValueError, match=r"^p_lower must be a probability in \[0, 1\], got 1.5$"):
        epsilon_bound(1.5, 0.1, 0.0)
    with pytest.raises(ValueError, match=r"^q_upper must be a probability in \[0, 1\], got 1.5$"):
        epsilon_bound(0.5, 1.5, 0.0)
    with pytest.raises(ValueError, match=r"^p_lower and q_upper must have broadcastable shapes, got \(2,\) and \(3,\)$"):
        epsilon_bound(np.full(2, 0.5), np.full(3, 0.1), 0.0)
    with pytest.raises(ValueError, match=r"^confidence must be in \(0, 1\), got 1.5$"):
        clopper_pearson(1, 2, 1.5)


def test_epsilon_bound_at_probability_one() -> None:
    assert float(epsilon_bound(1.0, 0.5, 0.0)) == pytest.approx(math.log(2))
    assert float(epsilon_bound(0.5, 1.0, 0.0)) == pytest.approx(math.log(0.5))
    assert float(epsilon_bound(1.0, 0.0, 0.0)) == math.inf


def test_cp_upper_is_conservative_where_the_beta_inverse_fails() -> None:
    with np.errstate(all="raise"):
        out = cp_upper(np.array([0, 3, 10]), 10, 1e-300)
    assert out.tolist() == [1.0, 1.0, 1.0]
    assert float(cp_upper(3, 10, 1e-300)) == 1.0


def test_counts_and_levels_are_validated_with_the_parameter_named() -> None:
    # wrong types: None and booleans are not counts (np.asarray would turn them into nan / 1.0)
    with pytest.raises(TypeError, match=r"^k must be a number or an array of numbers, got None \(NoneType\)$"):
        cp_lower(None, 10, 0.05)
    with pytest.raises(TypeError, match=r"^k must be a number or an array of numbers, got True \(bool\)$"):
        cp_lower(True, 10, 0.05)
    with pytest.raises(TypeError, match=r"^n must be a number or an array of numbers, got 'a' \(str\)$"):
        cp_upper(1, "a", 0.05)
    with pytest.raises(TypeError, match=r"^k must be a number or an array of numbers, got list: could not convert"):
        cp_lower([1, "x"], 10, 0.05)
    with pytest.raises(ValueError, match=r"^n must not be NaN, got nan$"):
        cp_upper(1, math.nan, 0.05)
    # values: n >= 1 and finite, 0 <= k <= n and finite, broadcastable shapes
    for n in (0, 0.5, math.inf):
        with pytest.raises(ValueError, match=rf"^n must be a finite number of trials >= 1, got {n!r}$"):
            cp_lower(0, n, 0.05)
    for k in (-1, math.inf):
        with pytest.raises(ValueError, match=rf"^k must be a finite number of successes >= 0, got {k!r}$"):
            cp_upper(k, 5, 0.05)
    with pytest.raises(ValueError, match=r"^k must be <= n \(successes cannot exceed trials\), got k=5, n=3$"):
        cp_upper(5, 3, 0.05)
    with pytest.raises(ValueError, match=r"^k and n must have broadcastable shapes, got \(2,\) and \(3,\)$"):
        cp_lower(np.zeros(2), np.ones(3), 0.05)
    with pytest.raises(ValueError, match=r"^alpha must be in \(0, 1\), got 1.5$"):
        cp_lower(1, 2, 1.5)
    with pytest.raises(ValueError, match=r"^alpha must be in \(0, 1\), got 0.0$"):
        cp_upper(1, 2, 0.0)


def test_failed_beta_inverse_gives_the_conservative_bound_on_both_sides() -> None:
    # at alpha = 1e-300 scipy's inverse fails (NaN) for these (k, n): the lower bound must be 0
    # and the upper bound 1, never NaN or a value outside [0, 1]
    lo = cp_lower(np.array([9, 1]), np.array([10, 10]), 1e-300)
    assert lo.dtype == np.float64 and lo[0] == 0.0 and 0.0 < lo[1] < 1e-290
    assert float(cp_lower(9, 10, 1e-300)) == 0.0
    up = cp_upper(np.array([1, 9]), 10, 1e-300)
    assert up.dtype == np.float64 and up.tolist() == [1.0, 1.0]
    assert float(cp_upper(1, 10, 1e-300)) == 1.0


def test_cp_upper_is_one_when_every_trial_succeeded() -> None:
    # k = n: no upper bound below 1 is valid (the Beta(n + 1, 1) quantile would be < 1)
    assert float(cp_upper(5, 5, 0.05)) == 1.0
    assert beta_upper(np.array([3.0, 7.5]), np.array([3.0, 7.5]), 0.2).tolist() == [1.0, 1.0]
    assert float(clopper_pearson(4, 4, 0.9)[1]) == 1.0


def test_cp_upper_keeps_its_own_floating_point_state() -> None:
    # k = 0 at n ~ 1.7e308: log(alpha)/n underflows; a caller running with errstate(all="raise")
    # still gets the bound (a subnormal), not a FloatingPointError
    with np.errstate(all="raise"):
        out = float(cp_upper(0, 1.7e308, 0.5))
    assert 0.0 < out < 1e-308


def test_clopper_pearson_default_confidence_is_95_percent() -> None:
    lo, hi = clopper_pearson(5, 10)
    lo95, hi95 = clopper_pearson(5, 10, 0.95)
    assert (float(lo), float(hi)) == (float(lo95), float(hi95))
    assert round(float(lo), 4) == 0.1871 and round(float(hi), 4) == 0.8129

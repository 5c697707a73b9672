"""theory.audit.stats: behaviour the mutation run showed untested (scripts/mutation.sh): errors name
their parameter, probabilities 1 are valid, mismatched shapes are named, and the conservative
upper bound when the Beta inverse fails at an extreme level (no NaN, no floating-point warning).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from theory.audit.stats import clopper_pearson, cp_upper, epsilon_bound


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

"""Clopper–Pearson takes whole counts; outputs beyond float64's range are audited exactly or refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit import audit_mechanism, clopper_pearson, cp_lower, cp_upper
from semiprivate.theory.audit.stats import beta_lower, beta_upper


@pytest.mark.parametrize("k, n, name", [(2.5, 10, "k"), (3, 10.5, "n"), (np.array([1.0, 2.25]), 10, "k")])
def test_fractional_counts_are_refused_naming_the_parameter(k: Any, n: Any, name: str) -> None:
    for fn in (lambda: clopper_pearson(k, n), lambda: cp_lower(k, n, 0.05), lambda: cp_upper(k, n, 0.05)):
        with pytest.raises(ValueError, match=f"{name} must be a whole number"):
            fn()


def test_whole_counts_given_as_floats_are_accepted() -> None:
    lo, hi = clopper_pearson(5.0, 10.0)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.1871, 0.8129)


def test_beta_quantiles_take_real_counts_and_agree_with_cp_on_whole_ones() -> None:
    assert float(beta_lower(5, 10, 0.05)) == float(cp_lower(5, 10, 0.05))
    assert float(beta_upper(5, 10, 0.05)) == float(cp_upper(5, 10, 0.05))
    # monotone between the neighbouring whole counts
    assert float(cp_lower(2, 10, 0.05)) < float(beta_lower(2.5, 10, 0.05)) < float(cp_lower(3, 10, 0.05))


def test_integers_beyond_float64_range_are_compared_exactly() -> None:
    def mech(data: Any, size: int, rng: Any) -> list[int]:
        return [10**400 if data else 10**401] * size  # float64 reads both as inf

    res = audit_mechanism(mech, 1, 0, epsilon=1.0, trials=10_000, rng=0)
    assert res.violation and res.witness is not None and res.witness.support_mismatch


def test_extended_precision_outputs_beyond_float64_range_are_refused() -> None:
    def mech(data: Any, size: int, rng: Any) -> np.ndarray:
        return np.full(size, np.longdouble("1e400") if data else np.longdouble("1e401"))

    if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:  # platforms where long double is double
        pytest.skip("long double is float64 here")
    with pytest.raises(ValueError, match="beyond float64's range"):
        audit_mechanism(mech, 1, 0, epsilon=1.0, trials=10_000, rng=0)


def test_extended_precision_outputs_within_range_are_audited() -> None:
    def mech(data: Any, size: int, rng: Any) -> np.ndarray:
        return (data + rng.laplace(size=size)).astype(np.longdouble)

    res = audit_mechanism(mech, 1.0, 0.0, epsilon=1.0, trials=50_000, rng=0)
    assert not res.violation and 0.5 < res.epsilon_lower_bound <= 1.0

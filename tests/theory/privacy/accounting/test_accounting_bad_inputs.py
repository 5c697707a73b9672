"""Bad inputs to the accounting helpers get a clear error naming the parameter: a number of DP-SGD
steps dp-accounting cannot count, an ``eps_at`` curve returning NaN or a non-number, RDP ``orders``
that are not numbers."""

from __future__ import annotations

import math

import pytest
from semiprivate.theory.privacy.accounting import dpsgd_epsilon, group_of_two_epsilon
from semiprivate.theory.privacy.random_stopping import laplace_rdp


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
def test_more_steps_than_a_ssize_t_is_a_value_error_naming_steps(accountant):
    with pytest.raises(ValueError, match=r"^steps: steps \* compositions = 1e\+30"):
        dpsgd_epsilon(1.0, 0.01, 10**30, 1e-5, accountant=accountant)


def test_a_nan_curve_is_refused_not_turned_into_inf():
    with pytest.raises(ValueError, match="eps_at must return an epsilon >= 0 .* got nan"):
        group_of_two_epsilon(lambda d: math.nan, 1e-5)


@pytest.mark.parametrize("value", ["x", None, [1.0, 2.0], True])
def test_a_curve_returning_a_non_number_is_a_type_error_naming_eps_at(value):
    with pytest.raises(TypeError, match="eps_at must return a real number"):
        group_of_two_epsilon(lambda d: value, 1e-5)


def test_orders_that_are_not_numbers_name_orders():
    with pytest.raises(ValueError, match="orders must be .* got 'abc'"):
        laplace_rdp(1.0, orders="abc")

"""Tests of the shared input checks (semiprivate.validation)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semiprivate import validation as v


@pytest.mark.parametrize("good", [1e-12, 0.5, 3, np.float32(2.0), np.int64(4), Fraction(1, 3)])
def test_epsilon_accepts_positive_finite(good):
    assert v.check_epsilon(good) == float(good)


@pytest.mark.parametrize(
    ("bad", "exc"),
    [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError),
     (-math.inf, ValueError), ("1", TypeError), (None, TypeError), (True, TypeError), ([1.0], TypeError)],
)
def test_epsilon_rejects(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        v.check_epsilon(bad)


def test_huge_integers_are_a_value_error_not_an_overflow():
    with pytest.raises(ValueError, match="epsilon must be in"):
        v.check_epsilon(10**400)


def test_delta_interval_is_half_open():
    assert v.check_delta(0.0) == 0.0
    for bad in (1.0, -1e-9, math.nan):
        with pytest.raises(ValueError, match=r"delta must be in \[0, 1\)"):
            v.check_delta(bad)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_probability_is_open_unit_interval(x):
    inside = (not math.isnan(x)) and 0.0 < x < 1.0
    if inside:
        assert v.check_probability(x, "alpha") == x
    else:
        with pytest.raises(ValueError, match="alpha"):
            v.check_probability(x, "alpha")


def test_integers_reject_bool_and_float():
    assert v.check_positive_int(np.int32(3), "n") == 3
    with pytest.raises(TypeError, match="n must be an integer, got True"):
        v.check_positive_int(True, "n")
    with pytest.raises(TypeError, match="n must be an integer"):
        v.check_positive_int(3.0, "n")
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, inf\], got 0"):
        v.check_positive_int(0, "n")
    assert v.check_nonnegative_int(0, "size") == 0


def test_check_array_rules():
    a = v.check_array([[1, 2], [3, 4]], "X", ndim=2, shape=(None, 2))
    assert a.shape == (2, 2)
    with pytest.raises(ValueError, match="X must have ndim"):
        v.check_array([1, 2], "X", ndim=2)
    with pytest.raises(ValueError, match="X must have at least 1"):
        v.check_array(np.zeros((0,)), "X")
    with pytest.raises(ValueError, match="NaN"):
        v.check_array([1.0, np.nan], "X")
    with pytest.raises(ValueError, match="inf"):
        v.check_array([1.0, np.inf], "X")
    assert v.check_array([1.0, np.inf], "X", allow_inf=True).shape == (2,)
    with pytest.raises(TypeError, match="X must have a dtype"):
        v.check_array(np.array(["a"]), "X")
    with pytest.raises(TypeError, match="X must be an array, got None"):
        v.check_array(None, "X")
    with pytest.raises(ValueError, match=r"X must have shape \(None, 3\)"):
        v.check_array(np.zeros((2, 2)), "X", shape=(None, 3))


def test_as_generator_forms():
    g = np.random.default_rng(1)
    assert v.as_generator(g) is g
    assert int(v.as_generator(5).integers(1 << 30)) == int(np.random.default_rng(5).integers(1 << 30))
    assert isinstance(v.as_generator(None), np.random.Generator)
    assert isinstance(v.as_generator(np.random.SeedSequence(3)), np.random.Generator)
    with pytest.raises(ValueError, match="rng seed must be >= 0"):
        v.as_generator(-1)
    with pytest.raises(TypeError, match="rng must be None"):
        v.as_generator(1.5)
    with pytest.raises(TypeError, match="rng must be None"):
        v.as_generator(np.random.RandomState(0))


def test_validate_params_declares_checks_and_registers():
    @v.validate_params(epsilon=v.EPSILON, k=v.Optional(v.POSITIVE_INT), mode=v.Options("a", "b"))
    def f(epsilon, k=None, *, mode="a"):
        return epsilon, k, mode

    assert f(1.0) == (1.0, None, "a")
    assert set(f.__constraints__) == {"epsilon", "k", "mode"}
    assert f in v.registered_functions()
    with pytest.raises(ValueError, match="mode must be one of 'a', 'b', got 'c'"):
        f(1.0, mode="c")
    with pytest.raises(ValueError, match="k must be"):
        f(1.0, 0)
    with pytest.raises(TypeError, match="unknown parameters"):
        v.validate_params(zeta=v.EPSILON)(lambda epsilon: epsilon)


def test_every_constraint_rejects_its_own_invalid_examples_and_accepts_its_valid_example():
    constraints = [
        v.EPSILON, v.DELTA, v.PROBABILITY, v.POSITIVE_INT, v.NONNEGATIVE_INT, v.POSITIVE_REAL, v.RNG,
        v.Real(-1, 1, closed="right"), v.Real(1e-150, 1e150), v.Integer(2, 5), v.Options("x", 3), v.Boolean(),
        v.ArrayLike(ndim=2), v.ArrayLike(ndim=1, allow_inf=True), v.CallableConstraint(),
        v.Optional(v.EPSILON), v.AnyOf(v.POSITIVE_INT, v.Options("auto")),
    ]
    for c in constraints:
        c.validate("p", c.valid_example())
        assert c.invalid_examples(), c
        for bad in c.invalid_examples():
            with pytest.raises((TypeError, ValueError), match="p"):
                c.validate("p", bad)


def test_anyof_reports_value_error_when_a_type_matched():
    c = v.AnyOf(v.POSITIVE_INT, v.Options("auto"))
    assert c.validate("n", "auto") == "auto"
    assert c.validate("n", 3) == 3
    with pytest.raises(ValueError, match="n must be"):
        c.validate("n", 0)
    with pytest.raises((TypeError, ValueError), match="n must be"):
        c.validate("n", 2.5)
    with pytest.raises(TypeError, match="n must be"):
        v.AnyOf(v.POSITIVE_INT, v.Boolean()).validate("n", "x")


# --- validate_params: the binding fast path behaves exactly as signature binding -----------------

def _bound_reference(fn, constraints, args, kwargs):
    """What validate_params did before its fast path: bind, apply defaults, validate in signature order."""
    import inspect

    sig = inspect.signature(fn)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    for name in sig.parameters:
        if name in constraints:
            constraints[name].validate(name, bound.arguments[name])
    return fn(*args, **kwargs)


def _outcome(call):
    try:
        return ("ok", call())
    except (TypeError, ValueError) as e:
        return (type(e).__name__, str(e))


_VALUES = st.sampled_from([0, 1, -1, 0.5, 2.0, True, "x", None])


@settings(max_examples=400, deadline=None)
@given(st.lists(_VALUES, max_size=5), st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e", "zz"]), _VALUES))
def test_validate_params_fast_binding_matches_signature_binding(args, kwargs):
    """Positional-only, keyword-only, defaults, missing / repeated / unknown / surplus arguments:
    the same value, or the same exception type and message, as binding with inspect.signature."""
    from semiprivate.validation import Boolean, Integer, Real, validate_params

    cons = dict(a=Integer(0), c=Real(0.0, 1.0), e=Boolean())

    def f(a, /, b, c=0.5, *, d=1, e=False):  # type: ignore[no-untyped-def]
        return (a, b, c, d, e)

    fast = validate_params(**cons)(f)
    assert _outcome(lambda: fast(*args, **kwargs)) == _outcome(lambda: _bound_reference(f, cons, args, kwargs))

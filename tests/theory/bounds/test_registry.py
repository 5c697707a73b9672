"""Generic properties of every registered bound (semiprivate.theory.bounds registry).

* the example parameters evaluate;
* the sympy form equals the numeric formula at random points (one source of truth), and the
  integer functions are the formula rounded up;
* monotonicity in every parameter the registry declares (alpha, beta, epsilon, d, ...);
* validity: the function either returns a number or raises ConditionNotMet, never NaN.

Deterministic apart from hypothesis, whose draws are reproducible under the ci profile.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from semiprivate.theory.bounds import REGISTRY, list_bounds
from semiprivate.theory.bounds._core import ceil_int
from semiprivate.theory.validity import Checked, ConditionNotMet
from semiprivate.validation import Options

BOUNDS = list_bounds()
WITH_FORMULA = [b for b in BOUNDS if b.formula is not None and b.expr is not None]
MONOTONE = [(b, name, sign) for b in BOUNDS for name, sign in sorted(b.monotone.items())]


def _strategy(param: Any) -> st.SearchStrategy[Any]:
    if isinstance(param.constraint, Options):  # the sympy form is built for the default option
        return st.just(param.default if param.default is not None else param.constraint.values[0])
    lo, hi = param.typical if param.typical is not None else (0.1, 10.0)
    if param.integer:
        lo_i, hi_i = int(lo), int(hi)
        if hi_i / max(lo_i, 1) > 100:  # log-uniform-ish over wide integer ranges
            return st.floats(math.log(max(lo_i, 1)), math.log(hi_i)).map(lambda x: max(lo_i, int(math.exp(x))))
        return st.integers(lo_i, hi_i)
    if lo > 0 and hi / lo > 100:
        return st.floats(math.log(lo), math.log(hi)).map(math.exp)
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def _params_strategy(bound: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({p.name: _strategy(p) for p in bound.params})


def _clean(params: dict[str, Any], bound: Any) -> dict[str, Any]:
    """Drop values the constraint rejects at the edges of the typical range (e.g. 0 for (0, 1))."""
    out = {}
    for p in bound.params:
        try:
            p.constraint.validate(p.name, params[p.name])
        except (TypeError, ValueError):
            assume(False)
        out[p.name] = params[p.name]
    return out


def _components(value: Any) -> list[float]:
    """The numeric components of a result (a number, or the numeric fields of a NamedTuple)."""
    if isinstance(value, Checked):
        value = value.unwrap()
    if isinstance(value, tuple):
        return [float(v) for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return [float(value)]


@cache
def _lambdified(bound_id: str) -> Any:
    import sympy

    b = REGISTRY[bound_id]
    assert b.expr is not None
    expr = b.expr()
    names = [p.name for p in b.params if not isinstance(p.constraint, Options)]
    syms = [sympy.Symbol(n) for n in names]

    def rename(e: Any) -> Any:  # drop assumptions so lambdify sees plain symbols
        return e.subs({s: sympy.Symbol(s.name) for s in e.free_symbols})

    if isinstance(expr, dict):
        return names, {k: sympy.lambdify(syms, rename(v), "mpmath") for k, v in expr.items()}
    return names, sympy.lambdify(syms, rename(expr), "mpmath")


@pytest.mark.parametrize("bound", BOUNDS, ids=[b.id for b in BOUNDS])
def test_example_evaluates_and_is_documented(bound: Any) -> None:
    assert bound.description and bound.output
    assert bound.function.__doc__ and "Implements:" in bound.function.__doc__
    value = bound.function(**bound.example)
    assert value is not None
    for name, solver in bound.solvers.items():
        assert solver.name == name and solver.params


def test_registry_covers_the_issue_items() -> None:
    wanted = ["ABM19.Lem3.3", "ABM19.Thm3.1.n_priv", "ABM19.Lem4.4", "ABM19.Thm4.1", "ABM19.Thm4.2",
              "BNS15.Thm3.3.m", "BNS15.Lem4.1", "BNS15.Cl4.2", "BNS15.Cl4.3", "BNS15.Cl4.5", "BNS15.Lem4.6",
              "BNS15.Cl4.8", "BNS15.Cl4.9", "BNS15.Cl4.11", "BNS15.Lem4.12", "BNS15.Thm4.13", "BNS15.Thm4.14",
              "BNS15.Thm4.16", "BNS15.Cor4.17", "BNS15.Cor4.18", "BNS15.Thm5.5", "BNS15.Thm5.6", "BNS15.Cl5.7",
              "BNS15.Thm5.8", "BNS15.PropA.1", "BNS15.ThmA.3", "BNS15.ThmB.2", "BNS15.ThmB.3", "BNS15.ThmB.4",
              "BNS15.ThmB.5", "BNS15.ThmB.6", "HPSY.Thm1.n_unl", "HPSY.Lem1", "HPSY.Lem2", "HPSY.Thm2.n_unl",
              "HPSY.Thm3.n_lab", "HPSY.Sec3.3.BST14", "HPSY.Sec3.3.ABM19", "HPSY.Sec3.3.JL",
              "BST14.NoisySGD.sigma", "BST14.NoisySGD.excess", "PILLAR.Cor6"]
    missing = [w for w in wanted if w not in REGISTRY]
    assert not missing


def _agree(bound: Any, params: dict[str, Any], assume: Any = assume) -> None:
    from semiprivate.theory.bounds._core import MATH

    try:
        value = bound.function(**params)
    except ConditionNotMet:
        assume(False)
    except (OverflowError, RuntimeWarning):  # overflow -> inf with a warning (an error under pytest)
        assume(False)
    names, fn = _lambdified(bound.id)
    args = [params[n] for n in names]
    try:
        raw = bound.formula(MATH, **params)
    except (ValueError, OverflowError, ZeroDivisionError):
        assume(False)
    if isinstance(fn, dict):
        for key, f in fn.items():
            sym = float(f(*args))
            assert math.isclose(sym, float(raw[key]), rel_tol=1e-9, abs_tol=1e-300), (key, sym, raw[key])
        return
    sym = float(fn(*args))
    raw_f = float(raw)
    assume(math.isfinite(raw_f) and abs(raw_f) < 1e300)
    assert math.isclose(sym, raw_f, rel_tol=1e-9, abs_tol=1e-300), (sym, raw_f)
    if bound.integer_output:
        got = int(value.unwrap() if isinstance(value, Checked) else value)
        expected = ceil_int(raw_f)
        # ceil, except strict inequalities (n > x -> floor(x) + 1) and lower bounds clipped at 0
        assert got in (expected, expected + 1, max(0, expected)), (got, raw_f)


@pytest.mark.parametrize("bound", WITH_FORMULA, ids=[b.id for b in WITH_FORMULA])
def test_sympy_form_equals_function_at_the_example(bound: Any) -> None:
    def must(condition: bool) -> None:
        assert condition, "the example must satisfy the bound's hypotheses"

    _agree(bound, dict(bound.example, **{p.name: p.default for p in bound.params
                                         if p.name not in bound.example and not p.required}), must)


@pytest.mark.parametrize("bound", WITH_FORMULA, ids=[b.id for b in WITH_FORMULA])
def test_sympy_form_equals_function_at_random_points(bound: Any) -> None:
    @settings(max_examples=15, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(_params_strategy(bound))
    def check(params: dict[str, Any]) -> None:
        _agree(bound, _clean(params, bound))

    check()


def _bump(param: Any, value: Any, frac: float) -> Any:
    if param.integer:
        return value + max(1, int(value * frac))
    new = value * (1 + frac) if value > 0 else value + frac
    return new


@pytest.mark.parametrize(("bound", "name", "sign"), MONOTONE, ids=[f"{b.id}-{n}" for b, n, _ in MONOTONE])
def test_monotone_in_declared_parameters(bound: Any, name: str, sign: int) -> None:
    param = bound.param(name)

    @settings(max_examples=15, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(_params_strategy(bound), st.floats(0.01, 0.5))
    def check(params: dict[str, Any], frac: float) -> None:
        params = _clean(params, bound)
        bigger = dict(params)
        bigger[name] = _bump(param, params[name], frac)
        try:
            param.constraint.validate(name, bigger[name])
            los = _components(bound.function(**params))
            his = _components(bound.function(**bigger))
        except (ConditionNotMet, OverflowError, ValueError, RuntimeWarning):
            assume(False)
        for lo, hi in zip(los, his):
            assume(math.isfinite(lo) and math.isfinite(hi))
            if sign > 0:
                assert hi >= lo - 1e-12 * abs(lo), (params, name, lo, hi)
            else:
                assert hi <= lo + 1e-12 * abs(lo), (params, name, lo, hi)

    check()

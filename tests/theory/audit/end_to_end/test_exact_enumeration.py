"""semiprivate.theory.audit.end_to_end: canonical state encoding, neighbours, exact worst case, coin checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.audit.end_to_end import (
    NotEnumerable,
    all_datasets,
    encode_state,
    exact_worst_case,
    replace_one_neighbours,
    state_law,
    statistical_worst_case,
)


class _Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def test_encode_state_sees_every_public_attribute_and_nothing_private():
    a = _Obj(x=np.array([1, 2]), y=0.1, _hidden=5, inner=_Obj(z=(1, 2.0)))
    b = _Obj(x=np.array([1, 2]), y=0.1, _hidden=6, inner=_Obj(z=(1, 2.0)))
    assert encode_state(a) == encode_state(b)                      # private (underscore) names ignored
    b.inner.z = (1, 2.0000000000000004)
    assert encode_state(a) != encode_state(b)                      # floats bit-exact
    assert encode_state(a, exclude=("inner.z",)) == encode_state(b, exclude=("inner.z",))
    assert encode_state(_Obj(x=np.array([1, 2], np.int32))) != encode_state(_Obj(x=np.array([1, 2], np.int64)))


def test_neighbours_and_datasets():
    doms = [[0, 1, 2], ["a"]]
    ds = all_datasets(doms, [2, 1])
    assert len(ds) == 9 and ds[0] == ((0, 0), ("a",))
    nb = list(replace_one_neighbours(((0, 1), ("a",)), doms, (0,)))
    assert nb == [((1, 1), ("a",)), ((2, 1), ("a",)), ((0, 0), ("a",)), ((0, 2), ("a",))]


def _rr(p_true):
    # randomized response on one bit: output = the bit w.p. p_true
    return lambda d: {("state", d[0][0]): p_true, ("state", 1 - d[0][0]): 1 - p_true}


def test_exact_worst_case_randomized_response():
    doms = [[0, 1]]
    ds = all_datasets(doms, [1])
    p = math.e / (1 + math.e)                                      # exactly 1-DP
    r = exact_worst_case(ds, lambda d: replace_one_neighbours(d, doms, (0,)), _rr(p), (1.0, 0.0))
    assert r.epsilon == pytest.approx(1.0) and r.delta == pytest.approx(0.0, abs=1e-15) and r.holds
    r = exact_worst_case(ds, lambda d: replace_one_neighbours(d, doms, (0,)), _rr(0.9), (1.0, 0.0))
    assert r.epsilon == pytest.approx(math.log(9)) and r.delta == pytest.approx(0.9 - math.e * 0.1) and not r.holds
    # a deterministic release: infinite loss, delta 1
    r = exact_worst_case(ds, lambda d: replace_one_neighbours(d, doms, (0,)), lambda d: {d: 1.0}, (5.0, 0.0))
    assert r.epsilon == math.inf and r.delta == 1.0 and r.witness is not None


def test_state_law_product_and_coin_checks():
    def fit(d, seed):
        g = np.random.default_rng(seed)
        return _Obj(n=len(d[0]), out=int(g.integers(0, 2)))

    law = state_law(fit, ((0, 1),), random_attributes=("out",), random_law=lambda d: {(0,): 0.5, (1,): 0.5})
    assert sorted(law.values()) == [0.5, 0.5] and len(law) == 2
    # a coin-dependent attribute outside the declared random ones is refused
    with pytest.raises(NotEnumerable, match="depends on the coins"):
        state_law(fit, ((0, 1),), random_attributes=(), random_law=lambda d: {(): 1.0})
    # the declared law must cover what the runs produced
    with pytest.raises(NotEnumerable, match="support"):
        state_law(fit, ((0, 1),), random_attributes=("out",), random_law=lambda d: {(0,): 1.0})

    def raises(d, seed):
        raise KeyError(d)

    assert state_law(raises, ((0,),), random_attributes=(), random_law=dict) == {("raise", "KeyError"): 1.0}


def test_exact_check_catches_an_exact_statistic_left_on_the_state():
    # the output is private (a fair coin), but an attribute holds a count of the data: infinite loss
    def fit(d, seed):
        return _Obj(count_=sum(d[0]), out=int(np.random.default_rng(seed).integers(0, 2)))

    doms = [[0, 1]]
    r = exact_worst_case(all_datasets(doms, [2]), lambda d: replace_one_neighbours(d, doms, (0,)),
                         lambda d: state_law(fit, d, random_attributes=("out",),
                                             random_law=lambda e: {(0,): 0.5, (1,): 0.5}), (1.0, 0.0))
    assert r.epsilon == math.inf and not r.holds


def test_statistical_route_refutes_a_leak():
    # releases the data bit itself: the audit finds the violation (2 x 400 runs; FFR of the audit 5%)
    res, audit = statistical_worst_case(lambda d, g: _Obj(bit=d[0][0]), [(((0,),), ((1,),))], (1.0, 0.0), trials=400)
    assert not res.holds and audit.violation

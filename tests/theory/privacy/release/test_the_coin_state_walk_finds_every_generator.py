"""The walk that seals a run (``coin_state_paths``) finds coin state anywhere in a fitted object's state: in a
list inside a dict attribute, in an object-dtype array, as a dict key, after 100,000 plain tuples; and it reports
exactly what a plain one-call-per-item walk (the reference below) reports, on random nested states."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semiprivate.theory.privacy._release import Released, coin_state_paths, is_coin_state, param_names


def _reference(obj, path="", seen=None, depth=0, skip_params=True):
    """One call per item, every item entered (the specification of the walk)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 12:
        return []
    seen.add(id(obj))
    if is_coin_state(obj):
        return [path or "<self>"]
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if is_coin_state(k):
                out.append(f"{path}[<key {type(k).__name__}>]")
            out += _reference(v, f"{path}[{k!r}]", seen, depth + 1, False)
        return out
    if isinstance(obj, list | tuple | set | frozenset):
        for i, v in enumerate(obj):
            out += _reference(v, f"{path}[{i}]", seen, depth + 1, False)
        return out
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            for i, v in enumerate(obj.flat):
                out += _reference(v, f"{path}.flat[{i}]", seen, depth + 1, False)
        return out
    if isinstance(obj, str | bytes | int | float | complex | type) or obj is None:
        return []
    state = getattr(obj, "__dict__", None)
    if not isinstance(state, dict):
        return []
    skip = set(param_names(obj)) if skip_params else set()
    for k, v in state.items():
        if k not in skip:
            out += _reference(v, f"{path}.{k}", seen, depth + 1, False)
    return out


class _Box:
    def __init__(self, **kw):
        self.__dict__.update(kw)


_COINS = st.sampled_from(["gen", "seq", "bitgen", "rs"]).map(lambda k: {
    "gen": lambda: np.random.default_rng(0), "seq": lambda: np.random.SeedSequence(1),
    "bitgen": lambda: np.random.PCG64(2), "rs": lambda: np.random.RandomState(3)}[k]())
_ATOMS = st.one_of(st.integers(-5, 2**70), st.floats(allow_nan=False), st.text(max_size=3), st.none(),
                   st.booleans(), st.just(np.arange(3)))
_STATES = st.recursive(
    st.one_of(_ATOMS, _COINS),
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.lists(kids, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=2), kids, max_size=3),
        st.lists(kids, min_size=1, max_size=3).map(lambda v: np.array(v + [None], dtype=object)[:-1]),
        st.dictionaries(st.text(max_size=2), kids, max_size=3).map(lambda d: _Box(**d))),
    max_leaves=25)


@settings(max_examples=60, deadline=None)
@given(_STATES, st.integers(0, 3))
def test_the_walk_reports_what_the_one_call_per_item_walk_reports(state, share):
    shared = [state, state] if share == 0 else state  # one object reached twice is reported once
    obj = _Box(a=shared, b=[shared, (1, 2)])
    assert coin_state_paths(obj) == _reference(obj)


def test_the_walk_stops_at_the_same_depth_as_the_reference():
    deep = np.random.default_rng(0)
    for _ in range(14):
        deep = [deep]
    obj = _Box(a=deep)
    assert coin_state_paths(obj) == _reference(obj) == []
    shallower = _Box(a=deep[0][0][0])  # the generator at depth 12: found
    assert coin_state_paths(shallower) == _reference(shallower) == [".a" + "[0]" * 11]


class _Leaky(Released):
    _releases = frozenset({"cover_"})

    def __init__(self, where="list in dict", rng=None):
        self.where = where
        self.rng = rng

    def fit(self, X=None, y=None):
        g = np.random.default_rng()
        plain = [(i, i + 1) for i in range(100_000)]
        self.cover_ = {
            "list in dict": lambda: {"parts": [1, (2, 3), [g]]},
            "object array": lambda: np.array([1.0, g, "x"], dtype=object),
            "dict key": lambda: {g: 1},
            "after plain tuples": lambda: plain + [(0, g)],
            "none": lambda: {"parts": plain, "names": np.array(["a", "b"], dtype=object)},
        }[self.where]()
        return self


@pytest.mark.parametrize("where", ["list in dict", "object array", "dict key", "after plain tuples"])
def test_a_run_that_hides_a_generator_is_refused(where):
    est = _Leaky(where)
    with pytest.raises(RuntimeError, match="left coin state in"):
        est.fit()
    assert not hasattr(est, "cover_")  # the leaking attribute is dropped


def test_a_run_without_coin_state_keeps_its_release():
    est = _Leaky("none").fit()
    assert len(est.cover_["parts"]) == 100_000

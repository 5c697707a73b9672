"""The seed record's fingerprint of a release reads every input the run can read, or is never equal.

A seed given again to "the same release" is allowed when the fingerprints are equal and the outputs equal,
refused otherwise. A fingerprint blind to part of the data would make that decision compare outputs of two
different datasets (an equality oracle on private data), so the fingerprint reads the object a bound method is
bound to, the module globals a function's code names, ``__slots__`` values, and fails closed (never equal) past
its depth limit.
"""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.seeds import fingerprint

DATA = np.array([1.0, 2.0, 3.0])


class _Holder:
    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    def query(self) -> float:
        return float(self.data.sum())


class _Slotted:
    __slots__ = ("data", "__hidden")

    def __init__(self, data: np.ndarray, hidden: float) -> None:
        self.data = data
        self.__hidden = hidden


class _SlottedWithDict(_Slotted):
    """A subclass without ``__slots__``: it has a ``__dict__`` too, and the slot values are not in it."""


def _reads_global() -> float:
    return float(DATA.sum())


def _fp(**inputs: object) -> bytes:
    return fingerprint("case", {}, inputs)


def test_a_bound_method_is_read_with_the_object_it_is_bound_to() -> None:
    a, b = _Holder(np.array([1.0, 2.0])), _Holder(np.array([1.0, 5.0]))
    assert _fp(query=a.query) != _fp(query=b.query)
    assert _fp(query=a.query) == _fp(query=_Holder(np.array([1.0, 2.0])).query)


def test_a_function_is_read_with_the_module_globals_it_names() -> None:
    global DATA
    before = _fp(query=_reads_global)
    old, DATA = DATA, np.array([1.0, 2.0, 4.0])
    try:
        assert _fp(query=_reads_global) != before
    finally:
        DATA = old
    assert _fp(query=_reads_global) == before


def test_slot_values_are_read_private_ones_too() -> None:
    for cls in (_Slotted, _SlottedWithDict):
        assert _fp(x=cls(np.array([1.0]), 0.0)) != _fp(x=cls(np.array([2.0]), 0.0))
        assert _fp(x=cls(np.array([1.0]), 0.0)) != _fp(x=cls(np.array([1.0]), 1.0))
        assert _fp(x=cls(np.array([1.0]), 0.0)) == _fp(x=cls(np.array([1.0]), 0.0))


def _nested(depth: int, leaf: float) -> object:
    out: object = [leaf]
    for _ in range(depth):
        out = [out]
    return out


def test_past_its_depth_limit_the_fingerprint_is_never_equal() -> None:
    assert _fp(x=_nested(10, 1.0)) == _fp(x=_nested(10, 1.0))
    assert _fp(x=_nested(45, 1.0)) != _fp(x=_nested(45, 1.0))  # unread: not even equal to itself

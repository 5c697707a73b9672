"""theory.audit.core: behaviour the (partial) mutation run showed untested (scripts/mutation.sh):
exact membership of joint table events (value conditions, thresholds at their boundary, NaN
leaves satisfying no condition) and which table they read.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from theory.audit.core import TableEvent, _Outputs, _table

NAN = math.nan
# columns: 0 categorical, 1 categorical, 2 numeric
T = np.array([[0, 1, 0.5],
              [1, 1, 2.0],
              [2, 0, 2.5],
              [1, 2, NAN],
              [NAN, 1, 3.0],
              [1, 1, 2.5]])


def _out(table: np.ndarray | None = None, num: np.ndarray | None = None) -> _Outputs:
    return _Outputs(raw=None, kind="vector", num=num, keys=None, discrete=False, table=table)


def test_table_event_membership_is_exact() -> None:
    o = _out(table=T)
    assert TableEvent([(0, [1])], None, "x0 = 1").indicator(o).tolist() == [0, 1, 0, 1, 0, 1]
    assert TableEvent([(0, [2, 0])], None, "x0 in {0, 2}").indicator(o).tolist() == [1, 0, 1, 0, 0, 0]
    both = TableEvent([(0, [1]), (1, [1, 2])], None, "x0 = 1 and x1 in {1, 2}")
    assert both.indicator(o).tolist() == [0, 1, 0, 1, 0, 1]
    # thresholds: x > t (upper) and x <= t, the boundary value on the <= side; NaN in neither
    assert TableEvent([], (2, 2.5, True), "x2 > 2.5").indicator(o).tolist() == [0, 0, 0, 0, 1, 0]
    assert TableEvent([], (2, 2.5, False), "x2 <= 2.5").indicator(o).tolist() == [1, 1, 1, 0, 0, 1]
    joint = TableEvent([(0, [1])], (2, 2.0, True), "x0 = 1 and x2 > 2")
    assert joint.indicator(o).tolist() == [0, 0, 0, 0, 0, 1]
    assert TableEvent([], None, "all").indicator(o).tolist() == [1] * 6
    assert TableEvent([(0, [1])], None, "x0 = 1").indicator(o).dtype == bool


def test_table_events_read_the_schema_table_else_a_numeric_matrix() -> None:
    num = np.array([[5.0, 0.0], [1.0, 1.0]])
    assert _table(_out(table=T, num=num)) is T
    assert _table(_out(num=num)) is num
    assert TableEvent([(0, [1])], None, "x0 = 1").indicator(_out(num=num)).tolist() == [False, True]
    for bad in (_out(), _out(num=np.array([1.0, 2.0]))):
        with pytest.raises(ValueError, match=r"^table event on outputs without a table \(structured or vector outputs\)$"):
            _table(bad)


def test_bit_keys_pack_sign_exponent_and_low_mantissa_bits() -> None:
    from theory.audit.core import bit_keys

    one_up = float(np.nextafter(1.0, 2.0))  # 0x3FF0000000000001
    v = np.array([1.0, -1.0, 1.5, 2.0, one_up, 0.0])
    assert bit_keys(v, 4).tolist() == [0x3FF0, 0xBFF0, 0x3FF0, 0x4000, 0x3FF1, 0]
    assert bit_keys(v, 0).tolist() == [0x3FF, 0xBFF, 0x3FF, 0x400, 0x3FF, 0]
    assert bit_keys(np.array([1.0 + 2.0**-52 * 0b10110]), 3).tolist() == [(0x3FF << 3) | 0b110]
    assert bit_keys(v, 4).dtype == np.int64
    assert bit_keys([1, 2], 1).tolist() == [0x3FF << 1, 0x400 << 1]  # ints are read as float64


def test_bits_event_membership() -> None:
    from theory.audit.core import BitsEvent

    one_up = float(np.nextafter(1.0, 2.0))
    num = np.array([[1.0, 5.0], [one_up, 5.0], [-1.0, 5.0]])
    ev = BitsEvent(0, 4, np.array([0x3FF1, 0xBFF0]), "low bit set or -1")
    assert ev.indicator(_out(num=num)).tolist() == [False, True, True]
    assert BitsEvent(None, 4, np.array([0x3FF0]), "1.0").indicator(_out(num=np.array([1.0, one_up]))).tolist() == [
        True, False]
    with pytest.raises(ValueError, match="^bit event on non-numeric outputs$"):
        ev.indicator(_out())


def test_vectorize_stacks_numbers_and_keeps_structured_outputs() -> None:
    from theory.audit.core import vectorize

    mech = vectorize(lambda data, rng: data + rng.integers(0, 3))
    a = mech(10, 5, 0)
    assert isinstance(a, np.ndarray) and a.shape == (5,) and a.tolist() == mech(10, 5, 0).tolist()
    assert set(a.tolist()) <= {10, 11, 12}
    s = vectorize(lambda data, rng: (data, "x"))(1, 3, 0)
    assert s.dtype == object and s.shape == (3,) and s[0] == (1, "x")
    assert vectorize(lambda d, r: 1.0)(None, 0, 0).shape == (0,)
    assert mech.__name__ == "vectorize(<lambda>)"
    with pytest.raises(TypeError, match=r"^fn must be callable, got 3 \(int\)$"):
        vectorize(3)


def test_assert_private_defaults_and_failure_message() -> None:
    from theory.audit.core import assert_private, vectorize
    from theory.privacy.mechanisms import RandomizedResponse

    res = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, trials=20_000, rng=1)
    assert (res.violation, res.epsilon, res.delta, res.confidence) == (False, 1.0, 0.0, 0.999)
    leak = vectorize(lambda data, rng: data)  # outputs its input: not DP at any epsilon
    with pytest.raises(AssertionError, match=r"^mechanism vectorize\(<lambda>\) is not \(1, 0\)-DP:\n"):
        assert_private(leak, 0, 1, epsilon=1.0, trials=2_000, rng=0)
    with pytest.raises(AssertionError, match=r"^mechanism vectorize\(<lambda>\) is not \(0.5, 1e-06\)-DP:\n"):
        assert_private(leak, 0, 1, epsilon=0.5, delta=1e-6, trials=2_000, rng=0)


def test_value_and_user_events() -> None:
    from theory.audit.core import UserEvent, ValueSetEvent

    keys = np.array([3, 1, 2, 3, 5])
    o = _Outputs(raw=[0, 1, 2, 3, 4], kind="scalar", num=None, keys=keys, discrete=True)
    assert ValueSetEvent(np.array([3]), "x = 3").indicator(o).tolist() == [True, False, False, True, False]
    assert ValueSetEvent(np.array([5, 1]), "x in {1, 5}").indicator(o).tolist() == [False, True, False, False, True]
    with pytest.raises(ValueError, match="^value event on outputs without values$"):
        ValueSetEvent(np.array([3]), "x = 3").indicator(_out())

    def even(raw: Any) -> list[bool]:
        return [v % 2 == 0 for v in raw]

    ev = UserEvent(even)
    assert ev.description == "even" and ev.indicator(o).tolist() == [True, False, True, False, True]
    even.description = "x is even"  # type: ignore[attr-defined]
    assert UserEvent(even).description == "x is even"
    bad = UserEvent(lambda raw: [True])
    with pytest.raises(ValueError, match=r"^event '<lambda>' must return one bool per output, got shape \(1,\)$"):
        bad.indicator(o)

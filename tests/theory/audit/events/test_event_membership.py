"""semiprivate.theory.audit.events: exact membership of every event kind (table, bits, value, threshold,
user events), their descriptions, and the normalised parameters of their constructors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit.draws import Outputs
from semiprivate.theory.audit.events import TableEvent, table_of

NAN = math.nan


# columns: 0 categorical, 1 categorical, 2 numeric
T = np.array([[0, 1, 0.5],
              [1, 1, 2.0],
              [2, 0, 2.5],
              [1, 2, NAN],
              [NAN, 1, 3.0],
              [1, 1, 2.5]])


def _out(table: np.ndarray | None = None, num: np.ndarray | None = None) -> Outputs:
    return Outputs(raw=None, kind="vector", num=num, keys=None, discrete=False, table=table)


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
    assert table_of(_out(table=T, num=num)) is T
    assert table_of(_out(num=num)) is num
    assert TableEvent([(0, [1])], None, "x0 = 1").indicator(_out(num=num)).tolist() == [False, True]
    for bad in (_out(), _out(num=np.array([1.0, 2.0]))):
        with pytest.raises(ValueError, match=r"^table event on outputs without a table \(structured or vector outputs\)$"):
            table_of(bad)


def test_bit_keys_pack_sign_exponent_and_low_mantissa_bits() -> None:
    from semiprivate.theory.audit.events import bit_keys

    one_up = float(np.nextafter(1.0, 2.0))  # 0x3FF0000000000001
    v = np.array([1.0, -1.0, 1.5, 2.0, one_up, 0.0])
    assert bit_keys(v, 4).tolist() == [0x3FF0, 0xBFF0, 0x3FF0, 0x4000, 0x3FF1, 0]
    assert bit_keys(v, 0).tolist() == [0x3FF, 0xBFF, 0x3FF, 0x400, 0x3FF, 0]
    assert bit_keys(np.array([1.0 + 2.0**-52 * 0b10110]), 3).tolist() == [(0x3FF << 3) | 0b110]
    assert bit_keys(v, 4).dtype == np.int64
    assert bit_keys([1, 2], 1).tolist() == [0x3FF << 1, 0x400 << 1]  # ints are read as float64


def test_bits_event_membership() -> None:
    from semiprivate.theory.audit.events import BitsEvent

    one_up = float(np.nextafter(1.0, 2.0))
    num = np.array([[1.0, 5.0], [one_up, 5.0], [-1.0, 5.0]])
    ev = BitsEvent(0, 4, np.array([0x3FF1, 0xBFF0]), "low bit set or -1")
    assert ev.indicator(_out(num=num)).tolist() == [False, True, True]
    assert BitsEvent(None, 4, np.array([0x3FF0]), "1.0").indicator(_out(num=np.array([1.0, one_up]))).tolist() == [
        True, False]
    with pytest.raises(ValueError, match="^bit event on non-numeric outputs$"):
        ev.indicator(_out())


def test_value_and_user_events() -> None:
    from semiprivate.theory.audit.events import UserEvent, ValueSetEvent

    keys = np.array([3, 1, 2, 3, 5])
    o = Outputs(raw=[0, 1, 2, 3, 4], kind="scalar", num=None, keys=keys, discrete=True)
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


def test_bit_keys_mask_keeps_exactly_k_low_bits() -> None:
    from semiprivate.theory.audit.events import bit_keys

    v = np.array([1.0 + 2.0**-52 * 0b10000, 1.0 + 2.0**-52 * 0b11111])
    assert bit_keys(v, 4).tolist() == [0x3FF0, 0x3FFF]
    assert bit_keys(v, 1).tolist() == [0x3FF << 1, (0x3FF << 1) | 1]


def test_threshold_event_description_projection_and_boundary() -> None:
    from semiprivate.theory.audit.events import ThresholdEvent

    assert ThresholdEvent(2, False, 1, "y").description == "y <= 2"
    assert ThresholdEvent(1234567.891, True).description == "x > 1.23457e+06"
    e = ThresholdEvent(np.float32(1.5), 1)
    assert type(e.threshold) is float and e.upper is True and repr(e) == "x > 1.5"
    num = np.array([[1.0, 2.0], [3.0, -1.0], [2.0, 0.0]])
    o = _out(num=num)
    assert ThresholdEvent(2.0, True, 0).indicator(o).tolist() == [False, True, False]
    assert ThresholdEvent(2.0, False, 0).indicator(o).tolist() == [True, False, True]
    assert ThresholdEvent(0.0, True, 1).indicator(o).tolist() == [True, False, False]
    assert ThresholdEvent(2.0, True, np.array([1.0, 1.0])).indicator(o).tolist() == [True, False, False]
    assert ThresholdEvent(1.0, True, lambda x: x[:, 0] - x[:, 1]).indicator(o).tolist() == [False, True, True]
    assert ThresholdEvent(1.0, True).indicator(_out(num=np.array([1.0, 1.5]))).tolist() == [False, True]
    with pytest.raises(ValueError, match="^threshold event on non-numeric outputs$"):
        ThresholdEvent(1.0, True).indicator(_out())


def test_event_constructors_normalise_their_parameters() -> None:
    from semiprivate.theory.audit.events import BitsEvent, UserEvent, ValueSetEvent

    v = ValueSetEvent(np.array([5, 1, 3]), "d")
    assert v.values.tolist() == [1, 3, 5] and v.description == "d" and repr(v) == "d"
    t = TableEvent([(np.int64(2), [3, 1.5])], (np.int64(1), np.float32(0.5), 1), "j")
    assert t.conds[0][0] == 2 and type(t.conds[0][0]) is int
    assert t.conds[0][1].tolist() == [1.5, 3.0] and t.conds[0][1].dtype == np.float64
    assert t.thr == (1, 0.5, True) and [type(x) for x in t.thr] == [int, float, bool]
    assert TableEvent([], None, "all").thr is None
    assert TableEvent([(0, [3, 1])], None, "i").conds[0][1].dtype == np.float64  # int values read as float64
    b = BitsEvent(1, np.int64(4), np.array([9, 2]), "b")
    assert (b.col, b.k, b.values.tolist(), b.description) == (1, 4, [2, 9], "b") and type(b.k) is int

    class Obj:
        def __call__(self, raw: Any) -> list[bool]:
            return [True] * len(raw)

        def __repr__(self) -> str:
            return "Obj()"

    o = Obj()
    ev = UserEvent(o)
    assert ev.description == "Obj()" and ev.fn is o
    o.description = ""  # type: ignore[attr-defined]  (empty: falls back to the name)
    assert UserEvent(o).description == "Obj()"
    o.description = 42  # type: ignore[attr-defined]
    assert UserEvent(o).description == "42"
    assert ev.indicator(Outputs(raw=[1, 2], kind="label", num=None, keys=None, discrete=True)).tolist() == [True, True]
    # a 2-D indicator is refused
    bad = UserEvent(lambda raw: [[True], [False]])
    with pytest.raises(ValueError, match=r"got shape \(2, 1\)$"):
        bad.indicator(Outputs(raw=[1, 2], kind="label", num=None, keys=None, discrete=True))


def test_user_event_indicator_is_boolean() -> None:
    from semiprivate.theory.audit.events import UserEvent

    o = Outputs(raw=[0, 1, 2], kind="label", num=None, keys=None, discrete=True)
    ind = UserEvent(lambda raw: [0, 2, 0.5]).indicator(o)
    assert ind.dtype == bool and ind.tolist() == [False, True, True]

"""theory.audit.core: behaviour the (partial) mutation run showed untested (scripts/mutation.sh):
exact membership of joint table events (value conditions, thresholds at their boundary, NaN
leaves satisfying no condition) and which table they read.
"""

from __future__ import annotations

import math

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

"""semiprivate.theory.audit.candidates.table_events: the joint events built on output tables (auto-categorical
columns, joint values and thresholds, column order and caps, labels)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

NAN = math.nan


def _table_calls(tx: np.ndarray, ty: np.ndarray, declared: list[bool], numeric: list[int],
                 n_thresholds: int = 64, codec: Any = None) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    from semiprivate.theory.audit.candidates import table_events

    vf: list[tuple[Any, ...]] = []
    al: list[tuple[Any, ...]] = []

    def value_family(kx: Any, ky: Any, make: Any, label: Any, family: str) -> None:
        vals = np.unique(np.concatenate([kx, ky]))
        vf.append((family, kx.size, ky.size, [label(v) for v in vals], make(vals[:1], "d").conds[0][0]))

    def add_lazy(m: int, make: Any, kx: Any, ky: Any, group: str, family: str) -> None:
        al.append((m, group, family, kx.tolist(), ky.tolist(), [make(i).description for i in range(m)]))

    table_events(tx, ty, [f"c{j}" for j in range(tx.shape[1])], np.array(declared), numeric, codec, value_family,
                  add_lazy, n_thresholds)
    return vf, al


def test_table_events_auto_categorical_boundaries() -> None:
    # 16 integer values: categorical; 17: not; 1 value: not; non-integers: not; inf: not
    base = np.arange(16.0)
    tx = np.c_[base, base % 2, np.full(16, 3.0), base + 0.5, np.r_[base[:-1], np.inf]]
    ty = np.c_[base, base % 2, np.full(16, 3.0), base + 0.5, base]
    with np.errstate(invalid="ignore", over="ignore"):
        vf, al = _table_calls(tx, ty, [False] * 5, [0, 1, 2, 3, 4])
    assert [f[:3] + (f[4],) for f in vf] == [("cat", 16, 16, 0), ("cat", 16, 16, 1)]
    assert vf[1][3] == ["c1 == 0", "c1 == 1"]
    assert [(a[0], a[1], a[2], a[5][:3]) for a in al] == [
        (580, "joint", "joint", ["c0 == 0 and c1 > -4.94066e-324", "c0 == 0 and c1 > 0", "c0 == 0 and c1 <= -4.94066e-324"])]
    tx17 = np.c_[np.arange(17.0), np.arange(17.0)]
    assert _table_calls(tx17, tx17, [False, False], [0, 1]) == ([], [])
    # a column outside `numeric` is not made categorical
    assert [f[4] for f in _table_calls(tx[:, :3], ty[:, :3], [False] * 3, [1, 2])[0]] == [1]
    assert _table_calls(np.c_[np.arange(4.0) + 0.5], np.c_[np.arange(4.0) + 0.5], [False], [0]) == ([], [])
    # declared columns are categorical whatever their values, NaN leaves dropped
    txn = np.c_[np.array([0.5, NAN, 0.5, 2.0]), np.array([1.0, 2.0, 3.0, 4.0])]
    vf, al = _table_calls(txn, txn, [True, False], [1])
    assert vf == [("cat", 3, 3, ["c0 == 0.5", "c0 == 2"], 0), ("cat", 4, 4, ["c1 == 1", "c1 == 2", "c1 == 3", "c1 == 4"], 1)]
    m, group, family, kx, ky, desc = al[0]
    assert (len(al), m, group, family, kx == ky) == (1, 50, "joint", "joint", True)
    assert kx[:3] == [2.0, 1.0, 1.0] and kx[-5:] == [2.0, 1.0, 0.0, 0.0, 1.0]
    assert desc[:3] == ["c0 == 0.5 and c1 > 1", "c0 == 0.5 and c1 > 1", "c0 == 0.5 and c1 > 1.09524"]
    assert desc[-4:] == ["c0 == 2 and c1 > 4", "c0 == 2 and c1 > 4", "c0 == 2 and c1 <= 4", "c0 == 2 and c1 <= 4"]


def test_table_events_joint_candidates() -> None:
    # categorical c0 (values 0, 1), numeric c1; joint events threshold c1 within each category, the most
    # frequent category first
    tx = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 3.0], [1.0, 4.0]])
    ty = np.array([[0.0, 1.0], [1.0, 2.0], [1.0, 2.0], [1.0, 5.0]])
    vf, al = _table_calls(tx, ty, [True, False], [1], n_thresholds=2)
    assert vf == [("cat", 4, 4, ["c0 == 0", "c0 == 1"], 0),
                  ("cat", 4, 4, ["c1 == 1", "c1 == 2", "c1 == 3", "c1 == 4", "c1 == 5"], 1)]
    assert al == [(18, "joint", "joint",
                   [2.0, 2.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 1.0, 0.0, 0.0, 1.0, 2.0],
                   [3.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0],
                   ["c0 == 1 and c1 > 2", "c0 == 1 and c1 > 2", "c0 == 1 and c1 > 3", "c0 == 1 and c1 > 3",
                    "c0 == 1 and c1 > 4", "c0 == 1 and c1 > 5", "c0 == 1 and c1 <= 2", "c0 == 1 and c1 <= 2",
                    "c0 == 1 and c1 <= 3", "c0 == 1 and c1 <= 3", "c0 == 1 and c1 <= 4", "c0 == 1 and c1 <= 5",
                    "c0 == 0 and c1 > 1", "c0 == 0 and c1 > 1", "c0 == 0 and c1 > 2", "c0 == 0 and c1 <= 1",
                    "c0 == 0 and c1 <= 1", "c0 == 0 and c1 <= 2"])]


def test_table_events_label_text_skip_declared_numeric_and_column_rank() -> None:
    from semiprivate.theory.audit.draws import Codec

    c = Codec()
    c.encode(["ab", ("#leaf", "u"), ("p", "q"), ("#x", 1, 2)])  # codes 0..3
    t = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0], [3.0, 4.0]])
    vf, _ = _table_calls(t, t, [True, False], [1], codec=c)
    assert vf[0][3] == ["c0 == 'ab'", "c0 == 'u'", "c0 == ('p', 'q')", "c0 == ('#x', 1, 2)"]
    assert vf[1][3] == ["c1 == 1", "c1 == 2", "c1 == 3", "c1 == 4"]  # not declared: numbers
    # a declared column listed among the numeric ones is skipped, the columns after it still examined
    t3 = np.c_[t[:, 0], t[:, 1] % 2, t[:, 1]]
    vf, _ = _table_calls(t3, t3, [False, True, False], [1, 2])
    assert [f[4] for f in vf] == [1, 2]
    # joint events: at most 4 categorical columns, those with more than one value first
    base = np.arange(8.0)
    t6 = np.c_[np.zeros(8), base % 2, base % 2, (base // 2) % 2, (base // 4) % 2, base * 1.5]
    _, al = _table_calls(t6, t6, [True, True, True, True, True, False], [5], n_thresholds=2)
    conds = {d.split(" and ")[0].split(" == ")[0] for d in al[0][5]}
    assert conds == {"c1", "c2", "c3", "c4"}


def test_table_events_joint_values_are_the_most_frequent_in_stable_order() -> None:
    # 40 categories, the even ones seen twice: the 8 joint values are 0, 2, ..., 14 in this order
    cat = np.concatenate([np.arange(40.0), np.arange(0.0, 40.0, 2.0)])
    t = np.c_[cat, np.arange(cat.size) * 0.5]
    _, al = _table_calls(t, t, [True, False], [1], n_thresholds=2)
    order = list(dict.fromkeys(d.split(" and ")[0] for d in al[0][5]))
    assert order == [f"c0 == {v}" for v in range(0, 16, 2)]


def test_table_events_joint_thresholds_capped_at_64() -> None:
    t = np.c_[np.arange(400.0) % 2, np.arange(400.0) * 0.25]
    m64 = _table_calls(t, t, [True, False], [1], n_thresholds=64)[1][0][0]
    assert _table_calls(t, t, [True, False], [1], n_thresholds=1000)[1][0][0] == m64
    assert m64 == 2 * 2 * (64 + 1) and _table_calls(t, t, [True, False], [1], n_thresholds=63)[1][0][0] < m64


def test_table_events_joint_columns_keep_their_order_declared_first() -> None:
    # c2 declared, c0 auto-categorical (integer values): joint events of c2 come first
    base = np.arange(12.0)
    t = np.c_[base % 3, base * 0.5, base % 2]
    _, al = _table_calls(t, t, [False, False, True], [0, 1], n_thresholds=2)
    cols = list(dict.fromkeys(d.split(" == ")[0] for d in al[0][5]))
    assert cols == ["c2", "c0"]


def test_table_events_joint_skips_an_empty_numeric_column_only() -> None:
    # under c0 == 0 the numeric c1 is missing (NaN) on one side: no joint events on c1 there, but c2's remain
    c0 = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    tx = np.c_[c0, [NAN, NAN, NAN, 1.5, 2.5, 3.5], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]]
    ty = np.c_[c0, [1.5, NAN, NAN, 1.5, 2.5, 3.5], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]]
    _, al = _table_calls(tx, ty, [True, False, False], [1, 2], n_thresholds=2)
    pairs = list(dict.fromkeys(d.split(" >")[0].split(" <=")[0] for d in al[0][5]))
    assert pairs == ["c0 == 0 and c2", "c0 == 1 and c1", "c0 == 1 and c2"]

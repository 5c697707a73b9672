"""semiprivate.theory.audit.core: behaviour the (partial) mutation run showed untested (scripts/mutation.sh):
exact membership of joint table events (value conditions, thresholds at their boundary, NaN
leaves satisfying no condition) and which table they read.
"""

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


def test_vectorize_stacks_numbers_and_keeps_structured_outputs() -> None:
    from semiprivate.theory.audit.core import vectorize

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
    from semiprivate.theory.audit.core import assert_private, vectorize
    from semiprivate.theory.privacy.mechanisms import RandomizedResponse

    res = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, trials=20_000, rng=1)
    assert (res.violation, res.epsilon, res.delta, res.confidence) == (False, 1.0, 0.0, 0.999)
    leak = vectorize(lambda data, rng: data)  # outputs its input: not DP at any epsilon
    with pytest.raises(AssertionError, match=r"^mechanism vectorize\(<lambda>\) is not \(1, 0\)-DP:\n"):
        assert_private(leak, 0, 1, epsilon=1.0, trials=2_000, rng=0)
    with pytest.raises(AssertionError, match=r"^mechanism vectorize\(<lambda>\) is not \(0.5, 1e-06\)-DP:\n"):
        assert_private(leak, 0, 1, epsilon=0.5, delta=1e-6, trials=2_000, rng=0)


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


# ---------------------------------------------------------------------------
# output normalisation and the label codec
# ---------------------------------------------------------------------------


def test_codec_codes_labels_in_first_seen_order_and_arrays_by_bytes_and_shape() -> None:
    from semiprivate.theory.audit.draws import Codec

    c = Codec()
    assert c.schema is None and c.codes == {} and c.labels == []
    out = c.encode(["b", "a", "b", "c"])
    assert out.dtype == np.int64 and out.tolist() == [0, 1, 0, 2]
    assert c.labels == ["b", "a", "c"] and c.codes == {"b": 0, "a": 1, "c": 2}
    assert c.encode(["c", "d"]).tolist() == [2, 3]
    # arrays: same bytes, different shape -> different codes; equal arrays -> one code
    a1, a2 = np.array([1, 2], dtype=np.int64), np.array([[1, 2]], dtype=np.int64)
    assert c.encode([a1, a2, np.array([1, 2], dtype=np.int64)]).tolist() == [4, 5, 4]
    assert c.encode([]).tolist() == []


def test_normalize_kinds_keys_and_discreteness() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    o = normalize(np.array([1.0, 3.0]), 2, c)
    assert (o.kind, o.discrete, o.num.tolist(), o.keys.tolist()) == ("scalar", False, [1.0, 3.0], [1.0, 3.0])
    o = normalize(np.array([[1.0], [3.0]]), 2, c)  # one column -> scalar
    assert (o.kind, o.num.tolist()) == ("scalar", [1.0, 3.0])
    o = normalize(np.array([True, False]), 2, c)
    assert (o.kind, o.discrete, o.num.dtype, o.num.tolist()) == ("scalar", True, np.int64, [1, 0])
    o = normalize([1, 2, 2], 3, c)
    assert (o.kind, o.discrete, o.num.tolist()) == ("scalar", True, [1, 2, 2])
    o = normalize(np.zeros((2, 2, 3)), 2, c)
    assert (o.kind, o.num.shape, o.keys, o.discrete) == ("vector", (2, 6), None, False)
    o = normalize(np.array([[1, 2], [3, 4], [1, 2]]), 3, c)
    assert (o.kind, o.discrete) == ("vector", True)
    assert o.keys.dtype.kind == "V" and o.keys.shape == (3,) and o.keys[0] == o.keys[2] and o.keys[0] != o.keys[1]
    assert np.frombuffer(o.keys[1].tobytes(), dtype=np.int64).tolist() == [3, 4]
    o = normalize(np.array([[1, 2], [3, 4]], dtype=np.int32), 2, c)  # int32 rows widened to int64 keys
    assert np.frombuffer(o.keys[1].tobytes(), dtype=np.int64).tolist() == [3, 4]
    # python ints beyond int64 in an object array: compared as float64
    o = normalize(np.array([2**70, 1], dtype=object), 2, c)
    assert (o.kind, o.discrete, o.num.dtype, o.num.tolist()) == ("scalar", False, np.float64, [2.0**70, 1.0])
    # an object array holding bools stays labels
    o = normalize(np.array([True, 2], dtype=object), 2, Codec())
    assert (o.kind, o.discrete, o.num, o.keys.tolist()) == ("label", True, None, [0, 1])
    c2 = Codec()
    o = normalize(np.array(["x", "y", "x"]), 3, c2)
    assert (o.kind, o.keys.tolist(), c2.labels) == ("label", [0, 1, 0], ["x", "y"])
    assert isinstance(c2.labels[0], str)  # .item(): python str, not np.str_
    o = normalize(np.array([["a", "b"], ["a", "b"]]), 2, c2)  # 2-D strings: rows by bytes
    assert o.keys.tolist() == [2, 2]
    with pytest.raises(TypeError, match=r"^unsupported output dtype complex128$"):
        normalize(np.array([3 + 1j, 1j]), 2, c2)


def test_normalize_structured_outputs_rows_then_table() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize
    from semiprivate.theory.audit.outputs import OutputSchema

    c = Codec()
    o = normalize([("a", 1), ("b", 2)], 2, c)
    assert o.kind == "label" and o.keys.tolist() == [0, 1] and o.table is None
    assert o.rows == [{(0,): "a", (1,): 1, ("#len",): 2}, {(0,): "b", (1,): 2, ("#len",): 2}]
    c.schema = OutputSchema(o.rows, ())
    arr = np.empty(2, dtype=object)
    arr[0], arr[1] = ("b", 5), ("a", 1)
    o2 = normalize(arr, 2, c)
    assert o2.rows is None and o2.table is not None and o2.table.shape[0] == 2 and o2.keys.tolist() == [2, 0]
    # a plain list of non-structured labels is no table
    o3 = normalize(["u", "v"], 2, c)
    assert o3.rows is None and o3.table is None


def test_normalize_error_messages() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    with pytest.raises(ValueError, match=r"^mechanism returned None; it must return size=3 outputs along axis 0 "
                       r"\(a one-output fn\(data, rng\) needs semiprivate\.theory\.audit\.vectorize\(fn\)\)$"):
        normalize(None, 3, c)
    with pytest.raises(ValueError, match=r"^mechanism returned 2 outputs, expected size=3 outputs along axis 0 "
                       r"\(a one-output fn\(data, rng\) needs semiprivate\.theory\.audit\.vectorize\(fn\)\)$"):
        normalize(np.array([1.0, 2.0]), 3, c)
    with pytest.raises(ValueError, match=r"^mechanism returned a single value \(1\.5\), expected size=1 outputs"):
        normalize(1.5, 1, c)
    with pytest.raises(ValueError, match=r"^mechanism returned NaN in 2 of 3 outputs: NaN belongs to no event "
                       r"\(x <= t and x > t are both false\); return finite numbers, \+-inf or labels$"):
        normalize(np.array([[NAN, 1.0], [NAN, NAN], [0.0, 1.0]]), 3, c)
    # ragged outputs become an object array of labels
    o = normalize([[1, 2], [3]], 2, c)
    assert o.kind == "label" and o.keys.tolist() == [0, 1]


# ---------------------------------------------------------------------------
# reports: Witness, PairSearch, AuditResult
# ---------------------------------------------------------------------------


def _witness(**kw: Any) -> Any:
    from semiprivate.theory.audit.events import ThresholdEvent
    from semiprivate.theory.audit.result import Witness

    args: dict[str, Any] = dict(event=ThresholdEvent(0.5, True), direction="neighbour -> data", pair_index=1, p=0.25,
                                p_interval=(0.1, 0.4), q=0.0, q_interval=(0.0, 0.05), counts=(25, 0, 100),
                                support_mismatch=True, lower_bound=0.7, data=[1, 2], neighbour=[1, 3], seed=None)
    args.update(kw)
    return Witness(**args)


def _search() -> list[Any]:
    from semiprivate.theory.audit.result import PairSearch

    return [PairSearch(0, {"thr": 10, "value": 4}, 0.5, "{x > 1}, data -> neighbour", 2, 0.6),
            PairSearch(1, {"user": 2}, NAN, "", 0, NAN)]


def _result(**kw: Any) -> Any:
    from semiprivate.theory.audit.result import AuditResult

    w = kw.pop("w", None) or _witness(seed=7, direction="data -> neighbour", support_mismatch=False)
    args: dict[str, Any] = dict(epsilon_lower_bound=0.7, violation=False, p_value=0.3, witness=w,
                                trials_used=1234567, epsilon=1.0, delta=1e-6, confidence=0.95, n_tests=4, n_pairs=2,
                                n_candidates=16, tests=[w], search=_search(), seed=7)
    args.update(kw)
    return AuditResult(**args)


def test_witness_describe_and_pair() -> None:
    w = _witness()
    assert w.pair() == ([1, 2], [1, 3])
    assert w.describe() == (
        "event E = {x > 0.5} on pair #1, direction neighbour -> data\n"
        "  data      = [1, 2]\n"
        "  neighbour = [1, 3]\n"
        "  audit rng = a Generator (pass an int rng to make the audit reproducible) (witness.pair() returns the two "
        "objects)\n"
        "  P[M(neighbour) in E] = 0.25  (25/100), interval [0.1, 0.4]\n"
        "  P[M(data) in E] = 0  (0/100), interval [0, 0.05]\n"
        "  support mismatch: E was never seen under the data (the bound grows like log(trials))")
    w2 = _witness(seed=7, direction="data -> neighbour", support_mismatch=False)
    assert w2.describe().splitlines()[3:] == [
        "  audit rng = 7 (witness.pair() returns the two objects)",
        "  P[M(data) in E] = 0.25  (25/100), interval [0.1, 0.4]",
        "  P[M(neighbour) in E] = 0  (0/100), interval [0, 0.05]"]
    assert "seed=7" in repr(w2) and "data=" not in repr(w2)


def test_short_repr_summarises_arrays_and_cuts_long_text() -> None:
    from semiprivate.theory.audit.result import short_repr

    assert short_repr(np.arange(100)) == "array([ 0  1  2  3 ... 96 97 98 99], dtype=int64, shape=(100,))"
    assert short_repr(np.arange(4)) == "array([0 1 2 3], dtype=int64, shape=(4,))"
    assert short_repr(np.arange(12).reshape(3, 4)) == (
        "array([[ 0  1  2  3] [ 4  5  6  7] [ 8  9 10 11]], dtype=int64, shape=(3, 4))")
    assert short_repr("a" * 238) == repr("a" * 238)  # 240 characters: kept
    cut = short_repr("a" * 239)
    assert len(cut) == 240 and cut == repr("a" * 239)[:235] + " ...)"
    assert short_repr("abcdefg", limit=8) == "'ab ...)" and short_repr("abcdef", limit=8) == "'abcdef'"
    assert short_repr("abcd", limit=6) == "'abcd'"

    class Bad:
        def __repr__(self) -> str:
            raise RuntimeError("boom")

    assert short_repr(Bad()) == "<Bad object>"


def test_pair_search_describe() -> None:
    a, b = _search()
    assert a.describe() == ("pair #0: 14 candidates (thr 10, value 4); best anticipated bound on the selection batch "
                            "0.5 ({x > 1}, data -> neighbour); 2 tested, best final bound 0.6")
    assert b.describe() == "pair #1: 2 candidates (user 2); 0 tested, no test (its candidates ranked below the K kept)"


def test_audit_result_report_levels_and_families() -> None:
    r = _result()
    assert r.bonferroni_level == pytest.approx(0.05 / 8, rel=1e-12)
    assert r.families == {"thr": 10, "value": 4, "user": 2}
    assert str(r) == r.report()
    assert r.report() == "\n".join([
        "claimed (epsilon, delta) = (1, 1e-06); epsilon lower bound = 0.7000 at confidence 0.95 -> no violation found",
        "p-value 0.3; 2 neighbouring pair(s), 16 candidate events (thr 10, value 4, user 2), 4 tested (Bonferroni over "
        "pairs, events, directions); 1,234,567 trials",
        r.witness.describe(),
        "why no violation: best bound 0.7 <= claim 1; the best test's p-value for the claim 0.0375 per interval vs "
        "the Bonferroni level 0.00625 = (1 - 0.95) / (2 x 4 tests)",
        "  " + r.search[0].describe(),
        "  " + r.search[1].describe()])
    bare = _result(witness=None, search=[], tests=[], violation=True, epsilon_lower_bound=2.5)
    assert bare.report() == (
        "claimed (epsilon, delta) = (1, 1e-06); epsilon lower bound = 2.5000 at confidence 0.95 -> VIOLATION\n"
        "p-value 0.3; 2 neighbouring pair(s), 16 candidate events, 4 tested (Bonferroni over pairs, events, "
        "directions); 1,234,567 trials")
    assert _result(search=_search()[1:]).families == {"user": 2}


def test_audit_result_explain_branches() -> None:
    from semiprivate.theory.audit.result import PairSearch

    v = _result(violation=True, epsilon_lower_bound=2.5)
    assert v.explain().splitlines()[0] == ("why: the witness's bound 2.5 exceeds the claim 1 at the Bonferroni level "
                                           "0.00625 per one-sided interval (K = 4 tests)")
    assert _result(tests=[], search=[]).explain() == "why: no test was run"
    never = _result(p_value=1.0, tests=[_witness(lower_bound=0.3)], search=[])
    assert never.explain() == ("why no violation: best bound 0.3 <= claim 1; no test refutes the claim at any level vs "
                               "the Bonferroni level 0.00625 = (1 - 0.95) / (2 x 4 tests)")
    # the best test is the one with the largest bound
    two = _result(p_value=1.0, tests=[_witness(lower_bound=0.3), _witness(lower_bound=0.4), _witness(lower_bound=0.1)],
                  search=[])
    assert two.explain().startswith("why no violation: best bound 0.4 <= claim 1")
    neg = [_witness(lower_bound=-0.2)]
    sel_neg = [PairSearch(0, {"thr": 2}, -0.1, "c", 1, -0.2), PairSearch(1, {"thr": 2}, NAN, "", 0, NAN)]
    e = _result(p_value=1.0, tests=neg, search=sel_neg).explain().splitlines()
    assert e[0] == ("why the bound is 0: no candidate event showed evidence on the selection batch (best anticipated "
                    "bound -0.1 <= 0); more trials, other pairs or events (events=..., categorical=..., "
                    "float_bits=True) may find one")
    assert e[1].startswith("why no violation: best bound 0 <= claim 1; ")
    sel_zero = [PairSearch(0, {"thr": 2}, 0.0, "c", 1, -0.2)]
    assert _result(p_value=1.0, tests=neg, search=sel_zero).explain().startswith(
        "why the bound is 0: no candidate event showed evidence on the selection batch (best anticipated bound 0 <= 0)")
    sel_pos = [PairSearch(0, {"thr": 2}, 0.3, "c", 1, -0.2), PairSearch(1, {"thr": 2}, -0.5, "d", 0, NAN)]
    assert _result(p_value=1.0, tests=neg, search=sel_pos).explain().splitlines()[0] == (
        "why the bound is 0: the best tested event gave -0.2 <= 0 on the estimation batch (selection anticipated up "
        "to 0.3)")
    no_sel = [PairSearch(0, {"user": 2}, NAN, "", 1, -0.2)]
    assert _result(p_value=1.0, tests=neg, search=no_sel).explain().splitlines()[0] == (
        "why the bound is 0: the best tested event gave -0.2 <= 0 on the estimation batch")
    zero = [_witness(lower_bound=0.0)]
    assert _result(p_value=1.0, tests=zero, search=no_sel).explain().splitlines()[0] == (
        "why the bound is 0: the best tested event gave 0 <= 0 on the estimation batch")


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


def test_threshold_candidates_quantiles_extremes_and_counts() -> None:
    from semiprivate.theory.audit.candidates import threshold_candidates

    t, cx, cy = threshold_candidates(np.array([3.0, 1.0, 2.0]), np.array([2.0, 5.0]), 3)
    below1, below2 = np.nextafter(1.0, -np.inf), np.nextafter(2.0, -np.inf)
    assert t.tolist() == [below1, 1.0, below2, 2.0, 3.0, 5.0]
    assert cx.tolist() == [3.0, 2.0, 2.0, 1.0, 0.0, 0.0] and cy.tolist() == [2.0, 2.0, 2.0, 1.0, 1.0, 0.0]
    assert cx.dtype == np.float64 and cy.dtype == np.float64
    # quantiles of the pooled sample at n_thresholds points (0, 0.25, ..., 1)
    t, _, _ = threshold_candidates(np.arange(0.0, 9.0), np.arange(0.0, 9.0), 5)
    assert t.tolist() == [np.nextafter(0.0, -np.inf), 0.0, 2.0, 4.0, 6.0, 8.0]
    # infinite outputs: no infinite threshold
    with np.errstate(invalid="ignore", over="ignore"):  # as audit_pairs calls it
        t, cx, cy = threshold_candidates(np.array([-np.inf, 0.0]), np.array([0.0, np.inf]), 2)
    assert t.tolist() == [np.nextafter(0.0, -np.inf), 0.0] and cx.tolist() == [1.0, 0.0] and cy.tolist() == [2.0, 1.0]


def test_has_repeats() -> None:
    from semiprivate.theory.audit.candidates import has_repeats

    assert has_repeats(None) is False
    assert has_repeats(np.array([[1.0, 1.0]])) is False
    assert has_repeats(np.array([3.0, 1.0, 2.0])) is False
    assert has_repeats(np.array([3.0, 1.0, 3.0])) is True
    assert has_repeats(np.array([1.0])) is False


def test_check_pairs_and_arity_messages() -> None:
    from semiprivate.theory.audit.core import _check_arity, _check_pairs

    assert _check_pairs([(1, 2), [3, 4], np.array([5, 6])], "pairs") == [(1, 2), (3, 4), (5, 6)]
    assert _check_pairs(iter([(1, 2)]), "pairs") == [(1, 2)]
    with pytest.raises(TypeError, match=r"^pairs must be a list of \(data, neighbour\) pairs, got str$"):
        _check_pairs("ab", "pairs")
    with pytest.raises(TypeError, match=r"^extra_pairs must be a list of \(data, neighbour\) pairs, got bytes$"):
        _check_pairs(b"ab", "extra_pairs")
    with pytest.raises(TypeError, match=r"^extra_pairs must be a list of \(data, neighbour\) pairs, got int$"):
        _check_pairs(3, "extra_pairs")
    with pytest.raises(ValueError, match=r"^pairs\[1\] must be a \(data, neighbour\) pair, got \(1, 2, 3\)$"):
        _check_pairs([(1, 2), (1, 2, 3)], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got 'ab'$"):
        _check_pairs(["ab"], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got b'ab'$"):
        _check_pairs([b"ab"], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got 5$"):
        _check_pairs([5], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got \(0, 1, 2, 3, 4, "):
        _check_pairs([tuple(range(100))], "pairs")

    def f(d: Any, r: Any) -> None:
        return None

    with pytest.raises(TypeError, match=r"^mechanism must be callable as mechanism\(data, size, rng\) returning size "
                       r"outputs; f\(d: 'Any', r: 'Any'\) -> 'None' is not\. For a one-output fn\(data, rng\), audit "
                       r"semiprivate\.theory\.audit\.vectorize\(fn\)$"):
        _check_arity(f)

    class Obj:
        def __call__(self, d: Any) -> None:
            return None

    with pytest.raises(TypeError, match=r"; Obj\(d: 'Any'\) -> 'None' is not\."):
        _check_arity(Obj())
    _check_arity(lambda d, s, r: None)
    _check_arity(lambda d, s, r=None, *a: None)
    _check_arity(print)  # a builtin: accepted as it is


def test_seed_of() -> None:
    from semiprivate.theory.audit.core import _seed_of

    assert _seed_of(5) == 5 and type(_seed_of(np.int32(5))) is int
    assert _seed_of(True) is None and _seed_of(np.bool_(True)) is None
    assert _seed_of(None) is None and _seed_of(np.random.default_rng(1)) is None
    assert _seed_of(np.random.SeedSequence(1234)) == 1234


def test_dataset_key_by_content() -> None:
    from semiprivate.theory.audit.core import _dataset_key

    a = np.array([1, 2, 3])
    assert _dataset_key(a) == ("ndarray", a.dtype.str, (3,), a.tobytes())
    assert _dataset_key(a) == _dataset_key(np.array([1, 2, 3]))
    assert _dataset_key(a) != _dataset_key(a.astype(np.int32)) and _dataset_key(a) != _dataset_key(a.reshape(3, 1))
    f = np.asfortranarray(np.arange(6).reshape(2, 3))
    assert _dataset_key(f)[3] == np.ascontiguousarray(f).tobytes()
    assert _dataset_key(np.array([True, False]))[0] == "ndarray"
    assert _dataset_key(np.array(["a"]))[0] == "ndarray"
    obj = np.array([1, "a"], dtype=object)
    assert _dataset_key(obj)[0] == "pickle"
    import hashlib
    import pickle

    assert _dataset_key([1, 2]) == ("pickle", "list", hashlib.sha256(pickle.dumps([1, 2], protocol=4)).hexdigest())
    assert _dataset_key([1, 2]) == _dataset_key([1, 2]) and _dataset_key([1, 2]) != _dataset_key((1, 2))
    fn = lambda: 0  # noqa: E731 (unpicklable)
    assert _dataset_key(fn) == ("id", id(fn))


def test_p_value_is_the_crossing_level() -> None:
    from semiprivate.theory.audit.core import _bounds_at, _p_value

    kn, ko, n = np.array([500.0]), np.array([100.0]), 1000
    assert _bounds_at(kn, ko, n, 0.025, 0.0)[0] == pytest.approx(1.35975271, abs=1e-7)
    for k, eps in ((1, 1.0), (1, 1.5), (3, 1.0), (2, 0.1)):
        p = _p_value(kn, ko, n, k, eps, 0.0)
        assert 0.0 < p < 1.0
        assert _bounds_at(kn, ko, n, p * (1 + 1e-9) / (2 * k), 0.0)[0] > eps
        assert _bounds_at(kn, ko, n, p * (1 - 1e-9) / (2 * k), 0.0)[0] <= eps
    # the bisection's end point (60 halvings of [-690, 0] in log alpha), exactly
    assert [_p_value(kn, ko, n, k, eps, 0.0) for k, eps in ((1, 1.0), (1, 1.5), (3, 1.0), (2, 0.1))] == [
        5.476183699340013e-07, 0.4142345301076848, 1.642855109802003e-06, 5.016804968784485e-40]
    assert _p_value(kn, ko, n, 1, 1.0, 0.1) == 0.003941033308764472
    assert _p_value(np.array([300.0]), np.array([89.0]), n, 1, 1.0, 0.0) == 0.1608543051568405  # 60 halvings
    assert _p_value(kn, ko, n, 1, 2.0, 0.0) == 1.0
    # delta lowers the bound: a larger p-value
    assert _p_value(kn, ko, n, 1, 1.0, 0.1) > _p_value(kn, ko, n, 1, 1.0, 0.0)
    # evidence beyond e^-690: the floor of the search
    assert _p_value(np.array([100000.0]), np.array([0.0]), 100000, 1, 0.1, 0.0) == math.exp(-690.0)
    # the largest bound decides
    two = _p_value(np.array([500.0, 10.0]), np.array([100.0, 10.0]), n, 2, 1.0, 0.0)
    assert two == _p_value(np.array([10.0, 500.0]), np.array([10.0, 100.0]), n, 2, 1.0, 0.0)
    assert two == pytest.approx(_p_value(kn, ko, n, 2, 1.0, 0.0), rel=1e-12)


def _counting_mech(width: int, calls: list[int]) -> Any:
    def mech(data: Any, size: int, rng: Any) -> np.ndarray:
        calls.append(size)
        v = rng.integers(0, 4, size=size) + data
        return v if width == 1 else np.repeat(v[:, None], width, axis=1).astype(np.float64)

    return mech


def test_count_probes_then_chunks_by_width() -> None:
    from semiprivate.theory.audit.core import _count
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent

    calls: list[int] = []
    evs = [ThresholdEvent(1.5, True), ThresholdEvent(0.5, False)]
    cnt = _count(_counting_mech(1, calls), 0, evs, 5000, np.random.default_rng(3), Codec())
    assert calls == [1024, 3976] and cnt.dtype == np.int64
    g = np.random.default_rng(3)
    ref = np.concatenate([g.integers(0, 4, size=1024), g.integers(0, 4, size=3976)])
    assert cnt.tolist() == [int(np.sum(ref > 1.5)), int(np.sum(ref <= 0.5))]
    calls.clear()
    _count(_counting_mech(1, calls), 0, evs, 1000, np.random.default_rng(3), Codec())
    assert calls == [1000]
    calls.clear()
    # wide vectors: chunks of 2^21 / width elements, at least 1024 rows
    cnt = _count(_counting_mech(1024, calls), 0, [ThresholdEvent(1.5, True, 0)], 5000, np.random.default_rng(3),
                 Codec())
    assert calls == [1024, 2048, 1928]
    g = np.random.default_rng(3)
    ref = np.concatenate([g.integers(0, 4, size=m) for m in (1024, 2048, 1928)])
    assert cnt.tolist() == [int(np.sum(ref > 1.5))]
    calls.clear()
    _count(_counting_mech(4096, calls), 0, [ThresholdEvent(1.5, True, 0)], 3000, np.random.default_rng(3), Codec())
    assert calls == [1024, 1024, 952]
    # labels: the probe's length counts as done
    calls2: list[int] = []

    def lab(data: Any, size: int, rng: Any) -> np.ndarray:
        calls2.append(size)
        return np.array(["a", "b"] * (size // 2) + ["a"] * (size % 2))

    from semiprivate.theory.audit.events import ValueSetEvent

    c = Codec()
    c.encode(["a", "b"])
    assert _count(lab, 0, [ValueSetEvent(np.array([0]), "a")], 3001, np.random.default_rng(0), c).tolist() == [1501]
    assert calls2 == [1024, 1977]


def test_count_refuses_outputs_that_change_form() -> None:
    from semiprivate.theory.audit.core import _count
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent

    def mech(data: Any, size: int, rng: Any) -> Any:
        return np.zeros(size) if size == 1024 else np.zeros((size, 2))

    with pytest.raises(ValueError, match=r"^the mechanism's outputs changed form between batches \(\('scalar', \(\)\) "
                       r"-> vector\); return one consistent type \(numbers, fixed-length vectors or labels\)$"):
        _count(mech, 0, [ThresholdEvent(0.0, True)], 2000, np.random.default_rng(0), Codec())

    def mech2(data: Any, size: int, rng: Any) -> Any:
        return np.zeros((size, 2)) if size == 1024 else np.zeros((size, 3))

    with pytest.raises(ValueError, match=r"changed form between batches \(\('vector', \(2,\)\) -> vector\)"):
        _count(mech2, 0, [], 2000, np.random.default_rng(0), Codec())


def test_count_batch_is_count_on_the_seed_stream() -> None:
    from semiprivate.theory.audit.core import _count, _count_batch
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent, ValueSetEvent

    evs = [ThresholdEvent(1.5, True), ThresholdEvent(0.5, False)]
    calls: list[int] = []
    got = _count_batch(_counting_mech(1, calls), 0, evs, 3000, np.random.SeedSequence(11), Codec())
    want = _count(_counting_mech(1, []), 0, evs, 3000, np.random.default_rng(np.random.SeedSequence(11)), Codec())
    assert got.tolist() == want.tolist() and calls == [1024, 1976]
    g = np.random.default_rng(np.random.SeedSequence(11))
    ref = np.concatenate([g.integers(0, 4, size=1024), g.integers(0, 4, size=1976)])
    assert got.tolist() == [int(np.sum(ref > 1.5)), int(np.sum(ref <= 0.5))]
    assert got.tolist() != _count_batch(_counting_mech(1, []), 0, evs, 3000, np.random.SeedSequence(12),
                                        Codec()).tolist()
    # label outputs are coded with the codec passed (as it was after selection)
    codec = Codec()
    codec.encode(["b", "a"])

    def lab(data: Any, size: int, rng: Any) -> np.ndarray:
        return np.array(["a", "b", "c"])[rng.integers(0, 3, size=size)]

    got = _count_batch(lab, 0, [ValueSetEvent(np.array([1]), "a")], 2000, np.random.SeedSequence(3), codec)
    g = np.random.default_rng(np.random.SeedSequence(3))
    ref = np.concatenate([g.integers(0, 3, size=1024), g.integers(0, 3, size=976)])
    assert got.tolist() == [int(np.sum(ref == 0))] and codec.labels == ["b", "a", "c"]


def test_vectorize_keeps_dicts_and_names_callable_objects() -> None:
    from semiprivate.theory.audit.core import vectorize

    d = vectorize(lambda data, rng: {"a": data})(1, 2, 0)
    assert d.dtype == object and d.tolist() == [{"a": 1}, {"a": 1}]
    one = vectorize(lambda data, rng: {"a": data})(7, 1, 0)
    assert one.shape == (1,) and one[0] == {"a": 7}

    class Fn:
        def __call__(self, data: Any, rng: Any) -> float:
            return 1.0

        def __repr__(self) -> str:
            return "Fn()"

    f = Fn()
    m = vectorize(f)
    assert m.__name__ == "vectorize(Fn())" and m.__wrapped__ is f
    assert m(None, 2, 0).tolist() == [1.0, 1.0]


def test_assert_private_passes_delta_and_options_and_names_objects() -> None:
    from semiprivate.theory.audit.core import assert_private
    from semiprivate.theory.privacy.mechanisms import RandomizedResponse

    res = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, delta=1e-3, trials=20_000, selection_trials=5_000,
                         rng=1)
    assert (res.delta, res.epsilon, res.trials_used, res.seed) == (1e-3, 1.0, 50_000, 1)

    class Leak:
        def __call__(self, data: Any, size: int, rng: Any) -> np.ndarray:
            return np.full(size, data)

        def __repr__(self) -> str:
            return "Leak()"

    with pytest.raises(AssertionError, match=r"^mechanism Leak\(\) is not \(1, 0\)-DP:\nclaimed \(epsilon, delta\)"):
        assert_private(Leak(), 0, 1, epsilon=1.0, trials=2_000, rng=0)


# ---------------------------------------------------------------------------
# event search (search_pair): what each family builds, scores and keeps, pinned on fixed samples
# ---------------------------------------------------------------------------


def _fingerprint(cands: list[Any], ox: Any, oy: Any) -> list[tuple[Any, ...]]:
    """Every kept candidate in the order kept: score, pair, event text, direction, group and the event's counts on
    both samples.  The digests below take the scores only through their sum (:func:`_digest`): a score's last
    digits differ between CPUs (vectorised log/exp and the Beta quantile's iterations differ between AVX2 and
    AVX-512 builds; a 9-digit score printed differently on the two), while the order they induce (scores here
    differ by >= 1e-6 relative or tie exactly), the counts and a 6-digit sum do not."""
    return [(float(c.score), c.pair, c.event.description, c.forward, c.group, int(np.sum(c.event.indicator(ox))),
             int(np.sum(c.event.indicator(oy)))) for c in cands]


def _run_select(rx: Any, ry: Any, s: int, *, pair: int = 0, cat: tuple[Any, ...] = (), fb: bool = False,
                nthr: int = 8, maxv: int = 2048, n: int = 10_000, a: float = 0.01, delta: float = 0.0,
                schema: bool = False) -> tuple[dict[str, int], list[tuple[Any, ...]]]:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize
    from semiprivate.theory.audit.outputs import OutputSchema

    c = Codec()
    ox, oy = normalize(rx, s, c), normalize(ry, s, c)
    if schema:
        c.schema = OutputSchema([r for o in (ox, oy) for r in o.rows], cat)
        for o in (ox, oy):
            o.table, o.rows = c.schema.table(o.rows, c.encode), None
    with np.errstate(invalid="ignore", over="ignore"):
        cands, fams = search_pair(pair, ox, oy, s, n, a, delta, nthr, maxv, c, cat, fb)
    return fams, _fingerprint(cands, ox, oy)


def _digest(rows: list[tuple[Any, ...]]) -> str:
    import hashlib

    # the scores enter as their finite sum to 6 significant digits, checked to sit >= 1e-9 relative from a
    # rounding boundary of that format (CPU differences in the scores are far below that)
    total = math.fsum(r[0] for r in rows if math.isfinite(r[0]))
    if total != 0.0:
        m = abs(total) / 10.0 ** (math.floor(math.log10(abs(total))) - 5)
        assert abs(m - math.floor(m) - 0.5) > 1e-9 * m, f"score sum {total!r} sits on a 6-digit rounding boundary"
    key = repr([r[1:] for r in rows]) + f"|{total:.6g}|{sum(1 for r in rows if not math.isfinite(r[0]))}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def test_select_small_integer_scalar_exactly() -> None:
    fams, rows = _run_select(np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 3]), np.array([0, 0, 0, 1, 1, 1, 2, 2, 3, 3]), 10,
                             nthr=4, n=1000)
    assert fams == {"thr": 20, "value": 8, "valueset": 6}
    tiny = f"x > {np.nextafter(0.0, -1.0):.6g}"
    assert [r[1:] for r in rows] == [
        (0, tiny, True, (0, "thr", True), 10, 10), (0, "x <= 3", True, (0, "thr", True), 10, 10),
        (0, "x <= 2", True, (0, "thr", True), 9, 8), (0, "x > 0", True, (0, "thr", True), 8, 7),
        (0, "x > 1", True, (0, "thr", True), 5, 4), (0, "x <= 1", True, (0, "thr", True), 5, 6),
        (0, "x <= 0", True, (0, "thr", True), 2, 3), (0, "x > 2", True, (0, "thr", True), 1, 2),
        (0, tiny, False, (0, "thr", False), 10, 10), (0, "x <= 3", False, (0, "thr", False), 10, 10),
        (0, "x <= 2", False, (0, "thr", False), 9, 8), (0, "x <= 1", False, (0, "thr", False), 5, 6),
        (0, "x > 0", False, (0, "thr", False), 8, 7), (0, "x <= 0", False, (0, "thr", False), 2, 3),
        (0, "x > 1", False, (0, "thr", False), 5, 4), (0, "x > 2", False, (0, "thr", False), 1, 2),
        (0, "x == 2", True, (0, "value", True), 4, 2), (0, "x == 1", True, (0, "value", True), 3, 3),
        (0, "x == 0", True, (0, "value", True), 2, 3), (0, "x == 3", True, (0, "value", True), 1, 2),
        (0, "x == 0", False, (0, "value", False), 2, 3), (0, "x == 1", False, (0, "value", False), 3, 3),
        (0, "x == 3", False, (0, "value", False), 1, 2), (0, "x == 2", False, (0, "value", False), 4, 2),
        (0, "x in {2, 1, 0, 3} (4 values)", True, (0, "valueset", True), 10, 10),
        (0, "x in {2, 1, 0} (3 values)", True, (0, "valueset", True), 9, 8),
        (0, "x in {2, 1} (2 values)", True, (0, "valueset", True), 7, 5),
        (0, "x in {3, 0, 1, 2} (4 values)", False, (0, "valueset", False), 10, 10),
        (0, "x in {3, 0, 1} (3 values)", False, (0, "valueset", False), 6, 8),
        (0, "x in {3, 0} (2 values)", False, (0, "valueset", False), 3, 5)]
    assert [r[0] for r in rows[:4]] == pytest.approx([-0.219060038, -0.219060038, -0.341577994, -0.457560664], rel=1e-8)
    assert _digest(rows) == "9aadaeb099cbd8dd"


def _tuples(g: np.random.Generator, s: int, m: float, k: int) -> np.ndarray:
    arr = np.empty(s, dtype=object)
    for i in range(s):
        arr[i] = (str(g.choice(["u", "v"])), float(np.round(g.normal(m, 1), 2)), int(g.integers(0, k)))
    return arr


def _case(name: str, s: int = 400) -> tuple[dict[str, int], list[tuple[Any, ...]]]:
    g = np.random.default_rng(sum(map(ord, name)))
    if name == "float_bits":
        return _run_select(np.round(g.laplace(0, 1, s), 1), np.round(g.laplace(1, 1, s), 1), s, fb=True)
    if name == "vector":
        return _run_select(g.normal(0, 1, (s, 3)), g.normal([0.5, 0, 0], 1, (s, 3)), s, pair=1)
    if name == "coded":
        return _run_select(np.c_[g.normal(0, 1, s), g.choice([-1.0, 0.0, 1.0], s)],
                           np.c_[g.normal(0.3, 1, s), g.choice([-1.0, 0.0, 1.0], s, p=[.5, .3, .2])], s)
    if name == "intvec":
        return _run_select(g.integers(0, 3, (s, 2)), np.c_[g.integers(0, 3, s), g.integers(1, 4, s)], s)
    if name == "labels":
        return _run_select(np.array(g.choice(["a", "b", "c"], s)),
                           np.array(g.choice(["a", "b", "d"], s, p=[.5, .3, .2])), s, maxv=2)
    if name == "structured":
        return _run_select(_tuples(g, s, 0, 3), _tuples(g, s, 0.5, 4), s, schema=True)
    if name == "declared":
        return _run_select(np.c_[g.normal(0, 1, s), g.integers(0, 5, s)],
                           np.c_[g.normal(0.2, 1, s), g.integers(0, 5, s)], s, cat=(1,))
    assert name == "wide"
    return _run_select(g.normal(0, 1, (s, 18)), g.normal(0, 1, (s, 18)) + np.r_[np.zeros(17), 1.0], s, nthr=4)


SELECT_CASES: dict[str, tuple[dict[str, int], int, str]] = {  # families built, candidates kept, digest
    "labels": ({"value": 4, "valueset": 2}, 6, "a1ee8efb6d3c7880"),
    "float_bits": ({"thr": 48, "bits": 276, "value": 118, "valueset": 116}, 112, "b56a4f9fd6e52a55"),  # "x == 0.0", not -0.0
    "vector": ({"fisher": 48, "meandiff": 48, "logistic": 48, "sign": 36, "coord0": 48, "coord1": 48, "coord2": 48}, 112, "51089a932179ebbe"),
    "coded": ({"fisher": 48, "meandiff": 48, "logistic": 48, "sign": 20, "coord0": 48, "coord1": 16, "cat": 10, "joint": 144, "pattern": 6, "patternset": 4}, 132, "ff76eeab8741c7b6"),
    "intvec": ({"fisher": 48, "meandiff": 48, "logistic": 48, "coord0": 16, "coord1": 24, "cat": 24, "joint": 104, "value": 24, "valueset": 22}, 152, "5ccab2b58daa48d0"),
    "structured": ({"col": 76, "cat": 20, "joint": 316, "value": 30, "valueset": 28}, 108, "62c482bcca928301"),
    "declared": ({"fisher": 48, "meandiff": 48, "logistic": 48, "sign": 20, "coord0": 48, "cat": 18, "joint": 240, "pattern": 10, "patternset": 8}, 132, "e1f0ac1a602297dd"),
    "wide": ({"fisher": 32, "meandiff": 32, "logistic": 32, "sign": 32, "coord17": 32, "coord5": 32, "coord4": 32, "coord13": 32, "coord1": 32, "coord9": 32, "coord8": 32, "coord12": 32, "coord16": 32, "coord6": 32, "coord7": 32, "coord11": 32, "coord15": 32, "coord10": 32, "coord2": 32, "coord14": 32}, 320, "b6e21b5b7dac8721"),
}


@pytest.mark.parametrize("name", ["labels", "float_bits", "vector", "coded", "intvec", "structured", "declared",
                                  "wide"])
def test_select_families_pinned_on_fixed_samples(name: str) -> None:
    fams, rows = _case(name)
    want = SELECT_CASES[name]
    assert (fams, len(rows)) == want[:2]
    assert list(fams) == list(want[0])  # families in the order they were built
    assert _digest(rows) == want[2], rows[:12]


def test_select_delta_pair_and_continuous_outputs() -> None:
    g = np.random.default_rng(5)
    fams, rows = _run_select(np.round(g.laplace(0, 1, 300), 1), np.round(g.laplace(1, 1, 300), 1), 300, delta=0.01,
                             pair=2, n=5000, a=0.001)
    assert (fams, len(rows), _digest(rows)) == ({"thr": 48, "value": 102, "valueset": 100}, 48, "e7e848076aa6056e")
    assert {r[1] for r in rows} == {2}
    fams, rows = _run_select(g.normal(0, 1, 300), g.normal(1, 1, 300), 300, nthr=16)  # no repeats: thresholds only
    assert (fams, len(rows), _digest(rows)) == ({"thr": 80}, 16, "dae8c86c60cbea15")


def test_select_value_labels_read_negative_zero_as_zero() -> None:
    """-0.0 and 0.0 are one value, labelled "0.0": np.unique keeps whichever of the two equal zeros
    its sort puts first, and that order differed between NumPy's AVX-512 and AVX2 sorts (the digest
    of test_select_delta_pair_and_continuous_outputs differed between machines).  Here x has only
    -0.0, so without the canonical zero the label would be "x == -0.0" on every machine."""
    rx = np.array([-0.0] * 6 + [1.0] * 4)
    ry = np.array([0.0] * 2 + [-0.0] * 2 + [1.0] * 6)
    for a, b in ((rx, ry), (rx[::-1].copy(), ry[::-1].copy()), (ry, rx)):
        fams, rows = _run_select(a, b, 10, nthr=4, n=1000)
        descs = [r[2] for r in rows]
        assert "x == 0.0" in descs and not any("-0" in d for d in descs), descs
        want = {int((a == 0).sum()), int((b == 0).sum())}  # both zeros counted as one value
        assert all({r[5], r[6]} == want for r in rows if r[2] == "x == 0.0")


def test_select_refuses_outputs_of_different_forms() -> None:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    msg = (r"^outputs under the two datasets have different shapes/kinds; return labels \(e\.g\. tuples\) if the output "
           r"space itself differs$")
    for rx, ry in ((np.zeros(10), np.zeros((10, 2))), (np.zeros((10, 2)), np.zeros((10, 3))),
                   (np.zeros(10), np.array(["a"] * 10))):
        with pytest.raises(ValueError, match=msg):
            search_pair(0, normalize(rx, 10, c), normalize(ry, 10, c), 10, 100, 0.01, 0.0, 4, 16, c)


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


def test_normalize_single_value_text_is_cut_and_tuples_of_outputs_are_structured() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    with pytest.raises(ValueError, match=r"^mechanism returned a single value \('x{39}\), expected size=1 outputs"):
        normalize("x" * 100, 1, c)
    o = normalize((("a", 1), ("b", 2)), 2, c)
    assert o.kind == "label" and o.rows == [{(0,): "a", (1,): 1, ("#len",): 2}, {(0,): "b", (1,): 2, ("#len",): 2}]
    # a 2-D object array is rows of labels, not structured outputs
    o = normalize(np.array([[1, "a"], [2, "b"]], dtype=object), 2, c)
    assert (o.kind, o.rows, o.table, o.keys.tolist()) == ("label", None, None, [2, 3])
    o = normalize([], 0, c)
    assert (o.kind, o.num.tolist(), o.rows) == ("scalar", [], None)


def test_short_repr_array_summary_threshold_and_line_width() -> None:
    from semiprivate.theory.audit.result import short_repr

    assert short_repr(np.arange(32) * 1000, limit=10_000) == (  # 32 items: all shown, on one line
        "array([    0  1000  2000  3000  4000  5000  6000  7000  8000  9000 10000 11000 12000 13000 14000 15000 16000 "
        "17000 18000 19000 20000 21000 22000 23000 24000 25000 26000 27000 28000 29000 30000 31000], dtype=int64, "
        "shape=(32,))")
    assert short_repr(np.arange(33) * 1000, limit=10_000) == (
        "array([    0  1000  2000  3000 ... 29000 30000 31000 32000], dtype=int64, shape=(33,))")
    # rows longer than the line width are wrapped (an extra space where the newline was): 10,000 characters
    assert short_repr(np.arange(32).reshape(2, 16) * 1000, limit=10_000) == (
        "array([[    0  1000  2000  3000  4000  5000  6000  7000  8000  9000 10000 11000 12000 13000 14000 15000] "
        "[16000 17000 18000 19000 20000 21000 22000 23000 24000 25000 26000 27000 28000 29000 30000 31000]], "
        "dtype=int64, shape=(2, 16))")
    x = np.array([["a" * 4996, "b" * 4996]])  # a row of 10,001 characters
    assert short_repr(x, limit=20_000) == f"array([['{'a' * 4996}'  '{'b' * 4996}']], dtype=<U4996, shape=(1, 2))"
    y = np.array([["a" * 4995, "b" * 4995]])
    assert short_repr(y, limit=20_000) == f"array([['{'a' * 4995}' '{'b' * 4995}']], dtype=<U4995, shape=(1, 2))"


def test_user_event_indicator_is_boolean() -> None:
    from semiprivate.theory.audit.events import UserEvent

    o = Outputs(raw=[0, 1, 2], kind="label", num=None, keys=None, discrete=True)
    ind = UserEvent(lambda raw: [0, 2, 0.5]).indicator(o)
    assert ind.dtype == bool and ind.tolist() == [False, True, True]


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


def test_count_scalar_chunks_are_two_million_outputs() -> None:
    from semiprivate.theory.audit.core import _count
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent

    calls: list[int] = []
    n = (1 << 20) + 4096
    cnt = _count(_counting_mech(1, calls), 0, [ThresholdEvent(1.5, True)], n, np.random.default_rng(1), Codec())
    assert calls == [1024, n - 1024]
    g = np.random.default_rng(1)
    ref = np.concatenate([g.integers(0, 4, size=1024), g.integers(0, 4, size=n - 1024)])
    assert cnt.tolist() == [int(np.sum(ref > 1.5))]


def test_normalize_ragged_arrays_and_a_single_structured_output() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    o = normalize([np.zeros(2), np.ones(3)], 2, c)  # np.asarray refuses: an object array of the arrays
    assert (o.kind, o.keys.tolist(), len(c.labels)) == ("label", [0, 1], 2)
    assert c.labels[1].tolist() == [1.0, 1.0, 1.0]
    assert normalize([np.ones(3), np.zeros(2), np.ones(3)], 3, c).keys.tolist() == [1, 0, 1]
    o = normalize([("a", 1)], 1, Codec())
    assert o.rows == [{(0,): "a", (1,): 1, ("#len",): 2}]


def test_normalize_keeps_the_raw_outputs() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    for raw in (np.array(["a", "b"]), np.array([1.0, 2.0]), np.array([[1, 2], [3, 4]]), [("a", 1), ("b", 2)]):
        assert normalize(raw, 2, c).raw is raw


def test_select_defaults_build_no_bit_events() -> None:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    ox = normalize(np.array([0.5, 1.5, 1.5, 2.5]), 4, c)
    oy = normalize(np.array([1.5, 2.5, 2.5, 3.5]), 4, c)
    _, fams = search_pair(0, ox, oy, 4, 100, 0.01, 0.0, 4, 16, c)
    assert "bits" not in fams and set(fams) == {"thr", "value", "valueset"}


def test_select_value_sets_of_many_categories() -> None:
    # 600 categories seen 3 times each (the last only under the first dataset): value sets capped at 512 per direction
    g = np.random.default_rng(7)
    s = 1800
    cx, cy = np.repeat(np.arange(600.0), 3), np.r_[np.repeat(np.arange(599.0), 3), [0.0, 1.0, 2.0]]
    fams, rows = _run_select(np.c_[g.normal(0, 1, s), cx], np.c_[g.normal(0, 1, s), cy], s, cat=(1,), nthr=4)
    assert fams == {"fisher": 32, "meandiff": 32, "logistic": 32, "sign": 20, "coord0": 32, "cat": 2 * 600 + 2 * 512,
                    "joint": 248}
    assert (len(rows), _digest(rows)) == (128, "ef7d8812162466eb")
    # 40 categories with tied counts (4 and 3): the stable order decides which are kept and how they are named
    cat = np.concatenate([np.repeat(np.arange(0, 40, 2.0), 4), np.repeat(np.arange(1, 40, 2.0), 3)])
    s = cat.size
    gx, gy = g.permutation(cat), g.permutation(cat)
    fams, rows = _run_select(np.c_[g.normal(0, 1, s), gx], np.c_[g.normal(0, 1, s), gy], s, cat=(1,), nthr=4)
    assert (fams["cat"], len(rows), _digest(rows)) == (158, 124, "c152a3c9d02e7c52")


def _objects(items: list[Any]) -> np.ndarray:
    a = np.empty(len(items), dtype=object)
    for i, v in enumerate(items):
        a[i] = v
    return a


def test_select_structured_numeric_leaf_seen_on_one_side_or_once() -> None:
    # the leaf x[1] only under the first dataset: no threshold events on it (only on the length)
    x = _objects([("u", 1.5, 0.5)] + [("u",)] * 5 + [("v",)] * 4)
    y = _objects([("u",)] * 6 + [("v",)] * 4)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert (fams, len(rows), _digest(rows)) == (
        {"col": 12, "cat": 8, "joint": 20, "value": 4, "valueset": 2}, 42, "4b02cd2c46d4c621")
    # seen once under the first dataset and twice under the other: thresholds on it
    x = _objects([("u", 1.5)] + [("u",)] * 5 + [("v",)] * 4)
    y = _objects([("u", 2.5)] * 2 + [("u",)] * 4 + [("v",)] * 4)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert fams["col"] > 12 and any("x[1]" in r[2] for r in rows), (fams, rows)


def test_select_vector_degenerate_directions() -> None:
    g = np.random.default_rng(3)
    x = g.normal(0, 1, (50, 2))
    fams, _ = _run_select(x, x.copy(), 50, nthr=4)  # equal means: no mean-difference direction
    assert "meandiff" not in fams and "coord0" in fams
    # constant outputs 0 and 1: a zero covariance, the ridge alone (positive) gives the Fisher direction +diff
    fams, rows = _run_select(np.zeros((20, 2)), np.ones((20, 2)), 20, nthr=4)
    fisher = [r[2] for r in rows if r[4][1] == "fisher"]
    assert fisher and all(d.startswith("<fisher direction, x> ") for d in fisher)
    assert "<fisher direction, x> > -1.41421" in fisher or "<fisher direction, x> <= -1.41421" in fisher


def test_select_structured_numeric_leaf_seen_once_under_the_neighbour() -> None:
    x = _objects([("u", 1.5)] * 2 + [("u",)] * 4 + [("v",)] * 4)
    y = _objects([("u", 2.5)] + [("u",)] * 5 + [("v",)] * 4)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert fams["col"] > 12 and any("x[1]" in r[2] for r in rows)


# ---------------------------------------------------------------------------
# vector outputs: learned scores, the Fisher direction, declared and ranked coordinates, row patterns
# ---------------------------------------------------------------------------


def _select_vector(x: np.ndarray, y: np.ndarray, *, pair: int = 0, mlp: bool = False,
                   nthr: int = 4) -> tuple[list[Any], dict[str, int]]:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    s = x.shape[0]
    with np.errstate(invalid="ignore", over="ignore"):
        return search_pair(pair, normalize(x, s, c), normalize(y, s, c), s, 10_000, 0.01, 0.0, nthr, 2048, c, (), False,
                       mlp)


def test_select_mlp_score_family_is_the_pairs_seeded_network() -> None:
    # mlp=True adds one projection family, "mlp": thresholds of the logit of the network fitted on the
    # selection batch with the generator default_rng(pair), so the search is reproducible
    from semiprivate.theory.audit.selection import MLPScore, mlp_score

    g = np.random.default_rng(11)
    x, y = g.normal(0, 1, (300, 2)), g.normal(0, 1, (300, 2)) + [0.5, 0.0]  # 600 rows: over one 512-row batch
    cands, fams = _select_vector(x, y, pair=3, mlp=True)
    assert list(fams)[:4] == ["fisher", "meandiff", "logistic", "mlp"] and fams["mlp"] == fams["logistic"] > 0
    mine = [c for c in cands if c.group[1] == "mlp"]
    assert len(mine) == 16 and all(c.event.description.startswith("<mlp score, x> ") for c in mine)
    net = mine[0].event.projection
    assert isinstance(net, MLPScore) and all(c.event.projection is net for c in mine)
    want = mlp_score(x, y, np.random.default_rng(3))
    assert want is not None
    for got_w, want_w in zip(net.weights + net.biases, want.weights + want.biases):
        np.testing.assert_array_equal(got_w, want_w)
    _, plain = _select_vector(x, y, pair=3)  # the default: no network
    assert plain == {k: v for k, v in fams.items() if k != "mlp"}


def test_select_logistic_score_subsample_is_seeded_by_the_pair() -> None:
    # more than 20,000 selection outputs a side: the logistic score is fitted on a subsample drawn with
    # default_rng(pair), so the same outputs give the same score (and events) in every run
    from semiprivate.theory.audit.selection import LogisticScore, learned_score

    g = np.random.default_rng(12)
    s = 20_050
    x, y = g.normal(0, 1, (s, 2)), g.normal(0, 1, (s, 2)) + [0.0, 0.2]
    cands, _ = _select_vector(x, y, pair=2, nthr=2)
    score = next(c.event.projection for c in cands if c.group[1] == "logistic")
    want = learned_score(x, y, np.random.default_rng(2))
    assert isinstance(score, LogisticScore) and want is not None
    np.testing.assert_array_equal(score.coef, want.coef)
    assert score.intercept == want.intercept


def test_select_fisher_direction_solves_the_pooled_covariance_with_its_ridge() -> None:
    # the Fisher direction solves (C + r I) w = mean(x) - mean(y), C the pooled covariance (the mean of
    # the two sample covariances), r = 1e-6 * (trace(C) / d + 1e-12): with variances of 1e-12 the
    # absolute 1e-18 weighs, so the direction depends on C's scale, not only on its shape
    g = np.random.default_rng(13)
    x = np.c_[g.normal(0, 1e-6, 300), np.zeros(300)]
    y = np.c_[g.normal(0, 1e-6, 300), np.full(300, 1e-6)]
    cands, _ = _select_vector(x, y)
    u = next(c.event.projection for c in cands if c.group[1] == "fisher")
    cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False))
    diff = x.mean(axis=0) - y.mean(axis=0)

    def direction(c: np.ndarray) -> np.ndarray:
        w = np.linalg.solve(c + 1e-6 * (np.trace(c) / 2 + 1e-12) * np.eye(2), diff)
        return w / np.linalg.norm(w)

    np.testing.assert_allclose(u, direction(cov), rtol=1e-9, atol=0)
    assert abs(direction(3 * cov)[0] - u[0]) > 0.1 * abs(u[0])  # the sum of the covariances is another direction


def test_select_fisher_direction_from_two_selection_outputs_uses_their_covariance() -> None:
    # two outputs per dataset already have a sample covariance (only one has none): here the pooled
    # covariance of rows spread along (1, 1) and (1, 0) is full rank, and the Fisher direction solves it,
    # not the ridge alone (which would give the mean difference's direction)
    x = np.array([[0.0, 0.0], [1.0, 1.0]])
    y = np.array([[0.5, 0.0], [1.5, 0.0]])
    cands, _ = _select_vector(x, y)
    u = next(c.event.projection for c in cands if c.group[1] == "fisher")
    cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False))
    diff = x.mean(axis=0) - y.mean(axis=0)
    w = np.linalg.solve(cov + 1e-6 * (np.trace(cov) / 2 + 1e-12) * np.eye(2), diff)
    np.testing.assert_allclose(u, w / np.linalg.norm(w), rtol=1e-9, atol=0)
    assert abs(float(u @ diff)) / np.linalg.norm(diff) < 0.99  # not the mean difference's direction (0.98)


def test_select_value_sets_with_tied_scores_keep_the_shortest() -> None:
    # delta = 0.9: most value sets of a 24-value categorical coordinate carry no evidence (score -inf);
    # after the finite ones, the ties kept are the shortest sets, in order (a stable sort, any numpy)
    g = np.random.default_rng(21)
    s = 300
    cx, cy = g.integers(0, 24, s).astype(float), g.integers(0, 24, s).astype(float)
    _, rows = _run_select(np.c_[g.normal(0, 1, s), cx], np.c_[g.normal(0, 1, s), cy], s, cat=(1,), nthr=4,
                          delta=0.9)
    sets = [r for r in rows if r[4][1] == "catset"]
    assert len(sets) == 16
    tied = [int(r[2].rsplit("(", 1)[1].split()[0]) for r in sets if r[0] == -math.inf]
    assert tied == [2, 3, 4, 5, 6, 2, 3, 4, 5, 6]


def test_select_declared_coordinates_of_vectors() -> None:
    # an int declares a vector coordinate categorical (coordinate 0 too): value events, no thresholds;
    # names (str) address dicts and tuples, so on plain vectors they declare nothing
    g = np.random.default_rng(14)
    s = 200
    x = np.c_[g.integers(0, 4, s), g.normal(0, 1, s)].astype(float)
    y = np.c_[g.integers(0, 4, s), g.normal(0.5, 1, s)].astype(float)
    fams, _ = _run_select(x, y, s, cat=(0,), nthr=4)
    assert "coord0" not in fams and "coord1" in fams and fams["cat"] > 0
    plain, rows = _run_select(x, y, s, nthr=4)
    assert "coord0" in plain
    assert _run_select(x, y, s, cat=("x[0]", "count"), nthr=4) == (plain, rows)


def test_select_sixteen_coordinates_keep_their_order() -> None:
    # at most MAX_COORDS = 16 free coordinates: all of them in index order (ranking only beyond 16)
    g = np.random.default_rng(15)
    s = 100
    x, y = g.normal(0, 1, (s, 16)), g.normal(0, 1, (s, 16)) + np.r_[np.zeros(15), 1.0]
    fams, _ = _run_select(x, y, s, nthr=2)
    assert list(fams)[3:] == ["sign"] + [f"coord{j}" for j in range(16)]


def test_select_row_patterns_seen_three_times_and_set_budget() -> None:
    # a coded column (atom -1.0 written 3 times) beside continuous values: the atom's pattern, seen
    # exactly MIN_ATOM_COUNT = 3 times, is a pattern event; 16 quantile bins make the other patterns
    g = np.random.default_rng(1)
    s = 100
    x = np.c_[g.normal(0, 1, s), g.normal(0, 1, s)]
    y = np.c_[g.normal(0.5, 1, s), g.normal(0, 1, s)]
    x[:3, 1] = -1.0
    fams, _ = _run_select(x, y, s, nthr=4)
    assert (fams["pattern"], fams["patternset"]) == (2 * 17, 2 * 16)
    # max_values also caps the keys of the pattern sets (the 4 most frequent: 3 sets per direction)
    fams, _ = _run_select(x, y, s, nthr=4, maxv=4)
    assert (fams["pattern"], fams["patternset"]) == (2 * 17, 2 * 3)


def test_select_pattern_sets_of_two_blocks_add_up() -> None:
    # two coded columns with different atoms are two blocks; "patternset" counts the sets of both
    g = np.random.default_rng(16)
    s = 100
    x = np.c_[g.choice([-1.0, 0.0], s), g.choice([5.0, 6.0], s)]
    y = np.c_[g.choice([-1.0, 0.0], s, p=[0.3, 0.7]), g.choice([5.0, 6.0], s)]
    fams, rows = _run_select(x, y, s, nthr=4)
    assert (fams["pattern"], fams["patternset"]) == (2 * 4, 2 + 2)
    assert {r[4][1] for r in rows} >= {"pattern", "patternset"}


def test_audit_pairs_structured_and_label_pairs_together() -> None:
    # one pair with structured outputs (a table schema is built) and one with plain labels: the label
    # pair keeps its value events (the schema's tables are read only for structured outputs)
    from semiprivate.theory.audit.core import audit_pairs

    def mech(data: int, size: int, rng: Any) -> Any:
        if data < 2:
            return [("u", float(v)) for v in rng.normal(data, 1, size)]
        return np.array(rng.choice(["a", "b"], size, p=[0.5, 0.5] if data == 2 else [0.6, 0.4]))

    r = audit_pairs(mech, [(0, 1), (2, 3)], epsilon=1.0, trials=4000, selection_trials=2000, rng=0)
    assert set(r.search[0].families) >= {"col", "cat"}
    assert r.search[1].families == {"value": 4, "valueset": 2}


def test_audit_pairs_structured_outputs_against_labels() -> None:
    # the same pair, structured outputs under one dataset and plain labels under the other: both are
    # labels, compared by value events only (no table events: the neighbour's outputs have no table)
    from semiprivate.theory.audit.core import audit_pairs

    def mech(data: int, size: int, rng: Any) -> Any:
        if data == 0:
            return [("u", float(v)) for v in rng.normal(0, 1, size)]
        return np.array(rng.choice(["a", "b"], size))

    r = audit_pairs(mech, [(0, 1)], epsilon=1.0, trials=4000, selection_trials=2000, rng=0)
    assert r.search[0].families == {"value": 4, "valueset": 2}
    assert r.violation and r.witness is not None and r.witness.support_mismatch


def _first_groups(rows: list[tuple[Any, ...]]) -> list[str]:
    out: list[str] = []
    for r in rows:
        if r[4][1] not in out:
            out.append(r[4][1])
    return out


def test_select_structured_numeric_columns_ranked_beyond_sixteen() -> None:
    # tuples of 15 floats: 16 numeric columns (x[0..14] and len(x)), all thresholded in column order;
    # tuples of 16 floats: 17 columns, only the MAX_COORDS = 16 ranked first (KS statistic) are
    # thresholded, the shifted x[15] first and the constant len(x) dropped
    g = np.random.default_rng(18)
    s = 100
    for k in (15, 16):
        shift = np.r_[np.zeros(k - 1), 1.0]
        x = _objects([tuple(v) for v in g.normal(0, 1, (s, k))])
        y = _objects([tuple(v) for v in g.normal(0, 1, (s, k)) + shift])
        fams, rows = _run_select(x, y, s, schema=True, nthr=4)
        groups = _first_groups(rows)
        if k == 15:
            assert groups == [f"col{j}" for j in range(16)]
        else:
            assert len(groups) == 16 and groups[0] == "col15" and "col16" not in groups
            assert fams == {"col": 512}


def test_select_float_bits_of_vectors_are_those_of_each_coordinate() -> None:
    # float_bits on vector outputs: the bit events of each (ranked) coordinate, as for that coordinate
    # alone as a scalar output (same scores and counts), named x[j]
    g = np.random.default_rng(17)
    s = 200
    x, y = g.normal(0, 1, (s, 2)), g.normal([1.0, 0.0], 1, (s, 2))
    fams, rows = _run_select(x, y, s, fb=True, nthr=4)
    bits = [r for r in rows if r[4][1] in ("bits", "bitsset")]
    want: list[tuple[Any, ...]] = []
    total = 0
    for j in range(2):
        fj, rj = _run_select(x[:, j], y[:, j], s, fb=True, nthr=4)
        total += fj["bits"]
        mine = [r for r in rj if r[4][1] in ("bits", "bitsset")]
        assert mine and all(" of x)" in r[2] for r in mine)
        want += [(r[0], r[2].replace(" of x)", f" of x[{j}])"), *r[3:]) for r in mine]
    assert fams["bits"] == total
    assert [(r[0], r[2], *r[3:]) for r in bits] == want


def test_select_scalar_atom_under_either_dataset() -> None:
    # continuous scalar outputs with one value repeated (0.0, 5 times) under only one of the datasets:
    # value events on it, whichever dataset of the pair repeats it
    g = np.random.default_rng(19)
    s = 100
    x, y = g.normal(0, 1, s), g.normal(0, 1, s)
    y[:5] = 0.0
    for a, b in ((x, y), (y, x)):
        fams, rows = _run_select(a, b, s, nthr=4)
        assert fams == {"thr": 32, "value": 2}
        assert [r[2] for r in rows if r[4][1] == "value"] == ["x == 0.0"] * 2


def test_select_integer_vectors_against_float_vectors() -> None:
    # integer vectors under one dataset, float vectors under the other: whole-vector value events need
    # the integer keys of both sides, so only thresholds (and, float first, row patterns) are built
    g = np.random.default_rng(20)
    s = 100
    x, y = g.integers(0, 3, (s, 2)), g.integers(0, 3, (s, 2)) + 0.5
    projections = {"fisher": 32, "meandiff": 32, "logistic": 32, "coord0": 32, "coord1": 28}
    assert _run_select(x, y, s, nthr=4)[0] == projections
    assert _run_select(y, x, s, nthr=4)[0] == {**projections, "sign": 20, "pattern": 36, "patternset": 34}


def test_select_integer_value_seen_once_under_the_first_dataset() -> None:
    # discrete outputs: every value seen at least once is a value event, also the largest value seen
    # once, under the first dataset only (counts 1 vs 0)
    x, y = np.array([0, 0, 1, 1, 5]), np.array([0, 1, 1, 1, 2])
    fams, rows = _run_select(x, y, 5, nthr=4)
    assert fams == {"thr": 20, "value": 8, "valueset": 6}
    values = {(r[2], r[3]): r[5:] for r in rows if r[4][1] == "value"}
    assert values[("x == 5", True)] == values[("x == 5", False)] == (1, 0)
    assert values[("x == 2", True)] == (0, 1)


def test_select_all_categorical_structured_values_seen_once() -> None:
    # structured outputs whose leaves are all categorical are discrete: a value seen once is an event
    # (the count >= 3 rule is for tables with a continuous numeric leaf)
    x = _objects([{"a": "u"}] * 9 + [{"a": "w"}])
    y = _objects([{"a": "u"}] * 5 + [{"a": "v"}] * 5)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert fams == {"cat": 6, "value": 6, "valueset": 4}
    assert {r[2] for r in rows if r[4][1] == "value"} == {"x == (('a', 'u'),)", "x == (('a', 'v'),)",
                                                        "x == (('a', 'w'),)"}


def test_select_values_beyond_max_values_keep_the_most_frequent_ties_by_value() -> None:
    # 52 values, max_values = 12: the 12 kept are the most frequent (seen 4 times: the odd values),
    # ties by value (stable), so 1, 3, ..., 23; of those, 17..23 are seen only under the first dataset
    odd_lo, odd_hi, even = range(1, 17, 2), range(17, 40, 2), range(0, 40, 2)
    xs = [v for v in odd_lo for _ in range(2)] + [v for v in odd_hi for _ in range(4)]
    ys = [v for v in odd_lo for _ in range(2)] + [v for v in even for _ in range(3)]
    xs += [-1 - i for i in range(len(ys) - len(xs))]  # seen once: never kept
    x, y = np.array(xs), np.array(ys)
    fams, rows = _run_select(x, y, x.size, nthr=4, maxv=12)
    assert fams == {"thr": 32, "value": 24, "valueset": 22}
    forward = [(r[2], r[5], r[6]) for r in rows if r[4] == (0, "value", True)]
    assert forward[:4] == [("x == 17", 4, 0), ("x == 19", 4, 0), ("x == 21", 4, 0), ("x == 23", 4, 0)]
    assert all(r[1:] == (2, 2) for r in forward[4:])


def test_select_max_values_equal_to_the_values_changes_nothing() -> None:
    # 4 values and max_values = 4: none is dropped and their order (by value) is kept, as with no cap;
    # delta = 0.9 leaves every single value without evidence (tied scores, so the order shows)
    x, y = np.array([0, 1, 2, 2, 3, 3, 3, 3, 3, 3]), np.array([1, 2, 3, 3, 3, 3, 0, 0, 0, 3])
    capped = _run_select(x, y, 10, nthr=4, maxv=4, delta=0.9)
    assert capped == _run_select(x, y, 10, nthr=4, delta=0.9)
    assert [r[2] for r in capped[1] if r[4] == (0, "value", True)] == ["x == 0", "x == 1", "x == 2", "x == 3"]


def test_select_raw_value_sets_capped_at_512_per_direction() -> None:
    # 601 values: at most 512 likelihood-ratio-ordered sets per direction (2 to 513 values); with the
    # 600 values seen only under the first dataset, the largest set (513 values) scores best
    x, y = np.arange(600), np.full(600, 1000)
    fams, rows = _run_select(x, y, 600, nthr=4)
    assert fams == {"thr": 24, "value": 2 * 601, "valueset": 2 * 512}
    forward = [r for r in rows if r[4] == (0, "valueset", True)]
    assert forward[0][2].endswith(" (513 values)") and forward[0][5:] == (513, 0)
    assert [int(r[2].rsplit("(", 1)[1].split()[0]) for r in forward] == list(range(513, 505, -1))


def test_select_raw_value_sets_with_tied_scores_keep_the_shortest() -> None:
    # as for the categorical coordinates: with delta = 0.9 most sets of 24 integer values have no
    # evidence (-inf); after the finite ones the ties kept are the shortest sets, in order
    g = np.random.default_rng(22)
    s = 300
    _, rows = _run_select(g.integers(0, 24, s), g.integers(0, 24, s), s, nthr=4, delta=0.9)
    sets = [r for r in rows if r[4][1] == "valueset"]
    assert len(sets) == 16
    tied = [int(r[2].rsplit("(", 1)[1].split()[0]) for r in sets if r[0] == -math.inf]
    assert tied == [2, 3, 4, 5, 6, 2, 3, 4, 5, 6]


def _laplace_mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return np.random.default_rng(rng).laplace(float(data), 1.0, size)


_AUDIT_BAD_ARGS: list[tuple[dict[str, Any], type, str]] = [
    ({"pairs": []}, ValueError, "pairs must contain at least one neighbouring pair"),
    ({"pairs": 5}, TypeError, "pairs must be a list of (data, neighbour) pairs, got int"),
    ({"pairs": [(0.0,)]}, ValueError, "pairs[0] must be a (data, neighbour) pair, got (0.0,)"),
    ({"events": "x > 0"}, TypeError, "events must be a list of callables event(outputs) -> bool array, got str"),
    ({"events": lambda o: o > 0}, TypeError,
     "events must be a list of callables event(outputs) -> bool array, got function"),
    ({"events": [1]}, TypeError, "events must be a list of callables event(outputs) -> bool array (or Event objects)"),
    ({"events": []}, ValueError, "events must not be empty"),
    ({"categorical": "x"}, TypeError, "categorical must be a list of coordinates (int) or names (str), got str"),
    ({"categorical": 3}, TypeError, "categorical must be a list of coordinates (int) or names (str), got int"),
    ({"categorical": [True]}, TypeError, "categorical must be a list of coordinates (int) or names (str)"),
    ({"categorical": [1.5]}, TypeError, "categorical must be a list of coordinates (int) or names (str)"),
    ({"float_bits": 1}, TypeError, "float_bits must be True or False, got 1"),
    ({"mlp": "no"}, TypeError, "mlp must be True or False, got 'no'"),
    ({"mechanism": lambda data, rng: 0.0}, TypeError,
     "mechanism must be callable as mechanism(data, size, rng) returning size outputs; <lambda>(data, rng) is not. "
     "For a one-output fn(data, rng), audit semiprivate.theory.audit.vectorize(fn)"),
]


@pytest.mark.parametrize("kwargs, exc, msg", _AUDIT_BAD_ARGS)
def test_audit_pairs_rejects_bad_arguments_with_the_exact_message(kwargs: dict[str, Any], exc: type, msg: str) -> None:
    from semiprivate.theory.audit import audit_pairs

    call: dict[str, Any] = {"mechanism": _laplace_mech, "pairs": [(0.0, 1.0)], "epsilon": 1.0, "trials": 1000,
                            "rng": 0}
    call.update(kwargs)
    with pytest.raises(exc) as err:
        audit_pairs(call.pop("mechanism"), call.pop("pairs"), **call)
    assert str(err.value) == msg


def test_audit_pairs_accepts_the_documented_argument_forms() -> None:
    from semiprivate.theory.audit import audit_pairs

    for kw in ({"events": (lambda o: o > 0,)}, {"categorical": range(0)}, {"categorical": np.array([0])},
               {"float_bits": np.bool_(False)}):
        res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=2000, rng=0, **kw)
        assert res.trials_used > 0 and res.n_tests > 0


def test_audit_mechanism_neighbours_and_seeds_come_from_its_rng() -> None:
    """A callable neighbour gets the audit's generator (so a seeded audit repeats), extra pairs are checked under
    their own name, and every witness records the seed that reproduces the call."""
    from semiprivate.theory.audit import audit_mechanism

    def neighbour(d: float, g: np.random.Generator) -> float:
        return d + float(g.choice([-1.0, 1.0]))

    a, b = (audit_mechanism(_laplace_mech, 0.0, neighbour, epsilon=1.0, trials=2000, rng=7, n_neighbours=3)
            for _ in range(2))
    assert [w.pair() for w in a.tests] == [w.pair() for w in b.tests] and a.tests
    assert a.seed == 7 and all(w.seed == 7 for w in a.tests)
    with pytest.raises(TypeError) as err:
        audit_mechanism(_laplace_mech, 0.0, 1.0, epsilon=1.0, trials=1000, rng=0, extra_pairs=5)
    assert str(err.value) == "extra_pairs must be a list of (data, neighbour) pairs, got int"


def _laplace_tight(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return np.random.default_rng(rng).laplace(float(data), 0.1, size)  # far from 1-DP for |data - nb| = 1


def _one_sided(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return float(data) + np.random.default_rng(rng).exponential(1.0, size)  # support [data, inf)


def test_user_events_are_tested_in_both_directions_and_reported() -> None:
    """A user event is tested data -> neighbour and neighbour -> data: {o > 0.5} is rare under data 0 and common
    under neighbour 1 (Laplace scale 0.1), so only the reverse direction refutes eps = 1.  The search records
    one 'user' family of 2 candidates and no selection step."""
    from semiprivate.theory.audit import audit_pairs

    res = audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=1.0, trials=5000, rng=0,
                      events=[lambda o: o > 0.5, lambda o: o > 5.0])
    assert res.violation and res.witness is not None and res.witness.direction == "neighbour -> data"
    assert res.n_candidates == 4 and res.n_tests == 4 and res.families == {"user": 4}
    assert res.search[0].best_candidate == "" and math.isnan(res.search[0].best_anticipated)


def test_selection_reports_the_best_candidate_with_its_direction_and_counts_every_family() -> None:
    """With one-sided noise the best event of pair (0, 1) holds data -> neighbour and that of (1, 0) holds
    neighbour -> data; the candidate count is the sum of every pair's families."""
    from semiprivate.theory.audit import audit_pairs

    res = audit_pairs(_one_sided, [(0.0, 1.0), (1.0, 0.0)], epsilon=1.0, trials=5000, rng=0)
    a, b = res.search[0].best_candidate, res.search[1].best_candidate
    assert a.startswith("{") and a.endswith("}, data -> neighbour"), a
    assert b.startswith("{") and b.endswith("}, neighbour -> data"), b
    # the anticipated bound is planned at level alpha / (2 K): pinned (to far above CPU-dependent digits)
    assert res.search[0].best_anticipated == pytest.approx(6.075930415781472, rel=1e-7)
    assert res.n_candidates == sum(res.families.values()) == sum(sum(ps.families.values()) for ps in res.search)
    assert res.n_candidates > sum(res.search[0].families.values()) > 0


def test_audit_pairs_trials_seed_and_selection_batch() -> None:
    """trials_used = (selection batch + estimation batch) per distinct dataset, the selection batch being
    min(max(10_000, n // 4), 500_000); trials=None means DEFAULT_TRIALS; the seed is recorded."""
    from semiprivate.theory.audit import audit_pairs
    from semiprivate.theory.audit.core import DEFAULT_TRIALS

    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=7)
    assert res.trials_used == 2 * (10_000 + 1000)
    assert res.seed == 7 and res.tests and all(w.seed == 7 for w in res.tests)
    assert res.witness is not None and res.witness.pair() == (0.0, 1.0)  # the witness names its pair
    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, rng=0)
    assert res.trials_used == 2 * (min(max(10_000, DEFAULT_TRIALS // 4), 500_000) + DEFAULT_TRIALS)
    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=2_000_008, rng=0)
    assert res.trials_used == 2 * (500_000 + 2_000_008)


def test_float_bits_and_mlp_flags_reach_the_selection() -> None:
    from semiprivate.theory.audit import audit_pairs

    base = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0).families
    bits = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0, float_bits=True).families
    assert "bits" not in base and "bits" in bits
    vec = [(np.zeros(3), np.ones(3))]

    def gauss3(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return np.random.default_rng(rng).normal(np.asarray(data, dtype=float), 1.0, (size, 3))

    plain = audit_pairs(gauss3, vec, epsilon=1.0, trials=1000, rng=0).families
    mlp = audit_pairs(gauss3, vec, epsilon=1.0, trials=1000, rng=0, mlp=True).families
    assert "mlp" not in plain and "mlp" in mlp


def test_infinite_outputs_are_audited_without_floating_point_warnings() -> None:
    """Outputs +-inf (a mechanism that sometimes overflows) make the selection statistics meet inf - inf; the audit
    runs without a RuntimeWarning (turned into an error here) and still builds threshold candidates."""
    import warnings

    from semiprivate.theory.audit import audit_pairs

    def overflowing(data: Any, size: int, rng: Any = None) -> np.ndarray:
        g = np.random.default_rng(rng)
        x = g.laplace(float(data), 1.0, size)
        u = g.random(size)
        x = np.where(u < 0.1, 1e308, np.where(u > 0.9, -1e308, x))  # finite, but their sums overflow
        return np.where(u < 0.05, np.inf, np.where(u > 0.95, -np.inf, x))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = audit_pairs(overflowing, [(0.0, 1.0)], epsilon=1.0, trials=2000, rng=0)
    assert res.n_candidates > 0 and "thr" in res.families


def test_structured_outputs_use_the_declared_categorical_fields() -> None:
    """Dict outputs build their table from the selection batch; a field declared categorical gets value events
    ('cat' family), which it does not get as a numeric field with many values."""
    from semiprivate.theory.audit import audit_pairs

    def dicts(data: Any, size: int, rng: Any = None) -> np.ndarray:
        g = np.random.default_rng(rng)
        out = np.empty(size, dtype=object)
        v = g.integers(0, 40, size) + int(data)
        for i in range(size):
            out[i] = {"v": int(v[i]), "w": float(g.normal())}
        return out

    plain = audit_pairs(dicts, [(0, 5)], epsilon=1.0, trials=1000, rng=0).families
    cat = audit_pairs(dicts, [(0, 5)], epsilon=1.0, trials=1000, rng=0, categorical=["v"]).families
    assert plain != cat and cat.get("cat", 0) > plain.get("cat", 0)


def test_estimation_bounds_use_the_bonferroni_level() -> None:
    """Every tested event's intervals are Clopper-Pearson at level alpha / (2 K) (K tests, two one-sided
    intervals each): recomputed here from the witness's counts, and the bound is log((p_lo - delta) / q_hi)."""
    from semiprivate.theory.audit import audit_pairs
    from semiprivate.theory.audit.stats import cp_lower, cp_upper

    res = audit_pairs(_laplace_mech, [(0.0, 1.0), (0.0, 2.0)], epsilon=1.0, trials=4000, rng=3, confidence=0.9)
    level = (1 - 0.9) / (2 * res.n_tests)
    assert res.n_tests > 1 and len(res.tests) == res.n_tests
    for w in res.tests:
        kn, ko, n = w.counts
        assert w.p_interval == (pytest.approx(float(cp_lower(kn, n, level))), pytest.approx(float(cp_upper(kn, n, level))))
        assert w.q_interval == (pytest.approx(float(cp_lower(ko, n, level))), pytest.approx(float(cp_upper(ko, n, level))))
        if w.p_interval[0] > 0:
            assert w.lower_bound == pytest.approx(math.log(w.p_interval[0] / w.q_interval[1]))


# --- the seeded-batch branch (batch_size / executor): counts fixed by (rng, batch size), whoever runs them ---

_BATCH_EVENTS = [lambda o: o > 0.6, lambda o: o <= 0.35]


def _uniform_shift(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return float(data) + np.random.default_rng(rng).random(size)


def _seeded_batch_counts(datasets: list[float], n: int, bs: int, seed: int) -> list[list[int]]:
    """The contract of semiprivate.theory.audit.batches, computed here from its statement: with user events nothing is drawn
    before estimation, so the root SeedSequence is the audit generator's first ``integers(2**63)``; one child per
    distinct dataset (order of first appearance), one grandchild per batch of ``bs`` (the last one smaller)."""
    root = np.random.SeedSequence(int(np.random.default_rng(seed).integers(2**63)))
    sizes = [bs] * (n // bs) + ([n % bs] if n % bs else [])
    out = []
    for d, child in zip(datasets, root.spawn(len(datasets))):
        c = [0] * len(_BATCH_EVENTS)
        for m, s in zip(sizes, child.spawn(len(sizes))):
            o = _uniform_shift(d, m, np.random.default_rng(s))
            c = [ci + int(np.count_nonzero(e(o))) for ci, e in zip(c, _BATCH_EVENTS)]
        out.append(c)
    return out


def _witness_counts(res: Any) -> list[tuple[int, int, int]]:
    return [w.counts for w in res.tests]


def _expected_witness_counts(ref: list[list[int]], n: int) -> list[tuple[int, int, int]]:
    """Witnesses in the order audit_pairs builds them: per pair, per event, data -> neighbour then back."""
    out = []
    for i0, i1 in ((0, 1), (1, 2)):
        for e in range(len(_BATCH_EVENTS)):
            out += [(ref[i0][e], ref[i1][e], n), (ref[i1][e], ref[i0][e], n)]
    return out


_BATCH_PAIRS = [(0.0, 0.25), (0.25, 0.5)]  # three distinct datasets: the middle one's counts sit mid-results


def test_batch_size_alone_runs_the_seeded_batches_here() -> None:
    """batch_size without an executor: the counts are the seeded batches' (not the sequential stream's), each
    dataset counted once over all its batches, trials_used = 3 datasets x n."""
    from semiprivate.theory.audit import audit_pairs

    n = 8000
    res = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=11,
                      batch_size=3000)
    assert _witness_counts(res) == _expected_witness_counts(_seeded_batch_counts([0.0, 0.25, 0.5], n, 3000, 11), n)
    assert res.trials_used == 3 * n
    sequential = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=11)
    assert _witness_counts(sequential) != _witness_counts(res)


class _RecordingPool:
    """A concurrent.futures-style executor (``map`` only) that runs here and records its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def map(self, fn: Any, *columns: Any) -> Any:
        self.calls += 1
        return map(fn, *columns)


def test_an_executor_runs_the_batches_of_the_default_size_and_equals_the_local_run() -> None:
    """executor without batch_size: the batches go to the executor, one batch of n here (n < 1e6, the smallest
    default size); with batch_size too, the executor's counts equal the local seeded run's."""
    from semiprivate.theory.audit import audit_pairs

    n = 5000
    pool = _RecordingPool()
    res = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=3,
                      executor=pool)
    assert pool.calls == 1
    assert _witness_counts(res) == _expected_witness_counts(_seeded_batch_counts([0.0, 0.25, 0.5], n, n, 3), n)
    assert res.trials_used == 3 * n
    here = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=3,
                       batch_size=2000)
    there = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=3,
                        batch_size=2000, executor=pool)
    assert pool.calls == 2 and _witness_counts(there) == _witness_counts(here)


def test_the_batches_get_the_executor_its_name_and_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """run_batches receives the executor, the name its errors use ('executor') and the timeout: the given one,
    else semiprivate.theory.audit.batches.DEFAULT_TIMEOUT."""
    import semiprivate.theory.audit.core as core
    from semiprivate.theory.audit import audit_pairs
    from semiprivate.theory.audit.batches import DEFAULT_TIMEOUT

    seen: list[tuple[Any, Any, Any]] = []
    real = core.run_batches

    def spy(fn: Any, jobs: Any, executor: Any = None, **kw: Any) -> Any:
        seen.append((executor, kw.get("name"), kw.get("timeout")))
        return real(fn, jobs, executor, **kw)

    monkeypatch.setattr(core, "run_batches", spy)
    pool = _RecordingPool()
    for timeout in (None, 5):
        audit_pairs(_uniform_shift, [(0.0, 1.0)], epsilon=1.0, trials=1000, events=_BATCH_EVENTS, rng=0,
                    executor=pool, timeout=timeout)
    assert seen == [(pool, "executor", DEFAULT_TIMEOUT), (pool, "executor", 5.0)]
    assert isinstance(seen[1][2], float)


class _StopAudit(Exception):
    pass


@pytest.mark.parametrize(("trials", "size"), [(1000, 1_000_000), (64 * 1_000_003 + 63, 1_000_003),
                                              (64 * (10**8 + 5), 10**8)])
def test_default_batch_size_is_trials_over_64_clipped_to_1e6_1e8(monkeypatch: pytest.MonkeyPatch, trials: int,
                                                                  size: int) -> None:
    """With an executor and no batch_size the batches hold trials // 64 outputs, at least 10^6 and at most 10^8
    (an int).  The audit is stopped where the sizes are asked for, so no trials are drawn."""
    import semiprivate.theory.audit.core as core
    from semiprivate.theory.audit import audit_pairs

    asked: list[tuple[Any, Any]] = []

    def spy(n: Any, bs: Any) -> Any:
        asked.append((n, bs))
        raise _StopAudit

    monkeypatch.setattr(core, "batch_sizes", spy)
    with pytest.raises(_StopAudit):
        audit_pairs(_uniform_shift, [(0.0, 1.0)], epsilon=1.0, trials=trials, events=_BATCH_EVENTS, rng=0,
                    executor=_RecordingPool())
    assert asked == [(trials, size)] and type(asked[0][1]) is int


def test_vector_outputs_near_the_float_maximum_raise_no_overflow_warning() -> None:
    """Selection on vectors of size ~1e308 overflows in the mean difference; that is part of the statistics (an
    infinite direction), not an error, so no FloatingPointError / RuntimeWarning reaches the caller."""
    from semiprivate.theory.audit import audit_pairs

    def huge(data: Any, size: int, rng: Any = None) -> np.ndarray:
        u = np.random.default_rng(rng).standard_normal((size, 2)) + float(data)
        return np.clip(u, -1.79, 1.79) * 1e308

    with np.errstate(all="raise"):
        res = audit_pairs(huge, [(0.0, 0.5)], epsilon=1.0, trials=4000, rng=1)
    assert res.n_tests > 0 and math.isfinite(res.epsilon_lower_bound)


def test_one_selection_output_per_dataset_still_builds_vector_events() -> None:
    """selection_trials=1 with vector outputs: no sample covariance exists, and none is computed (numpy's
    'degrees of freedom' RuntimeWarning is an error under the suite's filterwarnings); the audit runs."""
    from semiprivate.theory.audit import audit_pairs

    res = audit_pairs(lambda d, m, rng: np.random.default_rng(rng).random((m, 3)) + d, [(0.0, 1.0)], epsilon=1.0,
                      trials=500, selection_trials=1, rng=2)
    assert res.n_tests > 0


# --- what the result reports: directions, support mismatches, per-pair search, timing, the violation rule ---


def test_witnesses_name_their_direction_and_support_mismatch() -> None:
    """Outputs under data 0 are 0 except the first (1.0); under neighbour 1 all 0.  Event {o > 0.5}: counts 1 and 0,
    a support mismatch data -> neighbour (one output is enough), none neighbour -> data (0 vs 1); event {o < -1}:
    0 and 0, no mismatch either way.  n = 1000 outputs come from one mechanism call per dataset."""
    from semiprivate.theory.audit import audit_pairs

    def first_is_one(data: Any, size: int, rng: Any = None) -> np.ndarray:
        out = np.zeros(size)
        if float(data) == 0.0:
            out[0] = 1.0
        return out

    res = audit_pairs(first_is_one, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0,
                      events=[lambda o: o > 0.5, lambda o: o < -1.0])
    assert [(w.direction, w.counts, w.support_mismatch) for w in res.tests] == [
        ("data -> neighbour", (1, 0, 1000), True), ("neighbour -> data", (0, 1, 1000), False),
        ("data -> neighbour", (0, 0, 1000), False), ("neighbour -> data", (0, 0, 1000), False)]


def test_pair_search_reports_each_pairs_tests_and_best_bound() -> None:
    """33 pairs and max_events=1: K = 32 tests (one slot per pair, at most 32), so one pair gets none.  Each pair's
    search entry carries its own index, its number of tests and the largest final bound among them (nan when
    none)."""
    from semiprivate.theory.audit import audit_pairs

    pairs = [(0.0, 3.0)] + [(0.0, 0.001 * i) for i in range(1, 33)]
    res = audit_pairs(_laplace_mech, pairs, epsilon=1.0, trials=2000, selection_trials=500, max_events=1, rng=0)
    assert res.n_tests == 32 and [s.pair_index for s in res.search] == list(range(33))
    for p, s in enumerate(res.search):
        mine = [w.lower_bound for w in res.tests if w.pair_index == p]
        assert s.n_tested == len(mine)
        assert (math.isnan(s.best_bound) if not mine else s.best_bound == max(mine))
    assert sorted(s.n_tested for s in res.search)[:2] == [0, 1]


def test_seconds_is_the_audits_own_wall_time() -> None:
    import time

    from semiprivate.theory.audit import audit_pairs

    t0 = time.perf_counter()
    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0, events=[lambda o: o > 0.0])
    wall = time.perf_counter() - t0
    assert isinstance(res.seconds, float) and 0.0 < res.seconds <= wall


def test_a_bound_equal_to_the_claim_is_no_violation() -> None:
    """violation means epsilon_lower_bound > epsilon, strictly: rerun with the claim set to the bound the same
    seeded audit finds (user events: the claim enters nothing else), and it is not a violation."""
    from semiprivate.theory.audit import audit_pairs

    kw: dict[str, Any] = dict(trials=5000, rng=4, events=[lambda o: o > 0.5])
    lb = audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=1.0, **kw).epsilon_lower_bound
    assert lb > 1.0
    again = audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=lb, **kw)
    assert again.epsilon_lower_bound == lb and again.violation is False
    assert audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=math.nextafter(lb, 0.0), **kw).violation is True


def test_outputs_that_give_no_event_are_refused_with_a_message() -> None:
    """All-(-inf) vector outputs: the mean difference is NaN (no projection), no coordinate has a finite
    threshold, floats give no value events -- selection has no candidate, and says so."""
    from semiprivate.theory.audit import audit_pairs

    with pytest.raises(ValueError) as err:
        audit_pairs(lambda d, m, rng: np.full((m, 2), -np.inf), [(0, 1)], epsilon=1.0, trials=1000,
                    selection_trials=100, rng=0)
    assert str(err.value) == ("no candidate events could be built from the outputs (e.g. no finite value to "
                              "threshold and no repeated value to test): pass events=[...] to test your own")

"""semiprivate.theory.audit.draws: the label codec and ``normalize`` (output kinds, keys, discreteness,
structured rows and tables, raw outputs kept, and the exact messages for outputs it cannot read)."""

from __future__ import annotations

import math

import numpy as np
import pytest

NAN = math.nan


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

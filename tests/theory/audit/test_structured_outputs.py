"""Structured outputs (tuples with variable-length transcripts, dicts, arrays) in the auditor."""

from __future__ import annotations

import numpy as np
import pytest

from theory.audit import audit_pairs, vectorize
from theory.audit.outputs import as_label_array, encode_output


def test_encode_rules():
    assert encode_output((1, [2, 3])) == (1, (2, 3))
    assert encode_output({"b": 1, "a": np.int64(2)}) == (("a", 2), ("b", 1))
    assert encode_output(np.array([[1, 2]])) == ("ndarray", (1, 2), ((1, 2),))
    assert encode_output({1, 2}) == frozenset({1, 2})
    arr = as_label_array([(0, ()), (0, (1,)), (0, (1, 2))])
    assert arr.shape == (3,) and arr[2] == (0, (1, 2))
    with pytest.raises(TypeError, match="not hashable"):
        encode_output(bytearray(b"x"))
    with pytest.raises(TypeError, match="outputs"):
        as_label_array(3)


def _transcript_mech(private: bool):
    """(hypothesis, transcript): the transcript reveals the data unless ``private``."""
    def fn(data, rng):
        h = int(rng.random() < 0.5)
        tr = (0, 1) if private else tuple(range(int(data) + 1))
        return (h, tr)
    return vectorize(fn)


def test_tuple_outputs_support_mismatch_flagged():
    res = audit_pairs(_transcript_mech(False), [(0, 1)], epsilon=5.0, trials=2000, rng=0)
    assert res.violation and res.witness is not None and res.witness.support_mismatch


def test_tuple_outputs_private_pass():
    res = audit_pairs(_transcript_mech(True), [(0, 1)], epsilon=0.5, trials=2000, rng=0)
    assert not res.violation


def test_raw_list_of_tuples_from_mechanism():
    def mech(data, size, rng):
        return [(1, tuple(range(data)))] * size  # list, ragged across datasets
    res = audit_pairs(mech, [(1, 3)], epsilon=2.0, trials=500, rng=1)
    assert res.violation and res.witness is not None and res.witness.support_mismatch

"""Structured mechanism outputs for the auditor: tuples, variable-length sequences, dicts, arrays.

Implements: AUDIT (structured outputs).  An active learner returns ``(hypothesis, transcript)``
where the transcript is a variable-length tuple of queried indices (BNS15 Def 5.4); a
mechanism may also return dicts or small arrays.  The auditor treats such outputs as
*categorical labels*: :func:`encode_output` maps one output to a hashable key, recursively:

- ``tuple`` / ``list`` -> tuple of encoded items (a list and a tuple with equal items get the
  same key: a deterministic merge of outputs is post-processing, so every epsilon lower bound
  computed on the keys is a valid lower bound for the raw outputs);
- ``dict`` -> tuple of ``(key, encoded value)`` sorted by ``repr`` of the key;
- ``set`` / ``frozenset`` -> frozenset of encoded items;
- ``numpy.ndarray`` -> ``("ndarray", shape, nested tuple of items)``; NumPy scalars -> Python scalars;
- anything else hashable is kept; an unhashable leaf raises ``TypeError``.

:func:`as_label_array` encodes a batch into a 1-D ``object`` array, one key per output (never
broadcast into a 2-D array, whatever the tuples' lengths), which the auditor then codes as
discrete events: single values and likelihood-ratio-ordered value sets.  So a transcript that
appears under one database and never under its neighbour is a *support mismatch* (see
:mod:`theory.audit.core`).  :func:`theory.audit.vectorize` applies it to non-numeric outputs.

Examples
--------
>>> encode_output((3, [0, 5, 2]))
(3, (0, 5, 2))
>>> encode_output({"h": np.int64(4), "t": np.array([1, 2])})
(('h', 4), ('t', ('ndarray', (2,), (1, 2))))
>>> as_label_array([(1, (0,)), (1, (0, 2))]).shape
(2,)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["encode_output", "as_label_array", "is_structured"]


def _nested(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_nested(v) for v in x)
    return x


def encode_output(output: Any) -> Any:
    """Hashable key of one (possibly nested) output; rules in the module docstring."""
    if isinstance(output, (tuple, list)):
        return tuple(encode_output(v) for v in output)
    if isinstance(output, dict):
        return tuple(sorted(((k, encode_output(v)) for k, v in output.items()), key=lambda kv: repr(kv[0])))
    if isinstance(output, (set, frozenset)):
        return frozenset(encode_output(v) for v in output)
    if isinstance(output, np.ndarray):
        return ("ndarray", tuple(output.shape), _nested(output.tolist()))
    if isinstance(output, np.generic):
        return output.item()
    try:
        hash(output)
    except TypeError as exc:
        raise TypeError(f"output of type {type(output).__name__} is not hashable and not a tuple, list, dict, "
                        "set or ndarray; return one of those from the mechanism") from exc
    return output


def is_structured(output: Any) -> bool:
    """True for outputs the auditor must encode as labels (tuples, lists, dicts, sets)."""
    return isinstance(output, (tuple, list, dict, set, frozenset))


def as_label_array(outputs: Sequence[Any]) -> np.ndarray:
    """1-D object array with one :func:`encode_output` key per output."""
    if isinstance(outputs, (str, bytes)) or not hasattr(outputs, "__len__"):
        raise TypeError(f"outputs must be a sequence of outputs, got {type(outputs).__name__}")
    arr = np.empty(len(outputs), dtype=object)
    for i, o in enumerate(outputs):
        arr[i] = encode_output(o)
    return arr

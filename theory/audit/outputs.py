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
:mod:`semiprivate.theory.audit.core`).  :func:`semiprivate.theory.audit.vectorize` applies it to non-numeric outputs.

Besides whole-output labels, the auditor reads structured outputs as a *table* for joint events
(Implements: AUDIT, joint events): :func:`flatten_output` lists an output's leaves by path (a tuple /
list item ``x[i]``, a dict value ``x['k']``, and ``len(x)`` of every tuple / list, so
variable-length sequences get their length as a coordinate); :class:`OutputSchema` fixes, on the
selection batch only, the columns (at most :data:`MAX_COLUMNS` paths, the most frequent) and which
are *numeric* (every leaf seen is a real number, not a bool) or *categorical* (anything else, or
declared with ``categorical=``), and turns outputs into a float table: numbers as they are,
categorical leaves as int codes, a missing leaf as NaN (NaN is in no event ``{x <= t}`` nor
``{x > t}`` nor ``{x in S}``).  The table is a deterministic function of the output, so every event
on it is an output event and the bounds stay valid.

Examples
--------
>>> flatten_output((3, [0.5, 2.0]))
[((0,), 3), ((1, 0), 0.5), ((1, 1), 2.0), ((1, '#len'), 2), (('#len',), 2)]
>>> path_name((1, "#len")), path_name(("count",))
('len(x[1])', "x['count']")
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

__all__ = ["encode_output", "as_label_array", "is_structured", "flatten_output", "path_name", "OutputSchema",
           "MAX_COLUMNS"]

#: at most this many columns (leaf paths, most frequent first) enter an output table
MAX_COLUMNS = 64


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


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def flatten_output(output: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """``[(path, leaf), ...]`` of one output, leaves in order, then ``len`` of each sequence.

    Tuples and lists give their items at ``path + (i,)`` and their length at ``path + ('#len',)``;
    dicts their values at ``path + (key,)``; 1-D NumPy arrays their items; anything else (numbers,
    strings, sets, ...) is a leaf (encoded with :func:`encode_output`).
    """
    if not isinstance(path, tuple):
        raise TypeError(f"path must be a tuple (the prefix of the leaf paths), got {type(path).__name__}")
    out: list[tuple[tuple[Any, ...], Any]] = []
    if isinstance(output, (tuple, list)) or isinstance(output, np.ndarray) and output.ndim == 1:
        for i, v in enumerate(output):
            out += flatten_output(v, path + (i,))
        out.append((path + ("#len",), len(output)))
    elif isinstance(output, dict):
        for k, v in output.items():
            out += flatten_output(v, path + (k,))
    else:
        out.append((path, output.item() if isinstance(output, np.generic) else encode_output(output)))
    return out


def path_name(path: tuple[Any, ...]) -> str:
    """Readable name of a leaf path: ``x[1]['count']``, ``len(x[1])``."""
    if not isinstance(path, tuple):
        raise TypeError(f"path must be a tuple of keys and indices, got {type(path).__name__}")
    if path and path[-1] == "#len":
        return f"len({path_name(path[:-1])})"
    return "x" + "".join(f"[{p!r}]" for p in path)


class OutputSchema:
    """Columns of the output table, fixed on the selection batch (see the module docstring).

    Parameters
    ----------
    rows : list of dict
        ``dict(flatten_output(o))`` for the selection outputs (all datasets).
    categorical : sequence of int or str, optional
        Declared categorical coordinates: an int ``i`` is the top-level item ``x[i]``, a str either
        a top-level dict key or a path name as :func:`path_name` writes it (``"x[1]['c']"``).
    max_columns : int
        Keep the ``max_columns`` most frequent paths.
    """

    def __init__(self, rows: Sequence[dict[Any, Any]], categorical: Sequence[Any] | None = None,
                 max_columns: int = MAX_COLUMNS) -> None:
        if isinstance(rows, (str, bytes, dict)) or not isinstance(rows, (list, tuple)) or \
                not all(isinstance(r, dict) for r in rows):
            raise TypeError(f"rows must be a list of dicts path -> leaf (flatten_output), got {type(rows).__name__}")
        if categorical is not None and (isinstance(categorical, (str, bytes)) or
                                        not isinstance(categorical, (list, tuple, range, np.ndarray))):
            raise TypeError(f"categorical must be a list of coordinates (int) or names (str), got "
                            f"{type(categorical).__name__}")
        if isinstance(max_columns, (bool, np.bool_)) or not isinstance(max_columns, (int, np.integer)):
            raise TypeError(f"max_columns must be an integer, got {type(max_columns).__name__}")
        if max_columns < 1:
            raise ValueError(f"max_columns must be >= 1, got {max_columns}")
        freq: dict[Any, int] = {}
        numeric: dict[Any, bool] = {}
        for r in rows:
            for pth, leaf in r.items():
                freq[pth] = freq.get(pth, 0) + 1
                numeric[pth] = numeric.get(pth, True) and _is_number(leaf)
        order = sorted(freq, key=lambda pth: -freq[pth])[:max_columns]
        first = {pth: i for i, pth in enumerate(freq)}  # first-seen order among the kept
        self.paths: list[tuple[Any, ...]] = sorted(order, key=lambda pth: first[pth])
        self.names = [path_name(pth) for pth in self.paths]
        declared = set()
        for c in categorical or ():
            hits = [i for i, pth in enumerate(self.paths)
                    if (pth == (c,)) or (isinstance(c, str) and self.names[i] == c)]
            declared.update(hits)
        self.declared = np.array([i in declared for i in range(len(self.paths))], dtype=bool)
        self.categorical = np.array([not numeric[pth] for pth in self.paths], dtype=bool) | self.declared
        self._col = {pth: i for i, pth in enumerate(self.paths)}

    def table(self, rows: Sequence[dict[Any, Any]], encode: Any) -> np.ndarray:
        """Float table ``(len(rows), n_columns)``: numbers, codes ``encode(list_of_leaves)`` of
        categorical leaves, NaN where a row lacks the path."""
        t = np.full((len(rows), len(self.paths)), np.nan)
        cat_cells: list[tuple[int, int]] = []
        cat_vals: list[Any] = []
        col = self._col
        cat = self.categorical
        for r, row in enumerate(rows):
            for pth, leaf in row.items():
                j = col.get(pth)
                if j is None:
                    continue
                if cat[j]:
                    cat_cells.append((r, j))
                    cat_vals.append(("#leaf", leaf))
                elif _is_number(leaf):
                    t[r, j] = float(leaf)
                # a non-number in a numeric column stays NaN: in no event (codes assigned later than
                # the selection would make the event depend on the order of the draws)
        if cat_cells:
            codes = encode(cat_vals)
            idx = np.asarray(cat_cells)
            t[idx[:, 0], idx[:, 1]] = codes
        return t

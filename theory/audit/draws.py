"""What a mechanism returns, read by the auditor: the mechanism protocol and coded outputs.

A *mechanism* is a callable ``mechanism(data, size, rng)`` returning ``size`` independent
outputs along axis 0 (scalars, fixed-length vectors, or hashable labels); :func:`vectorize`
turns a one-output ``fn(data, rng)`` into that form.  :func:`normalize` reads one batch of
outputs as :class:`Outputs`: numbers (``scalar`` / ``vector``) or int-coded labels (``label``,
through a :class:`Codec` shared by the whole audit), with structured outputs also as a table
(:mod:`semiprivate.theory.audit.outputs`).  Every reading is a deterministic function of the
output (post-processing), so every bound computed on it is a valid bound for the raw outputs.

Implements: AUDIT (mechanism protocol, output coding).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.audit.outputs import OutputSchema, as_label_array, flatten_output, is_structured
from semiprivate.validation import as_generator

#: Codec, Outputs and normalize are the auditor's internals
__all__ = ["Mechanism", "vectorize"]

Mechanism = Callable[[Any, int, np.random.Generator], Any]


def vectorize(fn: Callable[[Any, np.random.Generator], Any]) -> Mechanism:
    """Turn a one-output ``fn(data, rng)`` into the audit form ``mechanism(data, size, rng)``.

    Numeric outputs (numbers, NumPy scalars, arrays) are stacked with :func:`numpy.asarray`;
    anything else (strings, tuples, frozensets, ...) becomes a 1-D object array of labels.
    The loop runs in Python, so expect about 1e5-1e6 outputs per second.

    Implements: AUDIT (mechanism protocol).

    Examples
    --------
    >>> mech = vectorize(lambda data, rng: data + rng.laplace())
    >>> mech(1.0, 3, np.random.default_rng(0)).shape
    (3,)
    >>> labels = vectorize(lambda data, rng: ("yes",) if rng.random() < 0.5 else ("no",))
    >>> labels(None, 2, np.random.default_rng(0)).dtype
    dtype('O')
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r} ({type(fn).__name__})")

    def mechanism(data: Any, size: int, rng: Any = None) -> np.ndarray:
        g = as_generator(rng)
        outs = [fn(data, g) for _ in range(int(size))]
        if any(is_structured(o) for o in outs):
            # tuples, transcripts, dicts stay as they are (1-D object array), also when another kind of
            # output (None for an empty result, say) comes first: the auditor encodes them as labels
            # and as a table for joint events (semiprivate.theory.audit.outputs)
            arr = np.empty(len(outs), dtype=object)
            for i, o in enumerate(outs):
                arr[i] = o
            return arr
        if outs and isinstance(outs[0], (int, float, bool, np.generic, np.ndarray)):
            return np.asarray(outs)
        return as_label_array(outs)

    mechanism.__name__ = f"vectorize({getattr(fn, '__name__', repr(fn))})"
    mechanism.__wrapped__ = fn  # type: ignore[attr-defined]
    return mechanism



class Codec:
    """Maps hashable labels (object outputs, or rows of different shapes) to int codes."""

    def __init__(self) -> None:
        self.codes: dict[Any, int] = {}
        self.labels: list[Any] = []
        self.schema: OutputSchema | None = None  # table columns of structured outputs, fixed at selection

    def encode(self, items: Sequence[Any]) -> np.ndarray:
        out = np.empty(len(items), dtype=np.int64)
        codes = self.codes
        for i, it in enumerate(items):
            key = it.tobytes() + repr(it.shape).encode() if isinstance(it, np.ndarray) else it
            c = codes.get(key)
            if c is None:
                c = codes[key] = len(self.labels)
                self.labels.append(it)
            out[i] = c
        return out


@dataclass
class Outputs:
    raw: Any
    kind: str  # "scalar" | "vector" | "label"
    num: np.ndarray | None  # numeric values: (n,) or (n, d)
    keys: np.ndarray | None  # for value events: numbers, void rows or int codes
    discrete: bool  # values are meaningful events (ints, bools, labels)
    table: np.ndarray | None = None  # structured outputs: float table (semiprivate.theory.audit.outputs.OutputSchema)
    rows: list[dict[Any, Any]] | None = None  # structured selection outputs before the schema is fixed


def normalize(raw: Any, size: int, codec: Codec) -> Outputs:
    arr = raw if isinstance(raw, np.ndarray) else None
    # structured when any output is (tuples, dicts, ...; None or a number may stand among them, e.g. an
    # empty interval): deciding on the first output alone made a batch that happened to start with None
    # a plain label batch, without the table its selected joint events are evaluated on
    structured = bool((isinstance(raw, (list, tuple)) or arr is not None and arr.dtype == object and arr.ndim == 1)
                      and len(raw) and any(is_structured(o) for o in raw))
    if structured:
        arr = as_label_array(list(raw))  # structured outputs -> hashable labels (semiprivate.theory.audit.outputs)
    if arr is None:
        try:
            arr = np.asarray(raw)
        except (ValueError, TypeError):
            arr = np.empty(len(raw), dtype=object)
            arr[:] = list(raw)
    if raw is None:
        raise ValueError(f"mechanism returned None; it must return size={size} outputs along axis 0 "
                         "(a one-output fn(data, rng) needs semiprivate.theory.audit.vectorize(fn))")
    if arr.ndim == 0 or arr.shape[0] != size:
        got = f"{arr.shape[0]} outputs" if arr.ndim else f"a single value ({raw!r:.40})"
        raise ValueError(f"mechanism returned {got}, expected size={size} outputs along axis 0 "
                         "(a one-output fn(data, rng) needs semiprivate.theory.audit.vectorize(fn))")
    kind_char = arr.dtype.kind
    if kind_char == "O" and arr.ndim == 1 and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in arr
    ):
        # numbers too large for int64 (e.g. thresholds over 2^64): compared as float64, a
        # deterministic coarsening of the output (post-processing), so bounds stay valid; integers
        # beyond float64's range (which would all become inf) are kept exact, as labels
        try:
            arr = arr.astype(np.float64)
            kind_char = "f"
        except OverflowError:
            pass
    if kind_char in "OUS":
        if kind_char == "O":
            codes = codec.encode(list(arr))
        else:
            codes = codec.encode([a.item() for a in arr]) if arr.ndim == 1 else codec.encode(list(arr))
        res = Outputs(raw, "label", None, codes, True)
        if structured:
            rows = [dict(flatten_output(o)) for o in raw]
            if codec.schema is None:
                res.rows = rows
            else:
                res.table = codec.schema.table(rows, codec.encode)
        return res
    if kind_char not in "biuf":
        raise TypeError(f"unsupported output dtype {arr.dtype}")
    if kind_char == "f" and arr.dtype.itemsize > 8:
        # extended precision: the events compare float64 values; finite outputs that overflow it would
        # all read as inf and look alike (a bound of 0 on outputs that differ), so they are refused
        wide = arr
        with np.errstate(over="ignore"):
            arr = wide.astype(np.float64)
        if bool((np.isinf(arr) & np.isfinite(wide)).any()):
            raise ValueError(f"mechanism returned finite {wide.dtype} outputs beyond float64's range (they would all "
                             "compare as inf); rescale them (e.g. return their logarithm) or return labels")
    if kind_char == "b":
        arr = arr.astype(np.int64)
    if kind_char == "f" and np.isnan(arr).any():
        bad = int(np.count_nonzero(np.isnan(arr).reshape(size, -1).any(axis=1)))
        raise ValueError(f"mechanism returned NaN in {bad} of {size} outputs: NaN belongs to no event (x <= t and "
                         "x > t are both false); return finite numbers, +-inf or labels")
    if arr.ndim > 2:
        arr = arr.reshape(size, -1)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    discrete = kind_char in "biu"
    if arr.ndim == 1:
        return Outputs(raw, "scalar", arr, arr, discrete)
    keys: np.ndarray | None = None
    if discrete:
        a = np.ascontiguousarray(arr.astype(np.int64))
        keys = a.view(np.dtype((np.void, 8 * a.shape[1]))).ravel()
    return Outputs(raw, "vector", arr, keys, discrete)

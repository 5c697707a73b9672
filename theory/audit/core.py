"""Empirical differential-privacy auditing with statistically valid epsilon lower bounds.

A *mechanism* is a callable ``mechanism(data, size, rng)`` returning ``size`` independent
outputs along axis 0 (scalars, fixed-length vectors, or hashable labels); :func:`vectorize`
turns a one-output ``fn(data, rng)`` into that form.

How :func:`audit_mechanism` works (Implements: AUDIT):

1. **Selection** (first batch, ``selection_trials`` outputs per dataset).  For every
   neighbouring pair, candidate events are built from these outputs: thresholds
   ``{x > t}``/``{x <= t}`` at quantiles and extremes of scalar outputs; single values and
   likelihood-ratio-ordered sets of values for discrete outputs (integers, labels, atoms of
   real outputs, integer vectors); for vector outputs, thresholds on projections (a
   regularised Fisher discriminant trained to tell the two sides apart, the mean difference,
   a logistic score on ``(z, z**2)`` and, with ``mlp=True``, a small neural network's logit) and
   on each coordinate (beyond 16 coordinates, the 16 ranked first by a selection-batch
   Kolmogorov–Smirnov statistic, :func:`semiprivate.theory.audit.selection.rank_columns`).  Structured
   outputs (tuples, dicts, variable-length sequences) and vectors with categorical coordinates
   (declared with ``categorical=``, non-numeric leaves, or integer coordinates with at most 16
   values) also get value events per categorical coordinate and *joint* events
   ``{x[j] == v and x[i] > t}`` (see :mod:`semiprivate.theory.audit.outputs`).  Float vectors with coded columns
   (atoms such as SVT's above / below / aborted codes, :func:`semiprivate.theory.audit.selection.atom_blocks`)
   also get whole-row pattern events and cross-fitted likelihood-ratio-ordered pattern sets
   (:class:`semiprivate.theory.audit.selection.RowPatterns`, ``pattern`` / ``patternset``); ``float_bits=True`` adds events on
   the sign, exponent and low mantissa bits of float outputs (:func:`bit_keys`).  Each
   (pair, event, direction) is scored by a pessimistic anticipated bound
   (:func:`semiprivate.theory.audit.selection.anticipated_bound`) and ``K`` are kept, every pair first
   (:func:`semiprivate.theory.audit.selection.pick`).  The families searched per pair, their sizes and the
   best scores are reported (:class:`PairSearch`, :meth:`AuditResult.explain`).
2. **Estimation** (fresh batches, ``trials`` outputs per dataset, drawn after selection and
   independent of it).  For each kept (pair, event, direction) with numerator dataset ``A``
   and other dataset ``B``, one-sided Clopper–Pearson bounds ``p_lo <= P[M(A) in E]`` and
   ``q_hi >= P[M(B) in E]`` are computed, each at level ``alpha / (2K)``
   (``alpha = 1 - confidence``, ``K`` = number of kept tuples: a Bonferroni correction across
   pairs, events and both directions).  ``K`` is fixed before the estimation batch is drawn and
   the kept events are fixed functions of the output chosen from the selection batch only, so
   the correction covers every candidate family, however many candidates were scored.
3. **Bound**.  (epsilon, delta)-DP forces ``P[M(A) in E] <= e^eps P[M(B) in E] + delta``, so
   with probability ``>= confidence`` *every* kept tuple satisfies
   ``eps >= log((p_lo - delta) / q_hi)``; ``epsilon_lower_bound`` is the largest of these
   (at least 0).  ``violation`` is ``epsilon_lower_bound > epsilon``; the probability that a
   mechanism that *is* (epsilon, delta)-DP is flagged is at most ``1 - confidence``.
   ``p_value`` is the smallest ``alpha`` at which the bound would exceed the claimed epsilon
   (the dual p-value of the same test).

There is no probability floor: an event seen under one input and never under the other
(a *support mismatch*) is marked as such in the witness; its bound uses the exact
Clopper–Pearson upper bound ``1 - (alpha/2K)^(1/n)`` of the zero count, so it grows without
cap like ``log(n)`` as trials increase (a finite sample never *proves* a probability is 0, so
a finite-sample bound is finite; ``inf`` is returned only for user events whose
probabilities are known exactly, never from estimates).

References
----------
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea, "Auditing differentially private machine
   learning: how private is private SGD?", NeurIPS 2020 (Clopper–Pearson epsilon bounds).
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting violations of
   differential privacy", CCS 2018 (event selection on a separate batch).
"""

from __future__ import annotations

import abc
import hashlib
import inspect
import math
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from semiprivate.kernels.validation import (
    DELTA,
    EPSILON,
    RNG,
    CallableConstraint,
    Integer,
    Optional,
    Real,
    as_generator,
    validate_params,
)
from semiprivate.theory.audit import selection
from semiprivate.theory.audit.batches import DEFAULT_TIMEOUT as DEFAULT_BATCH_TIMEOUT
from semiprivate.theory.audit.batches import batch_sizes, run_batches
from semiprivate.theory.audit.outputs import OutputSchema, as_label_array, flatten_output, is_structured
from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound

__all__ = [
    "Mechanism",
    "Event",
    "Witness",
    "AuditResult",
    "vectorize",
    "audit_mechanism",
    "audit_pairs",
    "assert_private",
]

Mechanism = Callable[[Any, int, np.random.Generator], Any]

DEFAULT_TRIALS = 1_000_000
_CHUNK_ELEMENTS = 1 << 21


# ---------------------------------------------------------------------------
# mechanisms
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# outputs and events
# ---------------------------------------------------------------------------


class _Codec:
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
class _Outputs:
    raw: Any
    kind: str  # "scalar" | "vector" | "label"
    num: np.ndarray | None  # numeric values: (n,) or (n, d)
    keys: np.ndarray | None  # for value events: numbers, void rows or int codes
    discrete: bool  # values are meaningful events (ints, bools, labels)
    table: np.ndarray | None = None  # structured outputs: float table (semiprivate.theory.audit.outputs.OutputSchema)
    rows: list[dict[Any, Any]] | None = None  # structured selection outputs before the schema is fixed


def _normalize(raw: Any, size: int, codec: _Codec) -> _Outputs:
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
        res = _Outputs(raw, "label", None, codes, True)
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
        return _Outputs(raw, "scalar", arr, arr, discrete)
    keys: np.ndarray | None = None
    if discrete:
        a = np.ascontiguousarray(arr.astype(np.int64))
        keys = a.view(np.dtype((np.void, 8 * a.shape[1]))).ravel()
    return _Outputs(raw, "vector", arr, keys, discrete)


class Event(abc.ABC):
    """An output event ``E``; ``event(outputs)`` returns the boolean indicator per output.

    Implements: AUDIT (candidate events).
    """

    description: str = "event"

    @abc.abstractmethod
    def indicator(self, out: _Outputs) -> np.ndarray:
        """Boolean indicator of the event for each output."""

    def __repr__(self) -> str:
        return self.description


class ThresholdEvent(Event):
    """``{proj(x) > t}`` (``upper=True``) or ``{proj(x) <= t}``; ``proj`` is identity, a
    coordinate, or a dot product with a direction vector."""

    def __init__(self, threshold: float, upper: bool,
                 projection: None | int | np.ndarray | Callable[[np.ndarray], np.ndarray] = None,
                 name: str = "x") -> None:
        self.threshold = float(threshold)
        self.upper = bool(upper)
        self.projection = projection
        self.description = f"{name} {'>' if upper else '<='} {self.threshold:.6g}"

    def project(self, out: _Outputs) -> np.ndarray:
        x = out.num
        if x is None:
            raise ValueError("threshold event on non-numeric outputs")
        if self.projection is None:
            return x
        if isinstance(self.projection, int):
            return x[:, self.projection]
        if callable(self.projection):  # a learned score (semiprivate.theory.audit.selection.LogisticScore)
            return np.asarray(self.projection(x))
        return x @ self.projection

    def indicator(self, out: _Outputs) -> np.ndarray:
        v = self.project(out)
        return v > self.threshold if self.upper else v <= self.threshold


class ValueSetEvent(Event):
    """``{x in S}`` for a finite set ``S`` of output values (numbers, integer rows or labels)."""

    def __init__(self, values: np.ndarray, description: str) -> None:
        self.values = np.sort(values)
        self.description = description

    def indicator(self, out: _Outputs) -> np.ndarray:
        if out.keys is None:
            raise ValueError("value event on outputs without values")
        if self.values.size == 1:
            return out.keys == self.values[0]
        return np.isin(out.keys, self.values)


def _table(out: _Outputs) -> np.ndarray:
    """The output table: structured outputs' schema table, or a numeric vector's coordinates."""
    if out.table is not None:
        return out.table
    if out.num is None or out.num.ndim != 2:
        raise ValueError("table event on outputs without a table (structured or vector outputs)")
    return out.num


class TableEvent(Event):
    """Joint event on table columns: ``{x[j1] in S1 and ... and x[i] > t}`` (or ``<= t``), where the
    ``x[j] in S`` conditions are on categorical columns and the optional threshold on a numeric one.
    A missing leaf (NaN) satisfies no condition.  Implements: AUDIT (joint events)."""

    def __init__(self, conds: Sequence[tuple[int, np.ndarray]], thr: tuple[int, float, bool] | None,
                 description: str) -> None:
        self.conds = [(int(j), np.sort(np.asarray(v, dtype=np.float64))) for j, v in conds]
        self.thr = None if thr is None else (int(thr[0]), float(thr[1]), bool(thr[2]))
        self.description = description

    def indicator(self, out: _Outputs) -> np.ndarray:
        t = _table(out)
        ind = np.ones(t.shape[0], dtype=bool)
        for j, vals in self.conds:
            ind &= (t[:, j] == vals[0]) if vals.size == 1 else np.isin(t[:, j], vals)
        if self.thr is not None:
            i, th, upper = self.thr
            with np.errstate(invalid="ignore"):
                ind &= (t[:, i] > th) if upper else (t[:, i] <= th)
        return ind


def bit_keys(v: np.ndarray, k: int) -> np.ndarray:
    """``(sign, exponent, lowest k mantissa bits)`` of float64 values packed into one int64 key.

    Implements: AUDIT (float bit events; Mironov 2012: a textbook Laplace mechanism computed in
    doubles has an output support that depends on the input, visible in the low mantissa bits)."""
    u = np.ascontiguousarray(np.asarray(v, dtype=np.float64)).view(np.uint64)
    top = u >> np.uint64(52)  # sign and biased exponent, 12 bits
    low = u & np.uint64((1 << k) - 1)
    return ((top << np.uint64(k)) | low).astype(np.int64)


class BitsEvent(Event):
    """``{bit_keys(x[col], k) in S}``: sign, exponent and ``k`` low mantissa bits of a float output."""

    def __init__(self, col: int | None, k: int, values: np.ndarray, description: str) -> None:
        self.col, self.k, self.values, self.description = col, int(k), np.sort(values), description

    def indicator(self, out: _Outputs) -> np.ndarray:
        if out.num is None:
            raise ValueError("bit event on non-numeric outputs")
        v = out.num if self.col is None else out.num[:, self.col]
        return np.isin(bit_keys(v, self.k), self.values)


class UserEvent(Event):
    """A user-supplied event: a callable mapping the raw outputs to a boolean array."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.description = str(getattr(fn, "description", None) or getattr(fn, "__name__", repr(fn)))

    def indicator(self, out: _Outputs) -> np.ndarray:
        ind = np.asarray(self.fn(out.raw), dtype=bool)
        if ind.shape != (len(out.raw),):
            raise ValueError(f"event {self.description!r} must return one bool per output, got shape {ind.shape}")
        return ind


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------


@dataclass
class Witness:
    """The (pair, event, direction) that gives the reported bound.

    ``p`` is the estimated ``P[M(A) in E]`` for the numerator dataset ``A`` and ``q`` the
    estimated ``P[M(B) in E]``; the intervals are the Bonferroni-corrected one-sided
    Clopper–Pearson bounds (both sides shown) used for the bound.
    """

    event: Event
    direction: str
    pair_index: int
    p: float
    p_interval: tuple[float, float]
    q: float
    q_interval: tuple[float, float]
    counts: tuple[int, int, int]  # (hits under A, hits under B, trials per side)
    support_mismatch: bool
    lower_bound: float
    data: Any = field(default=None, repr=False)
    neighbour: Any = field(default=None, repr=False)
    seed: Any = None

    def pair(self) -> tuple[Any, Any]:
        """The neighbouring pair ``(data, neighbour)`` on which the event was tested (the objects
        the mechanism was called with, so the witness can be re-run)."""
        return self.data, self.neighbour

    def describe(self) -> str:
        k_a, k_b, n = self.counts
        # A (numerator) and B are the pair's data and neighbour, in the order of the direction
        a_name, b_name = ("neighbour", "data") if self.direction.startswith("neighbour") else ("data", "neighbour")
        seed = "a Generator (pass an int rng to make the audit reproducible)" if self.seed is None else repr(self.seed)
        lines = [
            f"event E = {{{self.event.description}}} on pair #{self.pair_index}, direction {self.direction}",
            f"  data      = {_short_repr(self.data)}",
            f"  neighbour = {_short_repr(self.neighbour)}",
            f"  audit rng = {seed} (witness.pair() returns the two objects)",
            f"  P[M({a_name}) in E] = {self.p:.6g}  ({k_a}/{n}), interval [{self.p_interval[0]:.6g}, "
            f"{self.p_interval[1]:.6g}]",
            f"  P[M({b_name}) in E] = {self.q:.6g}  ({k_b}/{n}), interval [{self.q_interval[0]:.6g}, "
            f"{self.q_interval[1]:.6g}]",
        ]
        if self.support_mismatch:
            lines.append(f"  support mismatch: E was never seen under the {b_name} (the bound grows like log(trials))")
        return "\n".join(lines)


def _short_repr(obj: Any, limit: int = 240) -> str:
    """``repr`` of a dataset for reports: NumPy arrays summarised, anything cut at ``limit`` characters."""
    if isinstance(obj, np.ndarray):
        text = np.array2string(obj, threshold=32, edgeitems=4, max_line_width=10_000).replace("\n", "")
        text = f"array({text}, dtype={obj.dtype}, shape={obj.shape})"
    else:
        try:
            text = repr(obj)
        except Exception:  # a broken __repr__ must not hide the audit's result
            text = f"<{type(obj).__name__} object>"
    return text if len(text) <= limit else text[: limit - 5] + " ...)"


@dataclass
class PairSearch:
    """What the search tried on one neighbouring pair, and how far it got.

    ``families`` maps each candidate-event family (``thr`` thresholds of a scalar, ``coordN``
    thresholds of coordinate N, ``fisher`` / ``meandiff`` / ``logistic`` projections, ``value`` single
    values, ``valueset`` likelihood-ratio-ordered value sets, ``joint`` categorical-and-threshold
    events, ``pattern`` / ``patternset`` whole-row patterns of coded float columns and their
    cross-fitted sets, ``bits`` float bit patterns, ``user`` user events) to the number of (event, direction)
    candidates built from the selection batch.  ``best_anticipated`` is the best pessimistic
    anticipated bound (:func:`semiprivate.theory.audit.selection.anticipated_bound`) among them (``nan`` for user
    events: no selection), ``n_tested`` how many of the pair's candidates got one of the ``K`` tests and
    ``best_bound`` the best bound they gave on the estimation batch (``nan`` when none was tested).
    """

    pair_index: int
    families: dict[str, int]
    best_anticipated: float
    best_candidate: str
    n_tested: int
    best_bound: float

    def describe(self) -> str:
        fam = ", ".join(f"{k} {v}" for k, v in self.families.items())
        sel = ("" if math.isnan(self.best_anticipated) else
               f"; best anticipated bound on the selection batch {self.best_anticipated:.4g} ({self.best_candidate})")
        fin = f"best final bound {self.best_bound:.4g}" if self.n_tested else "no test (its candidates ranked below the K kept)"
        return f"pair #{self.pair_index}: {sum(self.families.values())} candidates ({fam}){sel}; " \
               f"{self.n_tested} tested, {fin}"


@dataclass
class AuditResult:
    """Outcome of :func:`audit_mechanism`.

    Attributes
    ----------
    epsilon_lower_bound : float
        Lower bound on the mechanism's epsilon at the given delta, valid with probability
        ``>= confidence`` (over the audit's randomness); 0 when no event gives evidence.
    violation : bool
        ``epsilon_lower_bound > epsilon`` (the claim is refuted at the stated confidence).
    p_value : float
        Smallest ``1 - confidence`` at which the claim would be refuted (1 when never).
    witness : Witness or None
        The event and probabilities behind the bound.
    trials_used : int
        Mechanism outputs drawn in total (selection + estimation, all datasets).
    """

    epsilon_lower_bound: float
    violation: bool
    p_value: float
    witness: Witness | None
    trials_used: int
    epsilon: float
    delta: float
    confidence: float
    n_tests: int
    n_pairs: int
    n_candidates: int
    seconds: float = 0.0
    tests: list[Witness] = field(default_factory=list, repr=False)
    search: list[PairSearch] = field(default_factory=list, repr=False)
    seed: Any = None

    @property
    def bonferroni_level(self) -> float:
        """Level ``alpha / (2K)`` of each one-sided Clopper–Pearson interval (``alpha = 1 - confidence``)."""
        return (1.0 - self.confidence) / (2 * self.n_tests)

    @property
    def families(self) -> dict[str, int]:
        """Candidates built per event family, summed over pairs (see :class:`PairSearch`)."""
        out: dict[str, int] = {}
        for ps in self.search:
            for k, v in ps.families.items():
                out[k] = out.get(k, 0) + v
        return out

    def explain(self) -> str:
        """Why the bound is what it is: the families tried per pair, the best selection score,
        the best final bound and p-value against the Bonferroni level."""
        lines = []
        best = max(self.tests, key=lambda w: w.lower_bound) if self.tests else None
        level = self.bonferroni_level
        # p_value = 2K * (smallest per-interval level at which some test refutes the claim)
        per_test = self.p_value / (2 * self.n_tests)
        if self.violation:
            lines.append(f"why: the witness's bound {self.epsilon_lower_bound:.4g} exceeds the claim {self.epsilon:g} "
                         f"at the Bonferroni level {level:.3g} per one-sided interval (K = {self.n_tests} tests)")
        elif best is None:
            lines.append("why: no test was run")
        else:
            raw = best.lower_bound
            sel = [ps.best_anticipated for ps in self.search if not math.isnan(ps.best_anticipated)]
            if raw <= 0.0:
                if sel and max(sel) <= 0.0:
                    lines.append("why the bound is 0: no candidate event showed evidence on the selection batch "
                                 f"(best anticipated bound {max(sel):.4g} <= 0); more trials, other pairs or events "
                                 "(events=..., categorical=..., float_bits=True) may find one")
                else:
                    lines.append(f"why the bound is 0: the best tested event gave {raw:.4g} <= 0 on the estimation "
                                 "batch" + (f" (selection anticipated up to {max(sel):.4g})" if sel else ""))
            pv = (f"the best test's p-value for the claim {per_test:.3g} per interval" if self.p_value < 1.0 else
                  "no test refutes the claim at any level")
            lines.append(f"why no violation: best bound {max(raw, 0.0):.4g} <= claim {self.epsilon:g}; {pv} vs the "
                         f"Bonferroni level {level:.3g} = (1 - {self.confidence:g}) / (2 x {self.n_tests} tests)")
        lines += ["  " + ps.describe() for ps in self.search]
        return "\n".join(lines)

    def report(self) -> str:
        """A readable multi-line report (claim, bound, verdict, witness and its pair, the search)."""
        verdict = "VIOLATION" if self.violation else "no violation found"
        fam = ", ".join(f"{k} {v}" for k, v in self.families.items())
        lines = [
            f"claimed (epsilon, delta) = ({self.epsilon:g}, {self.delta:g}); "
            f"epsilon lower bound = {self.epsilon_lower_bound:.4f} at confidence {self.confidence:g} -> {verdict}",
            f"p-value {self.p_value:.3g}; {self.n_pairs} neighbouring pair(s), {self.n_candidates} candidate events"
            + (f" ({fam})" if fam else "")
            + f", {self.n_tests} tested (Bonferroni over pairs, events, directions); {self.trials_used:,} trials",
        ]
        if self.witness is not None:
            lines.append(self.witness.describe())
        if self.search:
            lines.append(self.explain())
        return "\n".join(lines)

    __str__ = report


# ---------------------------------------------------------------------------
# selection
# ---------------------------------------------------------------------------


@dataclass
class _Candidate:
    score: float
    pair: int
    event: Event
    forward: bool  # True: numerator is pair's first dataset
    group: tuple[Any, ...]


def _anticipated(kx: np.ndarray, ky: np.ndarray, s: int, n: int, a: float, delta: float) -> np.ndarray:
    """Pessimistic anticipated bound (see :func:`semiprivate.theory.audit.selection.anticipated_bound`)."""
    return selection.anticipated_bound(kx, ky, s, n, a, delta)


def _threshold_candidates(xs: np.ndarray, ys: np.ndarray, n_thresholds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs = np.sort(xs)
    ys = np.sort(ys)
    pooled = np.concatenate([xs, ys])
    qs = np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds))
    ext = [xs[0], ys[0], xs[-1], ys[-1]]
    with np.errstate(all="ignore"):
        ext += [np.nextafter(xs[0], -np.inf), np.nextafter(ys[0], -np.inf)]
    t = selection.unique(np.concatenate([qs, np.asarray(ext, dtype=np.float64)]))
    t = t[np.isfinite(t)]
    cx = xs.size - np.searchsorted(xs, t, side="right")
    cy = ys.size - np.searchsorted(ys, t, side="right")
    return t, cx.astype(np.float64), cy.astype(np.float64)


def _select(
    pair: int,
    ox: _Outputs,
    oy: _Outputs,
    s: int,
    n: int,
    a: float,
    delta: float,
    n_thresholds: int,
    max_values: int,
    codec: _Codec,
    categorical: Sequence[Any] = (),
    float_bits: bool = False,
    mlp: bool = False,
) -> tuple[list[_Candidate], dict[str, int]]:
    cands: list[_Candidate] = []
    fams: dict[str, int] = {}

    def add_lazy(m: int, make: Callable[[int], Event], kx: np.ndarray, ky: np.ndarray, group: str,
                 family: str) -> None:
        """Score ``m`` candidates counted ``kx`` vs ``ky``; build events only for the kept ones."""
        fams[family] = fams.get(family, 0) + 2 * m
        if not m:
            return
        for forward, (num, den) in ((True, (kx, ky)), (False, (ky, kx))):
            sc = _anticipated(num, den, s, n, a, delta)
            for i in np.argsort(-sc, kind="stable")[:8]:
                cands.append(_Candidate(float(sc[i]), pair, make(int(i)), forward, (pair, group, forward)))

    def value_family(kx_keys: np.ndarray, ky_keys: np.ndarray, make: Callable[[np.ndarray, str], Event],
                     label: Callable[[Any], str], family: str) -> None:
        """Single values and likelihood-ratio-ordered value sets of derived keys (as for raw values)."""
        keys = np.concatenate([kx_keys, ky_keys])
        uniq, inv, counts = selection.unique(keys, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        cx = np.bincount(inv[: kx_keys.size], minlength=uniq.size).astype(np.float64)
        cy = np.bincount(inv[kx_keys.size:], minlength=uniq.size).astype(np.float64)
        # values seen fewer than 3 times cannot carry evidence alone, and as members of the
        # likelihood-ratio-ordered sets they only overfit the selection batch (continuous leaves)
        keep = np.nonzero(counts >= 3)[0]
        keep = keep[np.argsort(-counts[keep], kind="stable")[:max_values]]
        uk, cxk, cyk = uniq[keep], cx[keep], cy[keep]
        add_lazy(uk.size, lambda i: make(uk[i:i + 1], label(uk[i])), cxk, cyk, family, family)
        if uk.size < 2:
            return
        for forward in (True, False):
            num, den = (cxk, cyk) if forward else (cyk, cxk)
            order = np.argsort(-(num + 0.5) / (den + 0.5), kind="stable")
            m = min(order.size - 1, 512)
            kx = np.cumsum(num[order])[1:m + 1]
            ky = np.cumsum(den[order])[1:m + 1]
            sc = _anticipated(kx, ky, s, n, a, delta)
            fams[family] = fams.get(family, 0) + m
            for i in np.argsort(-sc, kind="stable")[:8]:
                vals = uk[order[: int(i) + 2]]
                shown = " | ".join(label(v) for v in vals[:3]) + (" | ..." if vals.size > 3 else "")
                ev = make(vals, f"{shown} ({vals.size} values)")
                cands.append(_Candidate(float(sc[i]), pair, ev, forward, (pair, family + "set", forward)))

    def restricted(xv: np.ndarray, yv: np.ndarray, make: Callable[[float, bool], Event], group: str,
                   family: str, n_thr: int) -> None:
        """Thresholds ``{v > t}``, ``{v <= t}`` on the rows kept in ``xv``, ``yv`` (counts out of ``s``)."""
        if xv.size == 0 or yv.size == 0:
            return
        t, cx, cy = _threshold_candidates(xv, yv, n_thr)
        kx = np.concatenate([cx, xv.size - cx])
        ky = np.concatenate([cy, yv.size - cy])
        add_lazy(kx.size, lambda i: make(float(t[i % t.size]), i < t.size), kx, ky, group, family)

    def add(events: list[Event], kx: np.ndarray, ky: np.ndarray, group: str) -> None:
        fams[group] = fams.get(group, 0) + 2 * len(events)
        if not events:
            return
        fwd = _anticipated(kx, ky, s, n, a, delta)
        bwd = _anticipated(ky, kx, s, n, a, delta)
        for forward, sc in ((True, fwd), (False, bwd)):
            order = np.argsort(-sc, kind="stable")[:8]
            for i in order:
                cands.append(_Candidate(float(sc[i]), pair, events[int(i)], forward, (pair, group, forward)))

    def thresholds(x: np.ndarray, y: np.ndarray, proj: None | int | np.ndarray | Callable[[np.ndarray], np.ndarray],
                   name: str, group: str) -> None:
        t, cx, cy = _threshold_candidates(x, y, n_thresholds)
        ev: list[Event] = [ThresholdEvent(v, True, proj, name) for v in t]
        ev += [ThresholdEvent(v, False, proj, name) for v in t]
        add(ev, np.concatenate([cx, s - cx]), np.concatenate([cy, s - cy]), group)

    if ox.kind != oy.kind or (ox.num is not None and oy.num is not None and ox.num.shape[1:] != oy.num.shape[1:]):
        raise ValueError("outputs under the two datasets have different shapes/kinds; "
                         "return labels (e.g. tuples) if the output space itself differs")
    if ox.kind == "scalar":
        assert ox.num is not None and oy.num is not None
        thresholds(ox.num.astype(np.float64), oy.num.astype(np.float64), None, "x", "thr")
    elif ox.kind == "vector":
        assert ox.num is not None and oy.num is not None
        x = ox.num.astype(np.float64)
        y = oy.num.astype(np.float64)
        d = x.shape[1]
        diff = x.mean(axis=0) - y.mean(axis=0)
        # one selection output per dataset (selection_trials=1) has no sample covariance
        cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False)) if s > 1 else np.zeros((d, d))
        cov = np.atleast_2d(cov)
        reg = 1e-6 * (np.trace(cov) / d + 1e-12)
        try:
            w = np.linalg.solve(cov + reg * np.eye(d), diff)
        except np.linalg.LinAlgError:
            w = diff
        for vec, nm in ((w, "fisher"), (diff, "meandiff")):
            norm = float(np.linalg.norm(vec))
            if norm > 0 and np.isfinite(norm):
                u = vec / norm
                thresholds(x @ u, y @ u, u, f"<{nm} direction, x>", nm)
        learned = selection.learned_score(x, y, np.random.default_rng(pair))  # selection batch only
        if learned is not None:
            thresholds(learned(x), learned(y), learned, "<logistic score, x>", "logistic")
        if mlp:
            net = selection.mlp_score(x, y, np.random.default_rng(pair))  # selection batch only
            if net is not None:
                thresholds(net(x), net(y), net, "<mlp score, x>", "mlp")
        # per-coordinate thresholds: declared categorical coordinates get value events instead;
        # beyond MAX_COORDS coordinates only the MAX_COORDS ranked first on the selection batch
        declared = {int(c) for c in categorical if isinstance(c, (int, np.integer)) and 0 <= int(c) < d}
        free = [j for j in range(d) if j not in declared]
        if len(free) > selection.MAX_COORDS:
            coords = [free[int(i)] for i in selection.rank_columns(x[:, free], y[:, free], selection.MAX_COORDS)]
        else:
            coords = free
        for j in coords:
            thresholds(x[:, j], y[:, j], j, f"x[{j}]", f"coord{j}")
        _table_events(x, y, [f"x[{j}]" for j in range(d)], np.array([j in declared for j in range(d)]), coords,
                      None, value_family, add_lazy, n_thresholds)
        if not ox.discrete:  # coded float columns: whole-block patterns (selection.RowPatterns)
            for blk in selection.atom_blocks(x, y):
                px, py = blk(x), blk(y)
                uk, cnt = selection.unique(np.concatenate([px, py]), return_counts=True)
                uk = uk[cnt >= 3]
                cx, cy = (np.bincount(np.searchsorted(uk, v[np.isin(v, uk)]), minlength=uk.size).astype(np.float64)
                          for v in (px, py))

                def one(i: int, blk: selection.RowPatterns = blk, uk: np.ndarray = uk) -> Event:
                    return UserEvent(selection.PatternEvent(blk, uk[i:i + 1], blk.describe(uk[i])))

                add_lazy(uk.size, one, cx, cy, "pattern", "pattern")
                psets, scored = selection.honest_sets(px, py, s, n, a, delta, max_values)
                fams["patternset"] = fams.get("patternset", 0) + scored
                for psc, pfwd, pvals in psets:  # scored on rows that did not order them (cross-fitting)
                    pdesc = " | ".join(blk.describe(v) for v in pvals[:3]) + (" | ..." if pvals.size > 3 else "")
                    pev = UserEvent(selection.PatternEvent(blk, pvals, f"{pdesc} ({pvals.size} patterns)"))
                    cands.append(_Candidate(psc, pair, pev, pfwd, (pair, "patternset", pfwd)))
    elif ox.table is not None and oy.table is not None and codec.schema is not None:
        sch = codec.schema
        tx, ty = ox.table, oy.table
        numeric = [j for j in range(tx.shape[1]) if not sch.categorical[j]]
        if len(numeric) > selection.MAX_COORDS:
            numeric = [numeric[int(i)] for i in
                       selection.rank_columns(tx[:, numeric], ty[:, numeric], selection.MAX_COORDS)]
        for j in numeric:
            xv, yv = tx[:, j], ty[:, j]
            nm = sch.names[j]

            def col_event(t: float, up: bool, j: int = j, nm: str = nm) -> TableEvent:
                return TableEvent([], (j, t, up), f"{nm} {'>' if up else '<='} {t:.6g}")

            restricted(xv[~np.isnan(xv)], yv[~np.isnan(yv)], col_event, f"col{j}", "col", n_thresholds)
        _table_events(tx, ty, sch.names, sch.categorical, numeric, codec, value_family, add_lazy, n_thresholds)
    if float_bits and ox.num is not None and oy.num is not None and ox.num.dtype.kind == "f":
        cols: list[int | None] = [None] if ox.kind == "scalar" else list(coords)
        for col in cols:
            xv = ox.num if col is None else ox.num[:, col]
            yv = oy.num if col is None else oy.num[:, col]
            for k in (1, 4):
                nm = "x" if col is None else f"x[{col}]"

                def bits_label(v: Any, k: int = k, nm: str = nm) -> str:
                    v = int(v)
                    top = v >> k
                    return f"{'-' if top >> 11 else '+'}2^{(top & 0x7FF) - 1023} bits{k}={v & ((1 << k) - 1):0{k}b}"

                def bits_event(vals: Any, desc: str, col: int | None = col, k: int = k, nm: str = nm) -> BitsEvent:
                    return BitsEvent(col, k, vals, f"(sign, exponent, low {k} bits of {nm}): {desc}")

                value_family(bit_keys(xv, k), bit_keys(yv, k), bits_event, bits_label, "bits")
    # value events
    atoms = ox.discrete or (ox.kind == "scalar" and _has_repeats(ox.num) or _has_repeats(oy.num))
    if ox.keys is not None and oy.keys is not None and atoms:
        keys = np.concatenate([ox.keys, oy.keys])
        uniq, inv, counts = selection.unique(keys, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        cx = np.bincount(inv[: ox.keys.size], minlength=uniq.size).astype(np.float64)
        cy = np.bincount(inv[ox.keys.size:], minlength=uniq.size).astype(np.float64)
        # labels with continuous leaves (a numeric table column) are atoms like real outputs: count >= 3
        continuous = codec.schema is not None and ox.table is not None and not bool(np.all(codec.schema.categorical))
        keep = np.nonzero(counts >= (1 if ox.discrete and not continuous else 3))[0]
        if keep.size > max_values:
            keep = keep[np.argsort(-counts[keep], kind="stable")[:max_values]]
        if keep.size:
            uk, cxk, cyk = uniq[keep], cx[keep], cy[keep]

            def label(v: Any) -> str:
                if ox.kind == "label":
                    return f"x == {codec.labels[int(v)]!r}"
                if ox.kind == "vector":
                    return f"x == {np.frombuffer(v.tobytes(), dtype=np.int64).tolist()}"
                return f"x == {v.item()!r}"

            ev: list[Event] = [ValueSetEvent(uk[i:i + 1], label(uk[i])) for i in range(uk.size)]
            add(ev, cxk, cyk, "value")
            if uk.size > 1:
                for forward in (True, False):
                    num, den = (cxk, cyk) if forward else (cyk, cxk)
                    order = np.argsort(-(num + 0.5) / (den + 0.5), kind="stable")
                    m = min(order.size - 1, 512)
                    sets: list[Event] = []
                    for j in range(2, m + 2):
                        vals = uk[order[:j]]
                        shown = ", ".join(label(v)[5:] for v in vals[:4]) + (", ..." if j > 4 else "")
                        sets.append(ValueSetEvent(vals, f"x in {{{shown}}} ({j} values)"))
                    kx = np.cumsum(num[order])[1:m + 1]
                    ky = np.cumsum(den[order])[1:m + 1]
                    sc = _anticipated(kx, ky, s, n, a, delta)
                    fams["valueset"] = fams.get("valueset", 0) + len(sets)
                    for i in np.argsort(-sc, kind="stable")[:8]:
                        cands.append(_Candidate(float(sc[i]), pair, sets[int(i)], forward, (pair, "valueset", forward)))
    return cands, fams


#: joint events: at most this many categorical columns (the best by their single-value events) and
#: values per column (the most frequent), each crossed with every ranked numeric column
MAX_JOINT_COLUMNS = 4
MAX_JOINT_VALUES = 8
#: auto-categorical: a numeric column whose selection values are integers with at most this many
#: distinct values also gets value and joint events (declared categorical columns get no thresholds)
MAX_AUTO_CATEGORIES = 16


def _table_events(tx: np.ndarray, ty: np.ndarray, names: Sequence[str], declared: np.ndarray, numeric: Sequence[int],
                  codec: _Codec | None, value_family: Callable[..., None], add_lazy: Callable[..., None],
                  n_thresholds: int) -> None:
    """Value events on categorical columns and joint events ``{x[j] == v and x[i] > t}`` (or ``<= t``).

    ``declared`` marks the categorical columns (declared, or non-numeric leaves of structured
    outputs); numeric columns with few integer values are added (:data:`MAX_AUTO_CATEGORIES`).
    Joint events cross the :data:`MAX_JOINT_COLUMNS` x :data:`MAX_JOINT_VALUES` categories with the
    ``numeric`` columns, ``min(n_thresholds, 64)`` thresholds each, counted on the rows of the
    category (so every count is out of the ``s`` selection draws).  Implements: AUDIT (joint events)."""
    d = tx.shape[1]
    cat = [j for j in range(d) if declared[j]]
    for j in numeric:  # auto-categorical among the (ranked) numeric columns only: bounded cost
        if declared[j]:
            continue
        col = np.concatenate([tx[:, j], ty[:, j]])
        col = col[~np.isnan(col)]
        if col.size and np.all(np.isfinite(col)) and np.all(col == np.round(col)):
            nu = np.unique(col).size
            if 2 <= nu <= MAX_AUTO_CATEGORIES:
                cat.append(j)
    if not cat:
        return

    def show(j: int, v: Any) -> str:
        if codec is not None and declared[j]:
            lab = codec.labels[int(v)]
            return repr(lab[1] if isinstance(lab, tuple) and len(lab) == 2 and lab[0] == "#leaf" else lab)
        return f"{float(v):g}"

    rank = []
    for j in cat:
        xv, yv = tx[:, j], ty[:, j]
        value_family(xv[~np.isnan(xv)], yv[~np.isnan(yv)],
                     lambda vals, desc, j=j: TableEvent([(j, vals)], None, desc),
                     lambda v, j=j: f"{names[j]} == {show(j, v)}", "cat")
        col = np.concatenate([xv, yv])
        vals, counts = selection.unique(col[~np.isnan(col)], return_counts=True)
        rank.append((-(vals.size > 1), j, vals[np.argsort(-counts, kind="stable")[:MAX_JOINT_VALUES]]))
    n_thr = min(n_thresholds, 64)
    # all joint candidates are counted first and scored in one call (one Beta-quantile pass)
    parts: list[tuple[np.ndarray, int, int, Any, str]] = []
    kxs: list[np.ndarray] = []
    kys: list[np.ndarray] = []
    for _, j, vals in sorted(rank, key=lambda r: r[0])[:MAX_JOINT_COLUMNS]:
        for v in vals:
            mx, my = tx[:, j] == v, ty[:, j] == v
            cond = f"{names[j]} == {show(j, v)}"
            for i in numeric:
                if i == j:
                    continue
                xv, yv = tx[mx, i], ty[my, i]
                xv, yv = xv[~np.isnan(xv)], yv[~np.isnan(yv)]
                if xv.size == 0 or yv.size == 0:
                    continue
                t, cx, cy = _threshold_candidates(xv, yv, n_thr)
                parts.append((t, i, j, v, cond))
                kxs.append(np.concatenate([cx, xv.size - cx]))
                kys.append(np.concatenate([cy, yv.size - cy]))
    if not parts:
        return
    ends = np.cumsum([k.size for k in kxs])

    def make(idx: int) -> Event:
        p = int(np.searchsorted(ends, idx, side="right"))
        t, i, j, v, cond = parts[p]
        r = idx - (int(ends[p - 1]) if p else 0)
        up = r < t.size
        th = float(t[r % t.size])
        return TableEvent([(j, np.array([v]))], (i, th, up), f"{cond} and {names[i]} {'>' if up else '<='} {th:.6g}")

    add_lazy(int(ends[-1]), make, np.concatenate(kxs), np.concatenate(kys), "joint", "joint")


def _has_repeats(x: np.ndarray | None) -> bool:
    if x is None or x.ndim != 1:
        return False
    xs = np.sort(x)
    return bool(np.any(xs[1:] == xs[:-1]))


def _pick(cands: list[_Candidate], k: int) -> list[_Candidate]:
    """Per-pair slots first (see :func:`semiprivate.theory.audit.selection.pick`)."""
    return selection.pick(cands, k)


# ---------------------------------------------------------------------------
# the audit
# ---------------------------------------------------------------------------


def _check_pairs(pairs: Any, name: str) -> list[tuple[Any, Any]]:
    """``pairs`` as a list of (data, neighbour) 2-tuples, or TypeError / ValueError naming ``name``."""
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"{name} must be a list of (data, neighbour) pairs, got {type(pairs).__name__}")
    out = []
    for i, pr in enumerate(pairs):
        if isinstance(pr, (str, bytes)) or not hasattr(pr, "__len__") or len(pr) != 2:
            raise ValueError(f"{name}[{i}] must be a (data, neighbour) pair, got {pr!r:.60}")
        out.append((pr[0], pr[1]))
    return out


def _check_arity(mechanism: Any) -> None:
    """TypeError suggesting :func:`vectorize` when ``mechanism`` cannot take (data, size, rng)."""
    try:
        sig = inspect.signature(mechanism, follow_wrapped=False)
    except (TypeError, ValueError):  # builtins without a signature: called as they are
        return
    try:
        sig.bind(None, 1, None)
    except TypeError:
        raise TypeError(f"mechanism must be callable as mechanism(data, size, rng) returning size outputs; "
                        f"{getattr(mechanism, '__name__', type(mechanism).__name__)}{sig} is not. For a one-output "
                        "fn(data, rng), audit semiprivate.theory.audit.vectorize(fn)") from None


def _seed_of(rng: Any) -> Any:
    """The seed that reproduces an audit: an int seed as given, a SeedSequence's entropy, else ``None``
    (a Generator's future draws are not recorded)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return rng.entropy
    return None


def _dataset_key(d: Any) -> Any:
    """Content key of a dataset, so that equal datasets are sampled once.

    NumPy arrays of numbers/bools/strings: ``(dtype, shape, bytes)``; anything picklable: the
    SHA-256 digest of its pickle (equal pickles mean equal state; equal objects with different
    pickles, e.g. sets built in another order, are merely sampled twice); otherwise identity.
    Implements: AUDIT (dataset de-duplication)."""
    if isinstance(d, np.ndarray) and d.dtype.kind in "biufcSUb":
        return ("ndarray", d.dtype.str, d.shape, np.ascontiguousarray(d).tobytes())
    try:
        return ("pickle", type(d).__qualname__, hashlib.sha256(pickle.dumps(d, protocol=4)).hexdigest())
    except Exception:  # unpicklable (closures, open files, ...): identity
        return ("id", id(d))


def _draw(mechanism: Mechanism, data: Any, size: int, g: np.random.Generator, codec: _Codec) -> _Outputs:
    return _normalize(mechanism(data, size, g), size, codec)


def _count(mechanism: Mechanism, data: Any, events: list[Event], n: int, g: np.random.Generator,
           codec: _Codec) -> np.ndarray:
    counts = np.zeros(len(events), dtype=np.int64)
    probe = _draw(mechanism, data, min(n, 1024), g, codec)
    kind = (probe.kind, None if probe.num is None else probe.num.shape[1:])
    width = 1 if probe.num is None or probe.num.ndim == 1 else probe.num.shape[1]
    for i, e in enumerate(events):
        counts[i] += int(np.count_nonzero(e.indicator(probe)))
    done = probe.num.shape[0] if probe.num is not None else len(probe.keys)  # type: ignore[arg-type]
    chunk = max(1024, _CHUNK_ELEMENTS // max(width, 1))
    while done < n:
        m = min(chunk, n - done)
        out = _draw(mechanism, data, m, g, codec)
        if (out.kind, None if out.num is None else out.num.shape[1:]) != kind:
            raise ValueError(f"the mechanism's outputs changed form between batches ({kind} -> {out.kind}); "
                             "return one consistent type (numbers, fixed-length vectors or labels)")
        for i, e in enumerate(events):
            counts[i] += int(np.count_nonzero(e.indicator(out)))
        done += m
    return counts


def _count_batch(mechanism: Mechanism, data: Any, events: list[Event], n: int, seed: np.random.SeedSequence,
                 codec: _Codec) -> np.ndarray:
    """One estimation batch (runs on a worker): event counts of ``n`` outputs from stream ``seed``.

    The codec arrives as it was after selection; labels first seen here get codes local to this
    batch, which no event refers to (events are built from selection outputs only)."""
    return _count(mechanism, data, events, n, np.random.default_rng(seed), codec)


def _bounds_at(kn: np.ndarray, ko: np.ndarray, n: int, a: float, delta: float) -> np.ndarray:
    return epsilon_bound(cp_lower(kn, n, a), cp_upper(ko, n, a), delta)


def _p_value(kn: np.ndarray, ko: np.ndarray, n: int, k: int, epsilon: float, delta: float) -> float:
    def crosses(log_alpha: float) -> bool:
        a = math.exp(log_alpha) / (2 * k)
        return bool(np.max(_bounds_at(kn, ko, n, a, delta)) > epsilon)

    if not crosses(0.0):
        return 1.0
    lo, hi = -690.0, 0.0
    if crosses(lo):
        return math.exp(lo)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if crosses(mid):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


@validate_params(
    mechanism=CallableConstraint(),
    epsilon=EPSILON,
    delta=DELTA,
    trials=Optional(Integer(1)),
    confidence=Real(0.0, 1.0, closed="neither"),
    rng=RNG,
    selection_trials=Optional(Integer(1)),
    max_events=Integer(1),
    n_thresholds=Integer(1),
    max_values=Integer(1),
    batch_size=Optional(Integer(1)),
    timeout=Optional(Real(0.0, math.inf, closed="neither")),
)
def audit_pairs(
    mechanism: Mechanism,
    pairs: Sequence[tuple[Any, Any]],
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = 0.95,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    selection_trials: int | None = None,
    max_events: int = 4,
    n_thresholds: int = 256,
    max_values: int = 2048,
    batch_size: int | None = None,
    executor: Any = None,
    timeout: float | None = None,
    categorical: Sequence[int | str] | None = None,
    float_bits: bool = False,
    mlp: bool = False,
) -> AuditResult:
    """Audit ``mechanism`` on several neighbouring pairs ``[(D1, D1'), (D2, D2'), ...]``.

    Same method and guarantees as :func:`audit_mechanism` (which calls this); the
    Bonferroni correction covers every tested (pair, event, direction).

    Implements: AUDIT.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng)`` returning ``size`` outputs along axis 0.
    pairs : sequence of (dataset, dataset)
        Neighbouring pairs to search.
    epsilon, delta : float
        The claimed privacy parameters.
    trials : int, optional
        Estimation outputs per dataset (default 1,000,000).
    confidence : float
        Probability that the reported lower bound is valid (default 0.95).
    events : sequence of callables, optional
        User events ``event(outputs) -> bool array``; when given, no selection batch is drawn
        and every (pair, event, direction) is tested.
    rng : None, int or Generator
        Randomness of the audit and of the mechanism calls.
    selection_trials : int, optional
        Selection outputs per dataset (default ``min(max(10_000, trials // 4), 500_000)``).
    max_events : int
        How many (pair, event, direction) tuples are kept for estimation (``K``); raised to the
        number of pairs (at most 32) so that every pair gets a slot (its best event), see
        :mod:`semiprivate.theory.audit.selection`.  Events are ranked by a pessimistic anticipated bound.
    n_thresholds, max_values : int
        Size of the candidate families (quantile thresholds, distinct values).
    batch_size : int, optional
        Split each dataset's estimation trials into batches of this many outputs, each with its
        own random stream: the children, in order, of one ``numpy.random.SeedSequence`` drawn
        from ``rng`` after selection.  The counts, and so the result, depend only on ``rng`` and
        ``batch_size``: identical here, on a 2-worker ``LocalCluster`` or on any cluster.
        Default (with ``executor=None``): one stream, the sequential path.  With an executor
        and no batch size: ``trials // 64`` clipped to [1e6, 1e8] (about 64 tasks per dataset; at
        1e11 trials, 1e8 per batch: see ``docs/dask.md`` for the overhead rule behind both ends).
    executor : None, dask.distributed.Client or concurrent.futures.Executor
        Where the estimation batches run (see :mod:`semiprivate.theory.audit.batches`); the selection batch
        is always drawn here.  The mechanism and the events are sent to the workers
        (cloudpickle for Dask): one that cannot be pickled is refused with a TypeError.
    timeout : float, optional
        Seconds to wait for a Dask client's batches (default 3600); a dead cluster raises
        TimeoutError instead of hanging.
    categorical : sequence of int or str, optional
        Output coordinates to treat as categorical: they get value events (``x[j] == v``, value
        sets) and joint events ``{x[j] == v and x[i] > t}`` with the numeric coordinates, never
        thresholds.  An int is a coordinate of a vector output or an item of a tuple output; a str a
        dict key or a path name (``"x[1]['count']"``, see :mod:`semiprivate.theory.audit.outputs`).  Without it,
        non-numeric leaves of structured outputs and integer coordinates with at most 16 values are
        categorical automatically (the latter keep their thresholds too).
    float_bits : bool
        Add events on the sign, exponent and lowest 1 or 4 mantissa bits of float outputs (scalar,
        or the ranked coordinates of vectors).  A textbook Laplace mechanism computed in doubles
        (``value + rng.laplace(...)``) is *not* epsilon-DP (Mironov 2012): its output support
        depends on the input, and these events show it; snap outputs to a grid to pass.  Off by
        default, so that audits of such mechanisms test the real-valued claim.
    mlp : bool
        For vector outputs, also threshold the logit of a small neural network (scikit-learn's
        ``MLPClassifier``, 32 ReLU units, see :func:`semiprivate.theory.audit.selection.mlp_score`) fitted on
        the selection batch, beside the logistic score; it reaches interactions between
        coordinates that the logistic score on ``(z, z**2)`` cannot.  Off by default (about a
        second of fitting per pair).

    Returns
    -------
    AuditResult
    """
    return _audit_pairs(mechanism, pairs, epsilon=epsilon, delta=delta, trials=trials, confidence=confidence,
                        events=events, rng=rng, selection_trials=selection_trials, max_events=max_events,
                        n_thresholds=n_thresholds, max_values=max_values, batch_size=batch_size, executor=executor,
                        timeout=timeout, categorical=categorical, float_bits=float_bits, mlp=mlp)


def _audit_pairs(
    mechanism: Mechanism,
    pairs: Sequence[tuple[Any, Any]],
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = 0.95,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    selection_trials: int | None = None,
    max_events: int = 4,
    n_thresholds: int = 256,
    max_values: int = 2048,
    batch_size: int | None = None,
    executor: Any = None,
    timeout: float | None = None,
    categorical: Sequence[int | str] | None = None,
    float_bits: bool = False,
    mlp: bool = False,
) -> AuditResult:
    t0 = time.perf_counter()
    pairs = _check_pairs(pairs, "pairs")
    if not pairs:
        raise ValueError("pairs must contain at least one neighbouring pair")
    _check_arity(mechanism)
    if events is not None:
        if isinstance(events, (str, bytes)) or not isinstance(events, (list, tuple)):
            raise TypeError(f"events must be a list of callables event(outputs) -> bool array, got "
                            f"{type(events).__name__}")
        if not all(callable(e) for e in events):
            raise TypeError("events must be a list of callables event(outputs) -> bool array")
    if categorical is not None:
        if isinstance(categorical, (str, bytes)) or not isinstance(categorical, (list, tuple, range, np.ndarray)):
            raise TypeError(f"categorical must be a list of coordinates (int) or names (str), got "
                            f"{type(categorical).__name__}")
        if not all(isinstance(c, (int, np.integer, str)) and not isinstance(c, (bool, np.bool_)) for c in categorical):
            raise TypeError("categorical must be a list of coordinates (int) or names (str)")
    if not isinstance(float_bits, (bool, np.bool_)):
        raise TypeError(f"float_bits must be True or False, got {float_bits!r}")
    if not isinstance(mlp, (bool, np.bool_)):
        raise TypeError(f"mlp must be True or False, got {mlp!r}")
    cat_decl = tuple(categorical or ())
    g = as_generator(rng)
    n = DEFAULT_TRIALS if trials is None else int(trials)
    alpha = 1.0 - float(confidence)
    eps, dl = float(epsilon), float(delta)
    codec = _Codec()
    used = 0
    seed = _seed_of(rng)
    # datasets: each distinct dataset is sampled once; equal datasets passed as separate objects
    # (equal arrays, equal lists, ...) are recognised by content (see _dataset_key)
    datasets: list[Any] = []
    index: list[tuple[int, int]] = []
    where: dict[Any, int] = {}
    for d0, d1 in pairs:
        ids = []
        for d in (d0, d1):
            key = _dataset_key(d)
            if key not in where:
                where[key] = len(datasets)
                datasets.append(d)
            ids.append(where[key])
        index.append((ids[0], ids[1]))

    n_candidates = 0
    fams: list[dict[str, int]] = [{} for _ in pairs]
    best_sel: list[tuple[float, str]] = [(math.nan, "") for _ in pairs]
    if events is not None:
        ev_list: list[Event] = [e if isinstance(e, Event) else UserEvent(e) for e in events]
        if not ev_list:
            raise ValueError("events must not be empty")
        chosen = [_Candidate(0.0, p, e, fwd, ()) for p in range(len(pairs)) for e in ev_list for fwd in (True, False)]
        n_candidates = len(chosen)
        fams = [{"user": 2 * len(ev_list)} for _ in pairs]
    else:
        s = min(max(10_000, n // 4), 500_000) if selection_trials is None else int(selection_trials)
        k_planned = selection.planned_tests(max_events, len(pairs))
        a_plan = alpha / (2 * k_planned)
        sel = {}
        for j, d in enumerate(datasets):
            sel[j] = _draw(mechanism, d, s, g, codec)
            used += s
        if any(o.rows is not None for o in sel.values()):
            # structured outputs: the table's columns are fixed here, on the selection batch only
            codec.schema = OutputSchema([r for o in sel.values() if o.rows is not None for r in o.rows], cat_decl)
            for o in sel.values():
                if o.rows is not None:
                    o.table, o.rows = codec.schema.table(o.rows, codec.encode), None
        cands: list[_Candidate] = []
        for p, (i0, i1) in enumerate(index):
            with np.errstate(invalid="ignore", over="ignore"):  # +-inf outputs: inf - inf in the statistics
                found, fams[p] = _select(p, sel[i0], sel[i1], s, n, a_plan, dl, n_thresholds, max_values, codec,
                                         cat_decl, bool(float_bits), bool(mlp))
            cands += found
            n_candidates += sum(fams[p].values())
            if found:
                top = max(found, key=lambda c: c.score)
                best_sel[p] = (top.score, f"{{{top.event.description}}}, "
                                          f"{'data -> neighbour' if top.forward else 'neighbour -> data'}")
        del sel
        if not cands:
            raise ValueError("no candidate events could be built from the outputs (e.g. no finite value to "
                             "threshold and no repeated value to test): pass events=[...] to test your own")
        chosen = _pick(cands, k_planned)
    k = len(chosen)
    a = alpha / (2 * k)

    # estimation on fresh batches
    per_dataset: dict[int, list[Event]] = {}
    for c in chosen:
        for j in index[c.pair]:
            lst = per_dataset.setdefault(j, [])
            if all(e is not c.event for e in lst):
                lst.append(c.event)
    counts: dict[tuple[int, int], int] = {}
    if executor is None and batch_size is None:
        for j in sorted(per_dataset):
            evs = per_dataset[j]
            cnt = _count(mechanism, datasets[j], evs, n, g, codec)
            used += n
            for e, cval in zip(evs, cnt):
                counts[(j, id(e))] = int(cval)
    else:
        # seeded batches (semiprivate.theory.audit.batches): one SeedSequence child per batch, in a fixed
        # order, so the counts do not depend on where the batches run
        bs = int(batch_size) if batch_size is not None else min(max(n // 64, 1_000_000), 100_000_000)
        sizes = batch_sizes(n, bs)
        root = np.random.SeedSequence(int(g.integers(2**63)))
        order = sorted(per_dataset)
        children = root.spawn(len(order))
        jobs = [(mechanism, datasets[j], per_dataset[j], m, seed, codec)
                for j, child in zip(order, children) for m, seed in zip(sizes, child.spawn(len(sizes)))]
        results = run_batches(_count_batch, jobs, executor, name="executor",
                              timeout=DEFAULT_BATCH_TIMEOUT if timeout is None else float(timeout))
        for t, j in enumerate(order):
            cnt = np.sum(results[t * len(sizes):(t + 1) * len(sizes)], axis=0)
            used += n
            for e, cval in zip(per_dataset[j], cnt):
                counts[(j, id(e))] = int(cval)

    kn = np.empty(k)
    ko = np.empty(k)
    for t, c in enumerate(chosen):
        i0, i1 = index[c.pair]
        num, oth = (i0, i1) if c.forward else (i1, i0)
        kn[t] = counts[(num, id(c.event))]
        ko[t] = counts[(oth, id(c.event))]
    p_lo, p_hi = cp_lower(kn, n, a), cp_upper(kn, n, a)
    q_lo, q_hi = cp_lower(ko, n, a), cp_upper(ko, n, a)
    bounds = epsilon_bound(p_lo, q_hi, dl)
    witnesses = [
        Witness(
            event=c.event,
            direction="data -> neighbour" if c.forward else "neighbour -> data",
            pair_index=c.pair,
            p=float(kn[t] / n), p_interval=(float(p_lo[t]), float(p_hi[t])),
            q=float(ko[t] / n), q_interval=(float(q_lo[t]), float(q_hi[t])),
            counts=(int(kn[t]), int(ko[t]), n),
            support_mismatch=bool(ko[t] == 0 and kn[t] > 0),
            lower_bound=float(bounds[t]),
            data=pairs[c.pair][0],
            neighbour=pairs[c.pair][1],
            seed=seed,
        )
        for t, c in enumerate(chosen)
    ]
    search = []
    for p in range(len(pairs)):
        mine = [float(bounds[t]) for t, c in enumerate(chosen) if c.pair == p]
        search.append(PairSearch(p, fams[p], best_sel[p][0], best_sel[p][1], len(mine),
                                 max(mine) if mine else math.nan))
    best = int(np.argmax(bounds))
    lb = max(0.0, float(bounds[best]))
    return AuditResult(
        epsilon_lower_bound=lb,
        violation=bool(lb > eps),
        p_value=_p_value(kn, ko, n, k, eps, dl),
        witness=witnesses[best],
        trials_used=used,
        epsilon=eps,
        delta=dl,
        confidence=float(confidence),
        n_tests=k,
        n_pairs=len(pairs),
        n_candidates=n_candidates,
        seconds=time.perf_counter() - t0,
        tests=witnesses,
        search=search,
        seed=seed,
    )


@validate_params(
    mechanism=CallableConstraint(),
    epsilon=EPSILON,
    delta=DELTA,
    trials=Optional(Integer(1)),
    confidence=Real(0.0, 1.0, closed="neither"),
    rng=RNG,
    n_neighbours=Integer(1),
)
def audit_mechanism(
    mechanism: Mechanism,
    data: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = 0.95,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    n_neighbours: int = 1,
    extra_pairs: Sequence[tuple[Any, Any]] = (),
    **options: Any,
) -> AuditResult:
    """Audit a mechanism's claimed ``(epsilon, delta)`` on neighbouring inputs.

    Returns a lower bound on the mechanism's epsilon (at the given delta) that is valid
    with probability at least ``confidence``; see the module docstring for the method
    (events chosen on a separate selection batch, Clopper–Pearson bounds on fresh batches,
    Bonferroni across pairs, events and both directions, no probability floor).

    Implements: AUDIT.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng)`` -> ``size`` outputs along axis 0.
    data : any
        The first dataset (whatever the mechanism accepts).
    neighbour : dataset or callable
        A neighbouring dataset, or a sampler ``neighbour(data, rng) -> dataset`` (see
        :mod:`semiprivate.theory.audit.neighbours`) from which ``n_neighbours`` neighbours are drawn and
        all searched.
    epsilon, delta : float
        The claimed privacy parameters.
    trials : int, optional
        Estimation outputs per dataset (default 1,000,000); selection uses
        ``min(max(10_000, trials // 4), 500_000)`` more per dataset unless ``selection_trials``
        is given.
    confidence : float
        The bound holds with probability ``>= confidence``; a correct mechanism is flagged
        with probability ``<= 1 - confidence``.
    events : sequence of callables, optional
        User events (``event(outputs) -> bool array``) tested instead of selected ones.
    rng : None, int or Generator
        Seed or generator (used for the mechanism and the neighbour sampler).
    n_neighbours : int
        Number of neighbours drawn when ``neighbour`` is a sampler.
    extra_pairs : sequence of (dataset, dataset)
        Further neighbouring pairs to search.
    **options
        Passed to :func:`audit_pairs` (``selection_trials``, ``max_events``, ...).

    Returns
    -------
    AuditResult
        ``epsilon_lower_bound``, ``violation``, ``p_value``, ``witness``, ``trials_used``.

    Raises
    ------
    ValueError
        Bad parameters, or a mechanism that does not return ``size`` outputs.

    Examples
    --------
    >>> from semiprivate.theory.privacy.mechanisms import LaplaceMechanism
    >>> res = audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=200_000, rng=0)
    >>> res.violation, 0.8 < res.epsilon_lower_bound <= 1.0
    (False, True)
    >>> broken = LaplaceMechanism(2.0)  # claims 1.0 but adds half the noise
    >>> audit_mechanism(broken, 0.0, 1.0, epsilon=1.0, trials=200_000, rng=0).violation
    True
    """
    return _audit_mechanism(mechanism, data, neighbour, epsilon=epsilon, delta=delta, trials=trials,
                            confidence=confidence, events=events, rng=rng, n_neighbours=n_neighbours,
                            extra_pairs=extra_pairs, **options)


def _audit_mechanism(
    mechanism: Mechanism,
    data: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = 0.95,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    n_neighbours: int = 1,
    extra_pairs: Sequence[tuple[Any, Any]] = (),
    **options: Any,
) -> AuditResult:
    g = as_generator(rng)
    pairs: list[tuple[Any, Any]] = []
    if callable(neighbour) and not isinstance(neighbour, np.ndarray):
        for _ in range(n_neighbours):
            pairs.append((data, neighbour(data, g)))
    else:
        pairs.append((data, neighbour))
    pairs.extend(_check_pairs(extra_pairs, "extra_pairs"))
    res = audit_pairs(mechanism, pairs, epsilon=epsilon, delta=delta, trials=trials, confidence=confidence,
                      events=events, rng=g, **options)
    # the seed that reproduces this call (audit_pairs only saw the Generator made from it)
    res.seed = _seed_of(rng)
    for w in res.tests:
        w.seed = res.seed
    return res


def assert_private(
    mechanism: Mechanism,
    data: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    confidence: float = 0.999,
    **kwargs: Any,
) -> AuditResult:
    """Fail (``AssertionError``) when an audit refutes the claimed ``(epsilon, delta)``.

    For use inside pytest/hypothesis tests.  The default ``confidence=0.999`` means a
    correct mechanism makes this fail with probability at most 0.001 per call (per
    hypothesis example: lower it by the number of examples if you need a per-test rate).
    The failure message shows the claim, the lower bound, the witness event and both
    probabilities with their intervals.  Returns the :class:`AuditResult` otherwise.

    Implements: AUDIT (pytest helper).

    Examples
    --------
    >>> from semiprivate.theory.privacy.mechanisms import RandomizedResponse
    >>> r = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, trials=100_000, rng=1)
    >>> r.violation
    False
    """
    res = audit_mechanism(mechanism, data, neighbour, epsilon=epsilon, delta=delta, confidence=confidence, **kwargs)
    if res.violation:
        name = getattr(mechanism, "__name__", None) or repr(mechanism)
        raise AssertionError(f"mechanism {name} is not ({epsilon:g}, {delta:g})-DP:\n{res.report()}")
    return res

"""Output events ``E`` whose probabilities the auditor bounds under both neighbouring inputs.

Thresholds on a scalar, a coordinate or a projection (:class:`ThresholdEvent`), finite value
sets (:class:`ValueSetEvent`), joint events on an output table (:class:`TableEvent`), float bit
patterns (:class:`BitsEvent`, :func:`bit_keys`) and user callables (:class:`UserEvent`).  Each is a
fixed function of one output, chosen on the selection batch only.

Implements: AUDIT (candidate events).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from semiprivate.theory.audit.draws import Outputs

#: the event classes are built by the auditor from selection outputs; users subclass :class:`Event` only
__all__ = ["Event"]


class Event(abc.ABC):
    """An output event ``E``; ``event(outputs)`` returns the boolean indicator per output.

    Implements: AUDIT (candidate events).
    """

    description: str = "event"

    @abc.abstractmethod
    def indicator(self, out: Outputs) -> np.ndarray:
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

    def project(self, out: Outputs) -> np.ndarray:
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

    def indicator(self, out: Outputs) -> np.ndarray:
        v = self.project(out)
        return v > self.threshold if self.upper else v <= self.threshold


class ValueSetEvent(Event):
    """``{x in S}`` for a finite set ``S`` of output values (numbers, integer rows or labels)."""

    def __init__(self, values: np.ndarray, description: str) -> None:
        self.values = np.sort(values)
        self.description = description

    def indicator(self, out: Outputs) -> np.ndarray:
        if out.keys is None:
            raise ValueError("value event on outputs without values")
        if self.values.size == 1:
            return out.keys == self.values[0]
        return np.isin(out.keys, self.values)


def table_of(out: Outputs) -> np.ndarray:
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

    def indicator(self, out: Outputs) -> np.ndarray:
        t = table_of(out)
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

    def indicator(self, out: Outputs) -> np.ndarray:
        if out.num is None:
            raise ValueError("bit event on non-numeric outputs")
        v = out.num if self.col is None else out.num[:, self.col]
        return np.isin(bit_keys(v, self.k), self.values)


class RandomizedEvent(Event):
    """``{x in S} or {x in C and U < gamma}``: the event ``base`` plus the boundary cell ``edge`` kept with
    probability ``gamma``, ``U`` a fresh uniform coin per output (DP-Sniper's randomised threshold [BSBV21]).

    Its probability under a dataset ``D`` is ``P_D(S) + gamma P_D(C)`` (``S`` and ``C`` disjoint), and with the
    coins independent of the outputs the count over ``n`` outputs is binomial with that probability: every test
    of the auditor applies unchanged.  The coins are drawn by the counting code from the estimation (or choice)
    stream, one per output, after the outputs (:func:`semiprivate.theory.audit.core._count`); the event itself
    holds no generator, and an indicator asked without coins is refused.  Implements: AUDIT (learned randomised
    events).
    """

    coins = True

    def __init__(self, base: Event, edge: Event, gamma: float, description: str) -> None:
        if not 0.0 < float(gamma) < 1.0:
            raise ValueError(f"gamma must be in (0, 1), got {gamma!r}")
        self.base, self.edge, self.gamma = base, edge, float(gamma)
        self.description = description

    def indicator(self, out: Outputs, coins: np.ndarray | None = None) -> np.ndarray:
        if coins is None:
            raise ValueError("a randomised event needs one uniform coin per output (the auditor draws them)")
        return np.asarray(self.base.indicator(out), dtype=bool) | (
            np.asarray(self.edge.indicator(out), dtype=bool) & (np.asarray(coins) < self.gamma))


class UserEvent(Event):
    """A user-supplied event: a callable mapping the raw outputs to a boolean array."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.description = str(getattr(fn, "description", None) or getattr(fn, "__name__", repr(fn)))

    def indicator(self, out: Outputs) -> np.ndarray:
        ind = np.asarray(self.fn(out.raw), dtype=bool)
        if ind.shape != (len(out.raw),):
            raise ValueError(f"event {self.description!r} must return one bool per output, got shape {ind.shape}")
        return ind

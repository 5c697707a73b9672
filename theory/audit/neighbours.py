"""Samplers of neighbouring datasets for audit searches (no hypothesis needed).

Each factory returns a sampler ``sampler(data, rng) -> neighbour`` that
:func:`semiprivate.theory.audit.audit_mechanism` accepts as its ``neighbour`` argument (it then draws
``n_neighbours`` neighbours and searches them all, with the multiple-testing correction).

Dataset representations (the same as :mod:`semiprivate.theory.audit.strategies`):

* unlabelled: an array of shape ``(n,)`` or ``(n, d)`` (rows are records);
* labelled: a tuple ``(X, y)`` with ``y`` in ``{0, 1}`` (or the given label set);
* query vectors: a 1-D array of query answers (neighbours differ by at most
  ``sensitivity`` in one coordinate, or in every coordinate).

Implements: AUDIT (neighbouring relations: add/remove one, replace one, query vectors).

Examples
--------
>>> import numpy as np
>>> s = replace_one(0.0, 1.0)
>>> d = np.zeros(4)
>>> int(np.count_nonzero(s(d, np.random.default_rng(0)) != d)) <= 1
True
>>> q = query_neighbour(1.0, mode="all")
>>> bool(np.all(np.abs(q(np.zeros(3), np.random.default_rng(0))) <= 1.0))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from semiprivate.validation import POSITIVE_REAL, Boolean, Options, Real, as_generator, validate_params

__all__ = ["replace_one", "add_remove_one", "query_neighbour"]

Sampler = Callable[[Any, Any], Any]


def _labels(labels: Any) -> tuple[Any, ...]:
    """The label set of a labelled sampler: a non-empty sequence (a list, tuple or 1-D array)."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)):
        raise TypeError(f"labels must be a non-empty sequence of label values such as (0, 1), "
                        f"got {labels!r} ({type(labels).__name__})")
    out = tuple(np.asarray(labels).ravel().tolist()) if isinstance(labels, np.ndarray) else tuple(labels)
    if not out:
        raise ValueError("labels must hold at least one label value, got an empty sequence")
    return out


def _new_rows(X: np.ndarray, count: int, low: float, high: float, integer: bool, g: np.random.Generator) -> np.ndarray:
    shape = (count, *X.shape[1:])
    if integer:
        return g.integers(int(low), int(high) + 1, size=shape).astype(X.dtype if X.dtype.kind in "iu" else np.int64)
    return g.uniform(low, high, size=shape).astype(np.float64)


@validate_params(low=Real(), high=Real(), integer=Boolean())
def replace_one(low: float = 0.0, high: float = 1.0, *, integer: bool = False,
                labels: Sequence[Any] = (0, 1)) -> Sampler:
    """Sampler that replaces one random record by a fresh one (values uniform in ``[low, high]``;
    for labelled data ``(X, y)`` the label is redrawn from ``labels`` too).

    Implements: AUDIT (replace-one neighbouring).
    """
    labels = _labels(labels)
    if not low <= high:
        raise ValueError(f"low must be <= high, got low={low!r}, high={high!r}")

    def sampler(data: Any, rng: Any = None) -> Any:
        g = as_generator(rng)
        if isinstance(data, tuple):
            X, y = (np.array(data[0]), np.array(data[1]))
            i = int(g.integers(len(X)))
            X[i] = _new_rows(X, 1, low, high, integer, g)[0]
            y[i] = labels[int(g.integers(len(labels)))]
            return X, y
        X = np.array(data)
        if X.ndim == 0 or len(X) == 0:
            raise ValueError("replace_one needs a non-empty dataset")
        i = int(g.integers(len(X)))
        X[i] = _new_rows(X, 1, low, high, integer, g)[0]
        return X

    return sampler


@validate_params(low=Real(), high=Real(), integer=Boolean())
def add_remove_one(low: float = 0.0, high: float = 1.0, *, integer: bool = False,
                   labels: Sequence[Any] = (0, 1)) -> Sampler:
    """Sampler that removes a random record or adds a fresh one (each with probability 1/2;
    a dataset of one record always gets one added).

    Implements: AUDIT (add/remove-one neighbouring).
    """
    labels = _labels(labels)
    if not low <= high:
        raise ValueError(f"low must be <= high, got low={low!r}, high={high!r}")

    def sampler(data: Any, rng: Any = None) -> Any:
        g = as_generator(rng)
        labelled = isinstance(data, tuple)
        X = np.asarray(data[0] if labelled else data)
        y = np.asarray(data[1]) if labelled else None
        if len(X) > 1 and g.random() < 0.5:
            i = int(g.integers(len(X)))
            X2 = np.delete(X, i, axis=0)
            return (X2, np.delete(np.asarray(y), i)) if labelled else X2
        row = _new_rows(X, 1, low, high, integer, g)
        X2 = np.concatenate([X, row.astype(X.dtype) if integer else row], axis=0)
        if labelled:
            return X2, np.concatenate([y, np.asarray([labels[int(g.integers(len(labels)))]])])
        return X2

    return sampler


@validate_params(sensitivity=POSITIVE_REAL, mode=Options("one", "all"), integer=Boolean(), extreme=Boolean())
def query_neighbour(sensitivity: float = 1.0, *, mode: str = "one", integer: bool = False,
                    extreme: bool = True) -> Sampler:
    """Sampler for query-answer vectors: change one coordinate (``mode="one"``) or every
    coordinate (``mode="all"``) by at most ``sensitivity``.

    ``extreme=True`` moves by exactly ``+-sensitivity`` (where DP bounds are usually tight);
    otherwise by a uniform amount in ``[-sensitivity, sensitivity]`` (rounded for ``integer``).

    Implements: AUDIT (sensitivity-bounded neighbouring query answers).
    """

    def sampler(data: Any, rng: Any = None) -> Any:
        g = as_generator(rng)
        a = np.asarray(data)
        v = np.atleast_1d(a).astype(np.int64 if integer else np.float64)
        m = v.size if mode == "all" else 1
        if extreme:
            step: np.ndarray = g.choice([-1.0, 1.0], size=m) * sensitivity
        else:
            step = g.uniform(-sensitivity, sensitivity, size=m)
        if integer:
            step = np.trunc(step).astype(np.int64)
        out = v.copy()
        if mode == "all":
            out = out + step
        else:
            out[int(g.integers(v.size))] += step[0]
        return out.reshape(a.shape) if a.ndim else out[0]

    return sampler

"""Hypothesis strategies for neighbouring datasets.

Use them with :func:`theory.audit.assert_private` inside ``@given`` tests::

    @given(pair=strategies.query_vectors(3, mode="one"))
    def test_laplace(pair):
        assert_private(LaplaceMechanism(1.0), *pair, epsilon=1.0, trials=50_000)

Every strategy draws a pair ``(D, D')`` of neighbours:

* :func:`replace_one_pairs` -- same size, one record (and its label) replaced;
* :func:`add_remove_pairs` -- one record added or removed (both orders are drawn);
* :func:`neighbouring_datasets` -- either relation, chosen by ``kind``;
* :func:`query_vectors` -- numeric query answers differing by at most ``sensitivity`` in one
  coordinate (``mode="one"``) or in all coordinates (``mode="all"``).

Datasets are NumPy arrays of shape ``(n,)`` (``dim=None``) or ``(n, dim)``; labelled ones are
tuples ``(X, y)`` with ``y`` in ``{0, 1}``.  Records are floats in ``[low, high]`` or integers
(``integer=True``).

Implements: AUDIT (hypothesis strategies for neighbouring datasets).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

__all__ = [
    "records",
    "datasets",
    "replace_one_pairs",
    "add_remove_pairs",
    "neighbouring_datasets",
    "query_vectors",
]


def records(dim: int | None = None, *, low: float = 0.0, high: float = 1.0,
            integer: bool = False) -> st.SearchStrategy[Any]:
    """One record: a number (``dim=None``) or a list of ``dim`` numbers."""
    if integer:
        elem: st.SearchStrategy[Any] = st.integers(int(low), int(high))
    else:
        elem = st.floats(low, high, allow_nan=False, allow_infinity=False)
    if dim is None:
        return elem
    return st.lists(elem, min_size=dim, max_size=dim)


def _to_array(rows: list[Any], dim: int | None, integer: bool) -> np.ndarray:
    dtype = np.int64 if integer else np.float64
    if dim is None:
        return np.asarray(rows, dtype=dtype).reshape(len(rows))
    return np.asarray(rows, dtype=dtype).reshape(len(rows), dim)


@st.composite
def datasets(draw: Any, *, min_size: int = 1, max_size: int = 8, dim: int | None = None, low: float = 0.0,
             high: float = 1.0, integer: bool = False, labelled: bool = False) -> Any:
    """A dataset: array ``(n,)``/``(n, dim)``, or ``(X, y)`` when ``labelled``."""
    rows = draw(st.lists(records(dim, low=low, high=high, integer=integer), min_size=min_size, max_size=max_size))
    X = _to_array(rows, dim, integer)
    if labelled:
        y = np.asarray(draw(st.lists(st.integers(0, 1), min_size=len(rows), max_size=len(rows))), dtype=np.int64)
        return X, y
    return X


@st.composite
def replace_one_pairs(draw: Any, *, min_size: int = 1, max_size: int = 8, dim: int | None = None,
                      low: float = 0.0, high: float = 1.0, integer: bool = False, labelled: bool = False) -> Any:
    """``(D, D')`` of the same size differing in exactly one position (record and/or label;
    the new record may coincide with the old one)."""
    d = draw(datasets(min_size=max(1, min_size), max_size=max_size, dim=dim, low=low, high=high,
                      integer=integer, labelled=labelled))
    X = d[0] if labelled else d
    i = draw(st.integers(0, len(X) - 1))
    new = np.asarray(draw(records(dim, low=low, high=high, integer=integer)), dtype=X.dtype)
    X2 = X.copy()
    X2[i] = new
    if labelled:
        y2 = d[1].copy()
        y2[i] = draw(st.integers(0, 1))
        return d, (X2, y2)
    return d, X2


@st.composite
def add_remove_pairs(draw: Any, *, min_size: int = 0, max_size: int = 8, dim: int | None = None,
                     low: float = 0.0, high: float = 1.0, integer: bool = False, labelled: bool = False) -> Any:
    """``(D, D')`` where one is the other plus one record (either order)."""
    small = draw(datasets(min_size=min_size, max_size=max(min_size, max_size - 1), dim=dim, low=low, high=high,
                          integer=integer, labelled=labelled))
    X = small[0] if labelled else small
    pos = draw(st.integers(0, len(X)))
    new = np.asarray(draw(records(dim, low=low, high=high, integer=integer)), dtype=X.dtype)
    X2 = np.insert(X, pos, new, axis=0)
    big: Any = X2
    if labelled:
        big = (X2, np.insert(small[1], pos, draw(st.integers(0, 1))))
    if draw(st.booleans()):
        return small, big
    return big, small


def neighbouring_datasets(kind: str = "any", **kwargs: Any) -> st.SearchStrategy[Any]:
    """Neighbouring pairs under ``kind`` = ``"replace"``, ``"add_remove"`` or ``"any"``."""
    if kind == "replace":
        return replace_one_pairs(**kwargs)
    if kind == "add_remove":
        return add_remove_pairs(**kwargs)
    if kind == "any":
        return st.one_of(replace_one_pairs(**kwargs), add_remove_pairs(**kwargs))
    raise ValueError(f"kind must be 'replace', 'add_remove' or 'any', got {kind!r}")


@st.composite
def query_vectors(draw: Any, dim: int = 1, *, low: float = -10.0, high: float = 10.0, sensitivity: float = 1.0,
                  mode: str = "one", integer: bool = False) -> Any:
    """``(a, b)``: query-answer vectors of length ``dim`` with ``|a_i - b_i| <= sensitivity`` in one
    coordinate and equal elsewhere (``mode="one"``), or in every coordinate (``mode="all"``).
    The boundary (exactly ``+-sensitivity``) is drawn often, since DP is tightest there."""
    if mode not in ("one", "all"):
        raise ValueError(f"mode must be 'one' or 'all', got {mode!r}")
    if integer:
        elem: st.SearchStrategy[Any] = st.integers(int(low), int(high))
        step: st.SearchStrategy[Any] = st.integers(-int(sensitivity), int(sensitivity))
    else:
        elem = st.floats(low, high, allow_nan=False, allow_infinity=False)
        step = st.one_of(st.sampled_from([-sensitivity, sensitivity]),
                         st.floats(-sensitivity, sensitivity, allow_nan=False))
    dtype = np.int64 if integer else np.float64
    a = np.asarray(draw(st.lists(elem, min_size=dim, max_size=dim)), dtype=dtype)
    b = a.copy()
    if mode == "all":
        b = b + np.asarray(draw(st.lists(step, min_size=dim, max_size=dim)), dtype=dtype)
    else:
        b[draw(st.integers(0, dim - 1))] += draw(step)
    return a, b

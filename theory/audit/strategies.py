"""Hypothesis strategies for neighbouring datasets.

Use them with :func:`semiprivate.theory.audit.assert_private` inside ``@given`` tests::

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
(``integer=True``: the integers in ``[low, high]``).

Every argument is checked when the strategy is built, before anything is drawn: a bad value
raises :class:`TypeError` / :class:`ValueError` naming the parameter.

Implements: AUDIT (hypothesis strategies for neighbouring datasets).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st
from semiprivate.validation import check_integer, check_option, check_real

__all__ = [
    "records",
    "datasets",
    "replace_one_pairs",
    "add_remove_pairs",
    "neighbouring_datasets",
    "query_vectors",
]


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r} ({type(value).__name__})")
    return bool(value)


def _range(low: Any, high: Any, integer: Any) -> tuple[float, float, bool]:
    """Checked ``(low, high, integer)``: finite reals with ``low <= high`` holding a value
    (an integer when ``integer``); integer ranges are ``[ceil(low), floor(high)]``."""
    lo = check_real(low, "low")
    hi = check_real(high, "high")
    integer = _flag(integer, "integer")
    if not lo <= hi:
        raise ValueError(f"low must be <= high, got low={low!r}, high={high!r}")
    if integer and math.ceil(lo) > math.floor(hi):
        raise ValueError(f"low..high must contain an integer when integer=True, got low={low!r}, high={high!r}")
    return lo, hi, integer


def _dim(dim: Any) -> int | None:
    return None if dim is None else check_integer(dim, "dim", low=1)


def _sizes(min_size: Any, max_size: Any, least: int = 0) -> tuple[int, int]:
    lo = check_integer(min_size, "min_size", low=0)
    hi = check_integer(max_size, "max_size", low=max(lo, least))
    return lo, hi


def _elements(low: float, high: float, integer: bool) -> st.SearchStrategy[Any]:
    if integer:
        return st.integers(math.ceil(low), math.floor(high))
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def records(dim: int | None = None, *, low: float = 0.0, high: float = 1.0,
            integer: bool = False) -> st.SearchStrategy[Any]:
    """One record: a number (``dim=None``) or a list of ``dim`` numbers."""
    dim = _dim(dim)
    elem = _elements(*_range(low, high, integer))
    if dim is None:
        return elem
    return st.lists(elem, min_size=dim, max_size=dim)


def _to_array(rows: list[Any], dim: int | None, integer: bool) -> np.ndarray:
    dtype = np.int64 if integer else np.float64
    if dim is None:
        return np.asarray(rows, dtype=dtype).reshape(len(rows))
    return np.asarray(rows, dtype=dtype).reshape(len(rows), dim)


def datasets(*, min_size: int = 1, max_size: int = 8, dim: int | None = None, low: float = 0.0,
             high: float = 1.0, integer: bool = False, labelled: bool = False) -> st.SearchStrategy[Any]:
    """A dataset of ``min_size..max_size`` records: array ``(n,)``/``(n, dim)``, or ``(X, y)``
    when ``labelled``."""
    min_size, max_size = _sizes(min_size, max_size)
    dim = _dim(dim)
    low, high, integer = _range(low, high, integer)
    labelled = _flag(labelled, "labelled")
    records_ = st.lists(records(dim, low=low, high=high, integer=integer), min_size=min_size, max_size=max_size)

    @st.composite
    def strategy(draw: Any) -> Any:
        rows = draw(records_)
        X = _to_array(rows, dim, integer)
        if labelled:
            y = np.asarray(draw(st.lists(st.integers(0, 1), min_size=len(rows), max_size=len(rows))), dtype=np.int64)
            return X, y
        return X

    return strategy()


def replace_one_pairs(*, min_size: int = 1, max_size: int = 8, dim: int | None = None, low: float = 0.0,
                      high: float = 1.0, integer: bool = False, labelled: bool = False) -> st.SearchStrategy[Any]:
    """``(D, D')`` of the same size (``max(1, min_size)..max_size`` records) differing in exactly
    one position (record and/or label; the new record may coincide with the old one)."""
    min_size, max_size = _sizes(min_size, max_size, least=1)
    dim = _dim(dim)
    low, high, integer = _range(low, high, integer)
    labelled = _flag(labelled, "labelled")
    base = datasets(min_size=max(1, min_size), max_size=max_size, dim=dim, low=low, high=high, integer=integer,
                    labelled=labelled)

    @st.composite
    def strategy(draw: Any) -> Any:
        d = draw(base)
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

    return strategy()


def add_remove_pairs(*, min_size: int = 0, max_size: int = 8, dim: int | None = None, low: float = 0.0,
                     high: float = 1.0, integer: bool = False, labelled: bool = False) -> st.SearchStrategy[Any]:
    """``(D, D')`` where one is the other plus one record (either order); the smaller one has
    ``min_size..max(min_size, max_size - 1)`` records."""
    min_size, max_size = _sizes(min_size, max_size, least=1)
    dim = _dim(dim)
    low, high, integer = _range(low, high, integer)
    labelled = _flag(labelled, "labelled")
    base = datasets(min_size=min_size, max_size=max(min_size, max_size - 1), dim=dim, low=low, high=high,
                    integer=integer, labelled=labelled)

    @st.composite
    def strategy(draw: Any) -> Any:
        small = draw(base)
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

    return strategy()


def neighbouring_datasets(kind: str = "any", **kwargs: Any) -> st.SearchStrategy[Any]:
    """Neighbouring pairs under ``kind`` = ``"replace"``, ``"add_remove"`` or ``"any"``
    (``kwargs`` go to :func:`replace_one_pairs` / :func:`add_remove_pairs`)."""
    check_option(kind, "kind", ("replace", "add_remove", "any"))
    if kind == "replace":
        return replace_one_pairs(**kwargs)
    if kind == "add_remove":
        return add_remove_pairs(**kwargs)
    return st.one_of(replace_one_pairs(**kwargs), add_remove_pairs(**kwargs))


def query_vectors(dim: int = 1, *, low: float = -10.0, high: float = 10.0, sensitivity: float = 1.0,
                  mode: str = "one", integer: bool = False) -> st.SearchStrategy[Any]:
    """``(a, b)``: query-answer vectors of length ``dim`` with ``|a_i - b_i| <= sensitivity`` in one
    coordinate and equal elsewhere (``mode="one"``), or in every coordinate (``mode="all"``).
    The boundary (exactly ``+-sensitivity``) is drawn often, since DP is tightest there.
    With ``integer=True`` the steps are the integers in ``[-floor(sensitivity), floor(sensitivity)]``,
    so ``sensitivity`` must be >= 1 (``a`` itself lies in ``[ceil(low), floor(high)]``; ``b`` may leave it)."""
    dim = check_integer(dim, "dim", low=1)
    low, high, integer = _range(low, high, integer)
    sensitivity = check_real(sensitivity, "sensitivity", 0.0, closed="neither")
    if integer and sensitivity < 1:
        raise ValueError(f"sensitivity must be >= 1 when integer=True (steps are whole numbers), got {sensitivity!r}")
    check_option(mode, "mode", ("one", "all"))
    elem = _elements(low, high, integer)
    if integer:
        step: st.SearchStrategy[Any] = st.integers(-int(sensitivity), int(sensitivity))
    else:
        step = st.one_of(st.sampled_from([-sensitivity, sensitivity]),
                         st.floats(-sensitivity, sensitivity, allow_nan=False))
    dtype = np.int64 if integer else np.float64

    @st.composite
    def strategy(draw: Any) -> Any:
        a = np.asarray(draw(st.lists(elem, min_size=dim, max_size=dim)), dtype=dtype)
        b = a.copy()
        if mode == "all":
            b = b + np.asarray(draw(st.lists(step, min_size=dim, max_size=dim)), dtype=dtype)
        else:
            b[draw(st.integers(0, dim - 1))] += draw(step)
        return a, b

    return strategy()

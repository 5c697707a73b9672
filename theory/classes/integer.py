"""Classes over X_d = {0, ..., 2^d - 1} (d <= 64): thresholds, intervals, point functions.

Implements: COMB.Projection, COMB.VC for THRESH_d (BNS15 Thm 5.6: c_t(x) = 1 iff x < t),
intervals and point functions.  Points are stored as ``uint64``; hypotheses are plain Python
ints (a threshold can be 2^64, which does not fit in ``uint64``).

Examples
--------
>>> T = Thresholds(64)
>>> T.evaluate(2**64, [0, 2**64 - 1]).tolist()
[True, True]
>>> len(T.dichotomies([5, 1, 2**63]))
4
>>> I = Intervals(8)
>>> len(I.dichotomies([1, 2, 3, 4]))   # C(5, 2) + 1
11
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import Any

import numpy as np
from semiprivate.theory.classes.base import ConceptClass, Dichotomies, _sorted_patterns
from semiprivate.validation import (
    POSITIVE_INT,
    RNG,
    Boolean,
    Integer,
    as_generator,
    check_binary,
    validate_params,
)

__all__ = ["Thresholds", "Intervals", "PointFunctions", "validate_integer_points", "uniform_int"]

_MAX_D = 64


@validate_params(d=Integer(1, _MAX_D), allow_empty=Boolean())
def validate_integer_points(X: Any, d: int, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
    """Validate points of X_d = {0, ..., 2^d - 1} and return them as a 1-d ``uint64`` array.

    Accepts integer arrays, Python int lists (values up to 2^64 - 1) and float arrays whose
    entries are integers.  Raises TypeError for non-numeric input, ValueError for values
    outside X_d, non-integers, NaN or a wrong shape.  ``d`` in [1, 64]; ``name`` (a string)
    is the parameter name used in the messages.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name for messages), got {type(name).__name__}")
    if X is None:
        raise TypeError(f"{name} must be an array of integers, got None")
    if isinstance(X, (numbers.Integral, np.integer)) and not isinstance(X, bool):
        X = [X]
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be an array of integers, got {type(X).__name__}")
    if isinstance(X, np.ndarray):
        arr = X
    else:
        obj = np.asarray(X, dtype=object)
        ints = obj.size > 0 and all(
            isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in obj.ravel()
        )
        arr = obj if ints else np.asarray(X)
    if arr.dtype == object:
        vals = arr.ravel().tolist()
        if not all(isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool) for v in vals):
            raise TypeError(f"{name} must contain integers")
        if any(v < 0 or v >= 2**d for v in vals):
            raise ValueError(f"{name} must lie in X_d = [0, 2^{d} - 1] (d={d})")
        arr = np.array(vals, dtype=np.uint64).reshape(arr.shape)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {arr.shape}")
    if arr.size == 0:
        if not allow_empty:
            raise ValueError(f"{name} must not be empty")
        return np.zeros(0, dtype=np.uint64)
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{name} must contain integers, got dtype bool")
    if kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must not contain NaN or inf")
        if not np.all(arr == np.floor(arr)):
            raise ValueError(f"{name} must contain integers, got non-integer floats")
        if np.any(arr < 0) or np.any(arr >= 2.0**d):
            raise ValueError(f"{name} must lie in X_d = [0, 2^{d} - 1] (d={d})")
        if d > 53:
            raise TypeError(f"{name}: float input cannot represent X_{d} exactly; pass integers")
        return arr.astype(np.uint64)
    if kind == "i":
        if np.any(arr < 0):
            raise ValueError(f"{name} must lie in X_d = [0, 2^{d} - 1] (d={d}), got a negative value")
        arr = arr.astype(np.uint64)
    elif kind != "u":
        raise TypeError(f"{name} must contain integers, got dtype {arr.dtype}")
    arr = arr.astype(np.uint64, copy=False)
    if d < 64 and arr.size and int(arr.max()) >= 2**d:
        raise ValueError(f"{name} must lie in X_d = [0, 2^{d} - 1] (d={d}), got a value of 2^{d} or more")  # no data echoed
    return arr


@validate_params(rng=RNG, n=POSITIVE_INT)
def uniform_int(rng: Any, n: int) -> int:
    """A uniform integer in [0, n) for any Python int n >= 1 (exact, by rejection).

    ``rng``: a :class:`numpy.random.Generator` (or anything :func:`semiprivate.validation.as_generator`
    accepts).

    >>> 0 <= uniform_int(0, 2**100) < 2**100
    True
    """
    rng = as_generator(rng)
    n = int(n)  # NumPy integers have no bit_length
    if n <= 2**62:
        return int(rng.integers(n))
    k = n.bit_length()
    words = (k + 63) // 64
    while True:
        r = 0
        for w in rng.integers(0, 2**64, size=words, dtype=np.uint64, endpoint=False):
            r = (r << 64) | int(w)
        r >>= words * 64 - k
        if r < n:
            return r


def hypothesis_int(v: Any, what: str) -> int:
    """An int coordinate of a hypothesis: a Python or NumPy integer, never a bool, float or str.

    Raises :class:`TypeError` naming ``what`` otherwise (``1.5``, ``True``, ``"3"``, ``3.0``).

    >>> hypothesis_int(np.uint64(7), "a")
    7
    """
    if type(v) is int:  # the common case, without the abstract-class checks (a bool's type is bool, not int)
        return v
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer)):
        raise TypeError(f"{what} must be an int, got {v!r}")
    return int(v)


def _sorted_counts(cls: ConceptClass, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted points and prefix counts of labels 0 and 1 (c[i] = count among the i smallest)."""
    Xv = cls.validate_points(X, allow_empty=True)
    yv = check_binary(y, "y", length=len(Xv), as_bool=True)
    order = np.argsort(Xv, kind="stable")
    ys = yv[order].astype(np.int64)
    c1 = np.concatenate([[0], np.cumsum(ys)])
    c0 = np.arange(len(ys) + 1) - c1
    return Xv[order], c0, c1


def _count_below(xs: np.ndarray, ts: list[int]) -> np.ndarray:
    """#{x in xs : x < t} for each Python int t in [0, 2^64] (xs sorted uint64)."""
    t_arr = np.array([min(t, 2**64 - 1) for t in ts], dtype=np.uint64)
    out = np.searchsorted(xs, t_arr, side="left")
    full = np.array([t >= 2**64 for t in ts], dtype=bool)
    return np.where(full, len(xs), out).astype(np.int64)


#: Largest d whose hypothesis coordinates (up to 2^d) all fit in int64 with room for b + 1.
_FAST_D = 62


def _plain_ints(values: Any, d: int) -> np.ndarray | None:
    """``values`` as an int64 array when every entry is a plain Python int (``type(v) is int``: no bool) and
    ``d <= 62``; None otherwise (the caller then checks each entry on its own, with its own message).  Range
    checks are the caller's."""
    if d > _FAST_D or not set(map(type, values)) <= {int}:
        return None
    try:
        return np.array(values, dtype=np.int64).reshape(len(values))
    except OverflowError:
        return None


def _fast_thresholds(hs: list[Any], d: int) -> np.ndarray | None:
    """The thresholds ``hs`` as int64 when all are plain ints in [0, 2^d] (what :meth:`Thresholds._check_h`
    accepts, without a per-hypothesis call); None when any is not (the per-hypothesis check then raises)."""
    t = _plain_ints(hs, d)
    if t is None or (t.size and (int(t.min()) < 0 or int(t.max()) > 2**d)):
        return None
    return t


def _fast_intervals(hs: list[Any], d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(a, b, empty) of the intervals ``hs`` when every one is None or a tuple/list of two plain ints
    0 <= a <= b < 2^d (what :meth:`Intervals._check_h` accepts, checked for the whole list at once); None when
    any is not (the per-hypothesis check then raises, naming the first bad one).  Empty: a = b = 0."""
    kinds = set(map(type, hs))
    if d > _FAST_D or not kinds <= {tuple, list, type(None)}:
        return None
    empty = np.fromiter((h is None for h in hs), dtype=bool, count=len(hs)) if type(None) in kinds \
        else np.zeros(len(hs), dtype=bool)
    pairs = [h for h in hs if h is not None] if empty.any() else hs
    if pairs and set(map(len, pairs)) != {2}:
        return None
    ab = _plain_ints(list(itertools.chain.from_iterable(pairs)), d)
    if ab is None:
        return None
    a, b = ab[0::2], ab[1::2]
    if a.size and (int(a.min()) < 0 or bool(np.any(a > b)) or int(b.max()) >= 2**d):
        return None
    full_a = np.zeros(len(hs), dtype=np.int64)
    full_b = np.zeros(len(hs), dtype=np.int64)
    full_a[~empty] = a
    full_b[~empty] = b
    return full_a, full_b, empty


def _count_below_array(xs: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """:func:`_count_below` for an int64 array of ts in [0, 2^62] (no clipping needed)."""
    return np.searchsorted(xs, ts.astype(np.uint64), side="left").astype(np.int64)


class _IntegerDomainClass(ConceptClass):
    @validate_params(d=Integer(1, _MAX_D))
    def __init__(self, d: int) -> None:
        self.d = int(d)

    @property
    def domain_size(self) -> int:
        return 2**self.d

    def domain_points(self) -> np.ndarray | None:
        if self.d > 12:
            return None
        return np.arange(2**self.d, dtype=np.uint64)

    def validate_points(self, X: Any, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
        return validate_integer_points(X, self.d, name, allow_empty=allow_empty)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(d={self.d})"


class Thresholds(_IntegerDomainClass):
    """THRESH_d: c_t(x) = 1 iff x < t, for t in {0, ..., 2^d}, over X_d = {0, ..., 2^d - 1}.

    Implements: COMB.Projection / COMB.VC for thresholds (BNS15 Thm 5.6 definition).
    VC dimension 1; |Pi_C(B)| = |B| + 1 for distinct B; |C| = 2^d + 1.

    Parameters
    ----------
    d : int
        Bit length, 1 <= d <= 64.

    Examples
    --------
    >>> Thresholds(3).dichotomies([6, 2]).representatives
    [0, 3, 7]
    """

    name = "THRESH_d"

    def _check_h(self, h: Any) -> int:
        """Validate a threshold t (an int in [0, 2^d], not a bool/float) and return it."""
        t = hypothesis_int(h, "threshold")
        if not 0 <= t <= 2**self.d:
            raise ValueError(f"threshold must be in [0, 2^{self.d}], got {t}")
        return t

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        t = self._check_h(h)
        if t >= 2**64:
            return np.ones(len(Xv), dtype=bool)
        return Xv < np.uint64(t)

    def error_counts(self, hypotheses: Any, X: Any, y: Any) -> np.ndarray:
        """#errors of each threshold on (X, y) in O((k + n) log n) (sorted prefix counts)."""
        xs, c0, c1 = _sorted_counts(self, X, y)
        hs = hypotheses if isinstance(hypotheses, list) else list(hypotheses)
        fast = _fast_thresholds(hs, self.d)  # all plain ints in range: checked at once
        if fast is not None:
            below = _count_below_array(xs, fast)
        else:
            below = _count_below(xs, [self._check_h(h) for h in hs])  # #points x < t  (labelled 1 by c_t)
        # errors: zeros among x < t, plus ones among x >= t
        return np.asarray(c0[below] + (c1[-1] - c1[below]), dtype=np.int64)

    def hypotheses(self) -> list[Any] | None:
        return list(range(2**self.d + 1)) if self.d <= 12 else None

    def random_hypothesis(self, rng: Any = None) -> int:
        return uniform_int(self._rng(rng), 2**self.d + 1)

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        xs = sorted(int(v) for v in B)
        # representatives: t = 0, then t = x_(i) + 1 puts the i smallest points at 1
        reps = [0] + [x + 1 for x in xs]
        return Dichotomies(B, None, reps, self)

    def evaluate_many(self, hypotheses: Any, X: Any) -> np.ndarray:
        Xv = self.validate_points(X, allow_empty=True)
        hs = hypotheses if isinstance(hypotheses, list) else list(hypotheses)
        fast = _fast_thresholds(hs, self.d)
        if fast is not None:
            return np.asarray(Xv[None, :] < fast.astype(np.uint64)[:, None]).reshape(len(hs), len(Xv))
        ts = [self._check_h(h) for h in hs]
        full = np.array([t >= 2**64 for t in ts], dtype=bool)
        tv = np.array([min(t, 2**64 - 1) for t in ts], dtype=np.uint64)
        return np.asarray((Xv[None, :] < tv[:, None]) | full[:, None]).reshape(len(ts), len(Xv))

    @property
    def vc_dimension(self) -> int:
        return 1

    def growth_function_closed_form(self, m: int) -> int:
        return m + 1


class Intervals(_IntegerDomainClass):
    """Intervals over X_d: c_{[a,b]}(x) = 1 iff a <= x <= b (a <= b), plus the empty interval.

    Implements: COMB.Projection / COMB.VC for intervals.  VC dimension 2;
    |Pi_C(B)| = C(|B|+1, 2) + 1; |C| = 2^d (2^d + 1)/2 + 1.  A hypothesis is a pair
    ``(a, b)`` of Python ints or ``None`` (empty).

    Examples
    --------
    >>> Intervals(2).evaluate((1, 2), [0, 1, 2, 3]).tolist()
    [False, True, True, False]
    """

    name = "INTERVAL_d"

    def _check_h(self, h: Any) -> tuple[int, int] | None:
        """Validate an interval (a pair of ints 0 <= a <= b < 2^d, or None) and return it."""
        if h is None:
            return None
        if not isinstance(h, (tuple, list, np.ndarray)):
            raise TypeError(f"interval must be a pair (a, b) of ints or None, got {h!r}")
        if len(h) != 2:
            raise ValueError(f"interval must be a pair (a, b) of ints or None, got {h!r}")
        a, b = hypothesis_int(h[0], "interval start"), hypothesis_int(h[1], "interval end")
        if not (0 <= a <= b < 2**self.d):
            raise ValueError(f"interval must satisfy 0 <= a <= b < 2^{self.d}, got {h!r}")
        return a, b

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        hb = self._check_h(h)
        if hb is None:
            return np.zeros(len(Xv), dtype=bool)
        return (Xv >= np.uint64(hb[0])) & (Xv <= np.uint64(hb[1]))

    def error_counts(self, hypotheses: Any, X: Any, y: Any) -> np.ndarray:
        """#errors of each interval on (X, y) in O((k + n) log n) (sorted prefix counts)."""
        xs, c0, c1 = _sorted_counts(self, X, y)
        given = hypotheses if isinstance(hypotheses, list) else list(hypotheses)
        fast = _fast_intervals(given, self.d)  # every interval well formed: checked for the list at once
        if fast is not None:
            a, b, empty = fast
            lo = _count_below_array(xs, a)
            hi = np.where(empty, lo, _count_below_array(xs, b + 1))
        else:
            hs = [self._check_h(h) for h in given]
            lo = _count_below(xs, [0 if h is None else h[0] for h in hs])
            hi = _count_below(xs, [0 if h is None else h[1] + 1 for h in hs])
            empty = np.array([h is None for h in hs], dtype=bool)
            hi = np.where(empty, lo, hi)
        # errors: all ones, minus ones inside, plus zeros inside
        inside1 = c1[hi] - c1[lo]
        inside0 = c0[hi] - c0[lo]
        return np.asarray(c1[-1] - inside1 + inside0, dtype=np.int64)

    def hypotheses(self) -> list[Any] | None:
        if self.d > 6:
            return None
        n = 2**self.d
        return [None] + [(a, b) for a in range(n) for b in range(a, n)]

    def random_hypothesis(self, rng: Any = None) -> tuple[int, int]:
        g = self._rng(rng)
        a, b = uniform_int(g, 2**self.d), uniform_int(g, 2**self.d)
        return (min(a, b), max(a, b))

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        xs = sorted(int(v) for v in B)
        n = len(xs)
        reps: list[Any] = [None] + [(xs[i], xs[j]) for i in range(n) for j in range(i, n)]
        return Dichotomies(B, None, reps, self)

    def evaluate_many(self, hypotheses: Any, X: Any) -> np.ndarray:
        Xv = self.validate_points(X, allow_empty=True)
        given = hypotheses if isinstance(hypotheses, list) else list(hypotheses)
        fast = _fast_intervals(given, self.d)
        if fast is not None:
            a, b, empty = (fast[0].astype(np.uint64), fast[1].astype(np.uint64), fast[2])
        else:
            hs = [self._check_h(h) for h in given]
            empty = np.array([h is None for h in hs], dtype=bool)
            a = np.array([0 if h is None else h[0] for h in hs], dtype=np.uint64)
            b = np.array([0 if h is None else h[1] for h in hs], dtype=np.uint64)
        M = (Xv[None, :] >= a[:, None]) & (Xv[None, :] <= b[:, None]) & ~empty[:, None]
        return np.asarray(M).reshape(len(given), len(Xv))

    @property
    def vc_dimension(self) -> int:
        return 2

    def growth_function_closed_form(self, m: int) -> int:
        return math.comb(m + 1, 2) + 1


class PointFunctions(_IntegerDomainClass):
    """POINT_d: c_j(x) = 1 iff x = j, for j in X_d.

    Implements: COMB.Projection / COMB.VC for point functions.  VC dimension 1;
    |Pi_C(B)| = |B| + 1 when B is not the whole domain, |B| when it is (the all-zero
    labeling needs a j outside B).

    Examples
    --------
    >>> len(PointFunctions(1).dichotomies([0, 1])), len(PointFunctions(2).dichotomies([0, 1]))
    (2, 3)
    """

    name = "POINT_d"

    def _check_h(self, h: Any) -> int:
        """Validate a point j (an int in X_d, not a bool/float) and return it."""
        j = hypothesis_int(h, "point")
        if not 0 <= j < 2**self.d:
            raise ValueError(f"point must be in X_d, got {j}")
        return j

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        return Xv == np.uint64(self._check_h(h))

    def hypotheses(self) -> list[Any] | None:
        return list(range(2**self.d)) if self.d <= 12 else None

    def random_hypothesis(self, rng: Any = None) -> int:
        return uniform_int(self._rng(rng), 2**self.d)

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        n = len(B)
        reps: list[Any] = []
        rows = []
        if n < 2**self.d:
            members = {int(v) for v in B}
            j = 0  # smallest domain point outside B (exists: |B| < 2^d)
            while j in members:
                j += 1
            reps.append(j)
            rows.append(np.zeros(n, dtype=bool))
        for i in range(n):
            row = np.zeros(n, dtype=bool)
            row[i] = True
            rows.append(row)
            reps.append(int(B[i]))
        p, r = _sorted_patterns(np.array(rows, dtype=bool).reshape(len(rows), n), reps)
        return Dichotomies(B, p, r)

    @property
    def vc_dimension(self) -> int:
        return 1

    def growth_function_closed_form(self, m: int) -> int:
        return m + 1 if m < 2**self.d else m

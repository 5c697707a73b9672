"""Rectangles, k-disjunctions, halfspaces and finite (table) classes.

Implements: COMB.Projection and COMB.VC for RECTANGLE_d^l (BNS15 Sec 4), DISJ_d^k
(HPSY Sec 3.1), halfspaces on finite point sets in R^p (HPSY Sec 3.2), and a generic finite
class given by a table.

Examples
--------
>>> R = Rectangles(4, 2)
>>> len(R.dichotomies([[0, 0], [1, 1], [2, 0]]))
8
>>> D = Disjunctions(3, 2)
>>> D.evaluate((0, 2), [[1, 0, 0], [0, 1, 0]]).tolist()
[True, False]
>>> H = Halfspaces(2, affine=True)
>>> len(H.dichotomies([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
8
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from scipy.optimize import linprog
from semiprivate.theory.classes.base import ConceptClass, Dichotomies, _sorted_patterns
from semiprivate.theory.classes.integer import hypothesis_int, uniform_int, validate_integer_points
from semiprivate.validation import Boolean, Integer, check_array, validate_params

__all__ = ["Rectangles", "Disjunctions", "Halfspaces", "FiniteClass"]


def _point_rows(X: Any, name: str, width: int, *, kinds: str, what: str, empty_dtype: Any,
                allow_empty: bool) -> np.ndarray:
    """``X`` as an array of ``width`` columns whose dtype kind is in ``kinds`` (``what`` names them in the
    TypeError); an empty ``X`` is refused, or returned as ``np.zeros((0, width), empty_dtype)`` when
    ``allow_empty``.  The caller checks the entries."""
    if X is None:
        raise TypeError(f"{name} must be an array, got None")
    arr = np.asarray(X)
    if arr.dtype.kind not in kinds:
        raise TypeError(f"{name} must be a {what} array, got dtype {arr.dtype}")
    if arr.size == 0:
        if allow_empty:
            return np.zeros((0, width), dtype=empty_dtype)
        raise ValueError(f"{name} must not be empty")
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"{name} must have shape (n, {width}), got {arr.shape}")
    return arr

class Rectangles(ConceptClass):
    """RECTANGLE_d^l: axis-aligned boxes over (X_d)^l, plus the empty box.

    Implements: COMB.Projection / COMB.VC for RECTANGLE_d^l (BNS15 Sec 4).
    c_{a,b}(x) = 1 iff a_i <= x_i <= b_i for all i.  A hypothesis is ``(lo, hi)`` (tuples of
    l ints) or ``None`` (empty).  VC dimension 2 l (needs d >= 2 so that each axis has
    three values; d = 1 is rejected).

    Dichotomies: a non-empty labeling is realisable iff its positive set P equals
    B ∩ box for a box whose sides are coordinates of points of B; they are enumerated axis by
    axis as intersections of per-axis slabs (bit masks, deduplicated after each axis), and the
    first box found for a mask is its representative.  |Pi| grows like |B|^{2l}.

    Parameters
    ----------
    d : int
        Bits per coordinate, 2 <= d <= 64.
    l : int
        Number of coordinates, l >= 1.
    """

    name = "RECTANGLE_d^l"

    @validate_params(d=Integer(2, 64), l=Integer(1, 64))
    def __init__(self, d: int, l: int) -> None:  # noqa: E741
        self.d = int(d)
        self.l = int(l)

    @property
    def domain_size(self) -> int:
        return 2 ** (self.d * self.l)

    def domain_points(self) -> np.ndarray | None:
        if self.d * self.l > 8:
            return None
        axes = [range(2**self.d)] * self.l
        return np.array(list(itertools.product(*axes)), dtype=np.uint64).reshape(-1, self.l)

    def validate_points(self, X: Any, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
        if X is None:
            raise TypeError(f"{name} must be an array, got None")
        arr = np.asarray(X) if not isinstance(X, np.ndarray) else X
        if arr.dtype == object or arr.ndim != 2 or arr.shape[1] != self.l:
            if arr.dtype != object and arr.size == 0 and allow_empty:
                return np.zeros((0, self.l), dtype=np.uint64)
            if arr.dtype != object:
                raise ValueError(f"{name} must have shape (n, {self.l}), got {arr.shape}")
        n = arr.shape[0] if arr.ndim >= 1 else 0
        flat = validate_integer_points(arr.reshape(-1) if arr.dtype != object else arr.ravel(), self.d, name, allow_empty=True)
        if flat.size == 0 and not allow_empty:
            raise ValueError(f"{name} must not be empty")
        return flat.reshape(n, self.l)

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _check_h(self, h: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """Validate a box ``(lo, hi)`` (l ints each, 0 <= lo_i <= hi_i < 2^d) or None; return it."""
        if h is None:
            return None
        if not isinstance(h, (tuple, list, np.ndarray)):
            raise TypeError(f"rectangle must be a pair (lo, hi) or None, got {h!r}")
        if len(h) != 2:
            raise ValueError(f"rectangle must be a pair (lo, hi) or None, got {h!r}")
        lo, hi = h
        if not isinstance(lo, (tuple, list, np.ndarray)) or not isinstance(hi, (tuple, list, np.ndarray)):
            raise TypeError(f"rectangle corners must be sequences of {self.l} ints, got {h!r}")
        a = tuple(hypothesis_int(v, "rectangle lower corner") for v in lo)
        b = tuple(hypothesis_int(v, "rectangle upper corner") for v in hi)
        if len(a) != self.l or len(b) != self.l or any(not 0 <= x <= y < 2**self.d for x, y in zip(a, b)):
            raise ValueError(f"rectangle must be (lo, hi) with l={self.l} coordinates and "
                             f"0 <= lo <= hi < 2^{self.d}, got {h!r}")
        return a, b

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        box = self._check_h(h)
        if box is None:
            return np.zeros(len(Xv), dtype=bool)
        lo_a = np.array(box[0], dtype=np.uint64)
        hi_a = np.array(box[1], dtype=np.uint64)
        return np.all((Xv >= lo_a) & (Xv <= hi_a), axis=1)

    def evaluate_many(self, hypotheses: Any, X: Any) -> np.ndarray:
        Xv = self.validate_points(X, allow_empty=True)
        k = len(hypotheses)
        lo = np.zeros((k, self.l), dtype=np.uint64)
        hi = np.zeros((k, self.l), dtype=np.uint64)
        empty = np.zeros(k, dtype=bool)
        for i, h in enumerate(hypotheses):
            box = self._check_h(h)
            if box is None:
                empty[i] = True
                continue
            lo[i], hi[i] = box
        M = ~empty[:, None]
        for axis in range(self.l):
            col = Xv[:, axis][None, :]
            M = M & (col >= lo[:, axis][:, None]) & (col <= hi[:, axis][:, None])
        return np.asarray(M).reshape(k, len(Xv))

    def hypotheses(self) -> list[Any] | None:
        if self.d * self.l > 4:
            return None
        n = 2**self.d
        per_axis = [(a, b) for a in range(n) for b in range(a, n)]
        out: list[Any] = [None]
        for combo in itertools.product(per_axis, repeat=self.l):
            out.append((tuple(c[0] for c in combo), tuple(c[1] for c in combo)))
        return out

    def random_hypothesis(self, rng: Any = None) -> Any:
        g = self._rng(rng)
        lo, hi = [], []
        for _ in range(self.l):
            a, b = uniform_int(g, 2**self.d), uniform_int(g, 2**self.d)
            lo.append(min(a, b))
            hi.append(max(a, b))
        return (tuple(lo), tuple(hi))

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        n = len(B)
        if self.l == 1:
            # one axis: the distinct points have distinct values v_1 < ... < v_n, and the box [v_i, v_j] (i <= j)
            # labels exactly v_i..v_j with 1, a different set for each pair: every pair is its own dichotomy (the
            # masks of the general case below would all differ; same representatives, in the same order)
            vals = sorted(int(v) for v in B[:, 0])
            return Dichotomies(B, None, [None] + [((a,), (b,)) for i, a in enumerate(vals) for b in vals[i:]], self)
        # mask -> per-axis (a, b) ranges of a box realising it; start: no constraint
        boxes: dict[int, tuple[tuple[int, int], ...]] = {(1 << n) - 1: ()}
        for axis in range(self.l):
            col = [int(v) for v in B[:, axis]]
            vals = sorted(set(col))
            le = {v: 0 for v in vals}  # points with coordinate == v, then cumulated to <= v
            for j, v in enumerate(col):
                le[v] |= 1 << j
            acc = 0
            cum_le: list[int] = []
            for v in vals:
                acc |= le[v]
                cum_le.append(acc)
            slabs: dict[int, tuple[int, int]] = {}
            for i in range(len(vals)):
                below = cum_le[i - 1] if i else 0
                for j in range(i, len(vals)):
                    slabs.setdefault(cum_le[j] & ~below, (vals[i], vals[j]))
            new: dict[int, tuple[tuple[int, int], ...]] = {}
            for m, box in boxes.items():
                for sm, rng_ in slabs.items():
                    mm = m & sm
                    if mm and mm not in new:
                        new[mm] = box + (rng_,)
            boxes = new
        reps: list[Any] = [None] + [tuple(zip(*box)) for box in boxes.values()]  # (lo corner, hi corner)
        return Dichotomies(B, None, reps, self)

    @property
    def vc_dimension(self) -> int:
        return 2 * self.l

    def growth_function_closed_form(self, m: int) -> int | None:
        return math.comb(m + 1, 2) + 1 if self.l == 1 else None


class Disjunctions(ConceptClass):
    """DISJ_d^k: monotone disjunctions f_V(x) = OR_{i in V} x[i] with 1 <= |V| <= k, on {0,1}^d.

    Implements: COMB.Projection for DISJ_d^k (HPSY Sec 3.1: f = x[i_1] v ... v x[i_k],
    i_j in [d]; repeated indices allowed, hence |V| <= k).  A hypothesis is a sorted tuple of
    variable indices (0-based).  Labels are {0,1} here; HPSY's {-1,+1} is converted at the
    learner boundary.  |DISJ_d^k| = sum_{j=1}^k C(d, j).

    Dichotomies: the labeling of B by f_V is the OR of the columns of B indexed by V; the
    reachable ORs of at most k columns are enumerated level by level with deduplication.

    VC dimension: no closed form is known in general (it is Theta(k log(d/k))); for k = 1
    it is floor(log2 d) (the dictators), otherwise it is computed by brute-force shattering
    over {0,1}^d for d <= 5 and raises ValueError above that.
    """

    name = "DISJ_d^k"

    @validate_params(d=Integer(1, 4096), k=Integer(1, 4096))
    def __init__(self, d: int, k: int) -> None:
        if k > d:
            raise ValueError(f"k must be <= d, got k={k}, d={d}")
        self.d = int(d)
        self.k = int(k)

    @property
    def domain_size(self) -> int:
        return 2**self.d

    def domain_points(self) -> np.ndarray | None:
        if self.d > 10:
            return None
        return np.array(list(itertools.product((0, 1), repeat=self.d)), dtype=bool).reshape(-1, self.d)

    def validate_points(self, X: Any, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
        arr = _point_rows(X, name, self.d, kinds="biuf", what="0/1", empty_dtype=bool, allow_empty=allow_empty)
        if not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must contain only 0 and 1")
        return arr.astype(bool)

    def _check_h(self, h: Any) -> tuple[int, ...]:
        """Validate a disjunction (1..k distinct variable indices, ints in [0, d)); return them sorted."""
        if not isinstance(h, (tuple, list, set, frozenset, np.ndarray)):
            raise TypeError(f"disjunction must be a collection of variable indices, got {h!r}")
        V = tuple(sorted({hypothesis_int(i, "disjunction variable") for i in h}))
        if not (1 <= len(V) <= self.k) or V[0] < 0 or V[-1] >= self.d:
            raise ValueError(f"disjunction must have 1..{self.k} variables in [0, {self.d}), got {h!r}")
        return V

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        V = self._check_h(h)
        return np.any(Xv[:, list(V)], axis=1)

    def hypotheses(self) -> list[Any] | None:
        total = sum(math.comb(self.d, j) for j in range(1, self.k + 1))
        if total > 100_000:
            return None
        return [V for j in range(1, self.k + 1) for V in itertools.combinations(range(self.d), j)]

    def random_hypothesis(self, rng: Any = None) -> tuple[int, ...]:
        g = self._rng(rng)
        return tuple(sorted(int(i) for i in g.choice(self.d, size=self.k, replace=False)))

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        n = len(B)
        cols: dict[int, int] = {}
        for i in range(self.d):
            m = 0
            for j in range(n):
                if B[j, i]:
                    m |= 1 << j
            cols.setdefault(m, i)
        reach: dict[int, tuple[int, ...]] = {m: (i,) for m, i in cols.items()}
        frontier = dict(reach)
        for _ in range(self.k - 1):
            new: dict[int, tuple[int, ...]] = {}
            for m, V in frontier.items():
                for c, i in cols.items():
                    if i in V:
                        continue
                    mm = m | c
                    if mm not in reach and mm not in new:
                        new[mm] = tuple(sorted(V + (i,)))
            if not new:
                break
            reach.update(new)
            frontier = new
        rows = [np.array([(m >> j) & 1 for j in range(n)], dtype=bool) for m in reach]
        p, r = _sorted_patterns(np.array(rows, dtype=bool).reshape(len(rows), n), list(reach.values()))
        return Dichotomies(B, p, r)

    @property
    def vc_dimension(self) -> int:
        if self.k == 1:
            return int(math.floor(math.log2(self.d)))
        if self.d <= 5:
            return self.brute_force_vc_dimension()
        raise ValueError(
            f"no closed form for VC(DISJ_d^k) with k={self.k} >= 2 and d={self.d} > 5 (brute force limit)"
        )


class Halfspaces(ConceptClass):
    """Halfspaces on finite point sets in R^p: h(x) = 1 iff <w, x> + b > 0.

    Implements: COMB.Projection / COMB.VC for halfspaces (HPSY Sec 3.2 uses those through
    the origin on the unit sphere).  ``affine=False``: b = 0 (through the origin), VC = p;
    ``affine=True``: VC = p + 1.  A hypothesis is ``w`` (length p) or ``(w, b)`` packed as
    an array of length p + 1.

    Dichotomies by LP feasibility (``scipy.optimize.linprog``, HiGHS): labeling z is
    realisable iff some (w, b) has <w,x_i> + b >= 1 for z_i = 1 and <= 0 for z_i = 0 (the
    class is invariant under positive scaling, so the margin 1 loses nothing; for affine
    classes a zero can be made strict by lowering b; for homogeneous ones the all-zero labeling
    is realised by w = 0, and the other labelings are tried with margin -1 for zeros first and
    with <= 0 only if that fails, i.e. for degenerate point sets).  Labelings are grown one point at a
    time and infeasible prefixes pruned, so the number of LPs is about twice the sum over
    prefixes of |Pi_C(prefix)| — polynomial, not 2^|B|.  The LP solution is the representative.
    """

    name = "HALFSPACE_p"

    @validate_params(p=Integer(1, 10_000), affine=Boolean())
    def __init__(self, p: int, affine: bool = False) -> None:
        self.p = int(p)
        self.affine = bool(affine)

    def validate_points(self, X: Any, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
        arr = _point_rows(X, name, self.p, kinds="iuf", what="real", empty_dtype=np.float64, allow_empty=allow_empty)
        arr = arr.astype(np.float64)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite")
        return arr

    def _check_h(self, h: Any) -> np.ndarray:
        """Validate a halfspace (p, or p + 1 when affine, finite real coefficients); return them."""
        arr = np.asarray(h)
        if arr.dtype.kind not in "iuf":
            raise TypeError(f"halfspace must be real coefficients, got dtype {arr.dtype}")
        v = arr.astype(np.float64).ravel()
        want = self.p + (1 if self.affine else 0)
        if v.shape != (want,):
            raise ValueError(f"halfspace must have {want} coefficients, got {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"halfspace coefficients must be finite, got {h!r}")
        return v

    def _split(self, h: Any) -> tuple[np.ndarray, float]:
        v = self._check_h(h)
        return v[: self.p], (float(v[self.p]) if self.affine else 0.0)

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        w, b = self._split(h)
        return np.asarray(Xv @ w + b > 0)

    def random_hypothesis(self, rng: Any = None) -> np.ndarray:
        g = self._rng(rng)
        w = g.standard_normal(self.p + (1 if self.affine else 0))
        return w / np.linalg.norm(w)

    def _lp(self, A: np.ndarray, z: np.ndarray, zero_margin: float) -> np.ndarray | None:
        k = A.shape[1]
        # z=1: -(a.v) <= -1 ; z=0: a.v <= -zero_margin
        sign = np.where(z, -1.0, 1.0)
        b_ub = np.where(z, -1.0, -zero_margin)
        res = linprog(np.zeros(k), A_ub=A * sign[:, None], b_ub=b_ub, bounds=[(None, None)] * k, method="highs")
        if res.status != 0:
            return None
        return np.asarray(res.x, dtype=np.float64)

    def _feasible(self, Xs: np.ndarray, z: np.ndarray) -> np.ndarray | None:
        A = np.hstack([Xs, np.ones((len(Xs), 1))]) if self.affine else Xs
        if not self.affine and not z.any():
            return np.zeros(self.p)  # w = 0 labels every point 0
        # strict margins first (robust representative); then the exact non-strict system
        # (needed only for degenerate point sets with zeros on the boundary, homogeneous case)
        v = self._lp(A, z, 1.0)
        if v is None and not self.affine:
            v = self._lp(A, z, 0.0)
            if v is not None and not np.array_equal((A @ v) > 0, z.astype(bool)):
                # the solver's tolerance put a boundary point on the wrong side; verify
                # within 1e-9 and keep the pattern (degenerate configuration)
                vals = A @ v
                if np.all((vals > 0) == z) or np.all(np.abs(vals[((vals > 0) != z)]) <= 1e-9):
                    return v
                return None
        return v

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        n = len(B)
        zero = np.zeros(self.p + (1 if self.affine else 0))
        level: list[tuple[np.ndarray, np.ndarray]] = [(np.zeros(0, dtype=bool), zero)]
        for i in range(n):
            nxt = []
            for z, v in level:
                for bit in (False, True):
                    z2 = np.append(z, bit)
                    # reuse the parent's solution when it already realises the extension
                    val = float(B[i] @ v[: self.p] + (v[self.p] if self.affine else 0.0))
                    if (val >= 1.0 and bit) or (val <= -1.0 and not bit) or (not bit and not z.any() and not v.any()):
                        nxt.append((z2, v))
                        continue
                    sol = self._feasible(B[: i + 1], z2)
                    if sol is not None:
                        nxt.append((z2, sol))
            level = nxt
        P = np.array([z for z, _ in level], dtype=bool).reshape(len(level), n)
        p, r = _sorted_patterns(P, [v for _, v in level])
        return Dichotomies(B, p, r)

    @property
    def vc_dimension(self) -> int:
        return self.p + 1 if self.affine else self.p


class FiniteClass(ConceptClass):
    """A finite class given by a table: ``table[i, x]`` = h_i(x), domain {0, ..., N-1}.

    Implements: COMB.Projection / COMB.VC (brute-force shattering) for an arbitrary finite
    class on a finite domain.  A hypothesis is a row index.  Points are domain indices.

    Examples
    --------
    >>> C = FiniteClass([[0, 0, 1], [0, 1, 1], [1, 1, 1]])
    >>> len(C.dichotomies([1, 2])), C.vc_dimension
    (2, 1)
    """

    name = "FINITE"

    def __init__(self, table: Any) -> None:
        try:
            empty = table is not None and not isinstance(table, (str, bytes)) and np.asarray(table).size == 0
        except (TypeError, ValueError):  # ragged rows: check_array below names the problem
            empty = False
        if empty:
            raise ValueError("table must be a non-empty 2-d 0/1 array (one row per hypothesis, one column per "
                             "domain point), got an empty table: a class needs at least one hypothesis")
        t = check_array(table, "table", ndim=2, dtype_kinds="biu")
        if t.size == 0:
            raise ValueError(f"table must be a non-empty 2-d 0/1 integer/bool array, got shape {t.shape}")
        if not np.all((t == 0) | (t == 1)):
            raise ValueError("table must contain only 0 and 1")
        self.table = t.astype(bool)

    @property
    def domain_size(self) -> int:
        return int(self.table.shape[1])

    def domain_points(self) -> np.ndarray | None:
        return np.arange(self.table.shape[1], dtype=np.int64)

    def validate_points(self, X: Any, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
        arr = validate_integer_points(X, 64, name, allow_empty=allow_empty).astype(np.int64)
        if arr.size and int(arr.max()) >= self.table.shape[1]:
            raise ValueError(f"{name} must be domain indices in [0, {self.table.shape[1]}), got {int(arr.max())}")
        return arr

    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        return self._evaluate_valid(h, self.validate_points(X, allow_empty=True))

    def _check_h(self, h: Any) -> int:
        """Validate a row index (an int in [0, #rows), not a bool/float) and return it."""
        i = hypothesis_int(h, "hypothesis index")
        if not 0 <= i < self.table.shape[0]:
            raise ValueError(f"hypothesis index must be in [0, {self.table.shape[0]}), got {h!r}")
        return i

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        return self.table[self._check_h(h), Xv]

    def hypotheses(self) -> list[Any]:
        return list(range(self.table.shape[0]))

    def random_hypothesis(self, rng: Any = None) -> int:
        return int(self._rng(rng).integers(self.table.shape[0]))

    def dichotomies(self, points: Any) -> Dichotomies:
        B = self._distinct_points(points)
        p, r = _sorted_patterns(self.table[:, B], list(range(self.table.shape[0])))
        return Dichotomies(B, p, r)

    @property
    def vc_dimension(self) -> int:
        return self.brute_force_vc_dimension()

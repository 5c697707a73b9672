"""Data distributions over Z = X x {0,1} for the cover-based learners (thresholds, intervals,
rectangles, the random-label distribution D0 of ABM19 Sec 4, and mixtures).

Implements: distributions used by ABM19.Thm3.1 / ABM19.Lem3.3 experiments and ABM19.Alg2-4
(D0 with uniformly random labels, the mixture D(p) = p D + (1 - p) D0 of the proof of Lem 4.4).

Every distribution has ``sample(n, rng) -> (X, y)``, ``sample_X(n, rng)`` and an exact
``error(h)`` = err(h; D) (so excess errors in tests are exact, not estimated), plus
``optimal_error`` = inf_{h in C} err(h; D).

Examples
--------
>>> D = ThresholdDistribution(8, 100, noise=0.1)
>>> X, y = D.sample(5, rng=0)
>>> X.dtype.name, y.dtype.name
('uint64', 'bool')
>>> D.error(100), round(D.error(228), 3)
(0.1, 0.5)
"""

from __future__ import annotations

import abc
from fractions import Fraction
from typing import Any

import numpy as np
from semiprivate.theory.classes import Intervals, Rectangles, Thresholds
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.validation import RNG, Integer, Optional, Real, as_generator, check_real, validate_params

__all__ = [
    "LabelledDistribution",
    "ThresholdDistribution",
    "IntervalDistribution",
    "RectangleDistribution",
    "RandomLabelDistribution",
    "MixtureDistribution",
    "uniform_points",
    "DisjunctionGraphDistribution",
    "BlockDisjunctionDistribution",
]

NOISE = Real(0.0, 0.5, closed="left")


@validate_params(n=Integer(0), d=Integer(1, 64), rng=RNG, l=Optional(Integer(1)))
def uniform_points(n: int, d: int, rng: Any = None, l: int | None = None) -> np.ndarray:  # noqa: E741
    """n uniform points of X_d (shape (n,)) or of (X_d)^l (shape (n, l)), dtype uint64.

    ``n >= 0``, ``d`` in [1, 64], ``l >= 1`` (a ValueError naming the parameter otherwise).

    >>> uniform_points(3, 4, rng=0).shape
    (3,)
    """
    g = as_generator(rng)
    shape: tuple[int, ...] = (n,) if l is None else (n, l)
    return g.integers(0, 2**d, size=shape, dtype=np.uint64)


class LabelledDistribution(abc.ABC):
    """A distribution over X x {0, 1}: target concept plus independent label noise.

    ``noise`` is the probability that the label of c*(x) is flipped (agnostic setting when
    > 0); the optimal error in the class is then exactly ``noise``.
    """

    concept_class: ConceptClass
    target: Any
    noise: float

    @abc.abstractmethod
    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        """Implemented by each concrete distribution."""

    @abc.abstractmethod
    def _disagreement_mass(self, h: Any) -> float:
        """Implemented by each concrete distribution."""

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. labelled examples: (X, y) with y bool."""
        n = int(Integer(0).validate("n", n))
        g = as_generator(rng)
        X = self.sample_X(n, g)
        y = self.concept_class.evaluate(self.target, X) if n else np.zeros(0, dtype=bool)
        if self.noise > 0 and n:
            y = y ^ (g.random(n) < self.noise)
        return X, np.asarray(y, dtype=bool)

    def error(self, h: Any) -> float:
        """Exact err(h; D) = noise + (1 - 2 noise) * P_x[h(x) != c*(x)]."""
        return float(self.noise + (1.0 - 2.0 * self.noise) * self._disagreement_mass(h))

    @property
    def optimal_error(self) -> float:
        """inf over the class of err(h; D) (= noise, attained by the target)."""
        return float(self.noise)


def _interval_len(a: int, b: int) -> int:
    return max(0, b - a + 1)


class ThresholdDistribution(LabelledDistribution):
    """Uniform marginal on X_d; label c_{t*}(x) = 1[x < t*], flipped with probability ``noise``.

    Implements: threshold data (THRESH_d, BNS15 Thm 5.6) for ABM19.Thm3.1 experiments.
    err(c_t; D) = noise + (1 - 2 noise) |t - t*| / 2^d exactly.
    """

    @validate_params(d=Integer(1, 64), threshold=Integer(0), noise=NOISE)
    def __init__(self, d: int, threshold: int, noise: float = 0.0) -> None:
        if threshold > 2**d:
            raise ValueError(f"threshold must be in [0, 2^{d}], got {threshold}")
        self.d = d
        self.concept_class = Thresholds(d)
        self.target = self.concept_class._check_h(threshold)
        self.noise = float(noise)

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return uniform_points(n, self.d, rng)

    def _disagreement_mass(self, h: Any) -> float:
        t = self.concept_class._check_h(h)
        return float(Fraction(abs(t - self.target), 2**self.d))


class IntervalDistribution(LabelledDistribution):
    """Uniform marginal on X_d; label 1[a* <= x <= b*] (or the empty interval), noisy.

    Implements: interval data.  err exact from the size of the symmetric difference.
    """

    @validate_params(d=Integer(1, 64), noise=NOISE)
    def __init__(self, d: int, interval: tuple[int | np.integer, int | np.integer] | None, noise: float = 0.0) -> None:
        self.d = d
        self.concept_class = Intervals(d)
        self.target = self.concept_class._check_h(interval)  # validates the interval
        self.noise = float(noise)

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return uniform_points(n, self.d, rng)

    def _disagreement_mass(self, h: Any) -> float:
        hv = self.concept_class._check_h(h)
        A = (0, -1) if hv is None else hv
        B = (0, -1) if self.target is None else self.target
        inter = _interval_len(max(A[0], B[0]), min(A[1], B[1]))
        sym = _interval_len(*A) + _interval_len(*B) - 2 * inter
        return float(Fraction(sym, 2**self.d))


class RectangleDistribution(LabelledDistribution):
    """Uniform marginal on (X_d)^l; label 1[x in box*], noisy.

    Implements: rectangle data (RECTANGLE_d^l, BNS15 Sec 4).  err exact from box volumes.
    """

    @validate_params(d=Integer(2, 64), l=Integer(1, 64), noise=NOISE)
    def __init__(self, d: int, l: int, box: Any, noise: float = 0.0) -> None:  # noqa: E741
        self.d = d
        self.l = l
        self.concept_class = Rectangles(d, l)
        self.target = self.concept_class._check_h(box)  # validates the box
        self.noise = float(noise)

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return uniform_points(n, self.d, rng, self.l)

    @staticmethod
    def _vol(box: Any) -> int:
        if box is None:
            return 0
        v = 1
        for a, b in zip(box[0], box[1]):
            v *= _interval_len(int(a), int(b))
        return v

    def _disagreement_mass(self, h: Any) -> float:
        hv = self.concept_class._check_h(h)
        if hv is None or self.target is None:
            inter = 0
        else:
            inter = 1
            for a1, b1, a2, b2 in zip(hv[0], hv[1], self.target[0], self.target[1]):
                inter *= _interval_len(max(a1, a2), min(b1, b2))
        sym = self._vol(hv) + self._vol(self.target) - 2 * inter
        return float(Fraction(sym, 2 ** (self.d * self.l)))


class RandomLabelDistribution:
    """D0 of ABM19 Sec 4 (Alg 2 step 1): x from a fixed marginal, y uniform on {0,1} independently.

    Implements: ABM19.Alg2 (the dummy distribution D0).  err(h; D0) = 1/2 for every h.

    Parameters
    ----------
    sample_X : callable (n, rng) -> X
        The marginal on X (e.g. ``ThresholdDistribution(...).sample_X``).
    """

    def __init__(self, sample_X: Any) -> None:
        if not callable(sample_X):
            raise TypeError("sample_X must be callable (n, rng) -> X")
        self._sample_X = sample_X
        self.noise = 0.5

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return np.asarray(self._sample_X(n, as_generator(rng)))

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        g = as_generator(rng)
        X = self.sample_X(n, g)
        return X, g.random(n) < 0.5

    def error(self, h: Any) -> float:
        """err(h; D0) = 1/2 for every hypothesis."""
        return 0.5


class MixtureDistribution:
    """D(p) = p D + (1 - p) D0 (proof of ABM19 Lem 4.4); err(h; D(p)) = p err(h; D) + (1-p)/2
    when D0 has uniformly random labels.

    Implements: ABM19.Lem4.4 (the mixture in its proof).
    """

    def __init__(self, D: Any, D0: Any, p: float) -> None:
        self.D = D
        self.D0 = D0
        self.p = check_real(p, "p", 0.0, 1.0)

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        g = as_generator(rng)
        b = g.random(n) < self.p
        X1, y1 = self.D.sample(n, g)
        X0, y0 = self.D0.sample(n, g)
        sel = b.reshape((n,) + (1,) * (np.asarray(X1).ndim - 1))
        return np.where(sel, X1, X0), np.where(b, y1, y0)

    def error(self, h: Any) -> float:
        return float(self.p * self.D.error(h) + (1.0 - self.p) * self.D0.error(h))


# ---------------------------------------------------------------------------
# HPSY disjunction data: D_{f,p} (Def 4) and block-compatible distributions (Thm 1)
# ---------------------------------------------------------------------------


def _variable_set(positive: Any, d: int, name: str = "positive") -> np.ndarray:
    if positive is None or isinstance(positive, (str, bytes, float, int)) or not hasattr(positive, "__iter__"):
        raise TypeError(f"{name} must be a collection of variable indices, got {positive!r}")
    vals = list(positive)
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must contain integer variable indices, got {v!r}")
    idx = np.array(sorted({int(v) for v in vals}), dtype=np.int64)
    if idx.size == 0:
        raise ValueError(f"{name} must not be empty")
    if idx[0] < 0 or idx[-1] >= d:
        raise ValueError(f"{name} must contain indices in [0, {d}), got {positive!r}")
    return idx


class DisjunctionGraphDistribution:
    """HPSY Definition 4: the distribution D_{f,p} over {0,1}^d x {-1,+1}.

    Implements: HPSY.Def4.  P(y = +1) = P(y = -1) = 1/2.  Given y = +1: draw an Erdős–Rényi
    graph G+ on V+(f) (|V+| = k vertices, each edge independently with probability p); the
    variables of V+ that are not isolated in G+ are 1, the isolated ones 0; if G+ has no edge
    (footnote 1: "if G+ is empty"), one uniformly random variable of V+ is 1 and the others 0.
    V- = [d] minus V+ is all 0.  Given y = -1: the same with G- on V-, and V+ all 0.  So f(x) = y
    always and chi_DISJ(f, D_X) = 1 (compatible).  Needs 1 <= k < d (V- non-empty).

    Exact marginals (:meth:`activation_probabilities`): for v in V+,
    P[x_v = 1 | y = +1] = 1 - (1-p)^(k-1) + (1-p)^(k(k-1)/2)/k; the same for V- with d - k.
    Pair probabilities (:meth:`pair_probabilities`): for i != j both in V+,
    p_ij = (1/2)(1 - 2(1-p)^(k-1) + (1-p)^(2k-3)) (the footnote never activates two variables);
    0 across V+ and V-.  The component graph G_D has two components, the cliques V+ and V-
    (when k >= 2 and d - k >= 2).

    Parameters
    ----------
    d : int
        Number of variables.
    positive : collection of int
        V+(f) (0-based indices), 1 <= |V+| <= d - 1.
    p : float
        Edge probability in (0, 1).

    Examples
    --------
    >>> D = DisjunctionGraphDistribution(6, [0, 1, 2], 0.5)
    >>> X, y = D.sample(4, rng=0)
    >>> X.shape, sorted(set(y.tolist())) <= [-1, 1]
    ((4, 6), True)
    >>> round(float(D.activation_probabilities()[0]), 4)  # (1 - 0.25 + 0.125/3) / 2
    0.3958
    """

    @validate_params(d=Integer(2, 1 << 20), p=Real(0.0, 1.0, closed="neither"))
    def __init__(self, d: int, positive: Any, p: float) -> None:
        V = _variable_set(positive, d)
        if V.size >= d:
            raise ValueError(f"positive must leave V- non-empty (|V+| <= d - 1 = {d - 1}), got {V.size} variables")
        self.d = int(d)
        self.positive = V
        mask = np.zeros(d, dtype=bool)
        mask[V] = True
        self.negative = np.flatnonzero(~mask)
        self.k = int(V.size)
        self.p = float(p)

    def _side(self, X: np.ndarray, rows: np.ndarray, V: np.ndarray, g: np.random.Generator) -> None:
        from semiprivate.theory.graphs import gnp_edges

        m = V.size
        n = rows.size
        if n == 0:
            return
        per = max(1.0, m * (m - 1) / 2 * self.p)
        chunk = int(max(1, min(n, 4_000_000 // per)))
        for s in range(0, n, chunk):
            r = rows[s:s + chunk]
            gi, i, j = gnp_edges(m, self.p, r.size, g)
            X[r[gi], V[i]] = True
            X[r[gi], V[j]] = True
            empty = np.bincount(gi, minlength=r.size) == 0
            # footnote 1: G empty -> one uniformly random variable of the side is 1
            ne = int(empty.sum())
            if ne:
                X[r[empty], V[g.integers(0, m, size=ne)]] = True

    @validate_params(n=Integer(0, 1 << 40), rng=RNG)
    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. draws: X (n, d) bool, y (n,) int8 in {-1, +1}."""
        g = as_generator(rng)
        y = np.where(g.random(n) < 0.5, 1, -1).astype(np.int8)
        X = np.zeros((n, self.d), dtype=bool)
        self._side(X, np.flatnonzero(y == 1), self.positive, g)
        self._side(X, np.flatnonzero(y == -1), self.negative, g)
        return X, y

    @validate_params(n=Integer(0, 1 << 40), rng=RNG)
    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        """n unlabelled draws from the marginal D_X."""
        return self.sample(n, rng)[0]

    def label(self, X: Any) -> np.ndarray:
        """f(x) in {-1, +1}: +1 iff some variable of V+(f) is active."""
        from semiprivate.theory.graphs import binary_points

        Xb = binary_points(X, d=self.d, allow_empty=True)
        return np.where(Xb[:, self.positive].any(axis=1), 1, -1).astype(np.int8)

    def activation_probabilities(self) -> np.ndarray:
        """Exact P[x_v = 1] for every variable v (see the class docstring)."""
        out = np.empty(self.d)
        for V in (self.positive, self.negative):
            m = V.size
            q = 1.0 - self.p
            out[V] = 0.5 * (1.0 - q ** (m - 1) + q ** (m * (m - 1) / 2) / m)
        return out

    def pair_probabilities(self) -> np.ndarray:
        """Exact p_ij = P[x_i = x_j = 1], a (d, d) matrix with zero diagonal."""
        P = np.zeros((self.d, self.d))
        q = 1.0 - self.p
        for V in (self.positive, self.negative):
            m = V.size
            if m >= 2:
                P[np.ix_(V, V)] = 0.5 * (1.0 - 2.0 * q ** (m - 1) + q ** (2 * m - 3))
        np.fill_diagonal(P, 0.0)
        return P

    @property
    def p_min(self) -> float:
        """Minimum positive edge probability p_min of the component graph (HPSY Thm 1), in closed form.

        min over the sides with m >= 2 vertices of (1/2)(1 - 2(1-p)^(m-1) + (1-p)^(2m-3)); nan if none.
        """
        q = 1.0 - self.p
        vals = [0.5 * (1.0 - 2.0 * q ** (m - 1) + q ** (2 * m - 3)) for m in (self.k, self.d - self.k) if m >= 2]
        return float(min(vals)) if vals else float("nan")

    def __repr__(self) -> str:
        return f"DisjunctionGraphDistribution(d={self.d}, k={self.k}, p={self.p})"


class BlockDisjunctionDistribution:
    """A compatible distribution for HPSY Thm 1 with a stated component graph and p_min.

    Implements: HPSY.Def2 (a compatible distribution), HPSY.Thm1 (its family: Z blocks, p_min).
    The variables are split into ``blocks`` (disjoint index lists; variables in no block are
    never active).  A draw picks block b with probability ``weights[b]`` (default uniform), then
    activates each variable of b independently with probability q.  The target is f = OR of the
    variables of the ``positive_blocks``; y = f(x) in {-1, +1} (an empty draw is labelled -1).
    Active sets lie inside one block, so chi_DISJ(f, D_X) = 1.  Exactly:
    P[x_v = 1] = w_b q for v in block b, p_ij = w_b q^2 for i != j in block b (0 otherwise),
    so G_D has one clique per block of size >= 2, Z = d - sum_b (|b| - 1) components and
    p_min = min_{b : |b| >= 2} w_b q^2.

    Examples
    --------
    >>> D = BlockDisjunctionDistribution(6, [[0, 1, 2], [3, 4]], [0], 0.5)
    >>> D.n_components, round(D.p_min, 4)
    (3, 0.125)
    >>> X, y = D.sample(3, rng=0)
    >>> X.shape
    (3, 6)
    """

    @validate_params(d=Integer(1, 1 << 20), q=Real(0.0, 1.0, closed="right"))
    def __init__(self, d: int, blocks: Any, positive_blocks: Any, q: float, weights: Any = None) -> None:
        if blocks is None or isinstance(blocks, (str, bytes)) or not hasattr(blocks, "__iter__"):
            raise TypeError(f"blocks must be a list of variable-index lists, got {blocks!r}")
        bl = [_variable_set(b, d, "blocks") for b in blocks]
        if not bl:
            raise ValueError("blocks must not be empty")
        allv = np.concatenate(bl)
        if np.unique(allv).size != allv.size:
            raise ValueError("blocks must be disjoint")
        if positive_blocks is None or isinstance(positive_blocks, (str, bytes)) or \
                not hasattr(positive_blocks, "__iter__"):
            raise TypeError(f"positive_blocks must be a collection of block indices, got {positive_blocks!r}")
        pb = sorted({int(b) for b in positive_blocks})
        if not pb or pb[0] < 0 or pb[-1] >= len(bl):
            raise ValueError(f"positive_blocks must be non-empty indices in [0, {len(bl)}), got {positive_blocks!r}")
        if weights is None:
            w = np.full(len(bl), 1.0 / len(bl))
        else:
            try:
                w = np.asarray(weights, dtype=float)
            except (TypeError, ValueError):
                raise TypeError(f"weights must be {len(bl)} probabilities, got {weights!r}") from None
            if w.shape != (len(bl),) or not np.isfinite(w).all() or (w <= 0).any() or abs(w.sum() - 1) > 1e-9:
                raise ValueError(f"weights must be {len(bl)} positive probabilities summing to 1, got {weights!r}")
        self.d = int(d)
        self.blocks = bl
        self.positive_blocks = pb
        self.q = float(q)
        self.weights = w
        self.positive = np.sort(np.concatenate([bl[b] for b in pb]))

    @property
    def n_components(self) -> int:
        """Z of the distribution's component graph G_D."""
        return self.d - sum(max(b.size - 1, 0) for b in self.blocks)

    @property
    def p_min(self) -> float:
        """min_{b : |b| >= 2} w_b q^2 (nan when no block has two variables)."""
        vals = [self.weights[i] * self.q**2 for i, b in enumerate(self.blocks) if b.size >= 2]
        return float(min(vals)) if vals else float("nan")

    def error(self, h: Any) -> float:
        """Exact err(h; D) of the disjunction with variable set ``h`` (an index collection or a (d,) mask).

        A draw from block b leaves the variables of h in b all inactive w.p. (1-q)^{|h cap b|};
        so err = sum_{b positive} w_b ((1-q)^{|h cap b|} - (1-q)^{|b|})
        + sum_{b negative} w_b (1 - (1-q)^{|h cap b|}).
        """
        return float(self.errors(np.atleast_2d(self._mask(h)))[0])

    def _mask(self, h: Any) -> np.ndarray:
        arr = np.asarray(h)
        if arr.dtype == bool and arr.shape == (self.d,):
            return arr
        m = np.zeros(self.d, dtype=bool)
        if arr.size:
            m[_variable_set(arr.ravel().tolist(), self.d, "h")] = True
        return m

    def errors(self, H: Any) -> np.ndarray:
        """Exact errors of many disjunctions at once: ``H`` is an (m, d) 0/1 incidence matrix."""
        from semiprivate.theory.graphs import binary_points

        Hb = binary_points(H, "H", d=self.d)
        out = np.zeros(Hb.shape[0])
        # One table of (1-q)^k for every k: the same float stands for (1-q)^{|h cap b|} and (1-q)^{|b|}
        # when h covers b, so a covered block contributes exactly 0 (numpy's vectorised pow and
        # Python's pow may differ in the last bit, which made err(target) = -8e-18).
        powers = (1.0 - self.q) ** np.arange(self.d + 1, dtype=np.float64)
        pos = set(self.positive_blocks)
        for i, b in enumerate(self.blocks):
            k = Hb[:, b].sum(axis=1, dtype=np.int64)
            miss = powers[k]
            out += self.weights[i] * ((miss - powers[b.size]) if i in pos else (1.0 - miss))
        # each term is in [0, w_b] and the weights sum to 1; clip the last-bit rounding of the sum
        return np.clip(out, 0.0, 1.0)

    def activation_probabilities(self) -> np.ndarray:
        out = np.zeros(self.d)
        for i, b in enumerate(self.blocks):
            out[b] = self.weights[i] * self.q
        return out

    @validate_params(n=Integer(0, 1 << 40), rng=RNG)
    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. draws: X (n, d) bool, y (n,) int8 in {-1, +1}."""
        g = as_generator(rng)
        b = g.choice(len(self.blocks), size=n, p=self.weights)
        X = np.zeros((n, self.d), dtype=bool)
        for i, blk in enumerate(self.blocks):
            rows = np.flatnonzero(b == i)
            if rows.size:
                X[np.ix_(rows, blk)] = g.random((rows.size, blk.size)) < self.q
        y = np.where(X[:, self.positive].any(axis=1), 1, -1).astype(np.int8)
        return X, y

    @validate_params(n=Integer(0, 1 << 40), rng=RNG)
    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return self.sample(n, rng)[0]

    def label(self, X: Any) -> np.ndarray:
        from semiprivate.theory.graphs import binary_points

        Xb = binary_points(X, d=self.d, allow_empty=True)
        return np.where(Xb[:, self.positive].any(axis=1), 1, -1).astype(np.int8)

    def __repr__(self) -> str:
        return f"BlockDisjunctionDistribution(d={self.d}, blocks={len(self.blocks)}, q={self.q})"

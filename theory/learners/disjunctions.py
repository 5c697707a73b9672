"""HPSY Theorem 1: private semi-supervised learning of disjunctions via the component graph.

Implements: HPSY.Thm1 (the algorithm of Appendix B.1), HPSY.Thm2 (its instance on D_{f,p}).

Algorithm (HPSY Appendix B.1):

1. From the public unlabelled sample S_unl build the empirical component graph G_S
   (:func:`semiprivate.theory.graphs.component_labels`) with components C_1..C_Z.  The reduced class is the
   unions of components, h_U(x) = +1 iff x has an active variable in some C_c, c in U, for
   the non-empty U subset {1..Z} (the paper's union over k = 1..Z of DISJ_Z^k: 2^Z - 1
   hypotheses; the proof counts 2^Z).  A union may have more than k variables (the learner is
   improper with respect to DISJ_d^k, as in the paper).
2. Exponential mechanism (EXPMECH) on the private labelled sample with
   Q(h, S_lab) = -#errors (sensitivity 1 under replacing one example): output h_U with
   probability proportional to exp(epsilon Q(h_U, S_lab)/2).  Hence (epsilon, 0)-DP in the
   private sample (McSherry–Talwar); step 1 uses public data only.  ``privacy_`` is derived
   from the scale the mechanism ran at: epsilon = 2 * scale * sensitivity.

Sampling the 2^Z - 1 unions exactly.  Write K(x) for the components an example touches.
h_U(x) depends on U only through U cap K(x), so an example with |K(x)| <= 1 contributes to one
component only: if every private example touches at most one component the score is a sum of
per-component terms, error_c = neg_c if c in U else pos_c (pos_c/neg_c: +1/-1 examples
touching only C_c), and the mechanism's distribution is a product of independent Bernoulli
choices, conditioned on U non-empty.  In general (the private data are arbitrary) the
components linked by multi-component examples are merged into blocks; the score is a sum of
per-block terms, the distribution a product over blocks (each block's 2^m subsets enumerated),
conditioned on U non-empty.  The conditioning is exact: the first non-empty block j (in a
fixed order) has probability prod_{b<j} P_b(empty) (1 - P_j(empty)); block j is then drawn
conditioned on non-empty, later blocks freely, earlier ones empty.  With Z <= ``max_enumerate``
all 2^Z - 1 error counts are enumerated and :func:`semiprivate.kernels.exponential_mechanism` samples.
Both paths give the same distribution (tested); floating point as in the kernel.  A block of
more than ``max_enumerate`` components (only when the private data link them) raises
ValueError: that event depends on the private data, see the class Notes.

Labels: {-1, +1} (HPSY).  {0, 1} labels are accepted and converted 0 -> -1, 1 -> +1 (an array
with values in {0, 1} containing a 0 is read as {0, 1}; an array of all 1 is +1 in both
readings); a mix of -1 and 0, or any other value, is a ValueError.

Examples
--------
>>> import numpy as np
>>> Xu = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
>>> Xp = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]])
>>> L = ComponentDisjunctionLearner(1.0, rng=0).fit(Xp, [1, -1, 1], Xu)
>>> L.n_components_, L.privacy_
(2, (1.0, 0.0))
>>> L.predict(Xp).tolist() in ([1, -1, 1], [1, 1, 1], [-1, 1, -1])
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.special import logsumexp
from semiprivate.kernels import exponential_log_probabilities, exponential_mechanism
from semiprivate.kernels.validation import (
    DELTA,
    EPSILON,
    PROBABILITY,
    RNG,
    Integer,
    Optional,
    Options,
    as_generator,
    validate_params,
)
from semiprivate.theory.graphs import binary_points, component_labels
from semiprivate.theory.privacy.exponential import sample_log_weights
from sklearn.base import BaseEstimator, ClassifierMixin

__all__ = ["ComponentDisjunctionLearner", "to_pm1_labels", "Thm2Run", "thm2_instance"]

_SENSITIVITY = 1.0  # replace-one: #errors changes by at most 1


@validate_params(n=Optional(Integer(0)))
def to_pm1_labels(y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
    """Labels as int8 in {-1, +1}; {0, 1} input converted 0 -> -1, 1 -> +1 (see module docstring).

    >>> to_pm1_labels([0, 1, 1]).tolist(), to_pm1_labels([-1, 1]).tolist()
    ([-1, 1, 1], [-1, 1])
    """
    return _to_pm1_labels(y, n, name)


def _to_pm1_labels(y: Any, n: int | None, name: str) -> np.ndarray:
    # the body of to_pm1_labels, undecorated so that mutation testing reaches it
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name used in messages), got {type(name).__name__}")
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be an array of labels in {{-1, +1}} (or {{0, 1}}), got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of labels in {{-1, +1}} (or {{0, 1}}), got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have one label per row of X_private ({n}), got {arr.shape[0]}")
    if arr.dtype.kind == "b":
        return np.where(arr, 1, -1).astype(np.int8)
    if arr.dtype.kind == "f" and not bool(np.isfinite(arr).all()):
        raise ValueError(f"{name} must contain labels in {{-1, +1}} (or {{0, 1}}), got NaN or inf")
    vals = set(np.unique(arr).tolist())
    if vals <= {-1, 1}:
        return arr.astype(np.int8)
    if vals <= {0, 1}:
        return np.where(arr == 1, 1, -1).astype(np.int8)
    raise ValueError(f"{name} must contain labels in {{-1, +1}} (or {{0, 1}}, converted 0 -> -1), got values "
                     f"{sorted(vals)[:5]}")


@dataclass
class _Blocks:
    """The score of a union U as a sum over blocks of components (see module docstring)."""

    scale: float                      # epsilon / (2 sensitivity)
    single: np.ndarray                # component ids of one-component blocks
    a0: np.ndarray                    # log-weight of "component excluded" per single
    a1: np.ndarray                    # log-weight of "component included" per single
    multi: list[np.ndarray] = field(default_factory=list)   # component ids per merged block
    multi_lw: list[np.ndarray] = field(default_factory=list)  # log-weights over the 2^m subsets (bit c_i)


class ComponentDisjunctionLearner(BaseEstimator, ClassifierMixin):  # type: ignore[misc]
    """HPSY Thm 1 learner: components of G_S from public data, EXPMECH over unions of components.

    Implements: HPSY.Thm1.  Guarantees (HPSY Thm 1, Appendix B.1): (epsilon, 0)-DP in the
    private sample; on a compatible family with minimum positive edge probability p_min and
    at most Z_max components, n_unl >= log(2 d^2/beta)/(-log(1 - p_min)) (proof constant 1,
    :func:`semiprivate.theory.bounds.hpsy.hpsy_thm1_unlabeled`) makes G_S = G_D w.p. >= 1 - beta/2, and
    n_lab = O((Z_max + polylog(1/beta, 1/delta))/(alpha epsilon))
    (:func:`semiprivate.theory.bounds.hpsy.hpsy_thm1_labeled`, constant exposed there) gives error <= alpha
    w.p. >= 1 - beta.

    Parameters
    ----------
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Accepted for the common signature; the mechanism is pure, ``privacy_[1]`` is 0.
    max_enumerate : int
        With Z <= max_enumerate components all 2^Z - 1 unions are enumerated (``method="auto"``);
        also the largest block of linked components the factorised sampler enumerates.
    method : {"auto", "enumerate", "factorised"}
        Sampling path (same distribution); "auto" chooses by Z, a public quantity.
    rng : None, int or Generator

    Attributes
    ----------
    n_components_ : int
        Z, components of the empirical component graph of ``X_public``.
    component_labels_ : ndarray (d,)
        Component of each variable.
    union_ : tuple of int
        The selected union of components.
    hypothesis_ : ndarray of int
        Its variables (V+ of the learned disjunction).
    privacy_ : (float, float)
        (epsilon, 0.0) derived from the scale the mechanism ran at.
    method_ : str
        The path used.

    Notes
    -----
    The factorised path raises ValueError when private examples link more than
    ``max_enumerate`` components into one block; whether that happens depends on the private
    data.  It cannot happen when ``method="enumerate"`` or when Z <= max_enumerate, nor when
    every private example's active set lies in one component of G_S (the case Thm 1 is about:
    G_S = G_D and a compatible distribution).
    """

    @validate_params(epsilon=EPSILON, delta=DELTA, max_enumerate=Integer(1, 24),
                     method=Options("auto", "enumerate", "factorised"), rng=RNG)
    def __init__(self, epsilon: float = 1.0, delta: float = 0.0, *, max_enumerate: int = 16,
                 method: str = "auto", rng: Any = None) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.max_enumerate = max_enumerate
        self.method = method
        self.rng = rng

    # -- public data ---------------------------------------------------------------
    def _components(self, X_public: Any) -> tuple[int, np.ndarray]:
        if X_public is None:
            raise ValueError("X_public must be given: the component graph is built from public unlabelled data")
        Xu = binary_points(X_public, "X_public")
        return component_labels(Xu)

    def _touched(self, Xp: np.ndarray, labels: np.ndarray, Z: int) -> sp.csr_matrix:
        """(n, Z) 0/1: which components each private example touches."""
        d = labels.size
        P = sp.csr_matrix((np.ones(d, dtype=np.float32), (np.arange(d), labels)), shape=(d, Z))
        T = (sp.csr_matrix(Xp.astype(np.float32)) @ P).tocsr()
        T.data[:] = 1.0
        T.eliminate_zeros()
        return T

    # -- score structures ------------------------------------------------------------
    def _enumerated_errors(self, T: sp.csr_matrix, y: np.ndarray, Z: int) -> np.ndarray:
        """#errors of every non-empty union (mask 1..2^Z-1), from the touched-component masks."""
        bits = (np.int64(1) << np.arange(Z, dtype=np.int64)).astype(np.float64)
        rowmask = np.asarray(T @ bits).astype(np.int64).ravel()
        U = np.arange(1, 2**Z, dtype=np.int64)
        err = np.zeros(U.size, dtype=np.int64)
        pos = y == 1
        for s in range(0, rowmask.size, 256):
            hit = (U[:, None] & rowmask[None, s:s + 256]) != 0  # h_U(x) = +1
            err += np.where(pos[None, s:s + 256], ~hit, hit).sum(axis=1)
        return err

    def _blocks(self, T: sp.csr_matrix, y: np.ndarray, Z: int, scale: float) -> _Blocks:
        nt = np.diff(T.indptr)
        pos = y == 1
        one = nt == 1
        comp1 = T.indices[T.indptr[:-1][one]]
        pos_c = np.bincount(comp1[pos[one]], minlength=Z).astype(float)
        neg_c = np.bincount(comp1[~pos[one]], minlength=Z).astype(float)
        multi_rows = np.flatnonzero(nt >= 2)
        if multi_rows.size:
            Tm = T[multi_rows]
            r, c = Tm.nonzero()
            start = np.ones(r.size, dtype=bool)
            start[1:] = r[1:] != r[:-1]
            first = c[start][np.cumsum(start) - 1]
            g = sp.coo_matrix((np.ones(c.size), (first, c)), shape=(Z, Z)).tocsr()
            _, blk = connected_components(g, directed=False)
            sizes = np.bincount(blk, minlength=blk.max() + 1)
            merged = sizes[blk] >= 2
        else:
            blk = np.arange(Z)
            merged = np.zeros(Z, dtype=bool)
        single = np.flatnonzero(~merged)
        out = _Blocks(scale, single, -scale * pos_c[single], -scale * neg_c[single])
        if merged.any():
            rows_all = np.flatnonzero(nt >= 1)
            Tr = T[rows_all]
            row_blk = blk[Tr.indices[Tr.indptr[:-1]]]
            for b in np.unique(blk[merged]):
                comps = np.flatnonzero(blk == b)
                m = comps.size
                if m > self.max_enumerate:
                    raise ValueError(f"private examples link {m} components into one block, more than "
                                     f"max_enumerate = {self.max_enumerate}: raise max_enumerate or use "
                                     "method='enumerate' with fewer components")
                local = np.full(Z, -1, dtype=np.int64)
                local[comps] = np.arange(m)
                sel = np.flatnonzero(row_blk == b)
                Tb = Tr[sel]
                bits = (np.int64(1) << np.arange(m, dtype=np.int64)).astype(np.float64)
                Pm = sp.csr_matrix((bits, (comps, np.zeros(m, dtype=np.int64))), shape=(Z, 1))
                rowmask = np.asarray(Tb @ Pm.toarray()).astype(np.int64).ravel()
                yb = pos[rows_all[sel]]
                S = np.arange(2**m, dtype=np.int64)
                err = np.zeros(S.size)
                for s in range(0, rowmask.size, 256):
                    hit = (S[:, None] & rowmask[None, s:s + 256]) != 0
                    err += np.where(yb[None, s:s + 256], ~hit, hit).sum(axis=1)
                out.multi.append(comps)
                out.multi_lw.append(-scale * err)
        return out

    @staticmethod
    def _block_empty_logp(B: _Blocks) -> np.ndarray:
        le_single = B.a0 - np.logaddexp(B.a0, B.a1)
        le_multi = np.array([lw[0] - logsumexp(lw) for lw in B.multi_lw])
        return np.concatenate([le_single, le_multi])

    def _sample_blocks(self, B: _Blocks, g: np.random.Generator) -> np.ndarray:
        """Exact draw of a non-empty union from the product-over-blocks distribution."""
        le = self._block_empty_logp(B)
        ns = B.single.size
        before = np.concatenate([[0.0], np.cumsum(le)[:-1]])
        with np.errstate(divide="ignore"):
            nonempty = np.log(-np.expm1(le))  # log(1 - P_b(empty))
        j = int(sample_log_weights(before + nonempty, rng=g))
        chosen: list[np.ndarray] = []
        # singles after j (in block order) are free Bernoulli draws
        pin = np.exp(B.a1 - np.logaddexp(B.a0, B.a1))
        take = np.zeros(ns, dtype=bool)
        if j < ns:
            take[j] = True
            later = np.arange(j + 1, ns)
            take[later] = g.random(later.size) < pin[later]
        chosen.append(B.single[take])
        for t, (comps, lw) in enumerate(zip(B.multi, B.multi_lw)):
            bi = ns + t
            if bi < j:
                continue
            if bi == j:
                s = 1 + int(sample_log_weights(lw[1:], rng=g))
            else:
                s = int(sample_log_weights(lw, rng=g))
            chosen.append(comps[((s >> np.arange(comps.size)) & 1).astype(bool)])
        return np.sort(np.concatenate(chosen)).astype(np.int64)

    def _prepare(self, X_private: Any, y_private: Any, X_public: Any) -> tuple[int, np.ndarray, sp.csr_matrix,
                                                                                np.ndarray, str]:
        Z, labels = self._components(X_public)
        d = labels.size
        Xp = binary_points(X_private, "X_private", d=d)
        y = to_pm1_labels(y_private, Xp.shape[0], "y_private")
        T = self._touched(Xp, labels, Z)
        method = self.method
        if method == "auto":
            method = "enumerate" if Z <= self.max_enumerate else "factorised"
        if method == "enumerate" and Z > 24:
            raise ValueError(f"method='enumerate' needs Z <= 24 components, got Z = {Z}: use 'factorised'")
        return Z, labels, T, y, method

    # -- estimator API ---------------------------------------------------------------
    def fit(self, X_private: Any, y_private: Any, X_public: Any = None) -> ComponentDisjunctionLearner:
        """Build G_S from ``X_public``, then select a union of components with EXPMECH on the private sample."""
        g = as_generator(self.rng)
        Z, labels, T, y, method = self._prepare(X_private, y_private, X_public)
        scale = float(self.epsilon) / (2.0 * _SENSITIVITY)
        eps_run = 2.0 * scale * _SENSITIVITY  # both paths run at this scale; privacy_ is read from it
        if method == "enumerate":
            err = self._enumerated_errors(T, y, Z)
            idx = int(exponential_mechanism(-err, eps_run, sensitivity=_SENSITIVITY, rng=g))
            mask = idx + 1
            union = np.flatnonzero((mask >> np.arange(Z)) & 1)
            self.errors_ = err
        else:
            union = self._sample_blocks(self._blocks(T, y, Z, scale), g)
        self.n_components_ = int(Z)
        self.component_labels_ = labels
        self.union_ = tuple(int(c) for c in union)
        self.hypothesis_ = np.flatnonzero(np.isin(labels, union))
        self.method_ = method
        self.n_features_in_ = int(labels.size)
        self.classes_ = np.array([-1, 1])
        # (epsilon, 0)-DP: EXPMECH at scale eps/(2 Delta) with a sensitivity-Delta score (McSherry-Talwar)
        self.privacy_ = (eps_run, 0.0)
        return self

    def log_output_distribution(self, X_private: Any, y_private: Any, X_public: Any) -> np.ndarray:
        """Exact log-probabilities of the unions U (index = bitmask of U minus 1), as ``fit`` samples them.

        Uses the same structures as ``fit`` for its path (error enumeration + the kernel's
        log-probabilities, or the product over blocks conditioned on U non-empty); Z <= 20.
        """
        Z, labels, T, y, method = self._prepare(X_private, y_private, X_public)
        if Z > 20:
            raise ValueError(f"log_output_distribution enumerates 2^Z - 1 unions; Z = {Z} > 20")
        eps = float(self.epsilon)
        if method == "enumerate":
            return exponential_log_probabilities(-self._enumerated_errors(T, y, Z), eps, sensitivity=_SENSITIVITY)
        B = self._blocks(T, y, Z, eps / (2.0 * _SENSITIVITY))
        U = np.arange(1, 2**Z, dtype=np.int64)
        lw = np.zeros(U.size)
        for c, a0, a1 in zip(B.single, B.a0, B.a1):
            lw += np.where((U >> c) & 1, a1, a0)
        for comps, w in zip(B.multi, B.multi_lw):
            s = np.zeros(U.size, dtype=np.int64)
            for t, c in enumerate(comps):
                s |= ((U >> c) & 1) << t
            lw += w[s]
        return np.asarray(lw - logsumexp(lw), dtype=float)

    def predict(self, X: Any) -> np.ndarray:
        """+1 where some variable of the learned union is active, else -1 (int64)."""
        if not hasattr(self, "hypothesis_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        Xb = binary_points(X, "X", d=self.n_features_in_, allow_empty=True)
        return np.where(Xb[:, self.hypothesis_].any(axis=1), 1, -1).astype(np.int64)


class Thm2Run(NamedTuple):
    """One run of the HPSY Thm 2 instance (see :func:`thm2_instance`)."""

    n_unl: int
    n_lab: int
    n_components: int
    test_error: float
    privacy: tuple[float, float]
    valid: bool
    reason: str


@validate_params(d=Integer(2, 1 << 16), k=Integer(1, 1 << 16), p=PROBABILITY, alpha=PROBABILITY, beta=PROBABILITY,
                 epsilon=EPSILON, form=Options("statement", "proof", "corrected"), n_test=Integer(1, 1 << 24),
                 rng=RNG)
def thm2_instance(d: int, k: int, p: float, alpha: float, beta: float, epsilon: float, *,
                  form: str = "statement", n_test: int = 20000, rng: Any = None) -> Thm2Run:
    """HPSY Thm 2 instance: D_{f,p} with V+ = {0..k-1}, sizes from the theorem, the Thm 1 learner.

    Implements: HPSY.Thm2.  n_unl, n_lab from :func:`semiprivate.theory.bounds.hpsy.hpsy_thm2` (``form``:
    the statement, the proof's, or the corrected n_unl; n_lab with constant 1); the run
    reports Z of G_S and the test error on ``n_test`` fresh examples.  When the theorem's
    hypotheses fail (``valid=False``) the sizes are still used where defined, and the reason
    is returned.

    >>> r = thm2_instance(200, 100, 0.01, 0.1, 0.01, 1.0, rng=0, n_test=1000)
    >>> r.n_components, r.privacy
    (2, (1.0, 0.0))
    """
    return _thm2_instance(d, k, p, alpha, beta, epsilon, form, n_test, rng)


def _thm2_instance(d: int, k: int, p: float, alpha: float, beta: float, epsilon: float, form: str, n_test: int,
                   rng: Any) -> Thm2Run:
    # the body of thm2_instance, undecorated so that mutation testing reaches it
    from semiprivate.theory.bounds.hpsy import hpsy_thm2
    from semiprivate.theory.distributions import DisjunctionGraphDistribution
    from semiprivate.theory.validity import Checked

    if k >= d:
        raise ValueError(f"k must be < d, got k={k}, d={d}")
    g = as_generator(rng)
    res = hpsy_thm2(d, k, p, alpha, beta, epsilon, form=form, strict=False)
    valid, reason = True, ""
    if isinstance(res, Checked):
        valid, reason = bool(res.valid), str(res.reason)
        if res.value is None:
            raise ValueError(f"HPSY Thm 2 gives no sample size here: {reason}")
        res = res.value
    n_unl, n_lab = int(res.n_unl), int(res.n_lab)
    D = DisjunctionGraphDistribution(d, range(k), p)
    Xu = D.sample_X(n_unl, g)
    Xl, yl = D.sample(n_lab, g)
    L = ComponentDisjunctionLearner(epsilon, rng=g).fit(Xl, yl, Xu)
    Xt, yt = D.sample(n_test, g)
    err = float(np.mean(L.predict(Xt) != yt))
    return Thm2Run(n_unl, n_lab, L.n_components_, err, L.privacy_, valid, reason)

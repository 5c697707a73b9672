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

Sampling, with the path chosen from public data only (Z = number of components of G_S).
Write K(x) for the components an example touches; h_U(x) depends on U only through U cap K(x).

* ``method="enumerate"`` (``"auto"`` when Z <= ``max_enumerate``): all 2^Z - 1 error counts are
  enumerated and :func:`semiprivate.kernels.exponential_mechanism` samples, exactly, for every
  private sample.
* ``method="factorised"`` (``"auto"`` when Z > ``max_enumerate``): the score is the *fractional*
  error -sum_x (1/|K(x)|) #{c in K(x): [c in U] disagrees with y_x} (an example touching no
  component contributes a constant).  Each example's share lies in [0, 1], so the score has
  sensitivity 1 and the mechanism is (epsilon, 0)-DP; the score is a sum of per-component
  terms, the distribution a product of independent Bernoulli choices conditioned on U
  non-empty.  Each component's term is an exact rational ((epsilon/2) times a sum of 1/|K(x)|
  shares), and the union is drawn with exact coins only (``bernoulli_exp`` of a rational and the
  exact exponential mechanism over integer scores; ``_sample_exact``): every union has its exact
  probability, never 0, so the (epsilon, 0) claim holds for the sampler that runs, not only for
  its law.  When every private example
  touches at most one component (Thm 1's compatible case with G_S = G_D) the fractional error
  is the number of errors, and both paths have the same distribution (tested).

Neither path raises, overflows or changes because of the private sample: an exact sampler of
the #errors score for private examples linking many components would need time exponential in
the size of the linked block, which the private data choose.

Labels: the learner reads them through its declared ``classes`` (default (-1, +1), HPSY's;
``classes=(0, 1)`` for 0/1 labels) and ``predict`` answers in that set.  The helper
:func:`to_pm1_labels` converts {0, 1} or {-1, +1} arrays to {-1, +1}.

Examples
--------
>>> import numpy as np
>>> Xu = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
>>> Xp = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]])
>>> L = ComponentDisjunctionLearner(1.0, random_state=0).fit(Xp, [1, -1, 1], Xu)
>>> L.n_components_, L.privacy_
(2, (1.0, 0.0))
>>> L.predict(Xp).tolist() in ([1, -1, 1], [1, 1, 1], [-1, 1, -1])
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, logsumexp
from semiprivate.kernels import exponential_log_probabilities, exponential_mechanism
from semiprivate.kernels.noise import bernoulli_exp
from semiprivate.theory.bounds.hpsy import hpsy_thm2
from semiprivate.theory.distributions import DisjunctionGraphDistribution
from semiprivate.theory.graphs import binary_points, component_labels
from semiprivate.theory.learners._base import (
    CHECKS_ON_FEATURE_MATRICES,
    LABELLED,
    LearnerBase,
    declared_failures,
    require_fitted,
    seed_of,
)
from semiprivate.theory.privacy._release import Released, fit_stream
from semiprivate.theory.validity import Checked
from semiprivate.validation import (
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

__all__ = ["ComponentDisjunctionLearner", "to_pm1_labels", "Thm2Run", "thm2_instance"]

_SENSITIVITY = 1.0  # replace-one: #errors changes by at most 1


@validate_params(n=Optional(Integer(0)))
def to_pm1_labels(y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
    """Labels as int8 in {-1, +1}; {0, 1} input converted 0 -> -1, 1 -> +1 (see module docstring).

    Messages never echo the labels (they may be private).

    >>> to_pm1_labels([0, 1, 1]).tolist(), to_pm1_labels([-1, 1]).tolist()
    ([-1, 1, 1], [-1, 1])
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name used in messages), got {type(name).__name__}")
    arr = _label_array(y, n, name)
    if arr.dtype.kind == "b":
        return np.where(arr, 1, -1).astype(np.int8)
    vals = set(np.unique(arr).tolist())
    if vals <= {-1, 1}:
        return arr.astype(np.int8)
    if vals <= {0, 1}:
        return np.where(arr == 1, 1, -1).astype(np.int8)
    raise ValueError(f"{name} must contain labels in {{-1, +1}} (or {{0, 1}}, converted 0 -> -1) only")


def _label_array(y: Any, n: int | None, name: str) -> np.ndarray:
    """A 1-d finite numeric label array of length ``n`` (messages name the parameter, never a value)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be an array of labels in {{-1, +1}} (or {{0, 1}}), got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of labels in {{-1, +1}} (or {{0, 1}}), got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have one label per row of X ({n}), got {arr.shape[0]}")
    if arr.dtype.kind == "f" and not bool(np.isfinite(arr).all()):
        raise ValueError(f"{name} must contain labels in {{-1, +1}} (or {{0, 1}}), got NaN or inf")
    return arr


def _check_classes(classes: Any) -> tuple[int, int]:
    """``classes`` = (negative label, positive label): two distinct integers."""
    try:
        neg, pos = classes
    except (TypeError, ValueError):
        raise TypeError(f"classes must be a pair (negative label, positive label), got {classes!r}") from None
    for v in (neg, pos):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"classes must hold two integer labels, got {classes!r}")
    if int(neg) == int(pos):
        raise ValueError(f"classes must hold two distinct labels, got {classes!r}")
    return int(neg), int(pos)


def _declared_labels(y: Any, n: int, classes: tuple[int, int]) -> np.ndarray:
    """Private labels as int8 in {-1, +1} read through the declared ``classes`` (never inferred from y)."""
    arr = _label_array(y, n, "y")
    neg, pos = classes
    if arr.dtype.kind == "b":
        return np.where(arr, 1, -1).astype(np.int8)
    is_pos, is_neg = arr == pos, arr == neg
    if not bool((is_pos | is_neg).all()):
        raise ValueError(f"y must contain only the labels of classes={classes} (negative, positive); "
                         "declare the label set with classes=, e.g. classes=(0, 1) for 0/1 labels")
    return np.where(is_pos, 1, -1).astype(np.int8)


@dataclass
class _Blocks:
    """The factorised score: per-component log-weights of "excluded" (a0) and "included" (a1)."""

    scale: float                      # epsilon / (2 sensitivity)
    a0: np.ndarray                    # log-weight of "component excluded", per component
    a1: np.ndarray                    # log-weight of "component included", per component


class ComponentDisjunctionLearner(Released, LearnerBase):
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
        ``method="auto"`` enumerates the 2^Z - 1 unions when Z <= max_enumerate, else factorises.
    method : {"auto", "enumerate", "factorised"}
        The score and sampler, chosen from the public data only (Z): "enumerate" = exact #errors
        over all unions (Z <= 24); "factorised" = the fractional error score, a product over
        components (any Z).  Both equal #errors when each private example touches at most one
        component (see the module docstring).
    classes : (int, int)
        The label set (negative, positive), declared: ``y`` must use it and ``predict``
        answers in it (default (-1, +1), HPSY's labels; ``classes=(0, 1)`` for 0/1 labels).
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    random_state : None, int, SeedSequence or Generator
        The seed of the mechanism's coins (scikit-learn's name).

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
    classes_ : ndarray
        The declared ``classes``.
    privacy_ : (float, float)
        (epsilon, 0.0) derived from the scale the mechanism ran at.
    method_ : str
        The path used (a function of Z and the parameters: public).

    Notes
    -----
    Privacy model ``"labelled"``: one private example changes, ``X_public`` fixed (the
    component graph is a deterministic function of ``X_public``).  ``fit`` never raises or
    switches path because of the private sample: the path depends on Z only, and both
    samplers are exact (no floating-point number decides a draw) for every private sample.
    """

    privacy_model_ = LABELLED
    expected_failed_checks = declared_failures(
        CHECKS_ON_FEATURE_MATRICES, "fit needs public unlabelled rows (X_public: the component graph, HPSY Thm 1) and "
        "0/1 points of {0,1}^d with the declared classes; the checks call fit(X, y) on real-valued features")
    _releases = frozenset({"union_", "hypothesis_", "privacy_"})
    _public = frozenset({"n_components_", "component_labels_", "method_", "n_features_in_", "classes_"})

    @validate_params(epsilon=EPSILON, delta=DELTA, max_enumerate=Integer(1, 24),
                     method=Options("auto", "enumerate", "factorised"), rng=RNG, random_state=RNG)
    def __init__(self, epsilon: float = 1.0, delta: float = 0.0, *, max_enumerate: int = 16,
                 method: str = "auto", classes: tuple[int, int] = (-1, 1), rng: Any = None,
                 random_state: Any = None) -> None:
        _check_classes(classes)
        self.epsilon = epsilon
        self.delta = delta
        self.max_enumerate = max_enumerate
        self.method = method
        self.classes = classes
        self.rng = rng
        self.random_state = random_state

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
        """Per-component log-weights of the fractional error score (sensitivity 1).

        An example touching the k >= 1 components K(x) adds 1/k to the score's error for each
        c in K(x) whose membership in U disagrees with its label (+1: c not in U; -1: c in U);
        an example touching none has a constant error.  Each example's share lies in [0, 1], so
        replacing one example moves the score by at most 1; with k = 1 the share is its error.
        """
        k = np.diff(T.indptr).astype(np.float64)
        w = np.zeros(T.shape[0])
        np.divide(1.0, k, out=w, where=k > 0)
        W = sp.diags(w) @ T  # row x: 1/k on each touched component
        pos = (y == 1).astype(np.float64)
        pos_c = np.asarray(W.T @ pos).ravel()          # +1 shares: an error when c is excluded
        neg_c = np.asarray(W.T @ (1.0 - pos)).ravel()  # -1 shares: an error when c is included
        return _Blocks(scale, -scale * pos_c, -scale * neg_c)

    def _exact_shares(self, T: sp.csr_matrix, y: np.ndarray) -> list[Fraction]:
        """Per component c, the exact rational pos_c - neg_c of the fractional score (:meth:`_blocks`).

        The same shares as ``_blocks`` computes in floats, here as Fractions: sum over the rows touching c of
        +1/k (label +1) or -1/k (label -1), k = the number of components the row touches.
        """
        Z = T.shape[1]
        k = np.diff(T.indptr)
        sign = np.where(y == 1, 1, -1).astype(np.int64)
        out = [Fraction(0)] * Z
        for kk in np.unique(k[k > 0]).tolist():
            rows = np.flatnonzero(k == kk)
            counts = np.asarray(T[rows].T @ sign[rows]).ravel().astype(np.int64)  # signed counts per component
            for c in np.flatnonzero(counts).tolist():
                out[c] += Fraction(int(counts[c]), int(kk))
        return out

    @staticmethod
    def _coin(t: Fraction, g: np.random.Generator) -> bool:
        """Exact ``Bernoulli(1 / (1 + exp(-t)))`` for a rational t (component c included with weight e^{A_c}
        against e^{B_c} excluded, t = A_c - B_c): propose a side with a fair bit, accept the favoured side
        always and the other with ``bernoulli_exp(|t|)`` (exact), repeat; at most 2 rounds on average."""
        while True:
            inside = bool(g.integers(2))
            if inside == (t >= 0) or bernoulli_exp(abs(t), rng=g):
                return inside

    @classmethod
    def _first_in(cls, t: list[Fraction], g: np.random.Generator) -> int:
        """Exact draw of J with P[J = j] proportional to 1 / (1 + exp(-t_j)).

        That weight is exp(min(t_j, 0)) times 1/(1 + exp(-|t_j|)), a factor in [1/2, 1]; J is proposed
        proportionally to exp(-floor(g_j)), g_j = max_i min(t_i, 0) - min(t_j, 0), by the exact exponential
        mechanism over integer scores, then accepted with the exact coins exp(-(g_j - floor(g_j))) and
        1/(1 + exp(-|t_j|)): each round is accepted with probability at least 1/(2e).
        """
        m = [min(tj, Fraction(0)) for tj in t]
        top = max(m)
        gap = [top - mj for mj in m]
        floors = np.array([math.floor(x) for x in gap], dtype=np.int64)
        while True:
            j = int(exponential_mechanism(-floors, 2.0, sensitivity=1, rng=g, exact=True))  # P ~ exp(-floor)
            if bernoulli_exp(gap[j] - int(floors[j]), rng=g) and cls._coin(abs(t[j]), g):
                return j

    @classmethod
    def _sample_exact(cls, t: list[Fraction], g: np.random.Generator) -> np.ndarray:
        """Exact draw of a non-empty union from the product over components conditioned on U non-empty.

        Component c is in U independently with probability p_c = 1/(1 + exp(-t_c)), t_c = (epsilon/2)
        (pos_c - neg_c) exact and rational; every coin is exact (:meth:`_coin`), so every union has its exact
        probability, never 0 (pure DP needs that: a float coin gives exp(-745.5) probability 0 and exp(-745)
        probability 2^-53).  Two samplers of the same law, chosen by a float estimate of S = sum_c p_c (the
        choice changes the running time only): S >= 1, draw every coin and start again while U is empty
        (accepted w.p. 1 - prod(1 - p_c) >= 1 - 1/e); S < 1, draw a first member J with P ~ p_J
        (:meth:`_first_in`), the other components by their coins, and accept U with probability 1/|U| (the
        proposal's law is |U| P[U] / S: accepted w.p. (1 - prod(1 - p_c))/S >= 1 - 1/e).
        """
        Z = len(t)
        s_est = float(np.sum(expit(np.array([float(x) for x in t]))))
        while True:
            if s_est >= 1.0:
                take = np.array([cls._coin(tc, g) for tc in t], dtype=bool)
                if take.any():
                    return np.flatnonzero(take).astype(np.int64)
                continue
            j = cls._first_in(t, g)
            take = np.array([c == j or cls._coin(t[c], g) for c in range(Z)], dtype=bool)
            if int(g.integers(int(take.sum()))) == 0:
                return np.flatnonzero(take).astype(np.int64)

    def _prepare(self, X: Any, y: Any, X_public: Any) -> tuple[int, np.ndarray, sp.csr_matrix,
                                                                                np.ndarray, str]:
        Z, labels = self._components(X_public)
        d = labels.size
        Xp = binary_points(X, "X")
        if Xp.shape[1] != d:
            raise ValueError(f"X and X_public must have the same number of columns (the d variables): "
                             f"X has shape {Xp.shape}, X_public has shape {np.shape(X_public)}")
        y = _declared_labels(y, Xp.shape[0], _check_classes(self.classes))
        T = self._touched(Xp, labels, Z)
        method = self.method
        if method == "auto":
            method = "enumerate" if Z <= self.max_enumerate else "factorised"
        if method == "enumerate" and Z > 24:
            raise ValueError(f"method='enumerate' needs Z <= 24 components, got Z = {Z}: use 'factorised'")
        return Z, labels, T, y, method

    # -- estimator API ---------------------------------------------------------------
    def fit(self, X: Any, y: Any, X_public: Any = None) -> ComponentDisjunctionLearner:
        """Build G_S from ``X_public``, then select a union of components with EXPMECH on the private sample."""
        g = fit_stream(seed_of(self))
        Z, labels, T, y, method = self._prepare(X, y, X_public)
        scale = float(self.epsilon) / (2.0 * _SENSITIVITY)
        eps_run = 2.0 * scale * _SENSITIVITY  # both paths run at this scale; privacy_ is read from it
        if method == "enumerate":
            err = self._enumerated_errors(T, y, Z)
            # integer error counts: the exact sampler (no union with a finite score gets probability 0)
            idx = int(exponential_mechanism(-err, eps_run, sensitivity=_SENSITIVITY, rng=g, exact=True))
            mask = idx + 1
            union = np.flatnonzero((mask >> np.arange(Z)) & 1)
        else:
            # the fractional score's rational per-component terms, sampled with exact coins
            half = Fraction(float(self.epsilon)) / (2 * Fraction(_SENSITIVITY))
            union = self._sample_exact([half * d for d in self._exact_shares(T, y)], g)
        self.n_components_ = int(Z)
        self.component_labels_ = labels
        self.union_ = tuple(int(c) for c in union)
        self.hypothesis_ = np.flatnonzero(np.isin(labels, union))
        self.method_ = method
        self.n_features_in_ = int(labels.size)
        self.classes_ = np.array(_check_classes(self.classes))
        # (epsilon, 0)-DP: EXPMECH at scale eps/(2 Delta) with a sensitivity-Delta score (McSherry-Talwar)
        self.privacy_ = (eps_run, 0.0)
        return self

    def log_output_distribution(self, X: Any, y: Any, X_public: Any) -> np.ndarray:
        """Exact log-probabilities of the unions U (index = bitmask of U minus 1), as ``fit`` samples them.

        Uses the same structures as ``fit`` for its path (error enumeration + the kernel's
        log-probabilities, or the product over components conditioned on U non-empty); Z <= 20.
        """
        Z, labels, T, y, method = self._prepare(X, y, X_public)
        if Z > 20:
            raise ValueError(f"log_output_distribution enumerates 2^Z - 1 unions; Z = {Z} > 20")
        eps = float(self.epsilon)
        if method == "enumerate":
            return exponential_log_probabilities(-self._enumerated_errors(T, y, Z), eps, sensitivity=_SENSITIVITY)
        B = self._blocks(T, y, Z, eps / (2.0 * _SENSITIVITY))
        U = np.arange(1, 2**Z, dtype=np.int64)
        lw = np.zeros(U.size)
        for c in range(Z):
            lw += np.where((U >> c) & 1, B.a1[c], B.a0[c])
        return np.asarray(lw - logsumexp(lw), dtype=float)

    def predict(self, X: Any) -> np.ndarray:
        """The positive class where some variable of the learned union is active, else the negative one."""
        require_fitted(self, "hypothesis_")
        Xb = binary_points(X, "X", d=self.n_features_in_, allow_empty=True)
        neg, pos = (int(c) for c in self.classes_)
        return np.where(Xb[:, self.hypothesis_].any(axis=1), pos, neg).astype(np.int64)


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
    L = ComponentDisjunctionLearner(epsilon, random_state=g).fit(Xl, yl, Xu)
    Xt, yt = D.sample(n_test, g)
    err = float(np.mean(L.predict(Xt) != yt))
    return Thm2Run(n_unl, n_lab, L.n_components_, err, L.privacy_, valid, reason)

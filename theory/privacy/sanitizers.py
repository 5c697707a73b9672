"""Differentially private sanitizers of an unlabelled database (step 2 of BNS15 Algorithm 1).

Implements: BNS15.ThmA.3 (the BLR exponential mechanism over small databases, exact, for tiny
domains) and a noisy-histogram sanitizer with a stated uniform accuracy over all predicates.

* :class:`NoisyHistogramSanitizer` — exact discrete Laplace noise ``P(z) ∝ exp(-epsilon |z| / 2)``
  (:func:`semiprivate.kernels.noise.discrete_laplace`, scale 2/epsilon as an exact rational) on every
  count of the histogram of D over X (replace-one neighbours change two counts by 1: L1 sensitivity 2,
  so the integer noisy histogram is epsilon-DP exactly, with no float low bits to read, Mironov 2012),
  negative counts clipped to 0 and normalised
  (post-processing), then ``size`` synthetic points drawn i.i.d. from it (post-processing) or,
  with ``size=None``, the weighted support itself.  Uniform accuracy over *every* predicate
  q ⊆ X (hence over C^xor): with p = hist(D)/|D| and p^ the normalised clipped noisy
  histogram, |q(p^) - q(p)| <= TV(p^, p) <= ||Z||_1 / |D| where Z is the noise vector, and
  ||Z||_1 ~ Gamma(|X|, 2/epsilon) exactly, so with probability >= 1 - beta
  sup_q |q(p^) - q(p)| <= G^{-1}_{|X|, 2/eps}(1 - beta) / |D|  (:meth:`accuracy`).  A size-k
  synthetic draw adds the usual uniform-convergence error of the predicate class.  For
  domains up to 2^16 points.
* :class:`BLRSanitizer` — BNS15 Thm A.3 (Blum, Ligett, Roth): the exponential mechanism over
  all databases D^ of ``size`` points of X (multisets), score
  -|D| max_{q in Q} |q(D) - q(D^)| (sensitivity 1 under replace-one), so
  P[D^] ∝ exp(-epsilon |D| max_q |q(D) - q(D^)| / 2): epsilon-DP; enumerated exactly
  (``output_distribution``) for tiny domains.

* :class:`DyadicThresholdSanitizer` — for THRESH_d / INTERVAL_d with d up to 64: exact discrete
  Laplace of scale 2d/eps on every dyadic count (L1 sensitivity 2d = 128 for d = 64 under replace-one), the noise of
  the empty nodes drawn lazily, only along the paths that synthetic points take (exactly the
  law of the fully noised tree), synthetic points drawn top-down from the clipped noisy
  counts.  Privacy: exactly epsilon-DP.  Accuracy: *measured, not proved*.  GenericLearner's
  analysis needs event E1 of Thm 3.3, a bound on sup_{q in C^xor} |q(D~) - q(D)| for the
  synthetic database (C^xor for thresholds = unions of two intervals); the clipping of negative
  counts breaks the simple "sum of d noises per prefix" argument and we did not derive the
  replacement.  With noise of scale 128/eps per node any such bound needs |D| of order
  d^{3/2} 2d/(eps alpha) ~ 10^5/alpha.  Tests check the privacy (audit) and the measured
  accuracy of GenericLearner with it on THRESH_64.

Examples
--------
>>> S = NoisyHistogramSanitizer(1.0, domain_size=16, size=50, rng=0)
>>> Dt = S.sanitize([1, 1, 2, 5, 9])
>>> len(Dt), S.privacy_
(50, (1.0, 0.0))
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from scipy.stats import gamma
from semiprivate.kernels import exponential_log_probabilities, exponential_mechanism
from semiprivate.kernels.noise import discrete_laplace
from semiprivate.theory.privacy._release import Released, fit_stream
from semiprivate.theory.privacy.budget import laplace_scale, normal_epsilon
from semiprivate.validation import EPSILON, PROBABILITY, RNG, Integer, Optional, validate_params

__all__ = ["NoisyHistogramSanitizer", "BLRSanitizer", "DyadicThresholdSanitizer", "MAX_HISTOGRAM_DOMAIN",
           "MAX_BLR_DATABASES"]

#: Largest domain the histogram sanitizer accepts (2^16 points).
MAX_HISTOGRAM_DOMAIN = 2**16
#: Largest number of candidate databases the exact BLR sanitizer enumerates.
MAX_BLR_DATABASES = 200_000


def _points(X: Any, domain_size: int, name: str = "X") -> np.ndarray:
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be an array of domain indices, got {type(X).__name__}")
    arr = np.asarray(X)
    if arr.size == 0:  # before the dtype check: NumPy makes [] float64
        raise ValueError(f"{name} must not be empty")
    if arr.dtype == object or arr.dtype.kind not in "iu":
        # integer-valued finite floats are indices too (converted below with the integer dtypes)
        if not (arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            raise TypeError(f"{name} must hold integer domain indices, got dtype {arr.dtype}")
    arr = arr.reshape(-1).astype(np.int64)
    if arr.min() < 0 or arr.max() >= domain_size:
        # which entry and its value are not shown: they are private data
        raise ValueError(f"{name} must hold indices in [0, {domain_size}); some entry is outside")
    return arr


class NoisyHistogramSanitizer(Released):
    """Discrete-Laplace noisy histogram over X, clipped, normalised, sampled (epsilon-DP, replace-one).

    Implements: BNS15.Alg1 step 2 (a concrete epsilon-DP sanitizer; accuracy in the module doc).

    Parameters
    ----------
    epsilon : float
    domain_size : int
        |X| (points are indices 0..|X|-1), at most 2^16.
    size : int or None
        Synthetic database size; None returns the weighted support (``weights_``).
    rng : None, int or Generator

    Attributes (after ``sanitize``)
    -------------------------------
    noisy_counts_ (int64: count + exact discrete Laplace noise), weights_ (normalised clipped noisy
    histogram), privacy_ = (epsilon, 0).
    """

    _releases = frozenset({"noisy_counts_", "weights_", "privacy_"})

    @validate_params(epsilon=EPSILON, domain_size=Integer(1, MAX_HISTOGRAM_DOMAIN), size=Optional(Integer(1)), rng=RNG)
    def __init__(self, epsilon: float, *, domain_size: int, size: int | None = None, rng: Any = None) -> None:
        self.epsilon = normal_epsilon(epsilon)
        self.domain_size = int(domain_size)
        self.size = size
        self.rng = rng

    def sanitize(self, X: Any) -> np.ndarray:
        """The synthetic database (domain indices), or the support when ``size`` is None."""
        x = _points(X, self.domain_size)
        g = fit_stream(self.rng)
        counts = np.bincount(x, minlength=self.domain_size).astype(np.int64)
        noisy = counts + discrete_laplace(laplace_scale(2, self.epsilon), self.domain_size, rng=g)
        clipped = np.maximum(noisy, 0).astype(np.float64)  # post-processing of the released integer counts
        tot = clipped.sum()
        w = clipped / tot if tot > 0 else np.full(self.domain_size, 1.0 / self.domain_size)
        self.noisy_counts_ = noisy
        self.weights_ = w
        self.privacy_ = (self.epsilon, 0.0)  # Laplace(2/eps) on an L1-sensitivity-2 histogram
        if self.size is None:
            return np.flatnonzero(w > 0)
        return np.asarray(g.choice(self.domain_size, size=int(self.size), p=w), dtype=np.int64)

    @validate_params(n=Integer(1), beta=PROBABILITY)
    def accuracy(self, n: int, beta: float) -> float:
        """Bound, holding w.p. >= 1 - beta, on sup over all predicates q of |q(weights_) - q(D)|, |D| = n.

        ||Z||_1 of |X| discrete Laplace variables of scale 2/eps is stochastically below |X| + Gamma(|X|, 2/eps):
        the bound is |X| plus its (1 - beta)-quantile, divided by n (TV(p^, p) <= ||Z||_1/n, module docstring).
        """
        q = float(gamma.ppf(1.0 - beta, self.domain_size, scale=2.0 / self.epsilon))
        return (self.domain_size + q) / n


class BLRSanitizer(Released):
    """BNS15 Thm A.3 (BLR): exponential mechanism over all size-k databases, exact for tiny X.

    Implements: BNS15.ThmA.3.  Score of a candidate database D^ (multiset of ``size`` points):
    -|D| max_{q} |q(D) - q(D^)| with q(.) the fraction of the database satisfying q
    (sensitivity 1 under replacing one element of D), mechanism at ``epsilon``: epsilon-DP.
    Thm A.3's size O(VC log(1/alpha)/alpha^2) is the paper's; here ``size`` is a parameter.

    Parameters
    ----------
    epsilon : float
    predicates : array of bool, shape (k, |X|)
        The predicate class Q on the domain (e.g. the patterns of C^xor on X).
    size : int
        Size of the output database.
    rng : None, int or Generator

    The mechanism is sampled exactly (:func:`semiprivate.kernels.exponential_mechanism` with
    ``exact=True``): with c1 = |D| q(D) and c2 = k q(D^) (counts), |D| |q(D) - q(D^)| = |c1 k - c2 |D|| / k,
    so the integer score -max_q |c1 k - c2 |D|| of sensitivity k gives the same law, and no
    floating point enters the draw.
    """

    _releases = frozenset({"privacy_"})

    @validate_params(epsilon=EPSILON, size=Integer(1), rng=RNG)
    def __init__(self, epsilon: float, *, predicates: Any, size: int, rng: Any = None) -> None:
        Q = np.asarray(predicates)
        if Q.dtype == object or Q.ndim != 2 or Q.shape[0] == 0 or Q.shape[1] == 0:
            raise ValueError(f"predicates must be a non-empty 2-d bool array (predicates x domain), got shape {Q.shape}")
        if not np.isin(Q, (0, 1)).all():
            raise ValueError("predicates must hold 0/1 values")
        self.epsilon = normal_epsilon(epsilon)
        self.predicates = Q.astype(bool)
        self.size = int(size)
        self.rng = rng
        count = math.comb(Q.shape[1] + self.size - 1, self.size)
        if count > MAX_BLR_DATABASES:
            raise ValueError(f"size={size} over a domain of {Q.shape[1]} points gives {count} candidate databases "
                             f"(more than {MAX_BLR_DATABASES}); use a smaller size or domain")

    def candidates(self) -> np.ndarray:
        """All size-``size`` multisets of X, as sorted rows of domain indices."""
        return np.array(list(itertools.combinations_with_replacement(range(self.predicates.shape[1]), self.size)),
                        dtype=np.int64)

    def _scores(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        x = _points(X, self.predicates.shape[1])
        Q = self.predicates.astype(np.float64)
        qD = Q[:, x].mean(axis=1)
        cand = self.candidates()
        qC = np.stack([Q[:, c].mean(axis=1) for c in cand])  # (n_candidates, k)
        gap = np.abs(qC - qD[None, :]).max(axis=1)
        return cand, -len(x) * gap  # score -|D| max_q |q(D) - q(D^)|: real-valued, sensitivity 1

    def output_distribution(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(candidate databases, exact probabilities) of :meth:`sanitize` on ``X``."""
        cand, score = self._scores(X)
        return cand, np.exp(exponential_log_probabilities(score, self.epsilon, sensitivity=1.0))

    def _integer_scores(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(candidates, -max_q |c1 k - c2 |D||): the score times k, an integer of sensitivity k (class docstring)."""
        x = _points(X, self.predicates.shape[1])
        Q = self.predicates.astype(np.int64)
        c1 = Q[:, x].sum(axis=1)                                   # |D| q(D), per predicate
        cand = self.candidates()
        c2 = np.stack([Q[:, c].sum(axis=1) for c in cand])         # k q(D^)
        return cand, -np.abs(c1[None, :] * self.size - c2 * len(x)).max(axis=1)

    def sanitize(self, X: Any) -> np.ndarray:
        """One draw of the mechanism: a database of ``size`` domain indices (exact sampler)."""
        cand, score = self._integer_scores(X)
        self.privacy_ = (self.epsilon, 0.0)
        i = exponential_mechanism(score, self.epsilon, sensitivity=self.size, rng=fit_stream(self.rng), exact=True)
        return cand[int(i)]


class DyadicThresholdSanitizer(Released):
    """Hierarchical dyadic noisy counts over X_d = {0, ..., 2^d - 1} (d <= 64), lazily noised, sampled top-down.

    Implements: BNS15.Alg1 step 2 for THRESH_d / INTERVAL_d on huge domains (privacy exact,
    accuracy measured, not proved: see the module docstring).

    Every dyadic node (level l = 1..d, prefix p: the points x with x >> (d - l) == p) gets
    count + Z, Z exact discrete Laplace of scale 2 d / epsilon (an integer).  Replacing one point changes two counts by 1 on each of the
    d levels: L1 sensitivity 2 d, so the vector of all 2^{d+1} - 2 noisy counts is
    epsilon-DP.  The noise of a node is drawn the first time the node is looked at and then
    kept for the rest of the run (never after it: only ``privacy_`` is kept on the object): the
    nodes looked at are chosen from values already drawn, and the others never influence the output, so the output has exactly the law it would have with
    the whole tree noised (the 2^64 empty nodes need not exist).  Output (post-processing):
    ``size`` points, each drawn top-down, going to child b with probability proportional to
    max(noisy count of b, 0) (uniform when both are <= 0).

    Parameters
    ----------
    epsilon : float
    d : int
        Bits of the domain, 1..64.
    size : int
        Synthetic database size.
    rng : None, int or Generator
    """

    _releases = frozenset({"privacy_"})

    @staticmethod
    def _noise_table() -> dict[tuple[int, int], int]:
        """The run's node noise, (level, prefix) -> integer noise, filled lazily and dropped after the run."""
        return {}

    @validate_params(epsilon=EPSILON, d=Integer(1, 64), size=Integer(1), rng=RNG)
    def __init__(self, epsilon: float, *, d: int, size: int, rng: Any = None) -> None:
        self.epsilon = normal_epsilon(epsilon)
        self.d = int(d)
        self.size = int(size)
        self.rng = rng

    def sanitize(self, X: Any) -> np.ndarray:
        """``size`` synthetic points of X_d (uint64)."""
        from semiprivate.theory.classes.integer import validate_integer_points

        xs = np.sort(validate_integer_points(X, self.d, "X"))
        g = fit_stream(self.rng)
        scale = laplace_scale(2 * self.d, self.epsilon)
        noise = self._noise_table()
        pool: list[int] = []  # i.i.d. draws handed out one per new node, drawn in blocks
        d = self.d
        block = min(256, 2 * d * self.size)  # at most 2 d nodes are looked at per synthetic point

        def noisy(level: int, prefix: int) -> int:
            key = (level, prefix)
            if key not in noise:
                if not pool:
                    pool.extend(discrete_laplace(scale, block, rng=g).tolist())
                noise[key] = pool.pop()
            shift = d - level
            lo = prefix << shift
            hi = (prefix + 1) << shift
            a = int(np.searchsorted(xs, np.uint64(lo), side="left"))
            b = len(xs) if hi >= 2**64 else int(np.searchsorted(xs, np.uint64(hi), side="left"))
            return (b - a) + noise[key]

        out = np.empty(self.size, dtype=np.uint64)
        for k in range(self.size):
            p = 0
            for level in range(1, d + 1):
                w0 = max(noisy(level, 2 * p), 0)
                w1 = max(noisy(level, 2 * p + 1), 0)
                tot = w0 + w1
                # exact integer choices: uniform when both are <= 0, else child 1 with probability w1 / tot
                bit = int(g.integers(0, 2)) if tot <= 0 else int(int(g.integers(0, tot)) < w1)
                p = 2 * p + bit
            out[k] = np.uint64(p)
        self.privacy_ = (self.epsilon, 0.0)
        return out

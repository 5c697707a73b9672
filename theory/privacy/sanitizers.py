"""Differentially private sanitizers of an unlabelled database (step 2 of BNS15 Algorithm 1).

Implements: BNS15.ThmA.3 (the BLR exponential mechanism over small databases, exact, for tiny
domains) and a noisy-histogram sanitizer with a stated uniform accuracy over all predicates.

* :class:`NoisyHistogramSanitizer` — Laplace noise of scale 2/epsilon on every count of the
  histogram of D over X (replace-one neighbours change two counts by 1: L1 sensitivity 2, so
  the noisy histogram is epsilon-DP), negative counts clipped to 0 and normalised
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
  (:meth:`output_distribution`) for tiny domains.

Not provided: a sanitizer for THRESH_d / intervals on the 2^64 domain (hierarchical dyadic
noisy CDF).  Precisely: the noisy tree itself is straightforward (Laplace(2d/eps) on every
dyadic count, L1 sensitivity 2d = 128 under replace-one; the noise of the 2^64 - |D| empty
leaves and their ancestors drawn lazily, only along the paths that synthetic points take,
which has exactly the law of the full tree).  What is missing is the part GenericLearner's
analysis needs, event E1 of Thm 3.3: a stated and tested bound on
sup_{q in C^xor} |q(D~) - q(D)| for the *synthetic database* drawn top-down from the clipped
noisy tree (C^xor for thresholds = unions of two intervals); the clipping of negative
counts breaks the simple "sum of d noises per prefix" argument, and we did not derive the
replacement in this round.  With noise of scale 128/eps per node such a bound needs |D| of
order d^{3/2} 2d/(eps alpha) ~ 10^5/alpha anyway.  What the toolkit does on THRESH_64 instead:
:class:`~theory.learners.generic.GenericLearner` refuses domains above 2^16 points with a
ValueError saying so, and LabelBoost (:mod:`theory.learners.labelboost`, exact on 2^64 through
the structured dichotomies of Thresholds) or the structured exponential mechanism
(:func:`theory.privacy.exponential.structured_threshold_mechanism`) are the learners there.

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

from kernels.validation import EPSILON, PROBABILITY, RNG, Integer, Optional, as_generator, validate_params
from theory.privacy.exponential import output_distribution, sample

__all__ = ["NoisyHistogramSanitizer", "BLRSanitizer", "MAX_HISTOGRAM_DOMAIN", "MAX_BLR_DATABASES"]

#: Largest domain the histogram sanitizer accepts (2^16 points).
MAX_HISTOGRAM_DOMAIN = 2**16
#: Largest number of candidate databases the exact BLR sanitizer enumerates.
MAX_BLR_DATABASES = 200_000


def _points(X: Any, domain_size: int, name: str = "X") -> np.ndarray:
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be an array of domain indices, got {type(X).__name__}")
    arr = np.asarray(X)
    if arr.dtype == object or arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integer domain indices, got dtype {arr.dtype}")
    arr = arr.reshape(-1).astype(np.int64)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.min() < 0 or arr.max() >= domain_size:
        raise ValueError(f"{name} must hold indices in [0, {domain_size}), got range [{arr.min()}, {arr.max()}]")
    return arr


class NoisyHistogramSanitizer:
    """Laplace noisy histogram over X, clipped, normalised, sampled (epsilon-DP, replace-one).

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
    noisy_counts_, weights_ (normalised clipped noisy histogram), privacy_ = (epsilon, 0).
    """

    @validate_params(epsilon=EPSILON, domain_size=Integer(1, MAX_HISTOGRAM_DOMAIN), size=Optional(Integer(1)), rng=RNG)
    def __init__(self, epsilon: float, *, domain_size: int, size: int | None = None, rng: Any = None) -> None:
        self.epsilon = float(epsilon)
        self.domain_size = int(domain_size)
        self.size = size
        self.rng = rng

    def sanitize(self, X: Any) -> np.ndarray:
        """The synthetic database (domain indices), or the support when ``size`` is None."""
        x = _points(X, self.domain_size)
        g = as_generator(self.rng)
        counts = np.bincount(x, minlength=self.domain_size).astype(np.float64)
        noisy = counts + g.laplace(0.0, 2.0 / self.epsilon, size=self.domain_size)
        clipped = np.maximum(noisy, 0.0)
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

        ||Z||_1 of |X| Laplace(2/eps) variables is Gamma(|X|, 2/eps): the bound is its
        (1 - beta)-quantile divided by n (TV(p^, p) <= ||Z||_1/n, see the module docstring).
        """
        return float(gamma.ppf(1.0 - beta, self.domain_size, scale=2.0 / self.epsilon)) / n


class BLRSanitizer:
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
    """

    @validate_params(epsilon=EPSILON, size=Integer(1), rng=RNG)
    def __init__(self, epsilon: float, *, predicates: Any, size: int, rng: Any = None) -> None:
        Q = np.asarray(predicates)
        if Q.dtype == object or Q.ndim != 2 or Q.shape[0] == 0 or Q.shape[1] == 0:
            raise ValueError(f"predicates must be a non-empty 2-d bool array (predicates x domain), got shape {Q.shape}")
        if not np.isin(Q, (0, 1)).all():
            raise ValueError("predicates must hold 0/1 values")
        self.epsilon = float(epsilon)
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
        return cand, len(x) * gap  # "errors" = |D| max_q |q(D) - q(D^)|, sensitivity 1

    def output_distribution(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(candidate databases, exact probabilities) of :meth:`sanitize` on ``X``."""
        cand, err = self._scores(X)
        return cand, output_distribution(err, self.epsilon)

    def sanitize(self, X: Any) -> np.ndarray:
        """One draw of the mechanism: a database of ``size`` domain indices."""
        cand, err = self._scores(X)
        self.privacy_ = (self.epsilon, 0.0)
        return cand[int(sample(err, self.epsilon, rng=as_generator(self.rng)))]

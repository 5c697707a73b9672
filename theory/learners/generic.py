"""GenericLearner of BNS15 (Algorithm 1): sanitize the unlabelled data, cover by its dichotomies, EXPMECH.

Implements: BNS15.Alg1, BNS15.Thm3.3.

Steps: (2) an epsilon-DP sanitization D~ of the unlabelled database D w.r.t. C^xor
(:mod:`semiprivate.theory.privacy.sanitizers`: noisy histogram, or BLR Thm A.3 on tiny domains);
(3) B = the distinct points of D~; (4) H = one representative per dichotomy of Pi_C(B)
(``concept_class.dichotomies``); (5) the exponential mechanism at epsilon on S with
q = -#errors (sensitivity 1).  Privacy: D is touched only by the sanitizer and S only by the
mechanism, and they are disjoint, so the learner is max(eps_sanitizer, eps_mechanism)-DP
(``privacy_``, from what ran).  Thm 3.3 sizes (O-forms; constants exposed there):
m = O(VC/(alpha^3 eps) log(1/alpha) + log(1/beta)/(eps alpha)) labelled and
n = O(d VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(eps alpha)) unlabelled
(:func:`semiprivate.theory.bounds.bns15.bns15_thm3_3`).

Domains: the sanitizers work on X = {0, ..., |X|-1} with |X| <= 2^16 (histogram) or tiny
(BLR); points are the class's own points (thresholds / intervals / points over X_d with
2^d <= 2^16).  On THRESH_64 / INTERVAL_64, ``sanitizer="dyadic"`` (lazily noised dyadic tree,
exactly epsilon-DP; its uniform accuracy over C^xor is measured, not proved: see
:mod:`semiprivate.theory.privacy.sanitizers`); the other sanitizers refuse domains above 2^16 points.

Examples
--------
>>> from semiprivate.theory.classes import Thresholds
>>> L = GenericLearner(1.0, concept_class=Thresholds(4), sanitized_size=40, random_state=0)
>>> L = L.fit([1, 2, 12, 14], [1, 1, 0, 0], X_public=[1, 3, 5, 7, 9, 11, 13, 15] * 5)
>>> L.privacy_
(1.0, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.classes.integer import Intervals, Thresholds
from semiprivate.theory.combinatorics import xor_dichotomies
from semiprivate.theory.learners._base import (
    ALL_INPUTS,
    CHECKS_ON_FEATURE_MATRICES,
    CONCEPT_CLASS_REASON,
    LearnerBase,
    _Fitted,
    _Params,
    check_fit_inputs,
    declared_failures,
    seed_of,
)
from semiprivate.theory.privacy._release import Released, fit_stream
from semiprivate.theory.privacy.exponential import output_distribution, sample
from semiprivate.theory.privacy.sanitizers import (
    MAX_HISTOGRAM_DOMAIN,
    BLRSanitizer,
    DyadicThresholdSanitizer,
    NoisyHistogramSanitizer,
)
from semiprivate.validation import EPSILON, RNG, Integer, Optional, Options, validate_params

__all__ = ["GenericLearner"]


class GenericLearner(Released, _Fitted, _Params, LearnerBase):
    """BNS15 Algorithm 1 with a concrete epsilon-DP sanitizer.

    Implements: BNS15.Alg1, BNS15.Thm3.3.

    Parameters
    ----------
    epsilon : float
        epsilon of the sanitizer and of the exponential mechanism.
    concept_class : ConceptClass
        C, over a finite domain of at most 2^16 points (``domain_points``/``domain_size``).
    sanitizer : {"histogram", "blr", "dyadic"}
        Step 2: :class:`~semiprivate.theory.privacy.sanitizers.NoisyHistogramSanitizer` (domains <= 2^16),
        the exact :class:`~semiprivate.theory.privacy.sanitizers.BLRSanitizer` w.r.t. C^xor (tiny domains),
        or :class:`~semiprivate.theory.privacy.sanitizers.DyadicThresholdSanitizer` (THRESH_d / INTERVAL_d,
        d <= 64; epsilon-DP exactly, accuracy measured, not proved).
    sanitized_size : int or None
        |D~|; None (histogram only): the histogram's whole weighted support.  Required by
        ``"blr"`` and ``"dyadic"``.
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    random_state : None, int, SeedSequence or Generator
        The seed of the sanitizer's and the mechanism's coins (scikit-learn's name).

    Attributes
    ----------
    privacy_ : (epsilon, 0.0)
        max of the sanitizer's and the mechanism's epsilon as run (disjoint parts of the input).
    sanitized_ : the synthetic database D~ (domain indices); ``B_`` its distinct points;
    hypotheses_ : H; ``hypothesis_``, ``index_``.

    Privacy model ``"all inputs"``: D is read by the sanitizer only and S by the mechanism only
    (BNS15 Thm 3.3).  No error count of S is kept.
    """

    privacy_model_ = ALL_INPUTS
    expected_failed_checks = declared_failures(CHECKS_ON_FEATURE_MATRICES, CONCEPT_CLASS_REASON, set_params_validates=True)
    _releases = frozenset({"sanitized_", "B_", "hypotheses_", "index_", "hypothesis_", "privacy_"})

    @validate_params(epsilon=EPSILON, sanitizer=Options("histogram", "blr", "dyadic"), sanitized_size=Optional(Integer(1)),
                     rng=RNG, random_state=RNG)
    def __init__(self, epsilon: float, *, concept_class: ConceptClass, sanitizer: str = "histogram",
                 sanitized_size: int | None = None, rng: Any = None, random_state: Any = None) -> None:
        if not isinstance(concept_class, ConceptClass):
            raise TypeError(f"concept_class must be a ConceptClass, got {type(concept_class).__name__}")
        self.epsilon = epsilon
        self.concept_class = concept_class
        self.sanitizer = sanitizer
        self.sanitized_size = sanitized_size
        self.rng = rng
        self.random_state = random_state
        if sanitizer == "dyadic":
            if not isinstance(concept_class, (Thresholds, Intervals)):
                raise ValueError(f"sanitizer='dyadic' needs a Thresholds or Intervals class, got {concept_class!r}")
            if sanitized_size is None:
                raise ValueError("sanitizer='dyadic' needs sanitized_size (the synthetic database size)")
        else:
            self._domain()
            if sanitizer == "blr" and sanitized_size is None:
                raise ValueError("sanitizer='blr' needs sanitized_size (the size k of the databases BLR chooses "
                                 "among, BNS15 Thm A.3)")

    @property
    def privacy(self) -> tuple[float, float]:
        """(epsilon, 0.0) for the current parameters."""
        return (float(self.epsilon), 0.0)

    def _domain(self) -> np.ndarray:
        C = self.concept_class
        size = C.domain_size
        if size is None or size > MAX_HISTOGRAM_DOMAIN:
            raise ValueError(f"concept_class domain has {size} points; GenericLearner's sanitizers need at most "
                             f"{MAX_HISTOGRAM_DOMAIN} (for THRESH_64 and other huge domains use LabelBoost)")
        pts = C.domain_points()
        if pts is None:
            try:
                pts = C.validate_points(np.arange(size, dtype=np.uint64), "domain")
            except (TypeError, ValueError):
                raise ValueError(f"concept_class {type(C).__name__} lists no domain points (domain_points() is None) "
                                 f"and its points are not the indices 0..{size - 1}: GenericLearner cannot enumerate "
                                 "its domain") from None
        return pts

    def _indices(self, X: np.ndarray, domain: np.ndarray) -> np.ndarray:
        flat = domain.reshape(len(domain), -1)
        xf = X.reshape(len(X), -1)
        # domain points are sorted lexicographically (itertools.product / arange)
        dims = tuple(int(v) + 1 for v in flat.max(axis=0))
        keys = np.asarray(np.ravel_multi_index(tuple(flat.T.astype(np.int64)), dims))
        kx = np.asarray(np.ravel_multi_index(tuple(xf.T.astype(np.int64)), dims))
        order = np.argsort(keys)
        return np.asarray(order[np.searchsorted(keys[order], kx)], dtype=np.int64)

    def _sanitizer(self, domain: np.ndarray, g: np.random.Generator) -> Any:
        if self.sanitizer == "histogram":
            return NoisyHistogramSanitizer(self.epsilon, domain_size=len(domain), size=self.sanitized_size, rng=g)
        if self.sanitized_size is None:
            raise ValueError("sanitizer='blr' needs sanitized_size (the size k of the databases BLR chooses among, BNS15 Thm A.3)")
        all_dich = self.concept_class.dichotomies(domain).patterns
        return BLRSanitizer(self.epsilon, predicates=xor_dichotomies(all_dich), size=int(self.sanitized_size), rng=g)

    def fit(self, X: Any, y: Any, X_public: Any = None) -> GenericLearner:
        """Algorithm 1 on S = (X, y) and the unlabelled D = X_public."""
        C = self.concept_class
        X, y = check_fit_inputs(C, X, y)
        if X_public is None:
            raise ValueError("X_public (the unlabelled database D) is required by GenericLearner")
        Xd = C.validate_points(X_public, "X_public")
        g = fit_stream(seed_of(self))
        san: Any
        if self.sanitizer == "dyadic":
            san = DyadicThresholdSanitizer(self.epsilon, d=C.d, size=int(self.sanitized_size or 1), rng=g)  # type: ignore[attr-defined]
            self.sanitized_ = san.sanitize(Xd)
            self.B_ = np.unique(self.sanitized_)
        else:
            domain = self._domain()
            san = self._sanitizer(domain, g)
            self.sanitized_ = san.sanitize(self._indices(Xd, domain))
            self.B_ = domain[np.unique(self.sanitized_)]
        self.hypotheses_ = C.dichotomies(self.B_).representatives
        errors = np.asarray(C.error_counts(self.hypotheses_, X, y), dtype=np.int64)
        eps = float(self.epsilon)
        self.index_ = int(sample(errors, eps, rng=g))
        self.hypothesis_ = self.hypotheses_[self.index_]
        self.privacy_ = (max(float(san.privacy_[0]), eps), 0.0)
        return self

    def mechanism_distribution(self, X: Any, y: Any) -> np.ndarray:
        """Exact distribution of step 5 over ``hypotheses_`` (the fitted H) on a labelled sample."""
        if not hasattr(self, "hypotheses_"):
            raise RuntimeError("GenericLearner is not fitted; call fit first")
        X, y = check_fit_inputs(self.concept_class, X, y)
        return output_distribution(self.concept_class.error_counts(self.hypotheses_, X, y), self.epsilon)

"""KLNRS generic private learner: the exponential mechanism over a finite class.

Implements: KLNRS.Generic (Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith 2008/2011,
Thm 3.4), with the score q(S, h) = -#errors of h on S (sensitivity 1), i.e. EXPMECH.
Utility (BNS15 Prop A.1): P[error_S(h) > e_min + Delta] <= |H| exp(-epsilon Delta m / 2), so
m >= 2 (ln|H| + ln(1/beta)) / (epsilon Delta) private examples give empirical excess error
<= Delta w.p. >= 1 - beta; the generalisation part is the usual finite-class bound.
Privacy: (epsilon, 0)-DP for any H (McSherry–Talwar), reported in ``privacy_`` after fit.

Examples
--------
>>> from semiprivate.theory.classes import Thresholds
>>> L = GenericPrivateLearner(1.0, random_state=0, concept_class=Thresholds(4))
>>> L = L.fit([1, 2, 12, 14], [1, 1, 0, 0])
>>> L.privacy_
(1.0, 0.0)
>>> L.predict([0, 15]).tolist() in ([1, 0], [1, 1], [0, 0])
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.classes.base import ConceptClass, check_hypothesis_list
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
from semiprivate.validation import DELTA, EPSILON, RNG, validate_params

__all__ = ["GenericPrivateLearner"]


class GenericPrivateLearner(Released, _Fitted, _Params, LearnerBase):
    """KLNRS generic learner: exponential mechanism over a finite hypothesis list.

    Implements: KLNRS.Generic.

    Parameters
    ----------
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Ignored by the mechanism (pure DP); accepted for the common learner signature.
        ``privacy`` reports (epsilon, 0.0).
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    concept_class : ConceptClass
        The class (for evaluation).
    hypotheses : list, optional
        The finite class H; default: every hypothesis of ``concept_class`` (small classes).
    random_state : None, int, SeedSequence or Generator
        The seed of the mechanism's coins (scikit-learn's name).

    Attributes
    ----------
    privacy_ : tuple (epsilon, delta)
        Set by ``fit``: (epsilon the mechanism ran at, 0.0).  ``privacy`` (a property) is the
        guarantee of the current parameters.
    hypothesis_ : the selected hypothesis; ``index_`` its index.

    Privacy model ``"all inputs"``: ``X_public`` is not read, so the guarantee over one labelled
    example is one over every input.  No error count of the private sample is kept.
    """

    privacy_model_ = ALL_INPUTS
    expected_failed_checks = declared_failures(CHECKS_ON_FEATURE_MATRICES, CONCEPT_CLASS_REASON, set_params_validates=True)
    _releases = frozenset({"index_", "hypothesis_", "privacy_"})

    @validate_params(epsilon=EPSILON, delta=DELTA, rng=RNG, random_state=RNG)
    def __init__(self, epsilon: float, delta: float = 0.0, *, rng: Any = None,
                 concept_class: ConceptClass, hypotheses: list[Any] | None = None, random_state: Any = None) -> None:
        if not isinstance(concept_class, ConceptClass):
            raise TypeError(f"concept_class must be a ConceptClass, got {type(concept_class).__name__}")
        hyps = concept_class.hypotheses() if hypotheses is None else check_hypothesis_list(hypotheses, "hypotheses")
        if not hyps:
            raise ValueError("hypotheses must be a non-empty finite list (the class is too large to enumerate)")
        self.epsilon = epsilon
        self.delta = delta
        self.rng = rng
        self.concept_class = concept_class
        self.hypotheses = hypotheses  # unchanged (scikit-learn's clone); the list the mechanism ranks: hypothesis_list
        self.random_state = random_state

    def __repr__(self) -> str:
        seed = "" if self.random_state is None else f", random_state={self.random_state!r}"
        return (f"GenericPrivateLearner(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"concept_class={self.concept_class!r}, n_hypotheses={len(self.hypothesis_list)}, "
                f"rng={self.rng!r}{seed})")

    @property
    def hypothesis_list(self) -> list[Any]:
        """The finite class H the mechanism ranks: ``hypotheses`` as a list, or every hypothesis of
        ``concept_class`` when ``hypotheses`` is None."""
        if self.hypotheses is None:
            return list(self.concept_class.hypotheses() or [])
        return check_hypothesis_list(self.hypotheses, "hypotheses")

    @property
    def privacy(self) -> tuple[float, float]:
        """(epsilon, 0.0) for the current ``epsilon`` (what the next ``fit`` would guarantee)."""
        return (float(self.epsilon), 0.0)

    def _errors(self, X: Any, y: Any) -> np.ndarray:
        X, y = check_fit_inputs(self.concept_class, X, y)
        return self.concept_class.error_counts(self.hypothesis_list, X, y)

    def fit(self, X: Any, y: Any, X_public: Any = None) -> GenericPrivateLearner:
        """Select a hypothesis with the exponential mechanism (``X_public`` is ignored)."""
        errors = self._errors(X, y)
        eps = float(self.epsilon)
        self.index_ = int(sample(errors, eps, rng=fit_stream(seed_of(self))))  # the exact sampler
        self.hypothesis_ = self.hypothesis_list[self.index_]
        self.privacy_ = (eps, 0.0)  # sensitivity-1 score at eps: (eps, 0)-DP (McSherry-Talwar)
        return self

    def output_distribution(self, X: Any, y: Any) -> np.ndarray:
        """Exact output distribution over ``hypothesis_list`` (for exact privacy checks)."""
        return output_distribution(self._errors(X, y), self.epsilon)

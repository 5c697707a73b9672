"""ASSPP: semi-supervised semi-private agnostic learner of ABM19 (Algorithm 1).

Implements: ABM19.Alg1 (ASSPP), ABM19.Lem3.2 (epsilon-DP for every T_pub), ABM19.Thm3.1.

Steps 1-5 build the finite class H~_Tpub from the public unlabelled points
(:func:`semiprivate.theory.covers.build_cover`); step 6 runs the exponential mechanism over it with
score q(S_priv, h) = -err^(h; S_priv).  ABM19 normalises the score by n_priv (sensitivity
1/n_priv); we use the equivalent q = -#errors with sensitivity 1 (the same distribution).

Thm 3.1 sample sizes (O-forms in the paper) come from :mod:`semiprivate.theory.bounds.abm19`:
n_pub from the exact Lem 3.3 inequality 2 (2e n/d)^{2d} exp(-alpha n/4) <= beta
(:func:`~semiprivate.theory.bounds.abm19.abm19_public_sample_size`), n_priv =
constant (d log(1/alpha) + log(1/beta)) max(1/alpha^2, 1/(epsilon alpha))
(:func:`~semiprivate.theory.bounds.abm19.abm19_private_sample_size`, constant documented there).

Examples
--------
>>> from semiprivate.theory.classes import Thresholds
>>> from semiprivate.theory.distributions import ThresholdDistribution
>>> D = ThresholdDistribution(16, 20000)
>>> Xpub = D.sample_X(200, rng=1)
>>> Xp, yp = D.sample(300, rng=2)
>>> L = ASSPP(1.0, random_state=3, concept_class=Thresholds(16)).fit(Xp, yp, Xpub)
>>> L.privacy_, len(L.cover_) <= 201
((1.0, 0.0), True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.covers import Cover, build_cover
from semiprivate.theory.learners._base import (
    CHECKS_ON_FEATURE_MATRICES,
    CONCEPT_CLASS_REASON,
    LABELLED,
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

__all__ = ["ASSPP"]


class ASSPP(Released, _Fitted, _Params, LearnerBase):
    """ABM19 Algorithm 1 for any class of :mod:`semiprivate.theory.classes`.

    Implements: ABM19.Alg1, ABM19.Thm3.1.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of the exponential mechanism (> 0).
    delta : float
        Accepted for the common signature; ASSPP is pure: ``privacy`` = (epsilon, 0.0)
        (ABM19 Lem 3.2).
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    concept_class : ConceptClass
        The class H.
    random_state : None, int, SeedSequence or Generator
        The seed of the mechanism's coins (scikit-learn's name).

    Attributes
    ----------
    privacy_ : (epsilon, 0.0)
        Set by ``fit`` from the epsilon the mechanism ran at: the guarantee w.r.t. the private
        sample, for every public sample (Lem 3.2).  ``privacy`` (a property) is the guarantee
        of the current parameters.
    cover_ : Cover
        H~_Tpub (steps 1-5).
    hypothesis_ : the output h_priv; ``index_`` its index in ``cover_.hypotheses``.

    Privacy model ``"labelled"``: the guarantee is over one labelled example, T_pub fixed (Lem 3.2);
    the cover is a deterministic function of T_pub, so ASSPP is not private in T_pub.  The fitted
    state (``cover_``, ``index_``, ``hypothesis_``, ``privacy_``) is the whole output: no count of
    errors on S_priv is kept.
    """

    privacy_model_ = LABELLED
    expected_failed_checks = {
        **declared_failures(CHECKS_ON_FEATURE_MATRICES, CONCEPT_CLASS_REASON, set_params_validates=True),
        "check_fit1d": "fit without X_public is refused first (TypeError: ABM19 Alg 1 builds its cover from T_pub), "
                       "before the 1-d X the check expects a ValueError for",
        "check_supervised_y_no_nan": CONCEPT_CLASS_REASON}
    _releases = frozenset({"index_", "hypothesis_", "privacy_"})
    _public = frozenset({"cover_"})  # built from the public sample T_pub only

    @validate_params(epsilon=EPSILON, delta=DELTA, rng=RNG, random_state=RNG)
    def __init__(self, epsilon: float, delta: float = 0.0, *, rng: Any = None,
                 concept_class: ConceptClass, random_state: Any = None) -> None:
        if not isinstance(concept_class, ConceptClass):
            raise TypeError(f"concept_class must be a ConceptClass, got {type(concept_class).__name__}")
        self.epsilon = epsilon
        self.delta = delta
        self.rng = rng
        self.concept_class = concept_class
        self.random_state = random_state

    @property
    def privacy(self) -> tuple[float, float]:
        """(epsilon, 0.0) for the current ``epsilon`` (what the next ``fit`` would guarantee)."""
        return (float(self.epsilon), 0.0)

    def __repr__(self) -> str:
        seed = "" if self.random_state is None else f", random_state={self.random_state!r}"
        return (f"ASSPP(epsilon={self.epsilon!r}, delta={self.delta!r}, concept_class={self.concept_class!r}, "
                f"rng={self.rng!r}{seed})")

    def _prepare(self, X: Any, y: Any, X_public: Any) -> tuple[Cover, np.ndarray]:
        if X_public is None:
            raise TypeError("X_public is required: ASSPP needs the public unlabelled sample T_pub")
        X, y = check_fit_inputs(self.concept_class, X, y)
        T_pub = self.concept_class.validate_points(X_public, "X_public", allow_empty=True)
        if len(T_pub) == 0:
            raise ValueError(f"X_public must hold at least one point: ABM19 Alg 1 builds its cover H~ from the "
                             f"public sample T_pub, got shape {np.shape(T_pub)}")
        cover = build_cover(self.concept_class, T_pub)
        return cover, self.concept_class.error_counts(cover.hypotheses, X, y)

    def fit(self, X: Any, y: Any, X_public: Any = None) -> ASSPP:
        """Run ABM19 Alg 1 on S_priv = (X, y) and T_pub = X_public."""
        cover, errors = self._prepare(X, y, X_public)
        self.cover_ = cover
        eps = float(self.epsilon)
        self.index_ = int(sample(errors, eps, rng=fit_stream(seed_of(self))))  # the exact sampler
        self.hypothesis_ = self.cover_.hypotheses[self.index_]
        # Lem 3.2: the score -#errors has sensitivity 1, so the mechanism run at eps is (eps, 0)-DP
        self.privacy_ = (eps, 0.0)
        return self

    def output_distribution(self, X: Any, y: Any, X_public: Any) -> tuple[list[Any], np.ndarray]:
        """Exact output distribution (cover hypotheses, probabilities) for fixed T_pub."""
        cover, errors = self._prepare(X, y, X_public)
        return cover.hypotheses, output_distribution(errors, self.epsilon)

"""The release cannot be told apart from its neighbour's by its float noise, its coins, a sentinel, an unchecked
base or a part no theorem covers: one test per scenario of the class it belongs to (each failed before the
privacy-by-construction design: the float Laplace of two released values, candidates and refits sharing one
draw, a generator or the raw noise left on a fitted object, a sentinel that is also a class or disagrees
between components, a non-private base behind ``base_event``, SubSampling's transcript released with its
output, and the exponential mechanism that gave probability 0 to a finite score)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import RandomLabelDistribution
from semiprivate.theory.learners.active import LabelOracle, SubSampling
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.halfspaces import NonPrivateHalfspace, SemiPrivateHalfspace
from semiprivate.theory.learners.labelboost import LabelBoost
from semiprivate.theory.learners.reduction import ReductionLearner
from semiprivate.theory.privacy._release import coin_state_paths
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from semiprivate.theory.privacy.sanitizers import DyadicThresholdSanitizer, NoisyHistogramSanitizer
from semiprivate.validation import as_generator
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


class _DrawRecorder(ClassifierMixin, BaseEstimator):
    """A private-looking estimator whose fit records the first integer its ``rng`` gives (its "noise")."""

    def __init__(self, c: int = 0, rng: Any = None) -> None:
        self.c = c
        self.rng = rng

    def fit(self, X: Any, y: Any) -> _DrawRecorder:
        self.draw_ = int(as_generator(self.rng).integers(2**62))
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.zeros(len(X), dtype=np.int64)


def _labelled(n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


# -- class 1: float noise on released reals (Mironov 2012) -----------------------------------------
def test_random_stopping_best_score_is_an_integer_count_plus_exact_integer_noise():
    X, y = _labelled()
    s = RandomStoppingSearchCV(_DrawRecorder(), {"c": [0, 1]}, gamma=0.5, base_privacy=(0.5, 0.0),
                               epsilon_score=1.0, rng=0).fit(X, y)
    # an integer: no low bits to read (a float count + float Laplace has them)
    assert isinstance(s.best_score_, int | np.integer)


def test_noisy_histogram_counts_are_integers_from_the_exact_discrete_laplace():
    S = NoisyHistogramSanitizer(1.0, domain_size=8, size=5, rng=0)
    S.sanitize([1, 1, 2, 5])
    assert S.noisy_counts_.dtype == np.int64


# -- class 2: randomness reused or exposed ----------------------------------------------------------
def test_a_seeded_estimator_inside_private_search_does_not_make_candidates_share_a_draw():
    X, y = _labelled()
    s = PrivateSearchCV(_DrawRecorder(rng=0), {"c": [0, 1, 2, 3]}, epsilon_select=1.0, rng=1).fit(X, y)
    draws = [e.draw_ for e in s.estimators_]
    assert len(set(draws)) == len(draws)


def test_refit_draws_from_its_own_stream_not_the_training_fit_s():
    X, y = _labelled()
    s = PrivateSearchCV(_DrawRecorder(rng=0), {"c": [0]}, epsilon_select=1.0, refit=True, rng=1).fit(X, y)
    assert s.best_estimator_.draw_ != s.estimators_[0].draw_


def test_labelboost_keeps_no_generator_of_its_run():
    C1 = Thresholds(1)
    L = LabelBoost(GenericPrivateLearner(1.0, concept_class=C1), concept_class=C1, n=1, alpha=0.5,
                   unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                   beta_factor=1, iteration_ratio=2, final_ratio=2)
    L.fit([0, 1], [1, 0], [0, 1, 1, 0, 1, 0])
    assert coin_state_paths(L) == []


def test_reduction_learner_keeps_no_generator_of_its_run():
    D0 = RandomLabelDistribution(lambda n, g: g.integers(0, 2, n))
    L = ReductionLearner(1.0, n_priv=20, n_pub=1, D0=D0,
                         base_learner=lambda e, d, g: GenericPrivateLearner(e, d, concept_class=Thresholds(1), random_state=g))
    L.fit(np.array([0, 1]), [1, 0])
    assert coin_state_paths(L) == []


def test_dyadic_sanitizer_keeps_no_raw_noise_next_to_its_output():
    S = DyadicThresholdSanitizer(1.0, d=4, size=3, rng=0)
    S.sanitize([1, 5, 9])
    assert not hasattr(S, "noise_")


# -- class 3: public rows told apart by a sentinel label ---------------------------------------------
def test_a_sentinel_that_is_also_a_class_is_refused():
    X, y = _labelled()
    y = np.where(y == 1, 1, -1)
    Xpub = X[:10]
    with pytest.raises(ValueError, match="unlabeled_label"):
        SemiPrivateHalfspace(1.0, k=2, classes=[-1, 1], unlabeled_label=-1, accountant="rdp", random_state=0).fit(X, y, Xpub)


def test_a_public_rows_step_with_another_sentinel_is_refused():
    X, y = _labelled()
    y = y.copy()
    y[:10] = -1
    pipe = Pipeline([("scale", PublicRowsFitted(StandardScaler(), unlabeled_label=0)), ("clf", _DrawRecorder())])
    with pytest.raises(ValueError, match="unlabeled_label"):
        PrivateSearchCV(pipe, {"clf__c": [0, 1]}, unlabeled_label=-1, rng=0).fit(X, y)


# -- class 4: a wrapper path that skips the per-fit check -------------------------------------------
def test_random_stopping_with_a_base_event_refuses_a_non_private_base():
    from dp_accounting import dp_event

    X, y = _labelled(60)
    event = dp_event.GaussianDpEvent(5.0)
    s = RandomStoppingSearchCV(NonPrivateHalfspace(projection="none", k=None, classes=[0, 1]), {"n_iter": [5]},
                               method="renyi", base_event=event, gamma=0.5, epsilon_score=1.0, rng=0)
    with pytest.raises(ValueError, match="not private|privacy"):
        s.fit(X, y)


# -- class 5: the claim's scope and the sampler that really runs -------------------------------------
def test_subsampling_releases_the_hypothesis_only():
    base = GenericPrivateLearner(0.5, concept_class=Thresholds(1))
    S = SubSampling(base, n=2, m=1, epsilon=1.0, rng=0)
    t = S.guarantee().t
    X = np.arange(t) % 2
    res = S.fit(X, LabelOracle((X == 0).astype(int)))
    assert res.transcript is None


def test_the_exponential_mechanism_fit_runs_gives_a_finite_score_positive_probability(monkeypatch):
    # errors 0 and 2000 at epsilon 1: the second hypothesis has probability e^-1000 / (1 + e^-1000) > 0;
    # fit must run a sampler that can output it (the compiled float sampler sets exp(-1000) to 0)
    from semiprivate.kernels import _reference

    calls = []
    exact = _reference.reference_exact_sample

    def spy(*a: Any, **k: Any) -> Any:
        calls.append(1)
        return exact(*a, **k)

    monkeypatch.setattr(_reference, "reference_exact_sample", spy)
    L = GenericPrivateLearner(1.0, concept_class=Thresholds(1), hypotheses=[0, 2], random_state=0)
    L.fit([0] * 1000 + [1] * 1000, [1] * 1000 + [0] * 1000)
    assert calls, "fit did not run the exact sampler"

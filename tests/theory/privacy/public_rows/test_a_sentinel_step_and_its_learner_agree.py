"""In a plain Pipeline (no search comparing sentinels), a PublicRowsFitted step that takes the rows labelled with its
sentinel for public rows must be followed by a learner that reads the same rows as public: a learner given its
public rows by argument, whose classes include the sentinel, would otherwise train after a scaler fitted on its
private rows of that class (the scaler's mean_ is their exact mean).  Refused, with the step left unfitted."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy._release import Released
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from sklearn.base import BaseEstimator
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


def _data():
    g = np.random.default_rng(0)
    Xpub = g.normal(size=(20, 3))
    X = g.normal(size=(30, 3))
    return X, np.where(X[:, 0] > 0, 1, -1), Xpub


def test_an_explicit_sentinel_that_is_the_learners_class_is_refused_and_the_step_left_unfitted():
    X, y, Xpub = _data()
    pipe = Pipeline([("sc", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)),
                     ("clf", SemiPrivateHalfspace(1.0, 1e-5, k=2, epochs=1, classes=[-1, 1], row_norm="clip"))])
    with pytest.raises(ValueError, match=r"^SemiPrivateHalfspace: unlabeled_label=None, but a preprocessing step "
                                         r"\(PublicRowsFitted, unlabeled_label=-1\)"):
        pipe.fit(X, y, clf__X_public=Xpub)
    assert not hasattr(pipe.named_steps["sc"], "transformer_")  # no mean of private rows left behind
    assert not hasattr(pipe.named_steps["clf"], "coef_")


class _PublicMean(Released, BaseEstimator):
    """A cheap private-learner stand-in: reads the public rows of X by the sentinel, keeps their mean."""

    privacy_model_ = "labelled"
    _releases = frozenset({"privacy_"})
    _public = frozenset({"public_mean_"})

    def __init__(self, classes=(0, 1), unlabeled_label=None):
        self.classes = classes
        self.unlabeled_label = unlabeled_label

    def fit(self, X, y, X_public=None):
        public = np.asarray(y) == self.unlabeled_label if self.unlabeled_label is not None else np.zeros(len(y), bool)
        self.public_mean_ = np.asarray(X)[public].mean(axis=0) if public.any() else np.asarray(X_public).mean(axis=0)
        self.privacy_ = (0.0, 0.0)
        return self


def test_a_step_and_a_learner_with_the_same_sentinel_fit():
    X, y, Xpub = _data()
    y01 = (y == 1).astype(int)
    Xall = np.vstack([X, Xpub])
    yall = np.concatenate([y01, np.full(len(Xpub), 7)])  # public rows marked by a sentinel that is no class
    pipe = Pipeline([("sc", PublicRowsFitted(StandardScaler(), unlabeled_label=7)),
                     ("clf", _PublicMean(unlabeled_label=7))])
    pipe.fit(Xall, yall)
    assert np.allclose(pipe.named_steps["sc"].transformer_.mean_, Xpub.mean(axis=0))
    # the y vector is no longer marked once its learner has run: a later learner on it is not refused
    _PublicMean(classes=(0, 1, 7)).fit(Xall, yall, X_public=Xpub)
    # and a learner that reads the sentinel rows as private after such a step is refused
    pipe = Pipeline([("sc", PublicRowsFitted(StandardScaler(), unlabeled_label=7)), ("clf", _PublicMean())])
    with pytest.raises(ValueError, match="unlabeled_label=None, but a preprocessing step"):
        pipe.fit(Xall, yall, clf__X_public=Xpub)

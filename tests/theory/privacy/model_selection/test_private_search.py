"""PrivateSearchCV (semiprivate.theory.privacy.model_selection): a Pipeline(Normalizer,
SemiPrivateHalfspace) searched privately on sklearn's digits, public rows routed to every fit, the
privacy of the whole search accounted; the selection is the exponential mechanism (frequency test).

Statistical test: fixed seed; false-failure rate stated at the test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chisquare
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer


@pytest.mark.slow
@pytest.mark.usefixtures("seed_reuse_allowed")  # refits one seed on several datasets (a test harness)
def test_private_search_on_digits_routes_public_rows_and_accounts_every_fit(digits, recorder):
    X, y = digits.X, digits.y
    n_lab = X.shape[0] - digits.n_public
    pipe = Pipeline([("norm", Normalizer()), ("clf", recorder(1.0, k=8, epochs=2, classes=range(10),
                                                               unlabeled_label=-1, random_state=0))])
    grid = {"clf__k": [8, 16], "clf__epsilon": [0.5, 1.0]}
    search = PrivateSearchCV(pipe, grid, epsilon_select=0.7, holdout_fraction=0.25, unlabeled_label=-1,
                             rng=1).fit(X, y)
    assert len(recorder.seen) == 4
    rows = {s[0][0] for s in recorder.seen}
    assert len(rows) == 1 and all(s[1] == digits.n_public for s in recorder.seen)  # every fit: all public rows
    n_train = rows.pop() - digits.n_public
    assert 0.6 * n_lab < n_train < 0.9 * n_lab  # held-out part about 25% of the labelled rows
    per = [e.steps[-1][1].privacy_ for e in search.estimators_]
    assert all(p[0] <= c["clf__epsilon"] for p, c in zip(per, search.candidates_, strict=True))
    assert search.privacy_ == (max(math.fsum(p[0] for p in per), 0.7), math.fsum(p[1] for p in per))
    assert search.privacy_[0] > 2.9  # four fits (0.5 + 0.5 + 1 + 1, each accounted) -- not one fit's epsilon
    assert search.best_estimator_ is search.estimators_[search.best_index_]
    assert search.classes_.tolist() == list(range(10))
    assert 0.3 < search.score(X, y) <= 1.0  # 10 classes (chance 0.1), replace-one DP-SGD noise: 0.374 at rng=1
    assert not any("score" in k for k in vars(search))  # no exact held-out statistic is kept
    # sklearn's GridSearchCV: one fit's privacy_ after 2 x 2 x 3 + 1 fits chosen by exact private scores
    gs = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert gs.best_estimator_.steps[-1][1].privacy_[0] <= 1.0 < search.privacy_[0]


@pytest.mark.slow
def test_refit_adds_the_refit_privacy(digits):
    X, y = digits.X, digits.y
    pipe = Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(1.0, k=8, epochs=1, classes=range(10),
                                                                          unlabeled_label=-1))])
    s = PrivateSearchCV(pipe, {"clf__k": [4, 8]}, epsilon_select=0.5, unlabeled_label=-1, refit=True,
                        rng=0).fit(X, y)
    r = s.budget_["refit"]
    assert s.privacy_ == pytest.approx((s.budget_["search"][0] + r[0], s.budget_["search"][1] + r[1]))
    assert s.best_estimator_ not in s.estimators_


class _Fixed(ClassifierMixin, BaseEstimator):
    """A 'private' classifier that predicts ``label`` everywhere and claims privacy (0.1, 0)."""

    def __init__(self, label=0):
        self.label = label

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.1, 0.0)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


@pytest.mark.slow
def test_selection_is_the_exponential_mechanism_on_held_out_correct_counts():
    """Held-out rows: label 1 w.p. 1 (y all 1).  Candidates predict 0 (0 correct) or 1 (all correct): with
    epsilon_select = e and h held-out rows, P[pick label 1] = 1 / (1 + exp(-e h / 2)).  The held-out part has
    the fixed size h = round(0.3 * 10) = 3; 1000 searches' picks against that law (P = 0.711 at e = 0.6) by a
    chi-square test; false-failure rate 1e-4 (the threshold; 1.09e-4 by the exact binomial law).  Power
    (exact binomial): 0.998 against a halved epsilon (P = 0.611), 1 - 6e-15 against a doubled one, 1 against
    a uniform pick."""
    X = np.zeros((10, 1))
    y = np.ones(10, dtype=int)
    eps = 0.6
    h = round(0.3 * 10)
    picks = []
    for seed in range(1000):
        s = PrivateSearchCV(_Fixed(), {"label": [0, 1]}, epsilon_select=eps, holdout_fraction=0.3, rng=seed).fit(X, y)
        picks.append(s.best_params_["label"])
    expected_ones = len(picks) / (1.0 + math.exp(-eps * h / 2))
    obs = [picks.count(0), picks.count(1)]
    assert chisquare(obs, [len(picks) - expected_ones, expected_ones]).pvalue > 1e-4
    assert s.privacy_ == (max(0.2, eps), 0.0)


def test_refusals():
    X, y = np.zeros((10, 1)), np.ones(10, dtype=int)

    class _NoPrivacy(_Fixed):
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

    with pytest.raises(TypeError, match="privacy_"):
        PrivateSearchCV(_NoPrivacy(), {"label": [0, 1]}).fit(X, y)
    with pytest.raises(ValueError, match="holdout_fraction"):
        PrivateSearchCV(_Fixed(), {"label": [0, 1]}, holdout_fraction=1.0)
    with pytest.raises(ValueError, match="epsilon_select"):
        PrivateSearchCV(_Fixed(), {"label": [0, 1]}, epsilon_select=0.0)
    with pytest.raises(TypeError, match="refit"):
        PrivateSearchCV(_Fixed(), {"label": [0, 1]}, refit=1)
    with pytest.raises(ValueError, match="epsilon_select"):  # set_params bypasses __init__: fit checks again
        PrivateSearchCV(_Fixed(), {"label": [0, 1]}).set_params(epsilon_select=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="no labelled row"):
        PrivateSearchCV(_Fixed(), {"label": [0, 1]}, unlabeled_label=1).fit(X, y)


def test_a_pipeline_step_fitted_on_private_rows_is_refused(digits):
    """A StandardScaler before the learner would keep the exact mean of the private training rows
    (best_estimator_[0].mean_), which no privacy_ covers: refused before any fit, naming the step."""
    from sklearn.preprocessing import StandardScaler

    X, y = digits.X, digits.y
    pipe = Pipeline([("scale", StandardScaler()), ("clf", SemiPrivateHalfspace(1.0, k=4, epochs=1, classes=range(10),
                                                                              unlabeled_label=-1))])
    with pytest.raises(ValueError, match=r"step 'scale' \(StandardScaler\).*PublicRowsFitted"):
        PrivateSearchCV(pipe, {"clf__k": [4]}, unlabeled_label=-1, rng=0).fit(X, y)


@pytest.mark.slow
def test_a_seeded_search_over_a_pipeline_is_reproducible(digits):
    """rng= seeds the learner inside a Pipeline too (its parameter is clf__rng, not rng)."""
    X, y = digits.X, digits.y
    pipe = Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(1.0, k=4, epochs=1, classes=range(10),
                                                                          unlabeled_label=-1))])
    a = PrivateSearchCV(pipe, {"clf__k": [4]}, unlabeled_label=-1, rng=3).fit(X, y)
    b = PrivateSearchCV(pipe, {"clf__k": [4]}, unlabeled_label=-1, rng=3).fit(X, y)
    assert np.array_equal(a.best_estimator_[-1].coef_, b.best_estimator_[-1].coef_)


@pytest.mark.slow
def test_privacy_does_not_depend_on_the_split_coins(digits):
    """The held-out part has a fixed size, so the candidates' privacy_ (which depends on the size of the
    training part) is the same for every seed: with independent per-row coins it varied in the 8th digit."""
    X, y = digits.X, digits.y
    pipe = Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(1.0, k=4, epochs=1, classes=range(10),
                                                                          unlabeled_label=-1))])
    got = {PrivateSearchCV(pipe, {"clf__k": [4, 8]}, epsilon_select=0.5, unlabeled_label=-1, rng=seed).fit(X, y).privacy_
           for seed in range(4)}
    assert len(got) == 1, got

"""RandomStoppingSearchCV (semiprivate.theory.privacy.random_stopping) as a scikit-learn search: a
Pipeline(Normalizer, SemiPrivateHalfspace) on sklearn's digits with public rows routed to every fit and
the search's privacy_ Liu-Talwar's bound for the whole search; the number of runs is not released (no
attribute, one run's warnings); refusals; reproducibility.

Statistical test: the noisy-score check uses a fixed seed (no false-failure rate: deterministic)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer

DELTA = 1e-12




@pytest.mark.slow
@pytest.mark.usefixtures("seed_reuse_allowed")  # refits one seed on several datasets (a test harness)
def test_liu_talwar_search_on_digits_routes_public_rows_and_accounts_the_search(digits, recorder):
    X, y = digits.X, digits.y
    n_lab = X.shape[0] - digits.n_public
    pipe = Pipeline([("norm", Normalizer()), ("clf", recorder(1.0, delta=DELTA, k=8, epochs=1, classes=range(10),
                                                               unlabeled_label=-1))])
    search = RandomStoppingSearchCV(pipe, {"clf__k": [4, 8, 16]}, method="liu_talwar", gamma=0.5,
                                    base_privacy=(1.0, DELTA), epsilon_score=0.5, holdout_fraction=0.25,
                                    unlabeled_label=-1, rng=3).fit(X, y)
    assert len(recorder.seen) >= 1
    rows = {s[0][0] for s in recorder.seen}
    assert len(rows) == 1 and all(s[1] == digits.n_public for s in recorder.seen)  # every fit: all public rows
    assert rows.pop() - digits.n_public == n_lab - round(0.25 * n_lab)  # the held-out rows never reach a fit
    eps_p = 1.0 + math.log(1 / (1 - DELTA))
    assert search.privacy_ == pytest.approx((3 * eps_p, (1 + math.exp(3 * eps_p)) * DELTA / 0.5), rel=1e-12)
    assert search.best_params_ == search.candidates_[search.best_index_]
    assert search.best_estimator_[-1].privacy_[0] <= 1.0
    assert search.classes_.tolist() == list(range(10))
    assert 0.2 < search.score(X, y) <= 1.0  # at least twice chance (0.1, ten classes)
    assert not hasattr(search, "n_fits_") and not hasattr(search, "estimators_")
    # sklearn's GridSearchCV: the winner's privacy_ is one fit's, after 3 x 5 + 1 fits on exact private scores
    gs = GridSearchCV(clone(pipe).set_params(clf__random_state=0), {"clf__k": [4, 8, 16]}, cv=2).fit(X, y)
    assert gs.best_estimator_[-1].privacy_[0] <= 1.0 < search.privacy_[0]


class _Warns(ClassifierMixin, BaseEstimator):
    fits = 0

    def __init__(self, label=1):
        self.label = label

    def fit(self, X, y):
        type(self).fits += 1
        warnings.warn("fit warning", UserWarning, stacklevel=2)
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


FITTED = {"candidates_", "best_index_", "best_params_", "best_estimator_", "best_score_", "privacy_", "budget_",
          "expected_runs_", "classes_"}


def test_the_number_of_runs_is_not_released():
    """Whatever K the coins gave (several fits), one warning comes out and no attribute holds K."""
    X, y = np.zeros((30, 1)), np.ones(30, dtype=int)
    seen_runs, first = set(), None
    for seed in range(20):
        _Warns.fits = 0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s = RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, gamma=0.3, base_privacy=(0.5, 0.0),
                                       rng=seed).fit(X, y)
        seen_runs.add(_Warns.fits)
        assert [str(w.message) for w in caught] == ["fit warning"]
        assert {k for k in vars(s) if k.endswith("_")} == FITTED
        first = s if first is None else first
        assert s.budget_ == first.budget_  # the budget does not change with K either
    assert max(seen_runs) > 1


def test_scores_are_noisy_and_the_search_is_reproducible():
    X, y = np.zeros((30, 1)), np.ones(30, dtype=int)
    a = RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, gamma=0.3, base_privacy=(0.5, 0.0), rng=7)
    b = clone(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a.fit(X, y)
        b.fit(X, y)
    assert (a.best_params_, a.best_score_) == (b.best_params_, b.best_score_)
    # a count plus exact discrete Laplace noise: an integer (no float low bits), and not the exact count (the
    # held-out part has 6 rows, all predicted correctly by label 1, none by label 0), seed by seed
    scores = set()
    for seed in range(12):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = clone(a).set_params(rng=seed).fit(X, y)
        assert isinstance(s.best_score_, int)
        scores.add(s.best_score_)
    assert scores - {0, 6}
    assert a.get_params()["gamma"] == 0.3 and clone(a).set_params(method="renyi").method == "renyi"


def test_refusals():
    X, y = np.zeros((30, 1)), np.ones(30, dtype=int)
    with pytest.raises(ValueError, match="gamma"):
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, gamma=0.0)
    with pytest.raises(ValueError, match="method"):
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, method="grid")
    with pytest.raises(ValueError, match="gamma"):  # set_params bypasses __init__: fit checks again
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}).set_params(gamma=2.0).fit(X, y)
    with pytest.raises(TypeError, match="base_privacy"):
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, base_privacy=0.5).fit(X, y)
    with pytest.raises(ValueError, match="base_privacy"):  # a fit reporting more than declared
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, base_privacy=(0.1, 0.0), rng=0).fit(X, y)
    with pytest.raises(TypeError, match="base_event"):
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, method="renyi", base_event="dpsgd").fit(X, y)
    with pytest.raises(ValueError, match="base_event"):
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, base_event=object()).fit(X, y)
    with pytest.raises(ValueError, match="no labelled row"):
        RandomStoppingSearchCV(_Warns(), {"label": [0, 1]}, base_privacy=(0.5, 0.0), unlabeled_label=1).fit(X, y)

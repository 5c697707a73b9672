"""Both private searches (PrivateSearchCV, RandomStoppingSearchCV) refuse inputs whose shapes would break
the held-out count's sensitivity or crash deep inside: a column ``y`` of shape (n, 1), X with fewer rows
than y, ``score(X, None)``, a short y or sample_weight in ``score``; an estimator predicting one column
per row is refused before its count is used.  And the draw of the number of runs: a small gamma no
longer walks one k at a time, and the search refuses a gamma that means millions of fits.

Deterministic tests (fixed seeds; no false-failure rate)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy._held_out_search import held_out_correct, split_held_out
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin


class _Constant(ClassifierMixin, BaseEstimator):
    """A 'private' learner that predicts label ``c`` everywhere (privacy_ trivially (0, 0))."""

    def __init__(self, c: int = 0, rng: object = None) -> None:
        self.c = c
        self.rng = rng

    def fit(self, X, y):  # noqa: ANN001, ANN201
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.0, 0.0)
        return self

    def predict(self, X):  # noqa: ANN001, ANN201
        return np.full(len(X), self.c)


class _Column(_Constant):
    """Predicts a column (n, 1): an estimator whose count could exceed the number of held-out rows."""

    def predict(self, X):  # noqa: ANN001, ANN201
        return np.full((len(X), 1), self.c)


def _data(n: int = 8):  # noqa: ANN202
    X = np.arange(2 * n, dtype=float).reshape(n, 2)
    return X, np.zeros(n, dtype=int)


def _searches():  # noqa: ANN202
    return [PrivateSearchCV(_Constant(), {"c": [0, 1]}, holdout_fraction=0.5, rng=0),
            RandomStoppingSearchCV(_Constant(), {"c": [0, 1]}, gamma=0.5, holdout_fraction=0.5, rng=0)]


@pytest.mark.parametrize("search", _searches(), ids=["PrivateSearchCV", "RandomStoppingSearchCV"])
def test_column_y_is_refused_before_any_count(search):
    X, y = _data()
    with pytest.raises(ValueError, match=r"y must be 1-d .*\(8, 1\).*ravel"):
        search.fit(X, y.reshape(-1, 1))


@pytest.mark.parametrize("search", _searches(), ids=["PrivateSearchCV", "RandomStoppingSearchCV"])
def test_fewer_rows_in_X_than_in_y_is_a_clear_error(search):
    X, y = _data()
    with pytest.raises(ValueError, match="X has 5, y has 8"):
        search.fit(X[:5], y)


def test_held_out_count_never_exceeds_the_held_out_rows():
    X, y = _data()
    split = split_held_out(X, y, unlabeled_label=None, holdout_fraction=0.5, rng=0)
    assert held_out_correct(_Constant(0).fit(X, y), split) == split.held_out.size == 4
    with pytest.raises(ValueError, match=r"predict returned shape \(4, 1\) for 4 held-out rows"):
        held_out_correct(_Column(0).fit(X, y), split)  # (4, 1) == (4,) would count 16 "correct" rows


@pytest.mark.parametrize("search", _searches(), ids=["PrivateSearchCV", "RandomStoppingSearchCV"])
def test_score_refuses_missing_or_short_labels_and_weights(search):
    X, y = _data()
    search.fit(X, y)
    assert search.score(X, y) == 1.0 or search.score(X, y) == 0.0
    with pytest.raises(ValueError, match="y is required by score"):
        search.score(X, None)
    with pytest.raises(ValueError, match="X has 8, y has 3"):
        search.score(X, y[:3])
    with pytest.raises(ValueError, match=r"sample_weight must have one weight per row of y \(8\), got 2"):
        search.score(X, y, sample_weight=[1.0, 2.0])


def test_random_stopping_refuses_a_gamma_meaning_millions_of_fits():
    X, y = _data()
    search = RandomStoppingSearchCV(_Constant(), {"c": [0, 1]}, gamma=1e-9, rng=0)
    with pytest.raises(ValueError, match=r"gamma: gamma=1e-09 .* 1e\+09 fits on average"):
        search.fit(X, y)

"""A composed guarantee is never below the exact composition: the exact mechanisms spend each epsilon as the
exact rational of its float, so the reported total is the exact rational sum rounded UP (``compose_up``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from semiprivate.kernels.noise import discrete_laplace
from semiprivate.theory.privacy.accounting import compose_up
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin


@pytest.mark.parametrize("values", [(0.1, 0.7), (0.3, 0.6), (0.1, 0.2), (1 / 3, 1 / 3, 1 / 3), (0.1,) * 10,
                                    (1e-300, 1.0), ()])
def test_compose_up_is_the_smallest_float_at_or_above_the_exact_sum(values):
    exact = sum((Fraction(v) for v in values), Fraction(0))
    got = compose_up(*values)
    assert Fraction(got) >= exact
    below = np.nextafter(got, -np.inf)
    assert Fraction(float(below)) < exact or got == 0.0


class _ExactCount(ClassifierMixin, BaseEstimator):
    """Honest and tight: a count of positive labels plus exact discrete Laplace noise at this epsilon."""

    def __init__(self, epsilon=0.5, rng=None):
        self.epsilon = epsilon
        self.rng = rng

    def fit(self, X, y, X_public=None):
        self.count_ = int((np.asarray(y) == 1).sum()) + discrete_laplace(1 / Fraction(self.epsilon), rng=self.rng)
        self.classes_ = np.array([0, 1])
        self.privacy_ = (float(self.epsilon), 0.0)
        self.privacy_model_ = "labelled"
        return self

    def predict(self, X):
        return np.ones(len(X), dtype=int)


@pytest.mark.parametrize("grid", [[0.1, 0.7], [0.3, 0.6]])
def test_a_search_reports_at_least_the_exact_sum_of_what_its_candidates_spent(grid):
    g = np.random.default_rng(0)
    X = g.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    y[:6] = -1
    s = PrivateSearchCV(_ExactCount(), {"epsilon": grid}, epsilon_select=0.1, unlabeled_label=-1, rng=None).fit(X, y)
    assert Fraction(s.privacy_[0]) >= sum(Fraction(e) for e in grid)

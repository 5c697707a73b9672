"""A non-toolkit base whose ``random_state`` goes to scikit-learn's ``check_random_state`` gets, per fit, a
RandomState on an MT19937 seeded by its own child SeedSequence (128 bits of entropy plus a spawn key), not a
32-bit int: no 2^32 search finds it and no two fits share it by a birthday collision (P = 0.5 at 77,000 fits
with 32-bit seeds).  Deterministic: types and distinct states over 80 fits."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state


class _NoisyMean(ClassifierMixin, BaseEstimator):
    seen: list = []

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def fit(self, X, y):
        type(self).seen.append(self.random_state)
        rs = check_random_state(self.random_state)
        self.t_ = float(np.clip(np.asarray(X, float)[:, 0], 0, 1).mean()) + rs.laplace(0, 1 / (self.epsilon * len(X)))
        self.classes_ = np.array([0, 1])
        self.privacy_ = (float(self.epsilon), 0.0)
        return self

    def predict(self, X):
        return (np.asarray(X, float)[:, 0] > self.t_).astype(int)


def test_each_base_fit_gets_its_own_wide_random_state_and_none_is_left_behind():
    _NoisyMean.seen = []
    X = np.random.default_rng(0).random((40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    for _ in range(2):
        search = PrivateSearchCV(_NoisyMean(), {"epsilon": list(np.linspace(0.1, 2, 20))}, unlabeled_label=None)
        search.fit(X, y)
    seen = _NoisyMean.seen
    assert len(seen) >= 40
    assert all(isinstance(v, np.random.RandomState) for v in seen)
    assert all(isinstance(v._bit_generator, np.random.MT19937) for v in seen)
    assert len({v.get_state()[1].tobytes() for v in seen}) == len(seen)
    assert search.estimator.random_state is None

"""ComponentDisjunctionLearner's fit neither raises, underflows nor changes path because of the private sample (the path
is a function of the public data only), and it predicts in its declared label set."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner


# -- no data-dependent failure ---------------------------------------------------------
def test_disjunction_fit_never_raises_when_private_rows_link_many_components():
    Z = 20
    Xu = np.eye(Z, dtype=int)                       # 20 isolated variables: 20 components
    Xp = np.zeros((3, Z), dtype=int)
    Xp[0, :17] = 1                                  # one private row linking 17 components
    Xp[1, 0] = Xp[2, 19] = 1
    y = [1, -1, 1]
    for seed in range(5):
        L = ComponentDisjunctionLearner(1.0, random_state=seed).fit(Xp, y, Xu)
        assert L.method_ == "factorised" and len(L.union_) >= 1


def test_disjunction_sampler_survives_underflow():
    # every component strongly excluded: P(U empty) rounds to 1, the conditioning must not fail
    Z = 18
    Xu = np.eye(Z, dtype=int)
    Xp = np.repeat(np.eye(Z, dtype=int), 300, axis=0)
    y = -np.ones(len(Xp), dtype=int)
    L = ComponentDisjunctionLearner(50.0, random_state=0).fit(Xp, y, Xu)
    assert len(L.union_) == 1


def test_disjunction_method_depends_on_public_data_only():
    Xu = np.eye(18, dtype=int)
    a = ComponentDisjunctionLearner(1.0, random_state=0).fit(np.eye(18, dtype=int)[:2], [1, -1], Xu)
    link = np.zeros((2, 18), dtype=int)
    link[0, :] = 1
    b = ComponentDisjunctionLearner(1.0, random_state=1).fit(link, [1, -1], Xu)
    assert a.method_ == b.method_ == "factorised"


# -- the disjunction learner predicts in its declared label set ------------------------------------
def test_disjunction_predicts_in_the_declared_classes():
    Xu = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    Xp = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]] * 20)
    y01 = np.array([1, 0, 1] * 20)
    L = ComponentDisjunctionLearner(5.0, classes=(0, 1), random_state=0).fit(Xp, y01, Xu)
    assert set(L.predict(Xp).tolist()) <= {0, 1} and L.classes_.tolist() == [0, 1]
    assert L.score(Xp, y01) == 1.0
    with pytest.raises(ValueError, match="classes"):
        ComponentDisjunctionLearner(1.0).fit(Xp, y01, Xu)   # 0/1 labels need classes=(0, 1)

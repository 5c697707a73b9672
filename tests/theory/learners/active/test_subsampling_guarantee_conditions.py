"""SubSampling is sized from the guarantee its base will report, and reports no privacy_ where Cl 5.7's conditions
fail (a pool below the bound, epsilon outside the proof, t < n)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.bounds.privacy import active_subsampling_privacy
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.active import LabelOracle, SubSampling
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.labelboost import LabelBoost


# -- SubSampling around LabelBoost is sized from the guarantee LabelBoost will report ------
def _tiny_labelboost(**kw):
    C1 = Thresholds(1)
    return LabelBoost(GenericPrivateLearner(1.0, concept_class=C1), concept_class=C1, n=1, alpha=0.5,
                      unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                      beta_factor=1, iteration_ratio=2, final_ratio=2, **kw)


def test_subsampling_sizes_the_pool_from_what_labelboost_reports():
    L = _tiny_labelboost()
    n, m = 8, 2
    rep = L.privacy_for(m, n - m)
    # a run on those sizes reports exactly that guarantee
    g = np.random.default_rng(0)
    got = L.fit(g.integers(0, 2, m), [1, 0], g.integers(0, 2, n - m)).privacy_
    assert got == rep and rep[0] > L.privacy[0]    # the nominal guarantee is too optimistic
    sub = SubSampling(L, n=n, m=m, epsilon=1.0)
    assert sub.guarantee().t == active_subsampling_privacy(n, rep[0], rep[1], 1.0).t


# -- no privacy_ when the proof's conditions fail --------------------------------------
def test_subsampling_refuses_a_pool_below_cl5_7():
    base = GenericPrivateLearner(0.5, concept_class=Thresholds(1))
    sub = SubSampling(base, n=2, m=1, epsilon=1.0, t=4)
    assert not sub.guarantee().valid
    X = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="guarantee does not hold"):
        sub.fit(X, LabelOracle(np.array([1, 0, 1, 0])))
    assert not hasattr(sub, "privacy_")


def test_subsampling_refuses_epsilon_outside_the_proof():
    base = GenericPrivateLearner(2.0, concept_class=Thresholds(1))
    sub = SubSampling(base, n=2, m=1, epsilon=3.0)
    with pytest.raises(ValueError, match="guarantee does not hold"):
        sub.fit(np.zeros(200, dtype=int), LabelOracle(np.zeros(200, dtype=int)))


# -- Cl 5.7 needs t >= n; PrivSamp's exhaustion probability ---------------------------------------
def test_cl5_7_requires_a_pool_at_least_n():
    with pytest.raises(ValueError, match="t >= n"):
        active_subsampling_privacy(100, 1.0, 1e-6, 20.0)
    assert active_subsampling_privacy(100, 1.0, 1e-6, 3 + math.exp(2)).t == 100

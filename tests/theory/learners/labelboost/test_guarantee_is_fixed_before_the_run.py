"""LabelBoost's delta covers entries that enter S in later iterations (Lem 4.6's induction), and Thm 4.14's guarantee
is fixed before the run (it does not depend on the coins)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.bounds.privacy import labelboost_privacy
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.labelboost import LabelBoost, labelboost_run_privacy


# -- Lem 4.6's induction covers entries that enter S later ------------------------------
@pytest.mark.parametrize("iterations", [2, 3])
def test_labelboost_delta_covers_entries_entering_later(iterations):
    owed = 4 / (3 + math.exp(4)) * 4 * math.e * (4 / 247 * 2467) * 1e-6   # the stage of the last iteration
    s = labelboost_run_privacy(1.0, 1e-6, iterations)
    assert s[-1].delta >= owed * (1 - 1e-3)
    assert labelboost_privacy(1e-6, iterations).delta == pytest.approx(owed, rel=1e-9)


# -- Thm 4.14's guarantee is fixed before the run ---------------------------------------
def test_thm4_14_guarantee_does_not_depend_on_the_coins():
    C = Thresholds(6)
    g = np.random.default_rng(0)
    X_D, X_S = g.integers(0, 64, 184000), g.integers(0, 64, 690)
    L = LabelBoost(GenericPrivateLearner(1.0, concept_class=C), concept_class=C, n=4, alpha=0.5, epsilon=0.5,
                   base_privacy=(1.0, 1e-6), unlabelled_factor=4000, target_factor=16, cap_factor=4000,
                   exponent_constant=0.05, alpha_factor=1, beta_factor=1, iteration_ratio=60, final_ratio=300)
    seen = {L.set_params(random_state=s).fit(X_S, (X_S < 30).astype(int), X_D).privacy_ for s in range(12)}
    assert len(seen) == 1
    assert seen.pop() == L.privacy_for(len(X_S), len(X_D))

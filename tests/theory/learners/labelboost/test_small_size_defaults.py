"""LabelBoost's default (scaled) constants run at small sizes, with the guarantee known before fit.

BNS15.Alg3 with SMALL_SIZE_CONSTANTS: no deletion, so the guarantee is the plain chain Cl 4.5 then
Lem 4.1 per iteration, a function of the sizes and parameters only (BNS15.Lem4.6's induction
without Claim 4.3 credit).  Every check here is exact (no statistical test).
"""

import math

import numpy as np
import pytest
from semiprivate.theory.bounds.privacy import iid_resampling_privacy, label_boost_procedure_privacy
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import ThresholdDistribution
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.labelboost import SMALL_SIZE_CONSTANTS, LabelBoost

C = Thresholds(8)
D = ThresholdDistribution(8, 100)


def _default(n: int = 1000, rng: int = 0, **kw) -> LabelBoost:
    return LabelBoost(GenericPrivateLearner(1.0, concept_class=C), concept_class=C, n=n, random_state=rng, **kw)


def test_defaults_fit_500_labelled_2000_public_and_report_privacy_for() -> None:
    """500 labelled / 2000 public with the default constants: fit runs (the old defaults needed
    |D| >= 90000 n) and privacy_ is finite and equals privacy_for(500, 2000), which is the chain
    Cl 4.5 -> (no Cl 4.3) -> Lem 4.1 -> (no Cl 4.3) -> Lem 4.6 worst stage."""
    Xs, ys = D.sample(500, rng=1)
    Xd = D.sample_X(2000, rng=2)
    L = _default()
    before = L.privacy_for(500, 2000)
    L.fit(Xs, ys, Xd)
    assert L.privacy_ == before and all(math.isfinite(v) for v in L.privacy_)
    resampled = iid_resampling_privacy(1.0, 0.0)
    one = label_boost_procedure_privacy(resampled.epsilon, resampled.delta)
    assert L.privacy_ == (one.epsilon, one.delta) == (pytest.approx(math.log(244) + 3), 0.0)
    assert [st.name for st in L.privacy_steps_] == ["BNS15.Cl4.5", "none", "BNS15.Lem4.1", "none", "BNS15.Lem4.6"]
    assert L.privacy_steps_ == L.privacy_steps_for(500, 2000)
    assert L.iterations_ == 1 and L.schedule_[0]["v"] == 1000 and L.n_labelled_final_ == 1500


@pytest.mark.parametrize(("m", "u", "n"), [(450, 800, 600), (500, 2000, 1000), (2000, 6000, 3000)])
def test_privacy_depends_on_the_sizes_only(m: int, u: int, n: int) -> None:
    """Over seeds, and over labels and points that differ, privacy_ is privacy_for(m, u) every time."""
    want = _default(n).privacy_for(m, u)
    seen = set()
    for seed in range(4):
        g = np.random.default_rng(seed)
        Xs, ys = D.sample(m, g)
        if seed % 2:
            ys = 1 - ys  # labels from no threshold (agnostic, Thm 4.16): the schedule is the same
        seen.add(_default(n, rng=seed).fit(Xs, ys, D.sample_X(u, g)).privacy_)
    assert seen == {want}


def test_defaults_are_the_small_size_constants() -> None:
    L = _default()
    assert L.mode == "scaled" and L.constants() == {k: float(v) for k, v in SMALL_SIZE_CONSTANTS.items()}
    assert L.required_unlabelled() == 1000


def test_too_few_labelled_points_say_how_many_are_needed() -> None:
    """Step 2b's v <= 0 at |S| = 300 (alpha = 0.1): the message gives the smallest |S| that grows: 400, where
    v = floor(0.1/(2e) exp(0.05 * 400 / 2)) - 400 = 5 (and 399 gives v < 0)."""
    L = _default(600)
    with pytest.raises(ValueError, match=r"\|S\| = 300 is too small .* grows \|S\| from \|S\| = 400 on"):
        L.privacy_for(300, 2000)
    assert L.privacy_for(450, 2000) == L.privacy_for(500, 2000)


def test_not_enough_public_points_is_refused_before_the_data_is_read() -> None:
    with pytest.raises(ValueError, match=r"X_public has 500 points; scaled mode needs \|D\| >= 1 n = 1000"):
        _default().privacy_for(500, 500)

"""Every reported privacy guarantee holds: one test per finding of the privacy review.

The findings: (1) wrappers certifying 'labelled' learners, (2) data-dependent failure of the
disjunction learner, (3) SubSampling around LabelBoost sized from the nominal guarantee,
(4) LabelBoost's delta missing entries that enter S later, (5) Thm 4.14's guarantee depending on
the coins, (7) exact private statistics on fitted estimators, (9) SubSampling reporting an
invalid guarantee, (10) messages echoing private labels; and Cl 5.7's t >= n, PrivSamp's
exhaustion probability, the disjunction learner's label set.  All deterministic or seeded.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.audit.end_to_end import encode_state
from semiprivate.theory.bounds.privacy import active_subsampling_privacy, labelboost_privacy
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.active import LabelOracle, PSSLAsTPAL, SubSampling
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner, to_pm1_labels
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.generic import GenericLearner
from semiprivate.theory.learners.labelboost import LabelBoost, labelboost_run_privacy
from semiprivate.theory.learners.reduction import ReductionLearner, priv_samp
from semiprivate.theory.privacy.seeds import separate_seed_record

C2 = Thresholds(2)


# -- finding 1: wrappers refuse a base private only in its labelled sample -------------------------
@pytest.mark.parametrize("base", [ASSPP(0.5, concept_class=C2), ComponentDisjunctionLearner(0.5)])
def test_wrappers_refuse_a_labelled_base(base):
    with pytest.raises(ValueError, match="privacy model 'all inputs'.*'labelled'"):
        PSSLAsTPAL(base, m=2)
    with pytest.raises(ValueError, match="privacy model 'all inputs'.*'labelled'"):
        SubSampling(base, n=2, m=1, epsilon=1.0)


def test_asspp_is_not_private_in_its_public_sample():
    # why the refusal: exact enumeration over one public point changing
    from semiprivate.theory.learner_checks import asspp_all_inputs  # layer 6; imported here for the old-code run

    r = asspp_all_inputs()
    assert r.epsilon == math.inf and not r.holds


# -- finding 2: no data-dependent failure ---------------------------------------------------------
def test_disjunction_fit_never_raises_when_private_rows_link_many_components():
    Z = 20
    Xu = np.eye(Z, dtype=int)                       # 20 isolated variables: 20 components
    Xp = np.zeros((3, Z), dtype=int)
    Xp[0, :17] = 1                                  # one private row linking 17 components
    Xp[1, 0] = Xp[2, 19] = 1
    y = [1, -1, 1]
    for seed in range(5):
        L = ComponentDisjunctionLearner(1.0, rng=seed).fit(Xp, y, Xu)
        assert L.method_ == "factorised" and len(L.union_) >= 1


def test_disjunction_sampler_survives_underflow():
    # every component strongly excluded: P(U empty) rounds to 1, the conditioning must not fail
    Z = 18
    Xu = np.eye(Z, dtype=int)
    Xp = np.repeat(np.eye(Z, dtype=int), 300, axis=0)
    y = -np.ones(len(Xp), dtype=int)
    L = ComponentDisjunctionLearner(50.0, rng=0).fit(Xp, y, Xu)
    assert len(L.union_) == 1


def test_disjunction_method_depends_on_public_data_only():
    Xu = np.eye(18, dtype=int)
    a = ComponentDisjunctionLearner(1.0, rng=0).fit(np.eye(18, dtype=int)[:2], [1, -1], Xu)
    link = np.zeros((2, 18), dtype=int)
    link[0, :] = 1
    b = ComponentDisjunctionLearner(1.0, rng=1).fit(link, [1, -1], Xu)
    assert a.method_ == b.method_ == "factorised"


# -- finding 3: SubSampling around LabelBoost is sized from the guarantee LabelBoost will report ------
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


# -- finding 4: Lem 4.6's induction covers entries that enter S later ------------------------------
@pytest.mark.parametrize("iterations", [2, 3])
def test_labelboost_delta_covers_entries_entering_later(iterations):
    owed = 4 / (3 + math.exp(4)) * 4 * math.e * (4 / 247 * 2467) * 1e-6   # the stage of the last iteration
    s = labelboost_run_privacy(1.0, 1e-6, iterations)
    assert s[-1].delta >= owed * (1 - 1e-3)
    assert labelboost_privacy(1e-6, iterations).delta == pytest.approx(owed, rel=1e-9)


# -- finding 5: Thm 4.14's guarantee is fixed before the run ---------------------------------------
def test_thm4_14_guarantee_does_not_depend_on_the_coins():
    C = Thresholds(6)
    g = np.random.default_rng(0)
    X_D, X_S = g.integers(0, 64, 184000), g.integers(0, 64, 690)
    L = LabelBoost(GenericPrivateLearner(1.0, concept_class=C), concept_class=C, n=4, alpha=0.5, epsilon=0.5,
                   base_privacy=(1.0, 1e-6), unlabelled_factor=4000, target_factor=16, cap_factor=4000,
                   exponent_constant=0.05, alpha_factor=1, beta_factor=1, iteration_ratio=60, final_ratio=300)
    seen = {L.set_params(rng=s).fit(X_S, (X_S < 30).astype(int), X_D).privacy_ for s in range(12)}
    assert len(seen) == 1
    assert seen.pop() == L.privacy_for(len(X_S), len(X_D))


# -- finding 7: no exact statistic of the private sample on a fitted estimator ----------------------
def _state_without(obj, random):
    return encode_state(obj, exclude=random)


@pytest.mark.parametrize("make, random", [
    (lambda: GenericPrivateLearner(1.0, concept_class=C2, rng=np.random.default_rng(0)), ("index_", "hypothesis_")),
    (lambda: ASSPP(1.0, concept_class=C2, rng=np.random.default_rng(0)), ("index_", "hypothesis_")),
])
def test_state_outside_the_mechanism_output_does_not_see_one_label(make, random):
    X, Xpub = [0, 1, 2, 3], [0, 1, 2, 3]
    a = make().fit(X, [1, 1, 0, 0], Xpub)
    with separate_seed_record():  # the same coins on the neighbour, on purpose
        b = make().fit(X, [1, 1, 0, 1], Xpub)
    assert _state_without(a, random) == _state_without(b, random)


def test_disjunction_enumerate_path_keeps_no_error_counts():
    Xu = np.array([[1, 1, 0], [0, 0, 1]])
    Xp = np.array([[1, 0, 0], [0, 0, 1]])
    a = ComponentDisjunctionLearner(1.0, rng=np.random.default_rng(0)).fit(Xp, [1, -1], Xu)
    with separate_seed_record():  # the same coins on the neighbour, on purpose
        b = ComponentDisjunctionLearner(1.0, rng=np.random.default_rng(0)).fit(Xp, [1, 1], Xu)
    assert a.method_ == "enumerate"
    assert _state_without(a, ("union_", "hypothesis_")) == _state_without(b, ("union_", "hypothesis_"))


def test_generic_learner_and_labelboost_keep_no_error_counts():
    L = GenericLearner(1.0, concept_class=C2, rng=0).fit([0, 3], [1, 0], [0, 1, 2, 3])
    assert not hasattr(L, "errors_")
    B = _tiny_labelboost(rng=1).fit([0, 1], [1, 0], [0, 1, 1, 0, 1, 0])
    assert B.schedule_ and all("errors_on_S" not in it for it in B.schedule_)


def test_reduction_learner_keeps_no_private_sample():
    from semiprivate.theory.distributions import RandomLabelDistribution

    D0 = RandomLabelDistribution(lambda n, g: g.integers(0, 2, n))
    B = ReductionLearner(1.0, rng=0, n_priv=20, n_pub=1, D0=D0,
                         base_learner=lambda e, d, g: GenericPrivateLearner(e, d, concept_class=Thresholds(1), rng=g))
    B.fit(np.array([1, 0]), [1, 0])
    assert not any(np.array_equal(np.asarray(v), [1, 0]) for v in vars(B).values() if isinstance(v, np.ndarray))
    assert not hasattr(B, "private_sample_")


# -- finding 9: no privacy_ when the proof's conditions fail --------------------------------------
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


# -- finding 10: messages never echo private labels -----------------------------------------------
def test_label_messages_do_not_echo_values():
    with pytest.raises(ValueError) as e:
        to_pm1_labels([1, -1, 7])
    assert "7" not in str(e.value)
    with pytest.raises(ValueError) as e:
        ComponentDisjunctionLearner(1.0).fit(np.eye(2, dtype=int), [1, 7], np.eye(2, dtype=int))
    assert "7" not in str(e.value) and "classes" in str(e.value)


# -- Cl 5.7 needs t >= n; PrivSamp's exhaustion probability ---------------------------------------
def test_cl5_7_requires_a_pool_at_least_n():
    with pytest.raises(ValueError, match="t >= n"):
        active_subsampling_privacy(100, 1.0, 1e-6, 20.0)
    assert active_subsampling_privacy(100, 1.0, 1e-6, 3 + math.exp(2)).t == 100


def test_priv_samp_exhaustion_probability_is_what_the_docstring_says():
    assert "< 0.01" not in priv_samp.__doc__
    # |S~| = 1, n_priv = 10, p = 1/100: exhausted = S~ used before the last position, P = 1 - 0.99^9 = 0.0865;
    # 4000 seeded runs: sd 0.0044, the band [0.06, 0.115] is 6 sd wide on each side (false failure < 1e-8);
    # the old docstring's "< 0.01" is 17 sd below
    g = np.random.default_rng(5)

    class D0:
        def sample(self, n, rng):
            return rng.integers(0, 2, n), rng.integers(0, 2, n)

    hits = np.mean([priv_samp([1], [1], D0(), 0.01, 10, rng=g)["exhausted"] for _ in range(4000)])
    assert 0.06 < hits < 0.115


# -- the disjunction learner predicts in its declared label set ------------------------------------
def test_disjunction_predicts_in_the_declared_classes():
    Xu = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    Xp = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]] * 20)
    y01 = np.array([1, 0, 1] * 20)
    L = ComponentDisjunctionLearner(5.0, classes=(0, 1), rng=0).fit(Xp, y01, Xu)
    assert set(L.predict(Xp).tolist()) <= {0, 1} and L.classes_.tolist() == [0, 1]
    assert L.score(Xp, y01) == 1.0
    with pytest.raises(ValueError, match="classes"):
        ComponentDisjunctionLearner(1.0).fit(Xp, y01, Xu)   # 0/1 labels need classes=(0, 1)

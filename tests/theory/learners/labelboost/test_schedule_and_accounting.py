"""semiprivate.theory.learners.labelboost (BNS15 Alg 2 and 3). Step 2b is driven to chosen values of v (alpha = beta =
0.5 with factors 0.25 give alpha_1 = beta_1 = 1, so v = floor(e^{|S|/(c VC)} VC - |S|) for VC = 1), and spies record
what the exponential mechanism, LabelBoostProcedure and the privacy accounting actually ran with: epsilon,
generator, the unlabelled slice, the ratios as run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import semiprivate.theory.learners.labelboost as lb
import semiprivate.theory.learners.labelboost_procedure as lbp
from semiprivate.theory.bounds.privacy import iid_resampling_privacy, label_boost_procedure_privacy, subsampling_privacy
from semiprivate.theory.classes import Intervals, Rectangles, Thresholds
from semiprivate.theory.learners.labelboost import (
    FAITHFUL_CONSTANTS,
    LabelBoost,
    PrivacyStep,
    label_boost_procedure,
    label_boost_procedure_distribution,
    labelboost_run_privacy,
)

C3, C8 = Thresholds(3), Thresholds(8)
E1 = math.e


class _Base:
    """A fast stand-in base learner: records what it was fitted on (and is mutated by fit)."""

    concept_class = C8
    privacy = (1.0, 0.0)
    privacy_model_ = "all inputs"

    def __init__(self) -> None:
        self.rng: Any = None
        self.log: list[int] = []

    def fit(self, X: Any, y: Any) -> _Base:
        self.privacy_ = self.privacy
        self.log.append(len(X))
        self.X_, self.y_ = np.asarray(X), np.asarray(y)
        self.hypothesis_ = "h"
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(X) < 3  # bool


# alpha_1 = beta_1 = 1 (a / (0.25 * 2)), VC(Thresholds) = 1: log v-term = |S| / c
CTRL = {"alpha": 0.5, "beta": 0.5, "alpha_factor": 0.25, "beta_factor": 0.25}


def _lb(c: float, *, n: int = 1, target: float = 150, cap: float = 1000, unl: float = 1000, it_ratio: float = 1,
        final: float = 1, base: Any = None, C: Any = C8, rng: Any = 0, **kw: Any) -> LabelBoost:
    return LabelBoost(base if base is not None else _Base(), concept_class=C, n=n, random_state=rng, exponent_constant=c,
                      target_factor=target, cap_factor=cap, unlabelled_factor=unl, iteration_ratio=it_ratio,
                      final_ratio=final, **{**CTRL, **kw})


def _S(m: int) -> tuple[np.ndarray, np.ndarray]:
    X = np.arange(m, dtype=np.uint64) % 256
    return X, (X < 40).astype(np.int64)


XD = np.arange(3000, dtype=np.uint64) % 256


# ---- Alg 2 ----------------------------------------------------------------------------------


def test_alg2_messages_name_the_argument() -> None:
    with pytest.raises(TypeError) as e:
        label_boost_procedure(object(), [1], [1], [])  # type: ignore[arg-type]
    assert str(e.value) == "concept_class must be a ConceptClass, got object"
    for args, name in [(([9], [1], []), "X_labelled"), (([1], [1], [9]), "X_unlabelled"),
                       (([1], [2], []), "y_labelled"), (([1, 2], [1], []), "y_labelled")]:
        with pytest.raises(ValueError) as e2:
            label_boost_procedure(C3, *args)
        assert str(e2.value).startswith(name + " "), (args, str(e2.value))
    with pytest.raises(ValueError) as e3:
        label_boost_procedure(C3, [1, 2], [1], [])
    assert str(e3.value) == "y_labelled must be 1-d of length 2, got shape (1,)"


def test_alg2_runs_the_mechanism_at_epsilon_1_with_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def spy(errors: Any, eps: Any, *a: Any, **kw: Any) -> int:
        assert not a and set(kw) == {"rng"}
        calls.append((np.array(errors), eps, kw["rng"]))
        return 1

    monkeypatch.setattr(lbp, "sample", spy)
    g = np.random.default_rng(0)
    XS, yS, XT = np.array([1, 5], np.uint64), [1, 0], np.array([3, 6], np.uint64)
    r = label_boost_procedure(C3, XS, yS, XT, rng=g)
    reps = C3.dichotomies(np.array([1, 3, 5, 6], np.uint64)).representatives
    assert calls[0][0].tolist() == C3.error_counts(reps, XS, yS).tolist() and calls[0][1] == 1.0
    assert calls[0][2] is g
    assert r.representatives == reps and r.chosen == 1 and r.hypothesis == reps[1]
    assert r.labels.tolist() == C3.evaluate(reps[1], np.array([1, 5, 3, 6], np.uint64)).tolist()
    assert r.labels.dtype == bool and r.errors.tolist() == calls[0][0].tolist()


def test_alg2_on_two_dimensional_points_uses_the_distinct_rows() -> None:
    R = Rectangles(2, 2)
    XS = np.array([[1, 2], [3, 0]], np.uint64)
    XT = np.array([[1, 2], [0, 3], [2, 1]], np.uint64)
    rows, probs = label_boost_procedure_distribution(R, XS, [1, 0], XT)
    P = np.array([[0, 3], [1, 2], [2, 1], [3, 0]], np.uint64)
    reps = R.dichotomies(P).representatives
    assert len(rows) == len(reps) == R.count_dichotomies(P)
    r = label_boost_procedure(R, XS, [1, 0], XT, rng=1)
    assert r.representatives == reps and r.labels.shape == (5,)
    assert probs.sum() == pytest.approx(1.0)


# ---- privacy accounting ---------------------------------------------------------------------


def test_subsample_step_boundary_and_notes() -> None:
    eps = math.log(4.0)  # 3 + e^eps == 7 exactly
    s = lb._subsample_step(eps, 1e-6, 7.0, 1, "w")
    r = subsampling_privacy(1, eps, 1e-6, 1.0)
    assert s == PrivacyStep("BNS15.Cl4.3", r.epsilon, r.delta, "w: keep 1/7 >= 1/(3+e^1.386) -> target epsilon 1")
    s = lb._subsample_step(eps, 1e-6, 6.75, 1, "w")
    assert s == PrivacyStep("none", eps, 1e-6, "w: keep 1/6.75 < 1/(3+e^1.386): Claim 4.3 does not apply, "
                                               "no amplification")
    # e^eps is capped at e^700 (no overflow): eps = 705 with a ratio between 3 + e^700 and 3 + e^701
    s = lb._subsample_step(705.0, 0.0, 2e304, 1, "w")
    assert s.name == "BNS15.Cl4.3"


def test_run_privacy_steps_fields_and_notes() -> None:
    st = labelboost_run_privacy(1.0, 1e-6, 2, final_ratio=300, iteration_ratios=[100, 60])
    g = iid_resampling_privacy(1.0, 1e-6)
    assert st[0] == PrivacyStep("BNS15.Cl4.5", g.epsilon, g.delta, "|S| i.i.d. draws from S, then A")
    assert st[1].note == "step 3 (keep 1/300 of S): keep 1/300 >= 1/(3+e^5.497) -> target epsilon 1"
    lp = label_boost_procedure_privacy(st[1].epsilon, st[1].delta)
    assert st[2] == PrivacyStep("BNS15.Lem4.1", lp.epsilon, lp.delta,
                                "iteration 2: LabelBoostProcedure (exp. mechanism, epsilon 1)")
    assert st[3].note == "iteration 2: keep 1/60 of S and of T: keep 1/60 >= 1/(3+e^4) -> target epsilon 1"
    assert st[4].note == "iteration 1: LabelBoostProcedure (exp. mechanism, epsilon 1)"
    assert st[5].note == "iteration 1: keep 1/100 of S and of T: keep 1/100 >= 1/(3+e^4) -> target epsilon 1"
    # Lem 4.6 per entry: the worst stage at which entries enter S (iteration 2's: entered last, least amplified)
    assert st[6] == PrivacyStep("BNS15.Lem4.6", max(st[3].epsilon, st[5].epsilon), max(st[3].delta, st[5].delta),
                                "entries entering S at each iteration: the worst stage")
    assert st[6].delta == st[3].delta > st[5].delta and len(st) == 7


def test_run_privacy_validation() -> None:
    labelboost_run_privacy(1.0, 0.0, 1, iteration_ratios=[1.0])  # ratio 1 (keep everything) is allowed
    for bad in ([0.5], [math.inf], [math.nan]):
        with pytest.raises(ValueError, match="iteration_ratios must hold 1 finite ratios"):
            labelboost_run_privacy(1.0, 0.0, 1, iteration_ratios=bad)
    with pytest.raises(ValueError) as e:
        labelboost_run_privacy(1.5, 0.0, 0)
    assert str(e.value) == ("base_epsilon must be <= 1 for BNS15 Claim 4.5 (i.i.d. resampling), got 1.5; "
                            "use a base learner run at epsilon <= 1")


def test_run_privacy_target_step() -> None:
    # 1 iteration at the faithful ratios: e = 1 before the target step
    inner = labelboost_run_privacy(1.0, 1e-6, 1)
    e, d = inner[-1].epsilon, inner[-1].delta
    assert e == 1.0
    st = labelboost_run_privacy(1.0, 1e-6, 1, target_epsilon=0.5)
    r = subsampling_privacy(1, e, d, 0.5)
    ratio = (3 + E1) / 0.5
    assert st[-1] == PrivacyStep("BNS15.Cl4.3", r.epsilon, r.delta,
                                 f"Thm 4.14: uniform sub-sample keeping 1/{ratio:g} of the input")
    # the given target_ratio is used: 5 * 0.5 < 3 + e: not applicable (5 / 0.5 would pass)
    st = labelboost_run_privacy(1.0, 1e-6, 1, target_epsilon=0.5, target_ratio=5)
    assert st[-1] == PrivacyStep("none", e, d, "Thm 4.14: keep 1/5: Claim 4.3 not applicable")
    st = labelboost_run_privacy(1.0, 1e-6, 1, target_epsilon=0.5, target_ratio=12)
    assert st[-1].name == "BNS15.Cl4.3" and st[-1].note == "Thm 4.14: uniform sub-sample keeping 1/12 of the input"
    # target_epsilon == e: nothing to gain, no step credited
    st = labelboost_run_privacy(1.0, 1e-6, 0, target_epsilon=1.0, target_ratio=1000)
    assert st[-1] == PrivacyStep("none", 1.0, st[-2].delta, "Thm 4.14: keep 1/1000: Claim 4.3 not applicable")
    assert len(st) == 3


# ---- _keep ----------------------------------------------------------------------------------


def test_keep_draws_without_replacement_and_keeps_all_without_a_draw() -> None:
    g = np.random.default_rng(3)
    k = lb._keep(g, 200, 100)
    assert len(k) == 100 and len(np.unique(k)) == 100 and np.all(np.diff(k) > 0)
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    assert lb._keep(g1, 5, 5).tolist() == [0, 1, 2, 3, 4]
    assert g1.random() == g2.random()  # keeping everything draws nothing


# ---- LabelBoost constructor -----------------------------------------------------------------


class _FitOnly:
    privacy = (1.0, 0.0)

    def fit(self, X: Any, y: Any) -> None: ...


class _PredictOnly:
    privacy = (1.0, 0.0)

    def predict(self, X: Any) -> None: ...


class NoPrivacy:
    def fit(self, X: Any, y: Any) -> None: ...

    def predict(self, X: Any) -> None: ...


def test_constructor_checks_and_messages() -> None:
    for b in (_FitOnly(), _PredictOnly()):
        with pytest.raises(TypeError) as e:
            LabelBoost(b, concept_class=C8, n=1)
        assert str(e.value) == f"base_learner must have fit and predict, got {type(b).__name__}"
    with pytest.raises(TypeError) as e:
        LabelBoost(_Base(), concept_class=object(), n=1)  # type: ignore[arg-type]
    assert str(e.value) == "concept_class must be a ConceptClass, got object"
    with pytest.raises(TypeError) as e:
        LabelBoost(NoPrivacy(), concept_class=C8, n=1)
    assert str(e.value) == ("base_privacy must be given as (epsilon, delta): the base learner NoPrivacy states no "
                            "privacy guarantee")
    with pytest.raises(TypeError) as e:
        LabelBoost(_Base(), concept_class=C8, n=1, base_privacy=("a", "b"))  # type: ignore[arg-type]
    assert str(e.value) == "base_privacy must be a pair (epsilon, delta) of floats, got ('a', 'b')"
    for bp in [(-1.0, 0.0), (math.inf, 0.0), (0.0, 0.0), (0.5, 1.0), (0.5, 1.5), (0.5, -0.1)]:
        with pytest.raises(ValueError) as e2:
            LabelBoost(_Base(), concept_class=C8, n=1, base_privacy=bp)
        assert str(e2.value) == f"base_privacy must have epsilon in (0, inf) and delta in [0, 1), got {bp!r}"
    LabelBoost(_Base(), concept_class=C8, n=1, base_privacy=(1.0, 0.0))
    g = np.random.default_rng(0)
    L = LabelBoost(_Base(), concept_class=C8, n=3, random_state=g, mode="faithful", iteration_ratio=2, final_ratio=5)
    assert L.random_state is g
    assert L.constants() == FAITHFUL_CONSTANTS and L.required_unlabelled() == 270000
    assert L.get_params(deep=False)["iteration_ratio"] == 2


# ---- LabelBoost.fit: step 2b's v and its boundaries -----------------------------------------


def test_v_below_the_cap_and_the_generators(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[dict[str, Any]] = []
    real = lb.label_boost_procedure

    def spy(C: Any, XS: Any, yS: Any, XT: Any, *, rng: Any) -> Any:
        r = real(C, XS, yS, XT, rng=rng)
        seen.append({"XT": np.array(XT), "rng": rng, "err": int(r.errors[r.chosen])})
        return r

    monkeypatch.setattr(lb, "label_boost_procedure", spy)
    c = 100 / math.log(1000.0)  # e^{|S|/c} ~ 1000 for |S| = 100: v ~ 900 < cap = 1000 < e^.. + |S|
    g = np.random.default_rng(2)
    base = _Base()
    L = _lb(c, rng=g, base=base, progress=True)
    X, y = _S(100)
    L.fit(X, y, XD[:2000])
    v = math.floor(math.exp(100 / c) - 100)
    assert 890 <= v <= 910
    it = L.schedule_[0]
    assert (it["i"], it["alpha_i"], it["beta_i"], it["s_before"], it["v"]) == (1, 1.0, 1.0, 100, v)
    assert "errors_on_S" not in it  # no error count of private data is kept
    assert isinstance(seen[0]["rng"], np.random.Generator) and seen[0]["rng"] is not g  # the run's child stream
    assert seen[0]["XT"].tolist() == XD[:v].tolist()
    assert L.unlabelled_used_ == v and L.iterations_ == 1
    assert capsys.readouterr().out == f"LabelBoost iteration 1: |S| 100 -> {100 + v} (v = {v})\n"
    # the base learner: a deep copy, run on its own child stream and given its rng back (None), its hypothesis
    # read back: no generator of the run stays on the fitted object
    assert L.base_learner_ is not base and base.log == [] and base.rng is None
    assert L.base_learner_.rng is None and L.base_learner_.log == [100 + v]
    assert L.hypothesis_ == "h" and L.outer_ratio_ == 1.0 and type(L.outer_ratio_) is float
    assert L.predict(np.array([1, 5], np.uint64)).tolist() == [1, 0]
    assert L.predict(np.array([1, 5], np.uint64)).dtype == np.int64


def test_v_boundaries_and_failures() -> None:
    X, y = _S(10)
    # v = 1: allowed
    L = _lb(10 / math.log(11.5), target=11).fit(X, y, XD[:1000])
    assert L.schedule_[0]["v"] == 1 and L.iterations_ == 1
    # v = 0: refused, naming the iteration, |S| and alpha_i, beta_i
    with pytest.raises(ValueError) as e:
        _lb(10 / math.log(10.5), target=11).fit(X, y, XD[:1000])
    # (|S| = 11 gives v = floor(10.5^1.1 - 11) = 2: the smallest |S| that grows)
    assert str(e.value) == ("LabelBoost iteration 1: v = 0 <= 0, the labelled sample |S| = 10 is too small for "
                            "alpha_i = 1, beta_i = 1 (step 2b: v = beta_i VC exp(alpha_i |S|/(4.25283 VC)) - |S|); "
                            "step 2b grows |S| from |S| = 11 on: give more labelled examples or a larger alpha "
                            "(faithful constants: BNS15 Claim 4.9, |S| >= (96000/alpha) VC log(2240/(alpha beta)))")
    # |S| stays at 10 (ratio 2: 5 of S and 5 of v = 10): refused
    with pytest.raises(ValueError) as e:
        _lb(10 / math.log(20.5), target=20, it_ratio=2).fit(X, y, XD[:1000])
    assert str(e.value) == ("LabelBoost iteration 1: |S| stopped growing (10 -> 10); give more labelled examples "
                            "or larger constants")
    # X_public large enough for the requirement but not for v
    Xb, yb = _S(100)
    with pytest.raises(ValueError) as e:
        _lb(100 / math.log(1000.0), unl=100).fit(Xb, yb, XD[:500])
    v = math.floor(math.exp(math.log(1000.0)) - 100)
    assert str(e.value) == (f"LabelBoost iteration 1: step 2b needs {v} more unlabelled points, 500 left in "
                            "X_public (fail, as in Algorithm 3)")
    # |S| == target n already: no iteration
    L = _lb(1.0, target=5, rng=1).fit(*_S(5), XD[:1000])
    assert L.iterations_ == 0 and L.schedule_ == [] and L.unlabelled_used_ == 0


def test_three_iterations_follow_the_formulas_with_vc_2(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[np.ndarray] = []
    real = lb.label_boost_procedure

    def spy(C: Any, XS: Any, yS: Any, XT: Any, *, rng: Any) -> Any:
        seen.append(np.array(XT))
        return real(C, XS, yS, XT, rng=rng)

    monkeypatch.setattr(lb, "label_boost_procedure", spy)
    C = Intervals(4)
    X = np.arange(12, dtype=np.uint64) % 16
    y = ((X >= 3) & (X < 9)).astype(np.int64)
    XD4 = np.arange(1200, dtype=np.uint64) % 16
    L = _lb(2.0, C=C, target=200, unl=1000).fit(X, y, XD4)
    vc, S, pos = 2, 12, 0
    assert [it["i"] for it in L.schedule_] == [1, 2, 3]
    for it, XT in zip(L.schedule_, seen):
        i = it["i"]
        ai, bi = 0.5 / (0.25 * 2**i), 0.5 / (0.25 * 2**i)
        lv = math.log(bi * vc) + ai * S / (2.0 * vc)
        v = 1000 if lv > math.log(1000 + S) else math.floor(math.exp(lv) - S)
        assert (it["alpha_i"], it["beta_i"], it["s_before"], it["v"]) == (ai, bi, S, v)
        assert XT.tolist() == XD4[pos:pos + v].tolist()
        S, pos = S + v, pos + v
    assert [it["v"] for it in L.schedule_] == [28, 108, 1000]
    assert L.unlabelled_used_ == pos == 1136


@pytest.mark.parametrize("m, v", [(10, 50), (12, 31)])
def test_schedule_ratio_is_the_smaller_of_the_two_kept_fractions(m: int, v: int) -> None:
    # ratio 3: |S| = 10 keeps 4 (2.5) and v = 50 keeps 17 (2.94); |S| = 12 keeps 4 (3.0), v = 31 keeps 11 (2.82)
    X, y = _S(m)
    L = _lb(m / math.log(m + v + 0.5), it_ratio=3, target=m + 1, cap=10000, unl=100).fit(X, y, XD[:1000])
    it = L.schedule_[0]
    ks, kt = math.ceil(m / 3), math.ceil(v / 3)
    assert (it["v"], it["s_kept"], it["t_kept"]) == (v, ks, kt)
    assert it["ratio"] == min(m / ks, v / kt)
    assert m / ks != v / kt


# ---- LabelBoost.fit: what the privacy accounting is given -----------------------------------


def _privacy_spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    real = lb.labelboost_run_privacy

    def spy(*a: Any, **kw: Any) -> Any:
        calls.append((a, kw))
        return real(*a, **kw)

    monkeypatch.setattr(lb, "labelboost_run_privacy", spy)
    return calls


def test_privacy_is_computed_from_the_ratios_that_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _privacy_spy(monkeypatch)
    X, y = _S(10)
    base = _Base()
    base.privacy = (0.5, 1e-7)  # the base reports what base_privacy declares (a declaration may not exceed it)
    L = _lb(10 / math.log(60.5), n=2, it_ratio=3, final=3, target=5.5, cap=10000, unl=100, base=base,
            base_privacy=(0.5, 1e-7)).fit(X, y, XD[:1000])
    assert L.iterations_ == 1 and L.schedule_[0]["ratio"] == 2.5 and L.final_ratio_ == 21 / 7
    assert len(calls) == 1
    a, kw = calls[0]
    assert a == (0.5, 1e-7, 1)
    assert kw == {"final_ratio": L.final_ratio_, "iteration_ratios": [L.schedule_[0]["ratio"]], "n": 2}
    # fixed before the run: privacy_for on the same sizes gives it without data
    assert L.privacy_for(10, 1000) == L.privacy_
    assert L.privacy_steps_ == labelboost_run_privacy(*a, **kw)
    assert L.privacy_ == (L.privacy_steps_[-1].epsilon, L.privacy_steps_[-1].delta)


def test_outer_subsample_ratio_and_its_accounting(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _privacy_spy(monkeypatch)
    X, y = _S(3000)
    L = _lb(0.01, n=2, final=2, it_ratio=2, epsilon=0.5, target=1, unl=1, rng=5)
    L.fit(X, y, XD)
    # eps_L = 1 first: ratio (3 + e)/0.5 keeps 262 labelled; zero iterations with step 3 keeping 1/2 give
    # ln 244 > 1, so eps_L = ln 244: ratio (3 + 244)/0.5 = 494 keeps 6 labelled and 6 unlabelled; ln 244 holds
    eps_l = math.log(244.0)
    ratio = (3 + math.exp(eps_l)) / 0.5
    assert L.outer_ratio_ == pytest.approx(ratio, rel=1e-12)
    assert [c[0] for c in calls] == [(1.0, 0.0, 0), (1.0, 0.0, 0)]   # the two rounds of the fixed point
    assert [c[1]["final_ratio"] for c in calls] == [2.0, 2.0]
    assert L.privacy_steps_[-1].name == "BNS15.Cl4.3" and L.privacy_ == (0.5, 0.0)
    assert L.base_learner_.log == [math.floor(3000 / ratio) // 2 + math.floor(3000 / ratio) % 2]
    assert L.privacy_for(3000, 3000) == L.privacy_


def test_outer_subsample_keeps_fixed_counts_shuffled(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int]] = []
    real = LabelBoost._schedule

    def spy(self: LabelBoost, n_S: int, n_D: int) -> Any:
        seen.append((n_S, n_D))
        return real(self, n_S, n_D)

    monkeypatch.setattr(LabelBoost, "_schedule", spy)
    L = _lb(1.0, epsilon=0.5, final=300, it_ratio=100, target=1, unl=1)
    XS = np.arange(1000, dtype=np.uint64) % 256
    L.fit(XS, np.ones(1000, dtype=int), XD)
    # eps_L = 1 keeps 87 labelled, whose zero-iteration run keeps 1/87 in step 3 (< 247: ln 244); then
    # ratio (3 + 244)/0.5 = 494 keeps 2 labelled and 6 unlabelled
    ratio = (3 + 244) / 0.5
    assert seen[:2] == [(87, 262), (2, 6)] and seen[-1] == (math.floor(1000 / ratio), math.floor(3000 / ratio))
    ratio = (3 + E1) / 0.5
    # the kept entries are distinct draws, in random order (Rem 4.4): the base sees a permuted sub-sample
    g = np.random.default_rng(1)
    L2 = _lb(1.0, epsilon=0.5, final=1, it_ratio=100, target=1, unl=1, rng=g)
    XS2 = np.arange(2000, dtype=np.uint64) % 256
    L2.fit(XS2, np.ones(2000, dtype=int), XD)
    from semiprivate.theory.privacy._release import child_streams

    g = child_streams(np.random.default_rng(1), 2)[0]  # the run's stream: the first child of the learner's rng
    lab = g.permutation(2000)[:math.floor(2000 / ((3 + 244) / 0.5))]
    assert set(L2.base_learner_.X_.tolist()) <= set(XS2[lab].tolist())
    # no labelled example kept: refused before anything runs, naming the sizes
    with pytest.raises(ValueError) as e:
        _lb(1.0, epsilon=0.5, final=300, it_ratio=100).fit(XS[:11], np.ones(11, dtype=int), XD)
    assert str(e.value) == ("epsilon=0.5: the Thm 4.14 sub-sample keeps 1/11.44 of X, no labelled example "
                            "of 11; give at least 12 labelled examples")


def test_after_the_outer_subsample_X_public_must_still_be_large_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    L = _lb(1.0, target=5, unl=100, epsilon=0.5)
    inner = L._inner_steps(5, 100)

    def fake(self: LabelBoost, n_S: int, n_D: int) -> Any:
        return 5, keep, 2.0, inner

    monkeypatch.setattr(LabelBoost, "_outer_sizes", fake)
    X, y = _S(5)
    keep = 100  # exactly |D| = unlabelled_factor n: enough
    assert _lb(1.0, target=5, unl=100, epsilon=0.5).fit(X, y, XD[:1000]).iterations_ == 0
    keep = 99
    with pytest.raises(ValueError) as e:
        _lb(1.0, target=5, unl=100, epsilon=0.5).fit(X, y, XD[:1000])
    assert str(e.value) == ("after the Thm 4.14 sub-sample X_public keeps 99 points; needs 100: give ceil(100 * 2) "
                            "unlabelled points")


def test_fit_messages_and_empty_X_public() -> None:
    X, y = _S(5)
    L = _lb(1.0, target=5, unl=10)
    with pytest.raises(ValueError) as e:
        L.fit(X, y)
    assert str(e.value) == "X_public (the unlabelled database D) is required"
    with pytest.raises(ValueError) as e:
        L.fit(X, y, [300])
    assert str(e.value).startswith("X_public ")
    with pytest.raises(ValueError) as e:
        L.fit(X, y, [])
    assert str(e.value) == "X_public has 0 points; scaled mode needs |D| >= 10 n = 10 (n = 1)"
    with pytest.raises(RuntimeError) as e2:
        L.predict([1])
    assert str(e2.value) == "LabelBoost is not fitted; call fit first"


class _NoHypothesis(_Base):
    def fit(self, X: Any, y: Any) -> _NoHypothesis:
        self.privacy_ = self.privacy
        self.log.append(len(X))
        return self


def test_a_base_learner_without_hypothesis_leaves_hypothesis_none() -> None:
    X, y = _S(5)
    L = _lb(1.0, target=5, unl=10, base=_NoHypothesis()).fit(X, y, XD[:100])
    assert L.hypothesis_ is None and L.base_learner_.log == [5]


def test_target_step_starts_from_the_last_step() -> None:
    # iteration ratio 5 < 3 + e^4: the run ends at e = 4 (step 3 alone would be 1)
    st = labelboost_run_privacy(1.0, 1e-6, 1, iteration_ratios=[5], target_epsilon=0.5)
    assert st[1].epsilon == 1.0 and st[-2].epsilon == 4.0
    r = subsampling_privacy(1, 4.0, st[-2].delta, 0.5)
    assert st[-1] == PrivacyStep("BNS15.Cl4.3", r.epsilon, r.delta,
                                 f"Thm 4.14: uniform sub-sample keeping 1/{(3 + math.exp(4.0)) / 0.5:g} of the input")


def test_unlabelled_shortage_in_a_later_iteration_counts_what_is_left() -> None:
    C = Intervals(4)
    X = np.arange(12, dtype=np.uint64) % 16
    y = ((X >= 3) & (X < 9)).astype(np.int64)
    with pytest.raises(ValueError) as e:
        _lb(2.0, C=C, target=200, unl=100).fit(X, y, np.arange(1000, dtype=np.uint64) % 16)
    assert str(e.value) == ("LabelBoost iteration 3: step 2b needs 1000 more unlabelled points, 864 left in X_public "
                            "(fail, as in Algorithm 3)")

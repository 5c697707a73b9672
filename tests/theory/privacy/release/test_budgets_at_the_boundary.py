"""Every learner, wrapper, sanitizer and mechanism with a privacy budget parameter reads it through the one
budget record (:class:`semiprivate.theory.privacy.budget.Budget`) at the release boundary: an extreme budget
(1e308, a subnormal, NumPy scalars of every width, a Fraction, delta next to 1) either runs with bounded work and
reports a guarantee not above what it was given, or is refused with a ValueError / TypeError that names the
parameter.  Bounded work is checked by what the accountant is asked (no clock): every noise multiplier handed to
the accountant is at least its floor (``MIN_NOISE_MULTIPLIER``; the PLD grid grows like 1/sigma^2) and a run
asks at most a few hundred times.  The classes are found by the release-boundary walk; a new class with a budget
parameter fails here until it has a case."""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.privacy import accounting
from semiprivate.theory.privacy._release import RUN_METHODS
from semiprivate.theory.privacy.budget import BUDGET_PARAMETERS, Budget, laplace_scale

_C1, _C2 = Thresholds(1), Thresholds(2)


def _budget_classes() -> dict[str, type]:
    out: dict[str, type] = {}
    for pkg_name in ("semiprivate.theory.learners", "semiprivate.theory.privacy"):
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            mod = importlib.import_module(info.name)
            for name, cls in vars(mod).items():
                if not inspect.isclass(cls) or cls.__module__ != mod.__name__ or name.startswith("_"):
                    continue
                runs = any(r in k.__dict__ for r in RUN_METHODS for k in cls.__mro__
                           if k.__module__.startswith("semiprivate"))
                if runs and set(BUDGET_PARAMETERS) & set(inspect.signature(cls).parameters):
                    out[name] = cls
    return out


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(24, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    P = g.normal(size=(12, 3))
    P /= 2 * np.linalg.norm(P, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int), P


def _halfspace(name: str) -> Callable[[Any, Any], Any]:
    def run(e: Any, d: Any) -> Any:
        from semiprivate.theory.learners import halfspaces

        X, y, P = _data()
        kw: dict[str, Any] = {"classes": [0, 1], "epochs": 1.0, "accountant": "rdp"}
        if name != "FullDimensionHalfspace":
            kw["k"] = 2
        return getattr(halfspaces, name)(e, d, **kw).fit(X, y, P)
    return run


def _multinomial(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial

    X, y, P = _data()
    return SemiPrivateMultinomial(e, d, k=2, n_iter=3, classes=[0, 1]).fit(X, y, P)


def _generic_private(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    return GenericPrivateLearner(e, d, concept_class=_C2).fit([0, 3], [1, 0])


def _asspp(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners.asspp import ASSPP

    return ASSPP(e, d, concept_class=_C2).fit([0, 3], [1, 0], [1, 2])


def _generic_learner(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners.generic import GenericLearner

    return GenericLearner(e, concept_class=_C2, sanitized_size=6).fit([0, 3], [1, 0], [0, 1, 2, 3])


def _labelboost(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners.exponential import GenericPrivateLearner
    from semiprivate.theory.learners.labelboost import LabelBoost

    return LabelBoost(GenericPrivateLearner(1.0, concept_class=_C1), concept_class=_C1, n=1, alpha=0.5, epsilon=e,
                      unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                      beta_factor=1, iteration_ratio=2, final_ratio=2).fit([0, 1], [1, 0], [0, 1, 1, 0, 1, 0])


def _reduction(e: Any, d: Any) -> Any:
    from semiprivate.theory.distributions import RandomLabelDistribution
    from semiprivate.theory.learners.exponential import GenericPrivateLearner
    from semiprivate.theory.learners.reduction import ReductionLearner

    D0 = RandomLabelDistribution(lambda n, g: g.integers(0, 2, n))
    return ReductionLearner(e, d, n_priv=20, n_pub=1, D0=D0,
                            base_learner=lambda a, b, g: GenericPrivateLearner(a, b, concept_class=_C1, random_state=g)
                            ).fit(np.array([0, 1]), [1, 0])


def _disjunctions(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner

    return ComponentDisjunctionLearner(e, d).fit(np.array([[1, 0, 0], [0, 0, 1]]), [1, -1],
                                                 np.array([[1, 1, 0], [0, 0, 1]]))


def _subsampling(e: Any, d: Any) -> Any:
    from semiprivate.theory.learners import active
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    S = active.SubSampling(GenericPrivateLearner(0.5, concept_class=_C1), n=2, m=1, epsilon=e)
    X = np.arange(min(S.guarantee().t, 4096)) % 2
    S.fit(X, active.LabelOracle((X == 0).astype(int)))
    return S


class _Base:
    """A tiny private estimator for the searches (privacy_ (0.5, 0))."""

    def __init__(self, c: int = 0, rng: Any = None) -> None:
        self.c = c
        self.rng = rng

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {"c": self.c, "rng": self.rng}

    def set_params(self, **p: Any) -> _Base:
        for k, v in p.items():
            setattr(self, k, v)
        return self

    def fit(self, X: Any, y: Any) -> _Base:
        from semiprivate.theory.privacy._release import fit_stream

        self.bias_ = int(fit_stream(self.rng).integers(2))
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.full(len(X), self.bias_, dtype=np.int64)


def _private_search(e: Any, d: Any) -> Any:
    from semiprivate.theory.privacy.model_selection import PrivateSearchCV

    X, y, _ = _data()
    return PrivateSearchCV(_Base(), {"c": [0, 1]}, epsilon_select=e).fit(X, y)


def _random_stopping(e: Any, d: Any) -> Any:
    from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV

    X, y, _ = _data()
    return RandomStoppingSearchCV(_Base(), {"c": [0, 1]}, gamma=0.5, base_privacy=(0.5, 0.0), epsilon_score=e,
                                  delta=d).fit(X, y)


def _sanitizer(name: str) -> Callable[[Any, Any], Any]:
    def run(e: Any, d: Any) -> Any:
        from semiprivate.theory.privacy import sanitizers

        if name == "NoisyHistogramSanitizer":
            S = sanitizers.NoisyHistogramSanitizer(e, domain_size=4, size=5)
            S.sanitize([0, 1, 1, 3])
        elif name == "BLRSanitizer":
            S = sanitizers.BLRSanitizer(e, predicates=np.eye(3, dtype=bool), size=2)
            S.sanitize([0, 1, 2])
        else:
            S = sanitizers.DyadicThresholdSanitizer(e, d=3, size=3)
            S.sanitize([1, 5, 6])
        return S
    return run


def _mechanism(name: str) -> Callable[[Any, Any], Any]:
    def run(e: Any, d: Any) -> Any:
        from semiprivate.theory.privacy import mechanisms

        m = mechanisms.GaussianMechanism(e, d) if name == "GaussianMechanism" else getattr(mechanisms, name)(e)
        m(1 if name in ("GeometricMechanism", "RandomizedResponse") else [0.0, 1.0], 3, None)
        return m
    return run


#: class name -> (epsilon, delta) -> the object after one run
CASES: dict[str, Callable[[Any, Any], Any]] = {
    **{n: _halfspace(n) for n in ("SemiPrivateHalfspace", "RandomProjectionHalfspace", "FullDimensionHalfspace")},
    "SemiPrivateMultinomial": _multinomial,
    "GenericPrivateLearner": _generic_private,
    "ASSPP": _asspp,
    "GenericLearner": _generic_learner,
    "LabelBoost": _labelboost,
    "ReductionLearner": _reduction,
    "ComponentDisjunctionLearner": _disjunctions,
    "SubSampling": _subsampling,
    "PrivateSearchCV": _private_search,
    "RandomStoppingSearchCV": _random_stopping,
    **{n: _sanitizer(n) for n in ("NoisyHistogramSanitizer", "BLRSanitizer", "DyadicThresholdSanitizer")},
    **{n: _mechanism(n) for n in ("LaplaceMechanism", "GaussianMechanism", "GeometricMechanism",
                                  "RandomizedResponse", "ReportNoisyMax")},
}

#: (epsilon, delta) pairs: extreme values and every kind of real scalar
BUDGETS = {
    "eps=1e308": (1e308, 1e-5),
    "eps=1e-320": (1e-320, 1e-5),
    "eps=float32": (np.float32(1.0), 1e-5),
    "eps=float16": (np.float16(1.0), 1e-5),
    "eps=int64": (np.int64(2), 1e-5),
    "eps=Fraction": (Fraction(1, 10), 1e-5),  # its nearest float is above 1/10: rounded down
    "eps=longdouble": (np.longdouble("0.1"), np.longdouble("1e-5")),  # exact values between floats: rounded down
    "delta=0.999999": (1.0, 0.999999),
    "delta=1-1e-16": (1.0, 1 - 1e-16),
    "delta=float32": (1.0, np.float32(1e-5)),
}

#: the multinomial's PLD accountant at its floor costs seconds per case
_SLOW = {("SemiPrivateMultinomial", b) for b in ("eps=1e308", "delta=0.999999", "delta=1-1e-16")}


def test_every_class_with_a_budget_parameter_has_a_case():
    classes = _budget_classes()
    assert {"SemiPrivateHalfspace", "SemiPrivateMultinomial", "GeometricMechanism", "RandomStoppingSearchCV"} <= set(
        classes)
    missing = sorted(set(classes) - set(CASES))
    assert not missing, f"classes with a budget parameter and no case in CASES: {missing}"


@pytest.fixture
def accountant_calls(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every noise multiplier handed to the accountant (the DP-SGD event) during the test."""
    calls: list[float] = []
    event = accounting.dpsgd_event

    def recording(noise_multiplier: float, *args: Any, **kwargs: Any) -> Any:
        calls.append(float(noise_multiplier))
        return event(noise_multiplier, *args, **kwargs)

    monkeypatch.setattr(accounting, "dpsgd_event", recording)
    return calls


def _params() -> list[Any]:
    return [pytest.param(n, b, id=f"{n}-{b}", marks=[pytest.mark.slow] if (n, b) in _SLOW else [])
            for n in sorted(CASES) for b in BUDGETS]


@pytest.mark.parametrize(("name", "budget"), _params())
def test_an_extreme_budget_runs_with_bounded_work_or_is_refused_naming_it(name, budget, accountant_calls):
    e, d = BUDGETS[budget]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = CASES[name](e, d)
    except (ValueError, TypeError) as err:
        assert any(p in str(err) for p in BUDGET_PARAMETERS), (name, budget, str(err))
    else:
        privacy = getattr(obj, "privacy_", None)
        if privacy is None and not callable(getattr(obj, "privacy", None)):
            privacy = getattr(obj, "privacy", None)  # a mechanism's claim
        if privacy is not None and name not in ("LabelBoost", "SubSampling"):  # the wrappers' own claims
            pe, pd = privacy
            assert type(pe) is float and type(pd) is float, (name, budget, privacy)
            b = Budget.of(e, d) if "delta" in inspect.signature(type(obj)).parameters else Budget.of(e)
            assert pe <= b.epsilon or name in ("PrivateSearchCV", "RandomStoppingSearchCV"), (name, budget, privacy)
        # an estimator's parameters stay what the caller passed (scikit-learn's clone and get_params rely on it)
        if hasattr(obj, "get_params") and "epsilon" in obj.get_params(deep=False) and name != "LabelBoost":
            assert obj.get_params(deep=False)["epsilon"] is e
    floor = accounting.MIN_NOISE_MULTIPLIER["pld" if name == "SemiPrivateMultinomial" else "rdp"]
    assert all(s >= floor for s in accountant_calls), (name, budget, min(accountant_calls))
    assert len(accountant_calls) <= 400, (name, budget, len(accountant_calls))


@pytest.mark.parametrize("value", [np.float32(0.25), np.float16(0.25), np.int32(3), np.uint8(3), Fraction(1, 4),
                                   np.array(0.25), 0.25, 3])
def test_any_real_scalar_becomes_a_python_float_not_above_it(value):
    b = Budget.of(value, value if value < 1 else 0)
    assert type(b.epsilon) is float and Fraction(b.epsilon) == Fraction(float(value))
    third = Budget.of(Fraction(1, 3), Fraction(1, 3))
    assert Fraction(third.epsilon) <= Fraction(1, 3) and Fraction(third.delta) <= Fraction(1, 3)


@pytest.mark.parametrize("value", [np.longdouble("0.1"), np.longdouble("1.1"), np.longdouble("2.2")])
def test_a_value_between_floats_is_rounded_below_it(value):
    exact = Fraction(*value.as_integer_ratio())
    b = Budget.of(value, value / 10)
    assert Fraction(b.epsilon) <= exact and Fraction(b.delta) <= exact / 10
    assert Fraction(math.nextafter(b.epsilon, math.inf)) > exact  # the largest float below, not a lower one


def test_a_symbolic_real_is_rounded_below_its_value():
    sympy = pytest.importorskip("sympy")
    for text in ("0.1", "1.1", "2.2"):
        assert Fraction(Budget.of(sympy.Float(text, 40)).epsilon) <= Fraction(text)


def test_a_legal_delta_just_below_one_is_kept_below_one():
    d = np.longdouble(1) - np.finfo(np.longdouble).eps
    assert Budget.of(1.0, d).delta == math.nextafter(1.0, 0.0)


def test_a_time_span_is_not_a_budget():
    with pytest.raises(TypeError, match="^epsilon must be a real number, got timedelta64"):
        Budget.of(np.timedelta64(1))


def test_a_refused_run_leaves_every_budget_parameter_as_the_caller_set_it():
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    L = GenericPrivateLearner(Fraction(1, 10), concept_class=_C2)
    L.delta = 1.5  # a plain attribute write, past set_params' checks: the run refuses it
    with pytest.raises(ValueError, match="^delta "):
        L.fit([0, 3], [1, 0])
    assert L.get_params()["epsilon"] == Fraction(1, 10) and type(L.get_params()["epsilon"]) is Fraction


@pytest.mark.parametrize(("epsilon", "delta", "named", "kind"), [
    (float("nan"), 0.0, "epsilon", ValueError), (float("inf"), 0.0, "epsilon", ValueError),
    (-1.0, 0.0, "epsilon", ValueError), (0, 0.0, "epsilon", ValueError), (Fraction(1, 10**400), 0.0, "epsilon",
                                                                          ValueError),
    (10**400, 0.0, "epsilon", ValueError), (True, 0.0, "epsilon", TypeError), ("1", 0.0, "epsilon", TypeError),
    (1.0, 1.0, "delta", ValueError), (1.0, -1e-9, "delta", ValueError), (1.0, float("nan"), "delta", ValueError),
    (1.0, np.float32(1.0), "delta", ValueError), (1.0, None, "delta", TypeError)])
def test_a_bad_budget_is_refused_naming_the_parameter(epsilon, delta, named, kind):
    with pytest.raises(kind, match=f"^{named} "):
        Budget.of(epsilon, delta)


def test_set_params_cannot_slip_a_bad_budget_past_the_boundary():
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    L = GenericPrivateLearner(1.0, concept_class=_C2)
    L.epsilon = float("nan")  # what set_params does, without the constructor's checks
    with pytest.raises(ValueError, match="^epsilon must be a finite real number > 0, got nan"):
        L.fit([0, 3], [1, 0])
    assert not hasattr(L, "privacy_")


def test_the_discrete_laplace_range_is_stated_in_epsilon():
    assert laplace_scale(2, 0.5) == 4
    with pytest.raises(ValueError, match=r"^epsilon=1e-320 is below the range .* epsilon must be >= 1\.77636e-15"):
        laplace_scale(2, 1e-320)


@pytest.mark.slow  # two PLD epsilons near the floor: seconds
def test_the_pld_calibration_stops_at_its_floor():
    """A budget the floor already meets is spent at the floor (one Gaussian step: the cheapest PLD grid)."""
    floor = accounting.MIN_NOISE_MULTIPLIER["pld"]
    s = accounting.calibrate_noise_multiplier(1e308, 1e-5, 1.0, 1, accountant="pld")
    assert s == floor


def test_rdp_without_a_finite_replace_one_epsilon_does_not_fall_back_to_pld_below_its_floor(accountant_calls):
    """At noise 2^-10 the RDP group-of-two split underflows (inf); the PLD accountant's grid there has ~2e10
    points, so no fallback is computed and no finite epsilon is claimed."""
    assert accounting.dpsgd_epsilon(2.0**-10, 1.0, 1, 1e-5) == float("inf")
    assert accountant_calls == [2.0**-10]

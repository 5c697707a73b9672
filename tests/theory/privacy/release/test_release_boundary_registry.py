"""The release boundary, class by class, found by walking the packages: every learner, wrapper, sanitizer and
mechanism of ``semiprivate.theory.learners`` and ``semiprivate.theory.privacy`` (a class with ``fit``,
``sanitize`` or ``__call__``) inherits :class:`~semiprivate.theory.privacy._release.Released`, and fitted on a
tiny case it holds nothing but its parameters and its declared releases and public state, no generator, seed
sequence or bit generator anywhere (parameters of nested objects included), and pickles to the same (with no
coin state at all).  A new class is enumerated without editing this file; it fails here until it has a tiny
case in ``CASES``."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import RandomLabelDistribution
from semiprivate.theory.privacy._release import RUN_METHODS, Released, coin_state_paths, param_names

PACKAGES = ("semiprivate.theory.learners", "semiprivate.theory.privacy")


def run_classes() -> dict[str, type]:
    """Every public class defined in PACKAGES that has a run method (fit, sanitize, __call__) of the toolkit."""
    out: dict[str, type] = {}
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            mod = importlib.import_module(info.name)
            for name, cls in vars(mod).items():
                if not inspect.isclass(cls) or cls.__module__ != mod.__name__ or name.startswith("_"):
                    continue
                if any(r in k.__dict__ for r in RUN_METHODS for k in cls.__mro__ if k.__module__.startswith("semiprivate")):
                    out[name] = cls
    return out


CLASSES = run_classes()

_C1, _C2 = Thresholds(1), Thresholds(2)


def _halfspace_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    X = g.normal(size=(24, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    P = g.normal(size=(12, 3))
    P /= 2 * np.linalg.norm(P, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int), P


def _halfspace(name: str, rng: Any) -> Any:
    from semiprivate.theory.learners import halfspaces

    X, y, P = _halfspace_data()
    kw: dict[str, Any] = {"classes": [0, 1], "random_state": rng}
    if name != "NonPrivateHalfspace":
        kw["epochs"] = 1.0
        kw["accountant"] = "rdp"  # the PLD calibration takes a minute on a loaded machine; the boundary is the same
    if name in ("SemiPrivateHalfspace", "RandomProjectionHalfspace", "NonPrivateHalfspace"):
        kw["k"] = 2
    return getattr(halfspaces, name)(**kw).fit(X, y, P)


def _multinomial(rng: Any) -> Any:
    from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial

    X, y, P = _halfspace_data()
    return SemiPrivateMultinomial(1.0, 1e-5, k=2, n_iter=3, classes=[0, 1], random_state=rng).fit(X, y, P)


def _public_standardizer(rng: Any) -> Any:
    from semiprivate.theory.privacy.public_preprocessing import PublicStandardizer

    return PublicStandardizer().fit(_halfspace_data()[2])  # no coins: rng unused


def _generic_private(rng: Any) -> Any:
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    return GenericPrivateLearner(1.0, concept_class=_C2, random_state=rng).fit([0, 3], [1, 0])


def _asspp(rng: Any) -> Any:
    from semiprivate.theory.learners.asspp import ASSPP

    return ASSPP(1.0, concept_class=_C2, random_state=rng).fit([0, 3], [1, 0], [1, 2])


def _generic_learner(rng: Any) -> Any:
    from semiprivate.theory.learners.generic import GenericLearner

    return GenericLearner(1.0, concept_class=_C2, sanitized_size=6, random_state=rng).fit([0, 3], [1, 0], [0, 1, 2, 3])


def _labelboost(rng: Any) -> Any:
    from semiprivate.theory.learners.exponential import GenericPrivateLearner
    from semiprivate.theory.learners.labelboost import LabelBoost

    return LabelBoost(GenericPrivateLearner(1.0, concept_class=_C1), concept_class=_C1, n=1, alpha=0.5,
                      unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                      beta_factor=1, iteration_ratio=2, final_ratio=2, random_state=rng).fit([0, 1], [1, 0], [0, 1, 1, 0, 1, 0])


def _bits(n: int, g: np.random.Generator) -> np.ndarray:
    return g.integers(0, 2, n)


def _klnrs(e: float, d: float, g: Any) -> Any:
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    return GenericPrivateLearner(e, d, concept_class=_C1, random_state=g)


def _reduction(rng: Any) -> Any:
    from semiprivate.theory.learners.reduction import ReductionLearner

    D0 = RandomLabelDistribution(_bits)
    return ReductionLearner(1.0, n_priv=20, n_pub=1, D0=D0, random_state=rng, base_learner=_klnrs).fit(np.array([0, 1]), [1, 0])


def _disjunctions(rng: Any) -> Any:
    from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner

    Xu = np.array([[1, 1, 0], [0, 0, 1]])
    return ComponentDisjunctionLearner(1.0, random_state=rng).fit(np.array([[1, 0, 0], [0, 0, 1]]), [1, -1], Xu)


def _active(name: str, rng: Any) -> Any:
    from semiprivate.theory.learners import active
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    if name == "BinarySearchThresholdLearner":
        L = active.BinarySearchThresholdLearner(_C2)
        L.fit(np.array([0, 2, 3]), active.LabelOracle(np.array([1, 0, 0])))
        return L
    if name == "PSSLAsTPAL":
        L = active.PSSLAsTPAL(GenericPrivateLearner(1.0, concept_class=_C2, random_state=rng), m=2)
        L.fit(np.array([0, 2, 3]), active.LabelOracle(np.array([1, 0, 0])))
        return L
    S = active.SubSampling(GenericPrivateLearner(0.5, concept_class=_C1, random_state=rng), n=2, m=1, epsilon=1.0, rng=rng)
    X = np.arange(S.guarantee().t) % 2
    S.fit(X, active.LabelOracle((X == 0).astype(int)))
    return S


class _Base:
    """A tiny private estimator for the searches (privacy_ (0.5, 0); coins from its rng)."""

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


def _search(name: str, rng: Any) -> Any:
    from semiprivate.theory.privacy.model_selection import PrivateSearchCV
    from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV

    X, y, _ = _halfspace_data()
    if name == "PrivateSearchCV":
        return PrivateSearchCV(_Base(), {"c": [0, 1]}, refit=True, rng=rng).fit(X, y)
    return RandomStoppingSearchCV(_Base(), {"c": [0, 1]}, gamma=0.5, base_privacy=(0.5, 0.0), rng=rng).fit(X, y)


def _semi_private_pipeline(rng: Any) -> Any:
    from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
    from semiprivate.theory.learners.pipeline import SemiPrivatePipeline
    from sklearn.preprocessing import Normalizer, StandardScaler

    X, y, P = _halfspace_data()
    clf = SemiPrivateHalfspace(k=2, epochs=1.0, accountant="rdp", classes=[0, 1], row_norm="clip", random_state=rng)
    return SemiPrivatePipeline([("scale", StandardScaler()), ("norm", Normalizer()), ("clf", clf)]).fit(X, y, X_public=P)


def _public_rows(rng: Any) -> Any:
    from semiprivate.theory.privacy.public_rows import PublicRowsFitted
    from sklearn.preprocessing import StandardScaler

    X, y, _ = _halfspace_data()
    y = y.copy()
    y[:6] = -1
    return PublicRowsFitted(StandardScaler(), unlabeled_label=-1).fit(X, y)


def _sanitizer(name: str, rng: Any) -> Any:
    from semiprivate.theory.privacy import sanitizers

    if name == "NoisyHistogramSanitizer":
        S = sanitizers.NoisyHistogramSanitizer(1.0, domain_size=4, size=5, rng=rng)
        S.sanitize([0, 1, 1, 3])
    elif name == "BLRSanitizer":
        S = sanitizers.BLRSanitizer(1.0, predicates=np.eye(3, dtype=bool), size=2, rng=rng)
        S.sanitize([0, 1, 2])
    else:
        S = sanitizers.DyadicThresholdSanitizer(1.0, d=3, size=3, rng=rng)
        S.sanitize([1, 5, 6])
    return S


def _mechanism(name: str, rng: Any) -> Any:
    from semiprivate.theory.privacy import mechanisms

    m = {"LaplaceMechanism": lambda: mechanisms.LaplaceMechanism(1.0),
         "GaussianMechanism": lambda: mechanisms.GaussianMechanism(1.0, 1e-5),
         "GeometricMechanism": lambda: mechanisms.GeometricMechanism(1.0),
         "RandomizedResponse": lambda: mechanisms.RandomizedResponse(1.0),
         "ReportNoisyMax": lambda: mechanisms.ReportNoisyMax(1.0)}[name]()
    m(1 if name in ("GeometricMechanism", "RandomizedResponse") else [0.0, 1.0], 3, rng)
    return m


#: class name -> tiny case (rng -> the object after one run)
CASES: dict[str, Callable[[Any], Any]] = {
    "GenericPrivateLearner": _generic_private,
    "ASSPP": _asspp,
    "GenericLearner": _generic_learner,
    "LabelBoost": _labelboost,
    "ReductionLearner": _reduction,
    "ComponentDisjunctionLearner": _disjunctions,
    **{n: (lambda rng, n=n: _active(n, rng)) for n in ("PSSLAsTPAL", "SubSampling", "BinarySearchThresholdLearner")},
    **{n: (lambda rng, n=n: _halfspace(n, rng)) for n in ("SemiPrivateHalfspace", "RandomProjectionHalfspace",
                                                          "FullDimensionHalfspace", "NonPrivateHalfspace")},
    "SemiPrivateMultinomial": _multinomial,
    "PublicStandardizer": _public_standardizer,
    **{n: (lambda rng, n=n: _search(n, rng)) for n in ("PrivateSearchCV", "RandomStoppingSearchCV")},
    "PublicRowsFitted": _public_rows,
    "SemiPrivatePipeline": _semi_private_pipeline,
    **{n: (lambda rng, n=n: _sanitizer(n, rng)) for n in ("NoisyHistogramSanitizer", "BLRSanitizer",
                                                          "DyadicThresholdSanitizer")},
    **{n: (lambda rng, n=n: _mechanism(n, rng)) for n in ("LaplaceMechanism", "GaussianMechanism", "GeometricMechanism",
                                                          "RandomizedResponse", "ReportNoisyMax")},
}


def test_the_walk_finds_the_learners_wrappers_sanitizers_and_mechanisms():
    assert {"GenericPrivateLearner", "LabelBoost", "SubSampling", "PrivateSearchCV", "RandomStoppingSearchCV",
            "NoisyHistogramSanitizer", "DyadicThresholdSanitizer", "GeometricMechanism"} <= set(CLASSES)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_every_run_class_inherits_the_release_boundary_and_has_a_tiny_case(name):
    cls = CLASSES[name]
    assert issubclass(cls, Released), f"{name} does not inherit semiprivate.theory.privacy._release.Released"
    assert name in CASES, f"{name} has no tiny case in CASES (tests/theory/privacy/release): add one"


def _fit(name: str, rng: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CASES[name](rng)


@pytest.mark.parametrize("rng", [None, 3, "generator"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_after_a_run_the_state_is_parameters_declared_releases_and_public_state_only(name, rng):
    rng = np.random.default_rng(5) if rng == "generator" else rng
    obj = _fit(name, rng)
    allowed = set(param_names(obj)) | set(type(obj).kept_attributes())
    assert set(vars(obj)) <= allowed, sorted(set(vars(obj)) - allowed)
    assert coin_state_paths(obj) == []
    restored = pickle.loads(pickle.dumps(obj))
    assert set(vars(restored)) == set(vars(obj))
    assert coin_state_paths(restored, skip_params=False) == []  # a pickled object carries no generator at all


def test_an_undeclared_attribute_does_not_outlive_the_run():
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    class Leaky(GenericPrivateLearner):
        def fit(self, X_private: Any, y_private: Any, X_public: Any = None) -> Any:
            super().fit(X_private, y_private, X_public)
            self.errors_ = self._errors(X_private, y_private)  # exact private statistics, undeclared
            return self

    L = Leaky(1.0, concept_class=_C2).fit([0, 3], [1, 0])
    assert not hasattr(L, "errors_") and hasattr(L, "hypothesis_")


def test_a_run_that_leaves_a_generator_is_refused():
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    class KeepsCoins(GenericPrivateLearner):
        _releases = GenericPrivateLearner._releases | {"stream_"}

        def fit(self, X_private: Any, y_private: Any, X_public: Any = None) -> Any:
            super().fit(X_private, y_private, X_public)
            self.stream_ = np.random.default_rng()
            return self

    with pytest.raises(RuntimeError, match="coin state"):
        KeepsCoins(1.0, concept_class=_C2).fit([0, 3], [1, 0])


@pytest.mark.parametrize("name", sorted(n for n, c in CLASSES.items()
                                        if {"unlabeled_label", "classes"} <= set(inspect.signature(c).parameters)))
def test_every_class_with_a_sentinel_and_classes_refuses_a_sentinel_that_is_a_class(name):
    X, y, P = _halfspace_data()
    kw: dict[str, Any] = {"classes": [0, 1], "unlabeled_label": 0}
    if "k" in inspect.signature(CLASSES[name]).parameters:
        kw["k"] = 2
    with pytest.raises(ValueError, match="unlabeled_label"):
        CLASSES[name](**kw).fit(X, y, P)

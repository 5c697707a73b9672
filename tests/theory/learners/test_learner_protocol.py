"""The learner protocol (semiprivate.theory.learners._base): every learner is a scikit-learn classifier
(clone, get_params/set_params, tags), takes its seed as ``random_state`` (``rng`` is the older name), and the seed
record refuses one int ``random_state`` on two different releases of every learner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import RandomLabelDistribution
from semiprivate.theory.learners._base import LearnerBase, NotFitted, seed_of
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.generic import GenericLearner
from semiprivate.theory.learners.halfspaces import (
    FullDimensionHalfspace,
    NonPrivateHalfspace,
    RandomProjectionHalfspace,
    SemiPrivateHalfspace,
)
from semiprivate.theory.learners.labelboost import LabelBoost
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.learners.reduction import ReductionLearner
from semiprivate.theory.privacy.seeds import separate_seed_record
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError

_C = Thresholds(4)


def _klnrs(epsilon: float, delta: float, rng: Any) -> GenericPrivateLearner:
    return GenericPrivateLearner(epsilon, delta, random_state=rng, concept_class=_C)


def _uniform_points(n: int, g: np.random.Generator) -> np.ndarray:
    return g.integers(0, 16, n)


def _threshold_data(shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.arange(16)
    return X, (X < 6 + shift).astype(np.int64), np.arange(16)


def _reduction_data(shift: int) -> tuple[np.ndarray, np.ndarray, None]:
    X = np.arange(20) % 16
    return X, (X < 6 + shift).astype(np.int64), None


def _disjunction_data(shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Xp = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0]])
    y = np.array([1, -1, 1, -1 if shift == 0 else 1])
    return Xp, y, np.array([[1, 1, 0, 0], [0, 0, 1, 1]])


def _real_data(shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(shift)
    X = g.normal(size=(40, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(np.int64), X[:20] * 0.9


# (learner without a seed, data maker): the data of release 0 and of release 1 differ
# (the halfspaces: full batches, q = 1, under the RDP accountant: a calibration of milliseconds, not seconds)
CASES: list[tuple[Callable[..., Any], Callable[[int], Any]]] = [
    (lambda **kw: GenericPrivateLearner(1.0, concept_class=_C, **kw), _threshold_data),
    (lambda **kw: ASSPP(1.0, concept_class=_C, **kw), _threshold_data),
    (lambda **kw: GenericLearner(1.0, concept_class=_C, **kw), _threshold_data),
    (lambda **kw: LabelBoost(GenericPrivateLearner(1.0, concept_class=_C), concept_class=_C, n=4, **kw),
     _threshold_data),
    (lambda **kw: ReductionLearner(1.0, base_learner=_klnrs, n_priv=200, n_pub=1,
                                   D0=RandomLabelDistribution(_uniform_points), **kw), _reduction_data),
    (lambda **kw: ComponentDisjunctionLearner(**kw), _disjunction_data),
    (lambda **kw: SemiPrivateHalfspace(k=2, epochs=1.0, classes=[0, 1], accountant="rdp", **kw), _real_data),
    (lambda **kw: RandomProjectionHalfspace(k=2, epochs=1.0, classes=[0, 1], accountant="rdp", **kw), _real_data),
    (lambda **kw: FullDimensionHalfspace(epochs=1.0, classes=[0, 1], accountant="rdp", **kw), _real_data),
    (lambda **kw: SemiPrivateMultinomial(projection="none", n_iter=5, classes=[0, 1], **kw), _real_data),
]
_IDS = ["GenericPrivateLearner", "ASSPP", "GenericLearner", "LabelBoost", "ReductionLearner",
        "ComponentDisjunctionLearner", "SemiPrivateHalfspace", "RandomProjectionHalfspace", "FullDimensionHalfspace",
        "SemiPrivateMultinomial"]


@pytest.mark.parametrize(("make", "data"), CASES, ids=_IDS)
def test_one_int_random_state_on_two_releases_is_refused(make: Callable[..., Any], data: Callable[[int], Any]) -> None:
    with separate_seed_record():
        X, y, P = data(0)
        make(random_state=11).fit(X, y, P)
        make(random_state=11).fit(X, y, P)  # the same release again: allowed (it reveals nothing new)
        X, y, P = data(1)
        with pytest.raises(ValueError, match="random_state"):
            make(random_state=11).fit(X, y, P)
        make(random_state=12).fit(X, y, P)  # its own seed: fine


@pytest.mark.parametrize(("make", "data"), CASES, ids=_IDS)
def test_random_state_and_rng_name_one_seed(make: Callable[..., Any], data: Callable[[int], Any]) -> None:
    """``rng`` is the older name of ``random_state``, deprecated: the same seed under either name gives the same
    release, the older name with a FutureWarning that names the new one; both given (different) is refused,
    naming both."""
    X, y, P = data(0)
    with separate_seed_record():
        a = make(random_state=5).fit(X, y, P)
    with separate_seed_record(), pytest.warns(FutureWarning, match="rng is deprecated .* pass random_state"):
        b = make(rng=5).fit(X, y, P)
    assert np.array_equal(a.predict(X), b.predict(X)) and a.privacy_ == b.privacy_
    est = make(random_state=5, rng=6)
    with pytest.raises(ValueError, match="random_state=5 and rng=6"):
        seed_of(est)


@pytest.mark.parametrize(("make", "data"), CASES, ids=_IDS)
def test_clone_params_tags_and_unfitted_predict(make: Callable[..., Any], data: Callable[[int], Any]) -> None:
    est = make(random_state=3)
    assert isinstance(est, LearnerBase) and is_classifier(est)
    params = est.get_params(deep=False)
    assert params["random_state"] == 3 and params["rng"] is None
    twin = clone(est)
    assert twin is not est and twin.get_params(deep=False).keys() == params.keys()
    assert est.__sklearn_tags__().non_deterministic  # a private fit draws fresh noise
    X, _, _ = data(0)
    with pytest.raises(NotFittedError, match="not fitted"):
        est.predict(X)


def test_not_fitted_is_also_the_runtime_error_raised_before() -> None:
    with pytest.raises(NotFitted) as info:
        GenericPrivateLearner(1.0, concept_class=_C).predict([1, 2])
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, NotFittedError)


def test_non_private_baseline_has_the_protocol_too() -> None:
    est = NonPrivateHalfspace(projection="none", random_state=0)
    assert clone(est).get_params()["random_state"] == 0 and is_classifier(est)


def test_wrapper_over_a_learner_runs_in_secure_mode() -> None:
    from semiprivate.theory.privacy.seeds import secure_mode

    X = np.arange(16)
    with secure_mode():
        boosted = LabelBoost(GenericPrivateLearner(1.0, concept_class=_C), concept_class=_C, n=4)
        boosted.fit(X, (X < 6).astype(np.int64), np.arange(16))
    assert boosted.base_learner_.get_params()["random_state"] is None  # no coin state kept


def _learner_classes() -> list[type]:
    """Every public learner class the package defines (a LearnerBase subclass in semiprivate.theory.learners)."""
    import importlib
    import inspect
    import pkgutil

    import semiprivate.theory.learners as pkg

    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if (inspect.isclass(cls) and issubclass(cls, LearnerBase) and cls is not LearnerBase
                    and cls.__module__ == module.__name__ and not name.startswith("_")):
                found[f"{cls.__module__}.{name}"] = cls
    return [found[k] for k in sorted(found)]


LEARNER_CLASSES = _learner_classes()


def test_every_learner_class_is_found() -> None:
    names = {cls.__name__ for cls in LEARNER_CLASSES}
    assert {"ASSPP", "GenericLearner", "GenericPrivateLearner", "LabelBoost", "ReductionLearner",
            "ComponentDisjunctionLearner", "SemiPrivateHalfspace", "SemiPrivateMultinomial"} <= names, names


@pytest.mark.parametrize("cls", LEARNER_CLASSES, ids=lambda c: c.__name__)
def test_fit_takes_x_y_and_public_rows_by_the_same_names(cls: type) -> None:
    """One protocol: ``fit(X, y, X_public=None)`` (scikit-learn's X and y; the public rows by keyword, None when
    not given), whatever the learner does with each."""
    import inspect

    params = list(inspect.signature(cls.fit).parameters.values())[1:]  # after self
    assert [p.name for p in params[:3]] == ["X", "y", "X_public"], (cls.__name__, [p.name for p in params])
    assert params[2].default is None, (cls.__name__, "X_public must default to None")

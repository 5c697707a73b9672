"""A fit leaves no trace of its private data in the process's memo tables: the keys of every registered memo table
(:func:`semiprivate.kernels._memo.registered_tables`: every process-wide cache of the package and every
``memo``-decorated function's results) after one fit are the same as after the same fit, with the same seed, on a
neighbouring data set.  A memo keyed by a value computed from private data keeps that value in the process after
the run, outside ``privacy_`` (found: ``ComponentDisjunctionLearner(method="factorised")`` drew
``bernoulli_exp(|t|)`` with ``t`` from the private label shares through a sampler memoised by ``|t|``; one fit on
``[-1, -1, -1, -1]`` left the key 2, on ``[1, -1, -1, -1]`` the key 1).

Every learner of the package is covered (``LearnerBase`` classes and the active learners; checked against the
exported names), each on a tiny data set and its neighbours: one label changed, one labelled row's features
changed (both are neighbours under every relation the learners declare: ``labelled`` and ``all inputs``), and,
for the learners whose guarantee covers every input (``all inputs``: the public sample too), one public row
changed.
Deterministic: fixed seeds, every table emptied before each fit."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import semiprivate.theory.learners as learners
from semiprivate.kernels._memo import registered_tables
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import RandomLabelDistribution
from semiprivate.theory.learner_checks import REGISTRY
from semiprivate.theory.learners import (
    ASSPP,
    BinarySearchThresholdLearner,
    ComponentDisjunctionLearner,
    FullDimensionHalfspace,
    GenericLearner,
    GenericPrivateLearner,
    LabelBoost,
    NonPrivateHalfspace,
    PSSLAsTPAL,
    RandomProjectionHalfspace,
    ReductionLearner,
    SemiPrivateHalfspace,
    SemiPrivateMultinomial,
    SubSampling,
)
from semiprivate.theory.learners.active import LabelOracle
from semiprivate.theory.privacy.seeds import separate_seed_record

pytestmark = pytest.mark.filterwarnings("ignore::semiprivate.theory.privacy.public_rows.PrivacyWarning")

_C = Thresholds(4)
Data = tuple[np.ndarray, np.ndarray, np.ndarray]  # private X, private labels, public X


def _thresholds(n: int = 8) -> Data:
    g = np.random.default_rng(1)
    X = g.integers(0, 16, n)
    return X, (X >= 7).astype(int), g.integers(0, 16, 6)


def _ball(n: int = 24, d: int = 3) -> Data:
    g = np.random.default_rng(2)
    X = g.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    P = g.normal(size=(12, d))
    P /= np.maximum(1.0, np.linalg.norm(P, axis=1))[:, None]
    return X, (X[:, 0] > 0).astype(int), P


def _components() -> Data:
    """Two public components, {0, 1, 2} and {3, 4}; four labelled rows touch the first (its share t = -2 + ...:
    the factorised route draws exact coins with gamma = |t|, a function of the labels)."""
    P = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 1, 1]])
    X = np.array([[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 1, 0],
                  [0, 0, 0, 0, 1]])
    return X, np.array([-1, -1, -1, -1, 1, -1]), P


def _klnrs(epsilon: float, delta: float, rng: Any) -> GenericPrivateLearner:
    return GenericPrivateLearner(epsilon, delta, random_state=rng, concept_class=_C)


def _active(make: Callable[[], Any]) -> Callable[[Data], Any]:
    return lambda d: make().fit(d[0], LabelOracle(d[1]))


#: name -> (data, fit(data) with a fixed seed).  Small settings: two fits per neighbour pair.
CASES: dict[str, tuple[Callable[[], Data], Callable[[Data], Any]]] = {
    "GenericPrivateLearner": (_thresholds, lambda d: GenericPrivateLearner(
        1.0, concept_class=_C, random_state=0).fit(d[0], d[1])),
    "ASSPP": (_thresholds, lambda d: ASSPP(1.0, concept_class=_C, random_state=0).fit(d[0], d[1], X_public=d[2])),
    "GenericLearner": (_thresholds, lambda d: GenericLearner(1.0, concept_class=_C, random_state=0).fit(
        d[0], d[1], X_public=d[2])),
    "LabelBoost": (_thresholds, lambda d: LabelBoost(
        GenericPrivateLearner(1.0, concept_class=_C), concept_class=_C, n=4, random_state=0).fit(
            d[0], d[1], X_public=d[2])),
    "ReductionLearner": (lambda: _thresholds(2), lambda d: ReductionLearner(
        1.0, base_learner=_klnrs, n_priv=20, n_pub=1,
        D0=RandomLabelDistribution(lambda n, g: g.integers(0, 16, n)), random_state=0).fit(d[0], d[1])),
    "ComponentDisjunctionLearner": (_components, lambda d: ComponentDisjunctionLearner(
        1.0, method="factorised", random_state=0).fit(d[0], d[1], X_public=d[2])),
    "SemiPrivateHalfspace": (_ball, lambda d: SemiPrivateHalfspace(
        1.0, 1e-6, k=2, epochs=1, batch_size=8, accountant="rdp", classes=[0, 1], random_state=0).fit(
            d[0], d[1], X_public=d[2])),
    "RandomProjectionHalfspace": (_ball, lambda d: RandomProjectionHalfspace(
        1.0, 1e-6, k=2, epochs=1, batch_size=8, accountant="rdp", classes=[0, 1], random_state=0).fit(d[0], d[1])),
    "FullDimensionHalfspace": (_ball, lambda d: FullDimensionHalfspace(
        1.0, 1e-6, trainer="noisy_sgd", noisy_sgd_steps=5, classes=[0, 1], random_state=0).fit(d[0], d[1])),
    "NonPrivateHalfspace": (_ball, lambda d: NonPrivateHalfspace(
        projection="pca", k=2, n_iter=5, random_state=0).fit(d[0], d[1], X_public=d[2])),
    "SemiPrivateMultinomial": (_ball, lambda d: SemiPrivateMultinomial(
        1.0, 1e-6, k=2, n_iter=3, classes=[0, 1], random_state=0).fit(d[0], d[1], X_public=d[2])),
    "PSSLAsTPAL": (lambda: _thresholds(3), _active(lambda: PSSLAsTPAL(
        GenericPrivateLearner(1.0, concept_class=_C, random_state=np.random.default_rng(0)), m=2))),
    "SubSampling": (lambda: _thresholds(12), _active(lambda: SubSampling(
        GenericPrivateLearner(0.5, concept_class=_C, random_state=np.random.default_rng(0)), n=2, m=1,
        epsilon=1.0, rng=np.random.default_rng(100)))),
    "BinarySearchThresholdLearner": (lambda: _thresholds(3), _active(lambda: BinarySearchThresholdLearner(_C))),
}


#: Learners whose guarantee covers every input, the public sample too (their declared privacy model)
ALL_INPUTS = {name for name, check in REGISTRY.items() if check.relation == "all inputs"}


def _neighbours(d: Data, name: str) -> list[Data]:
    """One label changed; one labelled row's features changed; and, where the learner's guarantee covers every
    input ("all inputs"), one public row changed."""
    X, y, P = d
    flipped = y.copy()
    flipped[0] = y[1] if y[1] != y[0] else (-y[0] if set(np.unique(y)) == {-1, 1} else 1 - y[0])
    moved = X.copy()
    moved[0] = X[1]  # a row the data set already holds: valid for every domain
    out = [(X, flipped, P), (moved, y, P)]
    if name in ALL_INPUTS:
        public = P.copy()
        public[0] = P[1] if not np.array_equal(P[0], P[1]) else X[0]
        out.append((X, y, public))
    return out


def _keys_after(fit: Callable[[Data], Any], d: Data) -> dict[str, list[str]]:
    for table in registered_tables():
        table.cache_clear()
    with separate_seed_record():
        fit(d)
    return {f"{t.name} #{i}": sorted(map(repr, t)) for i, t in enumerate(registered_tables())}


def test_every_learner_is_covered() -> None:
    exported = {n for n in learners.__all__ if inspect.isclass(getattr(learners, n))
                and callable(getattr(getattr(learners, n), "fit", None))}
    assert exported == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fit_leaves_the_same_memo_keys_as_on_a_neighbouring_data_set(name: str) -> None:
    make, fit = CASES[name]
    data = make()
    base = _keys_after(fit, data)
    for i, other in enumerate(_neighbours(data, name)):
        after = _keys_after(fit, other)
        differ = {k: (base[k], after.get(k)) for k in base if base[k] != after.get(k)}
        assert not differ, (f"{name}: the memo keys left by one fit depend on the private data (neighbour {i}): "
                            f"{differ}")

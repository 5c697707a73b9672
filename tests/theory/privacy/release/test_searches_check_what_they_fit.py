"""What a search fits is what it checks: every candidate of ``param_grid`` (which can replace a step, a
sentinel or the learner), no step that sees private and public rows in one batch, and Pipelines with
released steps keep working under scikit-learn's fit callbacks."""

from __future__ import annotations

import io
import logging
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import NonPrivateHalfspace, SemiPrivateHalfspace
from semiprivate.theory.privacy import random_stopping
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer, StandardScaler


class _Constant(ClassifierMixin, BaseEstimator):
    """Honest and private: ignores its labels, predicts 0, reports (0.5, 0)."""

    def __init__(self, c: int = 0) -> None:
        self.c = c

    def fit(self, X: Any, y: Any) -> _Constant:
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.zeros(len(X), dtype=np.int64)


def _data() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(30, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    y[:8] = -1
    return X, y


def _searches(base: Any, grid: dict[str, Any]) -> list[Any]:
    return [PrivateSearchCV(base, grid, unlabeled_label=-1, rng=0),
            RandomStoppingSearchCV(base, grid, gamma=1.0, base_privacy=(0.5, 0.0), unlabeled_label=-1, rng=0)]


@pytest.mark.parametrize("grid", [{"pre": [StandardScaler()]},                      # a step replaced
                                  {"pre": [PublicRowsFitted(StandardScaler(), unlabeled_label=1)]},  # a sentinel
                                  {"clf": [NonPrivateHalfspace(projection="none", k=None, classes=[0, 1])]}])
def test_every_candidate_is_checked_before_any_fit(grid):
    X, y = _data()
    base = Pipeline([("pre", Normalizer()), ("clf", _Constant())])
    for s in _searches(base, grid):
        with pytest.raises(ValueError, match="estimator"):
            s.fit(X, y)


def test_a_batch_function_step_is_refused():
    X, y = _data()
    base = Pipeline([("mix", FunctionTransformer(lambda Z: Z - Z.mean(0))), ("clf", _Constant())])
    for s in _searches(base, {"clf__c": [0]}):
        with pytest.raises(ValueError, match="mix"):
            s.fit(X, y)


def test_public_rows_fitted_applies_an_unknown_transformer_row_by_row():
    X, y = _data()
    mixing = FunctionTransformer(lambda Z: Z - Z.mean(0))
    t = PublicRowsFitted(mixing, unlabeled_label=-1).fit(X, y)
    out = t.transform(X)
    assert np.allclose(out, 0.0)  # each row minus its own mean: no row sees another


def test_a_pipeline_of_released_steps_fits_under_scikit_learn():
    X, y = _data()
    pipe = Pipeline([("pub", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)), ("norm", Normalizer()),
                     ("clf", SemiPrivateHalfspace(1.0, 1e-5, k=2, epochs=1, classes=[0, 1], unlabeled_label=-1,
                                                  accountant="rdp"))])
    pipe.fit(X, y)
    assert pipe.predict(X).shape == (30,)


def test_random_stopping_runs_its_bases_without_progress_output(capsys):
    from semiprivate.theory.learners.halfspaces import FullDimensionHalfspace

    X, y = _data()
    y = np.where(y == -1, 0, y)
    base = FullDimensionHalfspace(1.0, 1e-5, epochs=1, batch_size=8, classes=[0, 1], accountant="rdp", progress=True)
    s = RandomStoppingSearchCV(base, {"epochs": [1]}, gamma=0.3, base_privacy=(1.0, 1e-5), rng=3).fit(X, y)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""  # one bar per run would print K, which the guarantee hides
    assert s.estimator.progress is True  # the user's estimator is left as it was


class _SeededByRandomState(ClassifierMixin, BaseEstimator):
    """scikit-learn's naming: its coins come from ``random_state``; fit records its first draw."""

    def __init__(self, c: int = 0, random_state: Any = None) -> None:
        self.c = c
        self.random_state = random_state

    def fit(self, X: Any, y: Any) -> _SeededByRandomState:
        self.draw_ = int(np.random.default_rng(self.random_state).integers(2**62))
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.zeros(len(X), dtype=np.int64)


def test_a_random_state_seed_is_rerouted_like_rng():
    X, y = _data()
    s = PrivateSearchCV(_SeededByRandomState(random_state=0), {"c": [0, 1, 2]}, unlabeled_label=-1, refit=True,
                        rng=1).fit(X, y)
    draws = [e.draw_ for e in s.estimators_] + [s.best_estimator_.draw_]
    assert len(set(draws)) == len(draws)
    assert s.best_estimator_.random_state == 0  # the user's value is put back


def test_printed_output_does_not_count_the_runs(capsys):
    X, y = _data()
    lines = set()
    for seed in range(6):
        base = Pipeline([("n", Normalizer()), ("clf", _Constant())], verbose=True)
        RandomStoppingSearchCV(base, {"clf__c": [0]}, gamma=0.3, base_privacy=(0.5, 0.0), unlabeled_label=-1,
                               rng=seed).fit(X, y)
        lines.add(capsys.readouterr().out.count("[Pipeline]"))
    assert len(lines) == 1  # the selected run's output only, whatever K the coins gave


class _Logs(_Constant):
    """Honest: logs one record per fit and per predict (an application's logging, configured before the search)."""

    def fit(self, X: Any, y: Any) -> _Logs:
        logging.getLogger("semiprivate.tests.base").warning("fitting on %d rows", len(X))
        return super().fit(X, y)

    def predict(self, X: Any) -> np.ndarray:
        logging.getLogger("semiprivate.tests.base").warning("predicting %d rows", len(X))
        return super().predict(X)


def test_log_records_do_not_count_the_runs():
    X, y = _data()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)  # holds its own stream: redirecting stdout/stderr does not reach it
    logger = logging.getLogger("semiprivate.tests.base")
    logger.addHandler(handler)
    counts, runs = set(), []
    real = random_stopping.sample_runs
    try:
        random_stopping.sample_runs = lambda *a, **k: runs.append(real(*a, **k)) or runs[-1]
        for seed in range(6):
            before = stream.getvalue().count("fitting on"), stream.getvalue().count("predicting")
            RandomStoppingSearchCV(_Logs(), {"c": [0]}, gamma=0.3, base_privacy=(0.5, 0.0), unlabeled_label=-1,
                                   rng=seed).fit(X, y)
            counts.add((stream.getvalue().count("fitting on") - before[0],
                        stream.getvalue().count("predicting") - before[1]))
    finally:
        random_stopping.sample_runs = real
        logger.removeHandler(handler)
    assert len(set(runs)) > 1  # the coins gave several K: a record per run would show them
    assert counts == {(1, 1)}  # the selected run's records only (fit and scoring), through the configured handler


class _ReportsEps(_Constant):
    def __init__(self, c: int = 0, eps: float = 0.5) -> None:
        self.c = c
        self.eps = eps

    def fit(self, X: Any, y: Any) -> _ReportsEps:
        super().fit(X, y)
        self.privacy_ = (self.eps, 0.0)
        return self


def test_a_negative_reported_epsilon_is_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="privacy_"):
        PrivateSearchCV(_ReportsEps(), {"eps": [2.0, -1.5]}, unlabeled_label=-1, rng=0).fit(X, y)


def test_secure_mode_refuses_a_base_seeded_by_a_32_bit_integer():
    from semiprivate.theory.privacy.seeds import secure_mode

    X, y = _data()
    with secure_mode(), pytest.raises(ValueError, match="^random_state: .*refused in secure mode"):
        PrivateSearchCV(_SeededByRandomState(), {"c": [0, 1]}, unlabeled_label=-1).fit(X, y)

"""Random stopping's guarantee (LT19 / PS22) holds with the number of runs K hidden, so the process-wide state a
search leaves may not depend on K.  The package's own learners, as the search's base, memoise by public parameters
(the halfspace learners' calibrations and accountings): with candidates that
differ in such a parameter, the keys left after the search would show which candidates ran -- one with K = 1, most
of them with K = 7; and a public-rows step (``PublicRowsFitted``) records each run's fitted step for the next
step's check, which a final step that is not one of the package's releases never consumes.  Checked with K forced
to 1 and to 7 (``random_stopping.sample_runs`` replaced, as in ``test_random_stopping_hides_its_run_count.py``) on
two real learners and a public-rows Pipeline as the base: a digest of the keys of every registered memo
table (:func:`semiprivate.kernels._memo.registered_tables`), of every module-level dict/list/set/deque of every
loaded ``semiprivate.*`` module, of every memo-decorated function's results, and of the seed record's content (every field but the MAC of the released output,
which is the release itself) is the same after both searches, and the same as before them.  Deterministic (fixed
seeds; no statistical test)."""

from __future__ import annotations

import collections
import hashlib
import sys
from typing import Any

import numpy as np
import pytest
from semiprivate.kernels._memo import registered_tables
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy import random_stopping, seeds
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.base import clone as sk_clone
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

_CONTAINERS = (dict, list, set, collections.deque)


def _digest(items: Any) -> str:
    try:
        shown = sorted(map(repr, items))
    except Exception as exc:  # an item whose repr fails: its type names it
        shown = [f"<{type(exc).__name__}>"]
    return hashlib.sha256(repr(shown).encode()).hexdigest()[:16]


def _record() -> list[str]:
    """The seed record's content: keys, and every field of each entry but the MAC of the released output."""
    rows = []
    for key, value in seeds._RECORD.items():
        if isinstance(value, tuple):  # (fingerprint, owner, output MAC, -, subtree flag)
            rows.append(repr((key, value[0], value[1], value[4])))
        else:  # a node's stretches: (start, length, fingerprint, owner, output MAC)
            rows.append(repr((key, [(a, n, fp, owner) for a, n, fp, owner, _ in value])))
    return sorted(rows)


def _state() -> dict[str, str]:
    """Digest of the keys of every registered memo table, of every module-level container of the package and of
    every memo-decorated function's results (a dict in its closure), and of the seed record."""
    out = {f"table {t.name} #{i}": _digest(t) for i, t in enumerate(registered_tables())}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, _CONTAINERS) and not attr.startswith("__") and value is not seeds._RECORD:
                out[f"{name}.{attr}"] = _digest(value.keys() if isinstance(value, dict) else value)
            elif callable(value) and hasattr(value, "cache_clear"):  # a memo: its results sit in its closure
                cells = [c.cell_contents for c in getattr(value, "__closure__", None) or ()
                         if isinstance(c.cell_contents, dict)]
                out[f"{name}.{attr} (memo)"] = _digest([_digest(c) for c in cells])
    out["seed record"] = _digest(_record())
    return out


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def _halfspace_search(grid: dict[str, Any], seed: int) -> None:
    # full batches (q = 1) under the RDP accountant: each candidate's calibration takes milliseconds
    g = np.random.default_rng(0)
    X = g.normal(size=(24, 3))
    X /= 2.0 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    y[:6] = -1
    base = SemiPrivateHalfspace(1.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                                unlabeled_label=-1)
    RandomStoppingSearchCV(base, grid, gamma=0.5, base_privacy=(2.0, 1e-9), unlabeled_label=-1, rng=seed).fit(X, y)


def _disjunction_search(grid: dict[str, Any], seed: int) -> None:
    # the factorised route: the exact exponential mechanism and exact Bernoulli(exp(-gamma)) coins.  Their samplers
    # were memoised by gamma, and so failed this case on the code before the registry; they are no longer memoised
    # (a gamma can be computed from private labels: test_memo_keys_are_public.py), and the case stays as a guard
    g = np.random.default_rng(0)
    X_public = g.integers(0, 2, size=(12, 6))
    X = g.integers(0, 2, size=(30, 6))
    y = np.where(g.random(30) < 0.5, 1, -1)
    RandomStoppingSearchCV(ComponentDisjunctionLearner(1.0, method="factorised"), grid, gamma=0.5,
                           base_privacy=(2.0, 0.0), rng=seed).fit(X, y, X_public=X_public)


class _Private(ClassifierMixin, BaseEstimator):
    """Honest and private (ignores its labels); not a release of the package, so it reads no public-rows record."""

    def __init__(self, c: int = 0) -> None:
        self.c = c

    def fit(self, X: Any, y: Any) -> _Private:
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.full(len(X), self.c % 2, dtype=np.int64)


def _public_rows_pipeline_search(grid: dict[str, Any], seed: int) -> None:
    # a step fitted on the public rows records (y, sentinel, itself) for the next step's check; a final step that
    # is not a release of the package never reads the record, so each run's fitted step would stay in it
    g = np.random.default_rng(0)
    X = g.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:8] = -1
    base = Pipeline([("pre", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)), ("clf", _Private())])
    RandomStoppingSearchCV(base, grid, gamma=0.5, base_privacy=(0.5, 0.0), unlabeled_label=-1, rng=seed).fit(X, y)


def _after(search: Any, grid: dict[str, Any], k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict, set]:
    """(state before, state after, the candidates that ran) of a search with K = k."""
    ran: set[str] = set()

    def clone(est: Any) -> Any:
        ran.add(repr(sorted((k, v) for k, v in est.get_params().items() if k in grid)))
        return sk_clone(est)

    monkeypatch.setattr(random_stopping, "sample_runs", lambda *a, **kw: k)
    monkeypatch.setattr(random_stopping, "clone", clone)
    seeds.forget_seeds()  # one seed for both searches (their record is compared); the record is checked elsewhere
    before = _state()
    search(grid, 5)
    return before, _state(), ran


@pytest.mark.parametrize(("search", "warm_up", "grid"), [
    (_halfspace_search, {"epsilon": [0.25]}, {"epsilon": [0.5, 1.0, 2.0]}),
    (_disjunction_search, {"epsilon": [0.25]}, {"epsilon": [0.5, 1.0, 2.0]}),
    (_public_rows_pipeline_search, {"clf__c": [9]}, {"clf__c": [0, 1, 2]}),
], ids=["halfspace-dpsgd", "disjunctions-exponential-mechanism", "public-rows-pipeline"])
def test_the_memo_state_after_a_search_does_not_depend_on_k(search, warm_up, grid, monkeypatch):
    monkeypatch.setattr(random_stopping, "sample_runs", lambda *a, **kw: 2)
    search(warm_up, 4)  # loads every module a run loads (other keys than the grid's: the warm-up hides nothing)
    one_before, one, ran_one = _after(search, grid, 1, monkeypatch)
    seven_before, seven, ran_seven = _after(search, grid, 7, monkeypatch)
    assert len(ran_one) == 1 and len(ran_seven) == 3  # K = 7 ran every candidate: their keys would differ
    assert _changed(one, seven) == []
    assert _changed(one_before, one) == ["seed record"]  # the search's own release: the same whatever K
    assert _changed(seven_before, seven) == ["seed record"]

"""After ``RandomStoppingSearchCV.fit`` nothing a process can read depends on the hidden number of runs K (LT19 / PS22:
the guarantee is for the output marginalised over K), beyond the memo tables (test_random_stopping_leaves_memo_state_
as_it_found_it.py): package globals built on first use, a nested search's public-rows entries, a losing run's mark in
a module's ``__warningregistry__``, the logging module's level caches, and the root logger's handlers (absl's
``basicConfig`` inside dp-accounting).  Each test forces K (``random_stopping.sample_runs`` replaced, as the other K
tests do) and compares what the process holds after a search with K = 1 against K large, on a base whose released
candidate is the same in both searches.  Deterministic (fixed seeds; no statistical test).  Each failed on the
code before the fixes it names."""

from __future__ import annotations

import logging
import sys
import types
import warnings
from typing import Any

import numpy as np
import pytest
from semiprivate.kernels import _memo, threads
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy import _release, random_stopping, seeds
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.base import clone as sk_clone
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


def _force_k(monkeypatch: pytest.MonkeyPatch, k: int | Any, grid_keys: Any = ()) -> set[str]:
    """Force K (an int, or a callable of no argument) and record the candidates that ran."""
    ran: set[str] = set()

    def clone(est: Any) -> Any:
        ran.add(repr(sorted((n, v) for n, v in est.get_params().items() if n in grid_keys)))
        return sk_clone(est)

    monkeypatch.setattr(random_stopping, "sample_runs", (lambda *a, **kw: k()) if callable(k) else (lambda *a, **kw: k))
    monkeypatch.setattr(random_stopping, "clone", clone)
    seeds.forget_seeds()
    return ran


def _halfspace_data() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(24, 3))
    X /= 2.0 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    y[:6] = -1
    return X, y


# --- 1. module state outside the registry: a lazily built module global (kernels.threads._BLAS_CONTROLLER) ---------

def _module_globals() -> dict[str, str]:
    """Every module-level value of the package that is not a module, class or function, by its type (a lazily built
    object shows as None -> its type), and the keys of every registered memo table."""
    out = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if attr.startswith("__") or isinstance(value, types.ModuleType | type) or callable(value):
                continue
            out[f"{name}.{attr}"] = type(value).__name__
    for t in _memo.registered_tables():
        out[f"table {t.name}"] = repr(sorted(map(repr, t)))
    return out


def _trainer_search(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], set[str], dict]:
    grid = {"trainer": ["dpsgd", "noisy_sgd"]}
    ran = _force_k(monkeypatch, k, grid)
    threads.blas_controller.cache_clear()  # as in a fresh process
    X, y = _halfspace_data()
    base = SemiPrivateHalfspace(1.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                                unlabeled_label=-1)
    s = RandomStoppingSearchCV(base, grid, gamma=0.5, base_privacy=(2.0, 1e-9), unlabeled_label=-1, rng=0).fit(X, y)
    return _module_globals(), ran, s.best_params_


def test_a_lazily_built_module_global_does_not_show_k(monkeypatch):
    """DP-SGD's per-step BLAS limit builds ``kernels.threads._BLAS_CONTROLLER`` (a module global set on first use,
    ``global`` rebinding: neither a registered table nor a container, so neither the registry test nor the static
    architecture rule sees it; ``kernels._exponential._OPENMP`` is built the same way).  Noisy SGD never builds it.
    With rng=0 the search releases the noisy-SGD candidate for K = 1 and K = 7 alike; only K = 7 also ran a
    (losing) DP-SGD candidate, and the package's module globals show it."""
    _trainer_search(2, monkeypatch)  # warm-up: loads every module a run loads
    one, ran_one, best_one = _trainer_search(1, monkeypatch)
    seven, ran_seven, best_seven = _trainer_search(7, monkeypatch)
    assert best_one == best_seven == {"trainer": "noisy_sgd"}  # the same release
    assert len(ran_one) == 1 and len(ran_seven) == 2
    shown = {n: (one.get(n), seven.get(n)) for n in set(one) | set(seven) if one.get(n) != seven.get(n)}
    assert shown == {}, f"module state after the search tells K = 1 from K = 7: {shown}"


# --- 2. the public-rows record: a FIFO of 32 that the runs push the caller's own entries out of -------------------

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


def _rows_data() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:8] = -1
    return X, y


def _nested_search_record(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], dict]:
    """The public-rows record after a random-stopping search (K = k) whose base is itself a search
    (``PrivateSearchCV``) over a public-rows Pipeline."""
    X, y = _rows_data()
    _release._SENTINEL_ROWS.clear()
    _force_k(monkeypatch, k)
    inner = PrivateSearchCV(Pipeline([("pre", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)),
                                      ("clf", _Private())]), {"clf__c": [0, 1]}, epsilon_select=0.5,
                            unlabeled_label=-1)
    s = RandomStoppingSearchCV(inner, {"epsilon_select": [0.25, 0.5]}, gamma=0.5, base_privacy=(1.0, 0.0),
                               unlabeled_label=-1, rng=0).fit(X, y)
    return list(_release._SENTINEL_ROWS), s.best_params_


def test_a_nested_search_leaves_no_run_in_the_public_rows_record(monkeypatch):
    """Before ``sentinel_rows_kept``, random stopping dropped the record's entries for its own training labels only.  A base
    that splits again (``PrivateSearchCV``: its own ``split.y_train`` per run, a new object each run) leaves one
    entry per run -- (that run's inner label vector, sentinel, that run's fitted ``PublicRowsFitted`` step): K
    entries, holding the losing runs' fitted steps, read by ``len(_release._SENTINEL_ROWS)``.  (With K >= 32 the
    deque(maxlen=32) also pushes out the caller's own entries, which turns off the public-rows check for them.)"""
    one, best_one = _nested_search_record(1, monkeypatch)
    seven, best_seven = _nested_search_record(7, monkeypatch)
    assert best_one == best_seven  # the same release
    assert len(one) == len(seven), f"the public-rows record holds {len(one)} entries after K = 1, {len(seven)} after K = 7"


# --- 3. threads: two searches in two threads used to overlap, and the first to return kept its runs' keys until the
# other ended; blocks now never overlap across threads (tests/theory/privacy/release/test_memo_registry.py:
# test_a_block_in_another_thread_waits_for_the_open_one_to_put_the_tables_back)

# --- 4. the warnings registry: a losing run's held-back warning still marks its module ------------------------------

def _warn_if_zero(c: int) -> None:
    if c == 0:
        warnings.warn("candidate zero ran", UserWarning, stacklevel=1)  # attributed to this module


class _Warns(_Private):
    """Private stand-in whose candidate c = 0 issues a warning (as a learner warns on some settings only)."""

    def fit(self, X: Any, y: Any) -> _Warns:
        _warn_if_zero(self.c)
        return super().fit(X, y)


def _registry_after(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, dict]:
    X, y = _rows_data()
    ran = _force_k(monkeypatch, k, {"c"})
    monkeypatch.delitem(globals(), "__warningregistry__", raising=False)
    s = RandomStoppingSearchCV(_Warns(), {"c": [0, 1, 2]}, gamma=0.5, base_privacy=(0.5, 0.0), rng=0).fit(
        X, np.abs(y))
    assert len(ran) == (1 if k == 1 else 3)
    return globals().get("__warningregistry__"), s.best_params_


def test_a_losing_runs_warning_leaves_no_trace_in_the_warnings_registry(monkeypatch):
    """``captured_runs`` holds warnings back with ``catch_warnings(record=True)``, but ``warnings.warn`` still
    creates/clears the ``__warningregistry__`` of the module the warning is attributed to (CPython's
    ``already_warned`` resets it to ``{'version': n}``).  With rng=0 the search releases candidate c = 2 for K = 1
    and K = 7; only K = 7 also ran the warning candidate c = 0 (a losing run, its warning dropped), and this
    module's registry shows it.  (A package learner's warning attributes to a package or scikit-learn module the
    same way; a data-dependent one, e.g. "predicts one class on every public row", then marks a losing run's
    model.)"""
    reg_one, best_one = _registry_after(1, monkeypatch)
    reg_seven, best_seven = _registry_after(7, monkeypatch)
    assert best_one == best_seven == {"c": 2}
    assert reg_one == reg_seven, f"__warningregistry__ after K = 1: {reg_one}, after K = 7: {reg_seven}"


# --- 5. the logging module's level caches: a memo miss inside a run clears every logger's cache -------------------

def _logger_cache_after(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict]:
    X, y = _halfspace_data()
    ran = _force_k(monkeypatch, k, {"epsilon"})
    app = logging.getLogger("semiprivate_review.app")
    app.isEnabledFor(logging.INFO)  # the application's logger has cached its level check
    base = SemiPrivateHalfspace(1.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                                unlabeled_label=-1)
    s = RandomStoppingSearchCV(base, {"epsilon": [0.5, 1.0, 2.0]}, gamma=0.5, base_privacy=(2.0, 1e-9),
                               unlabeled_label=-1, rng=0).fit(X, y)
    assert len(ran) == (1 if k == 1 else 3)
    return dict(app._cache), s.best_params_


def test_the_logging_caches_after_a_search_do_not_depend_on_k(monkeypatch):
    """The caller fitted the candidate epsilon = 2 before (its calibration stays in the memo tables: entries made
    before a search are kept).  A run of it is then a memo hit; a run of another candidate is a miss, whose
    calibration enters ``accounting._quiet_rdp_orders``: ``logging.getLogger("absl").setLevel`` twice, and
    ``Logger.setLevel`` clears the level cache of EVERY logger of the process (``Manager._clear_cache``).  With
    rng=0 the search releases epsilon = 2 for K = 1 and K = 7; an application logger's ``_cache`` is kept after
    K = 1 and emptied after K = 7."""
    X, y = _halfspace_data()
    SemiPrivateHalfspace(2.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                         unlabeled_label=-1).fit(X, y)
    cache_one, best_one = _logger_cache_after(1, monkeypatch)
    cache_seven, best_seven = _logger_cache_after(7, monkeypatch)
    assert best_one == best_seven == {"epsilon": 2.0}
    assert cache_one == cache_seven, f"an application logger's level cache after K = 1: {cache_one}, K = 7: {cache_seven}"


# --- 6. the root logger: absl's basicConfig() inside a run installs a handler on the search's capture stream -------

def _root_handlers_after(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], dict]:
    X, y = _halfspace_data()
    ran = _force_k(monkeypatch, k, {"batch_size"})
    monkeypatch.setattr(logging.root, "handlers", [])  # a plain script: no logging configured
    base = SemiPrivateHalfspace(1.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                                unlabeled_label=-1)
    s = RandomStoppingSearchCV(base, {"batch_size": [8, 64]}, gamma=0.5, base_privacy=(2.0, 1e-9),
                               unlabeled_label=-1, rng=0).fit(X, y)
    assert len(ran) == k if k == 1 else len(ran) == 2
    return list(logging.root.handlers), s.best_params_


def test_a_search_leaves_the_root_logger_as_it_found_it(monkeypatch):
    """DP-SGD with a sampling rate below 1 under the RDP accountant: dp-accounting logs through ``absl.logging``
    (fractional orders that fail to converge), and ``absl.logging.log`` calls ``logging.basicConfig()`` whenever the
    root logger has no handler -- even though ``accounting._quiet_rdp_orders`` raised the absl logger's level.  Inside
    ``captured_runs`` ``sys.stderr`` is the capture's ``_ToCurrent`` stream, so the root logger keeps, after the
    search, a StreamHandler writing into a dead capture buffer: every later root-logger message of the process is
    swallowed, and the handler exists only if a batch_size = 8 candidate ran (rng=0 releases batch_size = 64 for
    K = 1 and K = 7 alike)."""
    one, best_one = _root_handlers_after(1, monkeypatch)
    seven, best_seven = _root_handlers_after(7, monkeypatch)
    assert best_one == best_seven == {"batch_size": 64}
    streams = [type(getattr(h, "stream", None)).__name__ for h in seven]
    assert one == [] and seven == [], f"root logger handlers after K = 1: {one}, after K = 7: {seven} (streams {streams})"

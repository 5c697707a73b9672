"""After ``RandomStoppingSearchCV.fit`` nothing a process can read depends on the hidden number of runs K (LT19 / PS22:
the guarantee is for the output marginalised over K), nothing in: the memo tables, the package's module containers
and the seed record's content (section 14), package globals built on first use, a nested search's public-rows
entries, a losing run's mark in a module's ``__warningregistry__``, the logging module's level caches, the root
logger's handlers (absl's ``basicConfig`` inside dp-accounting), the warnings-filter version, lazily loaded modules,
the public-rows record under overlapping searches and concurrent application threads, and the memo key of a keyword
call.  Each test forces K
(``random_stopping.sample_runs`` replaced, as the other K tests do) and compares what the process holds after a search
with K = 1 against K large, on a base whose released candidate is the same in both searches.  Deterministic (fixed
seeds; no statistical test).  Each failed on the code before the fix it names."""

from __future__ import annotations

import collections
import hashlib
import logging
import sys
import types
import warnings
from typing import Any

import numpy as np
import pytest
from semiprivate.kernels import _memo, threads
from semiprivate.kernels._memo import registered_tables
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy import _release, random_stopping, seeds
from semiprivate.theory.privacy._release import Released
from semiprivate.theory.privacy.model_selection import PrivateSearchCV
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
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


def _halfspace_search(k: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _force_k(monkeypatch, k)
    X, y = _halfspace_data()
    base = SemiPrivateHalfspace(1.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                                unlabeled_label=-1)
    return RandomStoppingSearchCV(base, {"epochs": [1, 2]}, gamma=0.5, base_privacy=(2.0, 1e-9),
                                  unlabeled_label=-1, rng=0).fit(X, y).best_params_


# --- 7. the interpreter's warnings-filter version counts the runs ----------------------------------------------------

def _filters_version() -> int:
    """The interpreter's warnings-filter version as any module's ``__warningregistry__`` shows it: ``warn_explicit``
    stamps a registry with the current version (the probe's own catch_warnings/simplefilter add a constant)."""
    reg: dict[Any, Any] = {}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        warnings.warn_explicit("probe", UserWarning, "probe.py", 1, registry=reg)
    return int(reg["version"])


def _version_moves(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    before = _filters_version()
    best = _halfspace_search(k, monkeypatch)
    return _filters_version() - before, best


def test_the_warnings_filter_version_after_a_search_does_not_show_k(monkeypatch):
    """``RunCapture`` says the interpreter's state changes once per capture ("one warnings.catch_warnings (its filter
    version moves once)"), but every ``catch_warnings``/``simplefilter`` a run enters (scikit-learn's and the
    package's own, about 9 per halfspace fit) moves the interpreter's filter version too, and nothing can move it
    back.  Any ``__warningregistry__`` written after the search carries it: the same release, K = 1 vs K = 7,
    leaves a different version (15 vs 69 before the fix)."""
    _version_moves(2, monkeypatch)  # warm-up (first imports)
    one, best_one = _version_moves(1, monkeypatch)
    seven, best_seven = _version_moves(7, monkeypatch)
    assert best_one == best_seven  # the same release
    assert one == seven, f"the warnings-filter version moved by {one} after K = 1 and by {seven} after K = 7"


# --- 8. captured_runs reads every module's __dict__: a lazily loaded module is loaded (and a failing one aborts) ------

class _FailingLoader:
    """A module whose body fails (an optional dependency missing), loaded lazily: nothing runs it until an attribute
    of the module is read."""

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        raise ImportError("probe: an optional dependency is missing")


def test_a_search_does_not_load_lazily_imported_modules(monkeypatch):
    """``importlib.util.LazyLoader`` (what ``lazy_loader`` and scientific packages use for optional submodules) puts a
    ``_LazyModule`` in ``sys.modules`` whose body runs on the first attribute read -- ``__dict__`` included.
    ``captured_runs`` reads ``getattr(module, "__dict__", None)`` of every module before the runs, so every search
    loads every lazily imported module of the process, and one whose body raises makes random stopping itself
    raise (before any run), with an error that has nothing to do with the search."""
    import importlib.machinery
    import importlib.util
    import sys

    spec = importlib.machinery.ModuleSpec("_lazy_probe_module", importlib.util.LazyLoader(_FailingLoader()))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    monkeypatch.setitem(sys.modules, "_lazy_probe_module", mod)
    best = _halfspace_search(1, monkeypatch)
    assert best in ({"epochs": 1}, {"epochs": 2})
    assert type(sys.modules["_lazy_probe_module"]).__name__ == "_LazyModule", "the search loaded a lazy module"


# --- 9. two overlapping searches: the public-rows record is put back per block, not as the tables are -------------

def _nested_search(rng: int) -> Any:
    from semiprivate.theory.privacy.model_selection import PrivateSearchCV
    from semiprivate.theory.privacy.public_rows import PublicRowsFitted
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    inner = PrivateSearchCV(Pipeline([("pre", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)),
                                      ("clf", _Private())]), {"clf__c": [0, 1]}, epsilon_select=0.5,
                            unlabeled_label=-1)
    return RandomStoppingSearchCV(inner, {"epsilon_select": [0.25, 0.5]}, gamma=0.5, base_privacy=(1.0, 0.0),
                                  unlabeled_label=-1, rng=rng)


def _record_after_overlapping_searches(k: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    """Search A (this thread, K = k) and search B (another thread, K = 1): B opens its blocks while A's last run is
    about to start, and waits (in ``sample_runs``) until A has returned; then B runs and returns.  Returns the
    length of the public-rows record once both have returned, and A's release."""
    import threading

    from semiprivate.theory.privacy import _release
    from sklearn.base import clone as sk_clone

    X, y = _rows_data()
    _release._SENTINEL_ROWS.clear()
    seeds.forget_seeds()
    b_waiting, a_returned = threading.Event(), threading.Event()
    b_thread = threading.Thread(target=lambda: _nested_search(1).fit(X, y), daemon=True)
    a_clones = [0]

    def sample_runs(*args: Any, **kwargs: Any) -> int:
        if threading.current_thread() is b_thread:
            b_waiting.set()
            assert a_returned.wait(10)
            return 1
        return k

    def clone(est: Any) -> Any:
        if threading.current_thread() is not b_thread and type(est).__name__ == "PrivateSearchCV":
            a_clones[0] += 1
            if a_clones[0] == k:  # A's last run: B opens its search now
                b_thread.start()
                assert b_waiting.wait(10)
        return sk_clone(est)

    monkeypatch.setattr(random_stopping, "sample_runs", sample_runs)
    monkeypatch.setattr(random_stopping, "clone", clone)
    best = _nested_search(0).fit(X, y).best_params_
    a_returned.set()
    b_thread.join(10)
    assert not b_thread.is_alive()
    return len(_release._SENTINEL_ROWS), best


def test_overlapping_searches_leave_no_run_of_the_first_in_the_public_rows_record(monkeypatch):
    """``tables_kept`` puts back, at every block's end, the state saved when the FIRST open block began, so the
    tables hold none of A's runs once A has returned, whatever B does.  ``sentinel_rows_kept`` instead saves and
    restores per block: B's snapshot, taken while A was running, holds one entry per run A had made so far (the
    base makes its own split per run: test_random_stopping_leaves_no_trace_of_k.py's nested search), and B's
    restore puts them back after A has returned.  A releases the same candidate for K = 1 and K = 7; the record
    then holds 0 entries after K = 1 and 6 after K = 7 (A's losing runs' fitted steps)."""
    one, best_one = _record_after_overlapping_searches(1, monkeypatch)
    seven, best_seven = _record_after_overlapping_searches(7, monkeypatch)
    assert best_one == best_seven  # the same release
    assert one == seven, f"the public-rows record holds {one} entries after K = 1 and {seven} after K = 7"


# --- 10. _quiet_rdp_orders removes a root handler another thread configured meanwhile --------------------------------

def test_quiet_rdp_orders_keeps_a_root_handler_another_thread_configured(monkeypatch):
    """``accounting._quiet_rdp_orders`` (entered for every RDP evaluation: each calibration of a halfspace learner)
    removes, when the root logger had no handler at entry, EVERY root handler of type ``StreamHandler`` present at
    exit -- meant for the one absl's ``basicConfig()`` adds.  An application thread that configures logging
    (``logging.basicConfig(stream=...)``: a plain ``StreamHandler``) while a fit runs in another thread loses its
    configuration: its later messages go nowhere, and a second ``basicConfig`` would be needed.  (Run here with the
    application's call inside the block, in its own thread, as it would interleave.)"""
    import io
    import logging
    import threading

    from semiprivate.theory.privacy import accounting

    monkeypatch.setattr(logging.root, "handlers", [])  # a plain script: nothing configured yet
    buf = io.StringIO()
    with accounting._quiet_rdp_orders():  # a fit's calibration in progress
        app = threading.Thread(target=lambda: logging.basicConfig(stream=buf, level=logging.INFO, format="%(message)s"))
        app.start()
        app.join()
    logging.getLogger("semiprivate_test.app").warning("the application's message")
    assert "the application's message" in buf.getvalue(), (
        f"the application's root handler was removed: root handlers now {logging.root.handlers}")


# --- 11. (not a test) an application thread's log records during a search are held with the run then running and
# dropped with it if it loses: passing them through would show a base's own worker threads' records once per run
# (the trade-off is stated in captured_runs' docstring)

# --- 12. memo's key: a call with keywords and a call with the same tuple as positional arguments share an entry ------

def test_memo_tells_keyword_calls_from_positional_calls():
    """``memo`` keys a call by ``args``, or by ``(args, tuple(sorted(kwargs.items())))`` when there are keywords, with
    no marker between the two: ``f(x=1)`` and ``f((), (("x", 1),))`` have the same key, and the second call returns
    the first one's cached result.  (``functools.lru_cache`` puts a sentinel ``kwd_mark`` between them for this
    reason.)  No memoised function of the package takes such arguments today; a later one would get wrong values."""
    from semiprivate.kernels._memo import memo

    @memo(maxsize=4)
    def echo(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return args, kwargs

    assert echo(x=1) == ((), {"x": 1})
    assert echo((), (("x", 1),)) == (((), (("x", 1),)), {}), "a positional call got a keyword call's cached result"


# --- 13. a search's end drops another thread's public-rows entry: that thread's misconfigured Pipeline is not refused -

class _PublicMeanLearner(Released, BaseEstimator):
    """A cheap private-learner stand-in (as in test_a_sentinel_step_and_its_learner_agree.py): reads the rows marked
    by its sentinel as public, keeps their mean."""

    privacy_model_ = "labelled"
    _releases = frozenset({"privacy_"})
    _public = frozenset({"public_mean_"})

    def __init__(self, classes: Any = (0, 1), unlabeled_label: Any = None) -> None:
        self.classes = classes
        self.unlabeled_label = unlabeled_label

    def fit(self, X: Any, y: Any, X_public: Any = None) -> Any:
        public = np.asarray(y) == self.unlabeled_label if self.unlabeled_label is not None else np.zeros(len(y), bool)
        self.public_mean_ = np.asarray(X)[public].mean(axis=0) if public.any() else np.asarray(X_public).mean(axis=0)
        self.privacy_ = (0.0, 0.0)
        return self


class _Gate:
    def __init__(self) -> None:
        import threading

        self.inside, self.go = threading.Event(), threading.Event()


_GATE: list[_Gate] = []


class _WaitsInItsRun(_Private):
    """A search's base whose fit waits (inside the search's blocks) until it is let go."""

    def fit(self, X: Any, y: Any) -> _WaitsInItsRun:
        _GATE[0].inside.set()
        assert _GATE[0].go.wait(10)
        return super().fit(X, y)


class _LetTheSearchEnd(TransformerMixin, BaseEstimator):
    """A plain middle step of the application's Pipeline: meanwhile, the other thread's search ends."""

    def fit(self, X: Any, y: Any = None) -> _LetTheSearchEnd:
        _GATE[0].go.set()
        _GATE[1].thread.join(10)  # type: ignore[attr-defined]
        return self

    def transform(self, X: Any) -> Any:
        return X


def test_a_search_ending_in_another_thread_does_not_turn_off_the_public_rows_check(monkeypatch):
    """``sentinel_rows_kept`` puts the public-rows record back as the search found it, so it drops "entries another
    thread recorded meanwhile" (its docstring).  Such an entry is what refuses a misconfigured Pipeline: a
    ``PublicRowsFitted`` step that took the rows marked -1/7 for public rows, followed by a learner that reads them
    as private (test_a_sentinel_step_and_its_learner_agree.py).  Here the application's Pipeline fits in this thread
    while a search runs in another; the search ends between the Pipeline's steps, the application's entry goes
    with the search's, and the learner is not refused: its scaler's mean of private rows stays fitted.  (A
    per-search removal -- drop the entries the search's own runs recorded -- keeps the check, and also fixes
    test_overlapping_searches_leave_no_run_of_the_first_in_the_public_rows_record.)"""
    import threading

    from semiprivate.theory.privacy import _release
    from semiprivate.theory.privacy.public_rows import PublicRowsFitted
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    _release._SENTINEL_ROWS.clear()
    _force_k(monkeypatch, 1)
    Xs, ys = _rows_data()
    gate = _Gate()
    search = threading.Thread(target=lambda: RandomStoppingSearchCV(
        _WaitsInItsRun(), {"c": [0, 1]}, gamma=0.5, base_privacy=(0.5, 0.0), rng=0).fit(Xs, np.abs(ys)), daemon=True)
    gate.thread = search  # type: ignore[attr-defined]
    _GATE[:] = [gate, gate]
    search.start()
    assert gate.inside.wait(10)  # the search's blocks are open

    g = np.random.default_rng(0)
    X, Xpub = g.normal(size=(30, 3)), g.normal(size=(20, 3))
    Xall = np.vstack([X, Xpub])
    yall = np.concatenate([(X[:, 0] > 0).astype(int), np.full(len(Xpub), 7)])
    pipe = Pipeline([("sc", PublicRowsFitted(StandardScaler(), unlabeled_label=7)), ("sync", _LetTheSearchEnd()),
                     ("clf", _PublicMeanLearner())])
    with pytest.raises(ValueError, match="unlabeled_label=None, but a preprocessing step"):
        pipe.fit(Xall, yall, clf__X_public=Xpub)
    assert not search.is_alive()


def test_a_blocks_own_entries_never_push_the_callers_out_of_the_public_rows_record():
    """A full record (32 entries) drops the block's own oldest entry first: 40 runs that each leave an entry (a
    nested search's split) keep the caller's entry, and the block's end removes all of its own."""
    from semiprivate.theory.privacy import _release

    _release._SENTINEL_ROWS.clear()
    y_caller = np.zeros(3)
    _release.note_sentinel_rows(y_caller, -1, "the caller's step")
    with _release.sentinel_rows_kept():
        for i in range(40):
            _release.note_sentinel_rows(np.zeros(2), -1, f"run {i}'s step")
        assert len(_release._SENTINEL_ROWS) == 32
        assert any(entry[0] is y_caller for entry in _release._SENTINEL_ROWS)
    assert [entry[0] for entry in _release._SENTINEL_ROWS] == [y_caller]
    _release._SENTINEL_ROWS.clear()


# --- 14. the memo tables, the package's module containers and the seed record -------------------------------------
# The package's own learners, as the search's base, memoise by public parameters (the halfspace learners'
# calibrations and accountings): with candidates that differ in such a parameter, the keys left after the search
# would show which candidates ran -- one with K = 1, most of them with K = 7; and a public-rows step
# (``PublicRowsFitted``) records each run's fitted step for the next step's check, which a final step that is not one
# of the package's releases never consumes.  Checked with K forced to 1 and to 7 on two real learners and a
# public-rows Pipeline as the base: a digest of the keys of every registered memo table
# (:func:`semiprivate.kernels._memo.registered_tables`), of every module-level dict/list/set/deque of every loaded
# ``semiprivate.*`` module, of every memo-decorated function's results, and of the seed record's content (every field
# but the MAC of the released output, which is the release itself) is the same after both searches, and the same as
# before them.

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


def _dpsgd_halfspace_search(grid: dict[str, Any], seed: int) -> None:
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
    (_dpsgd_halfspace_search, {"epsilon": [0.25]}, {"epsilon": [0.5, 1.0, 2.0]}),
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

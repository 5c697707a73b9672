"""Every process-wide cache of the package is a registered memo table (:mod:`semiprivate.kernels._memo`), which
random stopping puts back after its runs (``test_random_stopping_leaves_no_trace_of_k.py``): a cache
outside the registry would keep the keys of the candidates that ran, so the hidden number of runs.

* Every module-level container (dict, list, set, deque, weak dictionaries) of every loaded ``semiprivate.*`` module
  that running the learners changes is a registered table, or is on :data:`NOT_MEMO_STATE` with its reason; every
  memo-decorated function keeps its results in a registered table.
* :func:`~semiprivate.kernels._memo.tables_kept` puts every table back exactly (keys, values, order), across nested
  blocks and blocks that overlap in two threads, and a lookup running in another thread during a restore never
  fails.

Deterministic (fixed seeds and data; the thread test asserts no error and the final content, not a timing)."""

from __future__ import annotations

import collections
import hashlib
import pickle
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest
from semiprivate import kernels
from semiprivate.kernels._memo import MemoTable, memo, memo_table, registered_tables, tables_kept
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.halfspaces import FullDimensionHalfspace, SemiPrivateHalfspace
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer

#: Module state the learners change that is not a memo (not pure: dropping an entry changes what a later call does),
#: with the reason it may stay outside the registry.
NOT_MEMO_STATE = {
    "semiprivate.theory.privacy.seeds._RECORD": "the seed record protects releases (it refuses one seed on two); "
    "after random stopping its content depends on the search's top streams only, not on K (checked by "
    "test_random_stopping_leaves_no_trace_of_k.py)",
    "semiprivate.theory.privacy._release._SENTINEL_ROWS": "the public-rows check's record (a step's sentinel, for the "
    "next step's check on the same y); random stopping drops the entries of its own training labels afterwards",
    "semiprivate.kernels._memo._TABLES": "the registry itself: it gains a table when a module that makes one is "
    "imported (or a memo is decorated), never per call",
}

_CONTAINERS = (dict, list, set, collections.deque, weakref.WeakKeyDictionary, weakref.WeakValueDictionary)


def _module_state() -> dict[str, tuple[int, str]]:
    out = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, _CONTAINERS) and not attr.startswith("__"):
                items = value.keys() if hasattr(value, "keys") else value
                try:
                    shown = sorted(map(repr, items))
                except Exception as exc:
                    shown = [f"<{type(exc).__name__}>"]
                out[f"{name}.{attr}"] = (id(value), hashlib.sha256(repr(shown).encode()).hexdigest())
    return out


def _run_learners(epsilon: float) -> None:
    """One fit of each learner family whose runs memoise (DP-SGD and Noisy SGD halfspaces, multinomial DP-GD, the
    exact exponential mechanism and Bernoulli coins, the discrete Laplace, the float kernel), and a search."""
    g = np.random.default_rng(0)
    X = g.normal(size=(24, 3))
    X /= 2.0 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    y[:6] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SemiPrivateHalfspace(epsilon, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                             unlabeled_label=-1).fit(X, y)
        FullDimensionHalfspace(epsilon, 1e-9, trainer="noisy_sgd", noisy_sgd_steps=5, classes=[0, 1],
                               unlabeled_label=-1).fit(X, y)
        SemiPrivateMultinomial(epsilon, 1e-5, classes=[0, 1], k=2).fit(X[6:], y[6:], X_public=X[:6])
        X_public, Xb = g.integers(0, 2, size=(12, 6)), g.integers(0, 2, size=(30, 6))
        ComponentDisjunctionLearner(epsilon, method="factorised").fit(Xb, np.where(g.random(30) < 0.5, 1, -1),
                                                                      X_public)
        GenericPrivateLearner(epsilon, concept_class=Thresholds(4)).fit(g.integers(0, 16, 20), g.integers(0, 2, 20))
        NoisyHistogramSanitizer(epsilon, domain_size=4).sanitize(np.array([0, 1, 1, 3]))
        kernels.exponential_mechanism(np.array([0, 3, 5]), epsilon, rng=np.random.default_rng(1))
        RandomStoppingSearchCV(GenericPrivateLearner(epsilon, concept_class=Thresholds(4)), {"epsilon": [epsilon]},
                               gamma=0.5, base_privacy=(epsilon, 0.0)).fit(g.integers(0, 16, 20), g.integers(0, 2, 20))


def test_every_module_state_the_learners_change_is_a_registered_table():
    _run_learners(1.0)  # loads every module the runs load
    before = _module_state()
    _run_learners(2.0)  # other public parameters: other memo keys
    after = _module_state()
    changed = sorted(k for k in after if after[k] != before.get(k))
    registered = {id(t) for t in registered_tables()}
    outside = [k for k in changed if after[k][0] not in registered and k not in NOT_MEMO_STATE]
    assert not outside, ("module-level state that the learners' runs change outside the memo registry (its keys would "
                         "show which candidates a random-stopping search ran): make it with "
                         f"semiprivate.kernels._memo.memo_table, or list it in NOT_MEMO_STATE with its reason: {outside}")
    # the check sees the tables it should (the registry keeps the runs' keys until a search puts them back)
    assert {"semiprivate.theory.learners.halfspaces._CALIBRATED", "semiprivate.theory.privacy.accounting."
            "_NOISY_SGD_EPSILONS", "semiprivate.theory.privacy.multinomial_dpgd._CALIBRATED_MEMO"} <= set(changed)


def test_every_memo_decorated_function_keeps_its_results_in_a_registered_table():
    registered = {id(t) for t in registered_tables()}
    found, outside = [], []
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if callable(value) and not isinstance(value, type) and hasattr(value, "cache_clear") \
                    and getattr(value, "__module__", None) == name:
                found.append(f"{name}.{attr}")
                cells = [c.cell_contents for c in getattr(value, "__closure__", None) or ()
                         if isinstance(c.cell_contents, dict)]
                if not cells or any(id(c) not in registered for c in cells):
                    outside.append(f"{name}.{attr}")
    assert "semiprivate.kernels._reference_noise.laplace_table" in found
    assert not outside, f"memo results outside the registry: {outside}"


def test_tables_kept_puts_every_table_back_as_it_was():
    a = memo_table("test.a", maxsize=3)
    b = memo_table("test.b", maxsize=2, when_full="keep")
    a.update({"x": 1, "y": [2]})
    kept_value = a["y"]
    with tables_kept():
        a.store("z", 3)
        a.store("w", 4)  # drops the oldest, "x"
        b.store("u", 5)
        with tables_kept():  # nested: its end, too, puts back what the outermost block found
            a.cache_clear()
        assert list(a) == ["x", "y"] and list(b) == []
        a.store("z", 3)
        late = memo_table("test.late")
        late.store("v", 6)
    assert list(a.items()) == [("x", 1), ("y", [2])] and a["y"] is kept_value  # keys, values, order
    assert dict(b) == {} and dict(late) == {}  # a table made during the block is emptied


def test_a_block_that_ends_puts_the_tables_back_while_another_threads_block_is_open():
    """Blocks overlap across threads without waiting (a base may run a nested search in a worker thread), and each
    block, when it ends, puts back the state saved when the first open block began: a search that returns leaves
    none of its entries, even while another search is still open (entries that other block made so far go too:
    a memo recomputes them).  With the restore only when the LAST block closed, the first search's entries stayed
    until the other search ended: K readable in the meantime."""
    t = memo_table("test.overlap")
    t.store("before", 0)
    opened, release = threading.Event(), threading.Event()

    def other() -> None:
        with tables_kept():
            t.store("other", 1)
            opened.set()
            release.wait(10)
            t.store("other, later", 3)

    worker = threading.Thread(target=other)
    worker.start()
    assert opened.wait(10)
    with tables_kept():
        t.store("mine", 2)
    assert set(t) == {"before"}  # "mine" is gone although the other block is still open
    release.set()
    worker.join(10)
    assert dict(t) == {"before": 0}


def test_a_restore_never_fails_a_concurrent_lookup():
    t = memo_table("test.concurrent", maxsize=8)
    for i in range(4):
        t.store(i, i * i)
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            k = 0
            while not stop.is_set():
                k = (k + 1) % 32
                assert t.lookup(k, lambda k=k: k * k) == k * k
        except BaseException as exc:  # noqa: BLE001  (any error fails the test)
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can: races show at once
    try:
        for th in threads:
            th.start()
        for _ in range(300):
            with tables_kept():
                for k in range(8, 20):
                    t.store(k, k * k)
    finally:
        stop.set()
        for th in threads:
            th.join(10)
        sys.setswitchinterval(interval)
    assert errors == []
    assert all(t[k] == k * k for k in t) and len(t) <= 8


class _EmptiedMidLookup:
    """A key that empties its table on its second hash: a restore in another thread at the worst moment of a lookup
    (between two steps of ``key in table`` and ``table[key]``)."""

    def __init__(self, table: MemoTable) -> None:
        self.table = table
        self.hashes = 0

    def __hash__(self) -> int:
        self.hashes += 1
        if self.hashes == 2:
            self.table.clear()
        return 7

    def __eq__(self, other: object) -> bool:
        return other is self


def test_a_table_emptied_in_the_middle_of_a_lookup_still_answers():
    t = memo_table("test.mid")
    key = _EmptiedMidLookup(t)
    t[key] = "kept"
    key.hashes = 0
    assert t.lookup(key, lambda: "computed") in ("kept", "computed")


def test_a_memo_table_checks_its_arguments_and_pickles_as_a_dict():
    with pytest.raises(ValueError, match=r"^name must be a non-empty str"):
        memo_table("")
    with pytest.raises(ValueError, match=r"^maxsize must be an int >= 1 or None, got 0"):
        memo_table("test.bad", maxsize=0)
    with pytest.raises(ValueError, match=r"^when_full must be one of"):
        memo_table("test.bad", when_full="clear")
    t = memo_table("test.pickle")
    t.store("k", 1)
    assert type(pickle.loads(pickle.dumps(t))) is dict and pickle.loads(pickle.dumps(t)) == {"k": 1}
    assert isinstance(t, MemoTable) and any(r is t for r in registered_tables())

    @memo(maxsize=2)
    def f(x: int) -> int:
        return x

    f(1)
    assert any(dict(r) == {(1,): 1} and r.name.endswith("f") for r in registered_tables())


def test_a_memo_table_is_an_identity_not_a_value():
    # a table holding arrays is found in the registry whatever the other tables hold (a dict's == compares values,
    # and an array's == has no truth value), and two tables with the same entries are two tables
    a = memo_table("test.identity.a")
    b = memo_table("test.identity.b")
    a.store("k", np.arange(3))
    b.store("k", np.arange(3))
    assert a in registered_tables() and b in registered_tables()
    assert a != b and not (a == b) and a == a and len({a, b}) == 2
    assert registered_tables().index(b) == [id(t) for t in registered_tables()].index(id(b))

"""Second review of random stopping's hidden K and of one fit's process state (rv2).  Each test is a reproducer
of a finding (see /work/notes/rv2.md); deterministic: fixed seeds, K forced by replacing
``random_stopping.sample_runs`` (as the other K tests do), no statistical test."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy import random_stopping, seeds
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV


def _force_k(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    monkeypatch.setattr(random_stopping, "sample_runs", lambda *a, **kw: k)
    seeds.forget_seeds()


def _halfspace_data() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(24, 3))
    X /= 2.0 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    y[:6] = -1
    return X, y


def _halfspace_search(k: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _force_k(monkeypatch, k)
    X, y = _halfspace_data()
    base = SemiPrivateHalfspace(1.0, 1e-9, k=2, epochs=1, batch_size=64, accountant="rdp", classes=[0, 1],
                                unlabeled_label=-1)
    return RandomStoppingSearchCV(base, {"epochs": [1, 2]}, gamma=0.5, base_privacy=(2.0, 1e-9),
                                  unlabeled_label=-1, rng=0).fit(X, y).best_params_


# --- 1. the interpreter's warnings-filter version counts the runs ----------------------------------------------------

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
    leaves a different version (15 vs 69 on the reviewed tree)."""
    _version_moves(2, monkeypatch)  # warm-up (first imports)
    one, best_one = _version_moves(1, monkeypatch)
    seven, best_seven = _version_moves(7, monkeypatch)
    assert best_one == best_seven  # the same release
    assert one == seven, f"the warnings-filter version moved by {one} after K = 1 and by {seven} after K = 7"


# --- 2. captured_runs reads every module's __dict__: a lazily loaded module is loaded (and a failing one aborts) ------

class _FailingLoader:
    """A module whose body fails (an optional dependency missing), loaded lazily: nothing runs it until an attribute
    of the module is read."""

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        raise ImportError("rv2 probe: an optional dependency is missing")


def test_a_search_does_not_load_lazily_imported_modules(monkeypatch):
    """``importlib.util.LazyLoader`` (what ``lazy_loader`` and scientific packages use for optional submodules) puts a
    ``_LazyModule`` in ``sys.modules`` whose body runs on the first attribute read -- ``__dict__`` included.
    ``captured_runs`` reads ``getattr(module, "__dict__", None)`` of every module before the runs, so every search
    loads every lazily imported module of the process, and one whose body raises makes random stopping itself
    raise (before any run), with an error that has nothing to do with the search."""
    import importlib.machinery
    import importlib.util
    import sys

    spec = importlib.machinery.ModuleSpec("_rv2_lazy_probe", importlib.util.LazyLoader(_FailingLoader()))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    monkeypatch.setitem(sys.modules, "_rv2_lazy_probe", mod)
    best = _halfspace_search(1, monkeypatch)
    assert best in ({"epochs": 1}, {"epochs": 2})
    assert type(sys.modules["_rv2_lazy_probe"]).__name__ == "_LazyModule", "the search loaded a lazy module"

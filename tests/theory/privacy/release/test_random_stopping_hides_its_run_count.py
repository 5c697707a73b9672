"""Random stopping's guarantee (PS22) holds with the number of runs K hidden: nothing a process can observe after
the search may depend on K, other than the released values.  Checked with K forced to 1 and to 7: the library's
memo counters (every ``functools.lru_cache`` in the loaded package), the seed record's size, the interpreter's
warning-filter version, and what a base writes through ``print``, a stream bound before the search, file
descriptor 2 and ``warnings`` (one run's worth, whatever K)."""

from __future__ import annotations

import collections
import functools
import os
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.privacy import random_stopping, seeds
from semiprivate.theory.privacy.random_stopping import RandomStoppingSearchCV
from sklearn.base import BaseEstimator, ClassifierMixin

_EARLY_SINK: list[Any] = []  # a stream bound before the search (as a logging library's sink is)


class _Chatty(ClassifierMixin, BaseEstimator):
    """Honest and private (ignores its labels); writes one line per fit and per predict on every channel."""

    def __init__(self, c: int = 0) -> None:
        self.c = c

    def fit(self, X: Any, y: Any) -> _Chatty:
        print("fit")
        _EARLY_SINK[0].write("early\n")
        os.write(2, b"fd\n")
        warnings.warn("a fit warning", UserWarning, stacklevel=1)
        self.classes_ = np.array([0, 1])
        self.privacy_ = (0.5, 0.0)
        return self

    def predict(self, X: Any) -> np.ndarray:
        print("predict")
        return np.zeros(len(X), dtype=np.int64)


def _data() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:8] = -1
    return X, y


def _counters() -> dict[str, int]:
    out = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, functools._lru_cache_wrapper):
                info = value.cache_info()
                out[f"{name}.{attr}"] = info.hits + info.misses
    return out


def _sizes() -> dict[str, int]:
    """The size of every module-level container of the package (a registry that grows per run counts runs)."""
    out = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, dict | list | set | collections.deque | collections.OrderedDict) and \
                    not attr.startswith("__"):
                out[f"{name}.{attr}"] = len(value)
    return out


def _filter_version() -> int:
    registry: dict[Any, Any] = {}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("default")
        warnings.warn_explicit("probe", UserWarning, "probe.py", 1, registry=registry)
    return int(registry["version"])


def _observe(k: int, seed: int, monkeypatch: Any, capfd: Any) -> dict[str, Any]:
    X, y = _data()
    monkeypatch.setattr(random_stopping, "sample_runs", lambda *a, **kw: k)
    seeds.forget_seeds()
    counters, sizes, version = _counters(), _sizes(), _filter_version()
    capfd.readouterr()
    _EARLY_SINK[:] = [sys.__stderr__]  # the interpreter's own stream on descriptor 2, bound before the search
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RandomStoppingSearchCV(_Chatty(), {"c": [0, 1]}, gamma=0.5, base_privacy=(0.5, 0.0), unlabeled_label=-1,
                               rng=seed).fit(X, y)
    out, err = capfd.readouterr()
    after, sizes_after = _counters(), _sizes()
    return {"counters": {k_: after[k_] - counters.get(k_, 0) for k_ in after},
            "sizes": {k_: sizes_after[k_] - sizes.get(k_, 0) for k_ in sizes_after},
            "record": len(seeds._RECORD), "version": _filter_version() - version,
            "fit": out.count("fit"), "predict": out.count("predict"), "early": err.count("early"),
            "fd": err.count("fd"), "warnings": sum("a fit warning" in str(w.message) for w in caught)}


@pytest.mark.filterwarnings("ignore:a fit warning")
def test_nothing_observable_counts_the_runs(monkeypatch, capfd):
    _observe(3, 4, monkeypatch, capfd)  # a first search fills what is filled once per process
    one = _observe(1, 5, monkeypatch, capfd)
    seven = _observe(7, 5, monkeypatch, capfd)
    assert one == seven
    assert (one["fit"], one["predict"], one["early"], one["fd"], one["warnings"]) == (1, 1, 1, 1, 1)


def test_the_selected_runs_descriptor_output_goes_back_to_its_own_descriptor(capfd):
    from semiprivate.theory.privacy._release import captured_runs

    with captured_runs() as capture:
        with capture.run() as kept:
            os.write(1, b"to one\n")
            os.write(2, b"to two\n")
        with capture.run():
            os.write(1, b"dropped\n")
    capfd.readouterr()
    kept.replay()
    out, err = capfd.readouterr()
    assert (out, err) == ("to one\n", "to two\n")

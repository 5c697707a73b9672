"""Shared set-up of the private-search tests: sklearn's digits with the first rows public (label -1),
and a halfspace learner that records what every fit saw."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from sklearn.datasets import load_digits


class Digits(NamedTuple):
    """sklearn's digits, rows ``[:n_public]`` relabelled -1 (public, unlabelled)."""

    X: np.ndarray
    y: np.ndarray
    n_public: int


@pytest.fixture
def digits() -> Digits:
    """A fresh copy for every test (tests may edit y)."""
    X, y = load_digits(return_X_y=True)
    y = y.copy()
    n_public = 600
    y[:n_public] = -1
    return Digits(X, y, n_public)


class _Recorder(SemiPrivateHalfspace):
    """SemiPrivateHalfspace that appends (X's shape, number of rows labelled -1) to ``seen`` on every fit."""

    seen: list[tuple[tuple[int, ...], int]] = []

    def fit(self, X: Any, y: Any, X_public: Any = None) -> Any:  # type: ignore[override]
        _Recorder.seen.append((np.shape(X), int(np.count_nonzero(np.asarray(y) == -1))))
        return super().fit(X, y, X_public=X_public)


@pytest.fixture
def recorder() -> type[_Recorder]:
    """The recording learner's class, its record emptied."""
    _Recorder.seen = []
    return _Recorder

"""A halfspace fit validates each input array once, at its public boundary (``fit``): X and y by
``validate_data``, X_public by one ``check_array``; the label rule does not validate y again."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest
import sklearn.utils.multiclass as sk_multiclass
import sklearn.utils.validation as sk_validation
from semiprivate.theory.learners import halfspaces
from semiprivate.theory.privacy.seeds import separate_seed_record


def _inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(0)
    X = g.normal(size=(60, 5))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(np.int64), X[:30] * 0.9


def _counting(monkeypatch: pytest.MonkeyPatch, X: np.ndarray, y: np.ndarray, P: np.ndarray) -> collections.Counter:
    """Count the validator calls on each input (recognised by shape and values)."""
    calls: collections.Counter = collections.Counter()

    def which(a: Any) -> str:
        try:
            A = np.asarray(a, dtype=float)
        except (TypeError, ValueError):
            return "other"
        for name, ref in (("X", X), ("y", y), ("X_public", P)):
            if A.shape == ref.shape and np.allclose(A, ref):
                return name
        return "other"

    for module, name in ((sk_validation, "check_array"), (sk_validation, "column_or_1d"),
                         (sk_multiclass, "check_array"), (halfspaces, "sk_check_array")):
        original = getattr(module, name)

        def counted(*args: Any, _f: Any = original, _n: str = name, **kwargs: Any) -> Any:
            calls[which(args[0])] += 1
            return _f(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return calls


def test_each_array_is_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    X, y, P = _inputs()
    calls = _counting(monkeypatch, X, y, P)
    with separate_seed_record():
        halfspaces.SemiPrivateHalfspace(k=2, epochs=1.0, classes=[0, 1], accountant="rdp").fit(X, y, X_public=P)
    assert calls["X"] == 1
    assert calls["X_public"] == 1
    # y: validate_data's column_or_1d, which runs its own check_array inside it (one validation)
    assert calls["y"] == 2


def test_continuous_labels_refused_without_a_second_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    X, _, P = _inputs()
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        halfspaces.SemiPrivateHalfspace(k=2, epochs=1.0, accountant="rdp").fit(X, X[:, 0] * 0.5, X_public=P)

"""SemiPrivateHalfspace refuses a malformed declared label set (nested, NaN, None) instead of flattening
or comparing it, and every bad ``X_public`` gets a message naming X_public."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace


@pytest.fixture(scope="module")
def data():  # noqa: ANN201
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.1
    return X, np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.parametrize(("classes", "match"), [
    ([[0, 1], [2, 3]], r"classes must be a flat \(1-d\) list"),
    ([0, 1, np.nan], "classes must not contain NaN"),
    ([0, None], "classes must not contain None"),
    ([[0, 1], [2]], "classes must be a flat list"),
])
def test_malformed_classes_are_refused(data, classes, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        SemiPrivateHalfspace(epsilon=1.0, k=2, classes=classes, random_state=0).fit(X, y, X_public=X)


@pytest.mark.parametrize("bad", [np.array([1.0, 2.0, 3.0, 4.0]), np.array([["a"] * 4] * 10), np.empty((0, 4)),
                                 [[1.0, 2.0], [3.0]], "abc", np.zeros((10, 4, 2)), np.full((10, 4), np.nan)],
                         ids=["1-d", "strings", "empty", "ragged", "str", "3-d", "nan"])
def test_every_bad_public_input_names_x_public(data, bad):
    X, y = data
    with pytest.raises(ValueError, match="X_public"):
        SemiPrivateHalfspace(epsilon=1.0, k=2, classes=[-1, 1], random_state=0).fit(X, y, X_public=bad)

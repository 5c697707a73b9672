"""After a run no generator stays on the object (a Generator parameter produced the coins: rewound or
re-spawned it replays them), a run that raises leaves no release behind, private values never appear in a
message, and extreme private rows raise no warning of their own."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import FullDimensionHalfspace, SemiPrivateHalfspace
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer


def test_a_generator_parameter_does_not_stay_on_the_fitted_object():
    g = np.random.default_rng()
    S = NoisyHistogramSanitizer(1.0, domain_size=8, rng=g)
    S.sanitize([1, 2, 2])
    assert S.rng is None  # the caller still holds g; the release does not


def test_a_run_that_raises_leaves_no_release():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    L = SemiPrivateHalfspace(1.0, k=2, epochs=1, classes=[0, 1, 2, 3], accountant="rdp", random_state=0).fit(X, y, X)
    assert hasattr(L, "privacy_")
    L.set_params(classes=None, k=5)
    with pytest.raises(ValueError, match="k must be"):
        L.fit(X, np.where(y == 1, 7, 0), X)
    assert not hasattr(L, "classes_") and not hasattr(L, "privacy_")


def test_an_out_of_domain_entry_is_refused_without_showing_any_value():
    msgs = []
    for X in ([3, 9, 11, 16], [4, 9, 11, 16]):
        with pytest.raises(ValueError) as e:
            NoisyHistogramSanitizer(1.0, domain_size=16).sanitize(X)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_an_extreme_private_row_raises_no_warning_of_its_own():
    X = np.array([[0.1, 0.2, 0.0], [0.3, -0.1, 0.2], [1e200, 1e200, 0.0], [-0.2, 0.1, 0.1]])
    y = np.array([0, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L = FullDimensionHalfspace(1.0, 1e-5, epochs=1, batch_size=4, classes=[0, 1], row_norm="clip", accountant="rdp",
                                  random_state=0).fit(X, y)
    assert np.all(np.isfinite(L.coef_))

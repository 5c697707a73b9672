"""PublicStandardizer: statistics of the public rows only, the documented map, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy.public_preprocessing import PublicStandardizer
from sklearn.base import clone


def test_map_is_centre_scale_then_median_row_norm() -> None:
    g = np.random.default_rng(0)
    P = g.normal(3.0, 2.0, size=(50, 4))
    P[:, 2] = 7.0  # constant on the public rows: keeps scale 1
    s = PublicStandardizer().fit(P)
    np.testing.assert_allclose(s.mean_, P.mean(axis=0))
    assert s.scale_[2] == 1.0
    np.testing.assert_allclose(s.scale_[[0, 1, 3]], P[:, [0, 1, 3]].std(axis=0))
    Zp = s.transform(P)
    assert np.median(np.linalg.norm(Zp, axis=1)) == pytest.approx(1.0)
    X = g.normal(size=(3, 4))
    np.testing.assert_allclose(s.transform(X), (X - s.mean_) / s.scale_ / s.row_scale_)


def test_options_turn_parts_off() -> None:
    P = np.random.default_rng(1).normal(size=(20, 3)) * 5
    s = PublicStandardizer(with_std=False, row_scale=False).fit(P)
    np.testing.assert_array_equal(s.scale_, np.ones(3))
    assert s.row_scale_ == 1.0
    assert clone(s).get_params() == {"with_std": False, "row_scale": False}


def test_bad_inputs() -> None:
    with pytest.raises(TypeError, match="with_std"):
        PublicStandardizer(with_std="yes").fit(np.ones((3, 2)))  # type: ignore[arg-type]
    s = PublicStandardizer().fit(np.random.default_rng(0).normal(size=(5, 2)))
    with pytest.raises(ValueError, match="2 columns"):
        s.transform(np.ones((2, 3)))

"""A finite private entry that a map fitted on public rows overflows changes neither the exceptions nor the
warnings of a fit: it is clipped to a public bound (``bounded_features``), so no channel exists on one neighbour
only.  pytest runs with warnings as errors, so any RuntimeWarning fails these tests."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.privacy.public_preprocessing import FEATURE_BOUND, PublicStandardizer, bounded_features
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from semiprivate.theory.privacy.seeds import seed_reuse_allowed
from sklearn.preprocessing import StandardScaler


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 5))
    y = (X[:, 0] > 0).astype(int)
    public = rng.normal(scale=0.01, size=(60, 5))  # a small public spread: the standardisation magnifies 100x
    neighbour = X.copy()
    neighbour[0, 1] = 1e308  # one private row replaced by a finite row
    return X, y, public, neighbour


def test_the_public_standardisation_bounds_an_overflowing_private_row() -> None:
    X, _, public, neighbour = _data()
    Z = PublicStandardizer().fit(public).transform(neighbour)
    assert np.all(np.isfinite(Z)) and Z[0, 1] == FEATURE_BOUND
    assert np.array_equal(Z[1:], PublicStandardizer().fit(public).transform(X)[1:])  # other rows untouched


def test_a_public_rows_scaler_bounds_an_overflowing_private_row() -> None:
    _, _, public, neighbour = _data()
    X = np.vstack([public, neighbour])
    y = np.concatenate([np.full(len(public), -1), np.zeros(len(neighbour), dtype=int)])
    Z = PublicRowsFitted(StandardScaler(), unlabeled_label=-1).fit(X, y).transform(X)
    assert np.all(np.isfinite(Z)) and Z[len(public), 1] == FEATURE_BOUND


def test_bounded_features_leaves_what_is_not_a_float_array() -> None:
    ints = np.array([1, 2])
    assert bounded_features(ints) is ints and bounded_features([1e300]) == [1e300]
    assert bounded_features(np.array([-np.inf, 0.5, np.inf])).tolist() == [-FEATURE_BOUND, 0.5, FEATURE_BOUND]
    narrow = bounded_features(np.array([-np.inf, 0.5, np.inf], dtype=np.float32))  # no overflowing cast
    assert narrow.dtype == np.float32 and np.all(np.isfinite(narrow)) and narrow[1] == np.float32(0.5)


def test_the_multinomial_learner_fits_both_neighbours_the_same_way() -> None:
    X, y, public, neighbour = _data()
    with seed_reuse_allowed():  # the same seed on both neighbours, to compare the two fits
        for projection in ("pca", "none", "random"):
            fits = [SemiPrivateMultinomial(1.0, 1e-5, classes=[0, 1], k=2, projection=projection, random_state=0)
                    .fit(data, y, X_public=public) for data in (X, neighbour)]
            assert all(np.all(np.isfinite(f.coef_)) for f in fits)
            assert fits[0].privacy_ == fits[1].privacy_
        # no public rows: the raw private rows are bounded the same way (an entry of 1e155 squared overflows)
        wide = X.copy()
        wide[0, 1] = 1e155
        f = SemiPrivateMultinomial(1.0, 1e-5, classes=[0, 1], k=2, projection="none", random_state=0).fit(wide, y)
        assert np.all(np.isfinite(f.coef_))

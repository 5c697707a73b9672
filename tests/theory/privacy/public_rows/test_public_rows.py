"""Public rows in X marked by a sentinel label (semiprivate.theory.privacy.public_rows): Pipelines fit
their transformers on the public rows only and apply them to every row; GridSearchCV with LabelledSplit
never slices or scores the public rows (the shapes that reach fit are recorded)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.privacy.public_rows import LabelledSplit, PublicRowsFitted, public_mask
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

M_PUBLIC = 600
#: The learners here run under the RDP accountant: these tests are about which rows reach each fit, not the
#: calibration (the PLD default calibrates each new training size in seconds; RDP in a fraction of that).  The
#: calibrations themselves are tested in tests/theory/privacy/accounting.
ACCOUNTANT = "rdp"


def _digits():
    X, y = load_digits(return_X_y=True)
    y = y.copy()
    y[:M_PUBLIC] = -1  # the first 600 rows: public, unlabelled
    return X, y


class _Recorder(SemiPrivateHalfspace):
    """The learner, recording what reaches its fit (shape of X, number of public rows, their mean)."""

    seen: list[tuple[tuple[int, ...], int, np.ndarray | None, int]] = []

    def fit(self, X, y, X_public=None):  # type: ignore[override]
        pub = np.asarray(y) == -1
        mean = np.asarray(X)[pub].mean(axis=0) if pub.any() else None
        _Recorder.seen.append((np.shape(X), int(pub.sum()), mean, 0 if X_public is None else len(X_public)))
        return super().fit(X, y, X_public=X_public)


def _pipe(**kw):
    return Pipeline([("scale", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)), ("norm", Normalizer()),
                     ("clf", _Recorder(2.0, k=8, epochs=1, accountant=ACCOUNTANT, classes=range(10), unlabeled_label=-1, **kw))])


@pytest.mark.slow
def test_pipeline_fits_the_scaler_on_public_rows_only_and_applies_it_to_all():
    X, y = _digits()
    _Recorder.seen = []
    pipe = _pipe().fit(X, y)
    scaler = pipe.named_steps["scale"].transformer_
    assert np.allclose(scaler.mean_, X[:M_PUBLIC].mean(axis=0)) and not np.allclose(scaler.mean_, X.mean(axis=0))
    assert pipe.named_steps["scale"].n_public_ == M_PUBLIC
    ((shape, n_pub, pub_mean, _),) = _Recorder.seen
    assert shape == X.shape and n_pub == M_PUBLIC
    expected = Normalizer().transform(scaler.transform(X[:M_PUBLIC])).mean(axis=0)
    assert np.allclose(pub_mean, expected)  # the public rows went through both transformers
    clf = pipe.named_steps["clf"]
    assert clf.pca_.components.shape == (64, 8) and clf.coef_.shape == (10, 64)
    assert clf.privacy_[0] <= 2.0 and clf.classes_.tolist() == list(range(10))
    assert 0.5 < pipe.score(X, y) <= 1.0  # labelled rows only (public rows left out of the score)


@pytest.mark.slow
def test_gridsearch_with_labelled_split_gives_every_fit_all_public_rows():
    X, y = _digits()
    n_lab = X.shape[0] - M_PUBLIC
    _Recorder.seen = []
    gs = GridSearchCV(_pipe(), {"clf__k": [4, 8]}, cv=LabelledSplit(KFold(3), unlabeled_label=-1)).fit(X, y)
    fold_sizes = sorted({s[0][0] - M_PUBLIC for s in _Recorder.seen[:-1]})
    assert len(_Recorder.seen) == 2 * 3 + 1  # 2 candidates x 3 folds + the refit
    assert all(s[1] == M_PUBLIC for s in _Recorder.seen)  # every fit: all public rows
    assert set(fold_sizes) <= {n_lab - n_lab // 3, n_lab - n_lab // 3 - 1} and _Recorder.seen[-1][0] == X.shape
    # test folds hold labelled rows only
    for tr, te in LabelledSplit(KFold(3), unlabeled_label=-1).split(X, y):
        assert not np.any(y[te] == -1) and np.count_nonzero(y[tr] == -1) == M_PUBLIC
    assert gs.best_params_["clf__k"] in (4, 8)


@pytest.mark.slow
def test_plain_fit_parameter_is_sliced_by_cross_validation_but_sentinel_rows_are_not():
    """Why the sentinel convention: public data as a fit parameter of X's length is cut into folds."""
    X, y = _digits()
    Xl, yl = X[M_PUBLIC:M_PUBLIC + 600], y[M_PUBLIC:M_PUBLIC + 600]
    Xn = Normalizer().fit_transform(X)
    _Recorder.seen = []
    est = _Recorder(2.0, k=8, epochs=1, accountant=ACCOUNTANT, classes=range(10))  # rng=None: each fold's fit its own coins
    cross_val_score(est, Normalizer().fit_transform(Xl), yl, cv=KFold(3), params={"X_public": Xn[:600]})
    assert [s[3] for s in _Recorder.seen] == [400, 400, 400]  # X_public (600 rows) was sliced as X was
    _Recorder.seen = []
    est = _Recorder(2.0, k=8, epochs=1, accountant=ACCOUNTANT, classes=range(10), unlabeled_label=-1)
    cross_val_score(est, Xn, y, cv=LabelledSplit(KFold(3), unlabeled_label=-1))
    assert [s[1] for s in _Recorder.seen] == [M_PUBLIC] * 3


@pytest.mark.slow
def test_learner_takes_sentinel_rows_and_x_public_together_and_refuses_no_labelled_row():
    X, y = _digits()
    Xn = Normalizer().fit_transform(X)
    both = SemiPrivateHalfspace(2.0, k=8, epochs=1, accountant=ACCOUNTANT, classes=range(10), unlabeled_label=-1, random_state=0)
    both.fit(Xn[300:], y[300:], X_public=Xn[:300])
    one = SemiPrivateHalfspace(2.0, k=8, epochs=1, accountant=ACCOUNTANT, classes=range(10), unlabeled_label=-1, random_state=1).fit(Xn, y)
    assert np.allclose(both.pca_.components, one.pca_.components, atol=1e-8)  # same public set, other order
    with pytest.raises(ValueError, match="no labelled row"):
        SemiPrivateHalfspace(2.0, k=8, classes=range(10), unlabeled_label=-1).fit(Xn[:M_PUBLIC], y[:M_PUBLIC])
    with pytest.raises(ValueError, match="no public row"):
        PublicRowsFitted(StandardScaler(), unlabeled_label=-1).fit(X[M_PUBLIC:], y[M_PUBLIC:])
    with pytest.raises(ValueError, match="needs y"):
        PublicRowsFitted(StandardScaler(), unlabeled_label=-1).fit(X)
    with pytest.raises(ValueError, match="unlabeled_label"):  # no default sentinel (-1 is a class under +-1)
        PublicRowsFitted(StandardScaler()).fit(X, y)
    assert public_mask([1, 2], None).tolist() == [False, False]

"""A map fitted on public rows, applied to private rows, emits nothing that depends on a private value.

``SemiPrivatePipeline`` and ``PublicRowsFitted`` share ``public_rows.map_rows``: a finite private entry that the
public map sends to infinity is bounded (no warning, no exception), a row the map refuses becomes the zero row
(its message, which may show the value, never surfaces), and an encoder that refuses unknown categories by design
(``handle_unknown="error"`` / ``"warn"``) is refused before any row is read, the same on every dataset.
Deterministic: each test compares a dataset with a neighbour that differs in one private entry (no statistics).
``filterwarnings = error`` makes any warning a failure.
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.learners.pipeline import SemiPrivatePipeline
from semiprivate.theory.privacy.public_preprocessing import FEATURE_BOUND
from semiprivate.theory.privacy.public_rows import PublicRowsFitted, map_rows
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer, OneHotEncoder, OrdinalEncoder, StandardScaler

_r = np.random.default_rng(0)
TINY_P = _r.normal(0.0, 1e-150, size=(40, 3))
TINY_X = _r.normal(0.0, 1e-150, size=(30, 3))
Y = (TINY_X[:, 0] > 0).astype(int)


def _neighbour(X, value, where=(0, 0)):
    Xp = X.copy()
    Xp[where] = value
    return Xp


def _halfspace():
    # 30 rows, full batches (q = 1) under the RDP accountant: a calibration of milliseconds (PLD's takes seconds)
    return SemiPrivateHalfspace(1.0, k=2, classes=[0, 1], row_norm="clip", accountant="rdp")


@pytest.mark.parametrize("steps", [
    lambda: [("s", StandardScaler()), ("c", _halfspace())],
    lambda: [("s", StandardScaler()), ("n", Normalizer()), ("c", _halfspace())],
    lambda: [("s", StandardScaler()), ("c", SemiPrivateMultinomial(1.0, 1e-5, classes=[0, 1], k=2))],
], ids=["scale", "scale+normalize", "scale+multinomial"])
def test_a_finite_private_entry_the_public_map_overflows_is_bounded_silently(steps):
    for X in (TINY_X, _neighbour(TINY_X, 1e200)):
        pipe = SemiPrivatePipeline(steps()).fit(X, Y, X_public=TINY_P)
        assert np.all(np.isfinite(pipe.steps[-1][1].coef_))


def test_a_map_that_diverges_or_is_undefined_on_a_private_entry_gives_a_finite_row():
    P = _r.uniform(1.0, 2.0, size=(40, 2))
    X = _r.uniform(1.0, 2.0, size=(30, 2))
    y = (X[:, 0] > 1.5).astype(int)
    for value in (0.0, -1.0):  # log(0) = -inf (divide by zero), log(-1) = NaN (invalid)
        pipe = SemiPrivatePipeline([("log", FunctionTransformer(np.log)), ("s", StandardScaler()),
                                    ("c", _halfspace())])
        pipe.fit(_neighbour(X, value), y, X_public=P)
        assert np.all(np.isfinite(pipe.steps[-1][1].coef_))
    out = map_rows(FunctionTransformer(np.log).fit(P), np.array([[0.0, 1.0], [-1.0, 1.0], [np.e, 1.0]]))
    assert out.tolist() == [[-FEATURE_BOUND, 0.0], [0.0, 0.0], [1.0, 0.0]]  # bounded; the NaN row is the zero row


@pytest.mark.parametrize("encoder", [OneHotEncoder(sparse_output=False), OrdinalEncoder(),
                                     OneHotEncoder(sparse_output=False, handle_unknown="warn")],
                         ids=["onehot-error", "ordinal-error", "onehot-warn"])
def test_an_encoder_that_refuses_unknown_categories_is_refused_before_reading_any_row(encoder):
    P = _r.integers(0, 3, size=(40, 2)).astype(float)
    X = _r.integers(0, 3, size=(30, 2)).astype(float)
    y = (X[:, 0] > 0).astype(int)
    messages = set()
    for XX in (X, _neighbour(X, 987654.0, (0, 1))):
        with pytest.raises(ValueError, match=r"handle_unknown=.*use handle_unknown='ignore'") as info:
            SemiPrivatePipeline([("e", encoder), ("s", StandardScaler()), ("c", _halfspace())]).fit(XX, y, X_public=P)
        messages.add(str(info.value))
        Xs = np.vstack([P, XX])
        ys = np.concatenate([np.full(len(P), -1), y])
        step = PublicRowsFitted(encoder, unlabeled_label=-1)
        with pytest.raises(ValueError, match=r"transformer: handle_unknown=") as info:
            step.fit(Xs, ys)
        messages.add(str(info.value))
    assert len(messages) == 2  # one message per route, the same on D and on D'
    assert not any("987654" in m for m in messages)


def test_an_encoder_that_ignores_unknown_categories_fits_both_neighbours():
    P = _r.integers(0, 3, size=(40, 2)).astype(float)
    X = _r.integers(0, 3, size=(30, 2)).astype(float)
    y = (X[:, 0] > 0).astype(int)
    for XX in (X, _neighbour(X, 987654.0, (0, 1))):
        SemiPrivatePipeline([("e", OneHotEncoder(sparse_output=False, handle_unknown="ignore")),
                             ("s", StandardScaler()), ("c", _halfspace())]).fit(XX, y, X_public=P)


def _picky(A):
    A = np.asarray(A, dtype=float)
    if np.any(A > 1000):
        raise ValueError(f"value {A.max()!r} is out of range")  # a user transformer that names the value
    return A


def test_a_private_row_the_map_refuses_becomes_the_zero_row_and_its_message_never_surfaces():
    P = _r.uniform(0.0, 1.0, size=(40, 2))
    X = _r.uniform(0.0, 1.0, size=(30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    fitted = FunctionTransformer(_picky).fit(P)
    Xp = _neighbour(X, 987654.0)
    out = map_rows(fitted, Xp)
    assert out[0].tolist() == [0.0, 0.0] and np.array_equal(out[1:], X[1:])
    SemiPrivatePipeline([("f", FunctionTransformer(_picky)), ("s", StandardScaler()),
                         ("c", _halfspace())]).fit(Xp, y, X_public=P)
    Xs = np.vstack([P, Xp])
    ys = np.concatenate([np.full(len(P), -1), y])
    Pipeline([("f", PublicRowsFitted(FunctionTransformer(_picky), unlabeled_label=-1)),
              ("s", PublicRowsFitted(StandardScaler(), unlabeled_label=-1)),
              ("c", SemiPrivateHalfspace(1.0, k=2, classes=[0, 1], row_norm="clip", accountant="rdp",
                                          unlabeled_label=-1))]).fit(Xs, ys)


def test_a_map_that_refuses_every_row_gives_the_public_shape_or_a_message_without_values():
    fitted = FunctionTransformer(_picky).fit(np.zeros((3, 2)))
    big = np.full((2, 2), 5000.0)
    assert map_rows(fitted, big, like=np.ones((3, 2))).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(ValueError, match="failed on every row") as info:
        map_rows(fitted, big)
    assert "5000" not in str(info.value) and info.value.__cause__ is None

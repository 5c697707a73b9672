"""semiprivate.theory.learners.halfspaces (HPSY Thm 3 / PILLAR Alg 1 estimators). The suite never ran
``NonPrivateHalfspace(projection="random")``, a declared label set larger than the labels of y, a PCAResult with
exactly k components, float32 / string / object input, rows on the unit-ball tolerance, or a tie ``<A w, x> = 0``;
it did not look at ``budget_`` beyond "tasks"/"scheme", at ``pca_``, at the exact error messages, nor at the
settings the trainers ran with (clip, loss, margin, radius, steps, PILLAR Alg 2's repeats and hold-out). Spies wrap
the real trainers and check what ran (their results, or the keyword arguments where the result does not show them).
Everything is deterministic (fixed seeds); the one statistical check states its false-failure rate.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from semiprivate import kernels
from semiprivate.theory.learners import halfspaces as hs
from semiprivate.theory.learners.halfspaces import (
    FullDimensionHalfspace,
    NonPrivateHalfspace,
    RandomProjectionHalfspace,
    SemiPrivateHalfspace,
)
from semiprivate.theory.privacy.seeds import separate_seed_record
from sklearn.exceptions import NotFittedError

# these tests check the mechanics (settings, shapes, messages); most fit without classes=, where the label set
# is read from y and privacy_ is (inf, 0) with a PrivacyWarning (that path is tested in tests/theory/learners)
# they test no calibration: their DP-SGD fits use the RDP accountant with full batches (q = 1), whose calibration
# takes milliseconds (a PLD calibration, or any at q < 1, takes seconds); the default accountant's calibration and
# accounting are tested in test_estimators.py and tests/theory/privacy; the noise each fit calibrates is shared with
# the earlier such tests (conftest.py)
pytestmark = [pytest.mark.filterwarnings("ignore::semiprivate.theory.privacy.public_rows.PrivacyWarning"),
              pytest.mark.usefixtures("calibrations_of_earlier_tests")]

D = 6


def _data(n: int = 60, d: int = D, seed: int = 0, low: float = 0.2, high: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """n rows in the unit ball (norms uniform in [low, high]), labels -1/+1 of a fixed halfspace."""
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, d))
    X *= (g.uniform(low, high, size=n) / np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.linspace(1.0, -0.5, d) > 0, 1, -1)
    return X, y


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[tuple[Any, ...], dict[str, Any], Any]]:
    """Wrap the trainer ``hs.<name>``: each call's (args, kwargs, result) is recorded, the real trainer runs."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any], Any]] = []
    real = getattr(hs, name)

    def spy(*a: Any, **kw: Any) -> Any:
        r = real(*a, **kw)
        calls.append((a, kw, r))
        return r

    monkeypatch.setattr(hs, name, spy)
    return calls


def _identity_pca(d: int) -> kernels.PCAResult:
    return kernels.PCAResult(components=np.eye(d), eigenvalues=np.ones(d), mean=np.zeros(d),
                             explained_variance_ratio=np.full(d, 1.0 / d), n_samples=10, total_variance=float(d),
                             method="covariance", backend="numpy")


# ---------------------------------------------------------------------------------------------- labels


def test_declared_classes_need_two_distinct_labels() -> None:
    """``classes`` with one distinct label is refused, naming ``classes`` (not a later, unrelated error)."""
    X, y = _data()
    with pytest.raises(ValueError, match=r"^classes must list at least 2 distinct labels, got \[1, 1\]$"):
        FullDimensionHalfspace(epochs=1, classes=[1, 1], random_state=0, accountant="rdp").fit(X, y)


@pytest.mark.slow
def test_declared_classes_may_exceed_the_labels_of_y() -> None:
    """A declared (public) label set larger than y's labels is used as is: one task per declared class."""
    X, y = _data()
    clf = FullDimensionHalfspace(4.0, epochs=1, classes=[2, -1, 1], random_state=0, accountant="rdp").fit(X, y)
    assert clf.classes_.tolist() == [-1, 1, 2]
    assert clf.budget_["tasks"] == 3 and clf.budget_["scheme"] == "one-vs-rest"
    assert clf.coef_.shape == (3, D) and set(clf.predict(X)) <= {-1, 1, 2}


def test_labels_outside_the_declared_set_are_refused_without_listing_them() -> None:
    X, _ = _data(n=70)
    y = np.arange(70) % 10  # labels 0..9; 2..9 are outside [0, 1]
    msg = "y contains labels outside the declared classes [0, 1]; pass every possible label in classes="
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        FullDimensionHalfspace(epochs=1, classes=[0, 1], random_state=0, accountant="rdp").fit(X, y)


# ---------------------------------------------------------------------------------------------- rows


def test_row_outside_the_ball_is_refused_without_its_index_or_norm() -> None:
    """One row of norm 1.5 (inside the ball of radius 2): rejected; the message names X, not the private row."""
    X, y = _data()
    X[3] = 0.0
    X[3, 0] = 1.5
    msg = ("X rows must lie in the unit ball (some row has norm > 1); normalise the rows (e.g. "
           "semiprivate.theory.halfspace_data.normalize_rows or sklearn's Normalizer) or pass row_norm='clip'")
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        FullDimensionHalfspace(epochs=1, random_state=0, accountant="rdp").fit(X, y)


@pytest.mark.slow
def test_unit_ball_tolerance_is_inclusive() -> None:
    """A row of norm exactly 1 + 1e-9 (the documented tolerance) is accepted."""
    X, y = _data()
    X[5] = 0.0
    X[5, 2] = 1.0 + 1e-9
    assert np.linalg.norm(X[5]) == 1.0 + 1e-9
    clf = FullDimensionHalfspace(epochs=1, random_state=0, accountant="rdp").fit(X, y)
    assert np.all(np.isfinite(clf.coef_))


@pytest.mark.slow
def test_clip_leaves_rows_inside_the_ball_unchanged() -> None:
    """row_norm='clip' maps x to x / max(1, ||x||): on rows inside the ball it is the identity (same model,
    bit for bit); rows outside (norm 1.5) are put on the sphere (same model as normalised rows).  Logistic loss
    and a non-binding clip, so the iterate depends on the row scale."""
    X, y = _data()
    kw: dict[str, Any] = dict(epochs=2, loss="logistic", clip=50.0, random_state=3)
    a = FullDimensionHalfspace(row_norm="clip", **kw, accountant="rdp").fit(X, y)
    b = FullDimensionHalfspace(**kw, accountant="rdp").fit(X, y)
    assert np.array_equal(a.coef_, b.coef_)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    c = FullDimensionHalfspace(row_norm="clip", **kw, accountant="rdp").fit(U * 1.5, y)
    e = FullDimensionHalfspace(**kw, accountant="rdp").fit(U, y)
    np.testing.assert_allclose(c.coef_, e.coef_, rtol=1e-9, atol=1e-12)


def test_features_are_converted_to_float64_before_the_row_map() -> None:
    """float32 (and numeric-string) features give the model of their float64 conversion, bit for bit: the row
    norms and the clipping run in float64."""
    X, y = _data()
    X32 = (X * 1.7).astype(np.float32)  # some rows outside the ball: clipping acts
    a = FullDimensionHalfspace(epochs=2, row_norm="clip", random_state=1, accountant="rdp").fit(X32, y)
    with separate_seed_record():  # the same seed on purpose: equal features give equal draws
        b = FullDimensionHalfspace(epochs=2, row_norm="clip", random_state=1, accountant="rdp").fit(X32.astype(np.float64), y)
    assert np.array_equal(a.coef_, b.coef_)
    with separate_seed_record():
        c = FullDimensionHalfspace(epochs=2, row_norm="clip", random_state=1, accountant="rdp").fit(X32.astype(np.float64).astype(str), y)
    assert np.array_equal(c.coef_, b.coef_)


# ---------------------------------------------------------------------------------------------- predict


def test_decision_function_converts_to_float64() -> None:
    """Object and numeric-string arrays are scored as their float64 values (float64 output)."""
    X, y = _data()
    clf = FullDimensionHalfspace(epochs=2, random_state=0, accountant="rdp").fit(X, y)
    ref = clf.decision_function(X)
    obj = clf.decision_function(X.astype(object))
    assert obj.dtype == np.float64 and np.array_equal(obj, ref)
    st = clf.decision_function(X.astype(str))
    assert st.dtype == np.float64 and np.array_equal(st, ref)


def test_ties_go_to_the_first_class() -> None:
    """<A w, x> = 0 (a zero row) is predicted as classes_[0]."""
    X, y = _data()
    clf = FullDimensionHalfspace(epochs=2, random_state=0, accountant="rdp").fit(X, np.where(y > 0, "yes", "no"))
    assert clf.decision_function(np.zeros((2, D))).tolist() == [0.0, 0.0]
    assert clf.predict(np.zeros((2, D))).tolist() == ["no", "no"]


def test_predict_after_a_failed_fit_is_not_fitted() -> None:
    """A fit that fails after setting classes_ (k > d) leaves an unfitted estimator: no release of the failed run
    survives (classes_ would be read from the private labels), and predict raises NotFittedError."""
    X, y = _data()
    clf = SemiPrivateHalfspace(k=D + 1, random_state=0)
    with pytest.raises(ValueError, match=r"k must be <= d"):
        clf.fit(X, y, X_public=X)
    assert not hasattr(clf, "classes_")
    with pytest.raises(NotFittedError):
        clf.predict(X)


# ---------------------------------------------------------------------------------------------- construction


@pytest.mark.parametrize("cls", [SemiPrivateHalfspace, RandomProjectionHalfspace, FullDimensionHalfspace,
                                 NonPrivateHalfspace])
def test_init_sets_exactly_the_parameters(cls: type) -> None:
    """scikit-learn convention: __init__ stores each parameter and nothing else."""
    est = cls()
    assert set(vars(est)) == set(est.get_params())


# ---------------------------------------------------------------------------------------------- projections


@pytest.mark.slow
def test_k_equal_to_d_is_allowed_and_pca_projection_does_not_rescale() -> None:
    """k = d with the identity as PCA components: SemiPrivateHalfspace is FullDimensionHalfspace bit for bit,
    also with rows on the unit-ball tolerance (the PCA-projected rows are not rescaled; only the random
    projection's are).  Logistic loss and a non-binding clip, so the iterate depends on the row scale."""
    X, y = _data(n=80)
    for i in (4, 9, 20):
        X[i] = 0.0
        X[i, i % D] = (1.0 + 1e-9) * (-1) ** i
    kw: dict[str, Any] = dict(epochs=3, batch_size=80, loss="logistic", clip=50.0, margin=0.05, random_state=7)
    a = SemiPrivateHalfspace(k=D, **kw, accountant="rdp").fit(X, y, X_public=_identity_pca(D))
    b = FullDimensionHalfspace(**kw, accountant="rdp").fit(X, y)
    assert np.array_equal(a.components_, np.eye(D))
    assert np.array_equal(a.weights_, b.weights_) and np.array_equal(a.coef_, b.coef_)


def test_random_projection_scale() -> None:
    """A has i.i.d. N(0, 1/k) entries: k * mean(A^2) over d k = 800 entries is chi^2_800 / 800 (sd 0.05);
    the window [0.75, 1.25] fails with probability < 1e-6 (fixed seed: deterministic)."""
    X, y = _data(n=40, d=40)
    clf = RandomProjectionHalfspace(k=20, epochs=1, random_state=11, accountant="rdp").fit(X, y)
    assert clf.components_.shape == (40, 20)
    assert 0.75 <= 20 * float(np.mean(clf.components_ ** 2)) <= 1.25


@pytest.mark.slow
def test_random_projection_rows_are_mapped_into_the_ball(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trainer sees z / max(1, ||z||), z = A^T x (rows of norm < 1 unchanged)."""
    calls = _spy(monkeypatch, "dp_sgd")
    X, y = _data(n=80, d=10, low=0.8, high=1.0)
    clf = RandomProjectionHalfspace(k=3, epochs=1, batch_size=80, random_state=2, accountant="rdp").fit(X, y)
    (a, _, _), = calls
    Z = X @ clf.components_
    norms = np.linalg.norm(Z, axis=1)
    assert norms.max() > 1.2 and norms.min() < 0.8  # both cases occur
    np.testing.assert_allclose(a[0], Z / np.maximum(1.0, norms)[:, None], rtol=1e-12, atol=1e-15)


def test_non_private_random_projection(monkeypatch: pytest.MonkeyPatch) -> None:
    """NonPrivateHalfspace(projection="random") needs no public data and uses RandomProjectionHalfspace's
    projection (same rng, same A), with the projected rows mapped into the ball; k > d is refused."""
    calls = _spy(monkeypatch, "dp_sgd")
    X, y = _data(n=60, d=10, low=0.8, high=1.0)
    clf = NonPrivateHalfspace(projection="random", k=3, n_iter=5, random_state=4).fit(X, y)
    ref = RandomProjectionHalfspace(k=3, epochs=1, random_state=4, accountant="rdp").fit(X, y)
    assert np.array_equal(clf.components_, ref.components_)
    Z = X @ clf.components_
    np.testing.assert_allclose(calls[0][0][0], Z / np.maximum(1.0, np.linalg.norm(Z, axis=1))[:, None],
                               rtol=1e-12, atol=1e-15)
    assert np.array_equal(calls[0][0][0], calls[1][0][0])
    with pytest.raises(ValueError, match=r"k must be <= d, the number of features \(n_features = 10\), got k=11"):
        NonPrivateHalfspace(projection="random", k=11, n_iter=5, random_state=4).fit(X, y)


def test_non_private_without_projection_needs_no_k() -> None:
    X, y = _data()
    clf = NonPrivateHalfspace(projection="none", k=None, n_iter=5, random_state=0).fit(X, y)
    assert clf.components_ is None and clf.coef_.shape == (1, D)


def test_missing_public_data_message_names_the_estimator() -> None:
    X, y = _data()
    for est in (SemiPrivateHalfspace(k=2), NonPrivateHalfspace(k=2)):
        msg = (f"X_public is required: {type(est).__name__} computes its projection from public unlabelled data "
               "(fit(X, y, X_public=...))")
        with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
            est.fit(X, y)


def test_pca_result_with_exactly_k_components() -> None:
    """A PCAResult with exactly k components is accepted and kept as pca_; its components are used as float64
    (a float32 PCAResult included)."""
    X, y = _data()
    P = kernels.pca(X, 2, center=False)
    clf = SemiPrivateHalfspace(k=2, epochs=1, random_state=0, accountant="rdp").fit(X, y, X_public=P)
    assert clf.pca_ is P and np.array_equal(clf.components_, P.components)
    P32 = kernels.pca(X.astype(np.float32), 2, center=False)
    assert P32.components.dtype == np.float32
    c32 = SemiPrivateHalfspace(k=2, epochs=1, random_state=1, accountant="rdp").fit(X, y, X_public=P32)
    assert c32.components_.dtype == np.float64 and c32.coef_.dtype == np.float64
    assert np.array_equal(c32.components_, P32.components.astype(np.float64))


def test_public_array_is_checked_and_its_pca_kept() -> None:
    """X_public as an array: float64 PCA (float32 input converted first), the PCAResult kept as pca_, at least
    2 rows (named in the error), NaN reported for X_public."""
    X, y = _data()
    Xp = _data(n=50, seed=5)[0]
    clf = SemiPrivateHalfspace(k=2, epochs=1, random_state=0, accountant="rdp").fit(X, y, X_public=Xp)
    assert isinstance(clf.pca_, kernels.PCAResult) and np.array_equal(clf.pca_.components, clf.components_)
    Xp32 = Xp.astype(np.float32)
    c32 = SemiPrivateHalfspace(k=2, epochs=1, random_state=1, accountant="rdp").fit(X, y, X_public=Xp32)
    want = kernels.pca(Xp32.astype(np.float64), 2, center=False).components
    assert c32.components_.dtype == np.float64 and np.array_equal(c32.components_, want)
    two = SemiPrivateHalfspace(k=1, epochs=1, random_state=2, accountant="rdp").fit(X, y, X_public=Xp[:2])
    assert two.components_.shape == (D, 1)
    with pytest.raises(ValueError, match=r"1 sample\(s\).*minimum of 2"):
        SemiPrivateHalfspace(k=1, epochs=1, random_state=0, accountant="rdp").fit(X, y, X_public=Xp[:1])
    bad = Xp.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"^Input X_public contains NaN"):
        SemiPrivateHalfspace(k=1, epochs=1, random_state=0, accountant="rdp").fit(X, y, X_public=bad)


# ---------------------------------------------------------------------------------------------- DP-SGD


@pytest.mark.slow
def test_dpsgd_runs_with_the_estimators_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The DP-SGD trainer gets the estimator's clip (the sensitivity the accountant assumed), loss, margin,
    learning rate and radius; budget_ records what ran."""
    calls = _spy(monkeypatch, "dp_sgd")
    X, y = _data()
    clf = FullDimensionHalfspace(2.0, 1e-6, epochs=2, batch_size=20, clip=0.5, loss="logistic", margin=0.2,
                                 learning_rate=0.3, radius=0.7, accountant="rdp", classes=[-1, 1], random_state=0).fit(X, y)
    (_, kw, _), = calls
    assert (kw["clip"], kw["loss"], kw["margin"], kw["learning_rate"], kw["radius"]) == (0.5, "logistic", 0.2, 0.3, 0.7)
    assert (kw["noise_multiplier"], kw["sampling_rate"], kw["steps"]) == (clf.noise_multiplier_, 1 / 3, 6)
    assert clf.budget_ == {"tasks": 1, "scheme": "binary", "trainer": "dpsgd",
                           "split": "noise calibrated for the composition of all tasks (dp-accounting)",
                           "accountant": "rdp", "sampling_rate": 1 / 3, "steps": 6,
                           "noise_multiplier": clf.noise_multiplier_, "total": clf.privacy_}
    assert (clf.sampling_rate_, clf.n_steps_) == (1 / 3, 6)
    # the Poisson batches (q = 1/3) and the noise come from the seed: a refit on the same seed is the same model (the
    # other tests here and scikit-learn's checks in test_estimators.py fit full batches)
    with separate_seed_record():  # the same seed on purpose
        again = FullDimensionHalfspace(2.0, 1e-6, epochs=2, batch_size=20, clip=0.5, loss="logistic", margin=0.2,
                                       learning_rate=0.3, radius=0.7, accountant="rdp", classes=[-1, 1],
                                       random_state=0).fit(X, y)
    assert np.array_equal(again.coef_, clf.coef_) and len(calls) == 2


@pytest.mark.slow
def test_dpsgd_one_step_when_one_epoch_fits_in_a_batch() -> None:
    """q = min(1, batch/n) = 1 and epochs = 0.5: ceil(0.5 / 1) = 1 step."""
    X, y = _data()
    clf = FullDimensionHalfspace(2.0, epochs=0.5, batch_size=1000, classes=[-1, 1], random_state=0, accountant="rdp").fit(X, y)
    assert (clf.sampling_rate_, clf.n_steps_, clf.budget_["steps"]) == (1.0, 1, 1)
    assert clf.privacy_[0] <= 2.0


@pytest.mark.slow
@pytest.mark.parametrize("make", [lambda r: FullDimensionHalfspace(4.0, epochs=3, radius=r, random_state=0, accountant="rdp"),
                                  lambda r: NonPrivateHalfspace(projection="none", n_iter=30, radius=r, random_state=0)])
def test_radius_bounds_the_weights(make: Any) -> None:
    """radius: the iterates are projected on that ball; None: no projection (the weights leave the small ball)."""
    X, y = _data()
    small = make(0.01).fit(X, y)
    assert np.linalg.norm(small.weights_) <= 0.01 * (1 + 1e-12)
    free = make(None).fit(X, y)
    assert np.linalg.norm(free.weights_) > 0.05


# ---------------------------------------------------------------------------------------------- non-private


def test_non_private_is_full_batch_gradient_descent(monkeypatch: pytest.MonkeyPatch) -> None:
    """n_iter full-batch steps (no noise, q = 1) with lr / sqrt(t), the estimator's loss, margin and radius, and
    the clip at the loss's Lipschitz bound 1/margin (so it never binds on unit-ball rows); budget_ says so."""
    calls = _spy(monkeypatch, "dp_sgd")
    X, y = _data()
    clf = NonPrivateHalfspace(projection="none", n_iter=7, learning_rate=0.3, loss="logistic", margin=0.2,
                              radius=0.5, random_state=0).fit(X, y)
    (_, kw, _), = calls
    got = {k: kw[k] for k in ("noise_multiplier", "sampling_rate", "steps", "clip", "learning_rate", "loss",
                              "margin", "radius", "lr_schedule")}
    assert got == {"noise_multiplier": 0.0, "sampling_rate": 1.0, "steps": 7, "clip": 5.0, "learning_rate": 0.3,
                   "loss": "logistic", "margin": 0.2, "radius": 0.5, "lr_schedule": "inv_sqrt"}
    assert clf.budget_ == {"tasks": 1, "scheme": "binary", "trainer": "gradient descent (non-private)",
                           "total": (math.inf, 0.0), "steps": 7}


# ---------------------------------------------------------------------------------------------- BST14 / Alg 2


def test_noisy_sgd_runs_with_the_estimators_margin_and_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _spy(monkeypatch, "noisy_sgd")
    X, _ = _data(n=45)
    y = np.arange(45) % 3
    clf = FullDimensionHalfspace(1.5, 3e-4, trainer="noisy_sgd", noisy_sgd_steps=40, margin=0.2, classes=[0, 1, 2],
                                 random_state=0).fit(X, y)
    assert len(calls) == 3
    for _, _, r in calls:
        assert r.steps == 40 and r.lipschitz == 5.0 and r.privacy == pytest.approx((0.5, 1e-4))
    assert clf.n_steps_ == 40
    assert clf.budget_["trainer"] == "noisy_sgd"
    assert clf.budget_["split"] == "each task (epsilon/3, delta/3), basic composition"
    assert clf.budget_["total"] == clf.privacy_ == pytest.approx((1.5, 3e-4))


@pytest.mark.parametrize("steps, want", [(None, 144), (1000, 144), (50, 50)])
def test_noisy_sgd_steps_default_and_cap_n_squared(steps: int | None, want: int) -> None:
    X, y = _data(n=12)
    clf = FullDimensionHalfspace(trainer="noisy_sgd", noisy_sgd_steps=steps, random_state=0).fit(X, y)
    assert clf.n_steps_ == want


def test_pillar_alg2_runs_with_the_estimators_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """repeats, holdout_fraction, margin and the step count reach PILLAR Alg 2; its budget is kept in budget_."""
    calls = _spy(monkeypatch, "pillar_alg2")
    X, y = _data(n=40)
    clf = FullDimensionHalfspace(1.0, 1e-4, trainer="pillar_alg2", noisy_sgd_steps=30, repeats=2,
                                 holdout_fraction=0.5, margin=0.2, classes=[-1, 1], random_state=0).fit(X, y)
    (_, _, a), = calls
    assert a.runs.steps == 30 and a.runs.lipschitz == 5.0 and a.candidates.shape == (2, D)
    assert (a.budget["repeats"], a.budget["n_holdout"], a.budget["n_train"]) == (2, 20, 20)
    assert clf.budget_["alg2"] == [a.budget]
    assert clf.budget_["split"] == "each task (epsilon/1, delta/1), basic composition"
    assert clf.budget_["per_task"] == [a.privacy] and clf.budget_["total"] == clf.privacy_ == a.privacy
    assert clf.budget_["scheme"] == "binary" and clf.budget_["trainer"] == "pillar_alg2"

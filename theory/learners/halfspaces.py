"""Halfspaces with public unlabelled data: PCA on the public data, then a private linear learner.

Implements: HPSY.Thm3 (PCA on public unlabelled data + private SGD; Appendix C), PILLAR.Alg1
(project the private data on the top-k principal components of the public data, then Noisy SGD
or DP-SGD), PILLAR.Alg2 (trainer ``"pillar_alg2"``), BST14.NoisySGD (trainer ``"noisy_sgd"``), DPSGD
(trainer ``"dpsgd"``, the default, as PILLAR's experiments), and the baselines of SPEC Sec 7:
full-dimension DP-SGD, Gaussian random projection (Nguyen–Ullman–Zakynthinou 2020), and
non-private training on the same projections.

The estimators are scikit-learn classifiers (``BaseEstimator`` + ``ClassifierMixin``):
``fit(X, y, X_public=None)`` returns self; ``predict``, ``decision_function``, ``score``;
``get_params``/``set_params``/``clone``, ``Pipeline``, ``cross_val_score`` and
``check_estimator`` work (public data: see "Public data in scikit-learn tools" below).

Statement (HPSY Thm 3): if some w* has margin gamma with probability one and
``sum_{i>k} lambda_i(E[x x^T]) <= eta``, then with ``n_unl = O(k d / (beta gamma^2))`` public
points and ``n_lab = O(sqrt(k) / (alpha eps (gamma - sqrt(eta/beta))))`` private ones the output
``sign(<A w, x>)`` has error <= alpha w.p. >= 1 - beta, and the learner is (eps, delta)-DP in
the labelled data (the PCA touches only public data; the rest is post-processing).  Sizes:
:func:`semiprivate.theory.bounds.hpsy.hpsy_thm3_unlabeled` / :func:`~semiprivate.theory.bounds.hpsy.hpsy_thm3_labeled`
(O-forms, constant exposed; the ``form="corrected"`` n_unl is what the proof's steps give).

Centred or uncentred PCA (``center``; default ``False``, the uncentred second moment
``X^T X / n``).  Reasons for the default: the theorem's hypothesis is on
``Sigma_X = E[x x^T]`` (uncentred); the proof's step (13), ``R_hat(A_hat) <= sum_{j>k}
lambda_hat_j``, holds for the uncentred matrix only, and ``proofs_checks`` (HPSY.Thm3.centring)
exhibits a distribution on which the paper's centred Step 1 keeps a direction without label
information while the uncentred one keeps the label direction; and the halfspaces are
homogeneous (``sign(<w, x>)``, no offset), so the geometry that matters is about the origin.
``center=True`` gives the paper's literal Step 1 (HPSY App. C, and SPEC's wording); in both
cases the private data are projected as ``A^T x`` (no mean subtracted), as in Step 2.

Privacy accounting (``privacy_``, set in ``fit`` from what ran):

* ``"dpsgd"``: the noise multiplier is calibrated with dp-accounting so that the composition
  of all runs (one per binary task) meets (epsilon, delta); ``privacy_`` is then the
  accountant's epsilon of that composition at delta, both under replace-one neighbours (one
  labelled example replaced by another: the ``"labelled"`` model; dp-accounting's ``REPLACE_ONE``,
  see :mod:`semiprivate.theory.privacy.accounting`).
* Every trainer is accounted under that same relation: Noisy SGD (BST14) and PILLAR Alg 2 are
  replace-one by construction.
* ``"noisy_sgd"``: each of the C binary tasks runs BST14 at (eps/C, delta/C); ``privacy_`` is
  the basic composition of the per-run guarantees derived from the sigma that ran.
* ``"pillar_alg2"``: each task runs PILLAR Alg 2 at (eps/C, delta/C) (see
  :func:`semiprivate.theory.privacy.pillar_selection.pillar_alg2` for the split inside); basic composition across tasks.

Multi-class: one-vs-rest, C = number of classes binary tasks on the same data (C = 1 task for
two classes), budget as above, recorded in ``budget_``.  Labels: any two classes for binary
problems; ``classes_`` is sorted (scikit-learn's ``LabelEncoder`` order) and
``classes_[0] -> -1``, ``classes_[1] -> +1``.  The label set is the declared ``classes``
(public): a private label outside it is refused (without showing it), and ``classes_``,
``coef_``'s shape and every prediction's label set do not depend on the private labels.  Without
``classes`` the set is read from ``y``: no guarantee covers that, so ``privacy_ = (inf, 0)`` and a
:class:`~semiprivate.theory.privacy.public_rows.PrivacyWarning` says so.  The number of private
examples n is treated as public (it sets the sampling rate and BST14's step count).

Public data in scikit-learn tools: either ``fit(X, y, X_public=...)``, or public rows inside X
labelled ``unlabeled_label`` (the semi-supervised convention of
:mod:`semiprivate.theory.privacy.public_rows`, the one that Pipelines, ``GridSearchCV`` with
``cv=LabelledSplit(...)`` and :class:`semiprivate.theory.privacy.model_selection.PrivateSearchCV`
route correctly).  scikit-learn's ``GridSearchCV`` on private data is not private (it picks by
exact private scores); use ``PrivateSearchCV``.

Rows of X must lie in the unit ball (``row_norm="reject"``, default: a ValueError naming X);
``row_norm="clip"`` maps each row to ``x / max(1, ||x||)`` instead (a per-row map: no privacy
cost).  The random-projection baseline clips its projected rows the same way.

Examples
--------
>>> from semiprivate.theory.halfspace_data import LargeMarginLowRank
>>> D = LargeMarginLowRank(30, 3, 0.2, tail=0.05, rng=0)
>>> X, y = D.sample(2000, rng=1); Xpub = D.sample_X(1000, rng=2)
>>> clf = SemiPrivateHalfspace(epsilon=1.0, k=3, classes=[-1, 1], random_state=0).fit(X, y, X_public=Xpub)
>>> clf.components_.shape, clf.privacy_[0] <= 1.0
((30, 3), True)
>>> Xt, yt = D.sample(2000, rng=3)
>>> clf.score(Xt, yt) > 0.9
True
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from semiprivate.kernels import PCAResult, pca
from semiprivate.kernels._memo import memo_table
from semiprivate.theory.learners._base import (
    CHECKS_FITTING_ON_X_Y,
    LABELLED,
    NEEDS_PUBLIC_REASON,
    NOT_PRIVATE,
    LearnerBase,
    declared_failures,
    seed_of,
)
from semiprivate.theory.privacy._release import Released, child_streams, param_names
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier, compose_up, dpsgd_epsilon, dpsgd_event
from semiprivate.theory.privacy.dpsgd import dp_sgd
from semiprivate.theory.privacy.linear import LOSSES
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd
from semiprivate.theory.privacy.pillar_selection import pillar_alg2
from semiprivate.theory.privacy.public_rows import PrivacyWarning, check_sentinel, public_mask
from semiprivate.validation import (
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    RNG,
    Boolean,
    Optional,
    Options,
    Real,
    validate_params,
)
from sklearn.utils.validation import check_array as sk_check_array
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,  # scikit-learn >= 1.6 (pyproject pins it)
)

__all__ = [
    "SemiPrivateHalfspace",
    "RandomProjectionHalfspace",
    "FullDimensionHalfspace",
    "NonPrivateHalfspace",
]

_TRAINERS = ("dpsgd", "noisy_sgd", "pillar_alg2")
_OPEN_DELTA = Real(0.0, 1.0, closed="neither")


#: Memos of the accountant (public parameters in, a number out): registered tables with no hit counter (an
#: ``lru_cache``'s ``cache_info()`` counts its calls, one per fit: random stopping's hidden number of runs), at most
#: 512 entries each, oldest dropped first.  Their keys show which public parameters were asked for; a search that
#: hides its number of runs puts them back afterwards (:func:`semiprivate.kernels._memo.tables_kept`).
_CALIBRATED = memo_table(f"{__name__}._CALIBRATED", maxsize=512)
_ACCOUNTED = memo_table(f"{__name__}._ACCOUNTED", maxsize=512)


def _calibrated(epsilon: float, delta: float, q: float, steps: int, accountant: str, compositions: int) -> float:
    return float(_CALIBRATED.lookup((epsilon, delta, q, steps, accountant, compositions),
                                    lambda: calibrate_noise_multiplier(epsilon, delta, q, steps, accountant=accountant,
                                                                       compositions=compositions)))


def _accounted(sigma: float, q: float, steps: int, delta: float, accountant: str, compositions: int) -> float:
    return float(_ACCOUNTED.lookup((sigma, q, steps, delta, accountant, compositions),
                                   lambda: dpsgd_epsilon(sigma, q, steps, delta, accountant=accountant,
                                                         compositions=compositions)))


def _row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean row norms without overflow or underflow (each row scaled by its largest |entry| first) and
    without a floating-point warning: a warning that only an extreme private row raises would tell it apart."""
    with np.errstate(all="ignore"):
        m = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
        safe = np.where(m > 0, m, 1.0)
        return np.asarray(m * np.sqrt(np.sum((X / safe[:, None]) ** 2, axis=1)))


def _rows_of(a: Any) -> int | None:
    """Number of rows of an array-like (None when it cannot be told without converting it)."""
    shape = getattr(a, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    if isinstance(a, (list, tuple)):
        return len(a)
    return None


def _classes_list(classes: Any) -> np.ndarray | None:
    if classes is None:
        return None
    try:
        raw = np.asarray(classes)
    except ValueError:  # ragged nesting
        raise ValueError(f"classes must be a flat list of labels, got {classes!r}") from None
    if raw.ndim != 1:
        raise ValueError(f"classes must be a flat (1-d) list of labels, got {classes!r} (shape {raw.shape})")
    if raw.dtype == object and any(c is None for c in raw.tolist()):
        raise ValueError(f"classes must not contain None, got {classes!r}")
    if raw.dtype.kind == "f" and not np.all(np.isfinite(raw)):
        raise ValueError(f"classes must not contain NaN or infinity, got {classes!r}")
    try:
        arr = np.unique(raw)
    except TypeError:  # labels of types that cannot be ordered together
        raise ValueError(f"classes must hold labels of one comparable type, got {classes!r}") from None
    if arr.ndim != 1 or arr.size < 2:
        raise ValueError(f"classes must list at least 2 distinct labels, got {classes!r}")
    return arr


def _check_classification_labels(y: np.ndarray) -> None:
    """Refuse continuous labels (floats that are not whole numbers), with scikit-learn's words ("Unknown label
    type: continuous"), on a 1-d array already validated (finite, one column): no value is echoed."""
    if y.dtype.kind == "f" and np.any(y != np.floor(y)):
        raise ValueError("Unknown label type: continuous. y holds non-integer floats; a classifier needs "
                         "discrete labels (declare them with classes=)")


#: public rows below which a one-class prediction on them is not taken as a sign of degenerate preprocessing
_DEGENERATE_MIN_ROWS = 30


def _warn_if_degenerate(owner: str, P: np.ndarray, coef: np.ndarray) -> None:
    """A UserWarning when the public rows show the preprocessing made the data degenerate for a linear
    learner: every public row the same (e.g. a Normalizer on features of one sign and scale), or the fitted
    model predicting one class on every public row.  Both read the public rows and the released ``coef_``
    only (post-processing: no privacy cost)."""
    if P.shape[0] >= 2 and not np.any(np.ptp(P, axis=0) > 1e-12 * max(1.0, float(np.abs(P).max()))):
        warnings.warn(f"{owner}: every public row is the same after the preprocessing (e.g. a Normalizer on "
                      "features of one sign and scale maps them to one point): the projection and the model carry "
                      "no information; standardise first (StandardScaler or PublicStandardizer fitted on the "
                      "public rows, then Normalizer)", UserWarning, stacklevel=3)
        return
    if P.shape[0] < _DEGENERATE_MIN_ROWS:
        return  # a few public rows may well all fall in one class
    s = P @ coef.T
    pred = (s[:, 0] > 0) if s.shape[1] == 1 else np.argmax(s, axis=1)
    if np.unique(pred).size == 1:
        warnings.warn(f"{owner}: the fitted model predicts one class on every public row: the preprocessing may "
                      "have made the data degenerate for a linear learner (e.g. a Normalizer alone on features "
                      "of one sign); standardise first (StandardScaler or PublicStandardizer fitted on the public "
                      "rows, then Normalizer), or check the privacy budget", UserWarning, stacklevel=3)


def _public_array(X_public: Any, **kwargs: Any) -> np.ndarray:
    """``check_array(X_public)`` with every refusal naming ``X_public`` (not scikit-learn's generic X)."""
    try:
        return sk_check_array(X_public, dtype=np.float64, input_name="X_public", **kwargs)
    except (ValueError, TypeError) as exc:
        text = str(exc).splitlines()[0]
        if "X_public" in text:
            raise ValueError(text) from None
        raise ValueError(f"X_public must be a 2-d array of finite numbers (n_public, n_features): {text}") from None


class _HalfspaceBase(Released, LearnerBase):
    """Shared fit/predict of the projected linear learners (see the module docstring)."""

    #: private in the labelled rows, the public rows fixed (semiprivate.theory.learners._base)
    privacy_model_ = LABELLED
    expected_failed_checks = declared_failures((), "")
    _releases = frozenset({"classes_", "coef_", "weights_", "privacy_", "budget_", "noise_multiplier_", "n_steps_",
                           "sampling_rate_", "privacy_event_"})
    # from the public data, the declared parameters and the sizes only
    _public = frozenset({"components_", "pca_", "n_features_in_", "feature_names_in_"})

    def _store_params(self, values: dict[str, Any]) -> None:
        """Each constructor argument as an attribute of the same name, unchanged (scikit-learn's
        convention; ``values`` is the constructor's ``locals()``): one body for every estimator here."""
        for name in param_names(self):  # the signature's names, read once per class
            setattr(self, name, values[name])

    _private = True

    # ------------------------------------------------------------------ hooks
    def _projection(self, X_public: Any, d: int, g: np.random.Generator) -> np.ndarray | None:
        """d x k projection matrix (None: identity)."""
        return None

    def _check_params(self) -> None:
        """Re-validate parameters at fit time (set_params may have changed them)."""

    # ------------------------------------------------------------------ helpers
    def _rows(self, X: np.ndarray, name: str = "X") -> np.ndarray:
        norms = _row_norms(X)
        if self.row_norm == "clip":
            with np.errstate(all="ignore"):  # no warning that only some private rows would raise
                return np.asarray(X / np.maximum(1.0, norms)[:, None])
        if np.any(norms > 1.0 + 1e-9):  # which rows, and their norms, are private: not shown
            raise ValueError(
                f"{name} rows must lie in the unit ball (some row has norm > 1); normalise the rows (e.g. "
                "semiprivate.theory.halfspace_data.normalize_rows or sklearn's Normalizer) or pass row_norm='clip'")
        return X

    def _labels(self, y: Any) -> tuple[np.ndarray, np.ndarray, bool]:
        """(classes_, label indices, whether the label set was declared).

        The label set is ``classes`` when given (public: the output space does not depend on the
        private labels); otherwise it is read from ``y`` -- a function of the private labels that
        no guarantee covers, so ``fit`` then reports ``privacy_ = (inf, 0)`` with a PrivacyWarning.

        ``y`` is the 1-d array ``validate_data`` returned (validated once, at the boundary): only the
        classification-target rule is checked here (scikit-learn's ``check_classification_targets`` would
        validate the array again, twice)."""
        _check_classification_labels(y)
        declared = _classes_list(self.classes)
        if declared is not None:
            if not np.all(np.isin(y, declared)):  # values not echoed: they are private labels
                raise ValueError(f"y contains labels outside the declared classes {declared.tolist()}; "
                                 "pass every possible label in classes=")
            return declared, np.searchsorted(declared, y), True
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError("y has one class only; a classifier needs at least 2 classes (declare the label "
                             "set with classes=)")
        return classes, np.searchsorted(classes, y), False

    def _dpsgd_budget(self, n: int) -> tuple[float, int]:
        q = min(1.0, float(self.batch_size) / n)
        steps = max(1, int(math.ceil(float(self.epochs) / q)))
        return q, steps

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any, X_public: Any = None) -> Any:
        """Project (public data only), then train privately on the projected private data.

        Parameters
        ----------
        X : (n, d) array
            Private features (rows in the unit ball, see ``row_norm``), and, when
            ``unlabeled_label`` is set, public rows marked by that label in y
            (:mod:`semiprivate.theory.privacy.public_rows`: the form Pipelines and searches need).
        y : (n,) array
            Labels (two or more classes, or ``unlabeled_label`` for public rows).
        X_public : (m, d) array or semiprivate.kernels.PCAResult, optional
            Public unlabelled features (required by :class:`SemiPrivateHalfspace` and by
            ``NonPrivateHalfspace(projection="pca")``), or a :class:`semiprivate.kernels.PCAResult` computed
            from them with at least k components (its first k are used, with the centring it was
            computed with: a sweep over k can share one PCA).

        Returns
        -------
        self
        """
        self._check_params()
        check_sentinel(self.unlabeled_label, self.classes)
        nx, ny = _rows_of(X), _rows_of(y)
        if nx is not None and ny is not None and nx != ny:
            raise ValueError(f"X and y must have the same number of rows: X has {nx}, y has {ny}")
        X, y = validate_data(self, X, y, dtype=np.float64)
        pub = public_mask(y, self.unlabeled_label)
        if pub.any():
            rows = X[pub]
            if X_public is not None and not isinstance(X_public, np.ndarray | list | tuple):
                raise ValueError("X_public must be an array when X also holds public rows (unlabeled_label="
                                 f"{self.unlabeled_label!r}); pass the public data one way")
            if X_public is not None:
                P = _public_array(X_public)
                if P.shape[1] != X.shape[1]:
                    raise ValueError(f"X_public must have {X.shape[1]} columns (as X), got {P.shape[1]}")
                rows = np.vstack([P, rows])
            X_public, X, y = rows, X[~pub], y[~pub]
            if X.shape[0] == 0:
                raise ValueError(f"y has no labelled row: every label equals unlabeled_label={self.unlabeled_label!r}")
        n, d = X.shape
        # the public rows, validated once here and checked like the private ones (unit ball, row_norm) when
        # this learner reads them; _projection receives the checked array
        if X_public is not None and self._reads_public() and not isinstance(X_public, PCAResult):
            X_public = self._rows(X_public if pub.any() else _public_array(X_public, ensure_min_samples=2),
                                  "X_public")
            if X_public.shape[1] != d:
                raise ValueError(f"X_public must have {d} columns (as X), got {X_public.shape[1]}")
        classes, yi, declared = self._labels(y)
        self.classes_ = classes
        k = self._k()
        if k is not None and k > d:
            raise ValueError(f"k must be <= d, the number of features (n_features = {d}), got k={k}")
        # public randomness (the projection) and the noise from independent child streams: a released public
        # draw pins nothing about the noise stream
        g_public, g = child_streams(seed_of(self), 2)
        Xr = self._rows(X)
        A = self._projection(X_public, d, g_public)
        Z = Xr if A is None else Xr @ A
        if A is not None and self._clip_projected:
            Z = Z / np.maximum(1.0, np.linalg.norm(Z, axis=1))[:, None]
        tasks = 1 if classes.size == 2 else int(classes.size)
        signs = [np.where(yi == 1, 1.0, -1.0)] if tasks == 1 else [np.where(yi == c, 1.0, -1.0) for c in range(tasks)]
        W = np.empty((tasks, Z.shape[1]))
        budget: dict[str, Any] = {"tasks": tasks, "scheme": "binary" if tasks == 1 else "one-vs-rest",
                                  "trainer": self._trainer_name()}
        if not self._private:
            steps = int(self.n_iter)
            for t, s in enumerate(signs):
                W[t] = dp_sgd(Z, s, noise_multiplier=0.0, sampling_rate=1.0, steps=steps, clip=1.0 / float(self.margin),
                              learning_rate=float(self.learning_rate), loss=self.loss, margin=float(self.margin),
                              radius=self._radius(), normalizer=float(n), lr_schedule="inv_sqrt", rng=g,
                              progress=self.progress).weights
            self.privacy_ = (math.inf, 0.0)
            budget.update(total=self.privacy_, steps=steps)
        elif self.trainer == "dpsgd":
            q, steps = self._dpsgd_budget(n)
            sigma = _calibrated(float(self.epsilon), float(self.delta), q, steps, self.accountant, tasks)
            for t, s in enumerate(signs):
                W[t] = dp_sgd(Z, s, noise_multiplier=sigma, sampling_rate=q, steps=steps, clip=float(self.clip),
                              learning_rate=float(self.learning_rate), loss=self.loss, margin=float(self.margin),
                              radius=self._radius(), rng=g, progress=self.progress).weights
            eps = _accounted(sigma, q, steps, float(self.delta), self.accountant, tasks)
            self.noise_multiplier_ = sigma
            self.n_steps_ = steps
            self.sampling_rate_ = q
            # the dp-accounting event of what ran (all tasks): what a random-stopping search's base_event must be
            self.privacy_event_ = dpsgd_event(sigma, q, steps, tasks)
            self.privacy_ = (eps, float(self.delta))
            budget.update(split="noise calibrated for the composition of all tasks (dp-accounting)",
                          accountant=self.accountant, sampling_rate=q, steps=steps, noise_multiplier=sigma,
                          total=self.privacy_)
        else:
            e_t, d_t = float(self.epsilon) / tasks, float(self.delta) / tasks
            per: list[tuple[float, float]] = []
            for t, s in enumerate(signs):
                if self.trainer == "noisy_sgd":
                    r = noisy_sgd(Z, s, e_t, d_t, margin=float(self.margin), n_steps=self._bst_steps(n), rng=g,
                                  progress=self.progress)
                    W[t], priv = r.weights, r.privacy
                    self.n_steps_ = r.steps
                else:
                    a = pillar_alg2(Z, s, e_t, d_t, repeats=int(self.repeats),
                                    holdout_fraction=float(self.holdout_fraction), margin=float(self.margin),
                                    n_steps=self._bst_steps(n), rng=g, progress=self.progress)
                    W[t], priv = a.weights, a.privacy
                    budget.setdefault("alg2", []).append(a.budget)
                per.append(priv)
            # basic composition rounded up (compose_up): a nearest-rounded float sum can fall below the exact one
            self.privacy_ = (compose_up(*(p[0] for p in per)), compose_up(*(p[1] for p in per)))
            budget.update(split=f"each task (epsilon/{tasks}, delta/{tasks}), basic composition", per_task=per,
                          total=self.privacy_)
        if not declared and self._private:
            warnings.warn(f"{type(self).__name__}: the label set was read from the private labels y (classes=None), "
                          "which no guarantee covers: privacy_ is (inf, 0). Declare the label set with classes=",
                          PrivacyWarning, stacklevel=2)
            budget["label_set"] = "read from the private labels (no guarantee); pass classes="
            budget["total_if_classes_declared"] = self.privacy_
            self.privacy_ = (math.inf, 0.0)
        self.budget_ = budget
        self.weights_ = W
        self.components_ = A
        self.coef_ = W if A is None else W @ A.T
        if isinstance(X_public, np.ndarray) and self._reads_public():
            _warn_if_degenerate(type(self).__name__, X_public, self.coef_)
        return self

    def _reads_public(self) -> bool:
        """Whether fit reads ``X_public`` (the PCA of :class:`SemiPrivateHalfspace`); the baselines ignore it."""
        return False

    def _trainer_name(self) -> str:
        return str(self.trainer)

    def _k(self) -> int | None:
        k = getattr(self, "k", None)
        return None if k is None else int(k)

    def _radius(self) -> float | None:
        return None if self.radius is None else float(self.radius)

    def _bst_steps(self, n: int) -> int | None:
        s = self.noisy_sgd_steps
        return None if s is None else min(int(s), n * n)

    _clip_projected = False

    # ------------------------------------------------------------------ predict
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy on the labelled rows (rows labelled ``unlabeled_label`` are left out)."""
        pub = public_mask(y, self.unlabeled_label)
        if pub.any():
            keep = np.flatnonzero(~pub)
            X, y = np.asarray(X)[keep], np.asarray(y)[keep]
            sample_weight = None if sample_weight is None else np.asarray(sample_weight)[keep]
        return float(super().score(X, y, sample_weight=sample_weight))

    def decision_function(self, X: Any) -> np.ndarray:
        """``<A w, x>`` for each row (binary: shape (n,), > 0 means ``classes_[1]``; else (n, C))."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        s = X @ self.coef_.T
        return np.asarray(s[:, 0] if self.coef_.shape[0] == 1 else s)

    def predict(self, X: Any) -> np.ndarray:
        """``sign(<A w, x>)`` mapped to ``classes_`` (ties ``<A w, x> = 0`` go to ``classes_[0]``)."""
        s = self.decision_function(X)
        if s.ndim == 1:
            return np.asarray(self.classes_[(s > 0).astype(np.int64)])
        return np.asarray(self.classes_[np.argmax(s, axis=1)])


_COMMON = dict(epsilon=Real(0.0, math.inf, closed="neither"), delta=_OPEN_DELTA,
               trainer=Options(*_TRAINERS), epochs=POSITIVE_REAL, batch_size=POSITIVE_INT,
               learning_rate=POSITIVE_REAL, clip=POSITIVE_REAL, loss=Options(*LOSSES), margin=POSITIVE_REAL,
               radius=Optional(POSITIVE_REAL), accountant=Options("rdp", "pld"), noisy_sgd_steps=Optional(POSITIVE_INT),
               repeats=POSITIVE_INT, holdout_fraction=PROBABILITY, row_norm=Options("reject", "clip"), rng=RNG,
               progress=Optional(Boolean()), random_state=RNG)
# Parameters are checked in __init__ (every public callable rejects a bad value naming it) and again in fit
# (set_params bypasses __init__).


def _revalidate(est: Any, constraints: dict[str, Any]) -> None:
    for name, c in constraints.items():
        c.validate(name, getattr(est, name))


class SemiPrivateHalfspace(_HalfspaceBase):
    r"""PCA on public unlabelled data, projection, private linear learner; output sign(<A w, x>).

    Implements: HPSY.Thm3, PILLAR.Alg1 (with trainer ``"dpsgd"`` (DPSGD), ``"noisy_sgd"`` (BST14.NoisySGD)
    or ``"pillar_alg2"`` (PILLAR.Alg2)).

    Step 1: A = top-k eigenvectors of ``X_public^T X_public / m`` (``center=False``, default) or
    of the centred covariance (``center=True``), by :func:`semiprivate.kernels.pca`.  Step 2: the private
    learner on ``{(A^T x, y)}``.  Output ``sign(<A w, x>)`` (``coef_ = w^T A^T``).

    Parameters
    ----------
    epsilon, delta : float
        Privacy target for the labelled data; ``0 < delta < 1`` (Gaussian noise needs delta > 0).
    k : int
        Projection dimension, ``1 <= k <= d``.
    center : bool
        Centred covariance (the paper's literal Step 1) or uncentred second moment (default; see
        the module docstring for why).
    trainer : {"dpsgd", "noisy_sgd", "pillar_alg2"}
    epochs : float
        DP-SGD: steps = ceil(epochs / q), q = batch_size / n (Poisson sampling rate).
    batch_size : int
        DP-SGD expected batch size.
    learning_rate, clip : float
        DP-SGD step size and per-example clipping norm.
    loss : {"hinge", "logistic"}; margin : float
        The scaled margin loss (gamma' of the scaled hinge loss; the Lipschitz constant is 1/margin).
    radius : float or None
        DP-SGD: project the iterates on this ball (None: no projection).  Noisy SGD and Alg 2
        always use the unit ball (BST14's C).
    accountant : {"pld", "rdp"}
        dp-accounting accountant for DP-SGD (default PLD: tighter than RDP's conversion, most of all
        at small epsilon -- epsilon 1e-3 needs a noise multiplier about 20x smaller -- and RDP cannot
        certify an epsilon below its orders' ``log(1/delta) / (alpha_max - 1)``).  Both account
        replace-one neighbours: PLD with dp-accounting's ``REPLACE_ONE``, RDP (which has no
        replace-one Poisson-subsampled Gaussian) by group privacy of size 2 over add/remove, much
        looser (see :mod:`semiprivate.theory.privacy.accounting`).
    noisy_sgd_steps : int or None
        Steps of each BST14 run (default n^2, capped at n^2).
    repeats, holdout_fraction :
        PILLAR Alg 2's R and held-out share.
    classes : array-like or None
        The (public) label set; labels outside it are rejected.  ``classes_`` is this set, whatever
        labels the private sample holds.  None: the set is read from ``y`` -- not covered by any
        guarantee, so ``privacy_`` is (inf, 0) and a PrivacyWarning is issued.
    unlabeled_label : label or None
        Rows of X with this label in y are public unlabelled rows (scikit-learn's semi-supervised
        convention; see :mod:`semiprivate.theory.privacy.public_rows` for Pipelines and searches);
        None (default): every row of X is labelled.
    row_norm : {"reject", "clip"}
    rng : None, int or Generator
        The run's coins.  The public draws (the random projection of ``projection="random"``, released as
        ``components_``) and the private noise come from independent child streams, but both are functions of
        the seed: whoever knows or guesses an int seed (seeds below 2^32 are searched in minutes from
        ``components_`` alone) replays the noise and subtracts it.  An int seed is for reproducible runs only;
        ``None`` (fresh OS entropy) for a release, or secure mode (:mod:`semiprivate.theory.privacy.seeds`).
        One seed on two different releases is refused.  Older name of ``random_state`` (kept as an alias).
    progress : bool or None
        A tqdm bar on stderr over the trainer's steps (one bar per binary task), as the trainers of
        :mod:`semiprivate.theory.privacy.dpsgd` / :mod:`~semiprivate.theory.privacy.noisy_sgd` show it: None (default) shows it when stderr is a terminal and the
        run is long (DP-SGD >= 2000 steps, Noisy SGD / Alg 2 >= 100000 steps); True/False force it.
    random_state : None, int, SeedSequence or Generator
        The run's coins (scikit-learn's name; as ``rng`` above).

    Attributes
    ----------
    classes_, coef_ (C or 1, d), weights_ (C or 1, k), components_ (d, k), pca_ (PCAResult),
    privacy_ (epsilon, delta) from what ran, budget_ (dict), noise_multiplier_ / n_steps_ /
    sampling_rate_ (DP-SGD), n_features_in_.
    """

    expected_failed_checks = declared_failures(
        CHECKS_FITTING_ON_X_Y, NEEDS_PUBLIC_REASON + " (the PCA of step 1; or rows labelled unlabeled_label)")

    @validate_params(k=POSITIVE_INT, center=Boolean(), **_COMMON)
    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, *, k: int = 10, center: bool = False,
                 trainer: str = "dpsgd", epochs: float = 10.0, batch_size: int = 64, learning_rate: float = 0.1,
                 clip: float = 1.0, loss: str = "hinge", margin: float = 0.05, radius: float | None = 1.0,
                 accountant: str = "pld", noisy_sgd_steps: int | None = None, repeats: int = 3,
                 holdout_fraction: float = 0.2, classes: Any = None, unlabeled_label: Any = None,
                 row_norm: str = "reject", rng: Any = None, progress: bool | None = None,
                 random_state: Any = None) -> None:
        self._store_params(locals())

    def _check_params(self) -> None:
        _revalidate(self, {"k": POSITIVE_INT, "center": Boolean(), **_COMMON})

    def _reads_public(self) -> bool:
        return True

    def _projection(self, X_public: Any, d: int, g: np.random.Generator) -> np.ndarray:
        if X_public is None:
            raise ValueError(f"X_public is required: {type(self).__name__} computes its projection from public "
                             "unlabelled data (fit(X, y, X_public=...))")
        if isinstance(X_public, PCAResult):
            V = np.asarray(X_public.components, dtype=np.float64)
            if V.shape[0] != d or V.shape[1] < int(self.k):
                raise ValueError(f"X_public (a PCAResult) must have >= k = {self.k} components of dimension {d}, "
                                 f"got components of shape {V.shape}")
            self.pca_ = X_public
            return np.ascontiguousarray(V[:, :int(self.k)])
        P = np.asarray(X_public, dtype=np.float64)  # validated once by fit (_HalfspaceBase.fit)
        if int(self.k) > P.shape[0]:
            raise ValueError(f"k must be <= the number of public rows (X_public has {P.shape[0]} rows), "
                             f"got k={self.k}: the top-k principal components need at least k public points")
        res = pca(P, int(self.k), center=bool(self.center))
        self.pca_ = res
        return np.asarray(res.components, dtype=np.float64)


class RandomProjectionHalfspace(_HalfspaceBase):
    r"""Baseline: Gaussian random projection (JL) to k dimensions, then the private learner.

    Implements: HPSY.Thm3 (its Sec 3.3 comparison: the JL baseline, also PILLAR Sec 3.3; Nguyen, Ullman, Zakynthinou
    2020: project to O(1/gamma^2) dimensions, n_lab = O(1/(alpha eps gamma^2)); bound in
    :mod:`semiprivate.theory.bounds.classic`).  ``A`` has i.i.d. N(0, 1/k) entries drawn from ``rng``
    (independent of all data, so no privacy cost); projected rows are mapped to
    ``z / max(1, ||z||)`` (per row) so the unit-ball assumption of the trainers holds.
    ``X_public`` is ignored.  Parameters as :class:`SemiPrivateHalfspace` (no ``center``).
    """

    _clip_projected = True

    @validate_params(k=POSITIVE_INT, **_COMMON)
    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, *, k: int = 10, trainer: str = "dpsgd",
                 epochs: float = 10.0, batch_size: int = 64, learning_rate: float = 0.1, clip: float = 1.0,
                 loss: str = "hinge", margin: float = 0.05, radius: float | None = 1.0, accountant: str = "pld",
                 noisy_sgd_steps: int | None = None, repeats: int = 3, holdout_fraction: float = 0.2,
                 classes: Any = None, unlabeled_label: Any = None, row_norm: str = "reject", rng: Any = None,
                 progress: bool | None = None, random_state: Any = None) -> None:
        self._store_params(locals())

    def _check_params(self) -> None:
        _revalidate(self, {"k": POSITIVE_INT, **_COMMON})

    def _projection(self, X_public: Any, d: int, g: np.random.Generator) -> np.ndarray:
        return np.asarray(g.standard_normal((d, int(self.k))) / math.sqrt(int(self.k)))


class FullDimensionHalfspace(_HalfspaceBase):
    r"""Baseline: the private learner on all d features (no projection, no public data).

    Implements: HPSY.Thm3 (its Sec 3.3 comparison: "directly apply private-SGD in the original space")
    (n_lab = O(sqrt(d)/(alpha eps))) with DP-SGD (default), BST14 Noisy SGD or PILLAR Alg 2.
    ``X_public`` is ignored.  Parameters as :class:`SemiPrivateHalfspace` (no ``k``, ``center``).
    """

    @validate_params(**_COMMON)
    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, *, trainer: str = "dpsgd", epochs: float = 10.0,
                 batch_size: int = 64, learning_rate: float = 0.1, clip: float = 1.0, loss: str = "hinge",
                 margin: float = 0.05, radius: float | None = 1.0, accountant: str = "pld",
                 noisy_sgd_steps: int | None = None, repeats: int = 3, holdout_fraction: float = 0.2,
                 classes: Any = None, unlabeled_label: Any = None, row_norm: str = "reject", rng: Any = None,
                 progress: bool | None = None, random_state: Any = None) -> None:
        self._store_params(locals())

    def _check_params(self) -> None:
        _revalidate(self, dict(_COMMON))


_NONPRIVATE = dict(projection=Options("pca", "random", "none"), k=Optional(POSITIVE_INT), center=Boolean(),
                   n_iter=POSITIVE_INT, learning_rate=POSITIVE_REAL, loss=Options(*LOSSES), margin=POSITIVE_REAL,
                   radius=Optional(POSITIVE_REAL), row_norm=Options("reject", "clip"), rng=RNG,
                   progress=Optional(Boolean()), random_state=RNG)


class NonPrivateHalfspace(_HalfspaceBase):
    r"""Baseline: non-private full-batch gradient descent on the same projections.

    Implements: HPSY.Thm3 (its Sec 3.3 non-private comparison), PILLAR.Alg1 (PILLAR Prop 3: "a non-private
    version of Algorithm 1, replacing Noisy-SGD with Gradient Descent using the same loss
    function").  ``projection``: ``"pca"`` (public PCA, as :class:`SemiPrivateHalfspace`),
    ``"random"`` (as :class:`RandomProjectionHalfspace`) or ``"none"``.  ``n_iter`` full-batch
    steps of the scaled hinge (or logistic) loss, projected on the ball of ``radius``.
    ``privacy_ = (inf, 0.0)``: no guarantee.
    """

    privacy_model_ = NOT_PRIVATE

    _private = False

    @validate_params(**_NONPRIVATE)
    def __init__(self, *, projection: str = "pca", k: int | None = 10, center: bool = False, n_iter: int = 300,
                 learning_rate: float = 1.0, loss: str = "hinge", margin: float = 0.05, radius: float | None = 1.0,
                 classes: Any = None, unlabeled_label: Any = None, row_norm: str = "reject", rng: Any = None,
                 progress: bool | None = None, random_state: Any = None) -> None:
        self._store_params(locals())

    def _check_params(self) -> None:
        _revalidate(self, dict(_NONPRIVATE))
        if self.projection != "none" and self.k is None:
            raise ValueError(f"k must be given for projection={self.projection!r}")

    @property
    def _clip_projected(self) -> bool:  # type: ignore[override]
        return self.projection == "random"

    def _trainer_name(self) -> str:
        return "gradient descent (non-private)"

    def _reads_public(self) -> bool:
        return self.projection == "pca"

    def _k(self) -> int | None:
        return None if self.projection == "none" or self.k is None else int(self.k)

    def _projection(self, X_public: Any, d: int, g: np.random.Generator) -> np.ndarray | None:
        if self.projection == "none":
            return None
        if self.projection == "random":
            return RandomProjectionHalfspace._projection(self, X_public, d, g)  # type: ignore[arg-type]
        return SemiPrivateHalfspace._projection(self, X_public, d, g)  # type: ignore[arg-type]

"""One multinomial linear classifier for C classes: public preprocessing and projection, then one DP-GD run.

Implements: PILLAR.Alg1 (project the private data on the top-k principal components of the public
unlabelled data, then a private linear learner; PILLAR Sec 4 trains one multinomial classifier on the
projections, as here), HPSY.Thm3 (the same two steps), DPSGD (the private trainer, full batch:
:mod:`semiprivate.theory.privacy.multinomial_dpgd`), and SPEC Sec 7's baselines (Gaussian random projection,
full dimension) through ``projection``.

Why this learner next to :class:`semiprivate.theory.learners.halfspaces.SemiPrivateHalfspace`: that one
trains C one-vs-rest tasks that share the budget (each at a C-th of it) on rows normalised to the unit
sphere; this one trains all classes in one run (the budget is spent once) on features centred and
scaled with public statistics (:class:`semiprivate.theory.privacy.public_preprocessing.PublicStandardizer`).
On scikit-learn's digits at epsilon = 1 (delta = 1e-5, 10% public, 20% test) the difference is
0.37 against about 0.8 test accuracy (benchmarks/RESULTS.md, "Accuracy at equal privacy").

Privacy (``privacy_``, from what ran): the public rows are fixed (privacy model ``"labelled"``,
replace-one: one labelled row replaced by another); everything fitted from public rows (scaler,
principal components, ``k``) and the random projection (coins independent of the data) is free;
the one DP-GD run is (epsilon, delta)-DP by :func:`~semiprivate.theory.privacy.multinomial_dpgd.full_batch_epsilon`
(dp-accounting's PLD accountant of the run's noise multiplier and steps).  ``k="auto"`` reads the
public spectrum, the number n of labelled rows (public under replace-one) and the budget only.
The label set must be declared (``classes``): read from ``y`` it is a function of the private
labels, ``privacy_`` is then ``(inf, 0)`` with a PrivacyWarning, as for the halfspace learners.

Randomness: ``random_state`` (None, an int or a Generator; ``rng`` is its deprecated older name) seeds one :class:`numpy.random.SeedSequence` per
fit, from which a fresh child stream is spawned for each part (the projection, the DP-GD noise);
no generator or seed sequence is kept on the fitted estimator.

Examples
--------
>>> from sklearn.datasets import load_digits
>>> X, y = load_digits(return_X_y=True)
>>> clf = SemiPrivateMultinomial(1.0, 1e-5, classes=range(10), random_state=0)
>>> clf = clf.fit(X[:1200], y[:1200], X_public=X[1200:1400])
>>> clf.privacy_[0] <= 1.0, clf.score(X[1400:], y[1400:]) > 0.6
(True, True)
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from semiprivate.theory.learners._base import LABELLED, LearnerBase, declared_failures, seed_of
from semiprivate.theory.privacy._release import Released, child_streams
from semiprivate.theory.privacy.dpsgd import _blas_single_thread
from semiprivate.theory.privacy.multinomial_dpgd import (
    full_batch_noise_multiplier,
    multinomial_dp_gd,
)
from semiprivate.theory.privacy.public_preprocessing import PublicStandardizer, bounded_features
from semiprivate.theory.privacy.public_rows import PrivacyWarning
from semiprivate.validation import (
    EPSILON,
    POSITIVE_REAL,
    RNG,
    Options,
    Real,
    validate_params,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

__all__ = ["AUTO_K_DIVISOR", "SemiPrivateMultinomial", "auto_dimension", "auto_steps"]

_OPEN_DELTA = Real(0.0, 1.0, closed="neither")

# The defaults below (the ``k="auto"`` divisor, steps, learning rate, clip, averaged share) were chosen by
# benchmarks/select_multinomial_defaults.py on development data that is NOT in the accuracy table of
# benchmarks/bench_utility.py (iris and scikit-learn's make_classification / make_blobs families: 8 data sets,
# 4 splits, epsilon 0.1-10, the table's protocol), and frozen here before that table was run.
#: ``k="auto"``: keep about ``n mu / AUTO_K_DIVISOR`` components (see :func:`auto_dimension`).
AUTO_K_DIVISOR = 8.0
#: ``n_iter="auto"`` (the default): steps from the budget, see :func:`auto_steps`
AUTO_STEPS_NOISE = 0.4
AUTO_STEPS_MIN = 10
AUTO_STEPS_MAX = 400
#: default learning rate, clipping norm and averaged share of the iterates (chosen as above)
DEFAULT_LEARNING_RATE = 4.0
DEFAULT_CLIP = 0.5
DEFAULT_AVERAGE = 0.5
#: ``k="auto"`` never keeps components beyond this share of the public variance.
AUTO_K_VARIANCE = 0.99


def auto_dimension(explained_variance_ratio: Any, n_private: int, mu: float, *,
                   divisor: float = AUTO_K_DIVISOR) -> int:
    """Projection dimension from the public spectrum, the number of labelled rows and the run's budget.

    Implements: PILLAR.Alg1 (choice of k without privacy cost).  PILLAR Thm 1 / HPSY Thm 3: the private
    learner's error term grows as ``sqrt(k) / (n epsilon)`` while the projection's approximation error
    ``eta = sum_{i>k} lambda_i`` falls with k, so the best k grows with the budget.  Rule:
    ``k = round(n mu / divisor)`` with ``mu = 2 sqrt(T) / sigma`` the Gaussian-DP parameter of the DP-GD
    run (a function of (epsilon, delta) only: T steps calibrated to the budget compose to the same mu),
    at least 2, and at most the number of components that explain ``AUTO_K_VARIANCE`` (99%) of the
    public variance.  The default divisor ``AUTO_K_DIVISOR`` = 8 was chosen by
    ``benchmarks/select_multinomial_defaults.py`` on development data not in the accuracy table (iris,
    make_classification and make_blobs families): a fixed default, not fitted per data set.

    >>> auto_dimension([0.5, 0.3, 0.15, 0.05], 1000, 0.3, divisor=16)
    4
    >>> auto_dimension([0.5, 0.3, 0.15, 0.05], 100, 0.3, divisor=16)
    2
    """
    for name, v in (("n_private", n_private), ("mu", mu), ("divisor", divisor)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number, got {type(v).__name__}")
        if not (math.isfinite(float(v)) and float(v) > 0):
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    r = np.asarray(explained_variance_ratio, dtype=np.float64)
    cum = np.cumsum(r)
    k_var = int(np.searchsorted(cum, AUTO_K_VARIANCE * cum[-1] * (1 - 1e-12)) + 1) if r.size else 1
    k_budget = int(round(float(n_private) * float(mu) / float(divisor)))
    return int(max(1, min(r.size, k_var, max(2, k_budget))))


def auto_steps(n_private: int, mu: float, learning_rate: float, clip: float, *, noise: float = AUTO_STEPS_NOISE,
               min_steps: int = AUTO_STEPS_MIN, max_steps: int = AUTO_STEPS_MAX) -> int:
    """Number of full-batch DP-GD steps from the budget and the number of labelled rows (no privacy cost).

    Implements: DPSGD (choice of T): T calibrated steps compose to one Gaussian mechanism of parameter
    ``mu = 2 sqrt(T) / sigma`` (a function of (epsilon, delta) only), and the noise they add to the weights
    has norm of order ``lr clip sigma sqrt(T) / n = 2 lr clip T / (n mu)`` per coordinate, growing with T
    while the signal saturates.  Rule: ``T = round(noise n mu / (lr clip))``, clipped to
    ``[min_steps, max_steps]``: more steps where the budget or the data allow them (large n mu), few where
    each step is noisy (small data, small epsilon).  Defaults ``noise = 0.4``, ``[10, 400]``: chosen with
    the other defaults by ``benchmarks/select_multinomial_defaults.py`` on development data not in the
    accuracy table (stage 4).  ``n_private`` is public under replace-one.

    >>> auto_steps(124, 0.8, 4.0, 0.5)  # wine-sized data at epsilon 3
    20
    >>> auto_steps(1258, 2.5, 4.0, 0.5)  # digits-sized data at epsilon 10: capped
    400
    """
    for name, v in (("n_private", n_private), ("mu", mu), ("learning_rate", learning_rate), ("clip", clip),
                    ("noise", noise)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number, got {type(v).__name__}")
        if not (math.isfinite(float(v)) and float(v) > 0):
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    for name, v in (("min_steps", min_steps), ("max_steps", max_steps)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if min_steps > max_steps:
        raise ValueError(f"min_steps must be <= max_steps, got {min_steps} > {max_steps}")
    t = round(float(noise) * float(n_private) * float(mu) / (float(learning_rate) * float(clip)))
    return int(min(int(max_steps), max(int(min_steps), t)))


class SemiPrivateMultinomial(Released, LearnerBase):
    r"""Public preprocessing, public PCA (or a random projection, or none), one multinomial DP-GD run.

    Implements: PILLAR.Alg1 with a multinomial DPSGD trainer (full batch), HPSY.Thm3; baselines of
    SPEC Sec 7 with ``projection="random"`` (Nguyen-Ullman-Zakynthinou 2020) and ``"none"`` (full
    dimension).

    Steps of ``fit(X, y, X_public)``:

    1. ``PublicStandardizer`` fitted on ``X_public`` (centre, scale per feature, rows to median norm
       1), applied to the private rows.  Without ``X_public`` (``projection`` ``"random"`` or
       ``"none"`` only) the rows are used as given.
    2. Projection A (d x k): the top-k principal components of the standardised public rows
       (``"pca"``), i.i.d. N(0, 1/k) entries from a child stream (``"random"``), or the identity.
    3. :func:`~semiprivate.theory.privacy.multinomial_dpgd.multinomial_dp_gd` on ``A^T x`` with the noise
       multiplier of :func:`~semiprivate.theory.privacy.multinomial_dpgd.full_batch_noise_multiplier`
       (epsilon, delta, n_iter).
    4. Output ``argmax_c (A^T s(x), 1) W[:, c]`` with s the public standardisation.

    The defaults of ``k="auto"`` (divisor 8), ``n_iter="auto"``, ``clip``, ``learning_rate`` and ``average``
    were chosen by ``benchmarks/select_multinomial_defaults.py`` on development data that is not in the
    accuracy table of ``benchmarks/bench_utility.py`` (iris and scikit-learn's make_classification /
    make_blobs families at the table's protocol), by the mean normalised test accuracy over 8 data sets, 4
    splits and epsilon 0.1-10, and frozen before the table was run (benchmarks/RESULTS.md).

    Parameters
    ----------
    epsilon, delta : float
        Target for the labelled rows (replace-one); ``0 < delta < 1``.
    projection : {"pca", "random", "none"}
    k : int or "auto"
        Projection dimension (``"pca"``/``"random"``); ``"auto"``: :func:`auto_dimension` (public
        spectrum for ``"pca"``, ``round(n mu / AUTO_K_DIVISOR)`` capped at d for ``"random"``).  Ignored
        for ``"none"``.
    n_iter : int or "auto"
        Full-batch DP-GD steps T; ``"auto"`` (default): :func:`auto_steps` (from n, the budget, the
        learning rate and the clip: 10 to 400 steps).
    clip : float
        Per-example clipping norm (default 0.5; rows have median norm about 1 after step 1).
    learning_rate : float
        Step size (default 4).
    average : float in (0, 1]
        Share of the last iterates averaged (default 0.5).
    classes : array-like or None
        The public label set.  None: read from ``y`` (no guarantee: ``privacy_ = (inf, 0)`` and a
        PrivacyWarning).
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    random_state : None, int, SeedSequence or Generator
        Seeds the fit's SeedSequence (see the module docstring; scikit-learn's name).

    Attributes
    ----------
    classes_ : (C,) array
    scaler_ : PublicStandardizer or None
    components_ : (d, k) array or None
        The projection (None for ``"none"``).
    k_ : int
        Dimension trained on.
    coef_ : (C, d) array; intercept_ : (C,) array
        The classifier on standardised features: ``decision_function(X) = s(X) @ coef_.T + intercept_``.
    noise_multiplier_ : float; n_iter_ : int
    privacy_ : (float, float)
        (epsilon, delta) of what ran (PLD accountant, replace-one), against an observer who does not know the
        seed: with an ``int`` ``random_state`` and ``projection="random"``, ``components_`` is a public function
        of the seed, so a small seed can be recovered from it and every coin replayed (pass None for a release;
        the learner protocol, ``semiprivate.theory.learners._base``).
    budget_ : dict
        What the guarantee is made of.
    n_features_in_ : int
    """

    privacy_model_ = LABELLED
    expected_failed_checks = declared_failures((), "")
    #: what a fit releases (covered by privacy_) and what it keeps from the parameters, the public rows and the
    #: input sizes only (the release boundary, semiprivate.theory.privacy._release)
    _releases = frozenset({"classes_", "coef_", "intercept_", "privacy_", "budget_"})
    _public = frozenset({"scaler_", "components_", "k_", "noise_multiplier_", "n_iter_", "explained_variance_ratio_",
                         "n_features_in_", "feature_names_in_"})

    @validate_params(epsilon=EPSILON, delta=_OPEN_DELTA, projection=Options("pca", "random", "none"),
                     clip=POSITIVE_REAL, learning_rate=POSITIVE_REAL,
                     average=Real(0.0, 1.0, closed="right"), rng=RNG, random_state=RNG)
    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, *, projection: str = "pca", k: Any = "auto",
                 n_iter: Any = "auto", clip: float = DEFAULT_CLIP,
                 learning_rate: float = DEFAULT_LEARNING_RATE, average: float = DEFAULT_AVERAGE,
                 classes: Any = None, rng: Any = None, random_state: Any = None) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.projection = projection
        self.k = k
        if not (isinstance(n_iter, str) and n_iter == "auto") and not (
                isinstance(n_iter, (int, np.integer)) and not isinstance(n_iter, bool) and n_iter >= 1):
            raise ValueError(f"n_iter must be a positive int or 'auto', got {n_iter!r}")
        self.n_iter = n_iter
        self.clip = clip
        self.learning_rate = learning_rate
        self.average = average
        self.classes = classes
        self.rng = rng
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> None:
        type(self).__init__(self, self.epsilon, self.delta, projection=self.projection, k=self.k, n_iter=self.n_iter,
                            clip=self.clip, learning_rate=self.learning_rate, average=self.average,
                            classes=self.classes, rng=self.rng,
                            random_state=self.random_state)  # re-validates (set_params bypasses __init__)
        k = self.k
        if not (isinstance(k, str) and k == "auto") and not (isinstance(k, (int, np.integer))
                                                              and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"k must be a positive int or 'auto', got {k!r}")

    def _labels(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
        check_classification_targets(y)
        if self.classes is not None:
            declared = np.unique(np.asarray(list(self.classes) if not hasattr(self.classes, "shape")
                                            else self.classes))
            if declared.size < 2:
                raise ValueError(f"classes must list at least 2 distinct labels, got {self.classes!r}")
            if not np.all(np.isin(y, declared)):  # the offending labels are private: not shown
                raise ValueError(f"y contains labels outside the declared classes {declared.tolist()}; "
                                 "pass every possible label in classes=")
            return declared, np.searchsorted(declared, y), True
        found = np.unique(y)
        if found.size < 2:
            raise ValueError("y has one class only; declare the label set with classes=")
        return found, np.searchsorted(found, y), False

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any, X_public: Any = None) -> SemiPrivateMultinomial:
        """Fit on the labelled rows (X, y), with public unlabelled rows ``X_public`` (by argument only).

        Parameters
        ----------
        X : (n, d) array
            Private features.
        y : (n,) array
            Private labels (in ``classes``).
        X_public : (m, d) array, optional
            Public unlabelled rows (required for ``projection="pca"``).

        Returns
        -------
        self
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        n, d = X.shape
        classes, yi, declared = self._labels(y)
        proj_stream, noise_stream = child_streams(seed_of(self), 2)  # one child stream per draw (RNG discipline)
        scaler = None
        P = None
        if X_public is not None:
            P = check_array(X_public, dtype=np.float64, input_name="X_public", ensure_min_samples=2)
            if P.shape[1] != d:
                raise ValueError(f"X_public must have {d} columns (as X), got {P.shape[1]}")
            scaler = PublicStandardizer().fit(P)
        elif self.projection == "pca":
            raise ValueError("X_public is required for projection='pca': the principal components come from public "
                             "unlabelled rows (fit(X, y, X_public=...))")
        if self.n_iter == "auto":  # from (epsilon, delta), n (public under replace-one), lr and clip: no privacy cost
            mu_budget = 2.0 / full_batch_noise_multiplier(float(self.epsilon), float(self.delta), 1)
            T = auto_steps(n, mu_budget, float(self.learning_rate), float(self.clip))
        else:
            T = int(self.n_iter)
        sigma = full_batch_noise_multiplier(float(self.epsilon), float(self.delta), T)
        mu = 2.0 * math.sqrt(T) / sigma
        # bounded like the public maps' outputs (bounded_features): a finite private entry never overflows downstream
        Xs = bounded_features(X) if scaler is None else scaler.transform(X)
        A: np.ndarray | None
        if self.projection == "none":
            A, k = None, d
        elif self.projection == "pca":
            assert P is not None and scaler is not None
            Ps = scaler.transform(P)
            kmax = min(d, Ps.shape[0] - 1)
            if self.k != "auto" and int(self.k) > kmax:
                raise ValueError(f"k must be <= min(d, public rows - 1) = {kmax}, got k={self.k}")
            # thin SVD of the (m x d) public rows: their principal directions without forming the d x d
            # second moment (m << d for pre-trained features; Ps is centred by the public mean already)
            with _blas_single_thread(float(Ps.size)):
                _, sv, Vt = np.linalg.svd(Ps, full_matrices=False)
            ratio = sv[:kmax] ** 2 / max(float(np.sum(sv**2)), 1e-300)
            k = auto_dimension(ratio, n, mu) if self.k == "auto" else int(self.k)
            A = np.ascontiguousarray(Vt[:k].T)
            self.explained_variance_ratio_ = ratio[:k]
        else:
            k = (max(1, min(d, max(2, int(round(n * mu / AUTO_K_DIVISOR))))) if self.k == "auto" else int(self.k))
            A = proj_stream.standard_normal((d, k)) / math.sqrt(k)
        Z = Xs if A is None else Xs @ A
        res = multinomial_dp_gd(Z, yi, classes.size, noise_multiplier=sigma, steps=T, clip=float(self.clip),
                                learning_rate=float(self.learning_rate), average=float(self.average),
                                rng=noise_stream)
        W = res.weights
        self.classes_ = classes
        self.scaler_ = scaler
        self.components_ = A
        self.k_ = int(k)
        self.coef_ = np.ascontiguousarray(W[:-1].T if A is None else W[:-1].T @ A.T)
        self.intercept_ = W[-1].copy()
        self.noise_multiplier_ = float(sigma)
        self.n_iter_ = T
        ran = (float(res.epsilon(float(self.delta))), float(self.delta))
        self.budget_ = {"trainer": "multinomial full-batch DP-GD (one run for all classes)",
                        "accountant": "PLD, replace-one", "noise_multiplier": float(sigma), "steps": T,
                        "gaussian_dp_mu": mu, "clip": float(self.clip), "k": int(k), "projection": self.projection,
                        "run": ran}
        self.privacy_ = ran
        if not declared:
            warnings.warn(f"{type(self).__name__}: the label set was read from the private labels y (classes=None), "
                          "which no guarantee covers: privacy_ is (inf, 0). Declare the label set with classes=",
                          PrivacyWarning, stacklevel=2)
            self.budget_["label_set"] = "read from the private labels (no guarantee); pass classes="
            self.privacy_ = (math.inf, 0.0)
        return self

    # ------------------------------------------------------------------ predict
    def _scores(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xs = X if self.scaler_ is None else self.scaler_.transform(X)
        return np.asarray(Xs @ self.coef_.T + self.intercept_)

    def decision_function(self, X: Any) -> np.ndarray:
        """Class scores ``s(X) @ coef_.T + intercept_``, shape (n, C); with two classes the margin of the
        second over the first, shape (n,) (> 0 means ``classes_[1]``), as scikit-learn's binary classifiers."""
        s = self._scores(X)
        return np.asarray(s[:, 1] - s[:, 0]) if s.shape[1] == 2 else s

    def predict(self, X: Any) -> np.ndarray:
        """The class of largest score (ties: the first in ``classes_``)."""
        scores = self._scores(X)
        return np.asarray(self.classes_[np.argmax(scores, axis=1)])

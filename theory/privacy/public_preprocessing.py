"""Feature preprocessing fitted on the public unlabelled rows only (no privacy cost).

Implements: PILLAR.Alg1 (Step 1's premise: whatever is computed from the public unlabelled sample is
free for the private learner; HPSY.Thm3 likewise), applied to the centring and scaling a practitioner
does before any linear learner.  A scaler fitted on the private rows (scikit-learn's
``StandardScaler`` in a Pipeline) reads the private data and releases its means and deviations
through the model; fitted here on the public rows it is post-processing of public data.

:class:`PublicStandardizer`: ``(x - mean) / scale / row_scale`` with ``mean`` and ``scale`` the
per-feature mean and standard deviation of the public rows (a feature constant on the public rows
keeps scale 1) and ``row_scale`` the median Euclidean norm of the standardised public rows, so a
typical row has norm about 1 and a per-example clipping norm of 1 cuts only atypical rows.
Nothing from the private rows enters any fitted attribute.

:func:`semi_private_split`: the experiments' split of a labelled data set into private labelled,
public unlabelled (labels dropped) and test rows.

Examples
--------
>>> import numpy as np
>>> P = np.array([[0.0, 10.0], [2.0, 10.0], [4.0, 10.0]])
>>> s = PublicStandardizer().fit(P)
>>> s.mean_.tolist(), s.scale_.tolist()
([2.0, 10.0], [1.632993161855452, 1.0])
>>> float(np.median(np.linalg.norm(s.transform(P), axis=1)))
1.0
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.privacy._release import Released
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

__all__ = ["PublicStandardizer", "semi_private_split", "FEATURE_BOUND"]

#: Bound on every feature a public map gives a row (:func:`bounded_features`): a finite private entry that a map
#: fitted on public rows sends past it (or to infinity) is clipped to it.
FEATURE_BOUND = 1e100


def bounded_features(Z: Any) -> Any:
    """``Z`` clipped to ``[-FEATURE_BOUND, FEATURE_BOUND]`` (a float array; anything else is returned as given).

    A map fitted on public rows (a standardisation with a small public spread, say) can send a finite private
    entry to infinity, and a trainer downstream then raises, warns or returns NaN on that neighbour only: an
    exception or a warning that exists on one dataset and not on its neighbour (delta = 1).  Clipping each
    entry to a public constant is a function of the row alone, so one private row still changes one row of the
    trainer's input and every trainer's per-example clipping bounds its effect; its squared norm stays finite
    for any d below 1e100.  The maps that call it run under ``np.errstate`` so the overflow itself warns
    nothing either.
    """
    if isinstance(Z, np.ndarray) and Z.dtype.kind == "f":
        # narrower floats: the fourth root of their largest value (a squared norm over up to 1e19 entries fits)
        b = FEATURE_BOUND if Z.dtype.itemsize >= 8 else float(np.finfo(Z.dtype).max) ** 0.25
        bound = np.asarray(b, dtype=Z.dtype)
        return np.clip(Z, -bound, bound)
    return Z

# A feature whose public standard deviation is below this (relative to the largest) is treated as
# constant on the public rows: it keeps scale 1 instead of being blown up by a tiny divisor.
_CONSTANT_TOL = 1e-8


class PublicStandardizer(Released, TransformerMixin, BaseEstimator):
    """Centre, scale per feature, and scale rows to median norm 1, with statistics of public rows only.

    Implements: PILLAR.Alg1 (public-data preprocessing; see the module docstring).

    Parameters
    ----------
    with_std : bool
        Divide each centred feature by its public standard deviation (default True).
    row_scale : bool
        Then divide every row by the median norm of the standardised public rows (default True).

    Attributes
    ----------
    mean_, scale_ : (d,) arrays
        Public per-feature mean and standard deviation (1 where the feature is constant on the
        public rows, or where ``with_std=False``).
    row_scale_ : float
        Median norm of the standardised public rows (1.0 when ``row_scale=False`` or when that
        median is 0).
    n_features_in_ : int
    """

    #: fitted on public rows only: everything it keeps is public (the release boundary,
    #: semiprivate.theory.privacy._release); it releases nothing private
    _public = frozenset({"mean_", "scale_", "row_scale_", "n_features_in_", "feature_names_in_"})

    def __init__(self, *, with_std: bool = True, row_scale: bool = True) -> None:
        for name, v in (("with_std", with_std), ("row_scale", row_scale)):
            if not isinstance(v, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(v).__name__}")
        self.with_std = with_std
        self.row_scale = row_scale

    def fit(self, X_public: Any, y: Any = None) -> PublicStandardizer:
        """Fit on the public rows ``X_public`` (``y`` is ignored; it exists for Pipelines)."""
        for name in ("with_std", "row_scale"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {getattr(self, name)!r}")
        P = validate_data(self, X_public, dtype=np.float64, ensure_min_samples=2)
        mean = P.mean(axis=0)
        scale = np.ones(P.shape[1])
        if self.with_std:
            sd = P.std(axis=0)
            big = float(sd.max()) if sd.size else 0.0
            keep = sd > _CONSTANT_TOL * max(big, 1e-300)
            scale[keep] = sd[keep]
        self.mean_, self.scale_ = mean, scale
        self.row_scale_ = 1.0
        if self.row_scale:
            med = float(np.median(np.linalg.norm((P - mean) / scale, axis=1)))
            self.row_scale_ = med if med > 0.0 else 1.0
        return self

    def transform(self, X: Any) -> np.ndarray:
        """``(X - mean_) / scale_ / row_scale_`` (rows of any set: private, test or public)."""
        check_is_fitted(self, "mean_")
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have {self.n_features_in_} columns (as the public rows), got {X.shape[1]}")
        with np.errstate(over="ignore", invalid="ignore"):  # a finite private entry may overflow: bounded below
            return bounded_features(np.asarray((X - self.mean_) / self.scale_ / self.row_scale_))


def semi_private_split(X: Any, y: Any, *, public_share: float = 0.1, test_share: float = 0.2,
                       rng: int = 0) -> tuple[np.ndarray, ...]:
    """Split labelled data into private labelled, public unlabelled and test rows (PILLAR's setting).

    Implements: PILLAR.Alg1's data setting (a public unlabelled share of the data, 10% in PILLAR's
    experiments).  A stratified ``test_share`` of the rows (scikit-learn's ``train_test_split`` with
    ``random_state=rng``) is the test set; of the rest, ``round(public_share * len(y))`` rows drawn
    uniformly (``default_rng(rng)``) are public, their labels dropped; the remainder is private.

    Returns
    -------
    (X_private, y_private, X_public, X_test, y_test)

    >>> X = np.arange(200.0).reshape(100, 2); y = np.arange(100) % 2
    >>> [a.shape[0] for a in semi_private_split(X, y)]
    [70, 70, 10, 20, 20]
    """
    for name, v in (("public_share", public_share), ("test_share", test_share)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number in (0, 1), got {type(v).__name__}")
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be an int seed, got {type(rng).__name__}")
    from sklearn.model_selection import train_test_split

    X, y = np.asarray(X), np.asarray(y)
    for name, v in (("public_share", public_share), ("test_share", test_share)):
        if not 0.0 < float(v) < 1.0:
            raise ValueError(f"{name} must be in (0, 1), got {v!r}")
    if float(public_share) + float(test_share) >= 1.0:
        raise ValueError(f"public_share + test_share must be < 1, got {public_share!r} + {test_share!r}")
    idx = np.arange(len(y))
    rest, test = train_test_split(idx, test_size=float(test_share), random_state=int(rng), stratify=y)
    n_pub = int(round(float(public_share) * len(y)))
    perm = np.random.default_rng(int(rng)).permutation(rest)
    pub, priv = perm[:n_pub], perm[n_pub:]
    return X[priv], y[priv], X[pub], X[test], y[test]

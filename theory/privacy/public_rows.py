"""Public unlabelled data in scikit-learn tools: unlabelled rows in X, marked by a sentinel label.

Implements: HPSY.Thm3 / PILLAR.Alg1's input convention (public unlabelled sample + private labelled
sample) in scikit-learn's semi-supervised form (as ``sklearn.semi_supervised.SelfTrainingClassifier``):
the public rows are rows of ``X`` whose label is the sentinel ``unlabeled_label``.

Why this design (and not a ``fit`` parameter or metadata routing):

* A ``Pipeline`` transforms only ``X``: public data passed as a fit parameter reaches the final step
  untransformed (raw public rows go into the PCA while the private rows are scaled).  Rows of ``X``
  go through every step.
* ``GridSearchCV`` / ``cross_val_score`` slice every fit parameter whose length equals ``len(X)``
  (scikit-learn cannot declare metadata "not sample-aligned"): public data of that length is cut
  into folds.  With the sentinel convention, :class:`LabelledSplit` splits only the labelled rows
  and puts every public row in every training fold (never in a test fold).
* A transformer must be fitted on public data only (fitting a ``StandardScaler`` on private rows
  releases their mean): :class:`PublicRowsFitted` fits the wrapped transformer on the sentinel rows
  and applies it to all rows.  Stateless per-row maps (``Normalizer``) need no wrapper.

Example
-------
>>> import numpy as np
>>> from sklearn.preprocessing import StandardScaler
>>> X = np.array([[0.0], [2.0], [10.0], [20.0]]); y = np.array([-1, -1, 0, 1])
>>> PublicRowsFitted(StandardScaler(), unlabeled_label=-1).fit(X, y).transformer_.mean_.tolist()
[1.0]
>>> from sklearn.model_selection import KFold
>>> [(tr.tolist(), te.tolist()) for tr, te in LabelledSplit(KFold(2), unlabeled_label=-1).split(X, y)]
[([0, 1, 3], [2]), ([0, 1, 2], [3])]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from semiprivate.theory.privacy._release import Released, note_sentinel_rows
from semiprivate.theory.privacy.public_preprocessing import bounded_features
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.model_selection import check_cv
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, Normalizer, RobustScaler, StandardScaler
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted

__all__ = ["PrivacyWarning", "public_mask", "PublicRowsFitted", "LabelledSplit", "check_sentinel", "check_sentinels",
           "ROW_WISE"]


class PrivacyWarning(UserWarning):
    """A fitted estimator's ``privacy_`` gives no guarantee for this configuration (it says why)."""


def public_mask(y: Any, unlabeled_label: Any) -> np.ndarray:
    """Boolean mask of the public (unlabelled) rows: ``y == unlabeled_label`` (all False for None).

    >>> public_mask([3, -1, 4], -1).tolist()
    [False, True, False]
    """
    arr = np.asarray(y)
    if unlabeled_label is None:
        return np.zeros(arr.shape[0], dtype=bool)
    return np.asarray(arr == unlabeled_label, dtype=bool).reshape(arr.shape[0])


def _same_label(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _require_sentinel(unlabeled_label: Any, owner: str) -> None:
    """No default sentinel: -1, the old default, is the negative class of the +-1 convention."""
    if unlabeled_label is None:
        raise ValueError(f"unlabeled_label: {owner} needs the label of the public rows given explicitly (no default: "
                         "a default such as -1 is also a class under the +-1 convention); pass unlabeled_label=... "
                         "with a value that is not one of your classes")


def check_sentinel(unlabeled_label: Any, classes: Any, *, where: str = "") -> None:
    """Refuse a sentinel ``unlabeled_label`` that is also one of the declared ``classes``.

    A private row labelled with that class would be taken for a public row (and go, e.g., into the
    public PCA): public rows must never be decided by a label value a private row can carry.
    ValueError naming the parameter and the fix.
    """
    if not isinstance(where, str):
        raise TypeError(f"where must be a str (the owner named in messages), got {type(where).__name__}")
    if unlabeled_label is None or classes is None:
        return
    try:
        values = list(np.asarray(classes, dtype=object).ravel())
    except (TypeError, ValueError):
        return
    if any(_same_label(unlabeled_label, c) for c in values):
        raise ValueError(f"unlabeled_label={unlabeled_label!r}{where} is also one of the classes {values!r}: a private "
                         "row of that class would be taken for a public row. Pass the public rows with X_public= "
                         "(fit(X, y, X_public=...)), or choose a sentinel that is not a class (e.g. None with "
                         "X_public, or a value outside classes)")


def check_sentinels(estimator: Any, unlabeled_label: Any, *, owner: str) -> None:
    """Every component of ``estimator`` (a Pipeline's steps, nested parameters) must mark public rows with the
    same ``unlabeled_label`` as its ``owner`` (a search), and none may declare that sentinel as a class.

    Two components that disagree on the sentinel see different rows as public: a
    :class:`PublicRowsFitted` step with another sentinel is fitted on private rows.  ValueError naming
    the parameter and the fix.
    """
    if not isinstance(owner, str):
        raise TypeError(f"owner must be a str (the search named in messages), got {type(owner).__name__}")
    params = estimator.get_params(deep=True) if hasattr(estimator, "get_params") else {}
    for name, value in params.items():
        if name == "unlabeled_label" or name.endswith("__unlabeled_label"):
            if not _same_label(value, unlabeled_label):
                raise ValueError(f"estimator: its parameter {name}={value!r} differs from {owner}'s unlabeled_label="
                                 f"{unlabeled_label!r}; the two would see different rows as public (a step fitted "
                                 f"on public rows would be fitted on private ones). Set {name}={unlabeled_label!r}")
        if name == "classes" or name.endswith("__classes"):
            check_sentinel(unlabeled_label, value, where=f" (of {owner}; {name})")


def _num_rows(X: Any) -> int:
    return int(X.shape[0]) if hasattr(X, "shape") else len(X)


def _stack(parts: list[Any]) -> Any:
    first = parts[0]
    if hasattr(first, "iloc"):
        import pandas as pd

        return pd.concat(parts)
    if hasattr(first, "tocsr"):
        import scipy.sparse as sp

        return sp.vstack(parts).tocsr()
    return np.vstack(parts)


#: scikit-learn transformers whose ``transform`` maps each row on its own (fitted state aside): applied to a
#: whole batch by :class:`PublicRowsFitted`; any other transformer is applied row by row.
ROW_WISE: tuple[type, ...] = (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler, Normalizer, PCA, TruncatedSVD)


class PublicRowsFitted(Released, TransformerMixin, BaseEstimator):
    """A transformer fitted on the public rows only (label ``unlabeled_label``), applied to every row.

    Implements: HPSY.Thm3 / PILLAR.Alg1 (Step 1 touches public data only: a preprocessing step
    fitted on public rows is a function of public data, so it costs no privacy).

    Parameters
    ----------
    transformer : scikit-learn transformer
        Cloned and fitted on the public rows of X.
    unlabeled_label : label
        The sentinel label of public rows in y, required (no default: -1, ``SelfTrainingClassifier``'s,
        is the negative class of the +-1 convention, and a sentinel that is also a class would fit the
        transformer on private rows; inside a search it must equal the search's own).
    """

    _public = frozenset({"transformer_", "n_public_", "n_features_in_", "feature_names_in_"})  # public rows only

    def __init__(self, transformer: Any, *, unlabeled_label: Any = None) -> None:
        self.transformer = transformer
        self.unlabeled_label = unlabeled_label

    def fit(self, X: Any, y: Any = None) -> PublicRowsFitted:
        """Fit ``clone(transformer)`` on the rows of X whose label is ``unlabeled_label``."""
        _require_sentinel(self.unlabeled_label, "PublicRowsFitted")
        if y is None:
            raise ValueError("PublicRowsFitted.fit needs y: the public rows are those labelled unlabeled_label="
                             f"{self.unlabeled_label!r}")
        mask = public_mask(y, self.unlabeled_label)
        if not mask.any():
            raise ValueError(f"X has no public row (no label equal to unlabeled_label={self.unlabeled_label!r}): "
                             "the transformer is fitted on public rows only")
        self.transformer_ = clone(self.transformer).fit(_safe_indexing(X, np.flatnonzero(mask)))
        self.n_public_ = int(mask.sum())
        # the learner that later receives this y must read the same rows as public (same sentinel), or it is
        # refused and this step left unfitted (Released's run check, note_sentinel_rows)
        note_sentinel_rows(y, self.unlabeled_label, self)
        return self

    def transform(self, X: Any) -> Any:
        """The fitted transformer applied to every row of X, each row on its own unless the transformer is a
        known row-wise map (:data:`ROW_WISE`): a transform that sees the whole batch (e.g. one subtracting
        the batch mean) would make the public rows functions of the private ones."""
        check_is_fitted(self, "transformer_")
        # a finite private entry that the public map overflows is clipped (bounded_features), with no warning
        with np.errstate(over="ignore", invalid="ignore"):  # no warnings filter change: its version counts runs
            if type(self.transformer_) in ROW_WISE:  # the exact class: a subclass may override transform
                return bounded_features(self.transformer_.transform(X))
            n = _num_rows(X)
            if n <= 1:
                return bounded_features(self.transformer_.transform(X))
            parts = [self.transformer_.transform(_safe_indexing(X, [i])) for i in range(n)]
            return bounded_features(_stack(parts))

    def get_feature_names_out(self, input_features: Any = None) -> Any:
        """The wrapped transformer's output feature names."""
        check_is_fitted(self, "transformer_")
        return self.transformer_.get_feature_names_out(input_features)


class LabelledSplit:
    """Cross-validation splitter: folds of the labelled rows; every public row in every training fold.

    Implements: the sentinel convention of this module for ``GridSearchCV`` / ``cross_val_score``
    (``cv=LabelledSplit(5, unlabeled_label=-1)``): the public sample is never sliced and never
    scored.  ``cv`` is anything :func:`sklearn.model_selection.check_cv` accepts (an int gives
    ``StratifiedKFold`` on the labelled rows).
    """

    def __init__(self, cv: Any = 5, *, unlabeled_label: Any = None) -> None:
        self.cv = cv
        self.unlabeled_label = unlabeled_label

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield (train, test) indices into X: train = all public rows + a fold's labelled rows."""
        _require_sentinel(self.unlabeled_label, "LabelledSplit")
        if y is None:
            raise ValueError("LabelledSplit.split needs y (the public rows are labelled unlabeled_label)")
        yy = np.asarray(y)
        mask = public_mask(yy, self.unlabeled_label)
        pub, lab = np.flatnonzero(mask), np.flatnonzero(~mask)
        if lab.size == 0:
            raise ValueError(f"y has no labelled row (every label equals unlabeled_label={self.unlabeled_label!r})")
        g = None if groups is None else np.asarray(groups)[lab]
        inner = check_cv(self.cv, yy[lab], classifier=True)
        for tr, te in inner.split(np.zeros((lab.size, 1)), yy[lab], g):
            yield np.concatenate([pub, lab[tr]]), lab[te]

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of folds of the inner splitter."""
        return int(check_cv(self.cv, None if y is None else np.asarray(y), classifier=y is not None).get_n_splits())

    def __repr__(self) -> str:
        return f"LabelledSplit({self.cv!r}, unlabeled_label={self.unlabeled_label!r})"

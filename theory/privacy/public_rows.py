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
           "ROW_WISE", "check_public_map", "map_rows"]


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


#: ``handle_unknown`` values that raise (``"error"``) or warn (``"warn"``) on a category the public rows lack
_UNKNOWN_REFUSED = ("error", "warn")


def check_public_map(transformer: Any, name: str) -> None:
    """Refuse, before any row is read, a transformer that raises or warns on a value its public fit did not see.

    A scikit-learn encoder with ``handle_unknown="error"`` (``OneHotEncoder``'s and ``OrdinalEncoder``'s
    default) raises on a private row holding a category absent from the public rows, naming the value, and
    ``"warn"`` warns: an exception or a warning on one dataset and not on its neighbour.  The refusal here
    reads the parameter only (the same for every dataset), names it and the fix.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    try:
        params = transformer.get_params(deep=True)
    except (AttributeError, TypeError):
        return
    for key, value in params.items():
        if key.rsplit("__", 1)[-1] == "handle_unknown" and isinstance(value, str) and value in _UNKNOWN_REFUSED:
            raise ValueError(f"{name}: {key}={value!r} raises or warns on a private row holding a category the "
                             "public rows lack (an error or a warning on one dataset and not on its neighbour); use "
                             "handle_unknown='ignore' (OneHotEncoder) or 'use_encoded_value' (OrdinalEncoder)")


def _zero_like(part: Any) -> Any:
    if isinstance(part, np.ndarray):
        return np.zeros_like(part)
    if hasattr(part, "iloc"):
        return part * 0
    return part.multiply(0) if hasattr(part, "multiply") else part * 0


def _bad_output(row_in: Any, row_out: Any) -> bool:
    """Whether a map sent a row with no NaN to a row with a NaN (a finite private entry the map cannot take)."""
    out = np.asarray(row_out) if isinstance(row_out, np.ndarray) else None
    if out is None or out.dtype.kind not in "fc" or not np.isnan(out).any():
        return False
    try:
        return not np.isnan(np.asarray(row_in, dtype=float)).any()
    except (TypeError, ValueError):
        return True  # non-numeric input (categories): a NaN is the map's own


def map_rows(transformer: Any, X: Any, *, like: Any = None) -> Any:
    """A transformer fitted on public rows applied to the rows of ``X``, one row at a time unless it is a known
    row-wise map (:data:`ROW_WISE`), with a public fallback for what a private row can trigger.

    One function for every route that applies a public-fitted map to private rows (:class:`PublicRowsFitted`,
    :class:`~semiprivate.theory.learners.pipeline.SemiPrivatePipeline`).  Every outcome is a function of the row
    alone and emits nothing, so one private row changes one output row and no exception or warning exists on one
    dataset and not on its neighbour:

    * the map runs under ``np.errstate`` (overflow, invalid and divide-by-zero warn nothing; no warnings filter is
      changed: its version would count runs) and its output is clipped by
      ``public_preprocessing.bounded_features`` (a finite entry that a map
      sends to infinity becomes ``+-FEATURE_BOUND``);
    * a row the map refuses (it raises) or sends to NaN with no NaN in its input is mapped to the zero row
      (values are mapped, never refused: a refusal would depend on the private value, and its message would
      show it).  Configurations that refuse by design are refused beforehand by :func:`check_public_map`.

    Not covered: a warning the transformer issues itself (``warnings.warn`` in a user's function) passes through;
    holding it back would change the warnings filters, whose version counts runs.

    ``like``: an output of the same map on public rows, whose first row gives the zero row's shape when no row of
    ``X`` can be mapped; without it, a ``X`` none of whose rows can be mapped is refused with a ValueError that
    shows no value.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        n = _num_rows(X)
        if type(transformer) in ROW_WISE or n <= 1:  # the exact class: a subclass may override transform
            failed = False
            try:
                out = transformer.transform(X)
            except Exception:  # noqa: BLE001 - replaced below, row by row
                failed = True
            if not failed and not _bad_output(X, out):
                return bounded_features(out)
            if n <= 1 and not failed:
                return bounded_features(_zero_like(out))
        parts: list[Any] = []
        bad: list[int] = []
        for i in range(n):
            row = _safe_indexing(X, [i])
            try:
                part = transformer.transform(row)
            except Exception:  # noqa: BLE001 - the row is mapped to the zero row, the message dropped
                part = None
            if part is None or _bad_output(row, part):
                bad.append(i)
            parts.append(part)
        template = next((p for p in parts if p is not None), None)
        if template is None and like is not None and _num_rows(like):
            template = _safe_indexing(like, [0])
        if template is None:
            raise ValueError(f"{type(transformer).__name__}.transform failed on every row (message withheld: it "
                             "may show private values); a transformer fitted on the public rows must accept every "
                             "row of the private domain")
        for i in bad:
            parts[i] = _zero_like(template)
        return bounded_features(_stack(parts))


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
        check_public_map(self.transformer, "transformer")
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
        # overflow bounded, a refused row mapped to the zero row, nothing emitted (map_rows)
        return map_rows(self.transformer_, X)

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

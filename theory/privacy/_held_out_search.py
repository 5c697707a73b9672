"""What the private hyper-parameter searches share: the candidate grid, the split of the labelled rows
into a training part S1 and a held-out part S2, the Pipeline-step refusal, seeding and reading a
candidate's ``privacy_``, the held-out count, and the selected estimator's predict / score.

Used by :class:`~semiprivate.theory.privacy.model_selection.PrivateSearchCV` (PILLAR.Alg2's selection
step) and :class:`~semiprivate.theory.privacy.random_stopping.RandomStoppingSearchCV` (LT19 / PS22
random stopping); their module docstrings give the procedures and the privacy proofs that rely on this
split (a uniformly random held-out subset of fixed size ``round(holdout_fraction * n_labelled)``, coins
independent of the data, public rows in every fit and never in S2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.privacy._release import NOT_PRIVATE, child_streams, declared_model
from semiprivate.theory.privacy.public_rows import PublicRowsFitted, check_sentinels, public_mask
from semiprivate.validation import Real
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.preprocessing import Normalizer
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted

__all__ = ["HOLDOUT", "HeldOutSplit", "SelectedEstimatorMixin", "candidates_of", "check_base", "check_steps", "checked_candidates",
           "held_out_correct", "privacy_of", "split_held_out"]

#: The valid ``holdout_fraction``: a probability in the open interval (0, 1).
HOLDOUT = Real(0.0, 1.0, closed="neither")


def _n_rows(a: Any) -> int:
    """The number of rows of an array-like (its first dimension)."""
    shape = getattr(a, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(a)
    except TypeError:
        raise TypeError(f"expected an array-like with rows, got {type(a).__name__}") from None


def candidates_of(param_grid: Any) -> list[dict[str, Any]]:
    """The candidates of ``param_grid`` (``sklearn.model_selection.ParameterGrid``); refuses an empty grid."""
    candidates = list(ParameterGrid(param_grid))
    if not candidates:
        raise ValueError("param_grid must give at least one candidate")
    return candidates


def check_steps(est: Any) -> None:
    """Refuse a Pipeline step before the learner unless it is fitted on public rows only
    (:class:`~semiprivate.theory.privacy.public_rows.PublicRowsFitted`) or is a known row-wise map that
    learns nothing (``Normalizer``, ``"passthrough"``): a StandardScaler would keep the exact mean of the
    private rows, and a ``FunctionTransformer`` sees the whole batch (``X - X.mean(0)`` makes every public
    row a function of the private ones), so neither is covered by any ``privacy_``."""
    for name, step in getattr(est, "steps", [])[:-1]:
        if step is None or step == "passthrough" or type(step) in (PublicRowsFitted, Normalizer):  # exact classes
            continue  # fitted on public rows only, or a row-wise map that learns nothing
        raise ValueError(f"estimator: Pipeline step {name!r} ({type(step).__name__}) is fitted on, or sees, the "
                         "private rows together with the public ones, and no privacy_ covers what it learns or "
                         "mixes; wrap it as PublicRowsFitted(...) (fitted on the public rows only, applied row by "
                         "row), use Normalizer, or apply a per-row function to X before the search")


def checked_candidates(estimator: Any, candidates: list[dict[str, Any]], unlabeled_label: Any,
                       owner: str) -> list[Any]:
    """``clone(estimator).set_params(**c)`` for every candidate, each checked by :func:`check_base` before any
    fit (a ``param_grid`` can replace a step, a sentinel or the learner itself: what is fitted is what is
    checked, and a refusal does not depend on the coins)."""
    out = []
    for c in candidates:
        est = clone(estimator).set_params(**c)
        check_base(est, unlabeled_label, owner)
        out.append(est)
    return out


def check_base(est: Any, unlabeled_label: Any, owner: str) -> None:
    """What every search checks before it fits anything: the Pipeline steps (:func:`check_steps`), the
    sentinels of its components (:func:`~semiprivate.theory.privacy.public_rows.check_sentinels`), and the
    base's declared privacy model (a base declaring ``"not private"`` is refused: no search can claim a
    guarantee around it)."""
    check_steps(est)
    check_sentinels(est, unlabeled_label, owner=owner)
    if declared_model(est) == NOT_PRIVATE:
        raise ValueError(f"estimator: {type(est).__name__} declares privacy model {NOT_PRIVATE!r}; {owner} needs a "
                         "private base (its per-fit privacy_ is what the search composes): use a private learner")


def privacy_of(est: Any) -> tuple[float, float]:
    """The fitted ``est``'s ``privacy_`` (a Pipeline's is read from its last step); refuses an estimator
    without one (its fits cannot be accounted) and one whose fit reports no finite guarantee."""
    p = getattr(est, "privacy_", None)
    if p is None and hasattr(est, "steps"):
        p = getattr(est.steps[-1][1], "privacy_", None)
    if p is None:
        raise TypeError(f"estimator must report privacy_ after fit (a private learner); {type(est).__name__} "
                        "does not: its fits cannot be accounted")
    eps, dlt = float(p[0]), float(p[1])
    if not (0.0 <= eps < float("inf") and 0.0 <= dlt < 1.0):
        raise ValueError(f"estimator: a fit reported privacy_ = ({eps}, {dlt}), no guarantee (e.g. a label set read "
                         "from the private labels, or a non-private learner); declare what the learner needs "
                         "(e.g. classes=) so that each fit is private")
    return eps, dlt


@dataclass(frozen=True)
class HeldOutSplit:
    """The labelled rows split into S1 (training, with every public row) and S2 (held out).

    ``y`` is the whole label array, ``public`` its public-row mask, ``labelled`` the labelled rows'
    indices, ``held_out`` S2's indices, ``X_train``/``y_train`` the public rows + S1 (in row order),
    ``X_held``/``y_held`` S2, and ``rng`` the generator the split drew from (the search goes on with it).
    """

    y: np.ndarray
    public: np.ndarray
    labelled: np.ndarray
    held_out: np.ndarray
    X_train: Any
    y_train: np.ndarray
    X_held: Any
    y_held: np.ndarray
    rng: np.random.Generator


def split_held_out(X: Any, y: Any, *, unlabeled_label: Any, holdout_fraction: float, rng: Any) -> HeldOutSplit:
    """Split the labelled rows of (X, y) into S1 and S2: a uniformly random subset of
    ``round(holdout_fraction * n_labelled)`` labelled rows goes to S2 (coins from ``rng``, independent of
    the data), the rest and every public row (label ``unlabeled_label``) to the training part.  Refuses a
    missing ``y`` and a ``y`` with no labelled row."""
    if y is None:
        raise ValueError("y is required (labelled rows, and public rows labelled unlabeled_label)")
    yy = np.asarray(y)
    if yy.ndim != 1:  # a column (n, 1) would broadcast the held-out comparison to n x n "correct" rows
        raise ValueError(f"y must be 1-d (n_samples,), got shape {yy.shape}; pass y.ravel() for a column vector")
    n_x = _n_rows(X)
    if n_x != yy.shape[0]:
        raise ValueError(f"X and y must have the same number of rows: X has {n_x}, y has {yy.shape[0]}")
    pub = public_mask(yy, unlabeled_label)
    lab = np.flatnonzero(~pub)
    if lab.size == 0:
        raise ValueError("y has no labelled row")
    split_stream, g = child_streams(rng, 2)  # the split's coins and the search's: independent children
    # a uniformly random subset of fixed size, the coins independent of the data: |S1| and |S2|, and so
    # every candidate's privacy_, depend on the number of labelled rows only, never on the coins
    n_held = int(round(float(holdout_fraction) * lab.size))
    held = np.zeros(lab.size, dtype=bool)
    held[split_stream.permutation(lab.size)[:n_held]] = True
    s1, s2 = lab[~held], lab[held]
    train = np.sort(np.concatenate([np.flatnonzero(pub), s1]))
    return HeldOutSplit(y=yy, public=pub, labelled=lab, held_out=s2,
                        X_train=_safe_indexing(X, train), y_train=yy[train],
                        X_held=_safe_indexing(X, s2), y_held=yy[s2], rng=g)


def held_out_correct(est: Any, split: HeldOutSplit) -> int:
    """The number of held-out rows (S2) that the fitted ``est`` predicts correctly (0 when S2 is empty): an
    integer, so that the noise the searches add to it is exact integer noise."""
    if not split.held_out.size:
        return 0
    pred = np.asarray(est.predict(split.X_held))
    if pred.shape != split.y_held.shape:  # the count's sensitivity is 1 only for one prediction per held-out row
        raise ValueError(f"estimator: predict returned shape {pred.shape} for {split.y_held.shape[0]} held-out rows; "
                         "it must return one label per row")
    return int(np.count_nonzero(pred == split.y_held))


class SelectedEstimatorMixin:
    """predict / decision_function / score of a search through its ``best_estimator_``; ``score`` counts
    the labelled rows only (rows labelled ``unlabeled_label`` are left out).  Put before
    ``ClassifierMixin`` in the bases."""

    best_estimator_: Any
    unlabeled_label: Any

    def _keep_selected(self, est: Any) -> None:
        """Make the fitted ``est`` the search's ``best_estimator_`` and take its ``classes_`` and
        ``n_features_in_`` (when it has them)."""
        self.best_estimator_ = est
        if hasattr(est, "classes_"):
            self.classes_ = est.classes_
        if hasattr(est, "n_features_in_"):
            self.n_features_in_ = est.n_features_in_

    def predict(self, X: Any) -> Any:
        """The selected estimator's predictions."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def decision_function(self, X: Any) -> Any:
        """The selected estimator's decision function."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy of the selected estimator on the labelled rows of (X, y)."""
        check_is_fitted(self, "best_estimator_")
        if y is None:
            raise ValueError("y is required by score (the true labels of X's rows)")
        n_x, n_y = _n_rows(X), _n_rows(y)
        if n_x != n_y:
            raise ValueError(f"X and y must have the same number of rows: X has {n_x}, y has {n_y}")
        if sample_weight is not None and _n_rows(sample_weight) != n_y:
            raise ValueError(f"sample_weight must have one weight per row of y ({n_y}), "
                             f"got {_n_rows(sample_weight)}")
        keep = np.flatnonzero(~public_mask(y, self.unlabeled_label))
        sw = None if sample_weight is None else np.asarray(sample_weight)[keep]
        return float(super().score(_safe_indexing(X, keep), np.asarray(y)[keep],  # type: ignore[misc]
                                   sample_weight=sw))

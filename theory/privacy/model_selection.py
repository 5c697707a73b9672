"""Private model selection: fit every candidate on one part of the private data, pick one by the
exponential mechanism on the held-out part, and account for every fit.

Implements: PILLAR.Alg2 (its selection step, applied to hyper-parameter candidates instead of R runs of
one procedure: "applies the exponential mechanism to output one final result" on held-out private
data; McSherry-Talwar 2007's exponential mechanism, score = number of correct held-out predictions,
sensitivity 1).

scikit-learn's ``GridSearchCV`` on private data is **not private**: it fits 10s of models, compares
their exact scores on private folds and refits the winner; the winner's own ``privacy_`` covers one
fit, not the search.  :class:`PrivateSearchCV` is its private counterpart; its ``privacy_`` grows with
the number of candidates.  For large grids, :class:`semiprivate.theory.privacy.random_stopping.RandomStoppingSearchCV`
(Liu-Talwar / Papernot-Steinke random stopping) pays about three base runs' epsilon whatever the grid's size.

Procedure (``fit(X, y)``):

1. Split the labelled rows into a training part S1 and a held-out part S2: a uniformly random subset
   of ``round(holdout_fraction * n_labelled)`` rows goes to S2 (coins from ``rng``, independent of the
   data; the sizes, hence every candidate's ``privacy_``, depend on the number of labelled rows only).
   Public rows (label ``unlabeled_label``, :mod:`semiprivate.theory.privacy.public_rows`) go to every
   fit and never to S2.
2. Fit ``clone(estimator).set_params(**c)`` on public rows + S1 for each candidate c of
   ``param_grid``; each reports its own ``privacy_`` (eps_c, delta_c) over S1.
3. Select candidate c with probability proportional to ``exp(epsilon_select * correct_c(S2) / 2)``
   (:func:`semiprivate.kernels.exponential_mechanism`, sensitivity 1: one added, removed or replaced
   held-out row changes each count by at most 1), (epsilon_select, 0)-DP in S2.
4. ``refit=True``: fit the selected candidate again on public rows + all labelled rows (its
   (eps_r, delta_r) composes sequentially); ``refit=False`` (default): the selected model fitted on S1
   is the output.

Privacy (``privacy_``), from what ran: the candidates compose by basic composition on S1
(sum eps_c, sum delta_c); S1 and S2 are disjoint and the split's coins are independent of the
data, so a neighbouring data set changes one part only (couple the coins of the common rows) and the
search is (max(sum eps_c, epsilon_select), sum delta_c)-DP (adaptive parallel composition); a refit
adds (eps_r, delta_r).  The neighbour relation is the candidates' own (each ``privacy_`` must be
over the same one, as for the halfspace learners: replace-one labelled example, public rows
fixed).  An estimator without ``privacy_`` is refused; a candidate reporting epsilon = inf makes the
total inf.  Exposed state: the fitted candidates (covered by the composition), the selected index
and parameters; exact held-out scores are not stored (they are statistics of S2 that no guarantee
covers).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.kernels import exponential_mechanism
from semiprivate.theory.privacy._held_out_search import (
    HOLDOUT,
    SelectedEstimatorMixin,
    candidates_of,
    check_base,
    checked_candidates,
    held_out_correct,
    privacy_of,
    split_held_out,
)
from semiprivate.theory.privacy._release import Released, base_streams, child_streams
from semiprivate.theory.privacy.accounting import compose_up
from semiprivate.validation import EPSILON, RNG, Boolean, validate_params
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import _safe_indexing

__all__ = ["PrivateSearchCV"]


class PrivateSearchCV(Released, SelectedEstimatorMixin, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Private counterpart of ``GridSearchCV`` (see the module docstring for the procedure and proof).

    Implements: PILLAR.Alg2 (exponential-mechanism selection on held-out private data).

    Parameters
    ----------
    estimator : classifier with ``privacy_`` after fit
        E.g. ``Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(...))])`` (a Pipeline's
        ``privacy_`` is read from its last step).
    param_grid : dict or list of dicts
        As ``GridSearchCV``'s (``sklearn.model_selection.ParameterGrid``).
    epsilon_select : float
        Epsilon of the selection (on the held-out part).
    holdout_fraction : float in (0, 1)
        Probability that a labelled row is held out.
    unlabeled_label : label or None
        Label of public rows in y (they go to every fit, never to the held-out part).
    refit : bool
        Refit the selected candidate on all labelled rows (adds its privacy).
    rng : None, int or Generator

    Attributes
    ----------
    best_estimator_, best_index_, best_params_, candidates_ (list of dicts), estimators_ (fitted on
    S1), privacy_ (epsilon, delta) of the whole search, budget_ (dict: per-candidate privacy,
    selection, composition), classes_, n_features_in_ (when the estimator has them).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.pipeline import Pipeline
    >>> from sklearn.preprocessing import Normalizer
    >>> from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
    >>> X, y = load_digits(return_X_y=True)
    >>> y = y.copy(); y[:600] = -1                      # the first 600 rows are public, unlabelled
    >>> pipe = Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(
    ...     1.0, k=16, epochs=2, classes=range(10), unlabeled_label=-1, random_state=0))])
    >>> search = PrivateSearchCV(pipe, {"clf__k": [8, 16]}, epsilon_select=1.0, unlabeled_label=-1,
    ...                          rng=0).fit(X, y)
    >>> search.privacy_[0] <= 2.0, search.best_params_["clf__k"] in (8, 16)
    (True, True)
    """

    _releases = frozenset({"best_estimator_", "best_index_", "best_params_", "estimators_", "privacy_", "budget_",
                           "classes_", "n_features_in_"})
    _public = frozenset({"candidates_", "n_rows_"})

    @validate_params(epsilon_select=EPSILON, holdout_fraction=HOLDOUT, refit=Boolean(), rng=RNG)
    def __init__(self, estimator: Any, param_grid: Any, *, epsilon_select: float = 1.0,
                 holdout_fraction: float = 0.2, unlabeled_label: Any = None, refit: bool = False,
                 rng: Any = None) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon_select = epsilon_select
        self.holdout_fraction = holdout_fraction
        self.unlabeled_label = unlabeled_label
        self.refit = refit
        self.rng = rng

    def fit(self, X: Any, y: Any, **fit_params: Any) -> PrivateSearchCV:
        """Run the search (module docstring); ``fit_params`` go unsliced to every fit."""
        # checked in __init__ and again here (set_params bypasses __init__)
        EPSILON.validate("epsilon_select", self.epsilon_select)
        HOLDOUT.validate("holdout_fraction", self.holdout_fraction)
        RNG.validate("rng", self.rng)
        Boolean().validate("refit", self.refit)
        check_base(self.estimator, self.unlabeled_label, "PrivateSearchCV")
        candidates = candidates_of(self.param_grid)
        configured = checked_candidates(self.estimator, candidates, self.unlabeled_label, "PrivateSearchCV")
        split = split_held_out(X, y, unlabeled_label=self.unlabeled_label, holdout_fraction=self.holdout_fraction,
                               rng=self.rng)
        # one independent child stream per candidate fit, one for the selection, one for the refit
        # (ARCHITECTURE.md, RNG discipline): a seed set on the estimator is overridden for each fit
        *fit_streams, select_stream, refit_stream = child_streams(split.rng, len(candidates) + 2)
        fitted, per = [], []
        for conf, stream in zip(configured, fit_streams):
            est = clone(conf)
            with base_streams(est, stream):
                est.fit(split.X_train, split.y_train, **fit_params)
            fitted.append(est)
            per.append(privacy_of(est))
        correct = np.array([held_out_correct(e, split) for e in fitted], dtype=np.int64)
        eps_sel = float(self.epsilon_select)
        # the exact sampler (integer scores, epsilon as its exact rational): no finite score gets probability 0
        index = int(exponential_mechanism(correct, eps_sel, sensitivity=1, rng=select_stream, exact=True))
        del correct  # exact held-out counts are not kept: no guarantee covers them
        # basic composition, rounded up (never below the exact sum of what the fits spent)
        fits_total = (compose_up(*(p[0] for p in per)), compose_up(*(p[1] for p in per)))
        total = (max(fits_total[0], eps_sel), fits_total[1])
        budget: dict[str, Any] = {"candidates": per, "fits_on_training_part": fits_total,
                                  "selection": (eps_sel, 0.0), "search": total,
                                  "composition": "basic over candidates on S1; parallel with the selection on S2"}
        best = fitted[index]
        if self.refit:
            best = clone(configured[index])
            all_rows = np.sort(np.concatenate([np.flatnonzero(split.public), split.labelled]))
            with base_streams(best, refit_stream):
                best.fit(_safe_indexing(X, all_rows), split.y[all_rows], **fit_params)
            r = privacy_of(best)
            budget["refit"] = r
            total = (compose_up(total[0], r[0]), compose_up(total[1], r[1]))
        budget["total"] = total
        self.candidates_ = candidates
        self.estimators_ = fitted
        self.best_index_ = index
        self.best_params_ = candidates[index]
        self.privacy_ = total
        self.budget_ = budget
        self.n_rows_ = int(split.y.shape[0])
        self._keep_selected(best)
        return self

"""A Pipeline whose preprocessing is fitted on the public rows only and applied to both inputs.

Implements: HPSY.Thm3 / PILLAR.Alg1 (Step 1 touches the public unlabelled sample only: whatever is fitted on it
is free for the private learner), for the preprocessing a practitioner puts before a learner.

``SemiPrivatePipeline([(name, transformer), ..., (name, learner)]).fit(X, y, X_public=P)``:

1. each transformer is cloned and fitted on the (already transformed) public rows ``P`` only; nothing of the
   private rows enters a fitted transformer;
2. it transforms the public rows and the private rows ``X``, each row on its own unless the transformer is a
   known row-wise map (:data:`semiprivate.theory.privacy.public_rows.ROW_WISE`), so no private row changes how
   another row is mapped; the map runs under ``np.errstate`` with its output bounded, and a row it refuses (it
   raises, or gives NaN from a row with none) becomes the zero row, so no private value causes an exception or a
   warning, or shows in a message (:func:`semiprivate.theory.privacy.public_rows.map_rows`); an encoder with
   ``handle_unknown="error"`` or ``"warn"`` is refused before any row is read (use ``handle_unknown="ignore"``);
3. the final learner runs ``fit(X_t, y, X_public=P_t)``: the public rows reach it through the same steps as the
   private ones.

A plain ``Pipeline`` with ``fit(X, y, clf__X_public=P)`` fits its transformers on the private rows (their
statistics are then released through the model) and hands the public rows to the learner untransformed (digits:
accuracy 0.269 instead of 0.353 in the issue's measurement).  The other working route is the sentinel one
(:mod:`semiprivate.theory.privacy.public_rows`: public rows inside ``X``, ``PublicRowsFitted``), needed for
scikit-learn's searches (``GridSearchCV`` cuts every fit parameter of length ``len(X)`` into folds).

Examples
--------
>>> import numpy as np
>>> from sklearn.preprocessing import Normalizer, StandardScaler
>>> from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
>>> g = np.random.default_rng(0)
>>> X, P = g.normal(5.0, 2.0, (300, 4)), g.normal(5.0, 2.0, (200, 4))
>>> y = (X[:, 0] > 5.0).astype(int)
>>> pipe = SemiPrivatePipeline([("scale", StandardScaler()), ("norm", Normalizer()),
...                             ("clf", SemiPrivateHalfspace(2.0, k=2, classes=[0, 1]))])
>>> pipe = pipe.fit(X, y, X_public=P)
>>> pipe.steps[0][1].mean_.round(1).tolist() == P.mean(axis=0).round(1).tolist()  # fitted on P only
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.privacy._release import Released
from semiprivate.theory.privacy.public_rows import check_public_map, map_rows
from sklearn.base import clone
from sklearn.pipeline import Pipeline

__all__ = ["SemiPrivatePipeline"]


class SemiPrivatePipeline(Released, Pipeline):
    """A scikit-learn ``Pipeline`` whose transformers are fitted on ``X_public`` only (module docstring).

    Implements: HPSY.Thm3, PILLAR.Alg1 (public-data preprocessing).

    Parameters
    ----------
    steps : list of (name, estimator)
        Transformers, then a semi-private learner with ``fit(X, y, X_public=None)`` (the last step).
    memory, transform_input, verbose :
        As :class:`sklearn.pipeline.Pipeline` (``memory`` is not used by ``fit``).

    Notes
    -----
    The guarantee is the final learner's (``privacy_``): the transformers are functions of the public rows, and
    each private row is mapped on its own, so one private row changes one row of the learner's private input.
    The fitted steps are its parameters (``steps``); it keeps nothing else (the release boundary,
    :class:`~semiprivate.theory.privacy._release.Released`).
    """

    _releases = frozenset()

    def __init__(self, steps: list[tuple[str, Any]], *, transform_input: list[str] | None = None, memory: Any = None,
                 verbose: bool = False) -> None:
        # checked here, naming the parameter (the package's rule for constructors); stored as given (clone works)
        if not isinstance(steps, list) or not steps or not all(
                isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], str) for s in steps):
            raise TypeError(f"steps must be a non-empty list of (name, estimator) pairs, got {type(steps).__name__}")
        if transform_input is not None and not (
                isinstance(transform_input, list) and all(isinstance(t, str) for t in transform_input)):
            raise TypeError(f"transform_input must be None or a list of str, got {type(transform_input).__name__}")
        if memory is not None and not isinstance(memory, str) and not hasattr(memory, "cache"):
            raise TypeError(f"memory must be None, a str or an object with a cache method (joblib.Memory), got "
                            f"{type(memory).__name__}")
        if not isinstance(verbose, bool | np.bool_):
            raise TypeError(f"verbose must be a bool, got {type(verbose).__name__}")
        super().__init__(steps, transform_input=transform_input, memory=memory, verbose=verbose)

    def fit(self, X: Any, y: Any = None, X_public: Any = None, **params: Any) -> SemiPrivatePipeline:
        """Fit every transformer on the public rows only, then the learner on the transformed rows.

        Parameters
        ----------
        X, y : the private labelled rows.
        X_public : (m, d) array
            The public unlabelled rows (required: the transformers are fitted on them).
        **params : passed to the final learner's ``fit``.

        Returns
        -------
        self
        """
        if X_public is None:
            raise ValueError("X_public is required: SemiPrivatePipeline fits its preprocessing on the public rows "
                             "only (fit(X, y, X_public=...))")
        self._validate_steps()
        for name, step in self.steps[:-1]:  # before any row is read: a refusal that reads no data
            if step is not None and step != "passthrough":
                check_public_map(step, f"steps[{name!r}]")
        Xt, Pt = X, X_public
        for i, (name, step) in enumerate(self.steps[:-1]):
            if step is None or step == "passthrough":
                continue
            fitted = clone(step).fit(Pt)
            self.steps[i] = (name, fitted)
            # public and private rows alike: each row on its own, overflow bounded, a row the map refuses mapped to
            # the zero row, nothing emitted (map_rows); the public output gives the zero row's shape
            Pt = map_rows(fitted, np.asarray(Pt) if not hasattr(Pt, "iloc") else Pt)
            Xt = map_rows(fitted, np.asarray(Xt) if not hasattr(Xt, "iloc") else Xt, like=Pt)
        final = self._final_estimator
        if final is not None and final != "passthrough":
            final.fit(Xt, y, X_public=Pt, **params)
        return self

    @property
    def privacy_(self) -> Any:
        """The final learner's guarantee for its run (the transformers read public rows only)."""
        return self._final_estimator.privacy_

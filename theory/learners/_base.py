"""Shared plumbing of the learners: input checks, the scikit-learn parameter protocol, ``predict``,
and the declared privacy models.

Privacy models (class attribute ``privacy_model_`` of every learner):

* ``"labelled"`` (:data:`LABELLED`): ``privacy_`` holds for neighbouring inputs that differ in one
  labelled example, the public (unlabelled) sample being fixed.  The relation is replace-one: one
  labelled example (x, y) is replaced by any other (x', y') of the domain, the number of labelled
  examples staying the same (dp-accounting's ``NeighboringRelation.REPLACE_ONE``).  Every private
  trainer of such a learner is accounted under it: DP-SGD
  (:func:`semiprivate.theory.privacy.accounting.dpsgd_epsilon`, ``relation="replace_one"``), Noisy
  SGD (BST14) and PILLAR Alg 2.  ABM19's ASSPP (Lem 3.2), HPSY's component-graph learner (Thm 1)
  and the halfspace learners are of this kind.
* ``"all inputs"`` (:data:`ALL_INPUTS`): ``privacy_`` holds for neighbouring inputs that differ in
  any one entry of any input the learner reads, public or labelled (BNS15's PSSL, PAL and TPAL,
  Def 5.3/5.4).  A learner that ignores its public argument is of this kind.
* ``"not private"`` (:data:`NOT_PRIVATE`): no guarantee (a non-private baseline).

A wrapper whose proof needs the whole database to be private (BNS15 Thm 5.5, Alg 4) calls
:func:`require_all_inputs`, which refuses a ``"labelled"`` base with a ValueError.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from semiprivate.kernels.validation import check_binary
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.privacy._release import ALL_INPUTS, LABELLED, NOT_PRIVATE, PRIVACY_MODELS

__all__ = ["ALL_INPUTS", "LABELLED", "NOT_PRIVATE", "PRIVACY_MODELS", "privacy_model", "require_all_inputs",
           "check_fit_inputs"]

# The declared privacy models (LABELLED, ALL_INPUTS, NOT_PRIVATE; see the module docstring) are defined one
# layer down with the release boundary (semiprivate.theory.privacy._release), so that the searches there
# can check a base's model.


def privacy_model(learner: Any) -> str:
    """The declared privacy model of ``learner`` (its ``privacy_model_``); TypeError if none is declared."""
    model = getattr(learner, "privacy_model_", None)
    if model not in PRIVACY_MODELS:
        raise TypeError(f"learner {type(learner).__name__} declares no privacy model: set the class attribute "
                        f"privacy_model_ to one of {PRIVACY_MODELS}")
    return str(model)


def require_all_inputs(learner: Any, wrapper: str, why: str) -> None:
    """Refuse a base learner that is not private in every input it reads (ValueError saying why and what to use)."""
    model = privacy_model(learner)
    if model != ALL_INPUTS:
        raise ValueError(
            f"learner: {wrapper} needs a base learner private in every input it reads (privacy model "
            f"{ALL_INPUTS!r}), got {type(learner).__name__} with privacy model {model!r}: {why}. Use a learner "
            "that reads only its labelled sample (e.g. GenericPrivateLearner) or one private in the public data "
            "too (GenericLearner, LabelBoost)")


def check_fit_inputs(concept_class: ConceptClass, X_private: Any, y_private: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a private labelled sample (non-empty, labels in {0,1}, same length)."""
    X = concept_class.validate_points(X_private, "X_private")
    y = check_binary(y_private, "y_private", length=len(X), as_bool=True)
    return X, y


class _Fitted:
    """Mixin: ``predict`` from the fitted ``hypothesis_``."""

    concept_class: ConceptClass
    hypothesis_: Any

    def predict(self, X: Any) -> np.ndarray:
        """Labels (0/1 as int64) of the learned hypothesis on ``X``."""
        if not hasattr(self, "hypothesis_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit first")
        return self.concept_class.evaluate(self.hypothesis_, X).astype(np.int64)


class _Params:
    """Mixin: scikit-learn ``get_params`` / ``set_params`` and a readable ``__repr__``.

    The parameters are the keyword names of ``__init__`` (read from its signature, as
    scikit-learn's ``BaseEstimator`` does), each stored unchanged as an attribute of the same
    name, so ``sklearn.base.clone`` rebuilds an equal estimator.  ``set_params`` re-runs
    ``__init__`` with the merged parameters, so every value is validated again.  Nested
    parameters (``base_learner__epsilon``) follow scikit-learn's convention for parameters
    that are estimators themselves (objects with ``get_params``/``set_params``).
    """

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor parameters (scikit-learn convention; ``deep`` adds those of estimator parameters)."""
        out: dict[str, Any] = {}
        for k in self._param_names():
            v = getattr(self, k)
            out[k] = v
            if deep and hasattr(v, "get_params") and not isinstance(v, type):
                out.update((f"{k}__{kk}", vv) for kk, vv in v.get_params().items())
        return out

    def set_params(self, **params: Any) -> Any:
        """Set constructor parameters (re-validated by ``__init__``); ``name__sub`` sets a nested one."""
        names = self._param_names()
        own = {k: getattr(self, k) for k in names}
        nested: dict[str, dict[str, Any]] = {}
        for k, v in params.items():
            head, _, sub = k.partition("__")
            if head not in own:
                raise ValueError(f"invalid parameter {head!r} for {type(self).__name__}; valid parameters: {names}")
            if sub:
                nested.setdefault(head, {})[sub] = v
            else:
                own[head] = v
        for head, sub_params in nested.items():
            est = own[head]
            if not hasattr(est, "set_params"):
                raise ValueError(f"parameter {head!r} of {type(self).__name__} has no nested parameters "
                                 f"({type(est).__name__} has no set_params)")
            est.set_params(**sub_params)
        self.__init__(**own)  # type: ignore[misc]
        return self

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        parts = []
        for p in sig.parameters.values():
            if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            v = getattr(self, p.name)
            if p.default is not p.empty and _same(v, p.default):
                continue  # defaults left out, as scikit-learn prints estimators
            parts.append(f"{p.name}={v!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(type(a) is type(b) and a == b)
    except (TypeError, ValueError):
        return False

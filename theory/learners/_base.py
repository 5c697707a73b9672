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

The learner protocol (:class:`LearnerBase`): every learner is a scikit-learn classifier
(``BaseEstimator``: ``get_params``/``set_params``/``clone``, ``__sklearn_tags__``) with
``fit(X, y, X_public=None) -> self``, ``privacy_`` after ``fit``, the a-priori guarantee
``privacy`` and the class attribute ``privacy_model_``.  Its seed is ``random_state``
(scikit-learn's name: None, an int, a ``SeedSequence`` or a ``Generator``); ``rng`` is the older
name, kept as a deprecated alias (:func:`seed_of` reads them; a FutureWarning when a user's ``rng`` is read).  What ``privacy_`` assumes of a seed: the guarantee is over
the run's coins, so it holds against an observer who does not know the seed; an ``int`` seed (or a seed sequence
built from one) makes a run reproducible and nothing more: whoever knows or guesses it replays every coin, and a
small seed is found by searching, e.g. from a released public draw made with it (a random projection's
``components_``); only ``random_state=None`` (fresh OS entropy; the only choice in secure mode,
:func:`semiprivate.theory.privacy.seeds.set_secure_mode`) gives a release whose ``privacy_`` holds against
everyone.  No warning is given for a seeded fit (as diffprivlib, whose ``random_state`` documents reproducibility
and warns nothing; Opacus likewise only refuses seeds in its secure mode): a warning on every reproducible
experiment would be silenced, and secure mode is the switch that refuses them.  Where a differential-privacy learner
cannot pass one of scikit-learn's estimator checks (a fresh draw of noise at every fit, inputs that
are points of a finite concept class), the class lists the check with the reason in
``expected_failed_checks`` (given to ``parametrize_with_checks``, as scikit-learn's own
estimators do).
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, ClassVar

import numpy as np
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.privacy._release import (
    ALL_INPUTS,
    LABELLED,
    NOT_PRIVATE,
    PRIVACY_MODELS,
    is_derived_stream,
    param_names,
)
from semiprivate.validation import check_binary
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

__all__ = ["ALL_INPUTS", "LABELLED", "NOT_PRIVATE", "PRIVACY_MODELS", "privacy_model", "require_all_inputs",
           "check_fit_inputs", "seed_of", "NotFitted", "require_fitted", "LearnerBase", "CHECKS_FITTING_ON_X_Y",
           "CHECKS_ON_FEATURE_MATRICES", "VALIDATED_IN_INIT", "VALIDATED_IN_SET_PARAMS", "declared_failures", "CONCEPT_CLASS_REASON",
           "NEEDS_PUBLIC_REASON"]

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


def check_fit_inputs(concept_class: ConceptClass, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate a private labelled sample (non-empty, labels in {0,1}, same length)."""
    X = concept_class.validate_points(X, "X")
    y = check_binary(y, "y", length=len(X), as_bool=True)
    return X, y


class NotFitted(NotFittedError, RuntimeError):
    """``predict`` before ``fit``: scikit-learn's NotFittedError (a ValueError and an AttributeError), and a
    RuntimeError as this package raised before."""


def require_fitted(learner: Any, attribute: str) -> None:
    """Raise :class:`NotFitted` unless ``learner`` holds ``attribute`` (set by ``fit``)."""
    if not hasattr(learner, attribute):
        raise NotFitted(f"{type(learner).__name__} is not fitted; call fit first")


class _Fitted:
    """Mixin: ``predict`` from the fitted ``hypothesis_``."""

    concept_class: ConceptClass
    hypothesis_: Any

    def predict(self, X: Any) -> np.ndarray:
        """Labels (0/1 as int64) of the learned hypothesis on ``X``."""
        require_fitted(self, "hypothesis_")
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

    def _param_names(self) -> list[str]:
        return param_names(self)  # the signature's keyword names, read once per class

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


def seed_of(learner: Any) -> Any:
    """The seed a run of ``learner`` draws from: ``random_state``, or ``rng`` (its older name, deprecated: a
    FutureWarning, as scikit-learn warns of a deprecated parameter, when the user gave it).

    Both given is refused (ValueError naming both), unless ``rng`` is a stream the enclosing run derived
    for this one (a wrapper re-routes every randomness parameter of its base to its own child streams:
    :func:`semiprivate.theory.privacy._release.base_streams`), which is then the run's stream.
    """
    random_state = getattr(learner, "random_state", None)
    rng = getattr(learner, "rng", None)
    if random_state is None:
        if rng is not None and not is_derived_stream(rng):
            warnings.warn(f"{type(learner).__name__}: rng is deprecated and will be removed in semiprivate 0.3; "
                          "pass random_state (scikit-learn's name for the seed) instead", FutureWarning, stacklevel=3)
        return rng
    if rng is None or rng is random_state:
        return random_state
    if is_derived_stream(rng):
        return rng
    raise ValueError(f"{type(learner).__name__}: random_state={random_state!r} and rng={rng!r} were both given; "
                     "rng is the older name of random_state: pass random_state only")


class LearnerBase(ClassifierMixin, BaseEstimator):
    """Mixin: the learner protocol (module docstring): a scikit-learn classifier whose parameters are its
    constructor's keywords, with the tags every private learner shares.  The learners over a finite concept
    class put :class:`_Params` first (``set_params`` re-validates through ``__init__``).

    ``expected_failed_checks`` (class attribute): scikit-learn's estimator checks this learner is declared
    not to pass, each with the reason (``parametrize_with_checks(..., expected_failed_checks=...)``).
    """

    expected_failed_checks: ClassVar[dict[str, str]] = {}
    #: both seed parameters take a numpy Generator (a wrapper re-routing them gives each a Generator child)
    _generator_seeds: ClassVar[tuple[str, ...]] = ("rng", "random_state")

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        # a private fit draws fresh noise: two fits on the same data give different models by design
        tags.non_deterministic = True
        tags.classifier_tags.poor_score = True  # private training on small samples is noisy by design
        return tags


#: scikit-learn's estimator checks (1.9) that fit the estimator with ``fit(X, y)`` on their own data and need it to
#: succeed: a learner that needs public unlabelled rows cannot pass them (the checks pass no ``X_public``).
CHECKS_FITTING_ON_X_Y: tuple[str, ...] = (
    "check_classifier_data_not_an_array", "check_classifiers_classes", "check_classifiers_train",
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature", "check_fit2d_predict1d",
    "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_supervised_y_2d")

#: The checks that also feed real-valued, complex, sparse, empty or one-class feature matrices, or continuous or
#: missing labels, and look for scikit-learn's own error messages: a learner over a finite concept class refuses
#: such input with its own message (naming X and the class's domain).
CHECKS_ON_FEATURE_MATRICES: tuple[str, ...] = CHECKS_FITTING_ON_X_Y + (
    "check_classifiers_one_label", "check_classifiers_regression_target", "check_complex_data",
    "check_estimator_sparse_array", "check_estimator_sparse_matrix", "check_estimator_sparse_tag",
    "check_estimators_empty_data_messages", "check_fit2d_1sample", "check_requires_y_none")

#: Declared by every learner: parameters are checked where they are given.
VALIDATED_IN_INIT: dict[str, str] = {
    "check_do_not_raise_errors_in_init_or_set_params":
        "parameters are validated in __init__ (set_params re-validates): a bad value is refused where it is given, "
        "naming the parameter, before any private data is read (the package's rule for every public callable)"}


#: Declared by the learners whose ``set_params`` re-runs ``__init__`` (:class:`_Params`).
VALIDATED_IN_SET_PARAMS: dict[str, str] = {
    "check_set_params":
        "set_params re-runs __init__'s validation, so the check's invalid values are refused there; scikit-learn "
        "then warns that it prefers validation in fit (a UserWarning, an error under this package's tests)"}


def declared_failures(checks: tuple[str, ...], reason: str, *, set_params_validates: bool = False) -> dict[str, str]:
    """``{check: reason}`` for ``checks``, with :data:`VALIDATED_IN_INIT` (and :data:`VALIDATED_IN_SET_PARAMS`
    when ``set_params_validates``): a learner's ``expected_failed_checks``."""
    extra = VALIDATED_IN_SET_PARAMS if set_params_validates else {}
    return {**VALIDATED_IN_INIT, **extra, **dict.fromkeys(checks, reason)}


#: the reason a learner over a finite concept class gives for :data:`CHECKS_ON_FEATURE_MATRICES`
CONCEPT_CLASS_REASON = ("X is a sample of points of the learner's finite concept class (e.g. the integers of a "
                        "threshold domain, one column) with labels in {0, 1}; the check feeds real-valued feature "
                        "matrices of several columns, or other labels, and expects scikit-learn's own messages")
#: the reason a learner that needs public unlabelled rows gives for :data:`CHECKS_FITTING_ON_X_Y`
NEEDS_PUBLIC_REASON = ("fit needs public unlabelled rows (X_public) for the step the private part rests on; the "
                       "check calls fit(X, y) with none")

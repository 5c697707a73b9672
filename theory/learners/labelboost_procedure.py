"""LabelBoostProcedure of BNS15 (Algorithm 2): relabel S∘T by a hypothesis the exponential mechanism picks.

Implements: BNS15.Alg2 (LabelBoostProcedure), BNS15.Lem4.1, BNS15.Cl4.2.

:func:`label_boost_procedure` is Algorithm 2 exactly: P = the distinct points of S∘T, one
representative per dichotomy of Pi_C(P) (``concept_class.dichotomies``, structured), the
exponential mechanism with epsilon = 1 and score -#errors on S (sensitivity 1), and the
relabelling of S∘T by the chosen h.  :func:`label_boost_procedure_distribution` is its exact
output distribution (a distribution over relabellings of S∘T).  Algorithm 3
(:class:`semiprivate.theory.learners.labelboost.LabelBoost`) runs it once per iteration.
Labels are {0, 1}.

Examples
--------
>>> from semiprivate.theory.classes import Thresholds
>>> C = Thresholds(4)
>>> r = label_boost_procedure(C, [1, 9], [1, 0], [3, 12], rng=0)
>>> r.labels.shape
(4,)
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.privacy._release import released_function
from semiprivate.theory.privacy.exponential import output_distribution, sample
from semiprivate.validation import RNG, as_generator, check_binary, validate_params

__all__ = ["label_boost_procedure", "label_boost_procedure_distribution", "LabelBoostProcedureResult",
           "PROCEDURE_EPSILON"]

#: epsilon of the exponential mechanism inside LabelBoostProcedure (Alg 2 step 4).
PROCEDURE_EPSILON = 1.0


class LabelBoostProcedureResult(NamedTuple):
    """Output of Algorithm 2: the chosen hypothesis and the labels of S∘T it induces."""

    hypothesis: Any
    labels: np.ndarray          # bool, labels of S∘T (S first)
    representatives: list[Any]  # H: one hypothesis per dichotomy of Pi_C(P)
    errors: np.ndarray          # #errors of each representative on S
    chosen: int                 # index of the chosen hypothesis in representatives


def _check_class(concept_class: Any) -> ConceptClass:
    if not isinstance(concept_class, ConceptClass):
        raise TypeError(f"concept_class must be a ConceptClass, got {type(concept_class).__name__}")
    return concept_class


def _candidates(C: ConceptClass, X_S: np.ndarray, y_S: np.ndarray, X_T: np.ndarray) -> tuple[list[Any], np.ndarray]:
    both = np.concatenate([X_S, X_T]) if len(X_T) else X_S
    flat = both.reshape(len(both), -1)
    P = np.unique(flat, axis=0).reshape((-1,) + both.shape[1:])
    reps = C.dichotomies(P).representatives
    errors = np.asarray(C.error_counts(reps, X_S, y_S), dtype=np.int64)
    return reps, errors


def _inputs(C: ConceptClass, X_labelled: Any, y_labelled: Any, X_unlabelled: Any) -> tuple[np.ndarray, ...]:
    X_S = C.validate_points(X_labelled, "X_labelled")
    y_S = check_binary(y_labelled, "y_labelled", length=len(X_S), as_bool=True)
    X_T = C.validate_points(X_unlabelled, "X_unlabelled", allow_empty=True)
    return X_S, y_S, X_T


@released_function
@validate_params(rng=RNG)
def label_boost_procedure(concept_class: ConceptClass, X_labelled: Any, y_labelled: Any, X_unlabelled: Any, *,
                          rng: Any = None) -> LabelBoostProcedureResult:
    r"""BNS15 Algorithm 2 (LabelBoostProcedure) on S = (X_labelled, y_labelled), T = X_unlabelled.

    Implements: BNS15.Alg2.  P = distinct points of S∘T; H = one representative per dichotomy
    of :math:`\Pi_C(P)`; h chosen by the exponential mechanism with epsilon = 1, solution set H
    and database S (score -#errors on S, P[h] ∝ exp(-err_S(h)/2)); output: S∘T relabelled by h
    (D is passed through unchanged by the caller).  BNS15.Lem4.1: if A is (eps, delta)-DP,
    A∘LabelBoostProcedure is (eps + 3, 4 e delta)-DP
    (:func:`semiprivate.theory.bounds.privacy.label_boost_procedure_privacy`).  BNS15.Cl4.2: if
    |T| <= (beta/e) VC exp(alpha |S|/(2 VC)) - |S| and S is labelled by some c in C, then
    error_S(h) <= alpha w.p. >= 1 - beta (:func:`semiprivate.theory.bounds.bns15.bns15_labelboost_max_unlabeled`).

    Returns
    -------
    LabelBoostProcedureResult
    """
    C = _check_class(concept_class)
    X_S, y_S, X_T = _inputs(C, X_labelled, y_labelled, X_unlabelled)
    reps, errors = _candidates(C, X_S, y_S, X_T)
    idx = int(sample(errors, PROCEDURE_EPSILON, rng=as_generator(rng)))
    h = reps[idx]
    both = np.concatenate([X_S, X_T]) if len(X_T) else X_S
    return LabelBoostProcedureResult(h, np.asarray(C.evaluate(h, both), dtype=bool), reps, errors, idx)


def label_boost_procedure_distribution(concept_class: ConceptClass, X_labelled: Any, y_labelled: Any,
                                       X_unlabelled: Any) -> tuple[np.ndarray, np.ndarray]:
    """Exact output distribution of :func:`label_boost_procedure`: (relabellings, probabilities).

    Implements: BNS15.Alg2 (exact).  Row i of the bool matrix is the relabelling of S∘T by
    representative i; the representatives have distinct labelings of P, so the rows are
    distinct and the probabilities are those of the exponential mechanism (epsilon = 1).
    """
    C = _check_class(concept_class)
    X_S, y_S, X_T = _inputs(C, X_labelled, y_labelled, X_unlabelled)
    reps, errors = _candidates(C, X_S, y_S, X_T)
    both = np.concatenate([X_S, X_T]) if len(X_T) else X_S
    return C.evaluate_many(reps, both), output_distribution(errors, PROCEDURE_EPSILON)

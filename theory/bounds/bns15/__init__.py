"""Bounds of BNS15 (Beimel, Nissim, Stemmer, "Learning privately with labeled and unlabeled examples").

One module per part of the paper: :mod:`~semiprivate.theory.bounds.bns15.generic` (Sec 3, the
GenericLearner, and App. A, the exponential mechanism it runs),
:mod:`~semiprivate.theory.bounds.bns15.labelboost` (Sec 4) and
:mod:`~semiprivate.theory.bounds.bns15.active` (Sec 5).  Every public name is importable from here.

Items (each module names its own): BNS15.Thm3.3, BNS15.Cl4.2, BNS15.Cl4.8, BNS15.Cl4.9, BNS15.Rem4.10, BNS15.Cl4.11,
BNS15.Lem4.12, BNS15.Thm4.13, BNS15.Thm4.14, BNS15.Thm4.16, BNS15.Cor4.17, BNS15.Cor4.18,
BNS15.Thm5.5, BNS15.Thm5.6, BNS15.Thm5.8, BNS15.PropA.1.  The privacy transformers (Lem 4.1,
Cl 4.3, Cl 4.5, Lem 4.6, Cl 5.7) are in :mod:`semiprivate.theory.bounds.privacy`; the classic VC bounds
of App. B and Thm A.3 in :mod:`semiprivate.theory.bounds.classic`.

"log" is natural throughout (the paper mixes ln and log; we read every log as ln, as its
proofs do when they exponentiate).  The LabelBoost constants (90000, 30000, 300, 96000,
2240, ...) are the paper's, used as written.
"""

from __future__ import annotations

from semiprivate.theory.bounds.bns15.active import (
    bns15_pssl_to_tpal,
    bns15_thm5_8,
    bns15_tpal_threshold_lower_bound,
    bns15_tpal_threshold_lower_bound_expr,
)
from semiprivate.theory.bounds.bns15.generic import (
    bns15_generic_labeled,
    bns15_generic_labeled_expr,
    bns15_generic_uniform_convergence_size,
    bns15_generic_unlabeled,
    bns15_generic_unlabeled_expr,
    bns15_thm3_3,
    expmech_failure_probability,
    expmech_failure_probability_expr,
    expmech_log_failure_probability,
    expmech_sample_size,
)
from semiprivate.theory.bounds.bns15.labelboost import (
    LabelBoostIteration,
    LearnerParams,
    bns15_cor4_18,
    bns15_labelboost_error_after,
    bns15_labelboost_iteration_size,
    bns15_labelboost_labeled_size,
    bns15_labelboost_labeled_size_expr,
    bns15_labelboost_max_unlabeled,
    bns15_labelboost_min_labeled,
    bns15_labelboost_schedule,
    bns15_labelboost_unlabeled_size,
    bns15_lem4_12,
    bns15_rectangles,
    bns15_thm4_13,
    bns15_thm4_14_explicit,
    bns15_thm4_14_labeled,
    bns15_thm4_14_labeled_expr,
    bns15_thm4_16_labeled,
    bns15_thm4_16_labeled_expr,
    log_star,
)

__all__ = [
    "bns15_thm3_3",
    "bns15_generic_labeled",
    "bns15_generic_labeled_expr",
    "bns15_generic_unlabeled",
    "bns15_generic_unlabeled_expr",
    "bns15_generic_uniform_convergence_size",
    "bns15_labelboost_max_unlabeled",
    "bns15_labelboost_min_labeled",
    "bns15_labelboost_unlabeled_size",
    "bns15_labelboost_labeled_size",
    "bns15_labelboost_labeled_size_expr",
    "bns15_labelboost_iteration_size",
    "LabelBoostIteration",
    "bns15_labelboost_schedule",
    "bns15_labelboost_error_after",
    "LearnerParams",
    "bns15_lem4_12",
    "bns15_thm4_13",
    "bns15_thm4_14_explicit",
    "bns15_thm4_14_labeled",
    "bns15_thm4_14_labeled_expr",
    "bns15_thm4_16_labeled",
    "bns15_thm4_16_labeled_expr",
    "bns15_rectangles",
    "log_star",
    "bns15_cor4_18",
    "bns15_pssl_to_tpal",
    "bns15_tpal_threshold_lower_bound",
    "bns15_tpal_threshold_lower_bound_expr",
    "bns15_thm5_8",
    "expmech_log_failure_probability",
    "expmech_failure_probability",
    "expmech_failure_probability_expr",
    "expmech_sample_size",
]

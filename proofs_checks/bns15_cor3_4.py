"""BNS15 Corollary 3.4 (an efficient approximate-private proper learner for THRESH_d with labeled sample complexity
O_{alpha,beta,eps}(1) and unlabeled sample complexity O~(8^{log* d})): GenericLearner with the threshold sanitizer of
Beimel, Nissim and Stemmer [7] in Step 2.

Implements: the proofs_checks part of BNS15.Cor3.4. Check ids start with the paper key; verdicts are recorded in
:mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from semiprivate.proofs_checks._framework import Check, join, observe, register
from semiprivate.proofs_checks._links import bounds_module

ID = "BNS15.Cor3.4"


@register(f"{ID}.threshold-sizes")
def check_cor34() -> Check:
    """The labeled size of Thm 3.3 at VC = 1 does not depend on d (observed); the unlabeled size is not checkable."""
    import inspect

    mod = bounds_module("bns15")
    params = list(inspect.signature(mod.bns15_generic_labeled).parameters)
    if "bits" in params or "d" in params:
        raise AssertionError(f"bns15_generic_labeled takes the domain size: {params}")
    m = mod.bns15_generic_labeled(1, 0.1, 0.1, 1.0)
    unl = {d: mod.bns15_generic_unlabeled(d, 1, 0.1, 0.1, 1.0) for d in (8, 64)}
    observe(f"semiprivate.theory.bounds.bns15.bns15_generic_labeled(VC = 1, alpha = beta = 0.1, eps = 1) = {m} takes no "
            f"domain size: Thm 3.3's labeled size is O_{{alpha,beta,eps}}(1) for THRESH_d (VC = 1); its unlabeled size "
            f"(the pure sanitizer of Thm 3.3, not [7]'s) grows with d: {unl[8]} at d = 8, {unl[64]} at d = 64.")
    lines = [f"Thm 3.3's labeled size at VC(THRESH_d) = 1: {m} at alpha = beta = 0.1, eps = 1, with no domain-size "
             "parameter (semiprivate.theory.bounds.bns15.bns15_generic_labeled)."]
    details = join([
        "Not proved. The unlabeled sample complexity O~_{alpha,beta,eps,delta}(8^{log* d}) is the sample complexity of "
        "the approximate-private sanitizer for thresholds of Beimel, Nissim and Stemmer (the paper's [7]) used in "
        "Step 2; neither its statement nor its constants are in the seed texts or in the checker's table of standard "
        "results, and the O~ hides them, so there is no formal claim to close.",
        "The labeled part is Thm 3.3's m with VC(THRESH_d) = 1, which contains no d; Thm 3.3 itself has no closed "
        "chain here (its proof sizes FAIL, see BNS15.Thm3.3.proof-sizes).",
        *lines,
    ])
    return Check(id=f"{ID}.threshold-sizes", links=("semiprivate.theory.bounds.bns15.bns15_generic_labeled",),
                 claim="BNS15 Cor 3.4: there is an efficient approximate-private proper learner for THRESH_d with "
                       "labeled sample complexity O_{alpha,beta,eps}(1) and unlabeled sample complexity "
                       "O~_{alpha,beta,eps,delta}(8^{log* d}).",
                 method="symbolic", details=details)

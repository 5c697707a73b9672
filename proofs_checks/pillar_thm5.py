"""PILLAR Theorem 5 (App. A.4): PILLAR is a TV-tolerant semi-private learner when the unlabelled distribution is
within total variation of the labelled one. Lemma 6 (the covariance discrepancy) is checked in
:mod:`semiprivate.proofs_checks.pillar_thm2`; this check is the rest of the proof.

Implements: the proofs_checks part of PILLAR.Thm5. Check ids start with the paper key; verdicts are recorded in
:mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from semiprivate.proofs_checks._framework import Check, join, register

ID = "PILLAR.Thm5"


@register(f"{ID}.tv-tolerant")
def check_thm5() -> Check:
    """Not checkable from the seed text: the statement's formulas were lost in extraction (UNPROVED, with why)."""
    details = join([
        "Not proved, and no formal claim: in the seed text every displayed formula of Theorem 5 and of its proof "
        "(Eqs. (8)-(15): the sample complexities, the margin after projection, the triangle-inequality decomposition, "
        "the Davis-Kahan-type bound of Lemma 5 and the final error) was lost in extraction, so neither the statement's "
        "constants nor the proof's steps can be stated as relations.",
        "What the proof uses, in words: Lemma 5 (Zwald and Blanchard 2005, Thm 3: the top-k eigenspace moves by at "
        "most 2||Sigma - Sigma'||/(lambda_k - lambda_{k+1})), Lemma 6 (checked in PILLAR.Thm2.covariance-shift, "
        "UNPROVED there for the same reason), Lemma 3 (the empirical covariance's concentration), Cauchy-Schwarz, and "
        "Lemma 1 / Lemma 4 as in Theorem 1 (PILLAR.Thm1.n_lab).",
        "Privacy part: 'a similar argument as the proof of Theorem 1' -- the projection is computed from public data "
        "only and the private step is post-processed; the same structure as PILLAR.Alg2.total and PILLAR.Cor4.images.",
    ])
    return Check(id=f"{ID}.tv-tolerant",
                 claim="PILLAR Thm 5: for distributions whose unlabelled marginal is within bounded total variation of "
                       "the labelled one (third moments bounded), PILLAR is a TV-tolerant (alpha, beta, eps, delta) "
                       "semi-private learner of linear halfspaces (the sample complexities were lost in extraction).",
                 method="symbolic", details=details)

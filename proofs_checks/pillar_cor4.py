"""PILLAR Corollary 4 (App. A.3): PILLAR run on the representations phi(D) of a feature extractor phi pre-trained
independently of the private images keeps its (eps, delta) guarantee on the images.

Implements: the proofs_checks part of PILLAR.Cor4. Check ids start with the paper key; verdicts are recorded in
:mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import Check, Claim, Proof, constants, join, register

ID = "PILLAR.Cor4"


def images_proof(share: Any = 1) -> Proof:
    """PILLAR Cor 4 stated formally for one event O: P1 = P[A(phi(D)) in O], P2 = P[A(phi(D')) in O] for neighbouring
    image datasets D, D', and h the number of rows where phi(D) and phi(D') differ.

    Hypotheses, each a consequence of the corollary's setting rather than of its conclusion: phi is fixed before,
    and independently of, the private images and applied point by point, so h <= 1 (D and D' differ in one
    image); equal inputs give equal output laws (h = 0 => P1 = P2: A's coins do not depend on the data). Given
    (PILLAR.Alg2.total, the guarantee of PILLAR on representations): h = 1 => P1 <= e^eps P2 + delta. Conclusion:
    P1 <= e^{eps/share} P2 + delta (the paper: ``share`` = 1, the same guarantee). A phi fitted on D could change
    every row (h up to n), which the hypothesis h <= 1 excludes."""
    share = sp.sympify(share)
    eps, dl, P1, P2 = sp.symbols("epsilon delta P1 P2", positive=True)
    h = sp.Symbol("h", integer=True, nonnegative=True)
    on_neighbours = sp.Implies(sp.Eq(h, 1), P1 <= sp.exp(eps) * P2 + dl)
    same_law = sp.Implies(sp.Eq(h, 0), sp.Eq(P1, P2))
    claim = Claim("PILLAR Cor 4: for any two neighbouring datasets of private images D, D' and any set O of "
                  "halfspaces, P[A(phi(D)) in O] <= e^eps P[A(phi(D')) in O] + delta, A being PILLAR run with "
                  "privacy parameters (eps, delta) (proof: phi(D), phi(D') differ on at most one point).",
                  (eps, dl, P1, P2, h),
                  (P1 <= 1, P2 <= 1, h <= 1, same_law),
                  P1 <= sp.exp(eps / share) * P2 + dl,
                  given=((on_neighbours, "PILLAR run on representations is (eps, delta)-DP on neighbouring "
                                         "representation datasets (PILLAR.Alg2.total)"),),
                  samples={"epsilon": ["1", "1/10"], "delta": ["1/100", "10**-6"], "P2": ["1/10", "1/2"],
                           "h": ["1", "0"], "P1": ["exp(epsilon)*P2 + delta", "P2"]})
    P = Proof(claim)
    P.smt("the two cases of h <= 1: h = 0 gives P1 = P2 <= e^eps P2 + delta (e^eps >= 1); h = 1 is A's bound",
          [claim.hypotheses[2], same_law, on_neighbours], P1 <= sp.exp(eps / share) * P2 + dl)
    return P


@register(f"{ID}.images")
def check_cor4() -> Check:
    """The image-space guarantee from the two cases (equal or neighbouring representations), a closed chain."""
    K = constants(f"{ID}.images", share=1)
    proof = images_proof(K["share"])
    details = join([
        "The formal claim fixes an event O, the two output probabilities and h, the number of rows where phi(D) and "
        "phi(D') differ. Its hypotheses are the setting: phi fixed independently of D and applied point by point "
        "(h <= 1), equal inputs giving equal output laws; A's guarantee on neighbouring representations is given, "
        "resting on the check PILLAR.Alg2.total (so this verdict is no stronger than that one's).",
        "One certified step (z3): h = 0 gives P1 = P2 <= e^eps P2 + delta because e^eps >= 1; h = 1 is A's bound. The paper's footnote (phi normalises into the unit ball) is what makes "
        "A's guarantee apply to phi(D).",
        "The claim needs phi to be fixed before, and independently of, the private images (pre-trained on other "
        "data): a phi that depends on D is outside it, as the paper's A.3 says.",
    ])
    return Check(id=f"{ID}.images", proof=proof,
                 claim="PILLAR Cor 4: with a feature extractor phi pre-trained independently of the private images, "
                       "PILLAR on phi(D) is (eps, delta)-DP with respect to the images D.",
                 method="smt", details=details)

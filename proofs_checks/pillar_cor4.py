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
    image datasets D, D'. phi is a deterministic many-to-one map applied point by point, so phi(D) and phi(D') differ
    in at most one representation: they are equal (P1 = P2) or neighbouring (P1 <= e^eps P2 + delta, A being
    (eps, delta)-DP). Conclusion: P1 <= e^{eps/share} P2 + delta (the paper: ``share`` = 1, the same guarantee)."""
    share = sp.sympify(share)
    eps, dl, P1, P2 = sp.symbols("epsilon delta P1 P2", positive=True)
    claim = Claim("PILLAR Cor 4: for any two neighbouring datasets of private images D, D' and any set O of "
                  "halfspaces, P[A(phi(D)) in O] <= e^eps P[A(phi(D')) in O] + delta, A being PILLAR run with "
                  "privacy parameters (eps, delta) (proof: phi(D), phi(D') differ on at most one point).",
                  (eps, dl, P1, P2),
                  (P1 <= 1, P2 <= 1, sp.Or(sp.Eq(P1, P2), P1 <= sp.exp(eps) * P2 + dl)),
                  P1 <= sp.exp(eps / share) * P2 + dl,
                  samples={"epsilon": ["1", "1/10"], "delta": ["1/100", "10**-6"], "P2": ["1/10", "1/2"],
                           "P1": ["exp(epsilon)*P2 + delta", "P2"]})
    P = Proof(claim)
    P.smt("both cases: P1 = P2 <= e^eps P2 + delta (e^eps >= 1), or A's (eps, delta) bound on neighbours",
          [claim.hypotheses[2]], P1 <= sp.exp(eps / share) * P2 + dl)
    return P


@register(f"{ID}.images")
def check_cor4() -> Check:
    """The image-space guarantee from the two cases (equal or neighbouring representations), a closed chain."""
    K = constants(f"{ID}.images", share=1)
    proof = images_proof(K["share"])
    details = join([
        "The formal claim fixes an event O and the two output probabilities; its hypothesis is the proof's case split: "
        "phi is deterministic and applied point by point, so phi(D) and phi(D') are equal or differ in one "
        "representation, and A = PILLAR is (eps, delta)-DP on representations (PILLAR Thm 1, not re-proved here).",
        "One certified step (z3): in the equal case P1 = P2 <= e^eps P2 + delta because e^eps >= 1 + eps > 1; in the "
        "neighbouring case it is A's bound. The paper's footnote (phi normalises into the unit ball) is what makes "
        "A's guarantee apply to phi(D).",
        "The claim needs phi to be fixed before, and independently of, the private images (pre-trained on other "
        "data): a phi that depends on D is outside it, as the paper's A.3 says.",
    ])
    return Check(id=f"{ID}.images", proof=proof,
                 claim="PILLAR Cor 4: with a feature extractor phi pre-trained independently of the private images, "
                       "PILLAR on phi(D) is (eps, delta)-DP with respect to the images D.",
                 method="smt", details=details)

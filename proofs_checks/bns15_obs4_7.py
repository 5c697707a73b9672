"""BNS15 Observation 4.7 (in every iteration, error_{S_i^c}(h_i) <= alpha_i with probability >= 1 - beta_i): the
sizes LabelBoost hands to LabelBoostProcedure meet Claim 4.2's hypothesis, so the observation follows from Claim 4.2.

Implements: the proofs_checks part of BNS15.Obs4.7. Check ids start with the paper key; verdicts are recorded in
:mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import Check, Claim, Proof, constants, join, register

ID = "BNS15.Obs4.7"


def observation_proof(keep: Any = 100, rate: Any = 200) -> Proof:
    """BNS15 Obs 4.7 stated formally. Alg LabelBoost takes |T_i^b| <= beta_i VC exp(alpha_i |S_i^b|/(200 VC)) -
    |S_i^b| (Step 2b) and keeps 1/100 of S and of T (Step 2c), so |S_i^c| = |S_i^b|/100, |T_i^c| = |T_i^b|/100;
    Claim 4.2 (given: it names the check BNS15.Cl4.2.sauer-chain) bounds the failure probability fail_i =
    P[error_{S_i^c}(h_i) > alpha_i] of LabelBoostProcedure by beta_i when |T| <= (beta/e) VC exp(alpha |S|/(2 VC)) - |S|."""
    keep, rate = sp.sympify(keep), sp.sympify(rate)
    V = sp.Symbol("VC", integer=True, positive=True)
    a, b, Sb, Tb = sp.symbols("alpha_i beta_i S_b T_b", positive=True)
    fail = sp.Symbol("fail_i", positive=True)  # P[error_{S_i^c}(h_i) > alpha_i]
    Sc, Tc = Sb / keep, Tb / keep
    size_ok = Tc <= b / sp.E * V * sp.exp(a * Sc / (2 * V)) - Sc
    claim = Claim("BNS15 Obs 4.7: in every iteration i, with probability at least 1 - beta_i, error_{S_i^c}(h_i) <= "
                  "alpha_i (the proof: follows from Claim 4.2).",
                  (V, a, b, Sb, Tb, fail), (a < 1, b < 1, Tb <= b * V * sp.exp(a * Sb / (rate * V)) - Sb), fail <= b,
                  given=((sp.Implies(size_ok, fail <= b),
                          "BNS15 Cl 4.2 (BNS15.Cl4.2.sauer-chain) applied to S_i^c, T_i^c: if |T| <= (beta_i/e) VC "
                          "exp(alpha_i |S|/(2 VC)) - |S| then error_S(h_i) <= alpha_i w.p. >= 1 - beta_i"),),
                  samples={"VC": ["1", "4"], "alpha_i": ["1/2", "1/1000"], "beta_i": ["1/2", "1/1000"],
                           "S_b": ["1/100", "10**5"], "T_b": ["1/1000"],
                           "fail_i": ["beta_i/2"]})
    P = Proof(claim)
    # the closing entailment (z3) does the rest: |T^c| = |T^b|/100 <= (beta_i/100) VC exp(alpha_i |S^c|/(2 VC)) - |S^c|
    # <= (beta_i/e) VC exp(alpha_i |S^c|/(2 VC)) - |S^c|, then Claim 4.2
    P.evaluate("1/e > 1/100: beta_i/100 < beta_i/e", sp.exp(-1), ">", 1 / keep)
    return P


@register(f"{ID}.sizes")
def check_obs47() -> Check:
    """Obs 4.7 = Claim 4.2 at S_i^c, T_i^c: the sizes meet its hypothesis (a chain); the claim rests on Cl 4.2."""
    K = constants(f"{ID}.sizes", keep=100, rate=200)
    proof = observation_proof(K["keep"], K["rate"])
    details = join([
        "Step 2b takes |T_i^b| <= beta_i VC exp(alpha_i |S_i^b|/(200 VC)) - |S_i^b|; Step 2c keeps 1/100 of each, so "
        "|T_i^c| <= (beta_i/100) VC exp(alpha_i |S_i^c|/(2 VC)) - |S_i^c|, which is at most Claim 4.2's (beta_i/e) "
        "VC exp(alpha_i |S_i^c|/(2 VC)) - |S_i^c| since 1/e > 1/100 (exact; the closing entailment, z3, does the "
        "linear rest).",
        "The observation then is Claim 4.2 at (alpha_i, beta_i), a given naming BNS15.Cl4.2.sauer-chain: the verdict "
        "holds only if that check does (it reads FAILS: its Sauer chain is refuted, see there).",
    ])
    return Check(id=f"{ID}.sizes", proof=proof,
                 claim="BNS15 Obs 4.7: in every iteration i, with probability at least 1 - beta_i, error_{S_i^c}(h_i) "
                       "<= alpha_i (from Claim 4.2: the sizes meet its hypothesis).",
                 method="symbolic+smt", details=details)

"""PILLAR Algorithm 2's total privacy guarantee (App. A.1): R runs of noisy SGD on S1, each at (eps/R, delta/R), then
the exponential mechanism with privacy parameter eps on a held-out part S2 picks one run: (eps, delta)-DP in all.

The text of Alg 2 was lost in extraction; the budget split checked here is the one
:func:`semiprivate.theory.privacy.pillar_selection.pillar_alg2` implements (and SPEC's PILLAR.Alg2 asks to state):
basic composition over the R runs on S1, the exponential mechanism on S2, parallel composition over the disjoint
S1, S2 (a data-independent split).

Implements: the proofs_checks part of PILLAR.Alg2. Check ids start with the paper key; verdicts are recorded in
:mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import Check, Claim, Proof, constants, join, register

ID = "PILLAR.Alg2"


def total_proof(run_share: Any = 1, sensitivity: Any = 1) -> Proof:
    """PILLAR Alg 2's total guarantee stated formally (the implementation's split: ``run_share`` = 1, each run at
    (eps/R, delta/R); the score -#errors on S2 has ``sensitivity`` 1).

    The selection's privacy parameter is eps = 2h (weights exp(h q), q = -#errors on S2). For the chosen run:
    s, t are its scores on neighbouring held-out sets S2, S2' (s <= t + 1), N, M the normalisers (sums of exp(h q)
    over the R runs) and p = e^{h s}/N, p' = e^{h t}/M its selection probabilities. The given result M <= e^h N is
    the termwise sum over the R runs of e^{h t_j} <= e^h e^{h s_j}. E1, D1 are the runs' composed guarantee on S1
    and T_eps, T_delta the total; the two compositions are given (cited) results."""
    run_share, sens = sp.sympify(run_share), sp.sympify(sensitivity)
    R = sp.Symbol("R", integer=True, positive=True)
    h, dl = sp.symbols("h delta", positive=True)
    s, t = sp.symbols("s t", real=True)
    N, M, p, p2, E1, D1, Te, Td = sp.symbols("N M p p2 E1 D1 T_eps T_delta", positive=True)
    eps = 2 * h
    claim = Claim(
        "PILLAR App. A.1: Algorithm 2 first applies a base procedure on S for R times to generate a set of results "
        "while preserving (eps, delta)-DP, and then applies the exponential mechanism to output one final result "
        "(reconstructed: R runs at (eps/R, delta/R) on S1, the exponential mechanism at eps on a disjoint S2).",
        (R, h, dl, s, t, N, M, p, p2, E1, D1, Te, Td),
        (s <= t + sens, sp.Eq(p, sp.exp(h * s) / N), sp.Eq(p2, sp.exp(h * t) / M)),
        sp.And(p <= sp.exp(eps) * p2, Te <= eps, Td <= dl),
        given=((M <= sp.exp(h) * N, "finite sums of positive terms: the normaliser on S2' is the sum over the R runs "
                                    "of e^{h t_j} <= e^h e^{h s_j} (each run's score moves by at most 1), summed"),
               (sp.And(E1 <= R * (run_share * eps / R), D1 <= R * (run_share * dl / R)),
                "Dwork and Roth 2014, Thm 3.16 (basic composition): k mechanisms (eps_i, delta_i)-DP on the same data "
                "are (sum eps_i, sum delta_i)-DP; here the R runs on S1"),
               (sp.And(Te <= sp.Max(E1, eps), Td <= D1),
                "parallel composition in its adaptive (eps, delta) form: the split of S into S1, S2 is independent of "
                "the data, so a replaced row lies in exactly one part; in S1 the pair (runs, selection) is the runs' "
                "(E1, D1) guarantee (the selection post-processes their output and reads the unchanged S2), in S2 it "
                "is the selection's (eps, 0) for every fixed output of the runs. McSherry 2009, Thm 4 is the pure, "
                "non-adaptive case of this argument")),
        samples={"R": ["3"], "h": ["1/2"], "delta": ["1/1000"], "t": ["0"], "s": [f"t + {sens}", "t"],
                 "N": ["1"], "M": ["exp(h)*N"], "p": ["exp(h*s)/N"], "p2": ["exp(h*t)/M"],
                 "E1": [f"R*({run_share}*2*h/R)"], "D1": [f"R*({run_share}*delta/R)"], "T_eps": ["Max(E1, 2*h)"],
                 "T_delta": ["D1"]})
    P = Proof(claim)
    up = P.smt("the chosen run's exponent: h s <= h t + h from s <= t + 1", [claim.hypotheses[0]], h * s <= h * t + h)
    P.monotone("exp is increasing: e^{h s} <= e^h e^{h t}", "exp", up)
    return P


@register(f"{ID}.total")
def check_alg2_total() -> Check:
    """The selection's ratio bound and the budget split as a closed chain."""
    K = constants(f"{ID}.total", run_share=1, sensitivity=1)
    proof = total_proof(K["run_share"], K["sensitivity"])
    details = join([
        "The formal claim: (i) the selection step is eps-DP for each outcome, p <= e^eps p' (eps = 2h, weights "
        "e^{h q}); (ii) the total is (eps, delta). Certified: h s <= h t + h (z3) and e^{h s} <= e^h e^{h t} (exp "
        "is increasing); the closing entailment (z3, reading e^{2h} as (e^h)^2) gives p = e^{h s}/N <= e^h e^{h t} "
        "e^h / M = e^{2h} p' with the given M <= e^h N, and T_eps <= max(R eps/R, eps) = eps, T_delta <= R delta/R "
        "= delta from the two compositions.",
        "The given M <= e^h N is the termwise sum over the R runs of the same per-run bound; the compositions are "
        "given results, cited (basic: Dwork and Roth 2014, Thm 3.16; parallel: the case split on the part that holds the "
        "replaced row, whose pure, non-adaptive case is McSherry 2009, Thm 4), not re-proved. The parallel step "
        "needs the split of S into S1, S2 to be independent of the data, as the implementation's random permutation "
        "is.",
        "The implementation (semiprivate.theory.privacy.pillar_selection.pillar_alg2) records this split in its "
        "budget (per run, selection, total); its tests replay it.",
    ])
    return Check(id=f"{ID}.total", proof=proof,
                 claim="PILLAR Alg 2 (reconstructed split): R noisy-SGD runs at (eps/R, delta/R) on S1 and the "
                       "exponential mechanism at eps on a disjoint held-out S2 are (eps, delta)-DP in all.",
                 method="smt", details=details)

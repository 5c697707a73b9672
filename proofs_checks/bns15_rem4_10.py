"""BNS15 Remark 4.10 (|S_i^b| grows as an exponentiation tower in i, so LabelBoost runs at most O(log* n)
iterations): the capped iteration that ends the loop, as a closed chain; the tower bound itself is not proved here.

Implements: the proofs_checks part of BNS15.Rem4.10. Check ids start with the paper key; verdicts are recorded in
:mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import Check, Claim, Proof, constants, join, observe, register
from semiprivate.proofs_checks.bns15_cl4_8 import cl49_initial_size, size_schedule

ID = "BNS15.Rem4.10"


def capped_step_proof(cap: Any = 30000, shrink: Any = 100, goal: Any = 300) -> Proof:
    """The capped iteration ends the loop, stated formally: with |S| < 300 n (the loop runs) and v = 30000 n (Step 2b
    takes the cap), Step 2c keeps 1/100 of S and of T, so the next |S| = (|S| + 30000 n)/100 >= 300 n and the loop
    stops (the paper: ``cap`` = 30000, ``shrink`` = 100, ``goal`` = 300)."""
    cap, shrink, goal = (sp.sympify(x) for x in (cap, shrink, goal))
    n, S, v, Sn = sp.symbols("n S v S_next", positive=True)
    claim = Claim("BNS15 Alg 3, Step 2b: v = min{30000 n, beta_i VC e^{alpha_i |S|/(200 VC)} - |S|}; Step 2c keeps "
                  "1/100 of T and of S; the loop runs while |S| < 300 n (Rem 4.10 counts its iterations).",
                  (n, S, v, Sn), (S < goal * n, sp.Eq(v, cap * n), sp.Eq(Sn, (S + v) / shrink)), Sn >= goal * n,
                  samples={"n": ["1", "10**6"], "S": ["1", "1/1000", "299*n"], "v": [f"{cap}*n"],
                           "S_next": [f"(S + v)/{shrink}"]})
    P = Proof(claim)
    P.smt("(|S| + 30000 n)/100 >= 300 n for |S| > 0", list(claim.hypotheses[1:]), Sn >= goal * n)
    return P


@register(f"{ID}.capped-step")
def check_capped_step() -> Check:
    """The iteration that takes the cap is the last one (a closed chain)."""
    K = constants(f"{ID}.capped-step", cap=30000, shrink=100, goal=300)
    proof = capped_step_proof(K["cap"], K["shrink"], K["goal"])
    details = join([
        "Once Step 2b takes v = 30000 n, the next |S| = (|S| + 30000 n)/100 >= 300 n (z3), so the loop stops: the "
        "number of iterations is one more than the number of uncapped ones.",
        "The rest of Rem 4.10 (the uncapped sizes grow as a tower, hence O(log* n) uncapped iterations) is "
        "BNS15.Rem4.10.log-star, which is not proved.",
    ])
    return Check(id=f"{ID}.capped-step", proof=proof,
                 claim="BNS15 Rem 4.10 (the loop's end): an iteration whose Step 2b takes v = 30000 n is the last one.",
                 method="smt", details=details)


def log_star(x: float) -> int:
    """The iterated logarithm (natural base): how many times ln must be applied to bring x to <= 1."""
    k = 0
    while x > 1:
        x = math.log(x)
        k += 1
    return k


@register(f"{ID}.log-star")
def check_log_star() -> Check:
    """O(log* n) iterations: counted on the real recursion (an observation), not proved."""
    worst = 0.0
    runs = 0
    most = 0
    for vc in (1, 3, 10):
        for alpha in (0.5, 0.1, 0.01):
            for beta in (0.5, 0.01):
                m = cl49_initial_size(vc, alpha, beta)
                for nn in (m, 1e6 * m, 1e30 * m, 1e100 * m):
                    its = len(size_schedule(nn, m, vc, alpha, beta))
                    most = max(most, its)
                    worst = max(worst, its / max(1, log_star(nn)))
                    runs += 1
    observe(f"The real recursion of Algorithm 3 at {runs} (VC, alpha, beta, n) runs, n up to 1e100 times the initial "
            f"size: at most {most} iterations; the largest ratio iterations / log* n is {worst:.3g}.")
    details = join([
        "Not proved: the paper's argument (|S_i^b| >= (1/100) beta_{i-1} VC exp(alpha_{i-1} |S_{i-1}^b|/(200 VC)), with "
        "alpha_i, beta_i halving each round, is a tower in i) needs an induction over i with a tower function and log* "
        "as objects of the claim, which the checker's language (relations over finitely many real and integer "
        "symbols) does not have. The capped last iteration is proved (BNS15.Rem4.10.capped-step).",
        f"Observation: the real recursion (VC in {{1, 3, 10}}, alpha in {{0.5, 0.1, 0.01}}, beta in {{0.5, 0.01}}, n from "
        f"the initial size m to 1e100 m): at most {most} iterations, iterations / log* n <= {worst:.3g}.",
    ])
    return Check(id=f"{ID}.log-star",
                 claim="BNS15 Rem 4.10: |S_i^b| grows as an exponentiation tower in i, so LabelBoost runs at most "
                       "O(log* n) iterations on a base learner with sample complexity n.",
                 method="simulation", details=details)

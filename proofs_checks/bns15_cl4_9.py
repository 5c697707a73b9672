"""BNS15 Claim 4.9: |S_i^b| >= (4800/alpha_i) VC log(14/(alpha_i beta_i)) in every iteration, by induction,
for all alpha, beta in (0, 1).

Implements: the proofs_checks part of BNS15.Cl4.9. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import (
    Check,
    Claim,
    Proof,
    constants,
    join,
    observe,
    register,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module
from semiprivate.proofs_checks.bns15_cl4_8 import cl49_initial_size, size_schedule

ID = "BNS15.Cl4.9"


def induction_proof(size: Any = 4800, rate: Any = 200, shrink: Any = 100, fourteen: Any = 14,
                    halving: Any = 2) -> Proof:
    """BNS15 Cl 4.9's inductive step stated formally: for alpha_{i-1}, beta_{i-1} in (0, 1), the induction hypothesis
    |S_{i-1}^b| >= (size/alpha_{i-1}) VC log(fourteen/(alpha_{i-1} beta_{i-1})) and an uncapped iteration of Alg
    LabelBoost (|S_i^b| = (|S_{i-1}^b| + |T_{i-1}^b|)/shrink with |T_{i-1}^b| = beta_{i-1} VC
    exp(alpha_{i-1} |S_{i-1}^b|/(rate VC)) - |S_{i-1}^b|) give |S_i^b| >= (size/alpha_i) VC log(fourteen/(alpha_i
    beta_i)) at alpha_i = alpha_{i-1}/halving, beta_i = beta_{i-1}/halving (the paper: 4800, 200, 100, 14, 2)."""
    size, rate, shrink, f, h = (sp.sympify(x) for x in (size, rate, shrink, fourteen, halving))
    V = sp.Symbol("VC", integer=True, positive=True)
    a, b = sp.symbols("alpha_prev beta_prev", positive=True)
    S, Sn = sp.symbols("S_prev S_next", positive=True)
    ih = S >= size / a * V * sp.log(f / (a * b))
    alg = sp.Eq(Sn, (S + (b * V * sp.exp(a * S / (rate * V)) - S)) / shrink)
    claim = Claim(
        "BNS15 Cl 4.9 (induction step): |S_i^b| = (1/100)(|S_{i-1}^b| + |T_{i-1}^b|) = (1/100) beta_{i-1} VC "
        "exp(alpha_{i-1}|S_{i-1}^b|/(200 VC)) >= (1/100) beta_{i-1} VC (14/(alpha_{i-1} beta_{i-1}))^24 >= "
        "(4800/alpha_i) VC log(14/(alpha_i beta_i)).",
        (V, a, b, S, Sn), (a < 1, b < 1, ih, alg),
        Sn >= size / (a / h) * V * sp.log(f / ((a / h) * (b / h))),
        samples={"VC": ["1", "3"], "alpha_prev": ["1/2", "99/100", "1/1000"], "beta_prev": ["1/2", "99/100", "1/10**6"],
                 "S_prev": [f"{size}/alpha_prev*VC*log({f}/(alpha_prev*beta_prev))",
                            f"2*{size}/alpha_prev*VC*log({f}/(alpha_prev*beta_prev))"],
                 "S_next": [f"beta_prev*VC*exp(alpha_prev*S_prev/({rate}*VC))/{shrink}"]})
    P = Proof(claim)
    k, big = size / rate, size * h * shrink
    M = sp.log(f * h**2 / (a * b))  # log(14/(alpha_i beta_i)) = log(56/(alpha_{i-1} beta_{i-1}))
    s1 = P.smt("the induction hypothesis times alpha_{i-1}/(200 VC): alpha_{i-1}|S_{i-1}^b|/(200 VC) >= 24 "
               "log(14/(alpha_{i-1} beta_{i-1}))", [ih], a * S / (rate * V) >= k * sp.log(f / (a * b)))
    mpos = P.smt("log(56/(alpha_{i-1} beta_{i-1})) > 0 for alpha_{i-1}, beta_{i-1} < 1", [a < 1, b < 1], M > 0)
    lg = P.elementary("log y <= y - 1 at y = log(56/(alpha_{i-1} beta_{i-1}))", "log", M, [mpos])
    c = P.evaluate("24 log 14 - log 960000 - log 56 + 1 > 0", k * sp.log(f) - sp.log(big) - sp.log(f * h**2) + 1,
                   ">", 0)
    key = P.smt("in log space: 24 log(14/u) >= log(960000 log(56/u)/u) for u = alpha_{i-1} beta_{i-1} < 1 (the "
                "(14/u)^24 step and the last inequality of the display, multiplied out)",
                [a < 1, b < 1, lg, c], k * sp.log(f / (a * b)) >= sp.log(big * M / (a * b)))
    s3 = P.smt("alpha_{i-1}|S_{i-1}^b|/(200 VC) >= log(960000 log(56/u)/u)", [s1, key],
               a * S / (rate * V) >= sp.log(big * M / (a * b)))
    P.monotone("exp is increasing: exp(alpha_{i-1}|S_{i-1}^b|/(200 VC)) >= 960000 log(56/u)/u", "exp", s3)
    return P


@register(f"{ID}.induction")
def check_cl49() -> Check:
    """The inductive step as a closed chain; the base case and the real recursion as observations."""
    K = constants(f"{ID}.induction", size=4800, rate=200, shrink=100, fourteen=14, halving=2)
    proof = induction_proof(K["size"], K["rate"], K["shrink"], K["fourteen"], K["halving"])
    a, b = sp.symbols("alpha beta", positive=True)
    # base case: 96000/alpha = 4800/alpha_1 and 2240/(alpha beta) = 14/(alpha_1 beta_1)
    with sp.evaluate(False):
        base_a = 4800 / (a / 20)
        base_ab = 14 / ((a / 20) * (b / 8))
    sympy_zero(base_a, 96000 / a, "4800/alpha_1 == 96000/alpha at alpha_1 = alpha/20")
    sympy_zero(base_ab, 2240 / (a * b), "14/(alpha_1 beta_1) == 2240/(alpha beta) at alpha_1 = alpha/20, beta_1 = beta/8")
    # check the recursion numerically as well
    worst_margin = math.inf
    for vc in (1, 3, 10):
        for alpha in (0.9, 0.1, 0.01):
            for beta in (0.9, 0.1, 0.01):
                m = cl49_initial_size(vc, alpha, beta)
                for nn in (m / 30, m, 1e12 * m, 1e100 * m):
                    for i, (s, _v) in enumerate(size_schedule(nn, m, vc, alpha, beta), start=1):
                        ai, bi = alpha / (10 * 2**i), beta / (4 * 2**i)
                        need = 4800 / ai * vc * math.log(14 / (ai * bi))
                        worst_margin = min(worst_margin, s / need)
    if worst_margin < 1 - 1e-12:
        raise RuntimeError("recursion below Claim 4.9's size")
    observe(f"The real recursion of Algorithm 3 at 108 (VC, alpha, beta, n) runs: every |S_i^b| is at least Claim "
            f"4.9's size (smallest ratio {worst_margin:.3g}).")
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("bns15")
    for vc, al, be in ((1, 0.1, 0.1), (2, 0.05, 0.01), (7, 0.3, 0.2)):
        got = mod.bns15_labelboost_labeled_size(vc, al, be)
        want = math.ceil(cl49_initial_size(vc, al, be))
        if abs(got - want) > 1:
            raise AssertionError(f"bns15_labelboost_labeled_size({vc},{al},{be}) = {got}, verified {want}")
        for i in (1, 2, 3):
            ai, bi = al / (10 * 2**i), be / (4 * 2**i)
            want_i = math.ceil(4800 / ai * vc * math.log(14 / (ai * bi)))
            got_i = mod.bns15_labelboost_iteration_size(vc, al, be, i)
            if abs(got_i - want_i) > 1:
                raise AssertionError(f"bns15_labelboost_iteration_size({vc},{al},{be},{i}) = {got_i}, want {want_i}")
    links = ("semiprivate.theory.bounds.bns15.bns15_labelboost_labeled_size", "semiprivate.theory.bounds.bns15.bns15_labelboost_iteration_size")
    lines.append("semiprivate.theory.bounds.bns15: bns15_labelboost_labeled_size = ceil((96000/alpha) VC ln(2240/(alpha beta))) "
                 "and bns15_labelboost_iteration_size = ceil((4800/alpha_i) VC ln(14/(alpha_i beta_i))) at 3 "
                 "(and 3x3) points.")
    details = join([
        "Base case: alpha_1 = alpha/20, beta_1 = beta/8, so 4800/alpha_1 = 96000/alpha and 14/(alpha_1 beta_1) = "
        "2240/(alpha beta) (sympy): the hypothesis on |S| is exactly the claim at i = 1.",
        "The inductive step is the formal claim: from the induction hypothesis and an uncapped iteration (|T_{i-1}^b| "
        "= beta_{i-1} VC e^{...} - |S_{i-1}^b|; a capped iteration is the last), a chain of 7 certified steps: the "
        "hypothesis times alpha_{i-1}/(200 VC) gives the exponent 24 log(14/u) (u = alpha_{i-1} beta_{i-1} < 1); in "
        "log space 24 log(14/u) >= log(960000 log(56/u)/u) follows from log y <= y - 1 at y = log(56/u), log u < 0 "
        "and 24 log 14 - log 960000 - log 56 + 1 > 0 (exact); exp is increasing; the closing step multiplies by "
        "beta_{i-1} VC/100 (z3).",
        "log read as ln; with log base 2 the exponent step gives x^{24/ln 2} >= x^24 and the same conclusion.",
        f"Real recursion of Algorithm 3 (VC in {{1,3,10}}, alpha, beta in {{0.9,0.1,0.01}}, 4 values of n up to 1e100 m): every "
        f"|S_i^b| is >= the claimed size (smallest ratio {worst_margin:.3g}).",
        *lines,
    ])
    return Check(id=f"{ID}.induction", proof=proof,
                 claim="BNS15 Cl 4.9: with |S| >= (96000/alpha) VC log(2240/(alpha beta)), every iteration has "
                       "|S_i^b| >= (4800/alpha_i) VC log(14/(alpha_i beta_i)), for all alpha, beta in (0,1).",
                 method="symbolic+exact", details=details, links=links)

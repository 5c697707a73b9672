"""BNS15 Claim 4.9: |S_i^b| >= (4800/alpha_i) VC log(14/(alpha_i beta_i)) in every iteration, by induction,
for all alpha, beta in (0, 1).

Implements: the proofs_checks part of BNS15.Cl4.9. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import sympy as sp
from semiprivate.proofs_checks._framework import Check, exact_fact, join, register, sympy_nonneg, sympy_zero
from semiprivate.proofs_checks._links import bounds_module
from semiprivate.proofs_checks.bns15_cl4_8 import cl49_initial_size, size_schedule

ID = "BNS15.Cl4.9"


@register(f"{ID}.induction")
def check_cl49() -> Check:
    """Base case and inductive inequality, symbolically for all alpha, beta in (0,1)."""
    a, b = sp.symbols("alpha beta", positive=True)
    # base case: 96000/alpha = 4800/alpha_1 and 2240/(alpha beta) = 14/(alpha_1 beta_1)
    with sp.evaluate(False):
        base_a = 4800 / (a / 20)
        base_ab = 14 / ((a / 20) * (b / 8))
        step2 = 4800 / sp.Integer(200)
    sympy_zero(base_a, 96000 / a, "4800/alpha_1 == 96000/alpha at alpha_1 = alpha/20")
    sympy_zero(base_ab, 2240 / (a * b), "14/(alpha_1 beta_1) == 2240/(alpha beta) at alpha_1 = alpha/20, beta_1 = beta/8")
    # step 2: alpha_{i-1} |S^b_{i-1}|/(200 VC) >= 24 log(14/(alpha_{i-1} beta_{i-1}))
    sympy_zero(step2, 24, "4800/200 == 24")
    # step 4: (1/100) b (14/(a b))^24 >= (4800/(a/2)) log(14/((a/2)(b/2))) for a, b in (0, 1]
    # multiply by a/9600: with u = a b in (0, 1]: 14^24/(960000 u^23) >= log(56/u)  <=>  g(u) >= 0,
    # g(u) = 14^24 - 960000 u^23 log(56/u); g'(u) = -960000 u^22 (23 log(56/u) - 1) < 0 on (0, 1]: min at u = 1
    u = sp.Symbol("u", positive=True)
    g = sp.Integer(14) ** 24 - 960000 * u**23 * sp.log(56 / u)
    sympy_zero(sp.Derivative(g, u), -960000 * u**22 * (23 * sp.log(56 / u) - 1), "g'(u) == -960000 u^22 (23 log(56/u) - 1)")
    w = sp.Symbol("w", nonnegative=True)  # u = 1/(1+w) covers (0, 1]
    sympy_nonneg(sp.log(1 + w), "log(1/u) for u <= 1")
    g1 = g.subs(u, 1)
    exact_fact("23 log 56 - 1 > 0 (so g' < 0 on (0, 1]) and g(1) = 14^24 - 960000 log 56 > 0",
               [(23 * sp.log(56) - 1, ">", 0), (g1, ">", 0)])
    # reduction check: LHS/RHS of step 4 equals 14^24/(960000 (ab)^23 log(56/(ab)))
    with sp.evaluate(False):
        lhs = sp.Rational(1, 100) * b * (14 / (a * b)) ** 24
        rhs = 4800 / (a / 2) * sp.log(14 / ((a / 2) * (b / 2)))
        lhs_scaled, rhs_scaled = lhs * a / 9600, rhs * a / 9600
    sympy_zero(lhs_scaled, sp.Integer(14) ** 24 / (960000 * (a * b) ** 23), "LHS * a/9600 == 14^24/(960000 (ab)^23)")
    sympy_zero(rhs_scaled, sp.log(56 / (a * b)), "RHS * a/9600 == log(56/(ab))")
    # base-2 logs: exp(24 log2 x) = x^{24/ln 2} >= x^24 for x > 1, and the RHS grows by 1/ln 2 only
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
        "First equality uses |T_{i-1}^b| = beta_{i-1} VC e^{...} - |S_{i-1}^b| (no cap: a capped iteration is the "
        "last); then alpha_{i-1} (4800/alpha_{i-1})/200 = 24 (sympy).",
        "Last step for all alpha, beta in (0,1): multiplying by alpha_{i-1}/9600 reduces it to g(u) = 14^24 - "
        "960000 u^23 ln(56/u) >= 0 with u = alpha_{i-1} beta_{i-1} in (0,1) (sympy); g' = -960000 u^22 (23 ln(56/u) "
        "- 1) < 0 (sympy), so the minimum is g(1) = 14^24 - 960000 ln 56 > 0.",
        "log read as ln; with log base 2 the exponent step gives x^{24/ln 2} >= x^24 and the same conclusion.",
        f"Real recursion of Algorithm 3 (VC in {{1,3,10}}, alpha, beta in {{0.9,0.1,0.01}}, 4 values of n up to 1e100 m): every "
        f"|S_i^b| is >= the claimed size (smallest ratio {worst_margin:.3g}).",
        *lines,
    ])
    return Check(id=f"{ID}.induction",
                 claim="BNS15 Cl 4.9: with |S| >= (96000/alpha) VC log(2240/(alpha beta)), every iteration has "
                       "|S_i^b| >= (4800/alpha_i) VC log(14/(alpha_i beta_i)), for all alpha, beta in (0,1).",
                 method="symbolic+exact", details=details, links=links)

"""BNS15 Theorem 3.3 (GenericLearner): the event algebra of the proof, its sample sizes, and the statement for large eps.

GenericLearner sanitizes D w.r.t. C_xor (Thm A.3), keeps one hypothesis per dichotomy of the sanitized
points (H), and runs the exponential mechanism on S. The proof defines E1 (|error_S(h) - error_D~(h, c)|
<= 3alpha/5), E2 (the mechanism loses <= alpha/5) and E3 (error_S(h) <= 4alpha/5 => error_mu(c, h) <= alpha),
takes n, m >= (1250/alpha^2) VC ln(25/(alpha beta)) for Thm B.6, and |H| exp(-eps alpha m/10) <= beta/5.

Implements: the proofs_checks part of BNS15.Thm3.3. Check ids start with the paper key; verdicts are
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
    cite,
    constants,
    fmt,
    join,
    refute,
    register,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module

ID = "BNS15.Thm3.3"
A, B, EPS, M, H, V = sp.symbols("alpha beta epsilon m H VC", positive=True)


def _nonneg_cert(expr: sp.Expr, goal: str) -> dict[str, str]:
    """A ``sympy-nonneg`` certificate for a refutation (re-checked by :func:`refute`)."""
    return {"kind": "sympy-nonneg", "expr": sp.srepr(expr, order="none"), "goal": f"{goal} >= 0"}


def _stated_m(vc: sp.Expr, a: sp.Expr, b_log: sp.Expr, e: sp.Expr) -> sp.Expr:
    """The theorem's m without its constant: VC ln(1/alpha)/(alpha^3 eps) + ln(1/beta)/(alpha eps)."""
    return vc * sp.log(1 / a) / (a**3 * e) + b_log / (a * e)


def events_proof(split: Any = 5, ten: Any = 10) -> Proof:
    """BNS15 Thm 3.3's event chain stated formally: with Thm B.6 at (alpha/5, beta/5) on S and on D, Thm A.3 at
    (alpha/5, beta/5) and Prop A.1 at Delta = alpha/5, m >= (10/(eps alpha))(ln|H| + ln(5/beta)) gives an output h
    with error_mu(h) <= alpha except with probability <= beta."""
    split, ten = sp.sympify(split), sp.sympify(ten)
    eS, eM, eSs, eMs, eDs, eDts = sp.symbols("err_S_h err_mu_h err_S_hstar err_mu_hstar err_D_hstar err_Dt_hstar",
                                            nonnegative=True)
    fS, fD, fA, fE = sp.symbols("fail_B6_S fail_B6_D fail_A3 fail_E2", nonnegative=True)
    m0 = ten / (EPS * A) * (sp.log(H) + sp.log(5 / B))
    d = A / split
    given = (
        (sp.And(eM <= eS + d, eSs <= eMs + d, fS <= B / 5),
         "BNS15 Thm B.6 (uniform convergence) on S at accuracy alpha/5, confidence beta/5 (|S| >= (1250/alpha^2) VC "
         "ln(25/(alpha beta)), BNS15.Thm3.3.proof-sizes)"),
        (sp.And(eMs <= eDs + d, fD <= B / 5), "BNS15 Thm B.6 on D at accuracy alpha/5, confidence beta/5"),
        (sp.And(eDs <= eDts + d, sp.Eq(eDts, 0), fA <= B / 5),
         "BNS15 Thm A.3 (Blum et al.'s sanitizer for C_xor at alpha/5, beta/5; error_D(h*) and error_D~(h*) are "
         "predicates of C_xor) and H holding h* with error_D~(h*, c) = 0"),
        (sp.And(eS <= eSs + d, fE <= H * sp.exp(-EPS * d * M / 2)),
         "BNS15 Prop A.1 (ii): P[error_S(h) > min + Delta] <= |H| exp(-eps Delta m/2), at Delta = alpha/5"))
    claim = Claim("BNS15 Thm 3.3 proof: E1, E2, E3 hold together w.p. >= 1 - beta (Thm B.6 at (alpha/5, beta/5), Thm "
                  "A.3 at beta/5, Prop A.1 at Delta = alpha/5), and then GenericLearner's output h has error <= alpha.",
                  (A, B, EPS, M, H, eS, eM, eSs, eMs, eDs, eDts, fS, fD, fA, fE),
                  (B < 1, H >= 1, M >= m0), sp.And(eM <= A, fS + fD + fA + fE <= B), given=given,
                  samples={"alpha": ["1/2"], "beta": ["1/2"], "epsilon": ["1"], "H": ["2"], "m": ["100"],
                           "err_S_h": ["0"], "err_mu_h": ["0"], "err_S_hstar": ["0"], "err_mu_hstar": ["0"],
                           "err_D_hstar": ["0"], "err_Dt_hstar": ["0"], "fail_B6_S": ["1/10"],
                           "fail_B6_D": ["1/10"], "fail_A3": ["1/10"], "fail_E2": ["0"]})
    P = Proof(claim)
    h = P.smt("eps alpha m/10 >= ln|H| + ln(5/beta)", [M >= m0], -EPS * A * M / 10 <= -(sp.log(H) + sp.log(5 / B)))
    P.monotone("exp is increasing: |H| exp(-eps alpha m/10) <= beta/5", "exp", h)
    return P


@register(f"{ID}.events")
def check_events() -> Check:
    """E1, E2, E3 and the union bound, with the constants of Thm B.6 and Prop A.1."""
    K = constants(f"{ID}.events", split=5, ten=10)
    proof = events_proof(K["split"], K["ten"])
    cite("BNS15 Thm B.6 (agnostic uniform convergence: m >= 50 VC/alpha^2 ln(1/(alpha beta)) gives |error_mu - "
         "error_S| <= alpha for all h w.p. 1 - beta), Thm A.3 (the sanitizer of Blum et al.: |Q(D) - Q(D~)| <= alpha/5 "
         "for every predicate of C_xor w.p. 1 - beta/5), Prop A.1 (the exponential mechanism's utility) and basic "
         "composition on the disjoint D and S (eps-DP).")
    cite("H holds one concept per dichotomy of Pi_C(B), so |H| <= 2^|B| (ln|H| <= |B| ln 2 <= |D~|), H is a subset of C, "
         "and H contains h* with error_D~(h*, c) = 0.")
    with sp.evaluate(False):  # keep the identities' terms in the certificates (sympy would cancel them at once)
        b6 = 50 * V / (A / 5)**2 * sp.log(1 / ((A / 5) * (B / 5)))
        e1 = A / 5 + A / 5 + A / 5
        e12 = 3 * A / 5 + A / 5
        e3 = 4 * A / 5 + A / 5
        prop = H * sp.exp(-EPS * (A / 5) * M / 2)
        m0 = 10 / (EPS * A) * (sp.log(H) + sp.log(5 / B))
        at_m0 = sp.log(H) - EPS * A * m0 / 10
    sympy_zero(b6, 1250 * V / A**2 * sp.log(25 / (A * B)),
               "Thm B.6 at (alpha/5, beta/5): 50 VC/(alpha/5)^2 ln(1/((alpha/5)(beta/5))) == (1250/alpha^2) VC ln(25/(alpha beta))")
    sympy_zero(e1, 3 * A / 5, "E1 from (2), (3), (4) by the triangle inequality: alpha/5 + alpha/5 + alpha/5 == 3alpha/5")
    sympy_zero(e12, 4 * A / 5, "E1 and E2: error_S(h*) <= 3alpha/5, loss alpha/5: 3alpha/5 + alpha/5 == 4alpha/5")
    sympy_zero(e3, A, "E3 from (2): 4alpha/5 + alpha/5 == alpha")
    sympy_zero(prop, H * sp.exp(-EPS * A * M / 10), "Prop A.1 at Delta = alpha/5: |H| exp(-eps Delta m/2) == |H| exp(-eps alpha m/10)")
    sympy_zero(at_m0, sp.log(B / 5), "ln(|H| exp(-eps alpha m0/10)) == ln(beta/5) at m0 = (10/(eps alpha))(ln|H| + ln(5/beta))")
    details = join([
        "Thm B.6 at accuracy alpha/5 and confidence beta/5 (once for S, once for D) needs exactly the proof's "
        "(1250/alpha^2) VC ln(25/(alpha beta)) (sympy).",
        "E1: |error_S(h) - error_D~(h, c)| <= |error_S - error_mu| + |error_mu - error_D| + |error_D - error_D~| <= "
        "3alpha/5; E1 and E2 give error_S(h) <= 3alpha/5 + alpha/5 = 4alpha/5; E3 follows from (2) since H is in C "
        "(sympy); the failure probabilities add to 2beta/5 + beta/5 + beta/5 = 4beta/5 <= beta (sympy; the proof's "
        "1 - 3beta/5 for E1 and E3 plus beta/5 for E2).",
        "Prop A.1 with Delta = alpha/5 gives |H| exp(-eps alpha m/10), which is <= beta/5 from m0 = (10/(eps alpha))"
        "(ln|H| + ln(5/beta)) on (sympy: equality at m0, decreasing in m); with ln|H| <= |D~| this is the proof's "
        "O(VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(alpha eps)).",
        "The sizes the proof then states are checked in BNS15.Thm3.3.proof-sizes, the statement for large eps in "
        "BNS15.Thm3.3.large-epsilon.",
    ])
    return Check(id=f"{ID}.events", proof=proof,
                 claim="BNS15 Thm 3.3 proof: E1, E2, E3 hold together w.p. >= 1 - beta (Thm B.6 at (alpha/5, beta/5), "
                       "Thm A.3 at beta/5, Prop A.1 at Delta = alpha/5), and then GenericLearner's output is alpha-good.",
                 method="symbolic", details=details)


@register(f"{ID}.proof-sizes")
def check_proof_sizes() -> Check:
    """The proof's floor (1250/alpha^2) VC ln(25/(alpha beta)) is not within the stated O-forms of m and n."""
    L, u = sp.symbols("L u", positive=True)
    half = sp.Rational(1, 2)
    # m: alpha = 1/2, eps = 1, VC = ln(1/beta) = L
    floor_m = 1250 / half**2 * L * (sp.log(50) + L)  # ln(25/(alpha beta)) = ln 50 + L
    stated_m = _stated_m(L, half, L, 1)
    cert_m = _nonneg_cert(sp.collect(sp.expand(floor_m - 600 * L * stated_m), L),
                          "(1250/alpha^2) VC ln(25/(alpha beta)) - 600 L * stated m at alpha = 1/2, eps = 1, VC = ln(1/beta) = L")
    # n: alpha = 1/2, eps = 1, VC = d = D, ln(1/beta) = D^3 (VC <= d holds), D = 1 + u >= 1
    D = 1 + u
    floor_n = 1250 / half**2 * D * (sp.log(50) + D**3)
    stated_n = D * D * sp.log(2) / half**3 + D**3 / half
    cert_n = _nonneg_cert(sp.collect(sp.expand(floor_n - 600 * D * stated_n), u),
                          "(1250/alpha^2) VC ln(25/(alpha beta)) - 600 D * stated n at alpha = 1/2, eps = 1, VC = d = D = 1 + u, "
                          "ln(1/beta) = D^3")
    Lq = sp.Integer(10) ** 4
    ratio_m = (floor_m / stated_m).subs(L, Lq)
    refute("alpha = 1/2, eps = 1, VC = ln(1/beta) = L: the proof needs m >= (1250/alpha^2) VC ln(25/(alpha beta)) >= "
           "600 L times the stated VC ln(1/alpha)/(alpha^3 eps) + ln(1/beta)/(alpha eps), for every L > 0 (sympy), so no "
           "constant covers it (at L = 10^4 the ratio exceeds 10^6); for n, VC = d = D and ln(1/beta) = D^3 give a ratio "
           ">= 600 D.",
           [(ratio_m, ">", 10**6)], certificates=[cert_m, cert_n])
    # the repair: multiplicative Chernoff on the fixed finite H (H depends on D only, not on S)
    p = sp.Symbol("p", positive=True)
    with sp.evaluate(False):
        low = p * M * sp.Rational(1, 5)**2 / 2
        up = 2 * A / 5 * M * sp.Rational(1, 2)**2 / 3
        m_fix = 50 / A * (sp.log(H) + sp.log(5 / B))
        at_fix = sp.log(H) - A * m_fix / 50
    sympy_zero(low, p * M / 50, "Chernoff lower tail at (1 - 1/5) p: p m (1/5)^2/2 == p m/50 (E3 for each h in H with error_mu > alpha)")
    sympy_zero(up, A * M / 30, "Chernoff upper tail at (1 + 1/2)(2alpha/5) = 3alpha/5: (2alpha/5) m (1/2)^2/3 == alpha m/30 (E1 for h*)")
    sympy_zero(at_fix, sp.log(B / 5), "ln(|H| exp(-alpha m/50)) == ln(beta/5) at m = (50/alpha)(ln|H| + ln(5/beta))")
    lines = []
    mod = bounds_module("bns15")
    for vc, al, be in ((1, 0.1, 0.1), (3, 0.05, 0.2)):
        got = mod.bns15_generic_uniform_convergence_size(vc_dim=vc, alpha=al, beta=be)
        if got != math.ceil(1250 / al**2 * vc * math.log(25 / (al * be)) - 1e-9):
            raise AssertionError(f"bns15_generic_uniform_convergence_size({vc}, {al}, {be}) = {got}")
    links = ("semiprivate.theory.bounds.bns15.bns15_generic_uniform_convergence_size",)
    lines.append("semiprivate.theory.bounds.bns15.bns15_generic_uniform_convergence_size = ceil((1250/alpha^2) VC "
                 "ln(25/(alpha beta))) at 2 points (the library keeps the proof's floor apart from the O-forms).")
    details = join([
        "The proof sets n and m to at least (1250/alpha^2) VC ln(25/(alpha beta)) (Thm B.6 for inequalities (2) and "
        "(3)). That floor carries the product VC ln(1/beta)/alpha^2, which the stated m = O(VC log(1/alpha)/(alpha^3 eps) "
        "+ log(1/beta)/(alpha eps)) does not: at alpha = 1/2, eps = 1, VC = ln(1/beta) = L the floor is >= 600 L times "
        f"the stated form (sympy, every L > 0; ratio {fmt(float(ratio_m))} at L = 10^4, exact interval evaluation). "
        "For n, VC = d = D and ln(1/beta) = D^3 give a ratio >= 600 D (sympy, every D >= 1).",
        "The statement can still be reached: H depends on D only, so for S a multiplicative Chernoff bound on the "
        "finite H suffices: each h with error_mu > alpha has error_S <= 4alpha/5 w.p. <= exp(-alpha m/50), and h* "
        "(error_mu <= 2alpha/5 by (3)-(4)) has error_S > 3alpha/5 w.p. <= exp(-alpha m/30) (sympy exponents); "
        "m >= (50/alpha)(ln|H| + ln(5/beta)) makes the union <= beta/5 (sympy), which is within the stated m for "
        "eps <= 1. For D, E1 only needs error_mu(h*, c) <= error_D(h*, c) + alpha/5 for the h* with error_D(h*, c) "
        "<= alpha/5: a relative (Thm B.5-type) bound of size O((VC log(1/alpha) + log(1/beta))/alpha).",
        *lines,
    ])
    return Check(id=f"{ID}.proof-sizes", links=links,
                 claim="BNS15 Thm 3.3 proof: n, m >= (1250/alpha^2) VC ln(25/(alpha beta)) (Thm B.6) is within the stated "
                       "m = O(VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(alpha eps)) and n = O(d VC log(1/alpha)/"
                       "(alpha^3 eps) + log(1/beta)/(alpha eps)).",
                 method="symbolic+exact", details=details,
                 corrected="Replace Thm B.6 on S by multiplicative Chernoff bounds over the finite H (m >= (50/alpha)"
                           "(ln|H| + ln(5/beta)) and m >= (30/alpha) ln(5/beta)) and on D by a relative deviation bound; "
                           "the stated O-forms then hold for eps <= 1.")


@register(f"{ID}.large-epsilon")
def check_large_epsilon() -> Check:
    """m = O(VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(alpha eps)) for every eps: below one label for large eps."""
    K = sp.Symbol("K", positive=True)
    al, be, vc = sp.Rational(1, 10), sp.Rational(1, 20), 1
    eps_star = 2 * K * _stated_m(vc, al, sp.log(1 / be), 1)
    with sp.evaluate(False):
        at_star = K * _stated_m(vc, al, sp.log(1 / be), eps_star)
    sympy_zero(at_star, sp.Rational(1, 2), "K m_stated(eps*) == 1/2 at eps* = 2K (VC ln(1/alpha)/alpha^3 + ln(1/beta)/alpha), VC = 1, "
               "alpha = 1/10, beta = 1/20")
    refute("VC = 1, alpha = 1/10, beta = 1/20: for any constant K, at eps = 2K (10^3 ln 10 + 10 ln 20) the stated m is "
           "K m_stated = 1/2, so at most one label; on X = {x0, x1} with mu(x0) = 3 alpha and C = {c1, c2} (c1(x0) = 1, "
           "c2(x0) = 0, both 0 on x1; VC = 1) that label falls on x1 w.p. 1 - 3alpha and carries no information, so "
           "every learner fails under c1 or c2 w.p. >= (1 - 3alpha)/2 = 7/20 > beta (indistinguishability).",
           [((1 - 3 * al) / 2, ">", be), (3 * al, ">", al)])
    cite("Indistinguishability: when the learner's whole input has the same law under c1 and c2, its output law Q is "
         "the same, and every h errs by 3 alpha > alpha against c1 or against c2, so Q(fail | c1) + Q(fail | c2) >= 1.")
    mod = bounds_module("bns15")
    for v, a_, b_, e_ in ((2, 0.1, 0.05, 1.0), (5, 0.2, 0.01, 0.5)):
        want = math.ceil(v / (a_**3 * e_) * math.log(1 / a_) + math.log(1 / b_) / (a_ * e_) - 1e-9)
        got = mod.bns15_generic_labeled(vc_dim=v, alpha=a_, beta=b_, epsilon=e_, form="paper")
        if got != want:
            raise AssertionError(f"bns15_generic_labeled({v}, {a_}, {b_}, {e_}) = {got}, verified {want}")
    eps_num = float(eps_star.subs(K, 1))
    at_ce = mod.bns15_generic_labeled(vc_dim=1, alpha=0.1, beta=0.05, epsilon=eps_num, form="paper")
    at_ce_corrected = mod.bns15_generic_labeled(vc_dim=1, alpha=0.1, beta=0.05, epsilon=eps_num)
    if at_ce_corrected != mod.bns15_generic_labeled(vc_dim=1, alpha=0.1, beta=0.05, epsilon=1.0):
        raise AssertionError("bns15_generic_labeled's default (corrected) form must use min(eps, 1)")
    details = join([
        "The statement is for every alpha, beta, eps. Its m falls below one label once eps exceeds a constant times "
        "VC log(1/alpha)/alpha^3 + log(1/beta)/alpha (sympy: K m_stated = 1/2 at eps* = 2K(...)), while without privacy "
        "a learner needs Omega(log(1/beta)/alpha) labels: with one label the two-concept class on {x0, x1}, mu(x0) = "
        "3 alpha, fails w.p. >= (1 - 3alpha)/2 = 0.35 > beta = 0.05 (exact).",
        "The 1/alpha term of non-private generalisation is missing for eps > 1; for eps <= 1 it is dominated by "
        "log(1/beta)/(alpha eps). Running the eps = 1 learner for every eps >= 1 gives the corrected form.",
        f"semiprivate.theory.bounds.bns15.bns15_generic_labeled = ceil(VC ln(1/alpha)/(alpha^3 eps) + ln(1/beta)/"
        f"(alpha eps)) at 2 points; at the counterexample (constant 1, eps = {fmt(eps_num)}) it returns {at_ce} "
        "with form='paper' (this check shows one label is not enough); its default, form='corrected', returns "
        f"{at_ce_corrected}, its value at eps = 1.",
    ])
    return Check(id=f"{ID}.large-epsilon", links=("semiprivate.theory.bounds.bns15.bns15_generic_labeled",),
                 claim="BNS15 Thm 3.3: for every alpha, beta, eps there is an (alpha, beta, eps, 0, n, m)-PSSL with "
                       "m = O(VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(alpha eps)).",
                 method="symbolic+exact", details=details,
                 corrected="m = O(VC log(1/alpha)/(alpha^3 min(eps, 1)) + log(1/beta)/(alpha min(eps, 1))) (and n "
                           "likewise): the stated form holds for eps <= 1.")

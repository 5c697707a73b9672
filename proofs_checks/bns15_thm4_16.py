"""BNS15 Theorem 4.16: LabelBoost as an agnostic learner using F ("minor changes in the proof of Theorem 4.14").

The labelled set now needs agnostic uniform convergence (Thm B.6, sizes ~ 1/alpha^2), the final
learner is trained on data labelled by h_N in F (realizable, Thm B.5), and Claim 4.3 takes privacy
from eps* = 1 to eps. The check certifies the accuracy/confidence sums, the privacy composition and
the O-form of m = O(VC(F)/(alpha^2 eps) log(1/(alpha beta))).

Implements: the proofs_checks part of BNS15.Thm4.16. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import sympy as sp
from semiprivate.proofs_checks._framework import Check, cite, exact_fact, join, register, sympy_nonneg, sympy_zero
from semiprivate.proofs_checks._links import bounds_module

ID = "BNS15.Thm4.16"
O_CONDITION = ("alpha beta <= 1/4 for the O-form of m (then ln(c0/(alpha beta)) <= (1 + ln c0/ln 4) ln(1/(alpha beta)) "
               "for the proof's constant c0 >= 1)")
DELTA_CONDITION = ("eps <= 1 (Claim 4.3), and as in Thm 4.14 the final delta is 164 eps/(3 + e) delta: the theorem's "
                   "'(eps, delta)' needs the base learner run at delta (3 + e)/(164 eps)")


def _log_o_form(c0: sp.Symbol, condition: str) -> None:
    """ln(c0/(alpha beta)) <= (1 + ln c0/ln 4) ln(1/(alpha beta)) when alpha beta <= 1/4 and c0 >= 1 (sympy)."""
    t, w = sp.symbols("t w", nonnegative=True)  # ln(1/(alpha beta)) = ln 4 + t, c0 = 1 + w
    c = 1 + w
    with sp.evaluate(False):
        expr = (1 + sp.log(c) / sp.log(4)) * (sp.log(4) + t) - (sp.log(c) + sp.log(4) + t)
    sympy_zero(expr, t * sp.log(c) / sp.log(4), "(1 + ln c0/ln 4) L - (ln c0 + L) == t ln c0/ln 4, L = ln 4 + t",
               condition=condition)
    sympy_nonneg(t * sp.log(1 + w) / sp.log(4), "t ln c0/ln 4 for t >= 0, c0 = 1 + w >= 1", condition=condition)


@register(f"{ID}.composition")
def check_thm416() -> Check:
    """OPT + 10 alpha + alpha, 2 beta, Claim 4.3's delta, and m's O-form with alpha^2."""
    a, b, e, dl, opt, K = sp.symbols("alpha beta epsilon delta OPT K", positive=True)
    vc = sp.Symbol("VC", positive=True)
    cite("BNS15 Thm 4.14's construction with the 'minor changes': the labelling hypothesis h_N in F is chosen with "
         "agnostic guarantees (Thm B.6: |S| >= 50 VC(F)/alpha^2 ln(1/(alpha beta)) gives |error_S - error_mu| <= alpha "
         "for all f in F), so error_mu(c, h_N) <= min_f error_mu(c, f) + alpha w.p. 1 - beta/2; the base learner is a "
         "PSSL for F run on data labelled by h_N in F (realizable), and Thm B.5 gives error_mu(h_N, h_fin) <= 10 alpha "
         "w.p. 1 - beta/2; Lem 4.6 and Claim 4.3 as in Thm 4.14.")
    c0 = sp.Symbol("c0", positive=True)
    with sp.evaluate(False):  # keep the terms in the certificates
        tri = (opt + a) + 10 * a
        conf = b + b / 2 + b / 2
        dlt = 4 * e / (3 + sp.E) * (41 * dl)
        m_pre = K * vc / a**2 * sp.log(c0 / (a * b))
        m_ratio = m_pre * (3 + sp.E) / e / (vc / (a**2 * e) * sp.log(c0 / (a * b)))
    sympy_zero(tri, opt + 11 * a,
               "triangle inequality: (OPT + alpha) + 10 alpha == OPT + 11 alpha, so lambda = 11 for alpha")
    sympy_zero(conf, 2 * b, "beta (base learner) + beta/2 (Thm B.5) + beta/2 (labeller) == 2 beta")
    sympy_zero(dlt, 164 * e / (3 + sp.E) * dl, "4eps/(3+e) * 41 delta == 164 eps delta/(3+e)",
               condition=DELTA_CONDITION)
    exact_fact("At eps = 1 the composed delta is 164/(3 + e) delta > delta.", [(sp.Integer(164) / (3 + sp.E), ">", 1)],
               condition=DELTA_CONDITION)
    sympy_zero(m_ratio, K * (3 + sp.E),
               "m' / (VC/(alpha^2 eps) ln(c0/(alpha beta))) == K (3 + e): Claim 4.3 scales the labelled part by (3 + e)/eps")
    _log_o_form(c0, O_CONDITION)
    mod = bounds_module("bns15")
    for v, al, be, ep in ((2, 0.1, 0.05, 1.0), (7, 0.02, 0.1, 0.3)):
        got = mod.bns15_thm4_16_labeled(vc_dim=v, alpha=al, beta=be, epsilon=ep)
        if got != math.ceil(v / (al**2 * ep) * math.log(1 / (al * be)) - 1e-9):
            raise AssertionError(f"bns15_thm4_16_labeled({v}, {al}, {be}, {ep}) = {got}")
    details = join([
        "Accuracy: error_mu(c, h_fin) <= error_mu(c, h_N) + error_mu(h_N, h_fin) <= (OPT + alpha) + 10 alpha = OPT + "
        "11 alpha; confidence beta + beta/2 + beta/2 = 2 beta (sympy): lambda = 11 as in Thm 4.14.",
        "Privacy: (1, 41 delta) from Lem 4.6, then Claim 4.3 at eps* = 1: (eps, 164 eps delta/(3 + e)) (sympy), > delta "
        "at eps = 1 (exact): the same delta caveat as BNS15.Thm4.14.composition.",
        "Labels: B.6 sizes K VC/alpha^2 ln(c0/(alpha beta)) scaled by (3 + e)/eps (sympy), and ln(c0/(alpha beta)) <= "
        "(1 + ln c0/ln 4) ln(1/(alpha beta)) for alpha beta <= 1/4 (sympy): m = O(VC(F)/(alpha^2 eps) log(1/(alpha "
        "beta))). Without alpha beta bounded away from 1 the O-form fails (ln(1/(alpha beta)) -> 0).",
        "semiprivate.theory.bounds.bns15.bns15_thm4_16_labeled = ceil(VC/(alpha^2 eps) ln(1/(alpha beta))) at 2 points.",
    ])
    return Check(id=f"{ID}.composition", links=("semiprivate.theory.bounds.bns15.bns15_thm4_16_labeled",),
                 claim="BNS15 Thm 4.16: from an (alpha, beta, 1, delta, n, n)-PSSL for F, LabelBoost gives a (lambda "
                       "alpha, lambda beta, eps, delta, O(n/eps), m)-agnostic-PSSL using F with m = O(VC(F)/(alpha^2 eps) "
                       "log(1/(alpha beta))).",
                 method="symbolic+exact", details=details)

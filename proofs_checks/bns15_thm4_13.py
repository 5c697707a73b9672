"""BNS15 Theorems 4.13, 4.14 and 5.8: the compositions that turn LabelBoost's PSSL into the final learners.

Thm 4.13 = Lem 4.12 (utility) + Lem 4.6 (privacy): (11 alpha, 2 beta, 1, 41 delta, O(n), m)-PSSL with
m = O((1/alpha) VC log(1/(alpha beta))). Thm 4.14 applies Claim 4.3 (sub-sampling from eps* = 1 to eps)
to it; Thm 5.8 applies Claim 5.7 (active sub-sampling) instead, which keeps m.

Implements: the proofs_checks part of BNS15.Thm4.13, BNS15.Thm4.14 and BNS15.Thm5.8. Check ids start
with the paper key; verdicts are recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import sympy as sp
from semiprivate.proofs_checks._framework import Check, cite, exact_fact, join, register, sympy_nonneg, sympy_zero
from semiprivate.proofs_checks._links import bounds_module, close

O_CONDITION = "alpha, beta <= 1/2 for the O-form of m (then m <= 96000 (1 + ln 2240/ln 4) VC ln(1/(alpha beta))/alpha)"
DELTA_CONDITION_414 = ("eps <= 1 (Claim 4.3), and the final delta is 164 eps/(3 + e) delta ~ 28.7 eps delta: the "
                       "theorem's '(eps, delta)' needs the base learner run at delta (3 + e)/(164 eps) (for eps > "
                       "(3 + e)/164 ~ 0.035 the composition does not keep delta)")
DELTA_CONDITION_58 = ("eps <= 3 + e^2 (Claim 5.7 needs t >= n), and the final delta is 41 (7 + e)/(3 + e^2) eps delta "
                      "~ 37.97 eps delta: the theorem's '(eps, delta)' needs the base learner run at a delta smaller "
                      "by that factor")


def _m_o_form(a: sp.Symbol, b: sp.Symbol) -> None:
    """m = (96000/alpha) VC ln(2240/(alpha beta)) is O((1/alpha) VC ln(1/(alpha beta))) for alpha, beta <= 1/2."""
    t = sp.Symbol("t", nonnegative=True)  # ln(1/(alpha beta)) = ln 4 + t
    c = 1 + sp.log(2240) / sp.log(4)
    sympy_nonneg(sp.expand(c * (sp.log(4) + t) - (sp.log(2240) + sp.log(4) + t)),
                 "(1 + ln 2240/ln 4) L - (ln 2240 + L) for L = ln(1/(alpha beta)) = ln 4 + t >= ln 4",
                 condition=O_CONDITION)
    sympy_zero(sp.log(2240 / (a * b)), sp.log(2240) + sp.log(1 / (a * b)), "ln(2240/(alpha beta)) == ln 2240 + ln(1/(alpha beta))")


@register("BNS15.Thm4.13.composition")
def check_thm413() -> Check:
    """Accuracy 10 alpha + alpha, confidence beta + beta/2 + beta/2, and m's O-form."""
    a, b = sp.symbols("alpha beta", positive=True)
    cite("BNS15 Lem 4.6 ((1, 41 delta)-DP, BNS15.Lem4.6.constants), Lem 4.12's steps (Thm B.5 at (10 alpha, beta/2), "
         "Claim 4.11's sums, BNS15.Cl4.11.thmB5-sizes) and the triangle inequality for error_mu.")
    with sp.evaluate(False):
        acc = 10 * a + a
        conf = b + b / 2 + b / 2
    sympy_zero(acc, 11 * a, "10 alpha (Thm B.5) + alpha (Claim 4.11) == 11 alpha")
    sympy_zero(conf, 2 * b, "beta (base learner) + beta/2 (Thm B.5) + beta/2 (Claim 4.11) == 2 beta")
    _m_o_form(a, b)
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("bns15")
    for vc, al, be, dl, n in ((1, 0.01, 0.1, 1e-6, 1000), (3, 0.05, 0.2, 1e-9, 50)):
        r = mod.bns15_thm4_13(vc, al, be, dl, n)
        close(r.alpha, 11 * al, what="Thm 4.13 alpha")
        close(r.beta, 2 * be, what="Thm 4.13 beta")
        close(r.delta, 41 * dl, what="Thm 4.13 delta")
    links = ("semiprivate.theory.bounds.bns15.bns15_thm4_13",)
    lines.append("semiprivate.theory.bounds.bns15.bns15_thm4_13 returns (11 alpha, 2 beta, 1, 41 delta) at 2 points.")
    details = join([
        "Lem 4.12's proof: error_mu(h_fin, h_N) <= 10 alpha w.p. 1 - beta/2 (Thm B.5), error_mu(c, h_N) <= alpha w.p. "
        "1 - beta/2 (Claim 4.11), the base learner fails w.p. beta: triangle inequality gives 11 alpha w.p. 1 - 2 beta "
        "(sympy).",
        "Privacy (1, 41 delta) is Lem 4.6 (certified in BNS15.Lem4.6.constants).",
        "m = (96000/alpha) VC ln(2240/(alpha beta)) <= 96000 (1 + ln 2240/ln 4) VC ln(1/(alpha beta))/alpha when "
        "alpha beta <= 1/4 (sympy): the O-form needs alpha beta bounded away from 1 (as alpha, beta -> 1, "
        "ln(1/(alpha beta)) -> 0 while m stays positive).",
        *lines,
    ])
    return Check(id="BNS15.Thm4.13.composition", links=links,
                 claim="BNS15 Thm 4.13: LabelBoost on an (alpha, beta, 1, delta, n, n)-PSSL is an (11 alpha, 2 beta, 1, "
                       "41 delta, O(n), m)-PSSL with m = O((1/alpha) VC log(1/(alpha beta))).",
                 method="symbolic", details=details)


@register("BNS15.Thm4.14.composition")
def check_thm414() -> Check:
    """Claim 4.3 from eps* = 1 applied to Thm 4.13's learner: delta, sizes and labels."""
    e, dl, n, m = sp.symbols("epsilon delta n m", positive=True)
    cite("BNS15 Claim 4.3 with eps* = 1 (certified in BNS15.Cl4.3.subsampling): (1, delta0) on N points -> (eps, "
         "4 eps/(3 + e) delta0) on t = (N/eps)(3 + e) points, for eps <= 1; the labelled part scales by t/N.")
    with sp.evaluate(False):
        composed = 4 * e / (3 + sp.E) * (41 * dl)
        m_ratio = (m * (3 + sp.E) / e) / (m / e)
        t_ratio = (n * (3 + sp.E) / e) / (n / e)
    sympy_zero(composed, 164 * e / (3 + sp.E) * dl, "4eps/(3+e) * 41 delta == 164 eps delta/(3+e)",
               condition=DELTA_CONDITION_414)
    exact_fact("At eps = 1 the composed delta is 164/(3 + e) delta > delta, and it is <= delta only for eps <= "
               "(3 + e)/164 < 0.035.",
               [(sp.Integer(164) / (3 + sp.E), ">", 1), ((3 + sp.E) / 164, "<", sp.Rational(35, 1000))],
               condition=DELTA_CONDITION_414)
    sympy_zero(m_ratio, 3 + sp.E, "m' / (m/eps) == 3 + e: m' = O(m/eps)")
    sympy_zero(t_ratio, 3 + sp.E, "t / (n/eps) == 3 + e: t = O(n/eps)")
    a, b = sp.symbols("alpha beta", positive=True)
    _m_o_form(a, b)
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("bns15")
    for vc, al, be, ep, d0, nn in ((1, 0.01, 0.1, 0.5, 1e-6, 1000), (2, 0.05, 0.1, 1.0, 1e-8, 30)):
        r = mod.bns15_thm4_14_explicit(vc, al, be, ep, d0, nn)
        close(r.delta, 164 * ep / (3 + math.e) * d0, what="Thm 4.14 delta")
        close(r.alpha, 11 * al, what="Thm 4.14 alpha")
        base = mod.bns15_thm4_13(vc, al, be, d0, nn)
        if r.m != math.ceil(base.m * (3 + math.e) / ep - 1e-9):
            raise AssertionError(f"bns15_thm4_14_explicit m = {r.m}")
    links = ("semiprivate.theory.bounds.bns15.bns15_thm4_14_explicit",)
    lines.append("semiprivate.theory.bounds.bns15.bns15_thm4_14_explicit returns alpha = 11 alpha, delta = 164 eps/(3+e) "
                 "delta and m' = ceil(m (3+e)/eps) at 2 points.")
    details = join([
        "Thm 4.13's learner is (1, 41 delta)-DP; Claim 4.3 with eps* = 1 gives (eps, 4 eps/(3 + e) * 41 delta) = "
        "(eps, 164 eps delta/(3 + e)) (sympy) on t = (N/eps)(3 + e) = O(n/eps) points, with m' = m (3 + e)/eps = "
        "O((1/(alpha eps)) VC log(1/(alpha beta))) labels (sympy; m's O-form as in BNS15.Thm4.13.composition).",
        "164/(3 + e) > 1 (exact interval evaluation): for eps > (3 + e)/164 the composition returns a larger delta "
        "than the base learner's; the theorem's '(eps, delta)' holds for a base learner run at delta (3 + e)/(164 eps) "
        "(delta enters n only through the base learner, so the O(n/eps) unlabelled size refers to that learner).",
        "lambda = 11 for alpha and 2 for beta: the output's alpha is 11 times the input's.",
        *lines,
    ])
    return Check(id="BNS15.Thm4.14.composition", links=links,
                 claim="BNS15 Thm 4.14 proof: Claim 4.3 applied to Thm 4.13's learner gives a (lambda alpha, lambda "
                       "beta, eps, delta, O(n/eps), m)-PSSL with m = O((1/(alpha eps)) VC log(1/(alpha beta))).",
                 method="symbolic+exact", details=details)


@register("BNS15.Thm5.8.composition")
def check_thm58() -> Check:
    """Claim 5.7 from eps* = 1 applied to Thm 4.13's learner: delta, sizes, and m independent of eps."""
    e, dl = sp.symbols("epsilon delta", positive=True)
    cite("BNS15 Claim 5.7 with eps* = 1 (certified in BNS15.Cl5.7.statement, for eps <= 3 + e^2): (eps, (7 + e)/"
         "(3 + e^2) eps delta0) on t = (N/eps)(3 + e^2) points, labelling only A's m examples.")
    with sp.evaluate(False):
        composed = (7 + sp.E) / (3 + sp.E**2) * e * (41 * dl)
    sympy_zero(composed, 41 * (7 + sp.E) / (3 + sp.E**2) * e * dl,
               "(7+e)/(3+e^2) eps * 41 delta == 41(7+e)/(3+e^2) eps delta", condition=DELTA_CONDITION_58)
    exact_fact("41 (7 + e)/(3 + e^2) > 1: at eps = 1 the composed delta exceeds delta.",
               [(41 * (7 + sp.E) / (3 + sp.E**2), ">", 1)], condition=DELTA_CONDITION_58)
    a, b = sp.symbols("alpha beta", positive=True)
    _m_o_form(a, b)
    details = join([
        "Thm 4.13's learner ((1, 41 delta), N = O(n) points, m labels) through Claim 5.7 with eps* = 1: (eps, "
        "41 (7 + e)/(3 + e^2) eps delta) (sympy) on t = (N/eps)(3 + e^2) = O(n/eps) points; the active learner "
        "labels only the m examples A asks for, so m = O((1/alpha) VC log(1/(alpha beta))) does not depend on eps "
        "(m's O-form as in BNS15.Thm4.13.composition).",
        "41 (7 + e)/(3 + e^2) ~ 37.97 > 1 (exact interval evaluation): to end at (eps, delta) the base learner must be "
        "run at a smaller delta, as for Thm 4.14; Claim 5.7 needs eps <= 3 + e^2 (t >= N).",
    ])
    return Check(id="BNS15.Thm5.8.composition",
                 claim="BNS15 Thm 5.8: Claim 5.7 applied to the learner of Thm 4.13 gives a (lambda alpha, lambda beta, "
                       "eps, delta, O(n/eps), m)-PAL with m = O((1/alpha) VC log(1/(alpha beta))).",
                 method="symbolic+exact", details=details)

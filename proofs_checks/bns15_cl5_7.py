"""BNS15 Claim 5.7 (SubSampling: PSSL -> PAL): the final inequality of the proof and the statement.

Implements: the proofs_checks part of BNS15.Cl5.7. Check ids start with the paper key; verdicts are
recorded in :mod:`proofs_checks.expected`.
"""

from __future__ import annotations

import math

import sympy as sp
from hypothesis import strategies as st

from proofs_checks._framework import (
    Check,
    Verdict,
    fmt,
    grid_violations,
    hypothesis_counterexample,
    join,
    register,
    sympy_nonneg,
    sympy_zero,
)
from proofs_checks._links import bounds_module, close

ID = "BNS15.Cl5.7"


def proof_ok(eps: float, estar: float) -> bool:
    """Does the proof's last step give (eps, (7 + e^{eps*})/(3 + e^{2eps*}) eps delta) at q = eps/(3 + e^{2 eps*})?

    Upper: P(D) <= (q E + 1 - q) A + q (1 + e^{eps*}) delta; lower: P(D') >= (q/E + 1 - q) A - 2 q delta,
    E = e^{2 eps*}. Needed: (q E + 1 - q) <= e^eps (q/E + 1 - q) and q(1 + e^{eps*}) + 2 q e^eps <= q(7 + e^{eps*}).
    """
    E = math.exp(2 * estar)
    q = eps / (3 + E)
    if q > 1:
        return True  # t < n: the construction does not exist
    mult = q * E + 1 - q <= math.exp(eps) * (q / E + 1 - q) * (1 + 1e-12)
    add = 1 + math.exp(estar) + 2 * math.exp(eps) <= 7 + math.exp(estar) + 1e-12
    return mult and add


@register(f"{ID}.proof-last-step")
def check_proof_step() -> Check:
    """The multiplicative part for all eps; the additive part needs e^eps <= 3."""
    bad_mult = grid_violations(
        lambda eps, estar: (lambda E, q: q > 1 or q * E + 1 - q <= math.exp(eps) * (q / E + 1 - q) * (1 + 1e-12))(
            math.exp(2 * estar), eps / (3 + math.exp(2 * estar))),
        {"eps": [1e-4, 0.01, 0.1, 0.5, 1, 1.5, 2, 5, 10, 50], "estar": [1e-3, 0.1, 0.5, 1, 2, 4, 8]})
    if bad_mult:
        raise RuntimeError(f"multiplicative part fails at {bad_mult[:2]}")
    ce = hypothesis_counterexample(
        lambda eps, estar: (lambda E, q: q > 1 or q * E + 1 - q <= math.exp(eps) * (q / E + 1 - q) * (1 + 1e-12))(
            math.exp(2 * estar), eps / (3 + math.exp(2 * estar))),
        {"eps": st.floats(1e-6, 60.0), "estar": st.floats(1e-6, 10.0)})
    if ce is not None:
        raise RuntimeError(f"hypothesis: multiplicative part fails at {ce}")
    ep = sp.Symbol("epsilon", positive=True)
    # additive: q(1 + e^{eps*}) delta + e^eps * 2 q delta <= q (7 + e^{eps*}) delta  <=>  e^eps <= 3
    roots = sp.solve(sp.Eq(1 + 2 * sp.exp(ep), 7), ep)
    if len(roots) != 1:
        raise RuntimeError("expected one root")
    sympy_zero(roots[0] - sp.log(3), "root of 1 + 2e^eps = 7 minus ln 3")
    eps_ce, estar_ce = 2.0, 1.0
    got = 1 + math.exp(estar_ce) + 2 * math.exp(eps_ce)
    claimed = 7 + math.exp(estar_ce)
    if proof_ok(eps_ce, estar_ce) or not got > claimed:
        raise RuntimeError("expected the additive part to fail")
    details = join([
        "With q = n/t = eps/(3 + e^{2eps*}) and A = P[A(D'_J) in F | i not in J], the proof has P(D) <= (q e^{2eps*} "
        "+ 1 - q) A + q(1 + e^{eps*}) delta and P(D') >= (q e^{-2eps*} + 1 - q) A - 2q delta.",
        "Multiplicative part (q e^{2eps*} + 1 - q) <= e^eps (q e^{-2eps*} + 1 - q): holds on a 10x7 grid "
        "(eps up to 50, eps* up to 8, wherever t >= n) and in a derandomized hypothesis search (300 examples).",
        "Additive part: e^eps * 2q delta + q(1 + e^{eps*}) delta <= (7 + e^{eps*})/(3 + e^{2eps*}) eps delta = "
        "q(7 + e^{eps*}) delta iff e^eps <= 3, i.e. eps <= ln 3 = 1.0986.",
        f"eps = {eps_ce}, eps* = {estar_ce}: the derivation gives delta coefficient q(1 + e + 2e^2) = q * {fmt(got)}, "
        f"the claim states q * {fmt(claimed)}.",
        "The statement itself still holds for every eps (see BNS15.Cl5.7.statement); only this proof's last step "
        "needs eps <= ln 3.",
    ])
    return Check(id=f"{ID}.proof-last-step",
                 claim="BNS15 Cl 5.7 proof: 'for t >= (n/eps)(3 + exp(2eps*)) this yields P(D) <= e^eps P(D') + "
                       "(7 + e^{eps*})/(3 + e^{2eps*}) eps delta' (for every eps).",
                 method="grid+hypothesis+symbolic", verdict=Verdict.HOLDS_WITH_CONDITION, details=details,
                 condition="eps <= ln 3 for the additive (delta) part of the derivation")


@register(f"{ID}.statement")
def check_statement() -> Check:
    """The claimed (eps, delta') follows from the tight sub-sampling theorem for all eps with t >= n."""
    q, w = sp.symbols("q w", positive=True)  # e^{eps*} = 1 + w, e^{2eps*} = (1 + w)^2
    # tight: (ln(1 + q(e^{eps*} - 1)), q delta) for a uniformly random n-subset (substitution neighbours):
    # eps' = ln(1 + q(e^{eps*} - 1)) <= q(e^{eps*} - 1) <= q(3 + e^{2eps*}) = eps; delta' = q delta <= q(7 + e^{eps*}) delta
    sympy_nonneg(sp.expand(q * (3 + (1 + w) ** 2) - q * w), "q(3 + e^{2eps*}) - q(e^{eps*} - 1)")
    sympy_nonneg(sp.expand(q * (7 + 1 + w) - q), "q(7 + e^{eps*}) - q")
    u = sp.Symbol("u", nonnegative=True)
    sympy_nonneg(sp.simplify(sp.diff(u - sp.log(1 + u), u)), "d/du (u - ln(1+u))")
    def ok(eps: float, estar: float) -> bool:
        E = math.exp(2 * estar)
        qq = eps / (3 + E)
        if qq > 1:
            return True
        eps_tight = math.log1p(qq * math.expm1(estar))
        return eps_tight <= eps + 1e-15 and qq <= qq * (7 + math.exp(estar))
    bad = grid_violations(ok, {"eps": [1e-4, 0.1, 1, 2, 5, 20], "estar": [1e-3, 0.5, 1, 3, 8]})
    if bad:
        raise RuntimeError(f"{bad[:2]}")
    ce = hypothesis_counterexample(ok, {"eps": st.floats(1e-8, 100.0), "estar": st.floats(1e-6, 20.0)})
    if ce is not None:
        raise RuntimeError(f"hypothesis found a violation at {ce}")
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("privacy")
    if mod is not None:
        for n_, es_, dl, ep_ in ((100, 1.0, 1e-6, 0.5), (37, 0.2, 1e-9, 2.0), (5000, 3.0, 0.0, 0.05)):
            r = mod.active_subsampling_privacy(n_, es_, dl, ep_)
            close(r.delta, (7 + math.exp(es_)) / (3 + math.exp(2 * es_)) * ep_ * dl, what="Cl 5.7 delta")
            if r.t != math.ceil(n_ / ep_ * (3 + math.exp(2 * es_)) - 1e-9):
                raise AssertionError(f"active_subsampling_privacy t = {r.t}")
        links = ("theory.bounds.privacy.active_subsampling_privacy",)
        lines.append("theory.bounds.privacy.active_subsampling_privacy returns delta' = (7 + e^{eps*})/(3 + e^{2eps*}) "
                     "eps delta and t = ceil((n/eps)(3 + e^{2eps*})) at 3 points.")
    else:
        lines.append("theory.bounds.privacy not importable: link not checked.")
    details = join([
        "Neighbouring labelled databases differ in one entry i; given J, D_J and D'_J differ in at most that entry "
        "(K, the m smallest indices of J, is the same for both). So SubSampling is A applied to a uniformly random "
        "n-subset: by the tight sub-sampling theorem (Balle, Barthe, Gaboardi 2018, without replacement, "
        "substitution) it is (ln(1 + q(e^{eps*} - 1)), q delta)-DP, q = n/t.",
        "With t = (n/eps)(3 + e^{2eps*}): ln(1 + q(e^{eps*} - 1)) <= q(e^{eps*} - 1) <= q(3 + e^{2eps*}) = eps and "
        "q delta <= (7 + e^{eps*}) q delta (grid over eps up to 20, eps* up to 8, and a derandomized hypothesis search; ln(1+u) <= u by sympy).",
        "So the claimed guarantee holds for every eps for which t >= n (eps <= 3 + e^{2eps*}), conditional on the "
        "cited theorem.",
        *lines,
    ])
    return Check(id=f"{ID}.statement",
                 claim="BNS15 Cl 5.7: an (alpha, beta, eps*, delta, n, m)-PSSL gives an (alpha, beta, eps, "
                       "(7 + e^{eps*})/(3 + e^{2eps*}) eps delta, t, m)-PAL with t = (n/eps)(3 + exp(2eps*)).",
                 method="symbolic+grid+hypothesis", verdict=Verdict.HOLDS, details=details, links=links)

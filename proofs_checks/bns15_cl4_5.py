"""BNS15 Claim 4.5 (cited from Bun, Nissim, Stemmer, Vadhan 2015): i.i.d. resampling of an (eps, delta)-DP
algorithm's n-point input is (ln 244, 2467 delta)-DP for eps <= 1.

BNS15 states the claim without proof. The check names the cited result, certifies the algebra BNS15
builds on it (Lem 4.6 feeds it to Claim 4.3 with eps* = ln 244), and certifies that the claim's
eps' = ln 244 is not contradicted by the single-count mechanism, whose privacy loss under resampling is
exactly ln (1 + (e - 1)/n)^n <= e - 1.

Implements: the proofs_checks part of BNS15.Cl4.5. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import sympy as sp
from semiprivate.proofs_checks._framework import (
    Check,
    cite,
    exact_fact,
    fmt,
    join,
    observe,
    register,
    sympy_nonneg,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module, close

ID = "BNS15.Cl4.5"


def _resampling_ratio(n: int) -> float:
    """P[B(D) = 1]/P[B(D') = 1] for A(D) = 1 w.p. e^{c(D) - n}/2 (c = copies of the changed row's value)."""
    return (1 + (math.e - 1) / n) ** n


@register(f"{ID}.resampling")
def check_cl45() -> Check:
    """The constants as used (Claim 4.3 at eps* = ln 244) and the single-count mechanism's loss."""
    cite("BNS15 Claim 4.5, citing Bun, Nissim, Stemmer and Vadhan (2015): for eps <= 1, running an (eps, delta)-DP "
         "algorithm on n i.i.d. draws from its n-point input is (ln 244, 2467 delta)-DP. BNS15 gives no proof; the "
         "check does not re-derive it.")
    x = sp.Symbol("x", nonnegative=True)
    with sp.evaluate(False):  # keep the terms in the certificates
        t247 = 3 + sp.exp(sp.log(244))
    sympy_zero(t247, 247, "3 + e^{ln 244} == 247 (Claim 4.3's t = (n/eps)(3 + e^{eps*}) = 247 n/eps)")
    exact_fact("Lem 4.6 feeds Claim 4.5 into Claim 4.3 at eps* = ln 244, eps = 1: 4 * 2467/247 <= 41 (and the proof's "
               "misprint 2476 also gives 4 * 2476/247 <= 41).",
               [(sp.Rational(4 * 2467, 247), "<=", 41), (sp.Rational(4 * 2476, 247), "<=", 41)])
    # single-count mechanism: loss n ln(1 + (e^eps - 1)/n) <= e^eps - 1 <= e - 1 < ln 244
    sympy_zero(sp.Derivative(x - sp.log(1 + x), x), x / (1 + x), "d/dx (x - ln(1 + x)) == x/(1 + x)")
    sympy_nonneg(x / (1 + x), "x/(1 + x) for x >= 0 (so x - ln(1 + x) >= 0, being 0 at x = 0)")
    exact_fact("For eps <= 1 the single-count mechanism's loss under resampling is n ln(1 + (e^eps - 1)/n) <= "
               "e^eps - 1 <= e - 1 < ln 244.",
               [(sp.E - 1, "<", sp.log(244))])
    cite("The single-count mechanism A(D) = 1 w.p. e^{eps (c(D) - n)}/2 (c(D): entries equal to v) is eps-DP: q <= 1/2, "
         "the ratio of P[1] is <= e^eps and that of P[0] is <= 2 - e^{-eps} <= e^eps (as e^eps + e^{-eps} >= 2); on D (row i = v, no other v) and "
         "D' (row i != v) resampling gives P[B(D) = 1]/P[B(D') = 1] = E[e^{eps K}] = (1 + (e^eps - 1)/n)^n, K ~ "
         "Bin(n, 1/n) the copies of row i.")
    worst = max(_resampling_ratio(n) for n in range(1, 2001))
    if not worst <= math.exp(math.e - 1) < 244:
        raise RuntimeError("single-count resampling ratio above the claim")
    observe(f"Single-count mechanism, n = 1..2000: largest ratio {fmt(worst)} (limit e^(e-1) = "
            f"{fmt(math.exp(math.e - 1))}), far below 244: no counterexample to eps' = ln 244.")
    mod = bounds_module("privacy")
    g = mod.iid_resampling_privacy(epsilon=1.0, delta=1e-6)
    close(g.epsilon, math.log(244), what="Cl 4.5 epsilon")
    close(g.delta, 2467e-6, what="Cl 4.5 delta")
    details = join([
        "Claim 4.5 is cited (Bun-Nissim-Stemmer-Vadhan 2015); BNS15 give no proof, so the check covers the algebra "
        "around it.",
        "As used in Lem 4.6: Claim 4.3 with eps* = ln 244 needs t = (n/eps)(3 + 244) = 247 n/eps (sympy) and turns "
        "2467 delta into 4 * 2467/247 delta = 39.95 delta <= 41 delta (exact; the proof's misprint '2476' gives 40.1 "
        "delta, also <= 41).",
        "Sanity of eps' = ln 244: the single-count mechanism (eps-DP) loses exactly ln (1 + (e^eps - 1)/n)^n <= "
        "e^eps - 1 <= e - 1 = 1.718 < ln 244 = 5.497 under resampling (sympy: x - ln(1 + x) is 0 at 0 and has "
        "derivative x/(1 + x) >= 0; exact interval evaluation).",
        "semiprivate.theory.bounds.privacy.iid_resampling_privacy(epsilon=1, delta=1e-6) = (ln 244, 2467e-6).",
    ])
    return Check(id=f"{ID}.resampling", links=("semiprivate.theory.bounds.privacy.iid_resampling_privacy",),
                 claim="BNS15 Cl 4.5 (cited): for eps <= 1, an (eps, delta)-DP A run on n i.i.d. draws from the n-point "
                       "input is (ln 244, 2467 delta)-DP; as used in Lem 4.6 with Claim 4.3 at eps* = ln 244.",
                 method="symbolic+exact", details=details)

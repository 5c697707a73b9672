"""ABM19 Theorem 3.1 (ASSPP upper bound): the size of the cover and the private sample size.

ASSPP builds H~ from n_pub public points (one hypothesis per dichotomy, so |H~| <= (e n_pub/d)^d by
Sauer for n_pub >= d) and runs the exponential mechanism over H~ on the private sample. The theorem's
n_priv = O((d log(1/alpha) + log(1/beta)) max(1/alpha^2, 1/(eps alpha))) needs log|H~| =
O(d log(1/alpha) + log(1/beta)) at the n_pub of Lemma 3.3.

Implements: the proofs_checks part of ABM19.Thm3.1. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import sympy as sp
from semiprivate.proofs_checks._framework import Check, cite, exact_fact, join, register, sympy_zero
from semiprivate.proofs_checks._links import bounds_module

CONDITION = "alpha, beta <= 1/2 (the O-form needs log(1/alpha), log(1/beta) bounded away from 0)"


def cover_log_size_constant() -> sp.Expr:
    """K with d ln(e n0/d) <= K (d ln(1/alpha) + ln(1/beta)) for alpha, beta <= 1/2, d >= 1 (c0 = 32 ln(32e))."""
    c0 = 32 * sp.log(32 * sp.E)
    return (1 + sp.log(c0)) / sp.log(2) + 1 + 48 / c0


@register("ABM19.Thm3.1.cover-size")
def check_thm31() -> Check:
    """log|H~| <= d ln(e n0/d) <= K (d ln(1/alpha) + ln(1/beta)) at n0 = (32 d ln(32e/alpha) + 8 ln(2/beta))/alpha."""
    cite("Sauer-Shelah: |H~| <= |Pi_H(S_pub)| <= (e n_pub/d)^d for n_pub >= d; ln is concave: ln X <= ln c + (X - c)/c; "
         "the exponential mechanism over a finite class H~ is an agnostic learner with n_priv = O((log|H~| + "
         "log(1/beta)) max(1/alpha^2, 1/(eps alpha))) (KLNRS plus uniform convergence for finite classes); "
         "Lemma 3.3's cover (ABM19.Lem3.3.manipulation).")
    al, be, d = sp.symbols("alpha beta d", positive=True)
    n0 = (32 * d * sp.log(32 * sp.E / al) + 8 * sp.log(2 / be)) / al
    c0 = 32 * sp.log(32 * sp.E)
    X = c0 + 32 * sp.log(1 / al) + (8 * sp.log(2) + 8 * sp.log(1 / be)) / d
    sympy_zero(sp.log(sp.E * n0 / d), 1 + sp.log(1 / al) + sp.log(X),
               "ln(e n0/d) == 1 + ln(1/alpha) + ln X, X = 32 ln(32e) + 32 ln(1/alpha) + 8 ln(2/beta)/d")
    # after concavity at c0: d ln(e n0/d) <= d(1 + ln c0) + d La (1 + 32/c0) + 8 (ln 2 + Lb)/c0;
    # with La = ln 2 + s, Lb = ln 2 + t, d = 1 + r the gap to K (d La + Lb) is a polynomial in s, t, r
    s, t, r = sp.symbols("s t r", nonnegative=True)
    K = cover_log_size_constant()
    La, Lb, dd = sp.log(2) + s, sp.log(2) + t, 1 + r
    gap_raw = K * (dd * La + Lb) - (dd * (1 + sp.log(c0)) + dd * La * (1 + 32 / c0) + 8 * (sp.log(2) + Lb) / c0)
    poly = sp.Poly(sp.expand(gap_raw), s, t, r)
    sympy_zero(gap_raw, sum(c * s**i * t**j * r**k for (i, j, k), c in poly.terms()),
               "gap K (d La + Lb) - (d(1 + ln c0) + d La (1 + 32/c0) + 8 (ln 2 + Lb)/c0) == its expansion in monomials of "
               "s, t, r >= 0")
    exact_fact("Every coefficient of the gap (a polynomial in s, t, r >= 0) is non-negative, so d ln(e n0/d) <= "
               f"K (d ln(1/alpha) + ln(1/beta)) with K = (1 + ln(32 ln(32e)))/ln 2 + 1 + 48/(32 ln(32e)) ~ "
               f"{float(K):.4g}.", [(c, ">=", 0) for _, c in poly.terms()], condition=CONDITION)
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("abm19")
    k_f = float(K)
    for dv, av, bv in ((1, 0.1, 0.05), (10, 0.01, 0.001), (3, 0.5, 0.5)):
        npub = mod.abm19_public_sample_size(dv, av, bv)
        if not dv * math.log(math.e * npub / dv) <= k_f * (dv * math.log(1 / av) + math.log(1 / bv)):
            raise AssertionError(f"cover size at abm19_public_sample_size{(dv, av, bv)} exceeds the certified bound")
    links = ("semiprivate.theory.bounds.abm19.abm19_public_sample_size",)
    lines.append("semiprivate.theory.bounds.abm19.abm19_public_sample_size (the exact smallest n_pub, <= n0): the cover "
                 "size bound d ln(e n_pub/d) stays below K (d ln(1/alpha) + ln(1/beta)) at 3 points.")
    details = join([
        "ln(e n0/d) = 1 + ln(1/alpha) + ln X with X = 32 ln(32e) + 32 ln(1/alpha) + 8 ln(2/beta)/d (sympy).",
        "Concavity of ln at c0 = 32 ln(32e) and d >= 1 give d ln(e n0/d) <= d(1 + ln c0) + d ln(1/alpha)(1 + 32/c0) "
        "+ 8 ln(2/beta)/c0; with ln(1/alpha) = ln 2 + s, ln(1/beta) = ln 2 + t, d = 1 + r the gap to K(d ln(1/alpha) "
        f"+ ln(1/beta)) is a polynomial with non-negative coefficients (exact interval evaluation), K ~ {float(K):.4g}.",
        "So log|H~| = O(d log(1/alpha) + log(1/beta)) and the exponential mechanism's n_priv = O((d log(1/alpha) + "
        "log(1/beta)) max(1/alpha^2, 1/(eps alpha))), as Thm 3.1 states, for alpha, beta <= 1/2.",
        *lines,
    ])
    return Check(id="ABM19.Thm3.1.cover-size", links=links,
                 claim="ABM19 Thm 3.1: with n_pub from Lemma 3.3, log|H~| = O(d log(1/alpha) + log(1/beta)), so ASSPP "
                       "needs n_priv = O((d log(1/alpha) + log(1/beta)) max(1/alpha^2, 1/(eps alpha))).",
                 method="symbolic+exact", details=details)

"""HPSY Lemma 1 (Karger's cut lemma as HPSY quotes it).

Every cut of G(p) is within (1 +- e) of its expectation w.p. >= 1 - 4/(l d^l), e = sqrt(3(l+2) log d/c_hat),
if e <= 1.

Implements: the proofs_checks part of HPSY.Lem1. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import sympy as sp
from semiprivate.proofs_checks._framework import Check, cite, join, register, sympy_nonneg, sympy_zero


@register("HPSY.Lem1.karger-algebra")
def check_hpsy_lem1() -> Check:
    """e <= 1 iff c_hat >= 3(l+2) log d; 4/(l d^l) <= 4/d^l <= 4/d for l >= 1."""
    cite("Karger's cut-sampling theorem as HPSY Lemma 1 quotes it (constant 4/(l d^l)); not re-derived here. exp is "
         "increasing (d^(l-1) >= 1 iff (l-1) ln d >= 0).")
    c, L, d, s = sp.symbols("c_hat L d s", positive=True)  # L = 3(l+2) log d
    with sp.evaluate(False):
        e_sq = sp.sqrt(L / c) ** 2
    sympy_zero(e_sq, L / c, "e^2 == 3(l+2) log d/c_hat at e = sqrt(3(l+2) log d/c_hat)")
    sympy_nonneg(sp.expand((L + s) - L), "c_hat - 3(l+2) log d for c_hat = 3(l+2) log d + s: then e^2 = L/c_hat <= 1")
    ell = 1 + s
    dd = 1 + sp.Symbol("u", positive=True)  # d > 1
    sympy_nonneg(sp.simplify(4 / dd**ell - 4 / (ell * dd**ell)), "4/d^l - 4/(l d^l) for l = 1 + s >= 1")
    u = sp.Symbol("u", positive=True)
    sympy_zero((4 / dd - 4 / dd**ell) * dd**ell / 4, dd**s - 1, "(4/d - 4/d^l) d^l/4 == d^(l-1) - 1")
    sympy_nonneg(s * sp.log(1 + u), "ln d^(l-1) = s ln(1 + u) (so d^(l-1) >= 1 and 4/d^l <= 4/d)")
    details = join([
        "e = sqrt(3(l+2) log d/c_hat) <= 1 exactly when c_hat >= 3(l+2) log d (sympy).",
        "The failure probability 4/(l d^l) is at most 4/d^l for l >= 1 and at most 4/d (sympy, l = 1 + s, d = 1 + u): "
        "HPSY Lem 2 uses the middle form with l = log(4/beta)/log d (HPSY.Lem2.karger-condition).",
    ])
    return Check(id="HPSY.Lem1.karger-algebra",
                 claim="HPSY Lem 1: e = sqrt(3(l+2) log d/c_hat) <= 1 iff c_hat >= 3(l+2) log d, and the failure "
                       "probability 4/(l d^l) <= 4/d^l for l >= 1.",
                 method="symbolic", details=details)

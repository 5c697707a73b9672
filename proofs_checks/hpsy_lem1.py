"""HPSY Lemma 1 (Karger's cut lemma as HPSY quotes it).

Every cut of G(p) is within (1 +- e) of its expectation w.p. >= 1 - 4/(l d^l), e = sqrt(3(l+2) log d/c_hat),
if e <= 1.

Implements: the proofs_checks part of HPSY.Lem1. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import sympy as sp
from semiprivate.proofs_checks._framework import Check, Claim, Proof, constants, join, register

ID = "HPSY.Lem1.karger-algebra"


def lemma1_proof(three: object = 3, two: object = 2, four: object = 4) -> Proof:
    """HPSY Lem 1's algebra stated formally, with the constants of e = sqrt(3(l+2) log d/c_hat) and 4/(l d^l)."""
    three, two, four = (sp.sympify(x) for x in (three, two, four))
    c, ell, d = sp.symbols("c_hat ell d", positive=True)
    X = 3 * (ell + 2) * sp.log(d)
    e = sp.sqrt(three * (ell + two) * sp.log(d) / c)
    concl = sp.And(sp.Implies(c >= X, e <= 1), sp.Implies(e <= 1, c >= X),
                   four / (ell * d**ell) <= 4 / d**ell, 4 / d**ell <= 4 / d)
    claim = Claim("HPSY Lem 1: e = sqrt(3(l+2) log d / c_hat) <= 1 exactly when c_hat >= 3(l+2) log d, and the failure "
                  "probability 4/(l d^l) is at most 4/d^l (and 4/d) for l >= 1.",
                  (c, ell, d), (ell >= 1, d > 1), concl,
                  samples={"c_hat": ["1/2", "9", "30"], "ell": ["1", "3/2", "3"], "d": ["2", "10"]})
    P = Proof(claim)
    lg = P.monotone("log is increasing", "log", sp.Lt(1, d))
    m = P.smt("log d <= l log d for l >= 1", [ell >= 1, lg], sp.log(d) <= ell * sp.log(d))
    P.monotone("exp is increasing: d <= d^l", "exp", m)
    return P


@register("HPSY.Lem1.karger-algebra")
def check_hpsy_lem1() -> Check:
    """e <= 1 iff c_hat >= 3(l+2) log d; 4/(l d^l) <= 4/d^l <= 4/d for l >= 1."""
    K = constants(ID, three=3, two=2, four=4)
    proof = lemma1_proof(K["three"], K["two"], K["four"])
    details = join([
        "e = sqrt(3(l+2) log d/c_hat) <= 1 exactly when c_hat >= 3(l+2) log d: z3 on r = e >= 0 with r^2 = "
        "3(l+2) log d/c_hat, both directions.",
        "The failure probability 4/(l d^l) is at most 4/d^l for l >= 1 and at most 4/d (log d > 0 for d > 1, l log d >= "
        "log d, exp increasing: d^l >= d; then z3): "
        "HPSY Lem 2 uses the middle form with l = log(4/beta)/log d (HPSY.Lem2.karger-condition).",
    ])
    return Check(id=ID, proof=proof,
                 claim="HPSY Lem 1: e = sqrt(3(l+2) log d/c_hat) <= 1 iff c_hat >= 3(l+2) log d, and the failure "
                       "probability 4/(l d^l) <= 4/d^l for l >= 1.",
                 method="symbolic", details=details)

"""ABM19 Theorem 4.2 (pure semi-private learners need n_pub = Omega(1/alpha)).

The proof ends, like Thm 4.1's, with 100 n_pub alpha > 1/16.

Implements: the proofs_checks part of ABM19.Thm4.2. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import (
    Check,
    Claim,
    Proof,
    constants,
    join,
    register,
)
from semiprivate.proofs_checks._links import bounds_module


def theorem42_proof(level: Any = "1/16", hundred: Any = 100) -> Proof:
    """ABM19 Thm 4.2 stated formally: n_pub > 1/(1600 alpha) for a pure semi-private learner of a class that is
    not pure-privately learnable."""
    level, hundred = sp.sympify(level), sp.sympify(hundred)
    n = sp.Symbol("n_pub", integer=True, positive=True)
    a, errB, failB = sp.symbols("alpha err_B fail_B", positive=True)
    claim = Claim("ABM19 Thm 4.2 proof: every pure semi-private learner for a class that is not pure-privately "
                  "learnable needs 100 n_pub alpha > 1/16, i.e. n_pub > 1/(1600 alpha).",
                  (n, a, errB, failB), (a < 1,), n > level / (hundred * a),
                  given=((sp.Eq(errB, 100 * n * a), "ABM19 Lemma 4.4 / Claim 4.6 (ABM19.Lem4.4.error-scaling)"),
                         (failB < sp.Rational(1, 16), "ABM19 Lemma 4.4 with the fill-with-D0 repair: B's failure "
                          "probability is < 1/16 (ABM19.Thm4.1.arithmetic proves (1/18)/0.99 + the fill failure < 1/16)"),
                         (sp.Implies(failB < sp.Rational(1, 16), errB > sp.Rational(1, 16)),
                          "a class that is not pure-privately learnable has no pure private learner with error and "
                          "confidence 1/16 (as in Thm 4.2's proof)")),
                  samples={"n_pub": ["1", "100"], "alpha": ["1/2", "1/10000"], "err_B": ["100*n_pub*alpha"],
                           "fail_B": ["1/100"]})
    P = Proof(claim)
    P.smt("100 n_pub alpha = err_B > 1/16, so n_pub > 1/(1600 alpha)",
          [sp.Eq(errB, 100 * n * a), failB < sp.Rational(1, 16),
           sp.Implies(failB < sp.Rational(1, 16), errB > sp.Rational(1, 16))], n > level / (hundred * a))
    return P


@register("ABM19.Thm4.2.arithmetic")
def check_abm19_thm42() -> Check:
    """Pure DP: Lemma 4.4 (as repaired) + the pure-private lower bound give 100 n_pub alpha > 1/16."""
    K = constants("ABM19.Thm4.2.arithmetic", level=sp.Rational(1, 16), hundred=100)
    proof = theorem42_proof(K["level"], K["hundred"])
    mod = bounds_module("abm19")
    links: tuple[str, ...] = ()
    lines = []
    for alpha in (0.01, 0.001, 1 / 1600):
        want = int(Fraction(1) / (1600 * Fraction(repr(alpha)))) + 1
        if mod.abm19_public_lower_bound(alpha) != want:
            raise AssertionError(f"abm19_public_lower_bound({alpha}) != {want}")
    links = ("semiprivate.theory.bounds.abm19.abm19_public_lower_bound",)
    lines.append("semiprivate.theory.bounds.abm19.abm19_public_lower_bound = floor(1/(1600 alpha)) + 1 (3 points), shared "
                 "by Thm 4.1 and Thm 4.2.")
    details = join([
        "The proof of Thm 4.2 follows Thm 4.1's with a pure private learner: B from Lemma 4.4 would be a "
        "(100 n_pub alpha, 1/16, eps, 0)-private learner, impossible for the class, so 100 n_pub alpha > 1/16, i.e. "
        "n_pub > 1/(1600 alpha) (sympy). No delta of Thm 4.3 is involved (pure DP).",
        *lines,
    ])
    return Check(id="ABM19.Thm4.2.arithmetic", links=links, proof=proof,
                 claim="ABM19 Thm 4.2 proof: every pure semi-private learner for a class that is not pure-privately "
                       "learnable needs 100 n_pub alpha > 1/16, i.e. n_pub > 1/(1600 alpha).",
                 method="symbolic", details=details)

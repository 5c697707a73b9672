"""ABM19 Theorem 4.2 (pure semi-private learners need n_pub = Omega(1/alpha)).

The proof ends, like Thm 4.1's, with 100 n_pub alpha > 1/16.

Implements: the proofs_checks part of ABM19.Thm4.2. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from semiprivate.proofs_checks._framework import CannotDecide, Check, cite, join, register, sympy_nonneg, sympy_zero
from semiprivate.proofs_checks._links import bounds_module


@register("ABM19.Thm4.2.arithmetic")
def check_abm19_thm42() -> Check:
    """Pure DP: Lemma 4.4 (as repaired) + the pure-private lower bound give 100 n_pub alpha > 1/16."""
    n, a = sp.symbols("n_pub alpha", positive=True)
    cite("ABM19 Lemma 4.4's reduction (with the fill-with-D0 repair, ABM19.Lem4.4.confidence) and the lower bound "
         "for pure private learners of classes that are not pure-privately learnable (as in Thm 4.2's proof): "
         "B cannot be a (100 n_pub alpha, 1/16)-learner, so 100 n_pub alpha > 1/16.")
    if sp.solve(sp.Eq(100 * n * a, sp.Rational(1, 16)), n) != [1 / (1600 * a)]:
        raise CannotDecide("100 n_pub alpha = 1/16 does not have the single root 1/(1600 alpha)")
    with sp.evaluate(False):
        at_threshold = 100 * (1 / (1600 * a)) * a
    sympy_zero(at_threshold, sp.Rational(1, 16), "100 n_pub alpha at n_pub = 1/(1600 alpha) == 1/16 (the threshold)")
    sympy_nonneg(sp.diff(100 * n * a, n), "d/dn_pub (100 n_pub alpha) (monotone: every larger n_pub also satisfies it)")
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
    return Check(id="ABM19.Thm4.2.arithmetic", links=links,
                 claim="ABM19 Thm 4.2 proof: every pure semi-private learner for a class that is not pure-privately "
                       "learnable needs 100 n_pub alpha > 1/16, i.e. n_pub > 1/(1600 alpha).",
                 method="symbolic", details=details)

"""ABM19 Theorem 4.1 (n_pub = Omega(1/alpha) for classes of infinite Littlestone dimension).

Implements: the proofs_checks part of ABM19.Thm4.1. Check ids start with the paper key; verdicts are
recorded in :mod:`proofs_checks.expected`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from proofs_checks._framework import Check, Verdict, join, register, sympy_nonneg, sympy_zero
from proofs_checks._links import bounds_module

ID = "ABM19.Thm4.1"


@register(f"{ID}.arithmetic")
def check_arithmetic() -> Check:
    """100 n_pub alpha > 1/16 <=> n_pub > 1/(1600 alpha); the delta of Thm 4.3 for B's sample size."""
    n, a = sp.symbols("n_pub alpha", positive=True)
    sympy_zero(sp.solve(sp.Eq(100 * n * a, sp.Rational(1, 16)), n)[0] - 1 / (1600 * a), "threshold - 1/(1600 alpha)")
    # delta monotonicity: f(m) = 1/(m^2 log m) is decreasing for m >= 2 (derivative sign)
    m = sp.Symbol("m", positive=True)
    f = 1 / (m**2 * sp.log(m))
    deriv_num = sp.simplify(-sp.diff(f, m) * m**3 * sp.log(m) ** 2)  # = 2 log m + 1
    sympy_zero(deriv_num - (2 * sp.log(m) + 1), "-f'(m) m^3 log^2 m - (2 log m + 1)")
    sympy_nonneg((2 * sp.log(m + 2) + 1), "2 log m + 1 for m >= 2")
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("abm19")
    if mod is not None:
        for alpha in (0.0001, 0.001, 0.003, 0.01, 0.5, 1 / 1600, 1 / 3200):
            got = mod.abm19_public_lower_bound(alpha)
            want = math.floor(Fraction(1) / (1600 * Fraction(repr(alpha)))) + 1  # alpha as the decimal it denotes
            if got != want:
                raise AssertionError(f"abm19_public_lower_bound({alpha}) = {got}, verified {want}")
        e = mod.abm19_public_lower_bound_expr()
        sympy_zero(e - 1 / (1600 * next(iter(e.free_symbols))), "abm19_public_lower_bound_expr - 1/(1600 alpha)")
        links = ("theory.bounds.abm19.abm19_public_lower_bound", "theory.bounds.abm19.abm19_public_lower_bound_expr")
        lines.append("theory.bounds.abm19: abm19_public_lower_bound = floor(1/(1600 alpha)) + 1 at 7 points "
                     "(exact rationals of the decimal alpha, including the boundary alpha = 1/1600) and its sympy form is 1/(1600 alpha).")
    else:
        lines.append("theory.bounds.abm19 not importable: link not checked.")
    details = join([
        "100 n_pub alpha > 1/16 iff n_pub > 1/(1600 alpha) (sympy).",
        "B runs on ñ = ceil(n_priv/(10 n_pub)) <= n_priv examples; Thm 4.3 rules out delta = 1/(100 ñ^2 log ñ) and A's "
        "delta = 1/(100 n_priv^2 log n_priv) is no larger because 1/(m^2 log m) is decreasing for m >= 2 (sympy: "
        "-f'(m) m^3 log^2 m = 2 log m + 1 > 0). For ñ = 1 the delta of Thm 4.3 is undefined (log 1 = 0).",
        "The theorem inherits Lemma 4.4's confidence (see ABM19.Lem4.4.confidence): the proof's arithmetic gives "
        "17/225 > 1/16 for a 1/18-learner, so Thm 4.3 (about 1/16-learners) applies only with the sharper "
        "accounting, i.e. when n_priv > 20 n_pub, or for a learner with confidence <= 17/400.",
        *lines,
    ])
    return Check(id=f"{ID}.arithmetic",
                 claim="ABM19 Thm 4.1 proof: Lemma 4.4 + Thm 4.3 give 100 n_pub alpha > 1/16, i.e. n_pub > 1/(1600 alpha).",
                 method="symbolic+exact", verdict=Verdict.HOLDS_WITH_CONDITION, details=details,
                 condition="Lemma 4.4 must give a 1/16-learner: n_priv > 20 n_pub (sharper accounting) or a "
                           "semi-private learner with confidence <= 17/400 instead of 1/18; and ñ = "
                           "ceil(n_priv/(10 n_pub)) >= 2",
                 links=links)

"""BNS15 Theorem 5.5: every (alpha, beta, eps, delta, n, m)-PSSL is an (alpha, beta, eps, delta, n, m)-TPAL.

BNS15 give no proof beyond "the indices of the labelled examples are publicly known". The argument:
run as an active learner, the PSSL asks for the labels of entries 1..m, so its transcript is the constant
L0 = (1, ..., m); its input is pi(S), where pi keeps the first m labels of a fully labelled S and blanks
the rest. pi acts entry by entry (neighbours go to neighbours or to equal inputs), and pairing the output
with a constant transcript is post-processing.

Implements: the proofs_checks part of BNS15.Thm5.5. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import z3
from semiprivate.proofs_checks._framework import Check, cite, join, register, z3_prove
from semiprivate.proofs_checks._links import bounds_module

ID = "BNS15.Thm5.5"
BOT = 2  # the blank label


def _pi(i: z3.ArithRef, m: z3.ArithRef, x: z3.ArithRef, y: z3.ArithRef) -> tuple[z3.ArithRef, z3.ArithRef]:
    """Entry i of pi(S): the label is kept for i <= m and blanked otherwise."""
    return x, z3.If(i <= m, y, z3.IntVal(BOT))


@register(f"{ID}.transcript")
def check_thm55() -> Check:
    """pi maps neighbours to neighbours or equal inputs; a constant transcript keeps (eps, delta); utility is unchanged."""
    cite("Definitions 2.6, 5.1, 5.3 and 5.4 of BNS15 (PSSL, active learner, PAL, transcript privacy): a PSSL's labelled "
         "entries are the first m, fixed in advance; privacy of the PSSL is over (X x {0, 1, blank})^n.")
    i, m, x1, y1, x2, y2 = z3.Ints("i m x1 y1 x2 y2")
    p1, p2 = _pi(i, m, x1, y1), _pi(i, m, x2, y2)
    z3_prove([x1 == x2, y1 == y2], z3.And(p1[0] == p2[0], p1[1] == p2[1]),
             "pi acts entry by entry: equal entries of S, S' stay equal, so pi(S), pi(S') differ in at most the one "
             "entry where S, S' differ")
    z3_prove([i >= 1, i <= m, y1 >= 0, y1 <= 1], _pi(i, m, x1, y1)[1] == y1,
             "for i <= m the label is kept: the entries the active learner queries are answered by y_i = c(x_i)")
    p, q, pp, qq, e_eps, dl = z3.Reals("p q pp qq e_eps delta")
    z3_prove([e_eps >= 1, dl >= 0, p >= 0, pp >= 0, p <= e_eps * pp + dl, q == p, qq == pp], q <= e_eps * qq + dl,
             "with the transcript the constant L0, P[(A(pi S), L0) in F] = P[A(pi S) in F_L0] (F_L0 = {h: (h, L0) in "
             "F}): the PSSL's (eps, delta) bound for F_L0 gives the TPAL's bound for F")
    z3_prove([e_eps >= 1, dl >= 0, p >= 0, pp == p, q == p, qq == pp], q <= e_eps * qq + dl,
             "when pi(S) = pi(S') (S, S' differ in a blanked label) the two output laws are equal and the bound holds")
    mod = bounds_module("bns15")
    r = mod.bns15_pssl_to_tpal(alpha=0.1, beta=0.2, epsilon=0.5, delta=1e-6, n=100, m=10)
    if (r.alpha, r.beta, r.epsilon, r.delta, r.n, r.m) != (0.1, 0.2, 0.5, 1e-6, 100, 10):
        raise AssertionError(f"bns15_pssl_to_tpal changes the parameters: {r}")
    details = join([
        "The PSSL run as an active learner queries indices 1..m: the transcript is the constant L0 = (1, ..., m), "
        "m rounds, and the answers c(x_i) make its input the labelled database of Definition 2.6 (z3: labels kept for "
        "i <= m), so the utility (alpha, beta, n, m) carries over unchanged.",
        "Privacy over fully labelled S: pi (keep labels 1..m, blank the rest) acts entry by entry (z3), so neighbours "
        "go to neighbours or to equal inputs; pairing the output with the constant L0 turns each event F into F_L0, "
        "and the (eps, delta) inequality carries over in both cases (z3 over the reals).",
        "semiprivate.theory.bounds.bns15.bns15_pssl_to_tpal returns the parameters unchanged.",
    ])
    return Check(id=f"{ID}.transcript", links=("semiprivate.theory.bounds.bns15.bns15_pssl_to_tpal",),
                 claim="BNS15 Thm 5.5: an (alpha, beta, eps, delta, n, m)-PSSL is an (alpha, beta, eps, delta, n, m)-TPAL "
                       "(transcript-private active learner).",
                 method="smt", details=details)

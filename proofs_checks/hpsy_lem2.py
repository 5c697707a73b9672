"""HPSY Lemma 2 (Erdős–Rényi connectivity via Karger's cut lemma), Appendix B.2.

Statement: for d > 35, beta in (4 exp(-(d-5)/9), 4/d), G(d, p) is connected with
probability >= 1 - beta if p >= 9 (log(4/beta) + 4)/(d - 1). The proof ends with the weaker
requirement p >= (9 log(4/beta) + 4)/(d - 1). "log" is the natural logarithm.

Implements: the proofs_checks part of HPSY.Lem2. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
import z3
from hypothesis import strategies as st
from semiprivate.kernels._memo import memo_table
from semiprivate.proofs_checks._framework import (
    Check,
    Claim,
    Proof,
    cite,
    constants,
    exact_fact,
    fmt,
    grid_violations,
    hypothesis_counterexample,
    join,
    observe,
    register,
    sympy_nonneg,
    sympy_zero,
    z3_prove,
)
from semiprivate.proofs_checks._links import bounds_module, close

ID = "HPSY.Lem2"


def threshold_statement(d: int, beta: float) -> float:
    """p threshold as stated in Lemma 2: 9 (log(4/beta) + 4)/(d - 1)."""
    return 9.0 * (math.log(4.0 / beta) + 4.0) / (d - 1)


def threshold_proof(d: int, beta: float) -> float:
    """p threshold at the end of the proof of Lemma 2: (9 log(4/beta) + 4)/(d - 1)."""
    return (9.0 * math.log(4.0 / beta) + 4.0) / (d - 1)


#: log C(d, k), k = 1..floor(d/2), per d already used in this process (the bisections below ask for one d 200 times)
_LOG_BINOMIALS = memo_table(f"{__name__}._LOG_BINOMIALS")  # registered (semiprivate.kernels._memo)


def _log_binomials(d: int) -> list[float]:
    """lgamma(d + 1) - lgamma(k + 1) - lgamma(d - k + 1) for k = 1, ..., floor(d/2), computed once per d."""
    return _LOG_BINOMIALS.lookup(d, lambda: [math.lgamma(d + 1) - math.lgamma(k + 1) - math.lgamma(d - k + 1)
                                             for k in range(1, d // 2 + 1)])


def log_disconnect_union_bound(d: int, p: float) -> float:
    """log of sum_{k=1}^{floor(d/2)} C(d,k) (1-p)^{k(d-k)}: an exact upper bound on
    P[G(d,p) disconnected] (union over the vertex sets that have no edge to their complement)."""
    if p >= 1.0:
        return -math.inf
    lq = math.log1p(-p)
    terms = [lb + k * (d - k) * lq for k, lb in enumerate(_log_binomials(d), start=1)]
    m = max(terms)
    return m + math.log(sum(math.exp(t - m) for t in terms))


def beta_range_proof(nine: Any = 9, five: Any = 5, four: Any = 4) -> Proof:
    """HPSY Lem 2's range stated formally: for every integer d > 35 and beta in (4 exp(-(d-5)/9), 4/d), the Karger
    argument's two preconditions hold: ell = log(4/beta)/log d >= 1 and the proof's threshold (9 log(4/beta) +
    4)/(d - 1) <= 1."""
    nine, five, four = (sp.sympify(x) for x in (nine, five, four))
    d = sp.Symbol("d", integer=True, positive=True)
    b = sp.Symbol("beta", positive=True)
    hyps = (d > 35, b > 4 * sp.exp(-(d - five) / nine), b < four / d)
    claim = Claim("HPSY Lem 2: for d > 35 and beta in (4exp(-(d-5)/9), 4/d) the Karger argument applies "
                  "(ell = log(4/beta)/log d >= 1, threshold (9 log(4/beta) + 4)/(d-1) <= 1).",
                  (d, b), hyps, sp.And(sp.log(4 / b) / sp.log(d) >= 1, (9 * sp.log(4 / b) + 4) / (d - 1) <= 1),
                  samples={"d": ["36", "100", "1000"], "beta": ["1/100", "1/1000", "1/10**6"]})
    P = Proof(claim)
    P.monotone("log d < log(4/beta) (ell > 1)", "log", P.smt("d < 4/beta", [hyps[2]], d < 4 / b))
    P.monotone("0 < log d", "log", P.smt("1 < d", [hyps[0]], sp.Lt(1, d)))
    P.monotone("log(4 exp(-(d-5)/9)) < log beta, so 9 log(4/beta) + 4 < d - 1", "log", hyps[1])
    return P


@register(f"{ID}.beta-range")
def check_beta_range() -> Check:
    """The admissible beta range of Lemma 2 versus the one the proof uses."""
    K = constants(f"{ID}.beta-range", nine=9, five=5, four=4)
    proof = beta_range_proof(K["nine"], K["five"], K["four"])
    d = sp.Symbol("d", positive=True)
    # statement lower end 4exp(-(d-5)/9) vs proof lower end 4exp(4-(d-1)/3): exponent difference
    with sp.evaluate(False):
        diff = -(d - 5) / 9 - (4 - (d - 1) / 3)
    sympy_zero(diff, (2 * d - 34) / 9, "exponent difference -(d-5)/9 - (4 - (d-1)/3) == (2d-34)/9")
    # for d >= 17 the statement's range is inside the proof's
    # upper end: ell = log(4/beta)/log d >= 1 iff beta <= 4/d
    # the lower end is where the proof's threshold equals 1: (9 log(4/beta) + 4)/(d-1) = 1
    b = sp.Symbol("beta", positive=True)
    at_lower = (9 * sp.log(4 / b) + 4) / (d - 1)
    sympy_zero(sp.Subs(at_lower, b, 4 * sp.exp(-(d - 5) / 9)), 1,
               "proof threshold (9 log(4/beta) + 4)/(d-1) at the lower end beta = 4exp(-(d-5)/9) == 1")
    # non-emptiness: 4exp(-(d-5)/9) < 4/d  <=>  (d-5)/9 > ln d
    empty = [dd for dd in range(36, 200) if not ((dd - 5) / 9 > math.log(dd))]
    first_ok = min(dd for dd in range(36, 400) if (dd - 5) / 9 > math.log(dd))
    # for d >= first_ok the gap (d-5)/9 - ln d is increasing (derivative 1/9 - 1/d > 0 for d > 9)
    x = sp.Symbol("x", positive=True)
    sympy_nonneg(sp.Rational(1, 9) - 1 / (x + 9), "1/9 - 1/d for d > 9")
    exact_fact(f"The range (4exp(-(d-5)/9), 4/d) is empty at d = 36, 37 ((d-5)/9 <= ln d) and non-empty at d = "
               f"{first_ok}; with the gap (d-5)/9 - ln d increasing for d > 9 it is non-empty for every d >= {first_ok}.",
               [(sp.Rational(36 - 5, 9), "<=", sp.log(36)), (sp.Rational(37 - 5, 9), "<=", sp.log(37)),
                (sp.Rational(first_ok - 5, 9), ">", sp.log(first_ok))],
               condition=f"the range is non-empty only for d >= {first_ok} (d = 36, 37 give an empty range: vacuous); "
                         "with the stated threshold 9(log(4/beta)+4)/(d-1) the lemma is non-vacuous only for "
                         "beta >= 4exp(-(d-37)/9)")
    # statement threshold <= 1 needs beta >= 4 exp(-(d-37)/9): part of the range is vacuous
    details = join([
        "Statement's lower end 4exp(-(d-5)/9) >= the proof's 4exp(4-(d-1)/3) iff (2d-34)/9 >= 0, i.e. d >= 17 "
        "(sympy): for d > 35 the stated range lies inside the proof's range.",
        "Upper end beta < 4/d is exactly ell = log(4/beta)/log d > 1, needed for 4/(ell d^ell) <= 4/d^ell = beta.",
        "Lower end: at beta = 4exp(-(d-5)/9) the proof's threshold (9 log(4/beta)+4)/(d-1) equals 1 exactly (sympy); "
        "so the range is where that threshold is < 1.",
        f"The range is EMPTY for d in {empty} ((d-5)/9 <= ln d); it is non-empty for every d >= {first_ok} "
        "(the gap (d-5)/9 - ln d is increasing for d > 9, sympy).",
        "The stated threshold 9(log(4/beta)+4)/(d-1) exceeds the proof's by exactly 32/(d-1) (sympy), so the "
        "statement follows from the proof; but it is > 1 (vacuous) for beta < 4exp(-(d-37)/9).",
    ])
    mod = bounds_module("hpsy")
    links: tuple[str, ...] = ()
    first_proof = min(dd for dd in range(36, 400) if 4 - (dd - 1) / 3 < math.log(1 / dd))
    if mod.hpsy_lem2_min_dimension() != first_ok or mod.hpsy_lem2_min_dimension("proof") != first_proof:
        raise AssertionError("hpsy_lem2_min_dimension differs from the verified first non-empty d")
    for dd in (40, 100, 1000):
        lo, hi = mod.hpsy_lem2_beta_interval(dd)
        close(lo, 4 * math.exp(-(dd - 5) / 9), what="beta interval lower end")
        close(hi, 4 / dd, what="beta interval upper end")
        plo, _ = mod.hpsy_lem2_beta_interval(dd, "proof")
        close(plo, 4 * math.exp(4 - (dd - 1) / 3), what="proof's beta interval lower end")
    links = ("semiprivate.theory.bounds.hpsy.hpsy_lem2_beta_interval", "semiprivate.theory.bounds.hpsy.hpsy_lem2_min_dimension")
    details += ("\n- semiprivate.theory.bounds.hpsy: hpsy_lem2_beta_interval has the verified ends (statement and proof "
                f"forms, d = 40, 100, 1000); hpsy_lem2_min_dimension = {first_ok} (statement), {first_proof} (proof).")
    details += ("\n- The formal claim (ell >= 1 and the proof's threshold <= 1 on the stated range) is closed by 5 certified "
                "steps: d < 4/beta and 1 < d (z3), three monotone log steps; the closing entailment (z3) is linear in "
                "log beta, log d. It is vacuous at d = 36, 37 (empty range), as said above.")
    return Check(
        proof=proof,
        links=links,
        id=f"{ID}.beta-range",
        claim="HPSY Lem 2: for d > 35 and beta in (4exp(-(d-5)/9), 4/d) the Karger argument applies "
              "(ell >= 1, threshold <= 1).",
        method="symbolic+exact",
        details=details,
    )


def _lemma2_domain(c9: Any, c4: Any) -> tuple[Any, Any, Any, tuple[Any, ...], Any]:
    d = sp.Symbol("d", integer=True, positive=True)
    beta, p = sp.symbols("beta p", positive=True)
    thr = (c9 * sp.log(4 / beta) + c4) / (d - 1)
    hyps = (d > 35, beta > 4 * sp.exp(-(d - 5) / sp.Integer(9)), beta < 4 / d, p >= thr, p <= 1)
    return d, beta, p, hyps, thr


def _lemma2_samples(thr: Any) -> dict[str, list[str]]:
    return {"d": ["40", "400"], "beta": ["4/d*99/100", "4*exp(-(d-5)/9)*101/100"], "p": [str(thr)]}


def _log_steps(P: Proof, d: Any, beta: Any) -> Any:
    """log d < log(4/beta), from beta < 4/d (then z3 has 3(log(4/beta) + 2 log d) <= 9 log(4/beta) at hand)."""
    a = P.smt("beta < 4/d gives d < 4/beta", [beta < 4 / d], d < 4 / beta)
    return P.monotone("log is increasing: log d < log(4/beta)", "log", a)


def quadratic_proof(c9: Any = 9, c4: Any = 4, c3: Any = 3) -> Proof:
    """Eqs. (5)-(6) stated formally: at p >= (9 log(4/beta) + 4)/(d-1) the last line of (5) holds."""
    c9, c4, c3 = (sp.sympify(x) for x in (c9, c4, c3))
    d, beta, p, hyps, thr = _lemma2_domain(c9, c4)
    lhs = (d - 1) * p - sp.sqrt(c3 * (d - 1) * (sp.log(4 / beta) + 2 * sp.log(d))) * sp.sqrt(p)
    claim = Claim("HPSY Lem 2 proof, Eqs. (5)-(6): (d-1)p - sqrt(3(d-1)(log(4/beta) + 2 log d)) sqrt(p) >= 1 for "
                  "p >= (9 log(4/beta) + 4)/(d-1), d > 35, beta in (4exp(-(d-5)/9), 4/d).",
                  (d, beta, p), hyps, lhs >= 1, samples=_lemma2_samples(thr))
    P = Proof(claim)
    _log_steps(P, d, beta)
    return P


def karger_condition_proof(c9: Any = 9, c4: Any = 4, c3: Any = 3, k4: Any = 4) -> Proof:
    """Karger's condition eps <= 1 and failure probability 4/(ell d^ell) <= beta, stated formally."""
    c9, c4, c3, k4 = (sp.sympify(x) for x in (c9, c4, c3, k4))
    d, beta, p, hyps, thr = _lemma2_domain(c9, c4)
    ell = sp.log(4 / beta) / sp.log(d)
    eps = sp.sqrt(c3 * (ell + 2) * sp.log(d) / (p * (d - 1)))
    claim = Claim("HPSY Lem 2 proof: with ell = log(4/beta)/log d, Karger's Lemma 1 applies to G(d, p) (eps = "
                  "sqrt(3(ell+2) log d/(p(d-1))) <= 1, c_hat = p(d-1) the minimum expected cut) and its failure "
                  "probability 4/(ell d^ell) is <= beta.",
                  (d, beta, p), hyps, sp.And(eps <= 1, k4 / (ell * d**ell) <= beta), samples=_lemma2_samples(thr))
    P = Proof(claim)
    _log_steps(P, d, beta)
    return P


@register(f"{ID}.quadratic")
def check_quadratic() -> Check:
    """Eq. (5)-(6): the quadratic inequality in sqrt(p) and the bound on its root."""
    K = constants(f"{ID}.quadratic", c9=9, c4=4, c3=3)
    proof = quadratic_proof(K["c9"], K["c4"], K["c3"])
    x, a, L = sp.symbols("x a L", positive=True)  # x = sqrt(p), a = d-1, L = log(4/beta)+2log d
    q = a * x**2 - sp.sqrt(3 * a * L) * x - 1
    roots = sp.solve(sp.Eq(q, 0), x)
    pos = [r for r in roots if sp.simplify(r.subs({a: 7, L: 3})) > 0]
    if len(pos) != 1:
        raise RuntimeError("expected one positive root")
    paper = sp.Rational(1, 2) * (sp.sqrt(3 * L / a) + sp.sqrt((3 * L + 4) / a))
    sympy_zero(pos[0] ** 2, paper**2, "the positive root of (5), squared, == ((sqrt(3L/a) + sqrt((3L+4)/a))/2)^2")
    # numeric confirmation of (6) on a grid of admissible (d, beta)
    def ok(d: int, frac: float) -> bool:
        llo, lhi = math.log(4) - (d - 5) / 9, math.log(4 / d)
        if llo >= lhi:
            return True
        l4b = math.log(4) - (llo + frac * (lhi - llo))  # log(4/beta)
        Lv = l4b + 2 * math.log(d)
        lhs = math.sqrt((9 * l4b + 4) / (d - 1))
        rhs = 0.5 * (math.sqrt(3 * Lv / (d - 1)) + math.sqrt((3 * Lv + 4) / (d - 1)))
        p = lhs**2
        last = (d - 1) * p - math.sqrt(3 * (d - 1) * Lv) * math.sqrt(p)
        return lhs >= rhs - 1e-12 and last >= 1 - 1e-9
    bad = grid_violations(ok, {"d": list(range(36, 400, 7)) + [10**4, 10**6], "frac": [0.001, 0.25, 0.5, 0.75, 0.999]})
    if bad:
        raise RuntimeError(f"grid violations {bad[:3]}")
    ce = hypothesis_counterexample(ok, {"d": st.integers(36, 10**7), "frac": st.floats(0.0, 1.0)})
    if ce is not None:
        raise RuntimeError(f"hypothesis found a violation at {ce}")
    observe("Counterexample search for (5)-(6): grid and 300 hypothesis examples, none found.")
    details = join([
        "With x = sqrt(p), a = d-1, L = log(4/beta) + 2 log d, the last line of (5) is a x^2 - sqrt(3aL) x - 1 >= 0; "
        "sympy solves it: the positive root squared equals ((sqrt(3L/a) + sqrt((3L+4)/a))/2)^2, i.e. (6)'s right side.",
        "Chain: beta < 4/d gives d < 4/beta, so log d < log(4/beta) (log increasing), so 3L <= 9 log(4/beta) (z3); "
        "then z3 proves the last line of (5) from p(d-1) >= 9 log(4/beta) + 4 with sqrt(p) and "
        "sqrt(3(d-1)L) as nonnegative reals whose squares are p and 3(d-1)L.",
        "Grid check (d in 36..393 step 7, 1e4, 1e6; beta at 5 log-spaced points of the range): (6) and the last line "
        "of (5) hold at p = (9 log(4/beta)+4)/(d-1); a derandomized hypothesis search (d up to 1e7, beta anywhere "
        "in the range, 300 examples) finds no violation.",
    ])
    mod = bounds_module("hpsy")
    links: tuple[str, ...] = ()
    for dd, bb in ((1000, 0.003), (60, 0.05), (500, 1e-3)):
        close(mod.hpsy_connectivity_threshold(dd, bb), threshold_statement(dd, bb), what="statement threshold")
        close(mod.hpsy_connectivity_threshold(dd, bb, form="proof"), threshold_proof(dd, bb), what="proof threshold")
    dS, bS = sp.symbols("d beta", positive=True)
    for form, want in (("statement", 9 * (sp.log(4 / bS) + 4) / (dS - 1)), ("proof", (9 * sp.log(4 / bS) + 4) / (dS - 1))):
        e = mod.hpsy_connectivity_threshold_expr(form)
        syms = {x.name: x for x in e.free_symbols}
        with sp.evaluate(False):
            times_d1 = (dS - 1) * e.subs({syms["dim"]: dS, syms["beta"]: bS})
        sympy_zero(times_d1, want * (dS - 1), f"(d - 1) hpsy_connectivity_threshold_expr({form}) == (d - 1) * {want}")
    links = ("semiprivate.theory.bounds.hpsy.hpsy_connectivity_threshold", "semiprivate.theory.bounds.hpsy.hpsy_connectivity_threshold_expr")
    details += ("\n- semiprivate.theory.bounds.hpsy: hpsy_connectivity_threshold (both forms, 3 points) and its sympy forms "
                "equal 9(log(4/beta)+4)/(d-1) and (9log(4/beta)+4)/(d-1).")
    return Check(id=f"{ID}.quadratic", links=links, proof=proof,
                 claim="HPSY Lem 2, Eqs. (5)-(6): (d-1)p - sqrt(3(d-1)(log(4/beta)+2log d)) sqrt(p) >= 1 holds for "
                       "p >= (9 log(4/beta)+4)/(d-1).",
                 method="symbolic+grid+hypothesis", details=details)


@register(f"{ID}.karger-condition")
def check_karger_condition() -> Check:
    """Karger's Lemma 1 needs eps <= 1 and gives 1 - 4/(ell d^ell) >= 1 - beta."""
    K = constants(f"{ID}.karger-condition", c9=9, c4=4, c3=3, k4=4)
    proof = karger_condition_proof(K["c9"], K["c4"], K["c3"], K["k4"])
    cite("Karger's cut lemma as quoted in HPSY Lemma 1 (constant 4/(ell d^ell)): the claim here is that its "
         "hypothesis and failure probability are met; the lemma itself is not re-derived.")
    zk, zd = z3.Ints("k d")
    z3_prove([zk >= 1, zk <= zd - 1], zk * (zd - zk) >= zd - 1,
             "1 <= k <= d-1 => k(d-k) >= d-1 (minimum cut of K_d is d-1, attained at k = 1)")
    details = join([
        "Chain (z3 on the radicals as nonnegative reals with their squares): log d < log(4/beta) (beta < 4/d, log "
        "increasing), log d > 0 (d > 1), 3(log(4/beta) + 2 log d) <= 9 log(4/beta); from p(d-1) >= 9 log(4/beta) + 4 "
        "z3 concludes eps <= 1, and 4/(ell d^ell) = beta log d/log(4/beta) <= beta since ell >= 1 (sympy reads "
        "d^ell = 4/beta on construction).",
        "Minimum cut of K_d is min_k k(d-k) = d-1 (z3 over all integers 1 <= k <= d-1), so c_hat = p(d-1); every cut of G(p) has "
        "expected value >= p(d-1), and (1-eps)p(d-1) >= 1 > 0 makes every cut non-empty: connected.",
        "Conditional on Karger's theorem as quoted in Lemma 1 (constant 4/(ell d^ell)), which is not re-derived here.",
    ])
    return Check(id=f"{ID}.karger-condition", proof=proof,
                 claim="HPSY Lem 2 proof: Karger's Lemma 1 applies (eps <= 1) and its failure probability is <= beta.",
                 method="symbolic+exact", details=details)


def lemma2_proof(c: Any = 9, a: Any = 4) -> Proof:
    """HPSY Lem 2 stated formally (constants ``c`` = 9, ``a`` = 4 of p >= c(log(4/beta) + a)/(d-1)) and its proof chain.

    The chain: p d >= c(log(4/beta) + a) (z3) -> exp(-pd/2) <= exp(-c(log(4/beta)+a)/2) (exp increasing)
    -> beta <= 1/9 (z3, from d > 35 and beta < 4/d) -> beta^{c/2-2} e^{-ac/2} <= 4^{c/2}/8 (z3 on the
    radicals) -> 2 d e^{-pd/2} <= beta (z3) -> [cited union bound over cuts] P[disconnected] <= 2d e^{-pd/2}.
    """
    c, a = sp.sympify(c), sp.sympify(a)
    d = sp.Symbol("d", integer=True, positive=True)
    beta, p = sp.symbols("beta p", positive=True)
    L = sp.log(4 / beta)
    thr = c * (L + a) / (d - 1)
    disc = sp.Function("ErdosRenyiDisconnected")(d, p)
    claim = Claim(
        "HPSY Lem 2: for d > 35 and beta in (4exp(-(d-5)/9), 4/d), G(d, p) is connected with probability at least "
        "1 - beta if p >= 9(log(4/beta) + 4)/(d - 1).",
        (d, beta, p), (d > 35, beta > 4 * sp.exp(-(d - 5) / sp.Integer(9)), beta < 4 / d, p >= thr, p <= 1),
        disc <= beta,
        samples={"d": [40, 100, 400], "beta": ["4/d*999/1000", "4/d*9/10", "4/d/2", "4*exp(-(d-5)/9)*11/10"],
                 "p": [str(thr)]})
    P = Proof(claim)
    E = sp.exp(-p * d / 2)
    h = P.smt("p d >= p (d-1) >= c(log(4/beta) + a)", [p >= thr, d > 35], -p * d / 2 <= -c * (L + a) / 2)
    m = P.monotone("exp is increasing", "exp", h)
    b9 = P.smt("beta < 4/d <= 4/36", [d > 35, beta < 4 / d], beta <= sp.Rational(1, 9))
    k = P.smt("beta^(c/2-2) e^(-ac/2) <= 4^(c/2)/8 for beta <= 1/9", [b9],
              beta ** (c / 2 - 2) * sp.exp(-a * c / 2) <= 4 ** (c / 2) / 8)
    r = P.smt("2 d e^(-pd/2) <= 2 d (beta/4)^(c/2) e^(-ac/2) < (8/beta)(beta/4)^(c/2) e^(-ac/2) <= beta",
              [beta < 4 / d, m, k], 2 * d * E <= beta)
    half = P.smt("d e^(-pd/2) <= beta/2 <= 1/2", [r, b9], d * E <= sp.Rational(1, 2))
    P.cite("union bound over cuts", disc <= 2 * d * E,
           "union bound over the vertex sets S, |S| = k <= d/2, with no edge to their complement: "
           "P[disconnected] <= sum_k C(d,k)(1-p)^{k(d-k)} <= sum_k (d e^{-pd/2})^k <= 2 d e^{-pd/2} when "
           "d e^{-pd/2} <= 1/2 (C(d,k) <= d^k, 1-p <= e^{-p}, d-k >= d/2, geometric series)",
           [half], standard="Union bound over cuts", instance={"d": d, "p": p})
    return P


@register(f"{ID}.exact-union-bound")
def check_exact() -> Check:
    """HPSY Lem 2's conclusion proved by a union bound over cuts (not Karger's lemma); grid observed."""
    K = constants(f"{ID}.exact-union-bound", c=9, a=4)
    proof = lemma2_proof(K["c"], K["a"])
    worst = -math.inf
    worst_at: tuple[int, float] = (0, 0.0)
    n_pts = 0
    for d in list(range(38, 200, 3)) + [300, 1000, 5000]:
        llo, lhi = math.log(4) - (d - 5) / 9, math.log(4 / d)
        for frac in (0.0, 0.25, 0.5, 0.75, 1.0):
            beta = math.exp(llo + frac * (lhi - llo))
            if beta <= 0.0:
                continue
            for thr in (threshold_proof(d, beta), threshold_statement(d, beta)):
                if thr > 1:
                    continue
                n_pts += 1
                lb = log_disconnect_union_bound(d, thr)
                r = lb - math.log(beta)
                if r > worst:
                    worst, worst_at = r, (d, beta)
    if worst > 0:
        raise RuntimeError(f"union bound exceeds beta at {worst_at}")
    # how loose is the lemma: smallest p where the exact union bound is <= beta, vs the thresholds
    loose = []
    for d, beta in ((100, 0.01), (1000, 1e-3), (5000, 1e-4)):
        lo_p, hi_p = 1e-9, 1.0
        for _ in range(200):
            mid = (lo_p + hi_p) / 2
            if log_disconnect_union_bound(d, mid) <= math.log(beta):
                hi_p = mid
            else:
                lo_p = mid
        loose.append(f"d = {d}, beta = {beta}: p* = {fmt(hi_p, 4)}, proof's threshold {fmt(threshold_proof(d, beta), 4)} "
                     f"({fmt(threshold_proof(d, beta) / hi_p, 3)}x), statement's {fmt(threshold_statement(d, beta), 4)}")
    observe(f"Exact union bound <= beta at {n_pts} grid points (both thresholds).")
    details = join([
        "Proof: P[disconnected] <= sum_{k<=d/2} C(d,k)(1-p)^{k(d-k)} <= sum_k (d e^{-pd/2})^k; at p(d-1) >= "
        "9log(4/beta)+4 and beta < 4/d the ratio r = d e^{-pd/2} is < (beta/4)^{7/2} e^{-2} < 1/2, so the sum is "
        "<= 2r <= beta (sympy identity for the exponential; interval branch-and-bound over u = sqrt(beta) in [0, 1] "
        "for the two inequalities). The statement's threshold is larger, so it is covered too.",
        "Observation: P[G(d,p) disconnected] <= sum_{k=1}^{floor(d/2)} C(d,k)(1-p)^{k(d-k)} evaluated exactly in log "
        "space on a grid.",
        f"At both thresholds (statement's and proof's, where <= 1), on {n_pts} points (d in 38..197 step 3, 300, 1000, "
        "5000; beta at 5 log-spaced points including both ends of the range), the bound is <= beta; the largest ratio "
        f"bound/beta is {fmt(math.exp(worst))} at d={worst_at[0]}, beta={fmt(worst_at[1])}.",
        "How conservative the lemma is (p* = smallest p with exact union bound <= beta): " + "; ".join(loose) + ".",
    ])
    return Check(id=f"{ID}.exact-union-bound", proof=proof,
                 claim="HPSY Lem 2 conclusion: P[G(d,p) connected] >= 1 - beta at the stated p (independent check, "
                       "not using Karger's lemma).",
                 method="symbolic+interval+exact+grid", details=details)

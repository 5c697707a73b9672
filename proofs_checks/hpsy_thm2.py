"""HPSY Theorem 2 (disjunctions under D_{f,p}): the chain from Lemma 2 to n_unl. Appendix B.2.

n_unl >= max{ log(1 - (9 log(16/beta) + 4)/(d-1)) / log(1-p), 8 log(16/beta) }, for p in (0,1),
k, d > 35, beta in (4 exp(-(d-5)/9), 4/d). The proof applies Lemma 2 with beta/4 to the
positive graph (k vertices) and the negative graph (d-k vertices), after the Hoeffding step
n+, n- >= n_unl/4.

Implements: the proofs_checks part of HPSY.Thm2. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from scipy.stats import binom
from semiprivate.proofs_checks._framework import (
    Check,
    Claim,
    Proof,
    cite,
    constants,
    evaluation,
    fmt,
    join,
    observe,
    refute,
    register,
)
from semiprivate.proofs_checks._links import bounds_module
from semiprivate.proofs_checks.hpsy_lem2 import log_disconnect_union_bound

ID = "HPSY.Thm2"


def c_const(beta: float) -> float:
    """9 log(16/beta) + 4 (the constant in Thm 2's n_unl)."""
    return 9.0 * math.log(16.0 / beta) + 4.0


def n_unl_theorem(d: int, p: float, beta: float) -> float:
    """The n_unl of Theorem 2 as stated (real-valued)."""
    c = c_const(beta)
    if c >= d - 1:
        return math.nan
    return max(math.log1p(-c / (d - 1)) / math.log1p(-p), 8.0 * math.log(16.0 / beta))


def n_unl_corrected(d: int, k: int, p: float, beta: float) -> float:
    """A sufficient n_unl that the proof's own steps do give (factor 4 from n+ >= n/4, and the
    smaller component in the denominator); nan where Lemma 2's threshold exceeds 1."""
    c = c_const(beta)
    kk = min(k, d - k)
    if c >= kk - 1:
        return math.nan
    return max(4.0 * math.log1p(-c / (kk - 1)) / math.log1p(-p), 8.0 * math.log(16.0 / beta))


def prob_positive_graph_disconnected_lower(n: int, k: int, p: float) -> float:
    """Exact Bonferroni lower bound on P[empirical positive component graph has an isolated vertex].

    Vertex v is isolated in the empirical graph iff in every positive sample it has no incident
    edge of G+ (probability (1-p)^(k-1) per sample); two vertices v, w: (1-p)^(2k-3).
    n+ ~ Bin(n, 1/2) gives E[x^{n+}] = ((1+x)/2)^n.
    """
    x1 = (1 - p) ** (k - 1)
    x2 = (1 - p) ** (2 * k - 3)
    q1 = ((1 + x1) / 2) ** n
    q2 = ((1 + x2) / 2) ** n
    return k * q1 - k * (k - 1) / 2 * q2


def hoeffding_proof(c: Any = 8, m: Any = 16, share: Any = 4) -> Proof:
    """HPSY Thm 2, Eq. (8), stated formally: n >= c log(m/beta) => P[n+ outside [n/4, 3n/4]] <= beta/share."""
    c, m, share = sp.sympify(c), sp.sympify(m), sp.sympify(share)
    n = sp.Symbol("n", integer=True, positive=True)
    b = sp.Symbol("beta", positive=True)
    out = sp.Function("BinomialHalfOutside")(n, sp.Rational(1, 4))
    claim = Claim("HPSY Thm 2, Eq. (8): with n_unl >= 8 log(16/beta), n_unl/4 <= n+, n- <= 3 n_unl/4 with probability "
                  "at least 1 - beta/4 (n+ ~ Bin(n_unl, 1/2), n- = n_unl - n+).",
                  (n, b), (b < 1, n >= c * sp.log(m / b)), out <= b / share,
                  samples={"beta": ["1/2", "9/10", "1/10", "1/1000"], "n": [f"ceiling({c}*log({m}/beta))"]})
    P = Proof(claim)
    P.cite("Hoeffding", out <= 2 * sp.exp(-n / 8),
           "Hoeffding's inequality: P[|n+ - n/2| >= n/4] <= 2 exp(-2 (n/4)^2 / n) = 2 exp(-n/8) for n+ ~ Bin(n, 1/2)",
           standard="Hoeffding", instance={"n": n, "t": sp.Rational(1, 4)})
    h = P.smt("n/8 >= (c/8) log(m/beta)", [n >= c * sp.log(m / b)], -n / 8 <= -c * sp.log(m / b) / 8)
    P.monotone("exp is increasing", "exp", h)
    return P


@register(f"{ID}.hoeffding")
def check_hoeffding() -> Check:
    """Eq. (8): n_unl/4 <= n+, n- <= 3 n_unl/4 w.p. >= 1 - beta/4 for n_unl >= 8 log(16/beta)."""
    K = constants(f"{ID}.hoeffding", c=8, m=16, share=4)
    proof = hoeffding_proof(K["c"], K["m"], K["share"])
    # exact binomial check on a grid
    worst = 0.0
    for beta in (0.5, 0.1, 0.01, 1e-3, 1e-5, 1e-8):
        nn = math.ceil(8 * math.log(16 / beta))
        lo = math.ceil(nn / 4)
        hi = math.floor(3 * nn / 4)
        p_out = float(binom.cdf(lo - 1, nn, 0.5) + binom.sf(hi, nn, 0.5))
        worst = max(worst, p_out / (beta / 4))
    if worst > 1:
        raise RuntimeError("exact binomial tail exceeds beta/4")
    observe("Exact binomial tails at 6 values of beta: ratio to beta/4 at most " + fmt(worst) + ".")
    details = join([
        "Hoeffding: P[|n+ - n/2| >= n/4] <= 2exp(-n/8); at n = 8 log(16/beta) this is exactly beta/8 <= beta/4 "
        "(sympy). n- = n - n+, so one event covers both.",
        "Exact binomial tails at n = ceil(8 log(16/beta)) for beta in {0.5, 0.1, 1e-2, 1e-3, 1e-5, 1e-8}: the largest "
        f"ratio P[outside [n/4, 3n/4]]/(beta/4) is {fmt(worst)} <= 1.",
    ])
    return Check(id=f"{ID}.hoeffding", proof=proof,
                 claim="HPSY Thm 2, Eq. (8): n_unl >= 8 log(16/beta) gives n_unl/4 <= n+, n- <= 3n_unl/4 w.p. >= 1-beta/4.",
                 method="symbolic+exact", details=details)


@register(f"{ID}.component-conditions")
def check_component_conditions() -> Check:
    """Lemma 2 needs its own hypotheses for each component (k and d-k vertices, beta/4)."""
    d, k, beta = 100, 36, 0.03
    in_range = 4 * math.exp(-(d - 5) / 9) < beta < 4 / d
    lo_k = 4 * math.exp(-(k - 5) / 9)
    need = c_const(beta) / (k - 1)
    if not (in_range and beta / 4 < lo_k and need > 1):
        raise RuntimeError("counterexample parameters do not behave as expected")
    b_undef = 10 * math.exp(-(d - 5) / 9)
    arg_undef = c_const(b_undef) / (d - 1)
    if not (4 * math.exp(-(d - 5) / 9) < b_undef < 4 / d and arg_undef >= 1):
        raise RuntimeError("undefined-formula example")
    d_q, k_q, b_q = sp.Integer(d), sp.Integer(k), sp.Rational(3, 100)
    c_q = 9 * sp.log(16 / b_q) + 4
    refute(f"d = {d}, k = {k}, beta = {beta}: beta lies in Thm 2's range (4exp(-(d-5)/9), 4/d), but Lemma 2's range "
           f"for the k-vertex component is violated (beta/4 = {fmt(beta / 4)} < 4exp(-(k-5)/9) = {fmt(lo_k)}) and its "
           f"threshold (9log(16/beta)+4)/(k-1) = {fmt(need)} > 1 cannot be met by a probability.",
           [(4 * sp.exp(-(d_q - 5) / 9), "<", b_q), (b_q, "<", 4 / d_q), (b_q / 4, "<", 4 * sp.exp(-(k_q - 5) / 9)),
            (c_q / (k_q - 1), ">", 1)])
    details = join([
        "The proof applies Lemma 2 with beta' = beta/4 (log(4/beta') = log(16/beta)) to G+ on k vertices and G- on "
        "d-k vertices. Lemma 2 needs k > 35, d-k > 35 and beta' in (4exp(-(k'-5)/9), 4/k') for k' in {k, d-k}.",
        "The upper ends hold (beta/4 < 1/d < 4/k'), but Thm 2 assumes only k, d > 35 and beta in "
        "(4exp(-(d-5)/9), 4/d): nothing bounds d-k from below, and beta/4 can be below 4exp(-(k-5)/9).",
        f"d = {d}, k = {k}, beta = {beta}: beta is in Thm 2's range ({fmt(4 * math.exp(-(d - 5) / 9))}, {4 / d}); "
        f"beta/4 = {fmt(beta / 4)} < 4exp(-(k-5)/9) = {fmt(lo_k)}, and the required p~+ >= (9 log(16/beta)+4)/(k-1) "
        f"= {fmt(need)} > 1 is unattainable, so Eq. (7) cannot be met for any n_unl.",
        f"Even the stated formula can be undefined inside the stated range: d = {d}, beta = 10exp(-(d-5)/9) = "
        f"{fmt(b_undef)} is in (4exp(-(d-5)/9), 4/d) but (9log(16/beta) + 4)/(d-1) = {fmt(arg_undef)} >= 1, so "
        "log(1 - ...) is undefined (the formula needs beta > 16exp(-(d-5)/9)).",
        "Also: Eq. (7) writes 9(log(16/beta) + 4)/(k-1) (Lemma 2's statement) but the n_unl formula uses "
        "(9 log(16/beta) + 4) (Lemma 2's proof); the latter is what the proof supports.",
    ])
    return Check(id=f"{ID}.component-conditions",
                 claim="HPSY Thm 2 proof, Eq. (7): Lemma 2 (with beta/4) applies to both components for every "
                       "k, d > 35 and beta in (4exp(-(d-5)/9), 4/d).",
                 method="exact", details=details,
                 corrected="assume min(k, d-k) >= 38 and beta in (16exp(-(min(k,d-k)-5)/9), 16/max(k, d-k)).")


@register(f"{ID}.n_unl")
def check_nunl() -> Check:
    """The final inequality of the proof and the stated n_unl."""
    d, k, p, beta = 10_000, 120, 1e-3, 2e-4
    if not (4 * math.exp(-(d - 5) / 9) < beta < 4 / d and k > 35 and d > 35):
        raise RuntimeError("parameters outside Thm 2's hypotheses")
    n_thm = math.ceil(n_unl_theorem(d, p, beta))
    lower = prob_positive_graph_disconnected_lower(n_thm, k, p)
    if not lower > beta / 2:
        raise RuntimeError("counterexample did not materialise")
    # corrected size: the proof's own steps with the factor 4 and the smaller component
    n_cor = math.ceil(n_unl_corrected(d, k, p, beta))
    npl = math.ceil(n_cor / 4)
    pt = 1 - (1 - p) ** npl
    ub = math.exp(log_disconnect_union_bound(k, pt)) + math.exp(log_disconnect_union_bound(d - k, pt))
    if not ub <= beta / 2:
        raise RuntimeError("corrected n_unl does not give the bound")
    # exact re-verification: the theorem's size (a real number, rounded up) and the Bonferroni bound at it
    p_q, b_q = sp.Rational(1, 1000), sp.Rational(2, 10000)
    c_q = 9 * sp.log(16 / b_q) + 4
    n_thm_q = sp.Max(sp.log(1 - c_q / (d - 1)) / sp.log(1 - p_q), 8 * sp.log(16 / b_q))
    with sp.evaluate(False):
        x1 = sp.Pow(1 - p_q, k - 1)
        x2 = sp.Pow(1 - p_q, 2 * k - 3)
        lower_q = sp.Add(sp.Mul(k, sp.Pow((1 + x1) / 2, n_thm)),
                         sp.Mul(-sp.Rational(k * (k - 1), 2), sp.Pow((1 + x2) / 2, n_thm)))
    refute(f"d = {d}, k = {k}, p = {p}, beta = {beta} (inside Thm 2's hypotheses): the theorem's n_unl rounds up to "
           f"{n_thm}; there, P[the positive empirical component graph has an isolated vertex] >= {fmt(lower)} "
           "(Bonferroni, n+ ~ Bin(n_unl, 1/2)) > beta/2, so >= 3 components with probability above the proof's budget.",
           [(4 * sp.exp(-(sp.Integer(d) - 5) / 9), "<", b_q), (b_q, "<", sp.Rational(4, d)),
            (n_thm_q, "<=", n_thm), (n_thm_q, ">", n_thm - 1)],
           certificates=[evaluation(lower_q, ">", b_q / 2, "Bonferroni lower bound > beta/2", unevaluated=True)])
    cite("Bonferroni: P[some vertex isolated] >= sum_v P[v isolated] - sum_{v<w} P[v, w isolated]; E[x^{n+}] = "
         "((1+x)/2)^n for n+ ~ Bin(n, 1/2).")
    # the inequality max{A_k, A_{d-k}} >= A_d is true but points the wrong way
    c = c_const(beta)
    a_k = math.log1p(-c / (k - 1)) / math.log1p(-p)
    a_d = math.log1p(-c / (d - 1)) / math.log1p(-p)
    details = join([
        "The proof needs n+ >= log(1 - c/(k-1))/log(1-p) and n- >= log(1 - c/(d-k-1))/log(1-p) (c = 9log(16/beta)+4) "
        "and has only n+, n- >= n_unl/4. It then writes n_unl >= max{A_k, A_{d-k}} >= A_d and states n_unl >= A_d: "
        "the last inequality is true but points the wrong way (A_d is the smallest of the three), and the factor 4 "
        "from n+ >= n_unl/4 is dropped.",
        f"d = {d}, k = {k}, p = {p}, beta = {beta} (inside Thm 2's hypotheses): A_k = {fmt(a_k)}, A_d = {fmt(a_d)}, "
        f"8log(16/beta) = {fmt(8 * math.log(16 / beta))}, so Thm 2 allows n_unl = {n_thm}.",
        f"At n_unl = {n_thm}, exactly (Bonferroni over isolated vertices, n+ ~ Bin(n_unl, 1/2)), "
        f"P[the positive empirical component graph has an isolated vertex] >= {fmt(lower)} > beta/2 = {fmt(beta / 2)}: "
        "the empirical component graph then has >= 3 components, not the 2 the proof concludes.",
        "This refutes the proof's step, not necessarily the theorem: f (the union of the components of V+) stays in "
        "the reduced class, which now has 2^Z - 1 members with Z >= 3; the theorem's n_lab, with its unspecified "
        "polylog, would need Z to grow to fail, which this example does not show.",
        f"The corrected size n_unl = max{{4 log(1 - c/(min(k,d-k)-1))/log(1-p), 8log(16/beta)}} = {n_cor} works here: "
        f"with n+, n- >= {npl}, the exact union bound over cuts gives P[either graph disconnected] <= {fmt(ub)} <= beta/2.",
    ])
    mod = bounds_module("hpsy")
    links: tuple[str, ...] = ()
    got_s = mod.hpsy_thm2_unlabeled(d, k, beta, p)
    got_c = mod.hpsy_thm2_unlabeled(d, k, beta, p, form="corrected")
    want_p = math.ceil(max(math.log1p(-c / (k - 1)) / math.log1p(-p), math.log1p(-c / (d - k - 1)) / math.log1p(-p),
                           8 * math.log(16 / beta)) - 1e-9)
    got_p = mod.hpsy_thm2_unlabeled(d, k, beta, p, form="proof")
    if got_s != n_thm or got_c != n_cor or abs(got_p - want_p) > 1:
        raise AssertionError(f"hpsy_thm2_unlabeled: statement {got_s} (verified {n_thm}), corrected {got_c} "
                             f"(verified {n_cor}), proof {got_p} (verified {want_p})")
    links = ("semiprivate.theory.bounds.hpsy.hpsy_thm2_unlabeled",)
    details += (f"\n- semiprivate.theory.bounds.hpsy.hpsy_thm2_unlabeled: form='statement' gives {got_s} (the insufficient "
                f"size above), form='corrected' gives {got_c} (the corrected size), form='proof' {got_p}. The "
                "corrected form does not check the per-component beta range of HPSY.Thm2.component-conditions.")
    return Check(id=f"{ID}.n_unl", links=links,
                 claim="HPSY Thm 2 proof: n_unl >= max{log(1 - (9log(16/beta)+4)/(d-1))/log(1-p), 8log(16/beta)} makes "
                       "the empirical component graph have exactly two components (reduced class of two hypotheses) "
                       "w.p. >= 1 - beta/2 - beta/4.",
                 method="exact", details=details,
                 corrected="n_unl >= max{4 log(1 - (9log(16/beta)+4)/(min(k,d-k)-1))/log(1-p), 8log(16/beta)}, under "
                           "the component conditions of HPSY.Thm2.component-conditions.")

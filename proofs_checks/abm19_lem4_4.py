"""ABM19 Lemma 4.4 (public data reduction) and Claim 4.6: Algorithm 2 with p = 1/(100 n_pub)
turns an (alpha, 1/18, eps, delta) agnostic semi-private learner into a
(100 n_pub alpha, 1/16, eps, delta) private learner on ceil(n_priv/(10 n_pub)) examples.

Implements: the proofs_checks part of ABM19.Lem4.4. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from scipy.stats import binom
from semiprivate.proofs_checks._framework import (
    Check,
    Claim,
    Proof,
    constants,
    fmt,
    join,
    observe,
    refute,
    register,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module

ID = "ABM19.Lem4.4"


def early_exit_probability(n_priv: int, n_pub: int) -> float:
    """Exact P[PrivSamp (Alg. 3) runs out of S~ before i = n_priv].

    The ñ-th Bernoulli(p) success must come at an index <= n_priv - 1, i.e. Bin(n_priv - 1, p) >= ñ,
    with ñ = ceil(n_priv/(10 n_pub)), p = 1/(100 n_pub).
    """
    p = 1.0 / (100 * n_pub)
    nt = -(-n_priv // (10 * n_pub))
    return float(binom.sf(nt - 1, n_priv - 1, p))


def fill_failure_probability(n_priv: int, n_pub: int) -> float:
    """Exact P[the repaired Alg 3 differs from an ideal D(p)^n_priv sample].

    Repair: when S~ is exhausted, the remaining b_i = 1 slots get fresh D0 draws instead of the
    loop stopping (what :func:`semiprivate.theory.learners.reduction.priv_samp` does).  Coupled with the
    ideal sample (a fresh D-draw at every b_i = 1), the two differ only when there are more than
    ñ successes: P[Bin(n_priv, p) >= ñ + 1].
    """
    p = 1.0 / (100 * n_pub)
    nt = -(-n_priv // (10 * n_pub))
    return float(binom.sf(nt, n_priv, p))


def fill_failure_poisson_sup(max_nt: int = 60) -> tuple[float, int]:
    """sup over every n_pub and n_priv of the repaired failure term, via the Poisson tail.

    lambda = n_priv p = n_priv/(100 n_pub) and ñ = ceil(10 lambda), so k = ñ + 1 >= lambda + 1;
    for such k the Bin(n, lambda/n) tail P[X >= k] is below the Poisson(lambda) tail (Anderson and
    Samuels 1967).  On each interval ñ - 1 < 10 lambda <= ñ the Poisson tail increases in lambda, so
    its sup is at lambda = ñ/10: max over ñ of P[Pois(ñ/10) >= ñ + 1] (returned with its argmax;
    ñ > max_nt is below e^-40 by Chernoff).
    """
    from scipy.stats import poisson

    vals = [(float(poisson.sf(nt, nt / 10)), nt) for nt in range(1, max_nt + 1)]
    return max(vals)


def bad_ratios(threshold: float) -> list[float]:
    """Ratios n_priv/n_pub (n_pub in {1,2,3,5,10,30}, n_priv <= 400 n_pub) with P[early exit] > threshold."""
    out = []
    for npub in (1, 2, 3, 5, 10, 30):
        npriv, pr = _grid_tail(npub, early=True)
        out += [npv / npub for npv, x in zip(npriv, pr) if x > threshold]
    return out


def _grid_tail(npub: int, *, early: bool) -> tuple[list[int], list[float]]:
    """n_priv = 1, ..., 400 n_pub and, for each, :func:`early_exit_probability` (``early``) or
    :func:`fill_failure_probability`: the same binomial tails in one array call (elementwise the same numbers)."""
    p = 1.0 / (100 * npub)
    npriv = np.arange(1, 400 * npub + 1)
    nt = -(-npriv // (10 * npub))
    tail = binom.sf(nt - 1, npriv - 1, p) if early else binom.sf(nt, npriv, p)
    return npriv.tolist(), [float(x) for x in tail.tolist()]


@register(f"{ID}.chernoff")
def check_chernoff() -> Check:
    """'By Chernoff's bound, except with probability < 0.01, Algorithm 3 exits with i = n_priv.'"""
    n_pub, n_priv = 1, 10
    pr = early_exit_probability(n_priv, n_pub)
    exact_alt = 1 - 0.99**9
    if abs(pr - exact_alt) > 1e-12 or not pr >= 0.01:
        raise RuntimeError("counterexample arithmetic")
    refute(f"n_pub = 1, n_priv = 10: p = 1/100, ñ = 1, Algorithm 3 exits early iff one of the first n_priv - 1 = 9 "
           f"draws is a D-example: P[early exit] = 1 - (99/100)^9 = {fmt(pr)} > 0.01.",
           [(1 - sp.Rational(99, 100) ** 9, ">", sp.Rational(1, 100))])
    bad_ratio = bad_ratios(0.01)
    lo_r, hi_r = min(bad_ratio), max(bad_ratio)
    # beyond ratio 400: mu = n_priv p >= 4, Chernoff P[X >= 10 mu] <= exp(-mu (10 ln 10 - 9)) <= e^-56
    cher = math.exp(-4 * (10 * math.log(10) - 9))
    details = join([
        "Early exit happens iff the ñ-th Bernoulli(p) success comes before index n_priv: P = P[Bin(n_priv-1, p) >= ñ], "
        "ñ = ceil(n_priv/(10 n_pub)), p = 1/(100 n_pub) (exact binomial tail).",
        f"n_pub = {n_pub}, n_priv = {n_priv}: ñ = 1, P = 1 - 0.99^9 = {fmt(pr)} >= 0.01.",
        f"Exact scan n_pub in {{1,2,3,5,10,30}}, n_priv <= 400 n_pub: P >= 0.01 exactly for ratios n_priv/n_pub in "
        f"[{fmt(lo_r)}, {fmt(hi_r)}] ({len(bad_ratio)} cases; P > 0.01, and P = 0.01 exactly nowhere); for ratio > 400 the Chernoff bound gives <= {fmt(cher)}.",
        "The mean number of successes is n_priv p = ñ/10 (up to the ceiling), which can be far below 1: Chernoff's "
        "bound gives nothing there.",
    ])
    return Check(id=f"{ID}.chernoff",
                 claim="ABM19 Claim 4.6 proof: since ñ = 10 p n_priv, by Chernoff's bound Algorithm 3 exits the loop "
                       "with i = n_priv except with probability < 0.01.",
                 method="exact", details=details,
                 corrected=f"holds when n_priv > {fmt(hi_r)} n_pub (or n_priv <= n_pub); in general the loop-failure "
                           "probability is P[Bin(n_priv - 1, p) >= ñ] and must be added to the budget.")


def total_variation_proof(hundred: Any = 100, level: Any = "99/100") -> Proof:
    """ABM19 Claim 4.6's total-variation step stated formally: (1 - 1/(100 n))^n >= 0.99 for every n >= 1."""
    hundred, level = sp.sympify(hundred), sp.sympify(level)
    n = sp.Symbol("n_pub", integer=True, positive=True)
    claim = Claim("ABM19 Claim 4.6 proof: P[S^_pub = S_pub] >= (1 - 1/(100 n_pub))^{n_pub} >= 0.99.",
                  (n,), (), (1 - 1 / (hundred * n)) ** n >= level, samples={"n_pub": ["1", "2", "10", "1000"]})
    P = Proof(claim)
    b = P.cite("Bernoulli's inequality", (1 - 1 / (hundred * n)) ** n >= 1 - n / (hundred * n),
               "Bernoulli's inequality (1 + t)^n >= 1 + n t for t >= -1 and integer n >= 1, at t = -1/(100 n)",
               standard="Bernoulli", instance={"n": n, "t": -1 / (hundred * n)})
    del b
    return P


def error_scaling_proof(hundred: Any = 100) -> Proof:
    """ABM19 Claim 4.6 stated formally: excess error <= alpha on D(p), p = 1/(100 n_pub), gives err(h; D) <= 100 n_pub alpha."""
    hundred = sp.sympify(hundred)
    n = sp.Symbol("n_pub", integer=True, positive=True)
    a, e = sp.symbols("alpha err_D", positive=True)
    err_mix, opt_mix = sp.symbols("err_Dp opt_Dp", positive=True)
    p = 1 / (100 * n)
    claim = Claim("ABM19 Claim 4.6: D(p) = p D + (1-p) D0 with D0's labels uniform, so err(h; D(p)) = p err(h; D) + "
                  "(1-p)/2 and the optimum is (1-p)/2; an excess error <= alpha on D(p) implies err(h~; D) <= "
                  "100 n_pub alpha.",
                  (n, a, e, err_mix, opt_mix),
                  (sp.Eq(err_mix, p * e + (1 - p) / 2), sp.Eq(opt_mix, (1 - p) / 2), err_mix - opt_mix <= a),
                  e <= hundred * n * a,
                  samples={"n_pub": ["1", "3"], "alpha": ["1/1000"], "err_D": ["100*n_pub*alpha"],
                           "err_Dp": ["err_D/(100*n_pub) + (1 - 1/(100*n_pub))/2"], "opt_Dp": ["(1 - 1/(100*n_pub))/2"]})
    P = Proof(claim)
    P.smt("excess = p err(h; D) <= alpha, so err(h; D) <= alpha/p = 100 n_pub alpha",
          [sp.Eq(err_mix, p * e + (1 - p) / 2), sp.Eq(opt_mix, (1 - p) / 2), err_mix - opt_mix <= a],
          e <= hundred * n * a)
    return P


@register(f"{ID}.total-variation")
def check_tv() -> Check:
    """P[S^_pub = S_pub] >= (1 - 1/(100 n_pub))^{n_pub} >= 0.99."""
    worst = min((1 - 1 / (100 * n)) ** n for n in range(1, 100_001))
    at1 = Fraction(99, 100)
    if not worst >= 0.99 - 1e-15:
        raise RuntimeError("TV bound fails")
    x = sp.Symbol("n", positive=True)
    K = constants(f"{ID}.total-variation", hundred=100, level=sp.Rational(99, 100))
    proof = total_variation_proof(K["hundred"], K["level"])
    observe(f"Numerically, min over n <= 100000 of (1 - 1/(100 n))^n is {fmt(worst, 10)}.")
    limit = sp.limit((1 - 1 / (100 * x)) ** x, x, sp.oo)
    sympy_zero(sp.Limit((1 - 1 / (100 * x)) ** x, x, sp.oo), limit, "lim_{n -> oo} (1 - 1/(100 n))^n == e^{-1/100}")
    details = join([
        "Bernoulli's inequality (1 + t)^n >= 1 + n t with t = -1/(100 n) >= -1 gives (1 - 1/(100n))^n >= 1 - 1/100.",
        f"Exact at n = 1: {at1} (equality). Numerically min over n <= 100000 is {fmt(worst, 10)}; the sequence "
        "increases to e^{-1/100} = 0.99005 (sympy limit).",
    ])
    return Check(id=f"{ID}.total-variation", proof=proof,
                 claim="ABM19 Claim 4.6 proof: P[S^_pub = S_pub] >= (1 - 1/(100 n_pub))^{n_pub} >= 0.99.",
                 method="symbolic+exact", details=details)


@register(f"{ID}.confidence")
def check_confidence() -> Check:
    """The failure-probability budget: 1/18 (learner) + 0.01 (loop) -> 1/17, + 0.01 (TV) -> 1/16."""
    b18, b17, b16, c = Fraction(1, 18), Fraction(1, 17), Fraction(1, 16), Fraction(1, 100)
    step1 = b18 + c
    step2 = b17 + c
    minimal = b18 + c  # even with no loop failure, the TV step alone
    full = b18 + 2 * c
    need = b16 - 2 * c
    refute(f"exact arithmetic: 1/18 + 1/100 = {step1} > 1/17 and 1/17 + 1/100 = {step2} > 1/16 (even without the "
           f"loop failure, 1/18 + 1/100 = {minimal} > 1/16).",
           [(sp.Rational(1, 18) + sp.Rational(1, 100), ">", sp.Rational(1, 17)),
            (sp.Rational(1, 17) + sp.Rational(1, 100), ">", sp.Rational(1, 16)),
            (sp.Rational(1, 18) + sp.Rational(1, 100), ">", sp.Rational(1, 16))])
    # sharper accounting: S_pub ~ D0^n is D(p)^n conditioned on 'no D-example', which has probability
    # (1 - p)^n >= 0.99, so P_actual(E) <= P_ideal(E)/0.99; the loop failure adds P_loop (coupling)
    sharp = float(b18) / 0.99
    slack = float(b16) - sharp
    bad_sharp = bad_ratios(slack)
    r_sharp = max(bad_sharp)
    # the additive repair with beta_A = 17/400 against the loop failure at ratio 10
    loop10 = [early_exit_probability(10 * npub, npub) for npub in (1, 2, 3, 5, 10, 30)]
    pl_min, pl_max = min(loop10), max(loop10)
    if not float(need) + 0.01 + pl_min > float(b16):
        raise RuntimeError("expected the additive repair to fail at ratio 10")
    # the fill-with-D0 repair
    fill_grid, fill_arg = max((x, (npub, npv)) for npub in (1, 2, 3, 5, 10, 30)
                              for npv, x in zip(*_grid_tail(npub, early=False)))
    fill_sup, fill_nt = fill_failure_poisson_sup()
    if not (fill_grid <= fill_sup < slack):
        raise RuntimeError(f"fill repair: grid {fill_grid}, Poisson sup {fill_sup}, slack {slack}")
    mod = bounds_module("abm19")
    lines = []
    links: tuple[str, ...] = ()
    r = mod.abm19_public_data_reduction(0.001, 5000, 2, 1.0)
    if r.n != -(-5000 // 20) or abs(r.alpha - 100 * 2 * 0.001) > 1e-15 or abs(r.p - 1 / 200) > 1e-15:
        raise AssertionError(f"abm19_public_data_reduction constants changed: {r}")
    if abs(r.beta - float(full)) < 1e-15:
        lines.append(f"semiprivate.theory.bounds.abm19.abm19_public_data_reduction returns the corrected beta = {full}.")
    elif abs(r.beta - 1 / 16) < 1e-15:
        r2 = mod.abm19_public_data_reduction(0.001, 10, 1, 1.0)
        for npv, npub in ((10, 1), (300, 30), (5000, 2)):
            rc = mod.abm19_public_data_reduction(0.001, npv, npub, 1.0, form="corrected")
            want_c = (1 / 18) / (1 - 1 / (100 * npub)) ** npub + fill_failure_probability(npv, npub)
            if abs(rc.beta - want_c) > 1e-12 or not rc.beta < 1 / 16:
                raise AssertionError(f"form='corrected' beta {rc.beta} != verified {want_c}")
        lines.append("form='corrected' returns (1/18)/(1-p)^n_pub + P[Bin(n_priv, p) >= ñ + 1] (< 1/16), equal to "
                     "the independent computation at 3 points.")
        lines.append("semiprivate.theory.bounds.abm19.abm19_public_data_reduction returns beta = 1/16, which for the paper's "
                     f"stopping Alg 3 holds only when n_priv > {fmt(r_sharp)} n_pub (sharper accounting above); "
                     f"it returns 1/16 also for n_priv = 10, n_pub = 1 (beta = {fmt(r2.beta)}), which is "
                     "established only for the repaired (fill with D0) Alg 3 -- the one "
                     "semiprivate.theory.learners.reduction.priv_samp runs. Its alpha = 100 n_pub alpha, n = "
                     "ceil(n_priv/(10 n_pub)), p = 1/(100 n_pub) are the verified ones.")
    else:
        raise AssertionError(f"abm19_public_data_reduction beta = {r.beta}: neither 1/16 nor {full}")
    links = ("semiprivate.theory.bounds.abm19.abm19_public_data_reduction",)
    details = join([
        f"Premise: A fails w.p. <= 1/18. With the loop failure (<= 0.01 as claimed) the proof bounds P[.] for "
        f"S^_pub by 1/17, but 1/18 + 1/100 = {step1} = {fmt(float(step1))} > 1/17 = {fmt(float(b17))} (exact).",
        f"Then it adds the TV distance 0.01 and concludes < 1/16, but 1/17 + 1/100 = {step2} = {fmt(float(step2))} > "
        f"1/16 = 0.0625; the honest total is 1/18 + 2/100 = {full} = {fmt(float(full))}.",
        f"Even without the loop failure, 1/18 + 1/100 = {fmt(float(minimal))} > 1/16.",
        f"With the paper's additive accounting, 1/16 needs beta_A <= 1/16 - 2/100 = {need} = {fmt(float(need))}.",
        "A sharper accounting rescues the lemma in part: S_pub ~ D0^n is D(p)^n conditioned on the event 'no "
        "D-example', of probability (1-p)^n >= 0.99, so P[fail with S_pub] <= P[fail with S^_pub]/0.99 <= "
        f"(1/18)/0.99 = {fmt(sharp)}; adding the loop failure P_loop, the total is <= 1/16 iff P_loop <= "
        f"{fmt(slack)}. Exact scan (as in ABM19.Lem4.4.chernoff): P_loop > {fmt(slack)} only for n_priv/n_pub in "
        f"[{fmt(min(bad_sharp))}, {fmt(r_sharp)}], so Lemma 4.4 holds as stated when n_priv > {fmt(r_sharp)} n_pub (scan over n_pub in {{1,2,3,5,10,30}}, "
        "n_priv <= 400 n_pub; Chernoff beyond).",
        f"The 'beta_A <= {need}' repair of the additive accounting assumed P_loop <= 0.01, which "
        f"ABM19.Lem4.4.chernoff refutes: at n_priv = 10 n_pub (n_pub in {{1,2,3,5,10,30}}) P_loop = "
        f"P[Bin(n_priv-1, p) >= 1] is in [{fmt(pl_min)}, {fmt(pl_max)}], so the total is >= {need} + 1/100 + "
        f"{fmt(pl_min)} = {fmt(float(need) + 0.01 + pl_min)} > 1/16 (and (1/18)/0.99 + P_loop >= "
        f"{fmt(sharp + pl_min)}).",
        "Repair that works at every ratio: Alg 3 fills the slots after S~ runs out with D0 draws (it does not stop). "
        "Coupled with an ideal D(p)^n_priv sample (a fresh D draw at every b_i = 1), the two differ only with more "
        f"than ñ successes, P[Bin(n_priv, p) >= ñ + 1]: exact grid max {fmt(fill_grid)} at (n_pub, n_priv) = "
        f"{fill_arg} (n_pub in {{1,2,3,5,10,30}}, n_priv <= 400 n_pub), and for every n_pub, n_priv at most "
        f"max over ñ of P[Pois(ñ/10) >= ñ + 1] = {fmt(fill_sup)} (at ñ = {fill_nt}; binomial below Poisson tail for "
        f"k >= lambda + 1, Anderson-Samuels) < {fmt(slack)}: B errs w.p. <= (1/18)/0.99 + {fmt(fill_sup)} = "
        f"{fmt(sharp + fill_sup)} < 1/16.",
        *lines,
    ])
    return Check(id=f"{ID}.confidence",
                 claim="ABM19 Lem 4.4 / Claim 4.6: from an (alpha, 1/18, eps, delta) learner, B errs with probability "
                       "< 1/16 (via (3)-(4): 1/18 + 0.01 <= 1/17 and 1/17 + 0.01 <= 1/16).",
                 method="exact", details=details,
                 corrected=f"B fails w.p. <= beta_A/(1 - 1/(100 n_pub))^n_pub + P_loop <= beta_A/0.99 + P_loop; with "
                           f"beta_A = 1/18 this is <= 1/16 when n_priv > {fmt(r_sharp)} n_pub (exact scan). No "
                           f"smaller beta_A repairs it at every ratio (at n_priv = 10 n_pub, P_loop >= {fmt(pl_min)}). "
                           "At every ratio: let Alg 3 fill the slots after S~ is exhausted with D0 draws instead of "
                           f"stopping; the failure term is then P[Bin(n_priv, p) >= ñ + 1] <= {fmt(fill_sup)} < "
                           f"{fmt(slack)} = 1/16 - (1/18)/0.99 for every n_pub, n_priv, so B is a (100 n_pub alpha, "
                           "1/16, eps, delta) learner.",
                 links=links)


#: 1/16 - (1/18)/0.99: what the sharper accounting of ABM19.Lem4.4.confidence leaves for the loop failure.
LOOP_SLACK = sp.Rational(1, 16) - sp.Rational(1, 18) / sp.Rational(99, 100)


def loop_failure_proof(ratio: Any = 20, hundred: Any = 100, ten: Any = 10, slack: Any = LOOP_SLACK) -> Proof:
    """ABM19 Lem 4.4's loop failure beyond ratio 20 stated formally: for every n_pub >= 1 and n_priv > 20 n_pub, with
    p = 1/(100 n_pub) and ñ = ceil(n_priv/(10 n_pub)), P[Bin(n_priv - 1, p) >= ñ] <= 1/16 - (1/18)/0.99 (the slack
    the sharper accounting of ABM19.Lem4.4.confidence leaves). m = n_priv - 1 is the number of draws before the
    last; k = ñ is stated by its two defining inequalities."""
    ratio, hundred, ten, slack = (sp.sympify(x) for x in (ratio, hundred, ten, slack))
    npub, m, k = sp.symbols("n_pub m k", integer=True, positive=True)
    p = 1 / (hundred * npub)
    hyps = (m + 1 > ratio * npub, k >= (m + 1) / (ten * npub), k < (m + 1) / (ten * npub) + 1)
    tail = sp.Function("BinomialTail")(m, p, k)
    claim = Claim("ABM19 Lem 4.4 (Claim 4.6's loop failure, for n_priv > 20 n_pub): Algorithm 3 exits the loop early "
                  "with probability P[Bin(n_priv - 1, p) >= ñ] <= 1/16 - (1/18)/0.99, so B errs w.p. <= 1/16.",
                  (npub, m, k), hyps, tail <= slack,
                  samples={"n_pub": ["1", "3"], "m": [f"{ratio}*n_pub", f"{ratio}*n_pub + 6", "100*n_pub"],
                           "k": [f"ceiling((m + 1)/({ten}*n_pub))"]})
    P = Proof(claim)
    k3 = P.smt("ñ >= 3 when n_priv > 20 n_pub (ñ >= n_priv/(10 n_pub) > 2, an integer)", [hyps[0], hyps[1]], k >= 3)
    mean = P.smt("the mean (n_priv - 1) p <= ñ/10", [hyps[1]], m * p <= k / ten)
    P.cite("union bound over k-subsets: P[Bin(m, p) >= k] <= (m p)^k / k!", tail <= (m * p) ** k / sp.factorial(k),
           "P[Bin(m, p) >= k] <= C(m, k) p^k <= (m p)^k/k! (union bound over the k-subsets of trials)",
           standard="Binomial tail over k-subsets", instance={"n": m, "p": p, "k": k})
    st = P.cite("Stirling: k! >= sqrt(2 pi k)(k/e)^k", sp.factorial(k) >= sp.sqrt(2 * sp.pi * k) * (k / sp.E) ** k,
                "Robbins 1955: k! >= sqrt(2 pi k)(k/e)^k for every integer k >= 1", standard="Stirling lower bound",
                instance={"k": k})
    lm = P.monotone("log is increasing: log(m p) <= log(k/10)", "log", mean)
    ls = P.monotone("log is increasing: log(sqrt(2 pi k)(k/e)^k) <= log k!", "log", st)
    l6 = P.monotone("log(6 pi) <= log(2 pi k) for k >= 3", "log",
                    P.smt("6 pi <= 2 pi k", [k3], 6 * sp.pi <= 2 * sp.pi * k))
    c10 = P.evaluate("log 10 > 1", sp.log(ten), ">", 1)
    c = P.evaluate("3 - 3 log 10 - log(6 pi)/2 < log(1/16 - (1/18)/0.99)",
                   3 - 3 * sp.log(ten) - sp.log(6 * sp.pi) / 2, "<", sp.log(slack))
    km = P.smt("k log(m p) <= k (log k - log 10)", [lm, k3], k * sp.log(m * p) <= k * sp.log(k / ten))
    key = P.smt("k log(m p) - log k! <= k (1 - log 10) - log(2 pi k)/2 <= 3 - 3 log 10 - log(6 pi)/2 < log(slack)",
                [km, ls, l6, c10, c, k3], k * sp.log(m * p) - sp.log(sp.factorial(k)) <= sp.log(slack))
    P.monotone("exp is increasing: (m p)^k / k! <= slack", "exp", key)
    return P


@register(f"{ID}.loop-beyond-ratio-20")
def check_loop_beyond_ratio_20() -> Check:
    """The loop failure of Alg 3 is within the slack 1/16 - (1/18)/0.99 for every n_priv > 20 n_pub (a closed chain
    replacing the exact scan over six values of n_pub)."""
    K = constants(f"{ID}.loop-beyond-ratio-20", ratio=20, hundred=100, ten=10, slack=LOOP_SLACK)
    proof = loop_failure_proof(K["ratio"], K["hundred"], K["ten"], K["slack"])
    details = join([
        "P_loop = P[Bin(n_priv - 1, p) >= ñ], p = 1/(100 n_pub), ñ = ceil(n_priv/(10 n_pub)); for n_priv > 20 n_pub, "
        "ñ >= 3 (z3) and the mean (n_priv - 1) p <= ñ/10 (z3).",
        "Cited, from the checker's table of standard results: P[Bin(m, p) >= k] <= (m p)^k/k! (union bound over "
        "k-subsets) and k! >= sqrt(2 pi k)(k/e)^k (Robbins); each is checked as an instance.",
        "In log space: k log(m p) - log k! <= k(1 - ln 10) - ln(2 pi k)/2 <= 3 - 3 ln 10 - ln(6 pi)/2 = -5.376 < "
        "ln(1/16 - (1/18)/0.99) = -5.054 (exact interval evaluation), for every k >= 3; exp is increasing.",
        "This replaces the exact scan of ABM19.Lem4.4.confidence (six values of n_pub, n_priv <= 400 n_pub) by a "
        "proof for every n_pub and every n_priv > 20 n_pub; the scan stays there as an observation of where below "
        "ratio 20 the loop failure exceeds the slack.",
    ])
    return Check(id=f"{ID}.loop-beyond-ratio-20", proof=proof,
                 claim="ABM19 Lem 4.4 / Claim 4.6: for n_priv > 20 n_pub the loop of Alg 3 fails w.p. P[Bin(n_priv - 1, "
                       "1/(100 n_pub)) >= ceil(n_priv/(10 n_pub))] <= 1/16 - (1/18)/0.99, so B errs w.p. <= 1/16.",
                 method="symbolic+smt+exact", details=details)


@register(f"{ID}.error-scaling")
def check_error_scaling() -> Check:
    """err(h; D(p)) = p err(h; D) + (1-p)/2, hence err(h; D) <= alpha/p = 100 n_pub alpha."""
    K = constants(f"{ID}.error-scaling", hundred=100)
    proof = error_scaling_proof(K["hundred"])
    n_pub, n_priv = sp.symbols("n_pub n_priv", positive=True)
    with sp.evaluate(False):
        n_tilde = 10 * (1 / (100 * n_pub)) * n_priv
    sympy_zero(n_tilde, n_priv / (10 * n_pub), "10 p n_priv at p = 1/(100 n_pub) == n_priv/(10 n_pub)")
    details = join([
        "D0 has uniformly random labels, so err(h; D0) = 1/2 for every h and err(h; D(p)) = p err(h; D) + (1-p)/2; "
        "the optimum on D(p) is the realizable target with err (1-p)/2; excess = p err(h; D) (sympy).",
        "excess <= alpha gives err(h; D) <= alpha/p = 100 n_pub alpha (sympy); ñ = 10 p n_priv = n_priv/(10 n_pub) "
        "(sympy; the algorithm uses the ceiling).",
    ])
    return Check(id=f"{ID}.error-scaling", proof=proof,
                 claim="ABM19 Claim 4.6: excess error <= alpha on D(p) implies err(h~; D) <= 100 n_pub alpha.",
                 method="symbolic", details=details)

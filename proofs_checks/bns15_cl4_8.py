"""BNS15 Claim 4.8 (|D| >= 90000 n suffices) with the size recursion of Algorithm 3 (LabelBoost).

Implements: the proofs_checks part of BNS15.Cl4.8. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from semiprivate.proofs_checks._framework import (
    Check,
    Claim,
    Proof,
    constants,
    fmt,
    join,
    observe,
    register,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module

ID = "BNS15.Cl4.8"


def cl49_initial_size(vc: int, alpha: float, beta: float) -> float:
    """(96000/alpha) VC ln(2240/(alpha beta)) (Claim 4.9's hypothesis on |S|)."""
    return 96000 / alpha * vc * math.log(2240 / (alpha * beta))


def size_schedule(n: float, m: float, vc: int, alpha: float, beta: float) -> list[tuple[float, float]]:
    """Real-valued size recursion of Algorithm 3: list of (|S_i^b|, v_i) per iteration.

    v_i = min(30000 n, beta_i VC e^{alpha_i |S|/(200 VC)} - |S|) (log space), then
    |S| <- (|S| + v_i)/100; loop while |S| < 300 n.
    """
    out = []
    s = m
    i = 1
    while s < 300 * n:
        a, b = alpha / (10 * 2**i), beta / (4 * 2**i)
        log_rhs = math.log(b * vc) + a * s / (200 * vc)
        cap = 30000 * n
        v = cap if log_rhs > math.log(cap + s) else math.exp(log_rhs) - s
        out.append((s, v))
        s = s / 100 + (300 * n if v == cap else v / 100)  # exact when capped: then |S| >= 300 n
        i += 1
        if i > 1000:
            raise RuntimeError("no termination")
    return out


def geometric_sum_proof(total: Any = 90000, cap: Any = 30000) -> Proof:
    """BNS15 Cl 4.8 stated formally: with |T_0^b| <= 30000 n and |T_i^b| <= 30000 n 2^{-i} (the schedule, given),
    the N + 1 rounds use sum |T_i^b| <= 90000 n, for every number of rounds N."""
    total, cap = sp.sympify(total), sp.sympify(cap)
    n = sp.Symbol("n", positive=True)
    N = sp.Symbol("N", integer=True, nonnegative=True)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    used = sp.Symbol("T_total", nonnegative=True)
    geo = sp.Sum(sp.Rational(1, 2) ** k, (k, 0, N))
    claim = Claim("BNS15 Cl 4.8: if |D| >= 90000 n then LabelBoost never fails on Step 2b (sum |T_i^b| <= 90000 n).",
                  (n, N, used), (), used <= total * n,
                  given=((used <= cap * n + cap * n * geo,
                          "the schedule of Alg LabelBoost: |T_0^b| <= 30000 n and |T_i^b| <= 30000 n 2^{-i} by the "
                          "doubling of |S_i^b| (BNS15 Obs 4.7 / Cl 4.9's induction, BNS15.Cl4.9.induction), as the proof of Cl 4.8 "
                          "states"),),
                  samples={"n": ["1", "7"], "N": ["0", "5"], "T_total": ["30000*n + 30000*n*(2 - 2**(-N))"]})
    P = Proof(claim)
    P.identity("sum_{k=0}^N 2^{-k} = 2 - 2^{-N}", geo, 2 - sp.Rational(1, 2) ** N)
    return P


@register(f"{ID}.geometric-sum")
def check_cl48() -> Check:
    """sum |T_i| <= 30000n + 30000n sum 2^-i = 90000n, and the doubling premise, on the real recursion."""
    K = constants(f"{ID}.geometric-sum", total=90000, cap=30000)
    proof = geometric_sum_proof(K["total"], K["cap"])
    k = sp.Symbol("k", integer=True, nonnegative=True)
    n = sp.Symbol("n", positive=True)
    with sp.evaluate(False):
        tot = 30000 * n + 30000 * n * sp.Sum(sp.Rational(1, 2) ** k, (k, 0, sp.oo))
    sympy_zero(tot, 90000 * n, "30000n + 30000n sum_{k>=0} 2^-k == 90000n")
    n_runs = n_iter_max = 0
    worst_use = 0.0
    for vc in (1, 2, 10):
        for alpha in (0.5, 0.1, 0.01):
            for beta in (0.5, 0.1, 0.01):
                m = cl49_initial_size(vc, alpha, beta)
                for nn in (m / 300 * 1.01, m / 30, m, 1e3 * m, 1e30 * m, 1e100 * m, 1e250 * m):
                    sched = size_schedule(nn, m, vc, alpha, beta)
                    if not sched:
                        continue
                    n_runs += 1
                    n_iter_max = max(n_iter_max, len(sched))
                    vs = [v for _, v in sched]
                    if min(vs) <= 0:
                        raise RuntimeError("v <= 0")
                    if any(v >= 30000 * nn for v in vs[:-1]):
                        raise RuntimeError("cap reached before the last iteration")
                    for i in range(1, len(vs) - 1):
                        if vs[i] < 2 * vs[i - 1]:
                            raise RuntimeError("doubling fails")
                    worst_use = max(worst_use, sum(vs) / (90000 * nn))
    if worst_use > 1:
        raise RuntimeError("uses more than 90000 n")
    observe(f"The doubling premise and sum |T_i| <= 90000 n on {n_runs} real schedules (up to {n_iter_max} "
            f"iterations; largest use {fmt(worst_use)} of 90000 n).")
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("bns15")
    for nn in (1, 100, 12345):
        if mod.bns15_labelboost_unlabeled_size(nn) != 90000 * nn:
            raise AssertionError("bns15_labelboost_unlabeled_size is not 90000 n")
    m_int = mod.bns15_labelboost_labeled_size(1, 0.1, 0.1)
    sched = mod.bns15_labelboost_schedule(10**6, m_int, 1, 0.1, 0.1)
    if sum(it.v for it in sched) > 90000 * 10**6:
        raise AssertionError("bns15_labelboost_schedule uses more than 90000 n")
    links = ("semiprivate.theory.bounds.bns15.bns15_labelboost_unlabeled_size", "semiprivate.theory.bounds.bns15.bns15_labelboost_schedule")
    lines.append("semiprivate.theory.bounds.bns15: bns15_labelboost_unlabeled_size(n) = 90000 n; bns15_labelboost_schedule "
                 "(integer rounding) stays within 90000 n on a sample run.")
    details = join([
        "30000n + 30000n sum_{i>=0} 2^{-i} = 90000n (sympy).",
        "The premises: |T_N|, |T_{N-1}| <= 30000n and |T_i| >= 2|T_{i-1}| for 1 < i < N. An iteration that hits the "
        "cap v = 30000n ends the loop ((|S| + 30000n)/100 >= 300n), so only T_N can be capped; the doubling is "
        "checked on the recursion.",
        f"Real-valued size recursion of Algorithm 3 (|S| from Claim 4.9's minimum; {n_runs} runs over VC in "
        "{1,2,10}, alpha, beta in {0.5,0.1,0.01}, n from just above m/300 to 1e250 m): v_i > 0, the cap is reached "
        f"only in the last iteration, |T_i| >= 2|T_{{i-1}}| for 1 < i < N, at most {n_iter_max} iterations, and "
        f"sum |T_i| / (90000 n) <= {fmt(worst_use)}. The first T is already about beta VC (2240/(alpha beta))^24/16, "
        "so N <= 2 below n = 1e250 m and the doubling premise is vacuous in that range.",
        *lines,
    ])
    return Check(id=f"{ID}.geometric-sum", proof=proof,
                 claim="BNS15 Cl 4.8: if |D| >= 90000 n then LabelBoost never fails on Step 2b (sum |T_i^b| <= 90000 n).",
                 method="symbolic+exact", details=details, links=links)

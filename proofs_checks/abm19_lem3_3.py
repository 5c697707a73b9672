"""ABM19 Lemma 3.3 (alpha-cover from public unlabelled data): the growth-function chain and the
'standard manipulation' to n_pub = O((d log(1/alpha) + log(1/beta))/alpha).

P[H~ not an alpha-cover] <= 2 G_{H Delta}(2 n) e^{-alpha n/4} <= 2 (2 e n/d)^{2d} e^{-alpha n/4}, n = n_pub.

Implements: the proofs_checks part of ABM19.Lem3.3. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import sympy as sp
from hypothesis import strategies as st
from semiprivate.proofs_checks._framework import (
    Check,
    cite,
    exact_fact,
    fmt,
    grid_violations,
    hypothesis_counterexample,
    join,
    observe,
    refute,
    register,
    sympy_nonneg,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module, close

ID = "ABM19.Lem3.3"
O_CONDITION = ("alpha, beta <= 1/2 (then the constant 255 suffices; explicitly n_pub >= (32 d ln(32e/alpha) + "
               "8 ln(2/beta))/alpha for all alpha, beta in (0, 1))")
SAUER_CONDITION = ("n_pub >= d/2 (Sauer's polynomial bound needs m = 2 n_pub >= d points; below, Eq. (1) is < 1 "
                   "only for n_pub < 0.19 d -- about d/(2e) = 0.184 d as alpha -> 0 -- and there it is refuted, "
                   "ABM19.Lem3.3.small-n; in between it is >= 1 and holds trivially)")


def log_bound(n: float, d: int, alpha: float) -> float:
    """log of 2 (2e n/d)^{2d} exp(-alpha n/4) (independent re-implementation)."""
    return math.log(2.0) + 2 * d * (math.log(2.0) + 1.0 + math.log(n) - math.log(d)) - alpha * n / 4.0


def smallest_n_exact(d: int, alpha: float, beta: float) -> int:
    """Smallest integer n >= d/2 with the Lemma 3.3 bound <= beta (own bisection).

    On [d/2, inf) the log bound increases up to n = 8d/alpha (where it exceeds log 2 + 2d log 16)
    and decreases after, so the answer lies above 8d/alpha and is found by bisection.
    """
    lb = math.log(beta)
    lo = max(math.ceil(d / 2), math.floor(8 * d / alpha))
    if log_bound(lo, d, alpha) <= lb:
        return lo
    hi = max(lo + 1, 2 * lo)
    while log_bound(hi, d, alpha) > lb:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_bound(mid, d, alpha) <= lb:
            hi = mid
        else:
            lo = mid
    return hi


def n0_explicit(d: int, alpha: float, beta: float) -> float:
    """Explicit sufficient size (32 d ln(32e/alpha) + 8 ln(2/beta))/alpha (SSBD Lemma A.2 route)."""
    return (32 * d * math.log(32 * math.e / alpha) + 8 * math.log(2 / beta)) / alpha


def _projections(funcs: list[tuple[int, ...]], pts: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(f[p] for p in pts) for f in funcs}


@register(f"{ID}.growth-chain")
def check_growth_chain() -> Check:
    """G_{H Delta}(m) <= G_H(m)^2 <= (e m/d)^{2d} and e^{-alpha n/4} >= 2^{-alpha n/2}."""
    # exhaustive: H = intervals [a, b) on N points (VC 2) and thresholds (VC 1)
    N = 7
    intervals = [tuple(int(a <= x < b) for x in range(N)) for a in range(N + 1) for b in range(a, N + 1)]
    thresholds = [tuple(int(x < t) for x in range(N)) for t in range(N + 1)]
    n_sets = 0
    for funcs in (intervals, thresholds):
        delta = list({tuple(int(f[x] != g[x]) for x in range(N)) for f in funcs for g in funcs})
        for m in range(1, N + 1):
            g_h = max(len(_projections(funcs, v)) for v in itertools.combinations(range(N), m))
            g_d = max(len(_projections(delta, v)) for v in itertools.combinations(range(N), m))
            n_sets += 1
            if g_d > g_h**2:
                raise RuntimeError("G_{H Delta}(m) > G_H(m)^2")
    # Sauer: sum_{i<=d} C(m, i) <= (e m/d)^d for m >= d (exact integers vs log comparison)
    def sauer_ok(m: int, d: int) -> bool:
        if m < d:
            return True
        s = sum(math.comb(m, i) for i in range(d + 1))
        return math.log(s) <= d * (1 + math.log(m / d)) + 1e-12
    bad = grid_violations(sauer_ok, {"m": list(range(1, 301)), "d": list(range(1, 41))})
    if bad:
        raise RuntimeError(f"Sauer violated at {bad[:3]}")
    # below m = d the polynomial bound is false: (e m/d)^d < 2^m for m < d small
    below = [(m, d) for d in range(2, 41) for m in range(1, d) if d * (1 + math.log(m / d)) < m * math.log(2)]
    observe(f"Exhaustive G_(H Delta)(m) <= G_H(m)^2 on {n_sets} (class, m) pairs; Sauer's polynomial bound on the "
            "grid 1 <= d <= 40, d <= m <= 300: no violation.")
    cite("G_{H Delta}(m) <= G_H(m)^2: the pattern of f xor g on m points is determined by the patterns of f and g. "
         "Sauer-Shelah: G_H(m) <= sum_{i<=d} C(m, i) <= (e m/d)^d for m >= d. The double-sample (epsilon-net) "
         "bound P[Bad] <= 2 G_{H Delta}(2n) 2^{-alpha n/2} (ABM19 cite it).")
    # e^{-alpha n/4} >= 2^{-alpha n/2}  <=>  ln2/2 >= 1/4
    sympy_nonneg(sp.log(2) / 2 - sp.Rational(1, 4), "ln2/2 - 1/4", condition=SAUER_CONDITION)
    observe("Sauer's polynomial form fails below m = d: (e m/d)^d < 2^m at m = 1, d = 2 ((e/2)^2 < 2); this "
            "refutes a step for 2 n_pub < d, it proves nothing (the refutation of Eq. (1) itself is "
            "ABM19.Lem3.3.small-n).")
    details = join([
        f"G_{{H Delta}}(m) <= G_H(m)^2 checked exhaustively for intervals and thresholds on {N} points, every m <= {N} "
        f"({n_sets} (class, m) pairs; H Delta built explicitly).",
        "Sauer sum_{i<=d} C(m,i) <= (e m/d)^d verified exactly for all 1 <= d <= 40, d <= m <= 300.",
        f"The polynomial form is FALSE below m = d: (e m/d)^d < 2^m at {len(below)} of the (m < d) grid points "
        f"(e.g. m = {below[0][0]}, d = {below[0][1]}); Lemma 3.3 applies it at m = 2 n_pub. For 2 n_pub < d the "
        "bound 2(2e n/d)^(2d) e^(-alpha n/4) is >= 1 (trivially true) unless n_pub < 0.19 d (about d/(2e) = 0.184 d "
        "as alpha -> 0: (2e n/d)^(2d) < 1 needs n < d/(2e)), and there Eq. (1) is refuted (ABM19.Lem3.3.small-n); "
        "so the text 'Eq. (1) needs 2 n_pub >= d' overstates the gap: it fails only for n_pub < 0.19 d.",
        "The double-sample (epsilon-net) bound 2 G(2n) 2^{-alpha n/2} is implied by the stated 2 G(2n) e^{-alpha n/4} "
        "direction-wise since ln2/2 >= 1/4 (sympy); the epsilon-net lemma itself is cited, not re-derived.",
    ])
    return Check(id=f"{ID}.growth-chain",
                 claim="ABM19 Lem 3.3 proof: G_{H Delta}(m) <= G_H(m)^2 <= (e m/d)^{2d}, and P[Bad] <= 2 G_{H Delta}(2n) "
                       "e^{-alpha n/4} <= 2 (2e n/d)^{2d} e^{-alpha n/4}.",
                 method="exact+grid+symbolic", details=details)


def prob_not_cover_all_functions(d: int, alpha: float) -> Fraction:
    """Exact P[H~ not an alpha-cover] for H = all functions on {0..d-1}, D_X uniform, one public point.

    ABM19's H~ keeps one h per labelling of the public points (here: the lexicographically first h
    with each label at the public point x). Enumerates every x (uniform), every h in H and every
    member of H~: the fraction of x for which some h has no member of H~ within distance alpha.
    """
    funcs = list(itertools.product((0, 1), repeat=d))
    failures = 0
    for x in range(d):
        cover = [next(h for h in funcs if h[x] == lab) for lab in (0, 1)]
        ok = all(min(sum(a != b for a, b in zip(h, c)) for c in cover) <= alpha * d for h in funcs)
        failures += int(not ok)
    return Fraction(failures, d)


@register(f"{ID}.small-n")
def check_small_n() -> Check:
    """The displayed bound (1) for n_pub < d/2."""
    d, n, alpha = 10, 1, 0.05
    val = math.exp(log_bound(n, d, alpha))
    # H = all functions on a d-point domain, D_X uniform: with one public point the class H~ has
    # 2 members, and an alpha-cover with alpha < 1/d needs every h itself: P[not a cover] = 1
    n_funcs = 2**d
    p_not_cover = prob_not_cover_all_functions(d, alpha)
    if p_not_cover != 1:
        raise RuntimeError(f"expected P[H~ not an alpha-cover] = 1, got {p_not_cover}")
    bound_q = 2 * (2 * sp.E * n / sp.Integer(d)) ** (2 * d) * sp.exp(-sp.Rational(1, 20) * n / 4)
    refute(f"d = {d}, n_pub = {n}, alpha = {alpha}: Eq. (1) gives {fmt(val)} < 1, while for H = all functions on "
           f"{d} points (uniform D_X) P[H~ not an alpha-cover] = {p_not_cover} (enumerated exactly over every public "
           "point and every h).", [(bound_q, "<", 1), (sp.Rational(p_not_cover), "==", 1)])
    sympy_nonneg(sp.log(2) / 2 - sp.Rational(1, 4), "ln2/2 - 1/4 (double-sample bound to e^{-alpha n/4})",
                 condition=SAUER_CONDITION)
    link = ""
    mod = bounds_module("abm19")
    links: tuple[str, ...] = ()
    from semiprivate.theory.validity import ConditionNotMet

    try:
        mod.abm19_cover_failure_probability(n, d, alpha)
    except ConditionNotMet:
        link = "semiprivate.theory.bounds.abm19.abm19_cover_failure_probability raises ConditionNotMet here (as it should)."
        links = ("semiprivate.theory.bounds.abm19.abm19_cover_failure_probability",)
    else:
        raise AssertionError("abm19_cover_failure_probability returned a number for 2 n_pub < d")
    details = join([
        f"d = {d}, n_pub = {n}, alpha = {alpha}: 2(2e n/d)^(2d) e^(-alpha n/4) = {fmt(val)}.",
        f"H = all {n_funcs} functions on a {d}-point domain (VC dimension {d}), D_X uniform. One public point gives "
        "|H~| = 2 (one h per label of the public point); an alpha-cover with alpha < 1/d must contain every h: "
        f"P[H~ not an alpha-cover] = {p_not_cover}, enumerated exactly (every public point, every h, every member "
        "of H~), and asserted.",
        link,
        "Eq. (1) as displayed (for every n_pub) is therefore false; it is < 1 only for n_pub < 0.19 d (about d/(2e) "
        "= 0.184 d as alpha -> 0), is >= 1 (trivially true) from there to d/2, and holds by Sauer for n_pub >= d/2. "
        "The paper only applies it at n_pub = O((d log(1/alpha) + log(1/beta))/alpha) >= 8d/alpha > d/2 "
        "(ABM19.Lem3.3.manipulation), so the lemma's O-statement is unaffected.",
    ])
    return Check(id=f"{ID}.small-n",
                 claim="ABM19 Lem 3.3, Eq. (1): P[H~ not an alpha-cover] <= 2 (2e n_pub/d)^{2d} e^{-alpha n_pub/4} "
                       "(the paper uses it at the n_pub of the O-statement, which is >= 8d/alpha > d/2).",
                 method="exact", details=details,
                 corrected="Eq. (1) holds for n_pub >= d/2 (the double-sample bound with Sauer) and trivially wherever "
                           "it is >= 1 (every n_pub >= 0.19 d); the lemma's O-statement is unaffected.",
                 links=links)


@register(f"{ID}.manipulation")
def check_manipulation() -> Check:
    """The 'standard manipulation' from Eq. (1) to n_pub = O((d log(1/alpha) + log(1/beta))/alpha)."""
    # (a) explicit n0 satisfies the bound for every d >= 1, alpha, beta in (0, 1): certified reduction
    al, be, dd_ = sp.symbols("alpha beta d", positive=True)
    A_ = sp.log(32 * sp.E / al)
    L_ = sp.log(2 / be) / dd_
    n0_ = (32 * dd_ * A_ + 8 * dd_ * L_) / al
    logb = sp.log(2) + 2 * dd_ * sp.log(2 * sp.E * n0_ / dd_) - al * n0_ / 4 - sp.log(be)
    sympy_zero(logb, dd_ * (2 * sp.log(2 * A_ + L_ / 2) - 6 * A_ - L_),
               "log(bound(n0)/beta) == d(2 ln(2A + L/2) - 6A - L), A = ln(32e/alpha), L = ln(2/beta)/d")
    cite("ln z <= z - 1 < z for z > 0.")
    t_ = sp.Symbol("t", nonnegative=True)
    sympy_nonneg(al / 4 - 2 * dd_ / (8 * dd_ / al + t_),
                 "alpha/4 - 2d/n for n = 8d/alpha + t: the log-bound decreases beyond 8d/alpha")
    exact_fact("n0 alpha/d = 32 ln(32e/alpha) + 8 ln(2/beta)/d >= 32 ln(32e) > 8 > alpha/2: n0 >= 8d/alpha and "
               "n0 >= d/2, so every n >= n0 also satisfies the bound.", [(32 * sp.log(32 * sp.E), ">", 8)])
    def ok(d: int, alpha: float, beta: float) -> bool:
        n0 = n0_explicit(d, alpha, beta)
        return n0 >= d / 2 and n0 >= 8 * d / alpha and log_bound(n0, d, alpha) <= math.log(beta)
    axes: dict[str, list[float]] = {"d": [1, 2, 3, 5, 10, 30, 100, 1000], "alpha": [0.9, 0.5, 0.1, 0.01, 1e-4, 1e-7],
            "beta": [0.9, 0.5, 0.1, 1e-3, 1e-9, 1e-30]}
    bad = grid_violations(ok, axes)
    if bad:
        raise RuntimeError(f"n0 fails at {bad[:3]}")
    ce = hypothesis_counterexample(ok, {"d": st.integers(1, 10**5), "alpha": st.floats(1e-9, 0.999),
                                        "beta": st.floats(1e-40, 0.999)})
    if ce is not None:
        raise RuntimeError(f"hypothesis found n0 failing at {ce}")
    observe("n0 satisfies the bound on a 288-point grid and 300 hypothesis examples.")
    # (b) n0 <= 255 (d ln(1/alpha) + ln(1/beta))/alpha for alpha, beta <= 1/2 (symbolic)
    u, v, d = sp.symbols("u v d", nonnegative=True)
    La, Lb = sp.log(2) + u, sp.log(2) + v
    diff = 255 * (d * La + Lb) - (32 * d * sp.log(32 * sp.E) + 32 * d * La + 8 * sp.log(2) + 8 * Lb)
    diff = sp.expand(diff)
    coeff_d = sp.simplify(diff.coeff(d).subs(u, 0))
    rest = sp.simplify(diff.subs(d, 0).subs(v, 0))
    exact_fact("255 (d ln(1/alpha) + ln(1/beta)) - n0 alpha: at alpha = beta = 1/2 the coefficient of d and the "
               "constant term are positive", [(coeff_d, ">", 0), (rest, ">", 0)], condition=O_CONDITION)
    sympy_nonneg(sp.expand(diff.coeff(d)) - coeff_d, "coefficient of d growth in u", condition=O_CONDITION)
    sympy_nonneg(sp.expand(diff.subs(d, 0)) - rest, "constant term growth in v", condition=O_CONDITION)
    # (c) exact smallest n vs n0 and vs the O-form with constant 255
    worst = 0.0
    for dd in (1, 3, 10, 50):
        for a in (0.5, 0.1, 0.01):
            for b in (0.5, 0.05, 1e-6):
                ns = smallest_n_exact(dd, a, b)
                if ns > n0_explicit(dd, a, b):
                    raise RuntimeError("exact size above n0")
                worst = max(worst, ns * a / (dd * math.log(1 / a) + math.log(1 / b)))
    # (d) links
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("abm19")
    for dd, a, b in ((1, 0.1, 0.05), (10, 0.05, 0.01), (7, 0.3, 0.2), (40, 0.01, 1e-6)):
        got = mod.abm19_public_sample_size(dd, a, b)
        want = smallest_n_exact(dd, a, b)
        if got != want:
            raise AssertionError(f"abm19_public_sample_size({dd}, {a}, {b}) = {got}, verified {want}")
        close(math.log(mod.abm19_cover_failure_probability(want, dd, a)), log_bound(want, dd, a),
              what="abm19_cover_failure_probability")
    expr = mod.abm19_cover_failure_probability_expr()
    syms = {s.name: s for s in expr.free_symbols}
    val = float(expr.subs({syms["n_pub"]: 5000, syms["vc_dim"]: 4, syms["alpha"]: sp.Rational(1, 20)}))
    close(math.log(val), log_bound(5000, 4, 0.05), what="abm19_cover_failure_probability_expr")
    links = ("semiprivate.theory.bounds.abm19.abm19_public_sample_size", "semiprivate.theory.bounds.abm19.abm19_cover_failure_probability",
             "semiprivate.theory.bounds.abm19.abm19_cover_failure_probability_expr")
    lines.append("semiprivate.theory.bounds.abm19: abm19_public_sample_size equals the independent exact search at 4 points; "
                 "abm19_cover_failure_probability and its sympy form equal 2(2en/d)^(2d)e^(-alpha n/4).")
    details = join([
        "Explicit form: n0 = (32 d ln(32e/alpha) + 8 ln(2/beta))/alpha satisfies 2(2e n/d)^(2d) e^(-alpha n/4) <= beta "
        "for every d >= 1, alpha, beta in (0, 1): with A = ln(32e/alpha), L = ln(2/beta)/d, log(bound/beta) = "
        "d(2 ln(2A + L/2) - 6A - L) (sympy) <= -2dA < 0 by ln z < z; n0 lies beyond the bound's maximum at n = "
        "8d/alpha (so every larger n works too) and above d/2 (certified). Counterexample search: grid of "
        f"{8 * 6 * 6} points (d up to 1000, alpha down to 1e-7, beta down "
        "to 1e-30) plus a derandomized hypothesis search (300 examples): no violation.",
        "O-form: for alpha, beta <= 1/2, n0 <= 255 (d ln(1/alpha) + ln(1/beta))/alpha (sympy: linear in "
        "ln(1/alpha) - ln 2 and ln(1/beta) - ln 2 with positive coefficients).",
        f"Exact smallest n (own bisection) over a 4x3x3 grid: largest ratio n*alpha/(d ln(1/alpha) + ln(1/beta)) = "
        f"{fmt(worst)}.",
        "Without a bound away from 1 on alpha and beta the O-form fails: d ln(1/alpha) + ln(1/beta) -> 0 as "
        "alpha, beta -> 1 while the needed n stays >= 8d/alpha.",
        *lines,
    ])
    return Check(id=f"{ID}.manipulation",
                 claim="ABM19 Lem 3.3: the bound is <= beta when n_pub = O((d log(1/alpha) + log(1/beta))/alpha).",
                 method="symbolic+exact+grid+hypothesis", details=details,
                 links=links)

"""BNS15 Lemma 4.1 (privacy of A after LabelBoostProcedure): (eps + 3, 4e delta); the key step is
w_{1,z} <= 4e w_{2,z} for the probability mass the exponential mechanism (eps = 1) puts on the
one or two hypotheses of H_i that extend a dichotomy z of K = P_1 cap P_2.

Implements: the proofs_checks part of BNS15.Lem4.1. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from semiprivate.proofs_checks._framework import Check, cite, fmt, join, observe, register, sympy_nonneg, sympy_zero
from semiprivate.proofs_checks._links import bounds_module

ID = "BNS15.Lem4.1"
SEED = 41


def _labelboost_masses(C: list[tuple[int, ...]], S: list[tuple[int, int]], T: list[int]
                       ) -> tuple[list[int], dict[tuple[int, ...], float]]:
    """Points P and, for each h in H (one canonical representative per dichotomy of P), the
    exponential-mechanism probability (eps = 1, q = -#errors on S)."""
    P = sorted({x for x, _ in S} | set(T))
    reps: dict[tuple[int, ...], tuple[int, ...]] = {}
    for f in C:
        key = tuple(f[p] for p in P)
        reps.setdefault(key, f)
    H = list(reps.values())
    scores = np.array([-sum(int(h[x] != y) for x, y in S) for h in H], dtype=float)
    w = np.exp(0.5 * (scores - scores.max()))
    w /= w.sum()
    return P, {h: float(wi) for h, wi in zip(H, w)}


@register(f"{ID}.4e-factor")
def check_lem41() -> Check:
    """Exhaustive small instances of the matched-mass inequality, and the final constants."""
    rng = np.random.default_rng(SEED)
    N = 5
    worst = 0.0
    n_inst = 0
    for _ in range(400):
        C = list({tuple(int(b) for b in rng.integers(0, 2, N)) for _ in range(int(rng.integers(2, 14)))})
        s_len, t_len = int(rng.integers(1, 4)), int(rng.integers(0, 3))
        S1 = [(int(rng.integers(N)), int(rng.integers(2))) for _ in range(s_len)]
        T1 = [int(rng.integers(N)) for _ in range(t_len)]
        S2, T2 = list(S1), list(T1)
        j = int(rng.integers(s_len + t_len))
        if j < s_len:
            S2[j] = (int(rng.integers(N)), int(rng.integers(2)))
        else:
            T2[j - s_len] = int(rng.integers(N))
        P1, m1 = _labelboost_masses(C, S1, T1)
        P2, m2 = _labelboost_masses(C, S2, T2)
        K = sorted(set(P1) & set(P2))
        w1: dict[tuple[int, ...], float] = {}
        w2: dict[tuple[int, ...], float] = {}
        cnt1: dict[tuple[int, ...], int] = {}
        for h, pr in m1.items():
            z = tuple(h[k] for k in K)
            w1[z] = w1.get(z, 0.0) + pr
            cnt1[z] = cnt1.get(z, 0) + 1
        for h, pr in m2.items():
            z = tuple(h[k] for k in K)
            w2[z] = w2.get(z, 0.0) + pr
        if set(w1) != set(w2) or max(cnt1.values()) > 2:
            raise RuntimeError("structure of the proof violated")
        for z in w1:
            worst = max(worst, w1[z] / w2[z])
        n_inst += 1
    if worst > 4 * math.e:
        raise RuntimeError(f"ratio {worst} exceeds 4e")
    cite("BNS15 Lem 4.1's matching argument: on the common points K each pattern z collects at most two hypotheses "
         "whose exponential-mechanism weights change by at most e^{1/2} each between neighbours (the paper's proof).")
    observe(f"Matched-mass ratio w_1z/w_2z <= 4e on {n_inst} random exhaustive instances (largest {fmt(worst)}).")
    # final constants: 4e * e^eps = e^{eps + ln(4e)} <= e^{eps + 3}; delta: sum_z 4e w_{2,z} delta <= 4e delta
    sympy_nonneg(3 - sp.log(4 * sp.E), "3 - ln(4e)")
    sympy_zero(sp.log(4 * sp.E), 1 + 2 * sp.log(2), "ln(4e) == 1 + 2 ln 2")
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("privacy")
    for eps, dl in ((1.0, 41e-6), (0.3, 1e-9), (4.0, 0.0)):
        g = mod.label_boost_procedure_privacy(eps, dl)
        if abs(g.epsilon - (eps + 3)) > 1e-12 or abs(g.delta - 4 * math.e * dl) > 1e-18:
            raise AssertionError(f"label_boost_procedure_privacy({eps}, {dl}) = {g}")
    links = ("semiprivate.theory.bounds.privacy.label_boost_procedure_privacy",)
    lines.append("semiprivate.theory.bounds.privacy.label_boost_procedure_privacy returns (eps + 3, 4e delta) at 3 points.")
    details = join([
        f"{n_inst} seeded random instances (classes of 2-13 functions on 5 points, |S| <= 3, |T| <= 2, one entry of "
        "S o T changed; one canonical representative per dichotomy, exponential mechanism with eps = 1 and "
        "q = -#errors on S): every z in Pi_C(K) has one or two extensions in H_i, and the largest matched-mass "
        f"ratio w_{{1,z}}/w_{{2,z}} observed is {fmt(worst)} <= 4e = {fmt(4 * math.e)}.",
        "Proof chain: numerator factor e^{1/2} (scores move by <= 1), denominator keeps >= half of the pairs' mass "
        "at e^{-1/2} (factor 2 e^{1/2}), and at most 2 hypotheses per z (factor 2): 2e * 2 = 4e.",
        "Final constants: 4e e^eps = e^{eps + 1 + 2ln2} = e^{eps + 2.386} <= e^{eps + 3} (sympy), and "
        "sum_z 4e w_{2,z} delta <= 4e delta.",
        *lines,
    ])
    return Check(id=f"{ID}.4e-factor",
                 claim="BNS15 Lem 4.1: w_{1,z} <= 4e w_{2,z}, hence A o LabelBoostProcedure is (eps + 3, 4e delta)-DP.",
                 method="exact+symbolic", details=details, links=links)

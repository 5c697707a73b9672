"""BNS15 Proposition A.1 (exponential mechanism utility): P[error_S(h) > e_min + Delta] <= |H| exp(-eps Delta m/2).

Implements: the proofs_checks part of BNS15.PropA.1 (EXPMECH). Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from semiprivate.proofs_checks._framework import Check, cite, fmt, join, observe, register, sympy_zero
from semiprivate.proofs_checks._links import bounds_module, close

ID = "BNS15.PropA.1"
SEED = 11


@register(f"{ID}.utility")
def check_prop_a1() -> Check:
    """Exact probabilities on random instances, the kernel's probabilities, and the bounds function."""
    e, D, m, emin = sp.symbols("epsilon Delta m e_min", positive=True)
    # each bad h has weight <= exp(-eps m (e_min + Delta)/2); the normaliser >= exp(-eps m e_min/2)
    sympy_zero(sp.exp(-e * m * (emin + D) / 2) / sp.exp(-e * m * emin / 2), sp.exp(-e * D * m / 2),
               "weight ratio exp(-eps m (e_min + Delta)/2)/exp(-eps m e_min/2) == exp(-eps Delta m/2)")
    rng = np.random.default_rng(SEED)
    worst = 0.0
    kernel_used = False
    try:
        from semiprivate import kernels
        log_probs = kernels.exponential_log_probabilities
        kernel_used = True
    except (ImportError, AttributeError):
        log_probs = None
    max_kernel_diff = 0.0
    for _ in range(500):
        h = int(rng.integers(1, 60))
        mm = int(rng.integers(1, 80))
        eps = float(rng.choice([0.05, 0.3, 1.0, 3.0]))
        errs = rng.integers(0, mm + 1, h)
        scores = -errs.astype(float)
        lw = eps * scores / 2
        p = np.exp(lw - lw.max())
        p /= p.sum()
        if log_probs is not None:
            kp = np.exp(np.asarray(log_probs(scores, eps)))
            max_kernel_diff = max(max_kernel_diff, float(np.max(np.abs(kp - p))))
        e_min = errs.min() / mm
        for delta_gap in (0.5 / mm, 1.0 / mm, 0.1, 0.3):
            bad = errs / mm > e_min + delta_gap
            pr = float(p[bad].sum())
            bound = h * math.exp(-eps * delta_gap * mm / 2)
            if pr > bound * (1 + 1e-12):
                raise RuntimeError("Prop A.1 violated")
            if bound < 1:
                worst = max(worst, pr / bound)
    if max_kernel_diff > 1e-9:
        raise AssertionError(f"kernels.exponential_log_probabilities differs from exp(eps q/2) by {max_kernel_diff}")
    cite("Union bound over the at most |H| hypotheses with error_S > e_min + Delta; the normaliser is at least the "
         "weight of a minimiser, exp(-eps m e_min/2).")
    observe(f"Exact output probabilities on 500 random instances: largest ratio to the bound {fmt(worst)}.")
    lines = []
    links: tuple[str, ...] = ()
    mod = bounds_module("bns15")
    for hs, ep, gap, mm in ((1000, 1.0, 0.1, 200), (3, 0.5, 0.4, 17), (10**6, 2.0, 0.01, 5000)):
        close(mod.expmech_failure_probability(hs, ep, gap, mm), hs * math.exp(-ep * gap * mm / 2),
              what="expmech_failure_probability")
        close(mod.expmech_log_failure_probability(hs, ep, gap, mm), math.log(hs) - ep * gap * mm / 2,
              what="expmech_log_failure_probability")
    links = ("semiprivate.theory.bounds.bns15.expmech_failure_probability", "semiprivate.theory.bounds.bns15.expmech_log_failure_probability")
    lines.append("semiprivate.theory.bounds.bns15: expmech_failure_probability = |H| exp(-eps Delta m/2) (and its log) at 3 "
                 "points.")
    if kernel_used:
        links = links + ("kernels.exponential_log_probabilities",)
        lines.append("kernels.exponential_log_probabilities matches exp(eps q/2)/Z on all 500 instances (max abs "
                     "difference below 1e-9).")
    details = join([
        "Weight of each bad h <= exp(-eps m(e_min + Delta)/2), normaliser >= exp(-eps m e_min/2): ratio "
        "exp(-eps Delta m/2) (sympy); at most |H| bad hypotheses.",
        f"500 seeded random instances (|H| <= 59, m <= 79, eps in {{0.05, 0.3, 1, 3}}, 4 gaps each), exact output "
        f"distribution: the bound always holds; the largest ratio probability/bound (where the bound is < 1) is "
        f"{fmt(worst)}.",
        *lines,
    ])
    return Check(id=f"{ID}.utility",
                 claim="BNS15 Prop A.1 (ii): P[error_S(h) > e_min + Delta] <= |H| exp(-eps Delta m/2).",
                 method="symbolic+exact", details=details, links=links)

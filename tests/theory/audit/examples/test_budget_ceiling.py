"""benchmarks/audit_ceiling.py: the best one-event bound at a budget, from the cases' exact laws."""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from semiprivate.theory.audit.conditional import TRUNCATION_SHARE, poisson_mean
from semiprivate.theory.audit.stats import beta_lower, beta_upper, epsilon_bound

_BENCH = Path(__file__).resolve().parents[4] / "benchmarks"


def _load(name: str):  # noqa: ANN202
    if name in sys.modules:  # one copy per process (audit_power's classes are shared with other tests)
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


_load("audit_power")
ac = _load("audit_ceiling")


def test_frontier_bound_is_the_best_event_of_all() -> None:
    """Over every one of the 2^7 events of a 7-cell law the best bound is a likelihood-ratio prefix."""
    g = np.random.default_rng(0)
    p, q = g.dirichlet(np.ones(7)), g.dirichlet(np.ones(7))
    n, a = 50_000, 0.05
    brute = -math.inf
    for mask in itertools.product((0, 1), repeat=7):
        m = np.array(mask, dtype=bool)
        if m.any():
            P, Q = min(p[m].sum(), 1.0), min(q[m].sum(), 1.0)
            brute = max(brute, float(epsilon_bound(beta_lower(P * n, n, a), beta_upper(Q * n, n, a), 0.0)))
    assert ac.frontier_bound(p, q, n, a)[0] == brute


def test_laplace_loss_law_has_the_exact_privacy_loss() -> None:
    """20 coordinates of Lap(200) shifted by 1: both laws sum to 1, the extreme cells' ratio is
    e^{0.1} (the true epsilon; a sign or scale error in the per-coordinate law breaks it), and at
    10^14 samples a side the ceiling is within 1e-3 of it.

    The ceiling is read on the law's 16,001 loss cells merged 16 at a time (1,001 cells, from the top):
    merging adjacent cells of a law ordered by its likelihood ratio keeps that order, so the merged
    law's frontier is a subset of the full law's prefixes and its bound is at most the full one
    (0.0996546346 against 0.0996546367); and every prefix's bound is at most its plug-in log ratio,
    itself at most the top cell's 0.1.  (Beta quantiles at n = 10^14 cost about 1 ms each: the full
    frontier is 32,000 of them.)"""
    pa, pb = ac.laplace_loss_law(np.ones(20), 200.0)
    assert pa.size == pb.size == 16_001
    assert abs(pa.sum() - 1) < 1e-12 and abs(pb.sum() - 1) < 1e-12
    # the end cells hold the atoms (and half a grid step of the continuous part): ratio e^{0.1} to 1e-8
    assert math.isclose(math.log(pa[-1] / pb[-1]), 0.1, rel_tol=1e-8)
    assert math.isclose(math.log(pb[0] / pa[0]), 0.1, rel_tol=1e-8)
    # the loss increases with the cell index: the likelihood ratio's order, so merged runs of cells keep it
    assert np.all(np.diff(np.log(pa) - np.log(pb)) > 0)
    starts = np.arange(0, pa.size, 16)
    ma, mb = np.add.reduceat(pa[::-1], starts), np.add.reduceat(pb[::-1], starts)
    assert 0.099 < ac.frontier_bound(ma, mb, 10**14, 0.05)[0] <= 0.1


def test_ceiling_of_the_laplace_case_at_their_final_estimate() -> None:
    """DP-Sniper's Laplace case (eps 0.1) at 2 x 10^8 samples a side: 0.0998, the published
    StatDP-Fixed bound; at 1/16 of their samples it is 0.0992, below it."""
    case = next(c for c in ac.cases() if c.name == "Laplace")
    assert round(ac.ceiling(case, ac.N_FINAL, 0.05), 4) == 0.0998
    n = int(0.0625 * ac.their_samples(case)) // 2
    assert round(ac.ceiling(case, n, 0.05), 4) == 0.0992


def test_isvt4_law_sums_to_one_and_matches_statdps_algorithm() -> None:
    """The exact law of StatDP's iSVT4 against 2 million outputs of its vectorised port
    (``audit_vs_peers.StatDPSVT``): every cell group within 5 standard errors (false-failure rate
    about 1e-5 over the 13 groups).  A sign or shift error in the law moves at least one group far
    outside: seen with ``v + t`` for ``v - t``, the threshold noise's sign flipped, the value's centre
    at ``-a_k``."""
    avp = _load("audit_vs_peers")
    a = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    edges = np.concatenate([[-1e4], np.arange(-600.0, 600.5, 1.0), [1e4]])
    law = ac.isvt4_law(a, edges)
    assert abs(law.sum() - 1.0) < 1e-6
    out = avp.StatDPSVT("iSVT4")(a, 2_000_000, np.random.default_rng(0))
    n = out.shape[0]
    cells = law[:-1].reshape(10, -1)
    groups = [(out[:, 0] == 10, law[-1])]
    for k in (0, 2, 5, 9):
        for lo, hi in ((-1e4, 0.0), (0.0, 15.0), (15.0, 1e4)):
            j0, j1 = np.searchsorted(edges, lo), np.searchsorted(edges, hi)
            groups.append(((out[:, 0] == k) & (out[:, 1] > lo) & (out[:, 1] <= hi), cells[k, j0:j1].sum()))
    for hit, p in groups:
        se = math.sqrt(p * (1 - p) / n)
        assert abs(np.count_nonzero(hit) / n - p) < 5 * se + 1e-9, (p, np.count_nonzero(hit) / n)



def test_conditional_frontier_is_the_best_event_of_all_and_above_the_rectangle() -> None:
    """The conditional test's frontier (one test at level 2a on Poisson-sized batches) is the best of all
    2^7 events of the same 7-cell law, and above the rectangle's at the same total level."""
    rng = np.random.default_rng(5)
    p, q = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
    n, a = 50_000, 0.05
    lam = poisson_mean(n, a * TRUNCATION_SHARE)
    brute = -math.inf
    for mask in range(1, 2 ** 7):
        cells = [i for i in range(7) if mask >> i & 1]
        kp, kq = p[cells].sum() * lam, q[cells].sum() * lam
        r = float(beta_lower(kp, kp + kq, 2 * a * (1 - TRUNCATION_SHARE)))
        brute = max(brute, math.log(r) - math.log1p(-r))
    cond = ac.frontier_bound(p, q, n, a, "poisson-conditional")[0]
    assert cond == pytest.approx(brute, rel=1e-12)
    assert cond > ac.frontier_bound(p, q, n, a)[0]

"""Benchmark: audit power on the DP-Sniper / StatDP mechanism sets (issue #20).

The mechanisms are written here from their published descriptions, vectorised in the
``mechanism(data, size, rng)`` form of :mod:`theory.audit`:

* StatDP (Ding, Wang, Wang, Zhang, Kifer, CCS 2018): noisy max variants, histograms, the sparse
  vector technique (SVT) family, and its seven input-pair families ("one above", "one below",
  "one above rest below", "one below rest above", "half half", "all above / all below",
  "X shape"), for queries of sensitivity 1 each.
* The SVT variants are those of Lyu, Su, Li (PVLDB 2017), Fig. 1, with sensitivity 1:
  Alg1 (correct), Alg2 (Dwork-Roth, correct), Alg3 (outputs the noisy query value: not private),
  Alg4 (Lee-Clifton: ``(1 + 6c)/4 * eps``-DP, not eps-DP), Alg5 (no query noise: not private),
  Alg6 (no cutoff: not eps-DP); NumericalSVT (outputs a fresh noisy value when above).
* DP-Sniper (Bichsel, Steffen, Bogunovic, Vechev, S&P 2021) added PrefixSum (prefix sums of a
  noisy histogram), parallel Laplace (the same query answered 20 times) and ReportNoisyMax
  returning the noisy maximum instead of its index.

Histogram-like mechanisms (NoisyHist, PrefixSum) are audited on the pairs whose l1 distance is 1
("one above", "one below"), the others on all StatDP pairs.  The "true eps" column is the exact
value over these pairs where it follows from a short argument (stated per mechanism), an upper
bound ("<= eps" for correct mechanisms) or "inf".  Published lower bounds of DP-Sniper / StatDP
are NOT listed: the papers' tables were not available to check the numbers, so the column is
left out rather than filled from memory.

Usage: ``python benchmarks/audit_power.py [--quick] [--trials N] [--eps E]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernels._backend import cpu_model  # noqa: E402
from theory.audit import audit_pairs  # noqa: E402

BOTTOM = -1.0e6  # "below threshold" marker in numeric SVT outputs
HALTED = -2.0e6  # the mechanism stopped before this query


def statdp_pairs(m: int = 5) -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    """StatDP's input-pair families for ``m`` queries of sensitivity 1 (X shape uses 2m)."""
    one = np.ones(m)

    def v(*xs: Any) -> np.ndarray:
        return np.asarray(xs, dtype=np.float64)

    half = m // 2
    return {
        "one above": [(one, v(2, *([1] * (m - 1))))],
        "one below": [(one, v(0, *([1] * (m - 1))))],
        "one above rest below": [(one, v(2, *([0] * (m - 1))))],
        "one below rest above": [(one, v(0, *([2] * (m - 1))))],
        "half half": [(one, v(*([0] * half), *([2] * (m - half))))],
        "all above all below": [(one, one + 1), (one, one - 1)],
        "x shape": [(np.r_[np.ones(m), np.zeros(m)], np.r_[np.zeros(m), np.ones(m)])],
    }


def all_pairs(m: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    return [p for ps in statdp_pairs(m).values() for p in ps]


def hist_pairs(m: int = 5) -> list[tuple[np.ndarray, np.ndarray]]:
    fam = statdp_pairs(m)
    return fam["one above"] + fam["one below"]


def _lap(rng: np.random.Generator, scale: float, shape: tuple[int, ...]) -> np.ndarray:
    return rng.laplace(0.0, scale, size=shape)


# --- noisy histograms, prefix sums, Laplace -------------------------------------------------


def noisy_hist(eps: float) -> Callable[..., np.ndarray]:
    """NoisyHist1: q + Lap(1/eps) per bin (correct; exact eps on l1-distance-1 pairs)."""
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return q + _lap(rng, 1.0 / eps, (size, q.size))
    return mech


def noisy_hist_broken(eps: float) -> Callable[..., np.ndarray]:
    """NoisyHist2: q + Lap(eps) (scale and rate swapped): exact eps is 1/eps on these pairs."""
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return q + _lap(rng, eps, (size, q.size))
    return mech


def prefix_sum(eps: float) -> Callable[..., np.ndarray]:
    """PrefixSum: cumsum(q + Lap(1/eps)); a bijection of NoisyHist1, so exactly eps."""
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.cumsum(q + _lap(rng, 1.0 / eps, (size, q.size)), axis=1)
    return mech


def laplace_parallel(eps: float, copies: int = 20) -> Callable[..., np.ndarray]:
    """Parallel Laplace: ``copies`` independent q + Lap(1/eps) of a scalar; exactly copies*eps."""
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return float(q[0]) + _lap(rng, 1.0 / eps, (size, copies))
    return mech


# --- noisy max ------------------------------------------------------------------------------


def noisy_max(eps: float, noise: str, value: bool) -> Callable[..., np.ndarray]:
    """ReportNoisyMax with Lap(2/eps) or one-sided Exp(2/eps) noise; index (correct) or value.

    Value with Laplace noise: P[max <= t] = prod_i F(t - q_i) with F(u) = exp(u/b)/2 in the lower
    tail (b = 2/eps), so on "all above" (sum of shifts m) the ratio tends to exp(m eps / 2): the true
    eps is at least m*eps/2.  Value with exponential noise: max >= max_i q_i, so on "all above" the
    event {max < 2} has probability 0 on one side: true eps is infinite.
    """
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        shape = (size, q.size)
        z = _lap(rng, 2.0 / eps, shape) if noise == "laplace" else rng.exponential(2.0 / eps, shape)
        y = q + z
        return y.max(axis=1) if value else np.argmax(y, axis=1)
    return mech


# --- sparse vector family (Lyu et al. 2017, Fig. 1; sensitivity 1) ----------------------------


def svt(eps: float, variant: int, c: int = 1, threshold: float = 1.0) -> Callable[..., np.ndarray]:
    """SVT Alg ``variant`` of Lyu et al.; output one code per query (1 above, 0 below, HALTED).

    Alg1: rho ~ Lap(2/eps), nu ~ Lap(4c/eps), stop after c aboves.  Correct.
    Alg2: eps1 = eps2 = eps/2, rho ~ Lap(c/eps1), nu ~ Lap(2c/eps1), rho redrawn after each above.
          Correct.
    Alg3: eps1 = eps2 = eps/2, rho ~ Lap(1/eps1), nu ~ Lap(c/eps2), outputs q + nu when above.
          Not private (inf).
    Alg4: eps1 = eps/4, eps2 = 3eps/4, rho ~ Lap(1/eps1), nu ~ Lap(1/eps2), stop after c.
          ((1 + 6c)/4) eps-DP, not eps-DP.
    Alg5: eps1 = eps/2, rho ~ Lap(1/eps1), no query noise, no cutoff.  Not private (inf).
    Alg6: eps1 = eps2 = eps/2, rho ~ Lap(1/eps1), nu ~ Lap(1/eps2), no cutoff.  Not eps-DP.
    """
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        m = q.size
        e1 = eps / 2
        rho_scale = {1: 2.0 / eps, 2: c / e1, 3: 1.0 / e1, 4: 4.0 / eps, 5: 1.0 / e1, 6: 1.0 / e1}[variant]
        nu_scale = {1: 4.0 * c / eps, 2: 2.0 * c / e1, 3: c / e1, 4: 4.0 / (3 * eps), 5: 0.0, 6: 1.0 / e1}[variant]
        cutoff = variant in (1, 2, 3, 4)
        rho = _lap(rng, rho_scale, (size,))
        out = np.full((size, m), HALTED)
        count = np.zeros(size, dtype=np.int64)
        for i in range(m):
            live = count < c if cutoff else np.ones(size, dtype=bool)
            nu = _lap(rng, nu_scale, (size,)) if nu_scale > 0 else 0.0
            above = q[i] + nu >= threshold + rho
            if variant == 3:
                val = np.where(above, q[i] + nu, BOTTOM)
            else:
                val = above.astype(np.float64)
            out[live, i] = val[live] if np.ndim(val) else val
            count += (above & live)
            if variant == 2:
                redraw = above & live
                rho = np.where(redraw, _lap(rng, rho_scale, (size,)), rho)
        return out
    return mech


def numerical_svt(eps: float, c: int = 1, threshold: float = 1.0) -> Callable[..., np.ndarray]:
    """NumericalSVT (StatDP's): rho ~ Lap(3/eps), nu ~ Lap(6c/eps); above: q + Lap(3c/eps) fresh,
    else 0; stop after c.  Correct."""
    def mech(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho = _lap(rng, 3.0 / eps, (size,))
        out = np.full((size, q.size), HALTED)
        count = np.zeros(size, dtype=np.int64)
        for i in range(q.size):
            live = count < c
            above = q[i] + _lap(rng, 6.0 * c / eps, (size,)) >= threshold + rho
            val = np.where(above, q[i] + _lap(rng, 3.0 * c / eps, (size,)), 0.0)
            out[live, i] = val[live]
            count += above & live
        return out
    return mech


@dataclass
class Case:
    name: str
    mechanism: Callable[..., np.ndarray]
    pairs: list[tuple[np.ndarray, np.ndarray]]
    claim: float
    true: str  # exact value, "<= claim", ">= x", "inf"
    private: bool  # is the claim correct on these pairs?


def cases(eps: float) -> list[Case]:
    m = 5
    ap, hp = all_pairs(m), hist_pairs(m)
    return [
        Case("NoisyHist1", noisy_hist(eps), hp, eps, f"{eps:g}", True),
        Case("NoisyHist2", noisy_hist_broken(eps), hp, eps, f"{1 / eps:g}", False),
        Case("PrefixSum", prefix_sum(eps), hp, eps, f"{eps:g}", True),
        Case("LaplaceParallel (20)", laplace_parallel(eps), [(np.zeros(1), np.ones(1))], 20 * eps,
             f"{20 * eps:g}", True),
        Case("ReportNoisyMax1 (Lap, index)", noisy_max(eps, "laplace", False), ap, eps, f"<= {eps:g}", True),
        Case("ReportNoisyMax2 (Exp, index)", noisy_max(eps, "exp", False), ap, eps, f"<= {eps:g}", True),
        Case("ReportNoisyMax3 (Lap, value)", noisy_max(eps, "laplace", True), ap, eps, f">= {m * eps / 2:g}", False),
        Case("ReportNoisyMax4 (Exp, value)", noisy_max(eps, "exp", True), ap, eps, "inf", False),
        Case("SVT1 (Lyu Alg1)", svt(eps, 1), ap, eps, f"<= {eps:g}", True),
        Case("SVT2 (Lyu Alg2)", svt(eps, 2), ap, eps, f"<= {eps:g}", True),
        Case("SVT3 (Lyu Alg3)", svt(eps, 3), ap, eps, "inf", False),
        Case("SVT4 (Lyu Alg4)", svt(eps, 4), ap, eps, f"<= {1.75 * eps:g} (> {eps:g})", False),
        Case("SVT5 (Lyu Alg5)", svt(eps, 5), ap, eps, "inf", False),
        Case("SVT6 (Lyu Alg6)", svt(eps, 6), ap, eps, f"> {eps:g}", False),
        Case("NumericalSVT", numerical_svt(eps), ap, eps, f"<= {eps:g}", True),
    ]




def run(eps: float, trials: int, seed: int, only: str | None = None,
        audit_kwargs: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    rows = []
    for i, case in enumerate(cases(eps)):
        if only and only.lower() not in case.name.lower():
            continue
        t0 = time.perf_counter()
        res = audit_pairs(case.mechanism, case.pairs, epsilon=case.claim, trials=trials,
                          rng=seed + i, **(audit_kwargs or {}))
        dt = time.perf_counter() - t0
        right = res.violation == (not case.private)
        rows.append(dict(name=case.name, claim=case.claim, true=case.true, lb=res.epsilon_lower_bound,
                         flagged=res.violation, right=right, seconds=dt, samples=res.trials_used,
                         witness=res.witness.describe() if res.witness is not None else ""))
    return rows


# --- baseline: the selection before issue #20 (raw plug-in score, global top-K) ---------------


def _plugin_score(kx: Any, ky: Any, s: int, n: int, a: float, delta: float) -> np.ndarray:
    """Old score: the selection frequencies scaled to ``n`` plugged into the final bound."""
    from theory.audit.stats import cp_lower, cp_upper, epsilon_bound
    kx = np.asarray(kx, dtype=np.float64) * (n / s)
    ky = np.asarray(ky, dtype=np.float64) * (n / s)
    return epsilon_bound(cp_lower(kx, n, a), cp_upper(ky, n, a), delta)


def _global_pick(cands: list[Any], k: int) -> list[Any]:
    """Old pick: best of each diversity group by score, then the rest (no per-pair slot)."""
    cands = sorted(cands, key=lambda c: -c.score)
    chosen: list[Any] = []
    groups: set[Any] = set()
    for c in cands:
        if len(chosen) < k and c.group not in groups:
            groups.add(c.group)
            chosen.append(c)
    for c in cands:
        if len(chosen) < k and all(c is not x for x in chosen):
            chosen.append(c)
    return sorted(chosen, key=lambda c: -c.score)


def run_baseline(eps: float, trials: int, seed: int, only: str | None = None) -> list[dict[str, Any]]:
    """The same cases with the old selection rule patched in (same seeds; learned events stay)."""
    import theory.audit.core as core
    saved = core._anticipated, core._pick, core.selection.planned_tests
    core._anticipated, core._pick = _plugin_score, _global_pick  # type: ignore[assignment]
    core.selection.planned_tests = lambda max_events, n_pairs: max_events  # type: ignore[assignment]
    try:
        return run(eps, trials, seed, only)
    finally:
        core._anticipated, core._pick, core.selection.planned_tests = saved  # type: ignore[assignment]


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    lines = ["| mechanism | true eps | bound before | bound after | right before | right after "
             "| samples before | samples after |",
             "|---|---|---|---|---|---|---|---|"]
    for b, a in zip(before, after):
        lines.append(f"| {a['name']} | {a['true']} | {b['lb']:.3f} | {a['lb']:.3f} | "
                     f"{'yes' if b['right'] else 'NO'} | {'yes' if a['right'] else 'NO'} | {b['samples']:,} | {a['samples']:,} |")
    lines.append(f"\nverdicts right: before {sum(r['right'] for r in before)}/{len(before)}, "
                 f"after {sum(r['right'] for r in after)}/{len(after)}")
    return "\n".join(lines)


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| mechanism | claim | true eps | our lower bound (95%) | flagged | verdict right? | time (s) | samples |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['claim']:g} | {r['true']} | {r['lb']:.3f} | {'yes' if r['flagged'] else 'no'} "
                     f"| {'yes' if r['right'] else '**NO**'} | {r['seconds']:.1f} | {r['samples']:,} |")
    n_right = sum(r["right"] for r in rows)
    lines.append(f"\nverdicts right: {n_right}/{len(rows)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200,000 estimation trials per dataset")
    ap.add_argument("--trials", type=int, default=None, help="estimation trials per dataset (default 1,000,000)")
    ap.add_argument("--eps", type=float, default=0.5, help="claimed epsilon (default 0.5)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="substring of the mechanism names to run")
    ap.add_argument("--compare", action="store_true",
                    help="also run the pre-#20 selection (plug-in score, global top-K) on the same seeds")
    args = ap.parse_args(argv)
    trials = args.trials or (200_000 if args.quick else 1_000_000)
    print(f"CPU: {cpu_model()}; cores: {os.cpu_count()}; load average: {os.getloadavg()}; numpy {np.__version__}")
    print(f"claimed eps {args.eps:g}; estimation trials per dataset {trials:,}; confidence 0.95; seed {args.seed}")
    print("published DP-Sniper / StatDP lower bounds: not listed (not verified against the papers)\n")
    rows = run(args.eps, trials, args.seed, args.only)
    print(table(rows))
    if args.compare:
        print("\nselection before (plug-in score, global top-K) vs after (pessimistic score, per-pair slots):\n")
        print(compare(run_baseline(args.eps, trials, args.seed, args.only), rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""One-run audit of DP-SGD (Steinke, Nasr, Jagielski 2023) on ``semiprivate.theory.dpsgd_one_run``: the tables of
benchmarks/RESULTS.md's one-run section, from one invocation.

1. The shape of the paper's white-box result: bound vs claimed epsilon for several numbers of canaries m (Dirac
   gradient canaries, one weight each, factorized layout; q = 1, one step; noise calibrated to each claim at
   delta = 0.01 / max m; the audit at that delta; one run per cell) and a figure.
2. Broken trainers under the claim eps 2 at delta 1e-5 (the audit at its own delta 0.01 / m, against DP-SGD's
   report there): flag rates and median bounds over ``--seeds`` runs for each m.
3. Input-space canaries (black-box: out-of-distribution points with random labels, score = minus the final
   logistic model's loss): flag rates for the correct, clipping-skipped and noise-halved trainers.
4. Bound per unit of compute against the many-run canary audit (``audit_pairs`` on the worst-case pair), the
   same claim, the same run.

Usage: ``nice -n 10 python benchmarks/bench_one_run.py [--seeds 10] [--out results.md] [--figure fig.png]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from semiprivate.theory.dpsgd_one_run import (
    audit_delta,
    compare_with_many_runs,
    one_run_dpsgd,
    one_run_input_canaries,
    sweep,
)
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier

VARIANTS = ("correct", "noise_halved", "clipping_skipped")


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start"


def _reproduction(epsilons: list[float], ms: list[int], figure: Path | None) -> list[str]:
    t0 = time.perf_counter()
    rows = sweep(epsilons, ms, seed=0)
    dl = rows[0]["delta"]
    out = [f"### Bound vs claim (white-box Dirac canaries, q = 1, one step, delta {dl:g}, confidence 0.95)", "",
           "| claimed eps | noise multiplier | " + " | ".join(f"m = {m:,}" for m in ms) + " |",
           "|---|---|" + "---|" * len(ms)]
    for i in range(len(epsilons)):
        cells = rows[i * len(ms):(i + 1) * len(ms)]  # sweep's order: claims outer, m inner
        out.append(f"| {cells[0]['claim']:.3f} | {cells[0]['sigma']:.3f} | "
                   + " | ".join(f"{r['bound']:.3f} ({r['correct']}/{r['guesses']})" for r in cells) + " |")
    out += ["", f"Cells: bound (right guesses / guesses). Sweep wall time {time.perf_counter() - t0:.0f} s.", ""]
    if figure is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        for m in ms:
            pts = [r for r in rows if r["m"] == m]
            ax.plot([r["claim"] for r in pts], [r["bound"] for r in pts], "o-", label=f"m = {m:,} canaries")
        top = max(r["claim"] for r in rows)
        ax.plot([0, top], [0, top], "k--", label="claimed epsilon")
        ax.set_xlabel(f"claimed epsilon (DP-SGD's report at delta = {dl:g})")
        ax.set_ylabel("one-run epsilon lower bound (confidence 0.95)")
        ax.set_title("DP-SGD audited in one run (white-box canaries)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(figure, dpi=120)
        plt.close(fig)
    return out


def _broken(ms: list[int], seeds: int) -> list[str]:
    sigma = float(calibrate_noise_multiplier(2.0, 1e-5, 1.0, 1, relation="add_or_remove_one"))
    out = [f"### Broken trainers in one run (noise calibrated to eps 2 at delta 1e-5: sigma {sigma:.4f}; "
           f"{seeds} seeds each)", "",
           "| m | audit delta | claim there | trainer | flagged | median bound (min-max) | s per run |",
           "|---|---|---|---|---|---|---|"]
    for m in ms:
        for v in VARIANTS:
            res = [one_run_dpsgd(m, noise_multiplier=sigma, steps=1, variant=v,
                                 canary_norm=20.0 if v == "clipping_skipped" else 2.0, rng=1000 + s) for s in range(seeds)]
            b = [r.epsilon_lower_bound for r in res]
            out.append(f"| {m:,} | {audit_delta(m):g} | {res[0].claimed_epsilon:.3f} | {v} | "
                       f"{sum(r.violation for r in res)}/{seeds} | {statistics.median(b):.3f} ({min(b):.3f}-{max(b):.3f}) | "
                       f"{statistics.median(r.seconds for r in res):.2f} |")
    return out + [""]


def _input_space(ms: list[int], seeds: int) -> list[str]:
    out = ["### Input-space canaries (black-box: final model's logistic loss), claim eps 2 at delta 1e-5", "",
           "| m | features | steps | trainer | flagged | median bound (min-max) | s per run |",
           "|---|---|---|---|---|---|---|"]
    for m in ms:
        for steps in (1, 10):
            sigma = float(calibrate_noise_multiplier(2.0, 1e-5, 1.0, steps, relation="add_or_remove_one"))
            for v in VARIANTS:
                res = [one_run_input_canaries(m, noise_multiplier=sigma, steps=steps, delta=1e-5, canary_norm=20.0,
                                              variant=v, rng=2000 + s) for s in range(seeds)]
                b = [r.epsilon_lower_bound for r in res]
                out.append(f"| {m:,} | {4 * m:,} | {steps} | {v} | {sum(r.violation for r in res)}/{seeds} | "
                           f"{statistics.median(b):.3f} ({min(b):.3f}-{max(b):.3f}) | "
                           f"{statistics.median(r.seconds for r in res):.2f} |")
    return out + ["", "Canary norm 20 C (clipped to C by the correct trainers; the claim is 2.00 in every row).", ""]


def _compute(ms: list[int], trials: int) -> list[str]:
    sigma = float(calibrate_noise_multiplier(2.0, 1e-5, 1.0, 1, relation="add_or_remove_one"))
    out = [f"### Bound per unit of compute (same DP-SGD, sigma {sigma:.4f}; many-run audit {trials:,} trials per "
           "dataset)", "",
           "| audit | delta | claim | training runs | bound | seconds | bound per 1,000 runs | bound per second |",
           "|---|---|---|---|---|---|---|---|"]
    for i, m in enumerate(ms):
        c = compare_with_many_runs(sigma, m=m, trials=trials, delta=1e-5 if m <= 4000 else None, rng=i)
        out.append(f"| one run, {m:,} canaries | {c.delta:g} | {c.claimed_epsilon:.3f} | 1 | {c.one_run_bound:.3f} | "
                   f"{c.one_run_seconds:.2f} | {1000 * c.one_run_bound:.0f} | {c.one_run_bound / c.one_run_seconds:.3f} |")
        out.append(f"| many runs, worst-case pair | {c.delta:g} | {c.claimed_epsilon:.3f} | {c.many_run_runs:,} | "
                   f"{c.many_run_bound:.3f} | {c.many_run_seconds:.2f} | {1000 * c.many_run_bound / c.many_run_runs:.5f} | "
                   f"{c.many_run_bound / c.many_run_seconds:.3f} |")
    return out + [""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, default=200_000)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--figure", type=Path)
    a = ap.parse_args()
    t0 = time.perf_counter()
    lines = [f"Machine: {_machine()}.", ""]
    lines += _reproduction([1.0, 2.0, 4.0, 8.0], [1000, 10_000, 100_000, 1_000_000], a.figure)
    lines += _broken([4000, 100_000, 1_000_000], a.seeds)
    lines += _input_space([1000, 2000], max(1, a.seeds // 2))
    lines += _compute([4000, 100_000, 1_000_000], a.trials)
    lines.append(f"Total wall time {time.perf_counter() - t0:.0f} s; load average at end {os.getloadavg()[0]:.1f}.")
    text = "\n".join(lines) + "\n"
    if a.out is not None:
        a.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

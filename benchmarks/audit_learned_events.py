"""Learned randomised events against the default candidate families, on benchmark mechanisms with repeated
output values (``AuditOptions(learned=True)``; :class:`semiprivate.theory.audit.events.RandomizedEvent`).

For each case of :mod:`audit_power` named on the command line, the two-stage conditional audit of the
benchmark (``estimate_on="best"``, ``interval="poisson-conditional"``, confidence 0.9) runs with and without
the learned family on the same seeds and budget; the table gives both lower bounds per seed, the median
difference, and which family the witness came from.

Usage: ``python benchmarks/audit_learned_events.py [--trials N] [--seeds S ...] [--only A,B,C]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from audit_power import CONFIDENCE, cases  # noqa: E402
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.theory.audit import AuditOptions, audit_pairs  # noqa: E402

DEFAULT_ONLY = "TruncatedGeometric,ReportNoisyMax1,OneTimeRappor"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=100_000, help="estimation trials per dataset (default 100,000)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--only", default=DEFAULT_ONLY, help=f"comma-separated case names (default {DEFAULT_ONLY})")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    chosen = [c for c in cases() if c.name in names]
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; trials {args.trials:,}, "
          f"confidence {CONFIDENCE}, seeds {args.seeds}")
    print("| case | claim | seed | default families | with learned | witness (learned run) | seconds (both) |")
    print("|---|---|---|---|---|---|---|")
    for case in chosen:
        diffs = []
        for seed in args.seeds:
            base = AuditOptions(estimate_on="best", interval="poisson-conditional", **case.audit_kwargs)
            t0 = time.perf_counter()
            off = audit_pairs(case.mechanism, case.pairs, epsilon=case.claim, trials=args.trials, confidence=CONFIDENCE,
                              rng=seed, options=base)
            on = audit_pairs(case.mechanism, case.pairs, epsilon=case.claim, trials=args.trials, confidence=CONFIDENCE,
                             rng=seed, options=replace(base, learned=True))
            dt = time.perf_counter() - t0
            diffs.append(on.epsilon_lower_bound - off.epsilon_lower_bound)
            w = on.witness.event.description if on.witness is not None else ""
            print(f"| {case.name} | {case.claim:.4g} | {seed} | {off.epsilon_lower_bound:.4f} | "
                  f"{on.epsilon_lower_bound:.4f} | {w[:60]} | {dt:.1f} |", flush=True)
        print(f"| {case.name} | | median difference | | {statistics.median(diffs):+.4f} | | |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

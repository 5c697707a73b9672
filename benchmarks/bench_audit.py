"""Benchmark: throughput of semiprivate.theory.audit.audit_mechanism on cheap vectorised mechanisms.

Claim checked: >= 1e7 trials/s (mechanism outputs drawn and counted per second, selection +
estimation, all datasets) for cheap vectorised mechanisms on this machine.

Baselines measured in the same run:

* ``sampling only``: the mechanism alone drawing the same number of outputs in one call (the
  floor: an audit cannot be faster than producing its samples);
* ``per-trial loop``: the same audit on the same mechanism written one output at a time and
  wrapped with :func:`semiprivate.theory.audit.vectorize` (what a non-vectorised audit costs), measured on
  fewer trials and reported as a rate.

Usage: ``python benchmarks/bench_audit.py [--trials N] [--repeats R]``.  Prints medians over
repeats and the load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from semiprivate.theory.audit import AuditOptions, audit_mechanism, vectorize  # noqa: E402
from semiprivate.theory.privacy.mechanisms import GeometricMechanism, LaplaceMechanism, RandomizedResponse  # noqa: E402


def _rate(fn, count: int, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        used = fn()
        times.append(time.perf_counter() - t0)
        count = used if used else count
    return count / statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10_000_000, help="estimation trials per dataset")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    n = args.trials
    cases = [
        ("Laplace (scalar)", LaplaceMechanism(1.0), 0.0, 1.0, lambda d, g: d + g.laplace()),
        ("Randomized response", RandomizedResponse(1.0), 0, 1,
         lambda d, g: d if g.random() < np.e / (1 + np.e) else 1 - d),
        ("Geometric", GeometricMechanism(1.0), 0, 1, lambda d, g: d + int(g.geometric(0.632) - g.geometric(0.632))),
    ]
    print(f"load average before: {os.getloadavg()}; cores: {os.cpu_count()}; trials per dataset {n:,}; "
          f"repeats {args.repeats} (medians)")
    print("| mechanism | audit trials/s | sampling only, outputs/s | audit / sampling | per-trial loop trials/s "
          "| audit / loop | >= 1e7? |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    for name, mech, d0, d1, one in cases:
        seeds = iter(range(10_000))

        def run_audit(mech=mech, d0=d0, d1=d1, seeds=seeds) -> int:  # type: ignore[no-untyped-def]
            return audit_mechanism(mech, d0, d1, epsilon=1.0, trials=n, rng=next(seeds)).trials_used

        audit_rate = _rate(run_audit, 0, args.repeats)
        g = np.random.default_rng(0)
        total = n + min(max(10_000, n // 4), 500_000)

        def sample_only(mech=mech, d0=d0, total=total, g=g) -> int:  # type: ignore[no-untyped-def]
            mech(d0, total, g)
            return total

        sample_rate = _rate(sample_only, total, args.repeats)
        slow = vectorize(one)
        n_slow = 20_000

        def run_slow(slow=slow, d0=d0, d1=d1, n_slow=n_slow) -> int:  # type: ignore[no-untyped-def]
            return audit_mechanism(slow, d0, d1, epsilon=1.0, trials=n_slow, options=AuditOptions(selection_trials=10_000), rng=1).trials_used

        loop_rate = _rate(run_slow, 0, 1)
        passed = audit_rate >= 1e7
        ok &= passed
        print(f"| {name} | {audit_rate:.3g} | {sample_rate:.3g} | {audit_rate / sample_rate:.2f} | {loop_rate:.3g} | "
              f"{audit_rate / loop_rate:.0f}x | {'yes' if passed else 'NO'} |", flush=True)
    print(f"load average after: {os.getloadavg()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

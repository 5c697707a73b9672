"""``python -m theory audit``: run the built-in audit suite and print a table.

Every mechanism of the toolkit is audited with its claimed (epsilon, delta) (expected: no
violation), and the deliberately broken mechanisms of :mod:`theory.audit.broken` are audited
too (expected: violation), unless ``--no-broken``.  Exit status 0 when every verdict is the
expected one, 1 otherwise.  Each audit's bound is valid at ``--confidence`` (default 0.999,
so with ~16 correct mechanisms a false alarm somewhere has probability <= 1.6%).

Implements: AUDIT (command line).
"""

from __future__ import annotations

import argparse
import time

from theory.audit.suite import builtin_cases, format_table, run_suite

SUMMARY = "audit the toolkit's mechanisms for differential privacy, empirically"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="semiprivate audit", description=SUMMARY + ".")
    p.add_argument("--trials", type=int, default=None,
                   help="estimation trials per dataset (default 1,000,000; 100,000 with --quick); "
                        "slow non-vectorised mechanisms use a documented fraction")
    p.add_argument("--seed", type=int, default=20261121, help="base seed (default 20261121)")
    p.add_argument("--quick", action="store_true", help="fewer trials (about 10x faster)")
    p.add_argument("--confidence", type=float, default=0.999, help="confidence of each bound (default 0.999)")
    p.add_argument("--no-broken", action="store_true", help="skip the deliberately broken mechanisms")
    p.add_argument("--only", default=None, help="run only cases whose name contains this text")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if not 0 < args.confidence < 1:
        print(f"--confidence must be in (0, 1), got {args.confidence}")
        return 2
    trials = args.trials if args.trials is not None else (100_000 if args.quick else 1_000_000)
    if trials < 1:
        print(f"--trials must be >= 1, got {trials}")
        return 2
    cases = builtin_cases(include_broken=not args.no_broken)
    if args.only:
        cases = [c for c in cases if args.only.lower() in c.name.lower()]
    if args.list:
        for c in cases:
            print(f"{c.name}: claims ({c.epsilon:g}, {c.delta:g}); {c.claim}; expected "
                  f"{'private' if c.private else 'VIOLATION'}")
        return 0
    if not cases:
        print("no case matches")
        return 2
    t0 = time.perf_counter()
    echo = None if args.markdown else print
    rows = run_suite(cases, trials=trials, confidence=args.confidence, rng=args.seed, echo=echo)
    if args.markdown:
        print(format_table(rows, markdown=True))
    bad = [r for r in rows if not r.as_expected]
    print(f"\n{len(rows)} audits in {time.perf_counter() - t0:.1f} s (confidence {args.confidence:g} each, "
          f"seed {args.seed}): {len(rows) - len(bad)} as expected, {len(bad)} unexpected.")
    return 0 if not bad else 1

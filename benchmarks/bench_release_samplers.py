"""Speed of the exact release samplers against the float ones they replace, same run, same machine.

Rows: discrete Laplace (kernels.noise, exact) vs NumPy's float ``Generator.laplace``; discrete Gaussian vs
``Generator.normal``; the exact exponential mechanism (``exact=True``) vs the float one (NumPy reference
and compiled), on integer error counts.  Medians of ``--reps`` repetitions and the ratio exact / float.

    python benchmarks/bench_release_samplers.py [--reps 7]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from semiprivate.kernels import exponential_mechanism
from semiprivate.kernels.noise import discrete_gaussian, discrete_laplace


def _median(fn: Callable[[], object], reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _cpu() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        name = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Model name")), "")
        cpus = next((ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("CPU(s)")), "")
        return f"{name}, {cpus} CPUs"
    except OSError:
        return platform.processor()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    g = np.random.default_rng(0)
    rows = []
    n = 65_536
    scale = Fraction(2) / Fraction(0.3)
    rows.append((f"discrete_laplace(2/0.3), n={n}", _median(lambda: discrete_laplace(scale, n, rng=g), args.reps),
                 "Generator.laplace", _median(lambda: g.laplace(0.0, float(scale), n), args.reps)))
    m = 4096
    rows.append((f"discrete_gaussian(sigma2=16), n={m}", _median(lambda: discrete_gaussian(16, m, rng=g), args.reps),
                 "Generator.normal", _median(lambda: g.normal(0.0, 4.0, m), args.reps)))
    for N in (1_000, 100_000):
        err = -g.integers(0, 500, N)
        rows.append((f"exponential mechanism exact=True, N={N}",
                     _median(lambda err=err: exponential_mechanism(err, 1.0, rng=g, exact=True), args.reps),
                     "float (numpy reference)",
                     _median(lambda err=err: exponential_mechanism(err, 1.0, rng=g, backend="numpy"), args.reps)))
        rows.append((f"exponential mechanism exact=True, N={N}",
                     _median(lambda err=err: exponential_mechanism(err, 1.0, rng=g, exact=True), args.reps),
                     "float (compiled, auto)",
                     _median(lambda err=err: exponential_mechanism(err, 1.0, rng=g), args.reps)))
    print(f"machine: {_cpu()} (shared, loaded); medians of {args.reps}")
    print("| exact sampler | median s | float baseline | median s | exact / float |")
    print("|---|---|---|---|---|")
    for name, te, base, tf in rows:
        print(f"| {name} | {te:.4g} | {base} | {tf:.4g} | {te / tf:.3g} |")


if __name__ == "__main__":
    main()

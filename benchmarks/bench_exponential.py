"""Throughput of the exponential-mechanism samplers against named NumPy baselines, same run.

Usage::

    python benchmarks/bench_exponential.py [--quick] [--out table.md] [--sizes 1e3,1e5,1e7,1e8]

For N in {1e3, 1e5, 1e7, 1e8}, float64 scores and integer error counts (int64), 1 and 100
draws, it times (median of repeats, wall clock):

* ``cython``  -- ``kernels.exponential_mechanism(..., backend="cython")`` (this package),
* ``numpy``   -- ``backend="numpy"`` (this package's reference: softmax + inverse CDF),
* (a) ``softmax+choice`` -- stable softmax ``p = exp(z - max z) / sum`` then
  ``Generator.choice(N, size, p=p)``,
* (b) ``gumbel-max`` -- ``argmax(scores * eps / 2 + rng.gumbel(size=N))`` once per draw
  (for 100 draws at N >= 1e7 it is timed for 1 draw and multiplied by 100, marked ``x100``:
  its cost is exactly linear in the number of draws),
* OpenDP / diffprivlib when installed (not installed here: reported as absent).

Throughput is ``N / time`` (scores per second, per call).  Ratios are baseline time / method
time from the same run.  The machine is shared: quote medians and ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kernels  # noqa: E402
from kernels._exponential import cython_threads  # noqa: E402

EPS = 1.0


def _time(fn: Callable[[], object], min_total: float, max_reps: int) -> float:
    """Median wall time of ``fn`` over at least 3 runs (or until ``min_total`` seconds)."""
    fn()  # warm-up (page faults, lazy imports)
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < min_total and len(times) < max_reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= max_reps:
            break
    return statistics.median(times)


def softmax_choice(scores: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    z = scores * (EPS / 2.0)
    z = z - z.max()
    p = np.exp(z)
    p /= p.sum()
    return rng.choice(scores.shape[0], size=k, p=p)


def gumbel_max(scores: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    z = scores * (EPS / 2.0)
    return np.array([int(np.argmax(z + rng.gumbel(size=scores.shape[0]))) for _ in range(k)])


def _bench_case(scores: np.ndarray, k: int, n: int, backends: list[str]) -> tuple[dict[str, tuple[float, str]], int]:
    """Median times of every method for one (scores, draws) case; the cython thread count."""
    g = np.random.default_rng(1)
    big = n >= 10**7
    min_total = 0.0 if big else 0.5
    reps = 5 if n < 10**8 else 3
    base_reps = 50 if not big else (reps if n < 10**8 else 1)
    res: dict[str, tuple[float, str]] = {}
    threads = 1
    if "cython" in backends:
        res["cython"] = (_time(lambda: kernels.exponential_mechanism(scores, EPS, size=k, rng=g, backend="cython"),
                               min_total, 200 if not big else reps), "")
        threads = cython_threads()
    res["numpy (reference)"] = (_time(lambda: kernels.exponential_mechanism(scores, EPS, size=k, rng=g,
                                                                            backend="numpy"), min_total, base_reps), "")
    res["(a) softmax+choice"] = (_time(lambda: softmax_choice(scores, k, g), min_total, base_reps), "")
    if k > 1 and big:
        res["(b) gumbel-max"] = (_time(lambda: gumbel_max(scores, 1, g), 0.0, base_reps) * k, " (x100)")
    else:
        res["(b) gumbel-max"] = (_time(lambda: gumbel_max(scores, k, g), min_total, base_reps), "")
    return res, threads


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N up to 1e7 only")
    ap.add_argument("--sizes", default=None, help="comma-separated N values (default 1e3,1e5,1e7,1e8)")
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    args = ap.parse_args(argv)
    sizes = [int(float(x)) for x in (args.sizes or ("1e3,1e5,1e7" if args.quick else "1e3,1e5,1e7,1e8")).split(",")]
    backends = kernels.available_backends()
    extra = []
    for mod in ("opendp", "diffprivlib"):
        try:
            __import__(mod)
            extra.append(mod)
        except ImportError:
            pass
    rows = []
    header = (
        "| N | scores | draws | method | median time | scores/s | vs (a) softmax+choice | vs (b) gumbel-max |\n"
        "|---:|---|---:|---|---:|---:|---:|---:|"
    )
    print(header, flush=True)
    rng_data = np.random.default_rng(0)
    for n in sizes:
        data = {
            "float64": rng_data.standard_normal(n) * 3.0,
            "int counts": -rng_data.binomial(1000, 0.3, size=n).astype(np.int64),
        }
        for kind, scores in data.items():
            for k in (1, 100):
                res, threads = _bench_case(scores, k, n, backends)
                ta = res["(a) softmax+choice"][0]
                tb = res["(b) gumbel-max"][0]
                for method, (t, note) in res.items():
                    label = method + (f" [{threads} thr]" if method == "cython" else "")
                    row = (f"| {n:.0e} | {kind} | {k} | {label} | {t * 1e3:.3f} ms{note} | {n / t:.3g} | "
                           f"{ta / t:.2f}x | {tb / t:.2f}x |")
                    rows.append(row)
                    print(row, flush=True)
            del scores
        del data
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    footer = [
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} logical CPUs, "
        f"{_cpu_model()}; load average at end {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f} (shared machine).",
        f"Backends: {', '.join(backends)}; OpenMP threads (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}): "
        f"{kernels.build_info()['threads']}; epsilon={EPS}; float64 scores ~ 3 N(0,1); int counts = -Binomial(1000, 0.3).",
        "Optional baselines: " + (", ".join(extra) if extra else "OpenDP and diffprivlib not installed (not timed)."),
    ]
    for line in footer:
        print(line)
    if args.out:
        Path(args.out).write_text("\n".join([header, *rows, *footer]) + "\n")
    return 0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    raise SystemExit(main())

"""Throughput of the exponential-mechanism samplers against named NumPy baselines, same run.

Usage::

    python benchmarks/bench_exponential.py [--quick] [--out table.md] [--sizes 1e3,1e5,1e7,1e8]

For N in {1e3, 1e5, 1e7, 1e8}, float64 scores and integer error counts (int64), 1 and 100
draws, it times (median of repeats, wall clock):

* ``cython``  -- ``semiprivate.kernels.exponential_mechanism(..., backend="cython")`` (this package),
* ``numpy``   -- ``backend="numpy"`` (this package's reference: softmax + inverse CDF),
* (a) ``softmax+choice`` -- stable softmax ``p = exp(z - max z) / sum`` then
  ``Generator.choice(N, size, p=p)``,
* (b) ``gumbel-max`` -- ``argmax(scores * eps / 2 + rng.gumbel(size=N))`` once per draw
  (for 100 draws at N >= 1e7 it is timed for 1 draw and multiplied by 100, marked ``x100``:
  its cost is exactly linear in the number of draws),
* ``cython [1 thr]`` -- the same call with OpenMP limited to one thread (threadpoolctl),
* ``--under-load B``: ``n_threads`` 1 vs 2 vs the default (:func:`semiprivate.kernels._exponential.default_threads`)
  of the compiled sampler for N = 1e7 (one draw) while ``B`` busy-loop processes load the machine,
* ``floor: np.sum`` -- ``np.sum`` over the same array: one read of memory, the bandwidth floor
  any one-pass sampler is measured against (column "floor/t": 1.0 means at the floor),
* OpenDP's ``make_noisy_max`` (Gumbel report-noisy-max with scale 2/epsilon: the exponential
  mechanism's distribution; its API takes a Python list, the conversion is included) and
  diffprivlib's ``Exponential`` for one draw when importable (reported as absent otherwise).

The header names the CPU model and the SIMD clone the float loops run on
(``semiprivate.kernels.build_info()["simd"]``): a figure holds for that CPU only.

Throughput is ``N / time`` (scores per second, per call).  Ratios are baseline time / method
time from the same run.  The machine is shared: quote medians and ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from semiprivate import kernels  # noqa: E402
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.kernels._exponential import cython_threads  # noqa: E402
from semiprivate.kernels._timing import (
    time_call,  # noqa: E402
    time_interleaved,  # noqa: E402
)

EPS = 1.0


def _time(fn: Callable[[], object], min_total: float, max_reps: int) -> float:
    """Median wall time of ``fn`` over at least 3 runs (more until ``min_total`` seconds), after a warm-up."""
    return time_call(fn, 3, warmup=1, min_seconds=min_total, max_repeats=max_reps).median


def softmax_choice(scores: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    z = scores * (EPS / 2.0)
    z = z - z.max()
    p = np.exp(z)
    p /= p.sum()
    return rng.choice(scores.shape[0], size=k, p=p)


def gumbel_max(scores: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    z = scores * (EPS / 2.0)
    return np.array([int(np.argmax(z + rng.gumbel(size=scores.shape[0]))) for _ in range(k)])


def _optional_baselines() -> dict[str, Callable[[np.ndarray], object] | str]:
    """name -> one-draw sampler, or the reason it is absent."""
    out: dict[str, Callable[[np.ndarray], object] | str] = {}
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
        meas = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=2.0 / EPS)
        out[f"OpenDP {dp.__version__ if hasattr(dp, '__version__') else ''} noisy_max".replace("  ", " ")] = (
            lambda s: meas(s.tolist()))
    except Exception as exc:  # absent or incompatible: say why
        out["OpenDP"] = f"not importable ({type(exc).__name__}: {str(exc)[:80]})"
    try:
        from diffprivlib.mechanisms import Exponential

        out["diffprivlib Exponential"] = (
            lambda s: Exponential(epsilon=EPS, sensitivity=1.0, utility=s.tolist()).randomise())
    except Exception as exc:
        out["diffprivlib"] = f"not importable ({type(exc).__name__}: {str(exc)[:80]})"
    return out


def _bench_case(scores: np.ndarray, k: int, n: int, backends: list[str],
                optional: dict[str, Callable[[np.ndarray], object] | str] | None = None,
                ) -> tuple[dict[str, tuple[float, str]], int]:
    """Median times of every method for one (scores, draws) case; the cython thread count."""
    from threadpoolctl import threadpool_limits

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
        if threads > 1:
            with threadpool_limits(1, user_api="openmp"):
                res["cython [1 thr]"] = (_time(
                    lambda: kernels.exponential_mechanism(scores, EPS, size=k, rng=g, backend="cython"),
                    min_total, 200 if not big else reps), "")
        res["floor: np.sum"] = (_time(lambda: np.sum(scores), min_total, 200 if not big else reps), "")
    for name, fn in (optional or {}).items():
        if callable(fn) and k == 1 and n <= 10**7:
            res[name] = (_time(lambda fn=fn: fn(scores), 0.0, 3 if n >= 10**6 else 10), "")
    res["numpy (reference)"] = (_time(lambda: kernels.exponential_mechanism(scores, EPS, size=k, rng=g,
                                                                            backend="numpy"), min_total, base_reps), "")
    res["(a) softmax+choice"] = (_time(lambda: softmax_choice(scores, k, g), min_total, base_reps), "")
    if k > 1 and big:
        res["(b) gumbel-max"] = (_time(lambda: gumbel_max(scores, 1, g), 0.0, base_reps) * k, " (x100)")
    else:
        res["(b) gumbel-max"] = (_time(lambda: gumbel_max(scores, k, g), min_total, base_reps), "")
    return res, threads


def threads_under_load(busy: int, n: int = 10**7) -> list[str]:
    """Rows: the compiled sampler's ``n_threads`` 1, 2 and default, N = ``n`` float64 scores, one draw, while
    ``busy`` busy-loop processes (started and stopped here) compete for the cores."""

    from semiprivate.kernels._exponential import default_threads

    scores = np.random.default_rng(0).standard_normal(n) * 3.0
    g = np.random.default_rng(1)
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        time.sleep(2.0 if busy else 0.0)  # let the load average see them
        out = ["| N | busy processes | n_threads | median time | vs n_threads=1 |", "|---:|---:|---|---:|---:|"]
        times = {}
        for label, nt in (("1", 1), ("2", 2), (f"default ({default_threads()})", None)):
            times[label] = _time(lambda nt=nt: kernels.exponential_mechanism(scores, EPS, rng=g, backend="cython",
                                                                              n_threads=nt), 1.0, 15)
        for label, t in times.items():
            out.append(f"| {n:.0e} | {busy} | {label} | {t * 1e3:.2f} ms | {times['1'] / t:.2f}x |")
    finally:
        for p in procs:
            p.terminate()
            p.wait()
    load = os.getloadavg()
    out += ["", f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs); load average {load[0]:.2f} (busy loops included)."]
    for line in out:
        print(line, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N up to 1e7 only")
    ap.add_argument("--sizes", default=None, help="comma-separated N values (default 1e3,1e5,1e7,1e8)")
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    ap.add_argument("--check", action="store_true",
                    help=f"speed guard only: exit 1 when the float64 path is over {FLOAT_PATH_TOLERANCE:g}x the int64 path")
    ap.add_argument("--under-load", type=int, default=None, metavar="B",
                    help="only the n_threads rows: 1 vs 2 vs default with B busy processes running")
    args = ap.parse_args(argv)
    if args.check:
        return check_float_path()
    if args.under_load is not None:
        rows = threads_under_load(int(args.under_load))
        if args.out:
            Path(args.out).write_text("\n".join(rows) + "\n")
        return 0
    sizes = [int(float(x)) for x in (args.sizes or ("1e3,1e5,1e7" if args.quick else "1e3,1e5,1e7,1e8")).split(",")]
    backends = kernels.available_backends()
    optional = _optional_baselines()
    extra = [f"{name}: {'timed (1 draw, N <= 1e7)' if callable(fn) else fn}" for name, fn in optional.items()]
    info = kernels.build_info()
    machine = (f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs); "
               f"SIMD path of the float sampler: {info['simd']}; OpenMP threads: {info['threads']}")
    print(machine, flush=True)
    rows = []
    header = (
        "| N | scores | draws | method | median time | scores/s | vs (a) softmax+choice | vs (b) gumbel-max | floor/t |\n"
        "|---:|---|---:|---|---:|---:|---:|---:|---:|"
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
                res, threads = _bench_case(scores, k, n, backends, optional if kind == "float64" else None)
                ta = res["(a) softmax+choice"][0]
                tb = res["(b) gumbel-max"][0]
                tf = res.get("floor: np.sum", (float("nan"), ""))[0]
                for method, (t, note) in res.items():
                    label = method + (f" [{threads} thr]" if method == "cython" else "")
                    floor = f"{tf / t:.2f}" if method.startswith("cython") else ""
                    row = (f"| {n:.0e} | {kind} | {k} | {label} | {t * 1e3:.3f} ms{note} | {n / t:.3g} | "
                           f"{ta / t:.2f}x | {tb / t:.2f}x | {floor} |")
                    rows.append(row)
                    print(row, flush=True)
            del scores
        del data
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    footer = [
        "",
        machine + f"; load average at end {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f} (shared machine).",
        f"Backends: {', '.join(backends)}; OpenMP threads (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}): "
        f"{kernels.build_info()['threads']}; epsilon={EPS}; float64 scores ~ 3 N(0,1); int counts = -Binomial(1000, 0.3).",
        "Optional baselines: " + "; ".join(extra) + ".",
    ]
    for line in footer:
        print(line)
    if args.out:
        Path(args.out).write_text("\n".join([header, *rows, *footer]) + "\n")
    return 0



# Speed guard of the float64 sampling loop (``--check``): the float64 path may take at most this many
# times the int64 (table-lookup) path on the same N, one draw, best of interleaved rounds in one
# run.  On an AMD EPYC (AVX2+FMA, 2 busy threads) the vectorised loop took 2.2x and a build lacking
# -fno-trapping-math (scalar loop) 5.9x; a quiet run of the vectorised loop 1.2x.
FLOAT_PATH_TOLERANCE = 4.0
CHECK_N = 4_000_000
CHECK_ROUNDS = 7


def check_float_path() -> int:
    """Exit status 0 when the float64 path is within ``FLOAT_PATH_TOLERANCE`` of the int64 path
    (same-run ratio of the best of ``CHECK_ROUNDS`` interleaved rounds), 1 otherwise; 0 with a
    note when the compiled backend is not built (nothing to guard)."""
    if "cython" not in kernels.available_backends():
        print("bench_exponential --check: compiled backend not built, nothing to check")
        return 0
    g = np.random.default_rng(0)
    xf = g.standard_normal(CHECK_N)
    xi = -g.binomial(1000, 0.3, CHECK_N).astype(np.int64)
    t = time_interleaved({
        "float64": lambda: kernels.exponential_mechanism(xf, EPS, rng=0, backend="cython"),
        "int64": lambda: kernels.exponential_mechanism(xi, EPS, rng=0, backend="cython"),
    }, CHECK_ROUNDS, warmup=1)
    ratio = t["float64"].best / t["int64"].best
    ok = ratio <= FLOAT_PATH_TOLERANCE
    print(f"bench_exponential --check: float64/int64 time {ratio:.2f}x at N={CHECK_N:.0e} (tolerance "
          f"{FLOAT_PATH_TOLERANCE:g}x; SIMD path {kernels.build_info()['simd']}): {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

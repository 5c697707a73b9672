"""Per-sample time of the exact discrete noise samplers against NumPy's float samplers and OpenDP, same run.

Usage::

    python benchmarks/bench_noise.py [--quick] [--out table.md] [--n 1e6] [--opendp-python PATH]

For each parameter it times (median of interleaved repeats, one call of ``n`` samples, one core: the
samplers are sequential) and reports nanoseconds per sample and the ratio to NumPy's float sampler:

* ``ours compiled`` -- :func:`semiprivate.kernels.noise.discrete_laplace` / ``discrete_gaussian`` with
  ``backend="cython"`` (exact),
* ``ours reference`` -- the same with ``backend="numpy"`` (exact, the specification; same outputs),
* ``numpy float`` -- ``Generator.laplace(0, scale, n)`` / ``Generator.normal(0, sqrt(sigma2), n)``
  (float, not exact: the baseline of the issue's "within 2x"),
* ``repo float Lap`` -- the auditor's example mechanisms' float Laplace
  (:func:`semiprivate.theory.audit.examples.laplace_noise`: exponential times a sign, ~0.6x ``laplace``),
* ``OpenDP`` -- ``opendp.measurements.make_laplace`` / ``make_gaussian`` on an integer vector of zeros
  (OpenDP's exact discrete samplers; its API takes a Python list, the conversion is included), run in
  the Python given by ``--opendp-python`` (a separate environment: OpenDP is not a dependency), with
  fewer samples (it is ~1000x slower); absent when that Python cannot import it.

The tables behind the exact samplers are built once per parameter and cached (their build time is
listed separately: the first call with a new parameter pays it).

Then the auditor's SVT cases (SVT1-6, SVT34Parallel, NumericalSVT with ``audit_power.py``'s
parameters, component-wise input of length 10): each mechanism with its float noise and with
``exact=True`` (the exact compiled discrete Laplace of the same scales), interleaved; a whole audit of
each with exact noise (``--audit-json`` keeps the bounds, to compare library versions on the same seed);
and SVT1's whole audit each way (the bounds differ: the samples differ).

The header names the CPU model.  The machine is shared: quote medians and ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels import noise
from semiprivate.kernels._backend import cpu_model
from semiprivate.kernels._timing import time_interleaved

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import finish  # noqa: E402

#: up to 1e15, near the largest scale accepted (2**50): wide scales have more parts per sample
LAPLACE_SCALES = [1.0, 3.7, 20.0, 40.0, 1000.0, 20_000.0, 2e6, 2e9, 2e11, 2e13, 1e15]
#: 1e24 is above 2**72: the bucketed envelope with an offset word of its own
GAUSS_SIGMA2 = [1.0, 3.7, 100.0, 10_000.0, 1e6, 6e7, 1e9, 1e24]
#: sigma2 drawn by rejection (the bucketed envelope): the reference (Python coins, tens of us per sample)
#: is timed on fewer samples
SLOW_N = 5_000
DEFAULT_OPENDP = "/work/peers/opendp/bin/python"

OPENDP_SRC = r"""
import json, sys, time
import opendp.prelude as dp
dp.enable_features("contrib")
kind, param, n, reps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if kind == "laplace":
    m = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=param)
else:
    m = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=param ** 0.5)
m([0] * 10)
ts = []
for _ in range(reps):
    t = time.perf_counter(); m([0] * n); ts.append(time.perf_counter() - t)
ts.sort()
print(json.dumps({"median": ts[len(ts) // 2], "n": n, "version": dp.__version__ if hasattr(dp, "__version__") else "?"}))
"""


def _opendp(python: str, kind: str, param: float, n: int, reps: int) -> float | None:
    """OpenDP's seconds per sample (median), or None when that Python has no OpenDP."""
    if not Path(python).exists():
        return None
    try:
        res = subprocess.run([python, "-c", OPENDP_SRC, kind, repr(param), str(n), str(reps)], capture_output=True,
                             text=True, timeout=600, check=True)
    except (subprocess.SubprocessError, OSError):
        return None
    out = json.loads(res.stdout.strip().splitlines()[-1])
    return float(out["median"]) / n


def _cpu_interleaved(methods: dict[str, Any], repeats: int, warmup: int) -> dict[str, float]:
    """Median process CPU seconds per call, in interleaved rounds (``--clock cpu``): the calls are single-threaded,
    so this is each call's own time, without the time it waits while other processes run on a loaded machine."""
    for f in methods.values():
        for _ in range(warmup):
            f()
    ts: dict[str, list[float]] = {k: [] for k in methods}
    for _ in range(repeats):
        for k, f in methods.items():
            t0 = time.process_time()
            f()
            ts[k].append(time.process_time() - t0)
    return {k: statistics.median(v) for k, v in ts.items()}


def _timed(methods: dict[str, Any], repeats: int, warmup: int, clock: str) -> dict[str, float]:
    if clock == "cpu":
        return _cpu_interleaved(methods, repeats, warmup)
    return {k: v.median for k, v in time_interleaved(methods, repeats=repeats, warmup=warmup).items()}


def _ns(t: float, n: int) -> str:
    return f"{t / n * 1e9:.1f}"


def bench_samplers(n: int, repeats: int, opendp_python: str, opendp_n: int, clock: str = "wall") -> list[str]:
    rows = ["| sampler | parameter | ours compiled ns | ours reference ns | numpy float ns | repo float Lap ns | "
            "OpenDP ns | compiled / numpy float | reference / numpy float | OpenDP / compiled | table build s |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    from semiprivate.theory.audit.examples import laplace_noise

    for kind, params in (("laplace", LAPLACE_SCALES), ("gaussian", GAUSS_SIGMA2)):
        for p in params:
            fr = Fraction(p)
            t0 = time.perf_counter()
            table = (ref.laplace_table if kind == "laplace" else ref.gaussian_table)(fr)
            build = time.perf_counter() - t0
            # the rejection samplers' reference computes its coins in Python: timed alone on fewer samples
            slow = isinstance(table, (ref._GaussianRejection, ref._GaussianBuckets))
            m, m_ref = n, (SLOW_N if slow else n)
            g = np.random.default_rng(1)
            fn = noise.discrete_laplace if kind == "laplace" else noise.discrete_gaussian
            methods = {
                "compiled": lambda fn=fn, p=p, g=g, m=m: fn(p, m, rng=g, backend="cython"),
                "float": (lambda p=p, g=g, m=m: g.laplace(0.0, p, m)) if kind == "laplace"
                else (lambda p=p, g=g, m=m: g.normal(0.0, math.sqrt(p), m)),
            }
            ref_call = {"reference": lambda fn=fn, p=p, g=g, m=m_ref: fn(p, m, rng=g, backend="numpy")}
            if not slow:
                methods.update(ref_call)
            if kind == "laplace":
                methods["repo"] = lambda p=p, g=g, m=m: laplace_noise(g, p, m)
            t = _timed(methods, repeats, 1, clock)
            if slow:
                t["reference"] = _timed(ref_call, 3, 0, clock)["reference"] * n / m_ref
            od = _opendp(opendp_python, kind, p, opendp_n, 3)
            repo = _ns(t["repo"], m) if "repo" in t else "-"
            od_ns = f"{od * 1e9:.0f}" if od else "absent"
            od_ratio = f"{od / (t['compiled'] / m):.0f}x" if od else "-"
            rows.append(
                f"| {kind} | {p:g}{'' if m_ref == n else f' (reference on {m_ref:,})'} | {_ns(t['compiled'], m)} | "
                f"{_ns(t['reference'], m)} | {_ns(t['float'], m)} | "
                f"{repo} | {od_ns} | {t['compiled'] / t['float']:.2f} | {t['reference'] / t['float']:.2f} | "
                f"{od_ratio} | {build:.3f} |")
    return rows


def bench_svt(size: int, repeats: int, audit_trials: int, audit_json: Path | None = None) -> list[str]:
    """The auditor's SVT cases (audit_power.py's ``cases()``): each mechanism's time per call, float noise
    against ``exact=True`` (exact compiled discrete Laplace), interleaved in the same run; then a whole audit of
    each case with exact noise on its eight component-wise pairs (``audit_trials`` per dataset, seed 0; the
    bounds and times also to ``audit_json``, to compare two versions of the library on the same seed), and
    SVT1's whole audit both ways, interleaved."""
    from audit_power import CONFIDENCE, EPS, statdp_patterns
    from semiprivate.theory.audit import AuditOptions, audit_pairs
    from semiprivate.theory.audit.examples import SVT, NumericalSVT, SVT34Parallel

    cw10 = statdp_patterns(10, True, -10, 10)
    a = np.asarray(cw10[0][0], dtype=np.float64)
    cases = [("SVT1", lambda e: SVT(1, t=0.5, exact=e)), ("SVT2", lambda e: SVT(2, exact=e)),
             ("SVT3", lambda e: SVT(3, exact=e)), ("SVT4", lambda e: SVT(4, exact=e)),
             ("SVT5", lambda e: SVT(5, exact=e)), ("SVT6", lambda e: SVT(6, exact=e)),
             ("SVT34Parallel", lambda e: SVT34Parallel(exact=e)), ("NumericalSVT", lambda e: NumericalSVT(exact=e))]
    rows = ["", f"## The auditor's SVT cases, float noise against exact noise (`exact=True`), {size:,} runs per call", "",
            "| case | float noise ms | exact noise ms | float / exact |", "|---|---|---|---|"]
    total = {"float": 0.0, "exact": 0.0}
    for name, make in cases:
        g = np.random.default_rng(2)
        mf, me = make(False), make(True)
        t = {k: v.median for k, v in time_interleaved(
            {"float": lambda mf=mf, g=g: mf(a, size, g), "exact": lambda me=me, g=g: me(a, size, g)},
            repeats=repeats, warmup=1).items()}
        total["float"] += t["float"]
        total["exact"] += t["exact"]
        rows.append(f"| {name} | {t['float'] * 1e3:.1f} | {t['exact'] * 1e3:.1f} | {t['float'] / t['exact']:.2f}x |")
    rows.append(f"| all eight | {total['float'] * 1e3:.1f} | {total['exact'] * 1e3:.1f} | "
                f"{total['float'] / total['exact']:.2f}x |")
    if audit_trials:
        pairs = [(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)) for x, y in cw10]
        rows += ["", f"Whole audits with exact noise (`exact=True`), eight pairs, {audit_trials:,} trials per dataset, "
                 f"confidence {CONFIDENCE:g}, seed 0, one run each; SVT1 also with float noise (interleaved):", "",
                 "| case | noise | seconds | lower bound | flagged |", "|---|---|---|---|---|"]
        out: dict[str, Any] = {}
        for name, make in cases:
            t0 = time.perf_counter()
            res = audit_pairs(make(True), pairs, epsilon=EPS, trials=audit_trials, confidence=CONFIDENCE, rng=0,
                              options=AuditOptions(estimate_on="best"))
            secs = time.perf_counter() - t0
            out[name] = {"bound": res.epsilon_lower_bound, "flagged": bool(res.violation), "seconds": secs}
            rows.append(f"| {name} | exact | {secs:.2f} | {res.epsilon_lower_bound:.4f} | {res.violation} |")
        res1: dict[bool, Any] = {}

        def audit(exact: bool) -> None:
            res1[exact] = audit_pairs(SVT(1, t=0.5, exact=exact), pairs, epsilon=EPS, trials=audit_trials,
                                      confidence=CONFIDENCE, rng=0, options=AuditOptions(estimate_on="best"))

        t = {k: v.median for k, v in time_interleaved(
            {"float": lambda: audit(False), "exact": lambda: audit(True)}, repeats=3, warmup=0).items()}
        rows += [f"| SVT1 (median of 3) | float | {t['float']:.2f} | {res1[False].epsilon_lower_bound:.4f} | "
                 f"{res1[False].violation} |",
                 f"| SVT1 (median of 3) | exact | {t['exact']:.2f} | {res1[True].epsilon_lower_bound:.4f} | "
                 f"{res1[True].violation} |",
                 "", f"SVT1 whole audit, float / exact: {t['float'] / t['exact']:.2f}x (the bounds differ: the noise, "
                 "hence the samples, differ)"]
        if audit_json is not None:
            audit_json.write_text(json.dumps(out, indent=1, sort_keys=True))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--quick", action="store_true", help="1e5 samples, 3 repeats, OpenDP on 2,000")
    ap.add_argument("--n", type=float, default=1e6, help="samples per timed call")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--opendp-python", default=DEFAULT_OPENDP, help="a Python that imports opendp")
    ap.add_argument("--audit-trials", type=int, default=1_000_000, help="trials per dataset of the SVT audits (0: skip)")
    ap.add_argument("--audit-json", type=Path, default=None, help="write the exact-noise SVT audits' bounds here")
    ap.add_argument("--only", choices=["samplers", "svt"], default=None, help="run one section only")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="time the samplers by wall clock or by process CPU time (a loaded machine)")
    args = ap.parse_args(argv)
    n = 100_000 if args.quick else int(args.n)
    repeats = 3 if args.quick else 7
    opendp_n = 2_000 if args.quick else 20_000
    from semiprivate.kernels._backend import available_backends

    if "cython" not in available_backends() or noise._cython_module() is None:
        print("the compiled backend is not built: nothing to compare", file=sys.stderr)
        return 1
    rows = [f"# Exact noise samplers, per sample ({cpu_model()}, one core, n = {n:,}; OpenDP on {opendp_n:,}; "
            f"{args.clock} clock; load average {os.getloadavg()[0]:.1f})", ""]
    if args.only != "svt":
        rows += bench_samplers(n, repeats, args.opendp_python, opendp_n, args.clock)
    if args.only != "samplers":
        rows += bench_svt(n // 10, repeats, 0 if args.quick else args.audit_trials, args.audit_json)
    return finish(rows, args.out)


if __name__ == "__main__":
    raise SystemExit(main())

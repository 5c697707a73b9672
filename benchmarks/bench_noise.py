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

Then the SVT share: the auditor's full-budget ``SVT(1)`` example (eps = 0.1: threshold noise
``Lap(20)``, query noise ``Lap(40)``) on 10 integer queries, ``size`` runs: the share of its time spent
drawing noise, and the time with that noise drawn by the exact compiled discrete Laplace instead (same
scales), i.e. what moving the example onto exact noise would change.

The header names the CPU model.  The machine is shared: quote medians and ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels import noise
from semiprivate.kernels._backend import cpu_model
from semiprivate.kernels._timing import time_interleaved

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import finish  # noqa: E402

LAPLACE_SCALES = [1.0, 3.7, 20.0, 40.0, 1000.0]
GAUSS_SIGMA2 = [1.0, 3.7, 100.0, 10_000.0]
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


def _ns(t: float, n: int) -> str:
    return f"{t / n * 1e9:.1f}"


def bench_samplers(n: int, repeats: int, opendp_python: str, opendp_n: int) -> list[str]:
    rows = ["| sampler | parameter | ours compiled ns | ours reference ns | numpy float ns | repo float Lap ns | "
            "OpenDP ns | compiled / numpy float | reference / numpy float | OpenDP / compiled | table build s |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    from semiprivate.theory.audit.examples import laplace_noise

    for kind, params in (("laplace", LAPLACE_SCALES), ("gaussian", GAUSS_SIGMA2)):
        for p in params:
            fr = Fraction(p)
            t0 = time.perf_counter()
            (ref.laplace_table if kind == "laplace" else ref.gaussian_table)(fr)
            build = time.perf_counter() - t0
            g = np.random.default_rng(1)
            fn = noise.discrete_laplace if kind == "laplace" else noise.discrete_gaussian
            methods = {
                "compiled": lambda fn=fn, p=p, g=g: fn(p, n, rng=g, backend="cython"),
                "reference": lambda fn=fn, p=p, g=g: fn(p, n, rng=g, backend="numpy"),
                "float": (lambda p=p, g=g: g.laplace(0.0, p, n)) if kind == "laplace"
                else (lambda p=p, g=g: g.normal(0.0, math.sqrt(p), n)),
            }
            if kind == "laplace":
                methods["repo"] = lambda p=p, g=g: laplace_noise(g, p, n)
            t = {k: v.median for k, v in time_interleaved(methods, repeats=repeats, warmup=1).items()}
            od = _opendp(opendp_python, kind, p, opendp_n, 3)
            repo = _ns(t["repo"], n) if "repo" in t else "-"
            od_ns = f"{od * 1e9:.0f}" if od else "absent"
            od_ratio = f"{od / (t['compiled'] / n):.0f}x" if od else "-"
            rows.append(
                f"| {kind} | {p:g} | {_ns(t['compiled'], n)} | {_ns(t['reference'], n)} | {_ns(t['float'], n)} | "
                f"{repo} | {od_ns} | {t['compiled'] / t['float']:.2f} | {t['reference'] / t['float']:.2f} | "
                f"{od_ratio} | {build:.3f} |")
    return rows


def bench_svt(size: int, repeats: int) -> list[str]:
    from semiprivate.theory.audit.examples import SVT, _laplace

    svt = SVT(1)
    rho_s, nu_s = svt.scales()
    a = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    g = np.random.default_rng(2)

    def float_noise() -> None:
        _laplace(g, rho_s, size)
        _laplace(g, nu_s, (size, a.size))

    def exact_noise() -> None:
        noise.discrete_laplace(rho_s, size, rng=g, backend="cython")
        noise.discrete_laplace(nu_s, (size, a.size), rng=g, backend="cython")

    def exact_svt() -> None:  # the example's pass with the exact noise in place of the float one
        rho = noise.discrete_laplace(rho_s, size, rng=g, backend="cython").astype(np.float64)
        noisy = a + noise.discrete_laplace(nu_s, (size, a.size), rng=g, backend="cython")
        svt.respond(noisy, rho)

    t = {k: v.median for k, v in time_interleaved(
        {"svt": lambda: svt(a, size, g), "float noise": float_noise, "exact noise": exact_noise, "exact svt": exact_svt},
        repeats=repeats, warmup=1).items()}
    share = t["float noise"] / t["svt"]
    return [
        "", f"SVT(1), eps = 0.1 (Lap({rho_s:g}) threshold, Lap({nu_s:g}) queries), 10 queries, {size} runs:",
        "", "| quantity | value |", "|---|---|",
        f"| SVT(1) as in theory/audit/examples.py (float Laplace) | {t['svt'] * 1e3:.2f} ms |",
        f"| its noise alone (float, the example's own sampler) | {t['float noise'] * 1e3:.2f} ms ({share:.0%} of the run) |",
        f"| the same noise, exact compiled discrete Laplace | {t['exact noise'] * 1e3:.2f} ms "
        f"({t['exact noise'] / t['float noise']:.2f}x the float noise) |",
        f"| SVT(1) with the exact noise | {t['exact svt'] * 1e3:.2f} ms ({t['svt'] / t['exact svt']:.2f}x faster "
        f"than the float run) |",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--quick", action="store_true", help="1e5 samples, 3 repeats, OpenDP on 2,000")
    ap.add_argument("--n", type=float, default=1e6, help="samples per timed call")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--opendp-python", default=DEFAULT_OPENDP, help="a Python that imports opendp")
    args = ap.parse_args(argv)
    n = 100_000 if args.quick else int(args.n)
    repeats = 3 if args.quick else 7
    opendp_n = 2_000 if args.quick else 20_000
    from semiprivate.kernels._backend import available_backends

    if "cython" not in available_backends() or noise._cython_module() is None:
        print("the compiled backend is not built: nothing to compare", file=sys.stderr)
        return 1
    rows = [f"# Exact noise samplers, per sample ({cpu_model()}, one core, n = {n:,}; OpenDP on {opendp_n:,})", ""]
    rows += bench_samplers(n, repeats, args.opendp_python, opendp_n)
    rows += bench_svt(n // 10, repeats)
    return finish(rows, args.out)


if __name__ == "__main__":
    raise SystemExit(main())

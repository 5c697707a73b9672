"""Report section: what was built and whether the compiled path computes correctly."""

from __future__ import annotations

import math
import os
import platform
import time

import numpy as np
from semiprivate.theory.report import ReportContext, Section

TITLE = "Build and backends"
ORDER = 0


def build(ctx: ReportContext) -> Section:
    from semiprivate import kernels

    info = kernels.build_info()
    rng = np.random.default_rng(ctx.seed)
    n = 1_000_000 if ctx.quick else 10_000_000
    x = rng.standard_normal(n)
    exact = math.fsum(x.tolist()) if n <= 1_000_000 else float(np.sum(x, dtype=np.float64))
    rows = [
        "| fact | value |",
        "|---|---|",
        f"| Python | {platform.python_version()} ({platform.machine()}) |",
        f"| NumPy | {np.__version__} |",
        f"| backends available | {', '.join(info['backends'])} |",
        f"| compiled with OpenMP | {info['openmp']} |",
        f"| OpenMP threads now | {info['threads']} (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}) |",
        f"| SIMD path of the float sampler | {info['simd']} |",
    ]
    summary = f"backends {', '.join(info['backends'])}; only the NumPy reference is built: nothing compiled to compare"
    ok = True
    verdict = "NOT SHOWN"
    if "cython" in info["backends"]:
        from semiprivate.kernels._cython import _probe

        t0 = time.perf_counter()
        s = _probe.parallel_sum(x)
        dt = time.perf_counter() - t0
        t0 = time.perf_counter()
        s_np = float(np.sum(x))
        dt_np = time.perf_counter() - t0
        rel = abs(s - exact) / max(1.0, abs(exact))
        ok = rel < 1e-9
        rows += [
            f"| compiled parallel sum of {n:,} normals | {s:.10g} (reference {exact:.10g}, rel. diff {rel:.1e}) |",
            f"| numpy.sum of the same | {s_np:.10g} |",
            f"| time: compiled / numpy.sum | {dt * 1e3:.2f} ms / {dt_np * 1e3:.2f} ms |",
        ]
        verdict = "SHOWN" if ok else "FAIL"
        summary = (f"compiled parallel sum of {n:,} normals vs {'math.fsum' if n <= 1_000_000 else 'numpy.sum'}: rel. diff {rel:.1e} "
                   f"{'<=' if ok else '>'} 1e-9 (backends {', '.join(info['backends'])}, OpenMP={info['openmp']}, "
                   f"threads={info['threads']})")
    else:
        rows.append("| compiled extension | not built: only the NumPy reference backend is available |")
    return Section(title=TITLE, markdown="\n".join(rows), summary=summary, ok=ok, verdict=verdict)

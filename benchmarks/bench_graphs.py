"""Benchmark: G(d, p) connectivity Monte Carlo and the empirical component graph (HPSY.Lem2, HPSY.ComponentGraph).

Claims checked:

* ``semiprivate.theory.graphs.gnp_component_counts`` (geometric skips over the pair slots of a batch of
  graphs, one ``scipy.sparse.csgraph.connected_components`` call per batch) draws and tests
  >= 20x as many G(d, p) graphs per second as ``networkx.is_connected(networkx.gnp_random_graph(d, p))``
  at d = 1000, measured in the same run (also d = 100 and 5000; p = log(d)/d, the connectivity
  transition, and HPSY Lemma 2's proof threshold (9 log(4/beta) + 4)/(d - 1) at beta = 1e-3).  ``networkx.fast_gnp_random_graph``
  is shown too (networkx's own skip sampler).
* The empirical component graph of n_unl = 1e5 draws of D_{f,p} at d = 1000 in bounded memory:
  ``component_labels`` (star edges per row block of 2048 rows, O(nnz(block) + d) extra memory)
  and ``component_graph`` (dense float32 BLAS X_b^T X_b of 4096-row blocks OR-ed into a d x d
  boolean matrix); peak extra
  memory by ``tracemalloc`` (NumPy and SciPy allocations are traced), X itself (1e8 bools,
  100 MB) excluded.

Usage: ``python benchmarks/bench_graphs.py [--quick]``.  Prints the CPU model, NumPy's SIMD
baseline/dispatch, the load average and medians over repeats (the machine is shared).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tracemalloc
from pathlib import Path

import numpy as np
from semiprivate.theory.bounds.hpsy import hpsy_connectivity_threshold  # noqa: E402
from semiprivate.theory.distributions import DisjunctionGraphDistribution  # noqa: E402
from semiprivate.theory.graphs import component_graph, component_labels, gnp_component_counts  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.kernels._timing import time_call  # noqa: E402


def simd_path() -> str:
    try:
        from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__  # type: ignore
        return f"NumPy baseline {','.join(__cpu_baseline__)}; dispatch {','.join(__cpu_dispatch__)}"
    except Exception:  # noqa: BLE001
        return "NumPy SIMD info unavailable"


def _median_time(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    return time_call(fn, repeats, warmup=0).median


def _one_case(d: int, p: float, n_ours: int, n_nx: int) -> tuple[float, float, float, float, float]:
    import networkx as nx

    rng = np.random.default_rng(0)
    counts: list[np.ndarray] = []
    t_ours = _median_time(lambda: counts.append(gnp_component_counts(d, p, n_ours, rng)), 3)
    conn_nx: list[bool] = []

    def run_nx(gen=nx.gnp_random_graph):  # type: ignore[no-untyped-def]
        for s in range(n_nx):
            conn_nx.append(nx.is_connected(gen(d, p, seed=s)))

    t_nx = _median_time(run_nx, 1)
    t_fast = _median_time(lambda: run_nx(nx.fast_gnp_random_graph), 1)
    pc = float(np.mean(np.concatenate(counts) == 1))
    return n_ours / t_ours, n_nx / t_nx, n_nx / t_fast, pc, float(np.mean(conn_nx))


def bench_connectivity(quick: bool) -> bool:
    ok = True
    print("\n## G(d, p) connectivity Monte Carlo: graphs per second")
    print("| d | p | ours graphs/s | nx.gnp_random_graph + is_connected graphs/s | ratio | "
          "nx.fast_gnp_random_graph graphs/s | ratio | P[connected] ours / nx |")
    print("|---|---|---|---|---|---|---|---|")
    cases = []
    for d in (100, 1000, 5000):
        cases.append((d, math.log(d) / d))  # the connectivity transition
        cases.append((d, float(hpsy_connectivity_threshold(d, 1e-3, form="proof", strict=False).value)))
    for d, p in cases:
        n_ours = {100: 20000, 1000: 2000, 5000: 100}[d] // (10 if quick else 1)
        n_nx = {100: 400, 1000: 10, 5000: 2}[d] // (2 if quick and d == 100 else 1)
        r_ours, r_nx, r_fast, pc, pc_nx = _one_case(d, p, n_ours, n_nx)
        print(f"| {d} | {p:.4g} | {r_ours:,.0f} | {r_nx:,.1f} | {r_ours / r_nx:,.0f}x | {r_fast:,.1f} | "
              f"{r_ours / r_fast:,.0f}x | {pc:.3f} / {pc_nx:.2f} |")
        if d == 1000:
            ok = ok and r_ours / r_nx >= 20
    print(f"target >= 20x networkx at d = 1000: {'met' if ok else 'NOT met'}")
    return ok


def bench_component_graph(quick: bool) -> None:
    n, d, k, p = (20_000 if quick else 100_000), 1000, 500, 0.002
    D = DisjunctionGraphDistribution(d, range(k), p)
    drawn = time_call(lambda: D.sample_X(n, np.random.default_rng(1)), 1, warmup=0)
    X, t_gen = drawn.last, drawn.median
    print(f"\n## Empirical component graph of n_unl = {n:,} draws of D_(f,p) at d = {d} (k = {k}, p = {p}); "
          f"X: {X.nbytes / 1e6:.0f} MB bool, {int(X.sum()):,} active entries, drawn in {t_gen:.2f} s")
    print("| construction | seconds | peak extra memory (tracemalloc) | result |")
    print("|---|---|---|---|")
    tracemalloc.start()
    timed = time_call(lambda: component_labels(X), 1, warmup=0)
    (Z, _), t = timed.last, timed.median
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"| component_labels (star edges, 2048-row blocks, csgraph) | {t:.2f} | {peak / 1e6:.1f} MB | Z = {Z} |")
    tracemalloc.start()
    timed = time_call(lambda: component_graph(X), 1, warmup=0)
    G, t = timed.last, timed.median
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"| component_graph (BLAS X_b^T X_b, 4096-row blocks, networkx.Graph) | {t:.2f} | {peak / 1e6:.1f} MB | "
          f"|E| = {G.number_of_edges():,} |")
    print(f"(a dense (n, d, d) co-activation tensor would be {n * d * d / 1e9:,.0f} GB; a dense float32 X^T X of the "
          f"whole sample {(n * d * 4 + d * d * 4) / 1e6:,.0f} MB)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer graphs and n_unl = 2e4")
    args = ap.parse_args(argv)
    print(f"CPU: {cpu_model()}; cores: {os.cpu_count()}; {simd_path()}")
    print(f"load average before: {os.getloadavg()}; numpy {np.__version__}")
    ok = bench_connectivity(args.quick)
    bench_component_graph(args.quick)
    print(f"\nload average after: {os.getloadavg()}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

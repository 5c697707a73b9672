"""Dask scale-out: a 2-worker LocalCluster against one process, same run.

Usage::

    python benchmarks/bench_distributed.py [--workers 2] [--trials 2e7] [--batch 1e6] [--repeats 5]
                                           [--pca-rows 1e7] [--pca-d 256] [--pca-dir /tmp] [--skip-pca]

Prints (medians of repeats; the CPU model and the load average first: a figure holds for that
machine and that load only):

1. **Audit trials/s**: ``audit_mechanism(LaplaceMechanism, ..., batch_size=B)`` here (one process,
   batches one after the other) against ``executor=client`` on the cluster, same seed and batch
   size, hence the same counts (checked).  The two are interleaved, ``--repeats`` times, after one
   untimed warm-up on the cluster (the workers import the auditor on their first task).  Also the
   CPU seconds per 1e6 outputs here and on the workers (``process_time``; the workers' includes
   their event loop), which separates Dask's own cost from CPU contention.  Target >= 1.7x.
2. **Per-batch overhead**: 400 empty tasks through ``client.map``/``gather`` (per-task time,
   pipelined), the round trip of one task (latency), and the audit at batch sizes 1e4 .. 4e6
   (outputs/s on the cluster; the overhead per task fitted as the slope of time against the
   number of tasks), which sets the smallest sensible batch.
3. **PCA of an (n, d) float32 array on disk** (a raw file read through ``numpy.memmap`` by each
   worker, chunks of whole rows -- the "data on shared storage" layout), in the same run:
   ``semiprivate.kernels.pca`` on the dask array; ``dask_ml.decomposition.PCA`` (``svd_solver="tsqr"``, exact,
   and ``"randomized"``, i.e. ``dask.array.linalg.svd_compressed``) when dask-ml is installed,
   else ``dask.array.linalg.tsqr`` / ``svd_compressed`` directly; ``dask.array`` ``X.T @ X`` in
   float64 + ``eigh``; and ``semiprivate.kernels.pca`` on the memmap in this process (the reference).  Time,
   peak resident memory of the largest worker (workers restarted before each method), the top
   eigenvalue, and the agreement of the top-k subspace with the reference (sine of the largest
   principal angle).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import tempfile
import time
from dataclasses import replace
from typing import Any

import numpy as np
from semiprivate import kernels  # noqa: E402
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.theory.audit import AuditOptions, audit_mechanism  # noqa: E402
from semiprivate.theory.distributed import local_cluster  # noqa: E402
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism  # noqa: E402


def _read_rows(path: str, n: int, d: int, start: int, stop: int) -> np.ndarray:
    mm = np.memmap(path, dtype=np.float32, mode="r", shape=(n, d))
    return np.array(mm[start:stop])


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _cpu_seconds() -> float:
    return time.process_time()


def _noop(i: int) -> int:
    return i


def _load() -> str:
    a = os.getloadavg()
    return f"{a[0]:.2f}/{a[1]:.2f}/{a[2]:.2f}"


def _sin_angle(A: np.ndarray, B: np.ndarray) -> float:
    """Sine of the largest principal angle between span(A) and span(B) (orthonormal (d, k) columns)."""
    A = np.linalg.qr(np.asarray(A, dtype=np.float64))[0]
    B = np.linalg.qr(np.asarray(B, dtype=np.float64))[0]
    return float(np.linalg.norm(B - A @ (A.T @ B), 2))


def _audit(client: Any, args: argparse.Namespace) -> None:
    trials, batch = int(args.trials), int(args.batch)
    mech = LaplaceMechanism(1.0)
    kw = dict(epsilon=1.0, trials=trials, rng=0)
    here_opts = AuditOptions(batch_size=batch, selection_trials=100_000)
    cl_opts = replace(here_opts, executor=client)
    audit_mechanism(mech, 0.0, 1.0, options=cl_opts, **kw)  # warm-up: imports on the workers
    t_here, t_cl, c_here, c_workers, loads = [], [], [], [], []
    for _ in range(args.repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        here = audit_mechanism(mech, 0.0, 1.0, options=here_opts, **kw)
        t_here.append(time.perf_counter() - t0)
        c_here.append(time.process_time() - c0)
        w0 = client.run(_cpu_seconds)
        t0 = time.perf_counter()
        on = audit_mechanism(mech, 0.0, 1.0, options=cl_opts, **kw)
        t_cl.append(time.perf_counter() - t0)
        w1 = client.run(_cpu_seconds)
        c_workers.append(sum(w1[k] - w0[k] for k in w1))
        loads.append(os.getloadavg()[0])
        assert here.witness.counts == on.witness.counts, "counts differ between here and the cluster"
    th, tc = statistics.median(t_here), statistics.median(t_cl)
    n_out = here.trials_used
    ratios = [a / b for a, b in zip(t_here, t_cl)]
    print("\n| audit (Laplace, 2 datasets) | median time | outputs/s | speed-up | CPU s per 1e6 outputs |\n"
          "|---|---:|---:|---:|---:|")
    print(f"| one process | {th:.2f} s | {n_out / th:.3g} | 1.00x | {statistics.median(c_here) / (2 * trials) * 1e6:.3f} |")
    print(f"| LocalCluster {args.workers} workers x 1 thread | {tc:.2f} s | {n_out / tc:.3g} | {th / tc:.2f}x | "
          f"{statistics.median(c_workers) / (2 * trials) * 1e6:.3f} (workers) |")
    print(f"(trials {trials:,} per dataset + 100,000 selection, batch {batch:,}: {2 * -(-trials // batch)} tasks; "
          f"{args.repeats} interleaved repeats; per-repeat speed-ups {', '.join(f'{r:.2f}' for r in ratios)}, "
          f"median {statistics.median(ratios):.2f}x; 1-min load during the repeats "
          f"{min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} CPUs; identical counts here and on the cluster)")


def _overhead(client: Any, args: argparse.Namespace) -> None:
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        client.gather(client.map(_noop, range(400), pure=False))
        ts.append((time.perf_counter() - t0) / 400)
    lat = []
    for i in range(30):
        t0 = time.perf_counter()
        client.submit(_noop, i, pure=False).result()
        lat.append(time.perf_counter() - t0)
    print(f"\nper-task cost, 400 empty tasks pipelined (median of 5): {statistics.median(ts) * 1e3:.2f} ms; "
          f"round trip of one task (median of 30): {statistics.median(lat) * 1e3:.2f} ms")
    mech = LaplaceMechanism(1.0)
    trials = int(args.overhead_trials)
    rows = []
    for b in (10_000, 100_000, 1_000_000, 4_000_000):
        kw = dict(epsilon=1.0, trials=trials, rng=0)
        opts = AuditOptions(batch_size=b, selection_trials=100_000, executor=client)
        t = []
        for _ in range(3):
            t0 = time.perf_counter()
            audit_mechanism(mech, 0.0, 1.0, options=opts, **kw)
            t.append(time.perf_counter() - t0)
        rows.append((b, 2 * -(-trials // b), statistics.median(t)))
    # time = fixed + tasks * overhead / workers + work / workers: slope in the number of tasks
    tasks = np.array([r[1] for r in rows], dtype=float)
    times = np.array([r[2] for r in rows])
    slope = float(np.polyfit(tasks, times, 1)[0]) * args.workers
    print("\n| audit batch size | tasks | median time on the cluster | outputs/s |\n|---:|---:|---:|---:|")
    for b, n_tasks, t in rows:
        print(f"| {b:,} | {n_tasks} | {t:.2f} s | {2 * trials / t:.3g} |")
    print(f"(audit of 2 x {trials:,} outputs, medians of 3; overhead per audit task fitted as the slope of time "
          f"against tasks, times {args.workers} workers: {slope * 1e3:.2f} ms; load {_load()})")


def _pca(client: Any, args: argparse.Namespace) -> None:
    import dask
    import dask.array as da

    n, d, ch, k = int(args.pca_rows), int(args.pca_d), int(args.pca_chunk), 20
    path = os.path.join(args.pca_dir, f"sp_bench_pca_{n}x{d}.f32")
    if not os.path.exists(path) or os.path.getsize(path) != n * d * 4:
        mm = np.memmap(path, dtype=np.float32, mode="w+", shape=(n, d))
        g = np.random.default_rng(0)
        scale = np.linspace(3.0, 0.1, d, dtype=np.float32)
        for s in range(0, n, ch):
            mm[s:s + ch] = g.standard_normal((min(ch, n - s), d), dtype=np.float32) * scale + 1.0
        mm.flush()
        del mm

    def array() -> Any:
        parts = [da.from_delayed(dask.delayed(_read_rows)(path, n, d, s, min(s + ch, n)),
                                 shape=(min(s + ch, n) - s, d), dtype=np.float32) for s in range(0, n, ch)]
        return da.concatenate(parts, axis=0)

    mm = np.memmap(path, dtype=np.float32, mode="r", shape=(n, d))
    r0 = _maxrss_mib()
    t0 = time.perf_counter()
    ref = kernels.pca(mm, k)
    t_ref = time.perf_counter() - t0
    ref_rss = _maxrss_mib() - r0
    del mm

    def xtx() -> tuple[np.ndarray, np.ndarray]:
        X = array()
        mean_v, G_v = dask.compute(X.mean(axis=0, dtype=np.float64), X.T.astype(np.float64) @ X.astype(np.float64))
        C = (G_v - n * np.outer(mean_v, mean_v)) / (n - 1)
        w, V = np.linalg.eigh(C)
        return w[::-1][:k], V[:, ::-1][:, :k]

    def ours() -> tuple[np.ndarray, np.ndarray]:
        r = kernels.pca(array(), k)
        return np.asarray(r.eigenvalues), np.asarray(r.components)

    methods: list[tuple[str, Any]] = [("kernels.pca(dask array), tree of CovarianceAccumulators", ours)]
    try:
        import dask_ml
        from dask_ml.decomposition import PCA as DaskPCA

        def dml(solver: str) -> Any:
            def run() -> tuple[np.ndarray, np.ndarray]:
                p = DaskPCA(n_components=k, svd_solver=solver, random_state=0).fit(array())
                return np.asarray(p.explained_variance_), np.asarray(p.components_).T
            return run

        methods += [(f"dask_ml {dask_ml.__version__} PCA(svd_solver='tsqr')", dml("tsqr")),
                    (f"dask_ml {dask_ml.__version__} PCA(svd_solver='randomized') (svd_compressed)",
                     dml("randomized"))]
    except ImportError:
        def tsqr() -> tuple[np.ndarray, np.ndarray]:
            X = array()
            Xc = X - X.mean(axis=0)
            _, s, vt = da.linalg.tsqr(Xc, compute_svd=True)
            s, vt = dask.compute(s, vt)
            return (s[:k] ** 2) / (n - 1), vt[:k].T

        def compressed() -> tuple[np.ndarray, np.ndarray]:
            X = array()
            Xc = X - X.mean(axis=0)
            _, s, vt = da.linalg.svd_compressed(Xc, k, seed=0)
            s, vt = dask.compute(s, vt)
            return (s ** 2) / (n - 1), vt.T

        methods += [("dask.array.linalg.tsqr (dask-ml not installed)", tsqr),
                    ("dask.array.linalg.svd_compressed (dask-ml not installed)", compressed)]
    if not args.skip_xtx:
        methods.append(("dask.array X.T @ X (float64) + eigh on the client", xtx))

    print(f"\n| PCA of {n:,} x {d} float32 ({n * d * 4 / 2**30:.2f} GiB on disk, chunks of {ch:,} rows), k={k} | "
          "time | peak RSS of a worker | top eigenvalue | max rel. diff. of top-k eigenvalues | "
          "sin of largest angle to the reference subspace |\n|---|---:|---:|---:|---:|---:|")
    for name, fn in methods:
        client.restart()
        t0 = time.perf_counter()
        w, V = fn()
        t = time.perf_counter() - t0
        rss = client.run(_maxrss_mib)
        rel = float(np.max(np.abs(w - ref.eigenvalues) / ref.eigenvalues))
        print(f"| {name} | {t:.1f} s | {max(rss.values()):.0f} MiB | {w[0]:.5f} | {rel:.1e} | "
              f"{_sin_angle(V, np.asarray(ref.components)):.1e} |", flush=True)
    print(f"| reference: kernels.pca(memmap) in this process ({ref.backend}) | {t_ref:.1f} s | "
          f"{ref_rss:+.0f} MiB here | {ref.eigenvalues[0]:.5f} | 0 | 0 |")
    print(f"(load {_load()}; the eigenvalue gap at k: lambda_{k} = {ref.eigenvalues[-1]:.4f}; a subspace angle "
          "well below 1 means the same top-k subspace)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--trials", type=float, default=2e7, help="audit estimation trials per dataset")
    ap.add_argument("--batch", type=float, default=1e6, help="audit batch size")
    ap.add_argument("--repeats", type=int, default=5, help="interleaved repeats of the audit timing")
    ap.add_argument("--overhead-trials", type=float, default=4e6, help="trials per dataset of the batch-size table")
    ap.add_argument("--pca-rows", type=float, default=1e7)
    ap.add_argument("--pca-d", type=int, default=256)
    ap.add_argument("--pca-chunk", type=int, default=250_000, help="rows per dask chunk")
    ap.add_argument("--pca-dir", default=tempfile.gettempdir(), help="where the data file is written")
    ap.add_argument("--skip-pca", action="store_true")
    ap.add_argument("--skip-audit", action="store_true")
    ap.add_argument("--skip-xtx", action="store_true", help="leave out dask.array's X.T @ X (memory-hungry)")
    args = ap.parse_args(argv)
    import dask

    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs); "
          f"SIMD path: {kernels.build_info()['simd']}; dask {dask.__version__}; workers: {args.workers} "
          f"processes x 1 thread; load at start {_load()}", flush=True)
    with local_cluster(args.workers, threads_per_worker=1) as client:
        if not args.skip_audit:
            _audit(client, args)
            _overhead(client, args)
        if not args.skip_pca:
            _pca(client, args)
    print(f"\nload average at end {_load()} (shared machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

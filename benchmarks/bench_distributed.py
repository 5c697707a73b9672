"""Dask scale-out: a 2-worker LocalCluster against one process, same run.

Usage::

    python benchmarks/bench_distributed.py [--workers 2] [--trials 2e7] [--pca-rows 1e7] [--pca-d 256]
                                           [--pca-dir /tmp] [--skip-pca]

Prints (medians of repeats; the CPU model first: a figure holds for that machine only):

1. **Audit trials/s**: ``audit_mechanism(LaplaceMechanism, ..., batch_size=B)`` here (one process,
   batches one after the other) against ``executor=client`` on the cluster, same seed and batch
   size, hence the same counts (checked).  Target >= 1.7x with 2 workers.
2. **Per-task overhead**: 400 empty tasks through ``client.map``/``gather`` (per-task time), which
   sets the smallest sensible batch.
3. **PCA of an (n, d) float32 array on disk** (a raw file read through ``numpy.memmap`` by each
   worker, chunks of whole rows -- the "data on shared storage" layout): ``kernels.pca`` on the
   dask array against, in the same run, ``dask.array`` itself (``X.T @ X`` by chunks, then
   ``eigh`` here) and against ``kernels.pca`` on the memmap in this process; time and the peak
   resident memory of each worker.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kernels  # noqa: E402
from kernels._backend import cpu_model  # noqa: E402
from theory.audit import audit_mechanism  # noqa: E402
from theory.distributed import local_cluster  # noqa: E402
from theory.privacy.mechanisms import LaplaceMechanism  # noqa: E402


def _read_rows(path: str, n: int, d: int, start: int, stop: int) -> np.ndarray:
    mm = np.memmap(path, dtype=np.float32, mode="r", shape=(n, d))
    return np.array(mm[start:stop])


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _noop(i: int) -> int:
    return i


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--trials", type=float, default=2e7, help="audit estimation trials per dataset")
    ap.add_argument("--batch", type=float, default=1e6, help="audit batch size")
    ap.add_argument("--pca-rows", type=float, default=1e7)
    ap.add_argument("--pca-d", type=int, default=256)
    ap.add_argument("--pca-chunk", type=int, default=250_000, help="rows per dask chunk")
    ap.add_argument("--pca-dir", default=tempfile.gettempdir(), help="where the data file is written")
    ap.add_argument("--skip-pca", action="store_true")
    args = ap.parse_args(argv)
    import dask
    import dask.array as da

    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs); "
          f"SIMD path: {kernels.build_info()['simd']}; dask {dask.__version__}; workers: {args.workers} "
          "processes x 1 thread", flush=True)
    trials, batch = int(args.trials), int(args.batch)
    mech = LaplaceMechanism(1.0)
    kw = dict(epsilon=1.0, trials=trials, rng=0, batch_size=batch, selection_trials=100_000)
    with local_cluster(args.workers, threads_per_worker=1) as client:
        # 1. audit
        rows = []
        t_here, t_cl = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            here = audit_mechanism(mech, 0.0, 1.0, **kw)
            t_here.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            on = audit_mechanism(mech, 0.0, 1.0, executor=client, **kw)
            t_cl.append(time.perf_counter() - t0)
            assert here.witness.counts == on.witness.counts, "counts differ between here and the cluster"
        th, tc = statistics.median(t_here), statistics.median(t_cl)
        n_out = here.trials_used
        rows.append(("audit, one process", th, n_out / th))
        rows.append((f"audit, LocalCluster {args.workers} workers", tc, n_out / tc))
        print("\n| audit (Laplace, 2 datasets) | median time | outputs/s | speed-up |\n|---|---:|---:|---:|")
        for name, t, rate in rows:
            print(f"| {name} | {t:.2f} s | {rate:.3g} | {th / t:.2f}x |")
        print(f"(trials {trials:,} per dataset + selection, batch {batch:,}: {2 * -(-trials // batch)} tasks; "
              "identical counts here and on the cluster)")

        # 2. per-task overhead
        ts = []
        for _ in range(3):
            t0 = time.perf_counter()
            client.gather(client.map(_noop, range(400), pure=False))
            ts.append((time.perf_counter() - t0) / 400)
        print(f"\nper-task overhead (400 empty tasks, median of 3): {statistics.median(ts) * 1e3:.2f} ms")

        # 3. PCA
        if not args.skip_pca:
            n, d, ch = int(args.pca_rows), int(args.pca_d), int(args.pca_chunk)
            path = os.path.join(args.pca_dir, f"sp_bench_pca_{n}x{d}.f32")
            if not os.path.exists(path) or os.path.getsize(path) != n * d * 4:
                mm = np.memmap(path, dtype=np.float32, mode="w+", shape=(n, d))
                g = np.random.default_rng(0)
                scale = np.linspace(3.0, 0.1, d, dtype=np.float32)
                for s in range(0, n, ch):
                    mm[s:s + ch] = g.standard_normal((min(ch, n - s), d), dtype=np.float32) * scale + 1.0
                mm.flush()
                del mm
            parts = [da.from_delayed(dask.delayed(_read_rows)(path, n, d, s, min(s + ch, n)),
                                     shape=(min(s + ch, n) - s, d), dtype=np.float32) for s in range(0, n, ch)]
            X = da.concatenate(parts, axis=0)
            print(f"\n| PCA of {n:,} x {d} float32 ({n * d * 4 / 2**30:.2f} GiB on disk), k=20 | time | "
                  "peak RSS per worker | top eigenvalue |\n|---|---:|---:|---:|")
            client.run(lambda: None)
            t0 = time.perf_counter()
            res = kernels.pca(X, 20)
            t_ours = time.perf_counter() - t0
            rss = client.run(_maxrss_mib)
            print(f"| kernels.pca(dask array) on the cluster | {t_ours:.1f} s | "
                  f"{max(rss.values()):.0f} MiB | {res.eigenvalues[0]:.5f} |")
            client.restart()
            t0 = time.perf_counter()
            mean = X.mean(axis=0)
            G = (X.T.astype(np.float64) @ X.astype(np.float64))
            mean_v, G_v = dask.compute(mean, G)
            C = (G_v - n * np.outer(mean_v, mean_v)) / (n - 1)
            w = np.linalg.eigvalsh(C)[::-1][:20]
            t_dask = time.perf_counter() - t0
            rss = client.run(_maxrss_mib)
            print(f"| dask.array X.T @ X (float64) + eigh | {t_dask:.1f} s | {max(rss.values()):.0f} MiB | "
                  f"{w[0]:.5f} |")
            mm = np.memmap(path, dtype=np.float32, mode="r", shape=(n, d))
            r0 = _maxrss_mib()
            t0 = time.perf_counter()
            ref = kernels.pca(mm, 20)
            t_local = time.perf_counter() - t0
            print(f"| kernels.pca(memmap), this process | {t_local:.1f} s | {_maxrss_mib() - r0:+.0f} MiB here | "
                  f"{ref.eigenvalues[0]:.5f} |")
            print(f"(relative difference of the top-20 eigenvalues, dask vs memmap: "
                  f"{float(np.max(np.abs(res.eigenvalues - ref.eigenvalues) / ref.eigenvalues)):.2e})")
    load = os.getloadavg()
    print(f"\nload average at end {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f} (shared machine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark of ``semiprivate.kernels.pca`` against named baselines measured in the same run.

In memory (default n=200000, d=1024, k=50; float64 and float32), times of

* ``semiprivate.kernels.pca`` (backend "auto" = the compiled Cython/BLAS backend when built, with its default
  worker threads; also ``n_threads=1`` (one accumulator, multithreaded BLAS), the NumPy
  backend, ``method="randomized"`` and, in float64, ``uncentred_tol=0``: the always-centred
  accumulation that the default replaces by the uncentred fold when the mean allows it),
* (a) the floor ``C = X.T @ X; numpy.linalg.eigh(C)`` (no centring, full eigendecomposition),
  and a stricter floor (a') ``X.T @ X`` + only the top-k eigenpairs (``scipy.linalg.eigh``
  ``subset_by_index``, the same LAPACK driver semiprivate.kernels.pca uses),
* (b) scikit-learn ``PCA(n_components=k, svd_solver=...)`` with ``"covariance_eigh"``,
  ``"randomized"`` and ``"full"``.

Targets: ``semiprivate.kernels.pca <= 1.15 x floor`` and ``<= 1.0 x sklearn covariance_eigh``.
Each fast timing is the median of ``--repeats`` interleaved runs, and each ratio the median over
the repetitions of the ratio of two timings taken in the same repetition (paired, so that load
from other tenants of a shared machine hits numerator and denominator alike); the slow solvers
("randomized", "full") run once and are divided by the baselines' medians.  Accuracy: subspace distance ``||P - P_ref||_2`` of the top-k
projectors and the largest eigenvalue error relative to lambda_1, against the float64 two-pass
(centred) covariance.

Streaming (default n=1000000, d=1024, float32, ~4 GB): the data are written to a memory-mapped
``.npy`` file under /tmp (deleted afterwards), then ``semiprivate.kernels.pca`` reads it in a fresh
subprocess that reports its wall time and peak resident set (``VmHWM`` from /proc/self/status,
which includes the memory-mapped file's pages; ``resource.getrusage`` is not used because Linux
carries ``ru_maxrss`` across exec from the parent), next to a subprocess that only imports the
same modules (the baseline RSS).  The same subprocess then projects all n rows onto the top-k
components with ``PCAResult.transform(X, chunk_rows=--chunk-rows)`` (row blocks, each memmap
block's pages released) and reports its time, the peak RSS after it, and its error against a
float64 projection of 2,000 sampled rows.  ``--stream-d`` sets the file's columns (e.g.
``--stream-d 2048``, 7.6 GiB); ``--skip-one-thread`` skips the ``n_threads=1`` run.

Usage::

    python benchmarks/bench_pca.py [--quick] [--stream-d 2048] [--chunk-rows 8192] [--out FILE.md]

The machine this ran on is reported in the header; on a shared machine quote medians and
ratios only.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import CHILD_HEAD, PAUSE_S, finish, run_child, write_memmap  # noqa: E402
from semiprivate import kernels  # noqa: E402
from semiprivate.kernels._reference_pca import subspace_distance  # noqa: E402
from semiprivate.kernels._timing import paired_ratios, time_call, time_interleaved  # noqa: E402


def paired_ratio(t: list[float], ref: list[float]) -> str:
    """Median over the repetitions of ``t[i] / ref[i]`` (paired: both timed in the same
    repetition, so a load change on the shared machine hits both), with the quartiles of those
    ratios in brackets; a single run is divided by the baseline's median."""
    a, b = np.asarray(t), np.asarray(ref)
    if len(a) != len(b):
        return f"{a[0] / np.median(b):.2f}"
    q1, med, q3 = np.percentile(a / b, [25, 50, 75])
    return f"{med:.2f} [{q1:.2f}, {q3:.2f}]"


def make_data(n: int, d: int, dtype: Any, seed: int = 0, k: int = 50) -> np.ndarray:
    """Gaussian data, spectrum sigma_j = 1/sqrt(j) with a factor-5 drop after j = k, non-zero mean.

    The gap after k makes the top-k subspace well defined, so the subspace distances in the
    table measure the solvers, not the ill-conditioning of the problem.
    """
    g = np.random.default_rng(seed)
    j = np.arange(1, d + 1)
    scales = (np.where(j <= k, 1.0, 0.2) / np.sqrt(j)).astype(dtype)
    X = g.standard_normal((n, d), dtype=np.float32 if dtype == np.float32 else np.float64)
    X *= scales
    X += (g.standard_normal(d) * 0.5).astype(dtype)
    return X


def floor_eigh(X: np.ndarray) -> Any:
    """Baseline (a): the uncentred Gram matrix by BLAS and a full symmetric eigendecomposition."""
    return np.linalg.eigh(X.T @ X)


def floor_topk(X: np.ndarray, k: int) -> Any:
    """Stricter floor (a'): the uncentred Gram matrix and only the top-k eigenpairs (LAPACK ?syevr)."""
    import scipy.linalg

    d = X.shape[1]
    return scipy.linalg.eigh(X.T @ X, subset_by_index=[d - k, d - 1], driver="evr", overwrite_a=True)


def sklearn_pca(X: np.ndarray, k: int, solver: str) -> Any:
    """Baseline (b): scikit-learn's PCA with the named solver."""
    from sklearn.decomposition import PCA

    return PCA(n_components=k, svd_solver=solver, random_state=0).fit(X)


def bench_in_memory(n: int, d: int, k: int, repeats: int) -> list[str]:
    rows = [
        f"### In memory: n={n:,}, d={d}, k={k}",
        "",
        "| dtype | method | median s | x floor (a) [quartiles] | x floor (a') | x sklearn cov_eigh | subspace dist | eig rel err |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for dtype in (np.float64, np.float32):
        X = make_data(n, d, dtype, k=k)
        fast: dict[str, Callable[[], Any]] = {
            "kernels.pca (auto)": partial(kernels.pca, X, k),
            "kernels.pca (n_threads=1: one accumulator, threaded BLAS)": partial(kernels.pca, X, k, n_threads=1),
            "kernels.pca (numpy backend)": partial(kernels.pca, X, k, backend="numpy"),
            "floor (a): X.T@X + eigh": partial(floor_eigh, X),
            "floor (a'): X.T@X + top-k eigh": partial(floor_topk, X, k),
            "sklearn covariance_eigh": partial(sklearn_pca, X, k, "covariance_eigh"),
        }
        if dtype == np.float64:  # float32 blocks of these data never qualify for the uncentred fold
            # (their mean is ~7 root total variances, above sqrt(1e-12 / 2^-24) = 0.004)
            fast["kernels.pca (always centred: uncentred_tol=0)"] = partial(kernels.pca, X, k, uncentred_tol=0.0)
        slow: dict[str, Callable[[], Any]] = {
            "kernels.pca randomized (p=10, q=4)": partial(kernels.pca, X, k, method="randomized", rng=0),
            "sklearn randomized": partial(sklearn_pca, X, k, "randomized"),
            "sklearn full": partial(sklearn_pca, X, k, "full"),
        }
        # interleaved, so load changes hit every method alike; a pause before each call (PAUSE_S)
        timed = time_interleaved(fast, repeats, warmup=0, pause=PAUSE_S)
        timed.update({name: time_call(fn, 1, warmup=0, pause=PAUSE_S) for name, fn in slow.items()})
        times = {name: list(t.samples) for name, t in timed.items()}
        outs = {name: t.last for name, t in timed.items()}
        # reference: the float64 two-pass covariance (mean first, then the centred data's Gram
        # matrix), more accurate than every timed method (the one-pass X^T X - n mu mu^T form
        # shares sklearn covariance_eigh's rounding and would favour it)
        Xc64 = X.astype(np.float64)
        Xc64 -= Xc64.mean(0)
        C = (Xc64.T @ Xc64) / (n - 1)
        del Xc64
        w, U = np.linalg.eigh(C)
        V_ref, lam_ref = U[:, ::-1][:, :k], w[::-1][:k]

        def comps(name: str, out: Any) -> tuple[np.ndarray, np.ndarray] | None:
            if name.startswith("kernels"):
                return out.components, out.eigenvalues
            if name.startswith("sklearn"):
                return out.components_.T, out.explained_variance_
            return None

        refs = {
            "floor": "floor (a): X.T@X + eigh",
            "floor2": "floor (a'): X.T@X + top-k eigh",
            "skl": "sklearn covariance_eigh",
        }

        def ratio(name: str, ref: str) -> str:
            return "1.00" if name == refs[ref] else paired_ratio(times[name], times[refs[ref]])  # noqa: B023

        for name in list(fast) + list(slow):
            med = float(np.median(times[name]))
            cv = comps(name, outs[name])
            acc = ("-", "-")
            if cv is not None:
                acc = (f"{subspace_distance(cv[0], V_ref):.1e}", f"{np.max(np.abs(cv[1] - lam_ref)) / lam_ref[0]:.1e}")
            reps = len(times[name])
            rows.append(
                f"| {np.dtype(dtype).name} | {name} | {med:.3f} ({reps}x) | {ratio(name, 'floor')} | {ratio(name, 'floor2')} "
                f"| {ratio(name, 'skl')} "
                f"| {acc[0]} | {acc[1]} |"
            )
            print(rows[-1], flush=True)
        del X, outs
    return rows


CHILD = CHILD_HEAD + r"""

if {run}:
    X = np.load({path!r}, mmap_mode="r")
    t0 = time.perf_counter()
    res = semiprivate.kernels.pca(X, {k}, n_threads={n_threads})
    dt = time.perf_counter() - t0
    lam = float(res.eigenvalues[0])
    rss = peak_rss()
    if {project}:
        t0 = time.perf_counter()
        Z = res.transform(X, chunk_rows={chunk_rows})
        dtp = time.perf_counter() - t0
        rssp = peak_rss()
        idx = np.random.default_rng(0).choice(X.shape[0], 2000, replace=False)
        ref = np.asarray(X[np.sort(idx)], dtype=np.float64) @ res.components - res.mean @ res.components
        err = float(np.max(np.abs(Z[np.sort(idx)] - ref)) / max(1e-300, float(np.max(np.abs(ref)))))
    else:
        dtp, rssp, err = 0.0, rss, 0.0
else:
    dt, lam, dtp, err = 0.0, 0.0, 0.0, 0.0
    rss = rssp = peak_rss()
print(dt, rss, lam, dtp, rssp, err)
"""


def bench_streaming(n: int, d: int, k: int, one_thread: bool = True, chunk_rows: int = 8192) -> list[str]:
    """semiprivate.kernels.pca on a float32 memmap of shape (n, d), then ``PCAResult.transform(X, chunk_rows=...)`` of
    all n rows onto the top-k components (same subprocess; peak RSS read after each step)."""
    path, t_write = write_memmap("bench_pca_", n, d, lambda s, m: make_data(m, d, np.float32, seed=s, k=k))
    try:
        size = path.stat().st_size
        out: dict[str, tuple[float, ...]] = {}
        runs: list[tuple[str, bool, int | None, bool]] = [("baseline", False, None, False), ("auto", True, None, True)]
        if one_thread:
            runs.append(("one", True, 1, False))
        for label, run, n_threads, project in runs:
            code = CHILD.format(root=str(ROOT), run=run, path=str(path), k=k, n_threads=n_threads, project=project,
                                chunk_rows=chunk_rows)
            out[label] = tuple(float(v) for v in run_child(code))
    finally:
        path.unlink(missing_ok=True)
    dt, rss, _, dtp, rssp, err = out["auto"]
    rss0 = out["baseline"][1]
    gib = 1024**3
    rows = [
        f"### Streaming from a memory-mapped file: n={n:,}, d={d}, k={k}, float32 ({size / gib:.2f} GiB)",
        "",
        "| quantity | value |",
        "|---|---|",
        f"| file written in | {t_write:.1f} s (not part of the timing) |",
        f"| kernels.pca wall time | {dt:.2f} s ({n / dt / 1e6:.2f} M rows/s) |",
        f"| peak RSS of the process after pca | {rss / gib:.3f} GiB ({rss / size:.1%} of the data) |",
        f"| peak RSS of the same imports without pca | {rss0 / gib:.3f} GiB |",
        f"| increase due to pca | {(rss - rss0) / 2**20:.0f} MiB |",
        f"| projection of all rows, PCAResult.transform(X, chunk_rows={chunk_rows:,}): wall time "
        f"| {dtp:.2f} s ({n / dtp / 1e6:.2f} M rows/s) |",
        f"| peak RSS after pca + projection | {rssp / gib:.3f} GiB ({rssp / size:.1%} of the data; "
        f"output {n * k * 4 / 2**20:.0f} MiB) |",
        f"| projection max error vs float64 on 2,000 sampled rows (relative to max entry) | {err:.1e} |",
    ]
    if one_thread:
        dt1, rss1 = out["one"][0], out["one"][1]
        rows += [
            f"| kernels.pca n_threads=1 (one accumulator): wall time | {dt1:.2f} s ({dt / dt1:.2f}x for the default) |",
            f"| kernels.pca n_threads=1: increase due to pca | {(rss1 - rss0) / 2**20:.0f} MiB |",
        ]
    for r in rows[4:]:
        print(r, flush=True)
    return rows


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# Speed guard (``--check``): kernels.pca (default backend) may take at most this many times the
# floor (a), X.T@X + a full eigh, on the same data in the same run (median of the per-round ratios
# of CHECK_ROUNDS interleaved rounds).  The full-size table has it at 0.90-0.97x (n=2e5, d=1024);
# the check's smaller problem (n=4e4, d=256) leaves more to per-call overheads, hence the margin.
PCA_FLOOR_TOLERANCE = 1.5
CHECK_SHAPE = (40_000, 256, 20)
CHECK_ROUNDS = 7


def check_against_floor() -> int:
    """Exit status 0 when kernels.pca is within ``PCA_FLOOR_TOLERANCE`` of floor (a), 1 otherwise."""
    n, d, k = CHECK_SHAPE
    X = make_data(n, d, np.float64, k=k)
    t = time_interleaved({"pca": partial(kernels.pca, X, k), "floor": partial(floor_eigh, X)}, CHECK_ROUNDS,
                         warmup=1, pause=PAUSE_S)
    ratio = float(np.median(paired_ratios(t["pca"], t["floor"])))
    ok = ratio <= PCA_FLOOR_TOLERANCE
    print(f"bench_pca --check: kernels.pca / (X.T@X + eigh) = {ratio:.2f}x at n={n}, d={d}, k={k} (tolerance "
          f"{PCA_FLOOR_TOLERANCE:g}x; backends {kernels.available_backends()}): {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=1024)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--stream-n", type=int, default=1_000_000)
    ap.add_argument("--stream-d", type=int, default=None, help="columns of the memmap (default: --d)")
    ap.add_argument("--chunk-rows", type=int, default=8192, help="rows per block of the streamed projection")
    ap.add_argument("--skip-one-thread", action="store_true", help="streaming: skip the n_threads=1 run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes (n=20000, d=256, stream n=100000)")
    ap.add_argument("--skip-streaming", action="store_true")
    ap.add_argument("--skip-in-memory", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown here too")
    ap.add_argument("--check", action="store_true",
                    help=f"speed guard only: exit 1 when kernels.pca is over {PCA_FLOOR_TOLERANCE:g}x X.T@X + eigh")
    args = ap.parse_args(argv)
    if args.check:
        return check_against_floor()
    if args.quick:
        args.n, args.d, args.stream_n = 20_000, 256, 100_000
    info = kernels.build_info()
    import sklearn

    head = [
        "## kernels.pca benchmark",
        "",
        f"CPU {_cpu_model()}; {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}, NumPy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}, backends {info['backends']}, OpenMP threads {info['threads']}; "
        f"load average at start {os.getloadavg()[0]:.1f}.",
        "",
    ]
    print("\n".join(head), flush=True)
    rows = list(head)
    if not args.skip_in_memory:
        rows += bench_in_memory(args.n, args.d, args.k, args.repeats)
    if not args.skip_streaming:
        rows += [""] + bench_streaming(args.stream_n, args.stream_d or args.d, args.k,
                                       one_thread=not args.skip_one_thread, chunk_rows=args.chunk_rows)
    rows += ["", f"load average at end {os.getloadavg()[0]:.1f}."]
    return finish(rows, args.out)


if __name__ == "__main__":
    raise SystemExit(main())

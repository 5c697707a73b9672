"""Benchmark of DP-SGD for a linear probe and of PCA + projection of public data streamed from disk.

1. DP-SGD examples/s (``semiprivate.theory.privacy.dpsgd.dp_sgd``: per-example gradients of a linear model
   as ``c_i z_i``, clipping by ``|c_i| ||z_i||``, one matrix-vector product per step; Poisson
   sampling; Gaussian noise) for d = 64, 512, 2048 and expected batch 256, against, in the same
   run:

   * a naive NumPy loop (one explicit d-vector gradient per example, its norm, clip, add), the
     plain reference of what DP-SGD computes;
   * Opacus (``PrivacyEngine``, ``GradSampleModule`` hooks, Poisson sampling, on CPU) training
     ``torch.nn.Linear(d, 1, bias=False)`` on the same scaled hinge loss -- when ``torch`` and
     ``opacus`` import (optional extra ``pip install semiprivate[bench]``; skipped otherwise),
     timed twice per repetition: with torch's default intra-op threads and with one thread (on a
     loaded 2-core machine the default was up to 10x slower); ratios use the faster of the two.

   Ours also runs on float32 input with ``precision="float32"`` (a column of its own).  Our
   per-step BLAS calls run on one thread (see ``semiprivate.theory.privacy.dpsgd._SINGLE_THREAD_BLAS_MAX``).

   Throughput counts the examples actually in the Poisson batches.  "Whole call" includes our input
   checks (NaN/inf scan) and the per-row norms, one pass over X; "steps only" is the difference
   between a 2S-step and an S-step call (steady state).  Ratios use the whole call (conservative).  The naive loop and ours are
   checked to give the same clipped noisy sum on a fixed batch before timing, and our fast loop to
   give the plain reference loop's weights bit for bit (last column).  Each figure is the
   median of ``--repeats`` interleaved runs; ratios are medians of per-repetition ratios.

2. PCA + projection of n x 2048 float32 public points from a memory-mapped ``.npy`` file:
   ``semiprivate.kernels.pca(memmap, k, center=False)`` then the projection ``X @ A`` written block by block
   to a second memmap, in a fresh subprocess that reports wall time and peak resident set
   (``VmHWM``), next to a subprocess that only imports the same modules.  Pages of consumed
   input blocks are released (``semiprivate.kernels._pca_sources._page_releaser``), so memory stays bounded by the
   block size and the d x d accumulator, not by n.

Usage::

    python benchmarks/bench_dpsgd.py [--quick] [--stream-n N] [--skip-streaming] [--out FILE.md]

The header reports the CPU model and NumPy's BLAS (library, version, threading, SIMD
architecture as threadpoolctl reports it); figures hold for that CPU only.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _common import CHILD_HEAD, blas_info, run_child, write_memmap  # noqa: E402
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.kernels._timing import time_call  # noqa: E402
from semiprivate.theory.privacy.dpsgd import dp_sgd  # noqa: E402
from semiprivate.theory.privacy.linear import clip_factors  # noqa: E402
from semiprivate.theory.privacy.seeds import seed_reuse_allowed  # noqa: E402

MARGIN, CLIP, LR, SIGMA = 0.05, 1.0, 0.1, 1.0
# a longer pause than _common's default: torch's OpenMP pool spins longer after a call
_PAUSE_S = 0.3


def _timed(fn: Any, *args: Any) -> tuple[float, Any]:
    """(seconds, result) of one call ``fn(*args)`` after the pause."""
    t = time_call(partial(fn, *args), 1, warmup=0, pause=_PAUSE_S)
    return t.median, t.last


def make_data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w = g.standard_normal(d)
    y = np.where(X @ w > 0, 1.0, -1.0)
    return X, y


# ---------------------------------------------------------------------------- DP-SGD implementations


def ours(X: np.ndarray, y: np.ndarray, q: float, steps: int, seed: int, precision: str = "float64") -> int:
    r = dp_sgd(X, y, noise_multiplier=SIGMA, sampling_rate=q, steps=steps, clip=CLIP, learning_rate=LR,
               margin=MARGIN, radius=1.0, rng=seed, precision=precision)
    return int(r.batch_sizes.sum())


def ours32(X: np.ndarray, y: np.ndarray, q: float, steps: int, seed: int) -> int:
    return ours(X, y, q, steps, seed, "float32")


def check_reference(d: int) -> bool:
    """dp_sgd's fast loop == the plain reference loop (_dp_sgd_reference), bit for bit, BLAS on one thread."""
    from semiprivate.theory.privacy.dpsgd import _dp_sgd_reference
    from threadpoolctl import threadpool_limits

    X, y = make_data(2000, d, 3)
    kw = dict(noise_multiplier=SIGMA, sampling_rate=0.1, steps=20, clip=CLIP, learning_rate=LR, margin=MARGIN,
              radius=1.0, rng=5)
    fast = dp_sgd(X, y, **kw)
    with threadpool_limits(1, user_api="blas"):
        ref, sizes = _dp_sgd_reference(X, y, **kw)
    return bool(np.array_equal(fast.weights, ref) and np.array_equal(fast.batch_sizes, sizes))


def naive_step(w: np.ndarray, Xb: np.ndarray, yb: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Sum of clipped per-example gradients + noise, one example at a time (explicit d-vectors)."""
    total = np.zeros_like(w)
    for i in range(Xb.shape[0]):
        s = yb[i] * float(Xb[i] @ w) / MARGIN
        grad = (-yb[i] / MARGIN) * Xb[i] if s < 1.0 else np.zeros_like(w)
        nrm = float(np.sqrt(grad @ grad))
        if nrm > CLIP:
            grad = grad * (CLIP / nrm)
        total += grad
    return total + SIGMA * CLIP * noise


def naive(X: np.ndarray, y: np.ndarray, q: float, steps: int, seed: int) -> int:
    g = np.random.default_rng(seed)
    n, d = X.shape
    w = np.zeros(d)
    seen = 0
    for _ in range(steps):
        idx = np.flatnonzero(g.random(n) < q)  # Poisson sampling
        seen += idx.size
        w -= LR / (q * n) * naive_step(w, X[idx], y[idx], g.standard_normal(d))
        nw = float(np.linalg.norm(w))
        if nw > 1.0:
            w /= nw
    return seen


def check_same_step(d: int) -> float:
    """Our clipped sum == the naive loop's on a fixed batch (max abs difference)."""
    X, y = make_data(300, d, 1)
    w = np.random.default_rng(2).standard_normal(d) * 0.01
    coef = y * np.where(y * (X @ w) / MARGIN < 1.0, -1.0, 0.0) / MARGIN
    coef = coef * clip_factors(np.abs(coef) * np.linalg.norm(X, axis=1), CLIP)
    ours_sum = X.T @ coef
    ref = naive_step(w, X, y, np.zeros(d))
    return float(np.max(np.abs(ours_sum - ref)))


def opacus_runner(X: np.ndarray, y: np.ndarray, q: float) -> Any:
    """A prepared Opacus training loop (returns a callable running `steps` steps) or None."""
    try:
        import torch
        from opacus import PrivacyEngine
    except ImportError:
        return None
    import logging
    import warnings

    logging.getLogger("opacus").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    Xt = torch.tensor(X, dtype=torch.float32)
    yt = torch.tensor(y, dtype=torch.float32)
    ds = torch.utils.data.TensorDataset(Xt, yt)
    batch = max(1, int(round(q * len(X))))
    model = torch.nn.Linear(X.shape[1], 1, bias=False)
    torch.nn.init.zeros_(model.weight)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    loader = torch.utils.data.DataLoader(ds, batch_size=batch)
    engine = PrivacyEngine(accountant="rdp")
    model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                             noise_multiplier=SIGMA, max_grad_norm=CLIP, poisson_sampling=True)

    def run(steps: int, threads: int | None = None) -> int:
        before = torch.get_num_threads()
        if threads is not None:
            torch.set_num_threads(threads)
        try:
            return _steps(steps)
        finally:
            torch.set_num_threads(before)

    def _steps(steps: int) -> int:
        seen = 0
        it = iter(loader)
        for _ in range(steps):
            try:
                xb, yb = next(it)
            except StopIteration:
                it = iter(loader)
                xb, yb = next(it)
            seen += int(xb.shape[0])
            opt.zero_grad()
            out = model(xb).squeeze(-1)
            loss = torch.relu(1.0 - yb * out / MARGIN).mean()
            loss.backward()
            opt.step()
        return seen

    return run


def torch_info() -> str:
    try:
        import opacus
        import torch
    except ImportError:
        return "torch/opacus not importable: Opacus column skipped"
    return (f"torch {torch.__version__} (CPU, {torch.get_num_threads()} threads, MKL "
            f"{torch.backends.mkl.is_available()}), opacus {opacus.__version__}")


def bench_dpsgd(dims: list[int], n: int, batch: int, steps: int, repeats: int) -> list[str]:
    rows = [f"### DP-SGD, linear probe, n = {n:,}, expected batch {batch} (Poisson q = {batch / n:.4g}), "
            f"{steps} steps per timing (naive loop: {max(1, steps // 10)} steps), median of {repeats} interleaved "
            "repetitions", "",
            "| d | ours, steps only | ours, whole call | ours float32, whole call | naive NumPy loop | "
            "Opacus, torch default threads | Opacus, 1 torch thread | ours / naive | ours / best Opacus | "
            "ours float32 / best Opacus | clipped sum vs naive (max abs diff) | bitwise = reference loop |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    print("\n".join(rows), flush=True)
    q = batch / n
    for d in dims:
        X, y = make_data(n, d, 0)
        X32 = X.astype(np.float32)
        diff = check_same_step(d)
        same = check_reference(d)
        op = opacus_runner(X, y, q)
        if op is not None:
            op(3)  # warm-up
            op(3, 1)
        ours(X, y, q, 3, 0)
        ours32(X32, y, q, 3, 0)
        rate: dict[str, list[float]] = {k: [] for k in ("steps", "whole", "f32", "naive", "op", "op1")}
        ratio: dict[str, list[float]] = {k: [] for k in ("naive", "op", "op32")}
        for r in range(repeats):
            # whole call (input checks and per-row norms: one pass over X) for `steps` and for 2 * `steps`
            # steps; the difference is the steady-state throughput of the steps alone
            t1, e1 = _timed(ours, X, y, q, steps, r)
            t2, e2 = _timed(ours, X, y, q, 2 * steps, r)
            rate["steps"].append((e2 - e1) / (t2 - t1) if t2 > t1 else math.nan)  # nan: load noise swamped it
            rate["whole"].append(e1 / t1)
            t3, e3 = _timed(ours32, X32, y, q, steps, r)
            rate["f32"].append(e3 / t3)
            tn, e = _timed(naive, X, y, q, max(1, steps // 10), r)
            rate["naive"].append(e / tn)
            ratio["naive"].append(rate["whole"][-1] / rate["naive"][-1])
            if op is not None:
                tp, e = _timed(op, steps)
                rate["op"].append(e / tp)
                tp, e = _timed(op, steps, 1)
                rate["op1"].append(e / tp)
                best = max(rate["op"][-1], rate["op1"][-1])
                ratio["op"].append(rate["whole"][-1] / best)
                ratio["op32"].append(rate["f32"][-1] / best)

        def med(v: list[float], fmt: str = ",.0f", suffix: str = "") -> str:
            v = [x for x in v if np.isfinite(x)]
            return f"{np.median(v):{fmt}}{suffix}" if v else "n/a"

        spread = f" (range {min(ratio['op']):.1f}-{max(ratio['op']):.1f})" if ratio["op"] else ""
        line = (f"| {d} | {med(rate['steps'])} | {med(rate['whole'])} | {med(rate['f32'])} | {med(rate['naive'])} | "
                f"{med(rate['op'])} | {med(rate['op1'])} | {med(ratio['naive'], '.1f', 'x')} | "
                f"{med(ratio['op'], '.1f', 'x')}{spread} | {med(ratio['op32'], '.1f', 'x')} | {diff:.1e} | "
                f"{'yes' if same else 'NO'} |")
        rows.append(line)
        print(line, flush=True)
    rows += ["", "Figures in examples/s (examples in the Poisson batches per second).  \"Best Opacus\" is the faster of "
             "the two Opacus settings in the same repetition."]
    return rows


# ---------------------------------------------------------------------------- streaming PCA + projection

CHILD = CHILD_HEAD + r"""

if {run}:
    X = np.load({path!r}, mmap_mode="r")
    t0 = time.perf_counter()
    res = semiprivate.kernels.pca(X, {k}, center=False, chunk_rows={rows})
    t_pca = time.perf_counter() - t0
    A = np.ascontiguousarray(res.components, dtype=np.float32)
    Z = np.lib.format.open_memmap({out!r}, mode="w+", dtype=np.float32, shape=(X.shape[0], {k}))
    release = semiprivate.kernels._pca_sources._page_releaser(X)
    t1 = time.perf_counter()
    for s in range(0, X.shape[0], {rows}):
        block = X[s:s + {rows}]
        Z[s:s + {rows}] = block @ A
        if release is not None:
            release(block)
    Z.flush()
    t_proj = time.perf_counter() - t1
    check = float(np.abs(np.asarray(Z[:1000]) - np.asarray(X[:1000]) @ A).max())
else:
    t_pca = t_proj = check = 0.0
print(t_pca, t_proj, peak_rss(), check)
"""


def bench_streaming(n: int, d: int, k: int, rows: int) -> list[str]:
    g = np.random.default_rng(0)
    basis = np.linalg.qr(g.standard_normal((d, 64)))[0].astype(np.float32)
    scale = (0.7 ** np.arange(64)).astype(np.float32)

    def block(s: int, m: int) -> np.ndarray:
        blk = (g.standard_normal((m, 64)).astype(np.float32) * scale) @ basis.T
        blk += 0.01 * g.standard_normal((m, d)).astype(np.float32)
        return blk / np.linalg.norm(blk, axis=1, keepdims=True)

    path, t_write = write_memmap("bench_dpsgd_", n, d, block)
    out = Path(str(path) + ".proj.npy")
    try:
        size = path.stat().st_size
        res = {}
        for label, run in (("baseline", False), ("run", True)):
            code = CHILD.format(root=str(ROOT), run=run, path=str(path), out=str(out), k=k, rows=rows)
            res[label] = [float(v) for v in run_child(code)]
    finally:
        path.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
    t_pca, t_proj, rss, check = res["run"]
    rss0 = res["baseline"][2]
    gib = 1024**3
    lines = [f"### PCA + projection streamed from a memmap: n = {n:,}, d = {d}, k = {k}, float32 "
             f"({size / gib:.2f} GiB), blocks of {rows:,} rows", "",
             "| quantity | value |", "|---|---|",
             f"| file written in | {t_write:.1f} s (not timed) |",
             f"| kernels.pca (uncentred) | {t_pca:.2f} s ({n / t_pca / 1e6:.2f} M rows/s) |",
             f"| projection X @ A to a (n, k) memmap | {t_proj:.2f} s ({n / t_proj / 1e6:.2f} M rows/s) |",
             f"| peak RSS of the process | {rss / gib:.3f} GiB ({rss / size:.1%} of the data) |",
             f"| peak RSS of the same imports, no work | {rss0 / gib:.3f} GiB |",
             f"| increase due to PCA + projection | {(rss - rss0) / 2**20:.0f} MiB |",
             f"| projection check (first 1000 rows, max abs diff) | {check:.1e} |"]
    print("\n".join(lines), flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dims", type=str, default="64,512,2048")
    ap.add_argument("--stream-n", type=int, default=1_000_000)
    ap.add_argument("--stream-d", type=int, default=2048)
    ap.add_argument("--stream-k", type=int, default=50)
    ap.add_argument("--stream-rows", type=int, default=8192)
    ap.add_argument("--quick", action="store_true", help="n=10000, 50 steps, 1 repeat, stream n=20000")
    ap.add_argument("--skip-streaming", action="store_true")
    ap.add_argument("--skip-dpsgd", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.steps, args.repeats, args.stream_n = 10_000, 50, 1, 20_000
    head = ["## DP-SGD and streaming PCA benchmark", "",
            f"CPU: {cpu_model()} ({os.cpu_count()} cores visible); {platform.platform()}; Python "
            f"{platform.python_version()}; NumPy {np.__version__}, BLAS: {blas_info()}; {torch_info()}; "
            f"load average at start {os.getloadavg()[0]:.1f}.", ""]
    print("\n".join(head), flush=True)
    rows = list(head)
    if not args.skip_dpsgd:
        # timing runs replay one seed across implementations and precisions (common random numbers), not releases
        with seed_reuse_allowed():
            rows += bench_dpsgd([int(v) for v in args.dims.split(",")], args.n, args.batch, args.steps, args.repeats)
    if not args.skip_streaming:
        rows += [""] + bench_streaming(args.stream_n, args.stream_d, args.stream_k, args.stream_rows)
    rows += ["", f"load average at end {os.getloadavg()[0]:.1f}."]
    text = "\n".join(rows) + "\n"
    if args.out is not None:
        args.out.write_text(text)
    return 0 if math.isfinite(len(rows)) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""CuPy (GPU) backend of the exponential mechanism and of the popcount error counts.

Called by :func:`semiprivate.kernels.exponential_mechanism` / :func:`semiprivate.kernels.error_counts` with a CuPy
array (or ``backend="cupy"``); inputs are already validated there.  CuPy is imported lazily,
inside the functions, so importing this module never needs a GPU.

The CUDA source is ``expmech.cu`` next to this file (compiled at run time by NVRTC through
:class:`cupy.RawModule`; CI compiles it with ``nvcc -ptx``).  Algorithm, as on the CPU:

1. ``sp_pass_*``: one block per chunk of 4096 scores, read once: block maximum, NaN/+inf
   flags and ``S_c = sum exp(c (s_i - m_c))`` (a fused block-level log-sum-exp).
2. ``sp_combine_*`` (one block): chunk weights ``W_c = S_c exp(c (m_c - M))``, their prefix
   sums ``P`` (sequential within each thread's run of chunks, the run totals scanned in order:
   every prefix carries at most ``C - 1`` roundings, as a sequential sum does, so the error bound
   of :func:`semiprivate.kernels.sampler_error_bounds` holds unchanged, and ``P`` is non-decreasing), the
   last chunk with ``W_c > 0`` and a status word (NaN, +inf, no positive weight).
3. ``sp_select_*``: one block per draw finds its chunk with ``u1`` (first ``P_c > u1 P_last``,
   a binary search, clamped to the last positive chunk), re-reads the chunk, block prefix sum,
   picks the entry with a second uniform ``u2``.

The host reads one small array back (the status, and the draw when ``size`` is None): one
synchronisation per call, so the fixed cost is a few kernel launches.  (An earlier version
computed steps 2-3 with CuPy array operations and read back four scalars; on an H100 it took
0.5-0.7 ms per call at N <= 1e7, slower than CuPy's own softmax + searchsorted;
``benchmarks/bench_gpu.py`` measures both.)

The uniforms come from the caller's NumPy generator (copied to the device), so a seed gives
the same uniform stream as the Cython backend (two uniforms per draw), but not the same
indices: the chunks here hold 4096 scores against 2048 on the CPU, so the same uniforms pick
different entries (the distribution is the same).  Results are reproducible under a fixed
seed per backend, not across backends.  Floating-point error is of the same form as the Cython
backend's (see :func:`semiprivate.kernels.exponential_mechanism`), with ``CHUNK = 4096`` and CUDA's
double-precision ``exp`` (maximum error 1 ulp per the CUDA Math API).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["exponential_mechanism", "error_counts", "CHUNK", "THREADS", "SOURCE"]

THREADS = 256
CHUNK = 256 * 16
SOURCE = Path(__file__).with_name("expmech.cu")


@functools.lru_cache(maxsize=1)
def _module() -> Any:
    import cupy  # type: ignore[import-not-found]

    return cupy.RawModule(code=SOURCE.read_text(), options=("--std=c++14",))


def _prepare(scores: Any) -> Any:
    """Contiguous float64/float32/int64 device scores: :func:`semiprivate.kernels._scores.prepare_scores`
    (the shift rules of the CPU path) applied with ``xp = cupy``."""
    import cupy
    from semiprivate.kernels._scores import prepare_scores

    return prepare_scores(cupy.asarray(scores), cupy)


def _kernel(name: str) -> Any:
    """The compiled kernel ``name`` of ``expmech.cu`` (looked up once)."""
    fn = _KERNELS.get(name)
    if fn is None:
        fn = _KERNELS[name] = _module().get_function(name)
    return fn


_KERNELS: dict[str, Any] = {}


def exponential_mechanism(scores: Any, c: float, size: int | None, rng: np.random.Generator) -> Any:
    """``size`` draws (CuPy int64 array) or one ``int``; ``c = epsilon / (2 sensitivity)``.

    Three kernel launches and one device -> host read (the status word, with the draw when
    ``size`` is None): ``sp_pass_*`` over the chunks, ``sp_combine_*`` (one block: chunk weights,
    prefix sums, last positive chunk, status), ``sp_select_*`` (one block per draw).
    """
    import cupy

    s = _prepare(scores)
    n = int(s.shape[0])
    k = 1 if size is None else int(size)
    if k == 0:
        return cupy.empty(0, dtype=cupy.int64)
    nc = (n + CHUNK - 1) // CHUNK
    n64, c64, nc64, k64 = np.int64(n), np.float64(c), np.int64(nc), np.int64(k)
    u = cupy.asarray(rng.random(2 * k))  # u[:k] pick chunks, u[k:] entries: two uniforms per draw
    csum = cupy.empty(nc, dtype=cupy.float64)
    P = cupy.empty(nc, dtype=cupy.float64)
    res = cupy.empty(k + 2, dtype=cupy.int64)  # the draws, then the last positive chunk and the status
    if s.dtype == cupy.int64:
        cmax = cupy.empty(nc, dtype=cupy.int64)
        _kernel("sp_pass_i64")((nc,), (THREADS,), (s, n64, c64, cmax, csum))
        _kernel("sp_combine_i64")((1,), (THREADS,), (cmax, csum, nc64, c64, P, k64, res))
        select = "sp_select_i64"
    else:
        suffix = "f64" if s.dtype == cupy.float64 else "f32"
        cmax = cupy.empty(nc, dtype=cupy.float64)
        cflags = cupy.empty(nc, dtype=cupy.int32)
        _kernel("sp_pass_" + suffix)((nc,), (THREADS,), (s, n64, c64, cmax, csum, cflags))
        _kernel("sp_combine_f")((1,), (THREADS,), (cmax, csum, cflags, nc64, c64, P, k64, res))
        select = "sp_select_" + suffix
    _kernel(select)((k,), (THREADS,), (s, n64, c64, cmax, P, nc64, u, k64, res))
    if size is None:
        first, _, status = (int(v) for v in res.get())  # the one synchronisation
    else:
        status = int(res[k + 1])
    if status & 1:
        raise ValueError("scores must not contain NaN")
    if status & 2:  # +inf present: uniform over the +inf entries
        where = cupy.flatnonzero(cupy.isposinf(s))
        pick = cupy.asarray(rng.integers(0, int(where.size), size=k))
        out = where[pick].astype(cupy.int64)
        return int(out[0]) if size is None else out
    if status & 4:
        raise ValueError("scores must contain at least one entry > -inf (all scores are -inf)")
    return first if size is None else res[:k]


def error_counts(predictions: Any, labels: Any) -> Any:
    """Mismatch counts per row on the GPU (shapes and 0/1 values already checked)."""
    import cupy

    P = cupy.asarray(predictions)
    y = cupy.asarray(labels).astype(cupy.bool_)
    m = int(y.shape[0])
    H = int(P.shape[0])
    if P.dtype != cupy.uint64:
        return cupy.count_nonzero(P.astype(cupy.bool_) != y[None, :], axis=1).astype(cupy.int64)
    words = (m + 63) // 64
    # pack the labels the same way as semiprivate.kernels.pack_bits (little-endian bits in uint64 words)
    bits = cupy.zeros(words * 64, dtype=cupy.uint64)
    bits[:m] = y.astype(cupy.uint64)
    lab = (bits.reshape(words, 64) << cupy.arange(64, dtype=cupy.uint64)).sum(axis=1).astype(cupy.uint64)
    Pc = cupy.ascontiguousarray(P)
    if m % 64:
        Pc = Pc.copy()
        Pc[:, -1] &= cupy.uint64((1 << (m % 64)) - 1)
    out = cupy.empty(H, dtype=cupy.int64)
    rows_per_block = THREADS // 32
    blocks = (H + rows_per_block - 1) // rows_per_block
    _module().get_function("sp_errors_packed")((blocks,), (THREADS,), (Pc, lab, np.int64(H), np.int64(words), out))
    return out

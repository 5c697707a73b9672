"""CuPy (GPU) backend of the exponential mechanism and of the popcount error counts.

Called by :func:`kernels.exponential_mechanism` / :func:`kernels.error_counts` with a CuPy
array (or ``backend="cupy"``); inputs are already validated there.  CuPy is imported lazily,
inside the functions, so importing this module never needs a GPU.

The CUDA source is ``expmech.cu`` next to this file (compiled at run time by NVRTC through
:class:`cupy.RawModule`; CI compiles it with ``nvcc -ptx``).  Algorithm, as on the CPU:

1. ``sp_pass_*``: one block per chunk of 4096 scores, read once: block maximum, NaN/+inf
   flags and ``S_c = sum exp(c (s_i - m_c))`` (a fused block-level log-sum-exp).
2. chunk weights ``W_c = S_c exp(c (m_c - M))`` and their prefix sums (CuPy ``cumsum``);
   ``size`` uniforms ``u1`` pick chunks by ``searchsorted``.
3. ``sp_select_*``: one block per draw re-reads its chunk, block prefix sum, picks the entry
   with a second uniform ``u2``.

The uniforms come from the caller's NumPy generator (copied to the device), so a seed gives
the same uniform stream as the Cython backend (two uniforms per draw), but not the same
indices: the chunks here hold 4096 scores against 2048 on the CPU, so the same uniforms pick
different entries (the distribution is the same).  Results are reproducible under a fixed
seed per backend, not across backends.  Floating-point error is of the same form as the Cython
backend's (see :func:`kernels.exponential_mechanism`), with ``CHUNK = 4096`` and CUDA's
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
    """Contiguous float64/float32/int64 device scores: :func:`kernels._exponential.prepare_scores`
    (the shift rules of the CPU path) applied with ``xp = cupy``."""
    import cupy

    from kernels._exponential import prepare_scores

    return prepare_scores(cupy.asarray(scores), cupy)


def exponential_mechanism(scores: Any, c: float, size: int | None, rng: np.random.Generator) -> Any:
    """``size`` draws (CuPy int64 array) or one ``int``; ``c = epsilon / (2 sensitivity)``."""
    import cupy

    s = _prepare(scores)
    n = int(s.shape[0])
    k = 1 if size is None else int(size)
    if k == 0:
        return cupy.empty(0, dtype=cupy.int64)
    mod = _module()
    nc = (n + CHUNK - 1) // CHUNK
    csum = cupy.empty(nc, dtype=cupy.float64)
    n64, c64 = np.int64(n), np.float64(c)
    u = rng.random(2 * k)
    if s.dtype == cupy.int64:
        cmax = cupy.empty(nc, dtype=cupy.int64)
        mod.get_function("sp_pass_i64")((nc,), (THREADS,), (s, n64, c64, cmax, csum))
        M = cmax.max()
        d = (M.astype(cupy.uint64) - cmax.astype(cupy.uint64)).astype(cupy.float64)  # exact differences
        W = csum * cupy.exp(-c * d)
        select = mod.get_function("sp_select_i64")
    else:
        suffix = "f64" if s.dtype == cupy.float64 else "f32"
        cmax = cupy.empty(nc, dtype=cupy.float64)
        cflags = cupy.empty(nc, dtype=cupy.int32)
        mod.get_function("sp_pass_" + suffix)((nc,), (THREADS,), (s, n64, c64, cmax, csum, cflags))
        if bool(((cflags & 1) != 0).any()):
            raise ValueError("scores must not contain NaN")
        if bool(((cflags & 2) != 0).any()):  # +inf present: uniform over the +inf entries
            where = cupy.flatnonzero(cupy.isposinf(s))
            pick = cupy.asarray(rng.integers(0, int(where.size), size=k))
            out = where[pick].astype(cupy.int64)
            return int(out[0]) if size is None else out
        M = cmax.max()
        W = cupy.where(csum > 0, csum * cupy.exp(c * (cmax - M)), 0.0)
        select = mod.get_function("sp_select_" + suffix)
    P = cupy.cumsum(W)
    if not float(P[-1]) > 0.0:
        raise ValueError("scores must contain at least one entry > -inf (all scores are -inf)")
    last_positive = int(cupy.flatnonzero(W > 0)[-1])
    u_dev = cupy.asarray(u)
    j = cupy.searchsorted(P, u_dev[:k] * P[-1], side="right")
    j = cupy.minimum(j, last_positive).astype(cupy.int64)  # u1 * total rounded up to the total
    out = cupy.empty(k, dtype=cupy.int64)
    select((k,), (THREADS,), (s, n64, c64, cmax, j, cupy.ascontiguousarray(u_dev[k:]), out))
    return int(out[0]) if size is None else out


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
    # pack the labels the same way as kernels.pack_bits (little-endian bits in uint64 words)
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

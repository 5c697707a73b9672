"""CuPy (GPU) backend of the exponential mechanism and of the popcount error counts.

Called by :func:`semiprivate.kernels.exponential_mechanism` / :func:`semiprivate.kernels.error_counts` with a CuPy
array (or ``backend="cupy"``); inputs are already validated there.  CuPy is imported lazily,
inside the functions, so importing this module never needs a GPU.

The CUDA source is ``expmech.cu`` next to this file (compiled at run time by NVRTC through
:class:`cupy.RawModule`; CI compiles it with ``nvcc -ptx``).  Its algorithm is specified by the NumPy
emulation :mod:`semiprivate.kernels._cupy.onepass` (tested on the CPU against the exact law; the GPU tests
check that the device makes the emulation's picks from the same uniforms):

1. ``sp_pass_*``: one block per chunk of 4096 scores, read once: block maximum, NaN/+inf
   flags and ``S_j = sum exp(c (s_i - m_j))`` (a fused block-level log-sum-exp).  The only full
   read of the scores.
2. ``sp_tiles_*``: one block per tile of 256 chunks: the tile maximum and sum.
3. ``sp_select_*``: one block per draw: the status (NaN, +inf, no positive weight), then a tile, a
   chunk of it and an entry of that chunk (the chunk re-read), each by a monotone inversion with
   its own uniform (three per draw).  From :data:`~semiprivate.kernels._cupy.onepass.SORT_MIN` draws on,
   the host sorts the tile uniforms once and block ``b`` computes draw ``perm[b]``, so that
   neighbouring blocks re-read the same tiles; the draws are the same as unsorted.

Three launches and one device -> host read (the status, with the draw when ``size`` is None).
The uniforms come from the caller's NumPy generator (``rng.random(3 k)``, copied to the device),
so a seed gives reproducible draws per backend, but not the same indices as another backend (the
Cython backend reads two uniforms per draw and cuts chunks of 2048).  Floating-point error is of the form stated in
:func:`semiprivate.kernels.exponential_mechanism`, with the stages counted by
:func:`semiprivate.kernels.sampler_error_bounds` (``backend="cupy"``) and CUDA's double-precision ``exp``
(maximum error 1 ulp per the CUDA Math API).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from semiprivate.kernels._cupy.onepass import CHUNK, SORT_MIN, THREADS, TILE, UNIFORMS_PER_DRAW, draw_order
from semiprivate.kernels._memo import memo, memo_table

__all__ = ["exponential_mechanism", "error_counts", "CHUNK", "TILE", "THREADS", "SOURCE"]

SOURCE = Path(__file__).with_name("expmech.cu")


@memo(maxsize=1)
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


#: The compiled kernels by name (:func:`_kernel`): a registered memo table (:func:`semiprivate.kernels._memo.memo_table`),
#: put back after a search that hides its number of runs.
_KERNELS: dict[str, Any] = memo_table(f"{__name__}._KERNELS")


def exponential_mechanism(scores: Any, c: float, size: int | None, rng: np.random.Generator) -> Any:
    """``size`` draws (CuPy int64 array) or one ``int``; ``c = epsilon / (2 sensitivity)``.

    Three kernel launches (``sp_pass_*``, ``sp_tiles_*``, ``sp_select_*``) and one device -> host read
    (the status word, with the draw when ``size`` is None).
    """
    import cupy

    s = _prepare(scores)
    n = int(s.shape[0])
    k = 1 if size is None else int(size)
    if k == 0:
        return cupy.empty(0, dtype=cupy.int64)
    nc = (n + CHUNK - 1) // CHUNK
    nt = (nc + TILE - 1) // TILE
    n64, c64, nc64, nt64, k64 = np.int64(n), np.float64(c), np.int64(nc), np.int64(nt), np.int64(k)
    sums = cupy.empty(nc + nt, dtype=cupy.float64)  # one allocation: chunk sums, tile sums
    csum, tsum = sums[:nc], sums[nc:]
    # The pass and the tiles need no uniform: they are queued first, so that the device reads the scores
    # while the host draws the uniforms and copies them over (the same uniforms as before, in the same order).
    if s.dtype == cupy.int64:
        maxima = cupy.empty(nc + nt, dtype=cupy.int64)
        cmax, tmax = maxima[:nc], maxima[nc:]
        _kernel("sp_pass_i64")((nc,), (THREADS,), (s, n64, c64, cmax, csum))
        _kernel("sp_tiles_i64")((nt,), (THREADS,), (cmax, csum, nc64, c64, tmax, tsum))
    else:
        suffix = "f64" if s.dtype == cupy.float64 else "f32"
        maxima = cupy.empty(nc + nt, dtype=cupy.float64)
        flags = cupy.empty(nc + nt, dtype=cupy.int32)
        cmax, tmax, cflags, tflags = maxima[:nc], maxima[nc:], flags[:nc], flags[nc:]
        _kernel("sp_pass_" + suffix)((nc,), (THREADS,), (s, n64, c64, cmax, csum, cflags))
        _kernel("sp_tiles_f")((nt,), (THREADS,), (cmax, csum, cflags, nc64, c64, tmax, tsum, tflags))
    u_host = rng.random(UNIFORMS_PER_DRAW * k)  # tiles, chunks, entries: three uniforms per draw
    order = draw_order(u_host[:k], SORT_MIN)
    u = cupy.asarray(u_host)
    res = cupy.empty(k + 1, dtype=cupy.int64)  # the draws, then the status
    perm, use_perm = (cupy.asarray(order), np.int32(1)) if order is not None else (res, np.int32(0))
    if s.dtype == cupy.int64:
        _kernel("sp_select_i64")((k,), (THREADS,), (s, n64, c64, cmax, csum, nc64, tmax, tsum, nt64, u, perm,
                                                    use_perm, k64, res))
    else:
        _kernel("sp_select_" + suffix)((k,), (THREADS,), (s, n64, c64, cmax, csum, nc64, tmax, tsum, tflags, nt64, u,
                                                          perm, use_perm, k64, res))
    if size is None:
        first, status = (int(v) for v in res.get())  # the one synchronisation
    else:
        status = int(res[k])
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

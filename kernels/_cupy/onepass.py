"""The GPU exponential-mechanism sampler's algorithm in NumPy: the specification ``expmech.cu`` implements.

No CuPy here: this module runs on any machine, so the tests check the device ALGORITHM (its block
decomposition, its three-level inversion, its monotone prefix sums and its sorted draw order) against
the exact law on the CPU; the GPU tests check that the device gives the same picks as this emulation
from the same uniforms.

Algorithm (``c = epsilon / (2 sensitivity)``; scores cut into chunks of ``CHUNK`` entries, chunks
grouped into tiles of ``TILE`` chunks):

1. ``sp_pass_*`` -- one read of the scores: per chunk ``j`` its maximum ``m_j`` and
   ``S_j = sum_i exp(c (s_i - m_j))`` (the chunk sits in registers: max and sum from one load), with
   NaN / +inf flags.  :func:`chunk_pass`.
2. ``sp_tiles_*`` -- per tile ``t``: ``M_t = max m_j`` and ``T_t = sum_j S_j exp(c (m_j - M_t))``
   over its chunks (a block reduction of ``TILE`` values).  :func:`tile_pass`.
3. ``sp_select_*`` -- one block per draw, three inversions with three uniforms ``u1, u2, u3``:
   a tile with weights ``T_t exp(c (M_t - M))`` (``M = max_t M_t``), then a chunk of that tile with
   weights ``S_j exp(c (m_j - M_t))``, then an entry of that chunk (re-read) with weights
   ``exp(c (s_i - m_j))``.  Every level is :func:`monotone_pick`.  In exact arithmetic the
   product of the three conditional probabilities is ``exp(c s_i) / sum_l exp(c s_l)``: the law is
   the exponential mechanism's by construction, whatever the decomposition.

:func:`monotone_pick` is what one block computes: thread ``r`` of ``THREADS`` owns a contiguous run of
the weights and sums it sequentially; one thread scans the run totals in order (``off_{r+1} =
fl(off_r + total_r)``), so every prefix ``P_i = fl(off_r + local_i)`` is one rounding away from the
one before and ``P`` is non-decreasing (rounding is monotone); the pick is the first ``i`` with
``P_i > u * P_last`` (it has a positive weight), else -- when ``u * P_last`` rounds up to
``P_last`` -- the last positive weight.  No decision depends on a parallel scan's association order.

Draw order: with ``k >= SORT_MIN`` draws the host sorts ``u1`` once (a NumPy argsort of the uniforms
it already holds) and block ``b`` computes draw ``perm[b]``: consecutive blocks then re-read the same
tiles (L2 hits); each draw's result depends on its own three uniforms only, so the output is the
same as unsorted, by construction (:func:`select` takes ``perm``; the tests check it).

Floating point: every level's weights carry the roundings of one ``exp`` and one product; the
sums at most ``CHUNK``, ``TILE`` and ``n_tiles`` sequential roundings plus ``log2(THREADS)`` in the
tile reduction: :func:`semiprivate.kernels.sampler_error_bounds` with ``backend="cupy"`` counts
``CHUNK + TILE + log2(THREADS) + n_tiles`` stages.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["THREADS", "ITEMS", "CHUNK", "TILE", "SORT_MIN", "UNIFORMS_PER_DRAW", "chunk_pass", "tile_pass",
           "monotone_pick", "prefix", "monotone_picks", "select", "sample", "draw_order"]

#: threads per block (``SP_THREADS`` in expmech.cu)
THREADS = 256
#: scores per thread in the chunk pass (``SP_ITEMS``)
ITEMS = 16
#: scores per chunk (``SP_CHUNK = SP_THREADS * SP_ITEMS``)
CHUNK = THREADS * ITEMS
#: chunks per tile (``SP_TILE``): one thread per chunk in ``sp_tiles_*``
TILE = THREADS
#: from this many draws on, the host sorts the tile uniforms once and the blocks follow that order
SORT_MIN = 4096
#: uniforms per draw: tile, chunk, entry
UNIFORMS_PER_DRAW = 3


def _weights(s: NDArray[Any], m: Any, c: float) -> NDArray[np.float64]:
    """``exp(c (s - m))``: float scores in float64; int64 scores by the exact difference ``m - s`` (as the device)."""
    if s.dtype == np.int64:
        d = (np.asarray(m).astype(np.uint64) - s.astype(np.uint64)).astype(np.float64)
        return np.exp(-c * d)
    with np.errstate(invalid="ignore"):
        return np.exp(c * (s.astype(np.float64) - m))


def chunk_pass(s: NDArray[Any], c: float, chunk: int = CHUNK) -> tuple[NDArray[Any], NDArray[np.float64], int]:
    """Step 1: per-chunk maxima ``m`` and sums ``S`` (``S = 0`` for a chunk without a finite maximum), and
    the status bits 1 (NaN) and 2 (+inf) over all chunks."""
    n = s.shape[0]
    nc = -(-n // chunk)
    pad = nc * chunk - n
    if s.dtype == np.int64:
        lowest = np.iinfo(np.int64).min
        blocks = np.concatenate([s, np.full(pad, lowest, dtype=np.int64)]).reshape(nc, chunk)
        m = blocks.max(axis=1)
        valid = np.arange(nc * chunk).reshape(nc, chunk) < n
        w = np.where(valid, _weights(blocks, m[:, None], c), 0.0)
        return m, w.sum(axis=1), 0
    x = np.concatenate([s.astype(np.float64), np.full(pad, -np.inf)]).reshape(nc, chunk)
    status = (1 if np.isnan(x).any() else 0) | (2 if np.isposinf(x).any() else 0)
    m = np.where(np.isnan(x), -np.inf, x).max(axis=1)
    finite = np.isfinite(m)
    S = np.zeros(nc)
    if finite.any():
        S[finite] = _weights(x[finite], m[finite, None], c).sum(axis=1)
    return m, S, status


def tile_pass(m: NDArray[Any], S: NDArray[np.float64], c: float,
              tile: int = TILE) -> tuple[NDArray[Any], NDArray[np.float64]]:
    """Step 2: per-tile maxima ``M_t`` and sums ``T_t = sum_j S_j exp(c (m_j - M_t))`` (positive ``S_j`` only)."""
    nc = m.shape[0]
    nt = -(-nc // tile)
    Mt = np.array([m[t * tile:(t + 1) * tile].max() for t in range(nt)], dtype=m.dtype)
    Tt = np.array([_scaled(m[t * tile:(t + 1) * tile], S[t * tile:(t + 1) * tile], Mt[t], c).sum()
                   for t in range(nt)])
    return Mt, Tt


def _scaled(m: NDArray[Any], S: NDArray[np.float64], M: Any, c: float) -> NDArray[np.float64]:
    """``S exp(c (m - M))`` where ``S > 0``, else 0 (the device's chunk and tile weights)."""
    out = np.zeros(S.shape[0])
    pos = S > 0
    if pos.any():
        out[pos] = S[pos] * _weights(m[pos], M, c) if m.dtype == np.int64 else S[pos] * np.exp(c * (m[pos] - M))
    return out


def monotone_pick(w: NDArray[np.float64], u: float, threads: int = THREADS) -> int:
    """One block's inversion of the weights ``w`` with the uniform ``u`` (see the module docstring); -1 when
    the total is not positive."""
    n = w.shape[0]
    seg = -(-n // threads)
    off = 0.0
    runs = []
    for r in range(threads):  # run totals, sequential within each run
        lo, hi = min(r * seg, n), min((r + 1) * seg, n)
        acc = 0.0
        for x in w[lo:hi].tolist():
            acc += x
        runs.append((lo, hi, off))
        off = off + acc  # thread 0's ordered scan of the run totals
    total = off
    if not total > 0.0:
        return -1
    target = u * total
    for lo, hi, start in runs:
        a = 0.0
        for i in range(lo, hi):
            a += float(w[i])
            if w[i] > 0.0 and start + a > target:
                return i
    return int(np.flatnonzero(w > 0.0)[-1])


def prefix(w: NDArray[np.float64], threads: int = THREADS) -> NDArray[np.float64]:
    """The prefix values ``P_i`` that :func:`monotone_pick` compares (``P[-1]`` is the total), vectorised:
    ``np.cumsum`` accumulates sequentially, as each thread does within its run."""
    n = w.shape[0]
    seg = -(-n // threads)
    P = np.empty(n)
    off = 0.0
    for lo in range(0, n, seg):
        local = np.cumsum(w[lo:lo + seg])
        P[lo:lo + seg] = off + local
        off = off + float(local[-1])  # thread 0's ordered scan: the same sum as the run's last prefix
    return P


def monotone_picks(w: NDArray[np.float64], u: NDArray[np.float64], threads: int = THREADS) -> NDArray[np.int64]:
    """:func:`monotone_pick` for many uniforms on the same weights (P is non-decreasing: a binary search)."""
    P = prefix(w, threads)
    total = P[-1]
    if not total > 0.0:
        return np.full(u.shape[0], -1, dtype=np.int64)
    i = np.searchsorted(P, u * total, side="right")
    return np.where(i < w.shape[0], i, np.flatnonzero(w > 0.0)[-1]).astype(np.int64)


def draw_order(u1: NDArray[np.float64], sort_min: int = SORT_MIN) -> NDArray[np.int64] | None:
    """The block order of the draws: ``argsort(u1)`` (stable) from ``sort_min`` draws on, else None (block b = draw b)."""
    if u1.shape[0] < sort_min:
        return None
    return np.argsort(u1, kind="stable").astype(np.int64)


def select(s: NDArray[Any], c: float, m: NDArray[Any], S: NDArray[np.float64], Mt: NDArray[Any],
           Tt: NDArray[np.float64], u: NDArray[np.float64], perm: NDArray[np.int64] | None = None, *,
           chunk: int = CHUNK, tile: int = TILE, threads: int = THREADS) -> NDArray[np.int64]:
    """Step 3 for ``k = len(u) // 3`` draws (``u[:k]`` tiles, ``u[k:2k]`` chunks, ``u[2k:]`` entries); block ``b``
    computes draw ``perm[b]`` (or ``b``).  Requires a positive total (the host checks the status first).

    Vectorised over the draws that share a tile (a chunk): the same weights, hence the same prefix values."""
    k = u.shape[0] // UNIFORMS_PER_DRAW
    order = np.arange(k) if perm is None else np.asarray(perm, dtype=np.int64)
    u1, u2, u3 = u[:k][order], u[k:2 * k][order], u[2 * k:3 * k][order]  # block b's uniforms
    n, nc = s.shape[0], m.shape[0]
    t = monotone_picks(_scaled(Mt, Tt, Mt.max(), c), u1, threads)
    j = np.empty(k, dtype=np.int64)
    for tt in np.unique(t).tolist():
        at = t == tt
        lo, hi = tt * tile, min(tt * tile + tile, nc)
        j[at] = lo + monotone_picks(_scaled(m[lo:hi], S[lo:hi], Mt[tt], c), u2[at], threads)
    out = np.empty(k, dtype=np.int64)
    for jj in np.unique(j).tolist():
        at = j == jj
        lo, hi = jj * chunk, min(jj * chunk + chunk, n)
        out[at] = lo + monotone_picks(_weights(s[lo:hi], m[jj], c), u3[at], threads)
    res = np.empty(k, dtype=np.int64)
    res[order] = out  # block b wrote draw order[b]
    return res


def sample(scores: NDArray[Any], c: float, k: int, rng: np.random.Generator, *, chunk: int = CHUNK,
           tile: int = TILE, threads: int = THREADS, sort_min: int = SORT_MIN) -> NDArray[np.int64]:
    """``k`` draws by the device algorithm from finite-or-(-inf) scores (float64 or int64), reading
    ``rng.random(3 k)`` as the device path does."""
    s = np.asarray(scores)
    m, S, status = chunk_pass(s, c, chunk)
    if status:
        raise ValueError("the emulation covers scores without NaN and +inf (the device's status paths)")
    Mt, Tt = tile_pass(m, S, c, tile)
    u = rng.random(UNIFORMS_PER_DRAW * k)
    if not _scaled(Mt, Tt, Mt.max(), c).sum() > 0.0:
        raise ValueError("scores must contain at least one entry > -inf (all scores are -inf)")
    return select(s, c, m, S, Mt, Tt, u, draw_order(u[:k], sort_min), chunk=chunk, tile=tile, threads=threads)

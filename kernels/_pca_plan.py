"""PCA work plan: accumulation dtype, rows per block and worker threads.

Implements the sizing rules of :func:`semiprivate.kernels.pca` (HPSY.Thm3 / PILLAR.Alg1, step 1):
how large a work buffer each pass uses and how many threads fold blocks side by side.  The
measurements behind the constants are in ``benchmarks/RESULTS.md`` ("PCA: sizing rules").
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from semiprivate.kernels.threads import blas_controller

# CPU work buffer.  Each ?syrk call is a thread barrier in OpenBLAS, so large inputs want large
# blocks; a small input wants several blocks instead of one big first block.  The Cython backend
# uses about 1/8 of an in-memory input per block, clamped to [_MIN_BLOCK_BYTES, _BLOCK_BYTES];
# the NumPy backend (per-block temporaries) and the GPU use the largest block.
_BLOCK_BYTES = 64 << 20
_MIN_BLOCK_BYTES = 8 << 20
_GPU_BLOCK_BYTES = 64 << 20
# Threaded accumulation (Cython backend, array input; see _pca_accumulate): worker threads are
# used only from _THREAD_MIN_WORK = n d^2 on (below it they cost more than they save).  Per-worker
# blocks are about 1/8 of each worker's share, clamped to [_MIN_THREAD_BLOCK_BYTES,
# _THREAD_BLOCK_BYTES].  The extra workers' accumulators and work buffers ((workers - 1)
# (d^2 numbers + one block)) may use at most a quarter of the data's size and _THREAD_EXTRA_BYTES
# in all, otherwise fewer workers are used.  Measured on 2 cores; on more cores the same rules give
# every core a worker.
_THREAD_BLOCK_BYTES = 16 << 20
_MIN_THREAD_BLOCK_BYTES = 4 << 20
_THREAD_EXTRA_BYTES = 256 << 20
_THREAD_MIN_WORK = 2e10


def _resolve_dtype(dtype: Any, data_dtype: np.dtype | None) -> np.dtype:
    """Accumulation dtype: float32 input stays float32, everything else float64, unless asked."""
    if dtype is None:
        return np.dtype(np.float32) if data_dtype == np.float32 else np.dtype(np.float64)
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be float32 or float64 (or None), got {dtype!r}") from exc
    if dt not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64 (or None), got {dt}")
    return dt


def _default_block_rows(d: int, dtype: np.dtype, backend: str, n: int | None = None, workers: int = 1) -> int:
    """Rows per block: see ``_BLOCK_BYTES`` (``n``: the number of rows when known; ``workers``:
    the threads of :func:`_accumulate_threaded`, see ``_THREAD_BLOCK_BYTES``)."""
    row = max(1, d * dtype.itemsize)
    if backend == "cupy":
        return max(64, _GPU_BLOCK_BYTES // row)
    target = _BLOCK_BYTES
    if workers > 1 and n is not None:
        target = min(_THREAD_BLOCK_BYTES, max(_MIN_THREAD_BLOCK_BYTES, n * row // (8 * workers)))
    elif n is not None and backend == "cython":
        target = min(_BLOCK_BYTES, max(_MIN_BLOCK_BYTES, n * row // 8))
    return max(64, target // row)


def _available_threads() -> int:
    """Threads the BLAS may use now (the largest limit among the loaded BLAS libraries, so a
    ``threadpoolctl.threadpool_limits(1)`` around the call gives 1), at most the usable CPUs."""
    blas = max((int(lib.num_threads) for lib in blas_controller().lib_controllers), default=1)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(blas, cpus))


def _plan_workers(n_threads: int | None, src: Any, dtype: np.dtype, backend: str, chunk_rows: int | None) -> tuple[int, int]:
    """(workers, rows per block) for :func:`_pca_covariance`.  Threads only on the Cython
    backend and for a NumPy array (a memmap included): an iterable of chunks is consumed one
    chunk at a time, in order, because a generator may refill the buffer it yielded."""
    d = src.d
    if backend != "cython" or src.array is None or not isinstance(src.array, np.ndarray):
        rows = int(chunk_rows) if chunk_rows is not None else _default_block_rows(d, dtype, backend, None if src.array is None else int(src.array.shape[0]))
        return 1, rows
    n = int(src.array.shape[0])
    if n_threads is not None:
        workers = int(n_threads)
    elif float(n) * d * d < _THREAD_MIN_WORK:
        workers = 1
    else:
        workers = _available_threads()
        block = int(chunk_rows) * d * dtype.itemsize if chunk_rows is not None else _THREAD_BLOCK_BYTES
        extra = d * d * dtype.itemsize + block  # one more accumulator and work buffer (at most)
        budget = min(_THREAD_EXTRA_BYTES, n * d * src.array.dtype.itemsize // 4)
        workers = min(workers, 1 + budget // extra)
    rows = int(chunk_rows) if chunk_rows is not None else _default_block_rows(d, dtype, backend, n, workers)
    workers = max(1, min(workers, -(-n // rows)))  # no worker without a block
    if workers == 1 and chunk_rows is None:
        rows = _default_block_rows(d, dtype, backend, n)
    return workers, rows

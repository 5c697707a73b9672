"""One pass over the PCA input into a covariance accumulator: sequential, or by worker threads
that each fold their own blocks with single-threaded BLAS and are merged (Chan–Golub–LeVeque).
Step 1 of HPSY.Thm3 / PILLAR.Alg1 (the empirical covariance), for :func:`semiprivate.kernels.pca`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import numpy as np
from semiprivate.kernels._covariance import CovarianceAccumulator
from semiprivate.kernels._pca_sources import _page_releaser, _Source
from semiprivate.kernels.threads import blas_controller

# One threaded accumulation at a time per process: the BLAS limit is process-wide, and two
# overlapping limits would restore each other's values out of order.  A pca call that finds
# the lock taken uses one accumulator instead.
_THREADED_LOCK = threading.Lock()


def _accumulate_threaded(src: _Source, workers: int, dtype: np.dtype, rows: int, uncentred_tol: float) -> CovarianceAccumulator:
    """The covariance state of the array ``src.array`` accumulated by ``workers`` threads.

    Block ``i`` (rows ``[i rows, (i + 1) rows)``) goes to worker ``i mod workers``, which folds it
    into its own :class:`CovarianceAccumulator` (centring, ``?syrk`` and ``?syr`` as in the
    sequential path) with BLAS limited to one thread by threadpoolctl -- process-wide by the
    calling thread, and again in each worker for OpenMP builds of OpenBLAS, whose limit is per
    thread -- so that the workers' BLAS calls run side by side on the cores.  The accumulators
    are then merged in worker order (Chan–Golub–LeVeque).  The assignment is static, so the
    result is reproducible for a given ``workers`` and ``rows``; against the sequential path it
    differs by rounding only (the same merge formula, applied to other partial sums).

    Errors: a worker that fails on a block (NaN/inf, ...) records its row offset; every worker
    skips the blocks past the lowest offset recorded so far but still folds the ones before it,
    so the raised error names the *first* bad block, as the sequential path does.  A
    ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt`` in the calling thread)
    stops every worker and propagates.  A memmap's consumed pages are released by the worker
    that read them.
    """
    arr = src.array
    n = int(arr.shape[0])
    release = _page_releaser(arr)
    accs = [CovarianceAccumulator(src.d, dtype, backend="cython", block_rows=rows, uncentred_tol=uncentred_tol) for _ in range(workers)]
    lowest = [n]  # no worker folds blocks starting at or past this row (lowered by failures)
    failures: list[tuple[int, Exception]] = []
    lock = threading.Lock()
    controller = blas_controller()

    def run(t: int) -> None:
        with controller.limit(limits=1, user_api="blas"):
            for start in range(t * rows, n, workers * rows):
                if start >= lowest[0]:
                    return
                block = arr[start : start + rows]
                try:
                    accs[t]._update_rows(block, start, "of X")
                except Exception as exc:  # re-raised by the calling thread
                    with lock:
                        lowest[0] = min(lowest[0], start)
                        failures.append((start, exc))
                    return
                except BaseException:
                    lowest[0] = -1
                    raise
                if release is not None:
                    release(block)

    with controller.limit(limits=1, user_api="blas"):
        started: list[threading.Thread] = []
        try:
            for t in range(1, workers):
                th = threading.Thread(target=run, args=(t,), name=f"semiprivate-pca-{t}", daemon=True)
                th.start()
                started.append(th)
            run(0)  # the calling thread is worker 0
            for th in started:
                th.join()
        finally:  # interrupted (or a thread failed to start): stop the others and wait for them
            if any(th.is_alive() for th in started):
                lowest[0] = -1
                for th in started:
                    th.join()
    if failures:
        raise min(failures, key=lambda f: f[0])[1]
    acc = accs[0]
    for other in accs[1:]:  # both keep the lower triangle (C view): add the raw buffers
        acc._merge_stats(other._count, other._mean, other._m2)
        acc._uncentred_blocks += other._uncentred_blocks
    return acc


def _accumulate(
    src: _Source, dtype: np.dtype, backend: str, rows: int, uncentred_tol: float, workers: int = 1
) -> CovarianceAccumulator:
    """One pass over ``src`` into a :class:`CovarianceAccumulator`: by ``workers`` threads
    (:func:`_accumulate_threaded`) when more than one is planned and no other threaded
    accumulation runs, else sequentially (host blocks streamed to the GPU for ``backend="cupy"``)."""
    if workers > 1 and _THREADED_LOCK.acquire(blocking=False):
        try:
            acc = _accumulate_threaded(src, workers, dtype, rows, uncentred_tol)
        finally:
            _THREADED_LOCK.release()
    else:
        acc = CovarianceAccumulator(src.d, dtype, backend=backend, block_rows=rows, uncentred_tol=uncentred_tol)
        if backend == "cupy" and not src.on_gpu:
            from semiprivate.kernels._cupy.pca import stream_to_device

            blocks: Iterable[Any] = stream_to_device(src.blocks(rows), src.d, dtype, rows)
        else:
            blocks = src.blocks(rows)
        offset = 0
        for block in blocks:
            acc._update_rows(block, offset, "of X")
            offset += block.shape[0]
    return acc

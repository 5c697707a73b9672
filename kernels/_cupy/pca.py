"""CuPy backend of the PCA kernels (Implements: HPSY.Thm3 / PILLAR.Alg1, step 1, on the GPU).

* :class:`CupyOps`: the accumulator operations of :class:`semiprivate.kernels.CovarianceAccumulator` on
  device arrays -- centring of the first block, a shift of every later block by the
  running mean (into one reused block buffer: never a centred copy of ``X``), ``M2 += C^T C`` by
  cuBLAS GEMM (default) or ``?syrk`` (``SEMIPRIVATE_CUPY_PRODUCT=syrk``: ``cupy.cublas.syrk``, beta = 1,
  into a preallocated (d, d) buffer), the Chan–Golub–LeVeque
  rank-1 cross term, and symmetrisation.  Finiteness is checked lazily (a device flag read when a
  result is read) so that no per-block host synchronisation stalls the stream.
* :func:`stream_to_device`: host blocks -> device blocks through two pinned (page-locked)
  staging buffers and a separate copy stream, so the copy of block i+1 overlaps the SYRK of
  block i.

The eigen-decomposition is ``cupy.linalg.eigh`` (cuSOLVER ``?syevd``), done in
:func:`semiprivate.kernels._pca_eigen._top_k_eigh_gpu`.  CuPy is imported lazily: importing this module without CuPy
works, using it raises ImportError.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from semiprivate.kernels._backend import is_cupy_array
from semiprivate.kernels._memo import memo_table

__all__ = ["CupyOps", "stream_to_device", "COPY_THREADS", "PRODUCT_ENV", "product_mode"]

#: host threads that fill a pinned staging buffer (NumPy's copy releases the GIL, so the row slices
#: are copied in parallel); 1 copies on the calling thread only.  Blocks under ``_PARALLEL_COPY_BYTES``
#: are always copied on the calling thread.
COPY_THREADS = max(1, min(8, os.cpu_count() or 1))
_PARALLEL_COPY_BYTES = 8 << 20


def _cupy() -> Any:
    return importlib.import_module("cupy")


#: The triangle cuBLAS SYRK fills, per dtype (:func:`_syrk_mode`): a registered memo table
#: (:func:`semiprivate.kernels._memo.memo_table`), put back after a search that hides its number of runs.
_SYRK_MODE: dict[str, str] = memo_table(f"{__name__}._SYRK_MODE")


def _syrk_mode(dtype: Any) -> str:
    """Which triangle ``cupy.cublas.syrk(..., lower=True)`` fills for a C-ordered output.

    Found once per dtype by a tiny self-check against ``a.T @ a``: ``"lower"``/``"upper"``, or
    ``"matmul"`` when cuBLAS SYRK is unavailable or disagrees (then ``acc += c.T @ c`` is used).
    """
    key = np.dtype(dtype).str
    known = _SYRK_MODE.get(key)
    if known is not None:
        return known
    cp = _cupy()
    mode = "matmul"
    try:
        import cupy.cublas  # type: ignore[import-not-found]  # noqa: F401

        a = cp.asarray(np.arange(15, dtype=dtype).reshape(5, 3) / 7.0)
        ref = cp.asnumpy(a.T @ a)
        out = cp.zeros((3, 3), dtype=dtype)
        cp.cublas.syrk("T", a, out=out, alpha=1.0, beta=1.0, lower=True)
        got = cp.asnumpy(out)
        tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
        if np.allclose(np.tril(got), np.tril(ref), rtol=tol, atol=tol):
            mode = "lower"
        elif np.allclose(np.triu(got), np.triu(ref), rtol=tol, atol=tol):
            mode = "upper"
    except Exception:  # no cupy.cublas, or a cuBLAS failure: fall back to GEMM
        mode = "matmul"
    _SYRK_MODE[key] = mode
    return mode


#: environment variable choosing the (d, d) product of a block: ``"gemm"`` (default) or ``"syrk"``
PRODUCT_ENV = "SEMIPRIVATE_CUPY_PRODUCT"


def product_mode() -> str:
    """``"gemm"`` (``acc += C^T C`` by cuBLAS GEMM, both triangles) unless ``SEMIPRIVATE_CUPY_PRODUCT=syrk``.

    GEMM is the default because cuBLAS SYRK was measured slower than GEMM on an H200 at
    500,000 x 1,024 (36.1 / 28.1 ms float32 / float64 against 19.7 ms for the float32 GEMM): SYRK does
    half the flops but does not reach GEMM's rate there.
    """
    mode = os.environ.get(PRODUCT_ENV, "gemm").strip().lower() or "gemm"
    if mode not in ("gemm", "syrk"):
        raise ValueError(f"environment variable {PRODUCT_ENV} must be 'gemm' or 'syrk', got {mode!r}")
    return mode


class CupyOps:
    """Accumulator operations on CuPy arrays (see :class:`semiprivate.kernels.CovarianceAccumulator`).

    The block product is GEMM (:func:`product_mode`; SYRK on request, with the triangle found by
    :func:`_syrk_mode`).
    """

    name = "cupy"
    defer_checks = True

    def __init__(self) -> None:
        self.xp = _cupy()
        self.product = product_mode()

    def to_device(self, block: Any, dtype: Any) -> Any:
        return self.xp.asarray(block)

    def center(self, block: Any, out: Any, mean: Any) -> None:
        cp = self.xp
        m = block.shape[0]
        mean[...] = block.mean(axis=0, dtype=np.float64)
        cp.subtract(block, mean.astype(block.dtype), out=out[:m], casting="unsafe")

    def shift(self, block: Any, out: Any, shift: Any, sums: Any) -> None:
        """``out[:m] = block - shift`` (float64 arithmetic, cast) and the float64 column sums of
        ``block - shift`` before the cast (see :meth:`semiprivate.kernels._covariance._NumpyOps.shift`)."""
        y = out[: block.shape[0]]
        sums[...] = block.sum(axis=0, dtype=np.float64) - block.shape[0] * shift
        self.xp.subtract(block, shift, out=y, casting="unsafe")

    def _mode(self, dtype: Any) -> str:
        return "matmul" if self.product == "gemm" else _syrk_mode(dtype)

    def syrk(self, centred: Any, rows: int, acc: Any) -> None:
        cp = self.xp
        c = centred[:rows]
        mode = self._mode(acc.dtype)
        if mode == "matmul":
            acc += c.T @ c
        else:
            cp.cublas.syrk("T", c, out=acc, alpha=1.0, beta=1.0, lower=True)

    def syr(self, acc: Any, v: Any, alpha: float) -> None:
        v = v.astype(acc.dtype)
        acc += acc.dtype.type(alpha) * self.xp.outer(v, v)

    def full(self, acc: Any) -> Any:
        cp = self.xp
        mode = self._mode(acc.dtype)
        if mode == "lower":
            return cp.tril(acc) + cp.tril(acc, -1).T
        if mode == "upper":
            return cp.triu(acc) + cp.triu(acc, 1).T
        return acc.copy()


def stream_to_device(blocks: Iterable[Any], d: int, dtype: Any, rows: int) -> Iterator[Any]:
    """Yield device copies of host row blocks, double-buffered through pinned memory.

    Block i is copied host -> pinned buffer (i mod 2) on the CPU (by ``COPY_THREADS`` threads, row
    slices in parallel, for blocks of 8 MiB or more), then pinned -> device on a
    dedicated non-blocking stream; the compute stream waits on that copy's event only.  Before a
    buffer is reused, the host waits for the compute that read it (an event recorded after the
    consumer's work on the block was queued).  The yielded array is valid until the next-but-one
    block is requested.  A block that is already a CuPy array (a device chunk among host chunks)
    is yielded as it is, unstaged.
    """
    cp = _cupy()
    import cupyx  # type: ignore[import-not-found]

    dtype = np.dtype(dtype)
    pinned = [cupyx.empty_pinned((rows, d), dtype=dtype) for _ in range(2)]
    dev = [cp.empty((rows, d), dtype=dtype) for _ in range(2)]
    copy_stream = cp.cuda.Stream(non_blocking=True)
    pool = ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="sp-stage") if COPY_THREADS > 1 else None
    try:
        yield from _staged(blocks, pinned, dev, copy_stream, rows, pool)
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    cp.cuda.get_current_stream().synchronize()


def _fill(dst: np.ndarray, src: np.ndarray, pool: ThreadPoolExecutor | None) -> None:
    """``dst[...] = src`` (unsafe cast), split into row slices over ``pool`` when it is worth it."""
    m = dst.shape[0]
    if pool is None or dst.nbytes < _PARALLEL_COPY_BYTES or m < 2:
        np.copyto(dst, src, casting="unsafe")
        return
    parts = min(COPY_THREADS, m)
    cuts = [m * i // parts for i in range(parts + 1)]
    futures = [pool.submit(np.copyto, dst[a:b], src[a:b], casting="unsafe") for a, b in zip(cuts[:-1], cuts[1:])]
    for f in futures:
        f.result()


def _staged(blocks: Iterable[Any], pinned: list[Any], dev: list[Any], copy_stream: Any, rows: int,
            pool: ThreadPoolExecutor | None) -> Iterator[Any]:
    """The loop of :func:`stream_to_device` (see there)."""
    cp = _cupy()
    released: list[Any] = [None, None]
    staged = 0
    for block in blocks:
        if is_cupy_array(block):  # np.asarray would refuse it (CuPy allows no implicit conversion)
            yield block
            continue
        s = staged % 2
        staged += 1
        m = block.shape[0]
        if m > rows:
            raise ValueError(f"block of {m} rows exceeds the staging size {rows}")
        if released[s] is not None:
            released[s].synchronize()
        _fill(pinned[s][:m], np.asarray(block), pool)
        with copy_stream:
            dev[s][:m].set(pinned[s][:m], stream=copy_stream)
            copied = copy_stream.record()
        compute = cp.cuda.get_current_stream()
        compute.wait_event(copied)
        yield dev[s][:m]
        released[s] = compute.record()

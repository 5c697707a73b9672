"""Row blocks of the PCA input: arrays, memory-mapped files (pages released as consumed) and
iterables of chunks.  Used by :func:`semiprivate.kernels.pca` (HPSY.Thm3 / PILLAR.Alg1, step 1).
"""

from __future__ import annotations

import itertools
import mmap
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
from semiprivate.kernels._backend import is_cupy_array


def _page_releaser(arr: Any) -> Callable[[Any], None] | None:
    """For a shared ``numpy.memmap``: a function dropping a consumed block's pages from this process.

    ``madvise(MADV_DONTNEED)`` on a shared file mapping only unmaps the pages (they stay in the
    OS page cache, and a later access re-reads them), so streaming a memmap does not grow the
    resident set with ``n``.  Copy-on-write maps (mode ``"c"``) are left alone: there DONTNEED
    would discard the private changes.  Returns None where this does not apply.
    """
    mm = getattr(arr, "_mmap", None)
    if not isinstance(arr, np.memmap) or mm is None or getattr(arr, "mode", "c") not in ("r", "r+", "w+"):
        return None
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if advice is None or not hasattr(mm, "madvise"):
        return None
    view = np.frombuffer(mm, dtype=np.uint8)
    base, size = int(view.ctypes.data), int(view.size)
    del view
    page = mmap.PAGESIZE

    def release(block: Any) -> None:
        start = int(block.ctypes.data) - base
        end = start + int(block.nbytes)
        start -= start % page
        end = min(size, end + (-end) % page)
        if 0 <= start < end:
            try:
                mm.madvise(advice, start, end - start)
            except (OSError, ValueError):  # closed or unsupported: keep the pages, nothing is lost
                pass

    return release


def _is_scipy_sparse(X: Any) -> bool:
    """A SciPy sparse matrix or array (checked without importing SciPy)."""
    return type(X).__module__.startswith("scipy.sparse") and hasattr(X, "toarray")


def _is_dense_table(X: Any) -> bool:
    """A 2-D array-like that is not a list of chunks: ``ndim == 2`` and ``__array__`` (pandas
    DataFrame, xarray DataArray, ...).  Iterating a DataFrame gives its column labels, so it must not
    be read as an iterable of row chunks."""
    return getattr(X, "ndim", None) == 2 and hasattr(X, "__array__") and not isinstance(X, (list, tuple))


class _Source:
    """Row blocks of the data, re-iterable when the input allows several passes."""

    def __init__(self, X: Any) -> None:
        self.array: Any = None
        self.iterable: Any = None
        self.first: Any = None
        if X is None or isinstance(X, (str, bytes, dict)):
            raise TypeError(f"X must be a 2-D array or an iterable of 2-D row chunks, got {type(X).__name__}")
        if _is_scipy_sparse(X):
            raise TypeError(
                f"X is a SciPy sparse {type(X).__name__} of shape {X.shape}: pca needs dense rows (it centres "
                "them, which makes them dense); pass X.toarray(), or an iterable of dense row chunks such as "
                "(X[i:i + 10000].toarray() for i in range(0, X.shape[0], 10000))"
            )
        if is_cupy_array(X) or isinstance(X, np.ndarray):
            self.array = X
        elif _is_dense_table(X):  # a pandas DataFrame (or any 2-D array-like): its values, not its column labels
            self.array = np.asarray(X)
        elif isinstance(X, (list, tuple)) and not (len(X) > 0 and np.ndim(X[0]) == 2):
            self.array = np.asarray(X)
        elif isinstance(X, Iterable):
            self.iterable = X
        else:
            raise TypeError(f"X must be a 2-D array or an iterable of 2-D row chunks, got {type(X).__name__}")
        if self.array is not None:
            if self.array.dtype.kind not in "biuf":
                raise TypeError(f"X must have a numeric dtype, got {self.array.dtype}")
            if self.array.ndim != 2:
                raise ValueError(f"X must be 2-D (n, d), got ndim={self.array.ndim} (shape {self.array.shape})")
            self.d = int(self.array.shape[1])
            self.dtype = self.array.dtype
            self.on_gpu = is_cupy_array(self.array)
        else:
            self._pending: Iterator[Any] | None = iter(self.iterable)
            self.one_shot = self._pending is self.iterable
            try:
                first = next(self._pending)
            except StopIteration:
                raise ValueError("X must contain at least 2 rows, got an empty iterable") from None
            if not is_cupy_array(first):
                first = np.asarray(first)
            if first.ndim != 2:
                raise ValueError(f"each chunk of X must be 2-D (m, d), got shape {first.shape}")
            self.first = first
            self.d = int(first.shape[1])
            self.dtype = first.dtype
            self.on_gpu = is_cupy_array(first)
        if self.d < 1:
            raise ValueError("X must have at least one column")

    @property
    def multipass(self) -> bool:
        return self.array is not None or not self.one_shot

    def blocks(self, rows: int) -> Iterator[Any]:
        """Yield row blocks of at most ``rows`` rows (chunks larger than that are split)."""
        if self.array is not None:
            release = _page_releaser(self.array)
            for s in range(0, self.array.shape[0], rows):
                block = self.array[s : s + rows]
                yield block
                if release is not None:  # the consumer asked for the next block: this one is done
                    release(block)
            return
        if self._pending is not None:
            it: Iterator[Any] = itertools.chain([self.first], self._pending)
            self._pending = None
        else:
            it = iter(self.iterable)
        for chunk in it:
            c = chunk if is_cupy_array(chunk) else np.asarray(chunk)
            if c.ndim != 2 or c.shape[1] != self.d:
                raise ValueError(f"each chunk of X must have shape (m, {self.d}), got shape {c.shape}")
            for s in range(0, c.shape[0], rows):
                yield c[s : s + rows]

"""The dtype and shift rules that turn a user's scores into what the compiled samplers take.

Shared by the Cython path (:mod:`semiprivate.kernels._exponential`, ``xp = numpy``) and the CuPy
path (:mod:`semiprivate.kernels._cupy.exponential`, ``xp = cupy``), so neither imports the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["prepare_scores"]


def prepare_scores(scores: Any, xp: Any = np) -> Any:
    """Contiguous float64/float32/int64 scores for the compiled samplers (CPU and GPU).

    The one set of dtype/shift rules, shared by the Cython path (``xp = numpy``) and the CuPy
    path (``xp = cupy``, passed in by :mod:`semiprivate.kernels._cupy.exponential`, so CuPy is never
    imported here): float64/float32/int64 are used as they are; other floats go to float64
    (exact for float16; longdouble is rounded); other integers to int64; ``uint64`` scores
    are replaced by ``-(max - s)`` (the same distribution, by shift invariance), as int64
    when the range fits, else as float64 (exact near the top, rounded only where
    ``max - s >= 2**53``).

    >>> prepare_scores(np.array([2**64 - 1, 2**64 - 3], dtype=np.uint64)).tolist()
    [0, -2]
    """
    s = scores
    if s.dtype == np.float64 or s.dtype == np.float32 or s.dtype == np.int64:
        return xp.ascontiguousarray(s)
    if s.dtype.kind == "f":
        return xp.ascontiguousarray(s, dtype=np.float64)
    if s.dtype == np.uint64:
        d = s.max() - s  # exact in uint64
        if int(d.max()) <= np.iinfo(np.int64).max:
            return xp.ascontiguousarray(-d.astype(np.int64))
        return xp.ascontiguousarray(-d.astype(np.float64))
    return xp.ascontiguousarray(s, dtype=np.int64)

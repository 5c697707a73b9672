"""Randomized PCA: the Halko–Martinsson–Tropp range finder applied to the covariance operator
without forming it (``method="randomized"`` of :func:`semiprivate.kernels.pca`; HPSY.Thm3 /
PILLAR.Alg1, step 1).

References: N. Halko, P.-G. Martinsson, J. A. Tropp, SIAM Review 53(2), 2011 (Algorithm 4.4 with
QR re-orthonormalisation, then Algorithm 5.3-style Rayleigh–Ritz).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
from semiprivate.kernels._backend import is_cupy_array
from semiprivate.kernels._covariance import _make_ops
from semiprivate.kernels._pca_eigen import _need_two
from semiprivate.kernels._pca_sources import _Source


def _pca_randomized(
    src: _Source,
    k: int,
    center: bool,
    dtype: np.dtype,
    backend: str,
    rows: int,
    gen: np.random.Generator,
    p: int,
    q: int,
) -> tuple[Any, ...]:
    ops = _make_ops(backend)
    xp = ops.xp
    d = src.d
    ell = min(d, k + p)
    Q = xp.asarray(gen.standard_normal((d, ell)).astype(dtype))
    shift: Any = None  # fixed shift s (first block's mean) for the first pass, the exact mean afterwards
    n = 0

    def blocks() -> Iterator[Any]:
        for b in src.blocks(rows):
            if is_cupy_array(b) or xp is np:
                arr = b if is_cupy_array(b) else np.asarray(b)
            else:
                arr = xp.asarray(np.asarray(b))
            if arr.dtype != dtype:
                arr = arr.astype(dtype)
            yield arr

    def apply(Qm: Any, first: bool) -> Any:
        """A Qm with A = sum (x - mean)(x - mean)^T (or sum x x^T), one pass over the data."""
        nonlocal shift, n
        Y = xp.zeros((d, Qm.shape[1]), dtype=dtype)
        s_sum = xp.zeros(d, dtype=np.float64)
        sq = 0.0
        count = 0
        for b in blocks():
            if b.shape[0] == 0:
                continue
            if first:
                with np.errstate(all="ignore"):
                    bm = b.mean(axis=0, dtype=np.float64)
                if not bool(xp.isfinite(bm).all()):
                    raise ValueError("X must not contain NaN or inf (or values whose sum overflows)")
                if center and shift is None:
                    shift = bm
            bs = b - shift.astype(dtype) if center else b
            Y += bs.T @ (bs @ Qm)
            count += b.shape[0]
            if first:
                s_sum += bs.sum(axis=0, dtype=np.float64)
                sq += float((bs.astype(np.float64, copy=False) ** 2).sum())
                if not math.isfinite(sq) or not bool(xp.isfinite(s_sum).all()):
                    raise ValueError("X must not contain NaN or inf (or values whose squares overflow)")
        if first:
            n = count
            _need_two(n)
            if center:
                delta = s_sum / n
                Y -= (n * xp.outer(delta, delta @ Qm.astype(np.float64))).astype(dtype)
                apply.mean = shift + delta  # type: ignore[attr-defined]
                apply.trace = sq - n * float(delta @ delta)  # type: ignore[attr-defined]
            else:
                apply.mean = xp.zeros(d, dtype=np.float64)  # type: ignore[attr-defined]
                apply.trace = sq  # type: ignore[attr-defined]
        return Y

    Y = apply(Q, True)
    mean = apply.mean  # type: ignore[attr-defined]
    trace = apply.trace  # type: ignore[attr-defined]
    if center:
        shift = mean  # exact mean from now on: later passes need no correction
    for _ in range(q):
        Q, _r = xp.linalg.qr(Y)
        Y = apply(Q, False)
    Q, _r = xp.linalg.qr(Y)
    AQ = apply(Q, False)
    T = Q.T @ AQ
    T = (T + T.T) / 2
    w, U = xp.linalg.eigh(T.astype(np.float64))
    order = xp.argsort(w)[::-1][:k]
    div = (n - 1) if center else n
    V = (Q.astype(np.float64) @ U[:, order]).astype(dtype)
    lam = (w[order] / div).astype(dtype)
    return V, lam, mean, trace / div, n

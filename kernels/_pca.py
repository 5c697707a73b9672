"""PCA kernel: streaming covariance and top-k eigenvectors (NumPy, Cython/BLAS and CuPy backends).

Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 -- the empirical covariance of the public unlabelled
data (centred) and its top-k eigenvectors ``A`` (d x k), used by HPSY Theorem 3 and PILLAR
Algorithm 1 to project private data onto ``A^T x``.  The specification is the NumPy reference
:mod:`semiprivate.kernels._reference_pca`; every backend here is tested against it.

This module holds the entry point :func:`pca` (validation and dispatch).  The pieces, one idea each:
:mod:`._pca_plan` (dtype, block size, worker threads), :mod:`._pca_sources` (row blocks of arrays,
memmaps, iterables), :mod:`._covariance` (:class:`CovarianceAccumulator`), :mod:`._pca_accumulate`
(sequential and threaded passes), :mod:`._pca_eigen` (top-k eigenpairs), :mod:`._pca_randomized`
(HMT range finder), :mod:`._pca_dask` (dask arrays), :mod:`._pca_result` (:class:`PCAResult`).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from semiprivate.kernels._backend import resolve_backend
from semiprivate.kernels._covariance import _BACKEND, _TOL, CovarianceAccumulator, NonFiniteRows
from semiprivate.kernels._pca_accumulate import _accumulate
from semiprivate.kernels._pca_dask import _is_dask_array, _pca_dask
from semiprivate.kernels._pca_eigen import _finish_covariance
from semiprivate.kernels._pca_gram import device_covariance_pca
from semiprivate.kernels._pca_plan import _default_block_rows, _plan_workers, _resolve_dtype
from semiprivate.kernels._pca_randomized import _pca_randomized
from semiprivate.kernels._pca_result import PCAResult
from semiprivate.kernels._pca_sources import _Source
from semiprivate.kernels._reference_pca import flip_signs
from semiprivate.validation import (
    NONNEGATIVE_INT,
    POSITIVE_INT,
    RNG,
    Boolean,
    Optional,
    Options,
    as_generator,
    validate_params,
)

__all__ = ["pca", "PCAResult", "CovarianceAccumulator"]

# pca's default ``uncentred_tol``: the normwise relative accuracy given up to skip the centring
# pass (see CovarianceAccumulator); the time it saves is in benchmarks/RESULTS.md.
_PCA_UNCENTRED_TOL = 1e-12


def _non_finite_error(src: _Source, exc: NonFiniteRows) -> ValueError:
    """The error for NaN/inf in ``X``, naming the first bad row (and column) when ``X`` is an array.

    The message names positions only, never a value of ``X``.
    """
    if src.array is None:
        where = f" in rows [{exc.start}, {exc.start + exc.m})" if exc.start is not None and exc.m is not None else ""
        return ValueError(f"X must not contain NaN or inf (or values whose sum overflows){where}")
    X = src.array
    lo = 0 if exc.start is None else exc.start
    hi = X.shape[0] if exc.start is None or exc.m is None else exc.start + exc.m
    xp = importlib.import_module("cupy") if src.on_gpu else np
    finite = xp.isfinite(X[lo:hi])
    rows = xp.flatnonzero(~finite.all(axis=1))
    if int(rows.size) == 0:
        return ValueError(f"X has values too large for the accumulation: a column sum overflows in rows [{lo}, {hi}) "
                          "(rescale X)")
    r = int(rows[0])
    col = int(xp.flatnonzero(~finite[r])[0])
    kind = "NaN" if bool(xp.isnan(X[lo + r, col])) else "inf"
    return ValueError(f"X must not contain NaN or inf: row {lo + r} has {kind} (column {col})")


@validate_params(
    k=POSITIVE_INT,
    center=Boolean(),
    method=Options("covariance", "randomized"),
    backend=_BACKEND,
    chunk_rows=Optional(POSITIVE_INT),
    rng=RNG,
    n_oversamples=NONNEGATIVE_INT,
    n_iter=NONNEGATIVE_INT,
    uncentred_tol=_TOL,
    n_threads=Optional(POSITIVE_INT),
)
def pca(
    X: Any,
    k: int,
    *,
    center: bool = True,
    method: str = "covariance",
    dtype: Any = None,
    backend: str = "auto",
    chunk_rows: int | None = None,
    rng: Any = None,
    n_oversamples: int = 10,
    n_iter: int = 4,
    uncentred_tol: float = _PCA_UNCENTRED_TOL,
    n_threads: int | None = None,
) -> PCAResult:
    """Top-k principal components of the rows of ``X``, streamed in chunks.

    Implements: HPSY.Thm3 / PILLAR.Alg1, step 1 -- "compute the empirical covariance of the
    (public, unlabelled) data and its top-k eigenvectors A" (HPSY Theorem 3, seed 000; PILLAR
    Algorithm 1, seed 002).  No constants are involved; the conventions (normalisation
    ``1/(n-1)``, descending order, sign rule) are those of :mod:`semiprivate.kernels._reference_pca`.

    Parameters
    ----------
    X : (n, d) array, memory-mapped array, dask array, or iterable of (m_i, d) row chunks
        The data.  Arrays (NumPy, ``numpy.memmap``, CuPy) are read block by block, so a memmap
        larger than memory works.  A ``dask.array`` chunked by rows (whole rows per chunk;
        optional extra ``semiprivate[dask]``) is reduced on the active Dask scheduler: one
        accumulator per chunk on the workers, merged in a fixed order (Chan–Golub–LeVeque), the
        eigensolve here (``method="covariance"`` only; ``backend`` reads ``"dask+cython"``).  An iterable of chunks (list, generator, ...) is read once for
        ``method="covariance"``; ``method="randomized"`` needs several passes and therefore a
        re-iterable (a list of chunks, or an object whose ``__iter__`` restarts).
    k : int
        Number of components, ``1 <= k <= d``.
    center : bool
        Subtract the mean (covariance ``M2/(n-1)``); ``False`` uses the second moment ``X^T X / n``.
    method : {"covariance", "randomized"}
        ``"covariance"``: accumulate the (d, d) covariance with BLAS ``?syrk`` (one pass, cost
        ``n d^2``), then the top-k eigenpairs by LAPACK ``dsyevr`` restricted to the k largest
        (``scipy.linalg.eigh(subset_by_index=...)``; ``cupy.linalg.eigh`` on the GPU).  The
        small (d, d) eigenproblem is solved in float64 even for float32 data (float32 LAPACK
        loses ~1e-3 of subspace accuracy there); the results are cast back to the dtype.
        A CuPy array (data already on the GPU) is read in one pass of GEMMs on shifted blocks, with no
        centred copy and no accumulator (``semiprivate.kernels._pca_gram``), and
        from ``d >= 512`` and ``k <= d / 8`` the top k come from a Chebyshev-filtered subspace
        iteration with a dense solver's residual test (full ``eigh`` otherwise, or when it does not
        converge).
        ``"randomized"``: the Halko–Martinsson–Tropp randomized range finder (HMT 2011,
        Algorithm 4.4 with QR re-orthonormalisation, then Algorithm 5.3-style Rayleigh–Ritz) applied
        to the covariance operator without forming it: ``l = min(d, k + n_oversamples)``
        Gaussian test vectors, ``n_iter`` power (subspace) iterations, each a pass over the data
        computing ``(X - s)^T ((X - s) Q)`` (cost ``2 n d l`` per pass, ``n_iter + 2`` passes),
        then the eigenpairs of the l x l projected matrix.  Its accuracy depends on the spectral
        gap ``lambda_{k+1} / lambda_{l+1}``; it beats ``"covariance"`` only when
        ``2 l (n_iter + 2) < d / 2``.
    dtype : None, float32 or float64
        Accumulation dtype.  None: float32 input stays float32, everything else is float64;
        ``float64`` with float32 input accumulates in float64.
    backend : {"auto", "numpy", "cython", "cupy"}
        ``"auto"``: CuPy for CuPy input, else the compiled backend when built (see
        :mod:`semiprivate.kernels._backend`).  ``"cupy"`` with host data streams the chunks to the GPU.
    chunk_rows : int or None
        Rows per block (work-buffer size; per worker thread when several run).  Default: on
        the Cython backend, about 1/8 of an in-memory ``X`` per block, between 8 and 64 MiB
        (one thread), or 1/8 of each worker's share between 4 and 16 MiB (several); 64 MiB
        otherwise.
    rng : None, int, numpy.random.Generator
        Randomness for ``method="randomized"`` (the Gaussian test matrix); unused otherwise.
    n_oversamples : int
        Extra test vectors p of the randomized method (HMT's oversampling, default 10).
    n_iter : int
        Power iterations q of the randomized method (default 4).
    uncentred_tol : float >= 0
        ``method="covariance"`` on a CPU backend: the normwise relative accuracy of the
        covariance that may be given up to fold a block in without a centred copy (see
        :class:`CovarianceAccumulator`).  Default ``1e-12``: with float64 accumulation the
        centring pass is skipped while the mean is within about ``sqrt(1e-12 / u) ~ 95`` times
        the root total variance (``u = 2^-53``), which keeps the eigenproblem's input to 12
        digits normwise, far below the spread of any sample covariance.  Float32 accumulation
        (``u = 2^-24``) qualifies only while the mean is within about ``0.004`` root total
        variances (nearly centred data), where the added error is far below float32's own.
        ``0`` always centres.
    n_threads : int or None
        Worker threads of the ``method="covariance"`` accumulation on the Cython backend for an
        array ``X`` (NumPy array or memmap).  Each worker folds every ``n_threads``-th block into
        its own accumulator with single-threaded BLAS, and the accumulators are merged
        (Chan–Golub–LeVeque), so one worker's centring pass runs while another's ``?syrk``
        runs.  While they run, threadpoolctl limits every loaded BLAS library to one thread
        (the one behind ``scipy.linalg.cython_blas`` cannot be told apart portably), which
        also slows BLAS calls that other threads of the process make meanwhile.  ``None``
        (default): as many workers as the BLAS may use (``threadpoolctl.threadpool_limits``
        around the call lowers it) once ``n d^2 >= 2e10`` (below that, threads cost more than
        they save), fewer when the extra workers' accumulators and work buffers
        (``d^2`` numbers and one block each) would exceed a quarter of ``X``'s size or
        256 MiB.  ``1``: one accumulator, multithreaded BLAS.  An explicit count is used as
        given (no CPU or memory cap), but never more workers than blocks.  One threaded
        accumulation runs at a time per process; a call made while another is running uses
        one accumulator.  The result is reproducible for a given worker count and
        ``chunk_rows`` and agrees with other counts to rounding.  Iterables of chunks
        (a generator may refill the buffer it yielded, so chunks are consumed one at a time,
        in order), the NumPy and CuPy backends and ``method="randomized"`` ignore it.

    Returns
    -------
    PCAResult

    Raises
    ------
    TypeError
        Non-numeric data, a wrong type for a parameter.
    ValueError
        ``k < 1`` or ``k > d``, fewer than 2 rows, NaN or inf in the data, ``X`` not 2-D (or
        chunks of different widths), a one-shot iterator with ``method="randomized"``.

    Notes
    -----
    Streaming: only one block of ``chunk_rows`` rows and the (d, d) accumulator are in memory at
    a time, so the peak memory is about ``(chunk_rows + 3 d) d`` numbers plus what the input
    itself keeps resident.  For a shared ``numpy.memmap`` the pages of each consumed block are
    released (``madvise(MADV_DONTNEED)``; they stay in the OS page cache), so the resident set
    does not grow with ``n``.
    The centring is done per block (Chan–Golub–LeVeque merge, see
    :class:`CovarianceAccumulator`), never on a full copy of ``X``.

    Sign convention: in each column of ``components`` the entry of largest absolute value (the
    first on exact ties) is positive, as scikit-learn's ``svd_flip(u_based_decision=False)``.

    References
    ----------
    N. Halko, P.-G. Martinsson, J. A. Tropp, "Finding structure with randomness: probabilistic
    algorithms for constructing approximate matrix decompositions", SIAM Review 53(2), 2011.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 3)) * np.array([3.0, 1.0, 0.1])
    >>> res = pca(X, 2)
    >>> res.components.shape, res.n_samples
    ((3, 2), 500)
    >>> bool(np.allclose(np.abs(res.components[:, 0]), [1, 0, 0], atol=0.05))
    True
    >>> res.transform(X[:2]).shape
    (2, 2)
    """
    if method not in ("covariance", "randomized"):  # pragma: no cover - validated above
        raise ValueError(f"method must be 'covariance' or 'randomized', got {method!r}")
    if _is_dask_array(X):
        return _pca_dask(X, k, center=center, method=method, dtype=dtype, backend=backend, chunk_rows=chunk_rows,
                         uncentred_tol=float(uncentred_tol))
    src = _Source(X)
    d = src.d
    if k > d:
        raise ValueError(f"k must be <= d = {d}, got k={k}")
    data_dtype = np.dtype(src.dtype) if src.dtype.kind == "f" else None
    acc_dtype = _resolve_dtype(dtype, data_dtype)
    probe = src.array if src.array is not None else src.first
    be = resolve_backend(backend, probe)
    if method == "covariance" and be == "cupy" and src.array is not None and src.on_gpu:
        # data already on the device: one shifted GEMM pass, no accumulator (see _pca_gram)
        try:
            V, lam, mean, total, n = device_covariance_pca(src.array, k, center, acc_dtype, chunk_rows,
                                                           importlib.import_module("cupy"))
        except NonFiniteRows as exc:
            raise _non_finite_error(src, exc) from None
    elif method == "covariance":
        workers, rows = _plan_workers(n_threads, src, acc_dtype, be, chunk_rows)
        try:
            acc = _accumulate(src, acc_dtype, be, rows, float(uncentred_tol), workers)
            V, lam, mean, total, n = _finish_covariance(acc, k, center, be, acc_dtype)
        except NonFiniteRows as exc:
            raise _non_finite_error(src, exc) from None
    else:
        n_known = int(src.array.shape[0]) if src.array is not None else None
        rows = int(chunk_rows) if chunk_rows is not None else _default_block_rows(d, acc_dtype, be, n_known)
        if not src.multipass:
            raise ValueError(
                "method='randomized' reads X several times: pass an array or a re-iterable of chunks "
                "(e.g. a list), not a one-shot iterator/generator; or use method='covariance'"
            )
        V, lam, mean, total, n = _pca_randomized(src, k, center, acc_dtype, be, rows, as_generator(rng), n_oversamples, n_iter)
    xp: Any = np
    if be == "cupy":
        xp = importlib.import_module("cupy")
        if not src.on_gpu:  # host data in, host results out
            V, lam, mean = (xp.asnumpy(a) for a in (V, lam, mean))
            xp = np
    lam = xp.maximum(lam, 0.0)
    V = flip_signs(xp.ascontiguousarray(V))
    evr = lam / total if total > 0 else xp.zeros_like(lam)
    return PCAResult(
        components=V,
        eigenvalues=lam,
        mean=mean,
        explained_variance_ratio=evr,
        n_samples=int(n),
        total_variance=float(total),
        method=method,
        backend=be,
    )

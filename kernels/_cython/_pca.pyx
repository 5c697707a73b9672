# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled pieces of the streaming covariance (Implements: HPSY.Thm3 / PILLAR.Alg1, step 1).

The accumulator :class:`kernels.CovarianceAccumulator` keeps ``count``, ``mean`` (float64) and
the comoment ``M2 = sum_i (x_i - mean)(x_i - mean)^T`` in a preallocated (d, d) C-contiguous
buffer of the accumulation dtype.  One chunk ``B`` (m, d) is folded in as

1. :func:`center_chunk`: ``mean_B`` (float64 sums) and ``B - mean_B`` written into a
   preallocated work buffer of the accumulation dtype (no allocation per chunk);
2. :func:`syrk_update`: ``M2 += (B - mean_B)^T (B - mean_B)`` by BLAS ``?syrk`` (beta = 1);
3. :func:`syr_update`: the Chan–Golub–LeVeque cross term ``M2 += (n_a n_b / n) delta delta^T``
   by BLAS ``?syr``.

BLAS comes from ``scipy.linalg.cython_blas`` (the same OpenBLAS SciPy uses).  The BLAS calls
see the C-contiguous (d, d) buffer as its Fortran transpose: they update the Fortran upper
triangle, i.e. the *lower* triangle ``M2[i, j], i >= j`` of the C view; :func:`symmetrize_lower`
copies it to the upper triangle.
"""

from scipy.linalg.cython_blas cimport dsyr, dsyrk, ssyr, ssyrk

ctypedef fused in_t:
    float
    double

ctypedef fused acc_t:
    float
    double


def center_chunk(const in_t[:, ::1] chunk, acc_t[:, ::1] out, double[::1] mean):
    """Column means of ``chunk`` (summed in float64) into ``mean``; ``chunk - mean`` into ``out``.

    ``out`` must have at least ``chunk.shape[0]`` rows and the same number of columns.  A
    non-finite entry of ``chunk`` makes the corresponding mean non-finite (the caller checks).
    """
    cdef Py_ssize_t m = chunk.shape[0], d = chunk.shape[1], i, j
    cdef double inv
    if out.shape[0] < m or out.shape[1] != d or mean.shape[0] != d:
        raise ValueError("center_chunk: shape mismatch")
    if m == 0:
        return
    inv = 1.0 / <double>m
    with nogil:
        for j in range(d):
            mean[j] = 0.0
        for i in range(m):
            for j in range(d):
                mean[j] += chunk[i, j]
        for j in range(d):
            mean[j] *= inv
        # Sequential on purpose: an OpenMP region between two multithreaded BLAS calls makes the
        # OpenMP and OpenBLAS thread pools spin against each other (measured 3x slower overall).
        for i in range(m):
            for j in range(d):
                out[i, j] = <acc_t>(chunk[i, j] - mean[j])


def syrk_update(const acc_t[:, ::1] centred, Py_ssize_t rows, acc_t[:, ::1] acc, double alpha=1.0):
    """``acc += alpha * centred[:rows].T @ centred[:rows]`` (lower triangle of ``acc``, C view)."""
    cdef int n = <int>acc.shape[0], k = <int>rows, lda = <int>centred.shape[1], ldc = <int>acc.shape[1]
    cdef char uplo = b"U"
    cdef char trans = b"N"
    cdef double a_d = alpha, b_d = 1.0
    cdef float a_s = <float>alpha, b_s = 1.0
    if acc.shape[0] != acc.shape[1] or centred.shape[1] != acc.shape[0] or rows > centred.shape[0] or rows < 0:
        raise ValueError("syrk_update: shape mismatch")
    if rows == 0 or n == 0:
        return
    with nogil:
        if acc_t is double:
            dsyrk(&uplo, &trans, &n, &k, &a_d, <double*>&centred[0, 0], &lda, &b_d, &acc[0, 0], &ldc)
        else:
            ssyrk(&uplo, &trans, &n, &k, &a_s, <float*>&centred[0, 0], &lda, &b_s, &acc[0, 0], &ldc)


def syr_update(acc_t[:, ::1] acc, const acc_t[::1] v, double alpha):
    """``acc += alpha * v v^T`` (lower triangle of ``acc``, C view)."""
    cdef int n = <int>acc.shape[0], inc = 1, lda = <int>acc.shape[1]
    cdef char uplo = b"U"
    cdef double a_d = alpha
    cdef float a_s = <float>alpha
    if acc.shape[0] != acc.shape[1] or v.shape[0] != acc.shape[0]:
        raise ValueError("syr_update: shape mismatch")
    if n == 0:
        return
    with nogil:
        if acc_t is double:
            dsyr(&uplo, &n, &a_d, <double*>&v[0], &inc, &acc[0, 0], &lda)
        else:
            ssyr(&uplo, &n, &a_s, <float*>&v[0], &inc, &acc[0, 0], &lda)


def symmetrize_lower(acc_t[:, ::1] acc):
    """Copy the lower triangle of ``acc`` (C view) onto its upper triangle, in place."""
    cdef Py_ssize_t n = acc.shape[0], i, j
    with nogil:
        for i in range(n):
            for j in range(i + 1, n):
                acc[i, j] = acc[j, i]

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled pieces of the streaming covariance (Implements: HPSY.Thm3 / PILLAR.Alg1, step 1).

The accumulator :class:`semiprivate.kernels.CovarianceAccumulator` keeps ``count``, ``mean`` (float64) and
the comoment ``M2 = sum_i (x_i - mean)(x_i - mean)^T`` in a preallocated (d, d) C-contiguous
buffer of the accumulation dtype.  A block ``B`` (m, d) is folded in as

1. the first block, and blocks of fewer than ``semiprivate.kernels._pca._SHIFT_MIN_ROWS`` rows:
   :func:`center_chunk` -- ``mean_B`` (float64 sums) and the block centred on it written into a
   preallocated work buffer of the accumulation dtype (two vectorised reads of the block), then the
   Chan–Golub–LeVeque merge ``M2 += M2_B + (n_a m / n) delta delta^T``;
   every other block: :func:`shift_chunk` -- ``Y = B - s`` with the shift ``s`` = the running
   mean (float64), and the float64 column sums of ``B - s``, in *one* read of the block;
2. :func:`syrk_update`: ``M2 += Y^T Y`` by BLAS ``?syrk`` (beta = 1), straight from the work
   buffer;
3. :func:`syr_update`: the rank-1 correction by BLAS ``?syr``.  With ``s`` the running mean of
   the ``n_a`` rows so far and ``dbar = sum(Y) / m`` (so the block mean is ``s + dbar``),
   the Chan–Golub–LeVeque merge ``M2_a + M2_B + (n_a m / n) dbar dbar^T`` with
   ``M2_B = Y^T Y - m dbar dbar^T`` is ``M2_a + Y^T Y - (m^2 / n) dbar dbar^T``.

``dbar`` is the block mean's distance from the running mean, small next to the spread of the
data unless the stream drifts, so the subtraction cancels little (the reason for centring: a
large common mean never enters ``?syrk``).

When the accumulator's ``uncentred_tol`` allows it (a mean small next to the spread, measured
against the rounding unit of the accumulation dtype), a block already in the accumulation dtype
skips the centred copy: :func:`column_sums` (one read) gives its float64 mean ``xbar``, ``?syrk``
reads the block itself, and ``M2 += B^T B - m xbar xbar^T + (n_a m / n) delta delta^T`` with
``delta = xbar - mean`` (two ``?syr``).

BLAS comes from ``scipy.linalg.cython_blas`` (the same OpenBLAS SciPy uses).  The BLAS calls
see the C-contiguous (d, d) buffer as its Fortran transpose: they update the Fortran upper
triangle, i.e. the *lower* triangle ``M2[i, j], i >= j`` of the C view; :func:`symmetrize_lower`
copies it to the upper triangle.
"""

from libc.limits cimport INT_MAX
from scipy.linalg.cython_blas cimport dgemv, dsyr, dsyrk, ssyr, ssyrk

cdef extern from *:
    """
    #include <stdint.h>
    /* arch= levels (GCC >= 12): "avx2,fma" would make two clones, the AVX2 one without FMA */
    #if defined(__GNUC__) && !defined(__clang__) && (__GNUC__ >= 12) && defined(__x86_64__) && defined(__linux__) && !defined(SP_NO_CLONES)
    #define SP_PCA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
    #else
    #define SP_PCA_CLONES
    #endif
    /* One row block: out = (TO)(x - s) row by row, sums += x - s (float64).  restrict pointers
       let the compiler vectorise the row loop (the memoryview version could not, because out
       and sums might alias); the row is re-read from L1 by the second statement. */
    #define SP_DEFINE_SHIFT(NAME, TI, TO)                                                        \
    SP_PCA_CLONES static void NAME(const TI* restrict x, TO* restrict out, const double* restrict s, \
                                   double* restrict sums, int64_t m, int64_t d) {               \
        for (int64_t i = 0; i < m; i++) {                                                   \
            const TI* restrict xr = x + i * d;                                              \
            TO* restrict orow = out + i * d;                                                \
            for (int64_t j = 0; j < d; j++) {                                               \
                double y = (double)xr[j] - s[j];                                            \
                orow[j] = (TO)y;                                                            \
                sums[j] += y;                                                               \
            }                                                                               \
        }                                                                                   \
    }
    /* Column sums in float64, rows taken four at a time (one read of sums[] per four rows). */
    #define SP_DEFINE_COLSUM(NAME, TI)                                                           \
    SP_PCA_CLONES static void NAME(const TI* restrict x, double* restrict sums, int64_t m, int64_t d) { \
        int64_t i = 0;                                                                      \
        for (int64_t j = 0; j < d; j++) sums[j] = 0.0;                                      \
        for (; i + 4 <= m; i += 4) {                                                        \
            const TI* restrict a = x + i * d;                                               \
            for (int64_t j = 0; j < d; j++)                                                 \
                sums[j] += ((double)a[j] + (double)a[j + d]) + ((double)a[j + 2 * d] + (double)a[j + 3 * d]); \
        }                                                                                   \
        for (; i < m; i++) {                                                                \
            const TI* restrict a = x + i * d;                                               \
            for (int64_t j = 0; j < d; j++) sums[j] += (double)a[j];                        \
        }                                                                                   \
    }
    SP_DEFINE_COLSUM(sp_colsum_f, float)
    SP_DEFINE_COLSUM(sp_colsum_d, double)
    SP_DEFINE_SHIFT(sp_shift_ff, float, float)
    SP_DEFINE_SHIFT(sp_shift_fd, float, double)
    SP_DEFINE_SHIFT(sp_shift_df, double, float)
    SP_DEFINE_SHIFT(sp_shift_dd, double, double)
    """
    void sp_shift_ff(const float* x, float* out, const double* s, double* sums, long long m, long long d) nogil
    void sp_shift_fd(const float* x, double* out, const double* s, double* sums, long long m, long long d) nogil
    void sp_shift_df(const double* x, float* out, const double* s, double* sums, long long m, long long d) nogil
    void sp_shift_dd(const double* x, double* out, const double* s, double* sums, long long m, long long d) nogil
    void sp_colsum_f(const float* x, double* sums, long long m, long long d) nogil
    void sp_colsum_d(const double* x, double* sums, long long m, long long d) nogil

ctypedef fused in_t:
    float
    double

ctypedef fused acc_t:
    float
    double


cdef inline void _shift_rows(const in_t[:, ::1] chunk, acc_t[:, ::1] out, const double[::1] shift,
                             double[::1] sums) noexcept nogil:
    """The C shift kernel for the dtype pair (``sums`` accumulates; caller checks shapes, m > 0)."""
    cdef long long m = chunk.shape[0], d = chunk.shape[1]
    if in_t is float:
        if acc_t is float:
            sp_shift_ff(&chunk[0, 0], &out[0, 0], &shift[0], &sums[0], m, d)
        else:
            sp_shift_fd(&chunk[0, 0], &out[0, 0], &shift[0], &sums[0], m, d)
    else:
        if acc_t is float:
            sp_shift_df(&chunk[0, 0], &out[0, 0], &shift[0], &sums[0], m, d)
        else:
            sp_shift_dd(&chunk[0, 0], &out[0, 0], &shift[0], &sums[0], m, d)


def center_chunk(const in_t[:, ::1] chunk, acc_t[:, ::1] out, double[::1] mean, double[::1] work):
    """Column means of ``chunk`` into ``mean`` and ``chunk - mean`` into ``out``, in two reads.

    First read: the float64 column sums, hence a provisional mean ``s``.  Second read:
    :func:`shift_chunk` by ``s``, whose float64 sums of ``chunk - s`` (into ``work``) refine the
    mean to ``s + sum(chunk - s) / m`` (the classic corrected two-pass mean).  ``out`` is centred
    on ``s``, which differs from the returned mean only by that correction ``e``, itself of the
    order of the rounding of the sums; the caller treats ``out^T out`` as the block's comoment,
    which leaves out ``m e e^T``, of relative size ``u^2 |mean|^2 / var`` (far below the rounding
    of ``out^T out`` itself).

    ``out`` must have at least ``chunk.shape[0]`` rows and the same number of columns; ``mean``
    and ``work`` have ``d`` entries.  A non-finite entry of ``chunk`` makes the corresponding mean
    non-finite (the caller checks; ``out`` is then not written).
    """
    cdef Py_ssize_t m = chunk.shape[0], d = chunk.shape[1], j
    cdef double inv
    cdef bint finite = True
    if out.shape[0] < m or out.shape[1] != d or mean.shape[0] != d or work.shape[0] != d:
        raise ValueError("center_chunk: shape mismatch")
    if m == 0:
        raise ValueError("center_chunk: empty chunk")
    inv = 1.0 / <double>m
    with nogil:
        if in_t is float:
            sp_colsum_f(&chunk[0, 0], &mean[0], m, d)
        else:
            sp_colsum_d(&chunk[0, 0], &mean[0], m, d)
        for j in range(d):
            mean[j] *= inv
            if not (mean[j] - mean[j] == 0.0):  # NaN or inf
                finite = False
    if not finite:
        return
    with nogil:
        for j in range(d):
            work[j] = 0.0
        _shift_rows(chunk, out, mean, work)
        for j in range(d):
            mean[j] += work[j] * inv


def column_sums(const in_t[:, ::1] chunk, double[::1] sums, const double[::1] ones):
    """Float64 column sums of ``chunk`` into ``sums``: BLAS ``dgemv`` (``chunk^T ones``, in the
    thread pool the ``?syrk`` calls use) for float64, a vectorised C loop for float32 (float32 BLAS
    would sum in float32).  ``ones`` holds at least ``chunk.shape[0]`` ones (float64 only)."""
    cdef Py_ssize_t m = chunk.shape[0], d = chunk.shape[1]
    cdef int dm = <int>d, mm = <int>m, inc = 1
    cdef char trans = b"N"
    cdef double one = 1.0, zero = 0.0
    if sums.shape[0] != d or (in_t is double and ones.shape[0] < m):
        raise ValueError("column_sums: shape mismatch")
    if m > INT_MAX or d > INT_MAX:
        raise ValueError(f"column_sums: chunk of shape ({m}, {d}) exceeds the BLAS int range")
    sums[:] = 0.0  # also what dgemv's beta = 0 means, without trusting it to ignore a NaN in sums
    if m == 0 or d == 0:
        return
    with nogil:
        if in_t is float:
            sp_colsum_f(&chunk[0, 0], &sums[0], m, d)
        else:
            # the C-contiguous (m, d) chunk is the Fortran (d, m) matrix chunk^T
            dgemv(&trans, &dm, &mm, &one, <double*>&chunk[0, 0], &dm, <double*>&ones[0], &inc, &zero, &sums[0], &inc)


def shift_chunk(const in_t[:, ::1] chunk, acc_t[:, ::1] out, const double[::1] shift, double[::1] sums):
    """``out[:m] = chunk - shift`` (computed in float64, rounded to the accumulation dtype) and
    the float64 column sums of ``chunk - shift`` (before rounding, so that the mean keeps float64
    accuracy) into ``sums``, in one read of ``chunk``.

    ``out`` must have at least ``chunk.shape[0]`` rows and the same number of columns.  A
    non-finite entry of ``chunk`` makes the corresponding sum non-finite (the caller checks).
    """
    cdef Py_ssize_t m = chunk.shape[0], d = chunk.shape[1], j
    if out.shape[0] < m or out.shape[1] != d or shift.shape[0] != d or sums.shape[0] != d:
        raise ValueError("shift_chunk: shape mismatch")
    for j in range(d):
        sums[j] = 0.0
    if m == 0:
        return
    with nogil:
        # Sequential on purpose: an OpenMP region between two multithreaded BLAS calls makes the
        # OpenMP and OpenBLAS thread pools spin against each other (measured 3x slower overall).
        _shift_rows(chunk, out, shift, sums)


def syrk_update(const acc_t[:, ::1] centred, Py_ssize_t rows, acc_t[:, ::1] acc, double alpha=1.0):
    """``acc += alpha * centred[:rows].T @ centred[:rows]`` (lower triangle of ``acc``, C view)."""
    cdef int n = <int>acc.shape[0], k = <int>rows, lda = <int>centred.shape[1], ldc = <int>acc.shape[1]
    cdef char uplo = b"U"
    cdef char trans = b"N"
    cdef double a_d = alpha, b_d = 1.0
    cdef float a_s = <float>alpha, b_s = 1.0
    if acc.shape[0] != acc.shape[1] or centred.shape[1] != acc.shape[0] or rows > centred.shape[0] or rows < 0:
        raise ValueError("syrk_update: shape mismatch")
    if rows > INT_MAX or acc.shape[0] > INT_MAX:
        raise ValueError(f"syrk_update: {rows} rows of width {acc.shape[0]} exceed the BLAS int range")
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

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Build probe: proves the compiled-extension path and reports the OpenMP configuration.

``openmp_enabled()`` is True when the extension was compiled with OpenMP (setup.py
detects compiler support and falls back to a sequential build).  ``max_threads()`` is
the thread count an OpenMP parallel region would use now (it honours OMP_NUM_THREADS);
1 for a sequential build.  ``parallel_sum`` is a real prange reduction used by the tests
to check that the parallel path gives the same answer as NumPy.  ``set_num_threads`` sets the
team size of later parallel regions in this process (``omp_set_num_threads``; a no-op without
OpenMP): :mod:`semiprivate.kernels._backend` sets 1 in a forked child, where libgomp's thread pool from the
parent is gone and a parallel region would hang.
"""
from cython.parallel cimport prange

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int sp_openmp_enabled(void) { return 1; }
    static int sp_max_threads(void) { return omp_get_max_threads(); }
    static void sp_set_num_threads(int n) { omp_set_num_threads(n); }
    #else
    static int sp_openmp_enabled(void) { return 0; }
    static int sp_max_threads(void) { return 1; }
    static void sp_set_num_threads(int n) { (void)n; }
    #endif
    """
    int sp_openmp_enabled() nogil
    int sp_max_threads() nogil
    void sp_set_num_threads(int n) nogil


def openmp_enabled():
    """True when this extension was compiled with OpenMP."""
    return bool(sp_openmp_enabled())


def max_threads():
    """Threads an OpenMP parallel region would use now (1 without OpenMP)."""
    return int(sp_max_threads())


def set_num_threads(int n):
    """Team size of this process's later OpenMP parallel regions (``omp_set_num_threads``), n >= 1.

    Not more than 1 in a process forked after OpenMP started threads
    (``semiprivate.kernels._backend.forked_after_openmp()``): libgomp's pool did not survive the fork and the
    next parallel region would hang.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    sp_set_num_threads(n)


def parallel_sum(const double[::1] x):
    """Sum of a contiguous float64 vector with an OpenMP (prange) reduction."""
    cdef Py_ssize_t i, n = x.shape[0]
    cdef double total = 0.0
    for i in prange(n, nogil=True, schedule="static"):
        total += x[i]
    return total

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Build probe: proves the compiled-extension path and reports the OpenMP configuration.

``openmp_enabled()`` is True when the extension was compiled with OpenMP (setup.py
detects compiler support and falls back to a sequential build).  ``max_threads()`` is
the thread count an OpenMP parallel region would use now (it honours OMP_NUM_THREADS);
1 for a sequential build.  ``parallel_sum`` is a real prange reduction used by the tests
to check that the parallel path gives the same answer as NumPy.
"""
from cython.parallel cimport prange

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    static int sp_openmp_enabled(void) { return 1; }
    static int sp_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int sp_openmp_enabled(void) { return 0; }
    static int sp_max_threads(void) { return 1; }
    #endif
    """
    int sp_openmp_enabled() nogil
    int sp_max_threads() nogil


def openmp_enabled():
    """True when this extension was compiled with OpenMP."""
    return bool(sp_openmp_enabled())


def max_threads():
    """Threads an OpenMP parallel region would use now (1 without OpenMP)."""
    return int(sp_max_threads())


def parallel_sum(const double[::1] x):
    """Sum of a contiguous float64 vector with an OpenMP (prange) reduction."""
    cdef Py_ssize_t i, n = x.shape[0]
    cdef double total = 0.0
    for i in prange(n, nogil=True, schedule="static"):
        total += x[i]
    return total

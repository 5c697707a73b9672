# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Sparse-vector outputs, one pass per row: the mechanism's responses and the auditor's row pattern codes and
keys.

The NumPy functions of :mod:`semiprivate.kernels.sparse_vector` are the specification; these loops give
the same numbers bit for bit (the tests compare them).  The Python wrapper checks shapes and dtypes;
these functions trust them.

``responses``: query ``j`` of row ``r`` is *above* when ``compare[r, j] >= thresholds[r]`` (NaN is
never above); the response is ``values[r, j]`` (or ``above`` without ``values``) when above, ``below``
otherwise, and ``aborted`` once ``cutoff`` earlier queries of the row were above (``cutoff < 0``: no
cutoff).

``pattern_codes``: per row and column of ``cols``, the index of ``x[r, cols[j]]`` in the sorted ``atoms``
when it equals one of them, else ``len(atoms)``.

``pattern_keys``: per row, the int64 key ``sum_j code_j radix^j`` over the columns ``cols``, where
``code_j`` is the index of ``x[r, cols[j]]`` in the sorted ``atoms`` when it equals one of them, else
``len(atoms)``; ``radix = len(atoms) + 1``.  With ``binned``, the key is then
``key * (len(edges) + 2) + b``, where ``b`` is ``searchsorted(edges, v, 'left')`` for the row's first
non-atom value ``v``, or ``len(edges) + 1`` when the row has none.  Comparisons follow NumPy's sort
order, NaN after every number, so the bin of a NaN is NumPy's.
"""
from libc.stdint cimport int64_t


cdef inline bint _before(double a, double b) noexcept nogil:
    """NumPy's sort order: ``a < b``, with NaN after every number."""
    return a < b or (b != b and a == a)


cdef inline Py_ssize_t _lower_bound(const double[::1] sorted_values, double v) noexcept nogil:
    """``numpy.searchsorted(sorted_values, v, side='left')``."""
    cdef Py_ssize_t lo = 0, hi = sorted_values.shape[0], mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if _before(sorted_values[mid], v):
            lo = mid + 1
        else:
            hi = mid
    return lo


def responses(const double[:, :] compare not None, const double[::1] thresholds not None,
              const double[:, :] values not None, bint has_values, Py_ssize_t cutoff, double above, double below,
              double aborted, double[:, :] out not None):
    """Fill ``out`` (n x m) with the responses; see the module docstring."""
    cdef Py_ssize_t n = compare.shape[0], m = compare.shape[1], r, j, count
    cdef double thr
    with nogil:
        for r in range(n):
            thr = thresholds[r]
            count = 0
            for j in range(m):
                if cutoff >= 0 and count >= cutoff:
                    out[r, j] = aborted
                elif compare[r, j] >= thr:
                    out[r, j] = values[r, j] if has_values else above
                    count += 1
                else:
                    out[r, j] = below


def pattern_codes(const double[:, :] x not None, const int64_t[::1] cols not None, const double[::1] atoms not None,
                  int64_t[:, ::1] out not None):
    """Fill ``out`` (n x len(cols)) with the atom code of each value: its index in ``atoms`` when it
    equals one, else ``len(atoms)``."""
    cdef Py_ssize_t n = x.shape[0], k = cols.shape[0], n_atoms = atoms.shape[0], r, j, idx
    cdef double v
    with nogil:
        for r in range(n):
            for j in range(k):
                v = x[r, cols[j]]
                idx = _lower_bound(atoms, v)
                out[r, j] = idx if idx < n_atoms and atoms[idx] == v else n_atoms


def pattern_keys(const double[:, :] x not None, const int64_t[::1] cols not None, const double[::1] atoms not None,
                 const double[::1] edges not None, bint binned, int64_t[::1] out not None):
    """Fill ``out`` (n) with the row pattern keys; see the module docstring."""
    cdef Py_ssize_t n = x.shape[0], k = cols.shape[0], n_atoms = atoms.shape[0], r, j, idx, first
    cdef int64_t radix = n_atoms + 1, n_bins = edges.shape[0] + 1, key, mult, code
    cdef double v
    with nogil:
        for r in range(n):
            key = 0
            mult = 1
            first = -1
            for j in range(k):
                v = x[r, cols[j]]
                idx = _lower_bound(atoms, v)
                if idx < n_atoms and atoms[idx] == v:
                    code = idx
                else:
                    code = n_atoms
                    if first < 0:
                        first = j
                key += code * mult
                mult *= radix
            if binned:
                if first >= 0:
                    key = key * (n_bins + 1) + _lower_bound(edges, x[r, cols[first]])
                else:
                    key = key * (n_bins + 1) + n_bins
            out[r] = key

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exact discrete noise, compiled: the common path of :mod:`semiprivate.kernels._reference_noise`.

:func:`draw` reads one 64-bit word per sample from NumPy's C bit generator (``next_uint64``, the word
``rng.integers(0, 2**64, dtype=np.uint64)`` gives in the reference), locates it among the table's lower
bounds ``L`` (a guide table on the top bits, then a short scan: the same ``c = #{L <= w}`` as the
reference's ``searchsorted``), and marks the samples the reference settles (``H`` of the boundary below
above the word, an open tail cell, the all-ones word).  The Python wrapper then settles those in index
order with the reference's own code, so outputs and the generator's state after are the reference's,
bit for bit.  The caller holds the bit generator's lock.
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from numpy.random cimport bitgen_t

import numpy as np


cdef inline bint _locate(uint64_t w, const uint64_t[::1] L, const uint64_t[::1] H, const int32_t[::1] guide,
                         int shift, bint lower_closed, bint upper_closed, Py_ssize_t *cell) noexcept nogil:
    """``cell[0] = #{i : L[i] <= w}``; True when the reference settles this word."""
    cdef Py_ssize_t nb = L.shape[0]
    cdef Py_ssize_t c = guide[<Py_ssize_t>(w >> shift)]
    cdef bint unsure = w == 0xFFFFFFFFFFFFFFFFULL
    while c < nb and L[c] <= w:
        c += 1
    cell[0] = c
    if c > 0:
        unsure = unsure or H[c - 1] > w
    elif not lower_closed:
        unsure = True
    if c == nb and not upper_closed:
        unsure = True
    return unsure


def draw(const uint64_t[::1] L not None, const uint64_t[::1] H not None, const int32_t[::1] guide not None,
         int guide_bits, int64_t xmin, bint lower_closed, bint upper_closed, object capsule,
         int64_t[::1] out not None):
    """Fill ``out`` with ``xmin + c`` per word; return ``(indices, words)`` of the samples still to settle.

    ``guide[j] = #{i : L[i] <= j << (64 - guide_bits)}`` (``len(guide) = 2**guide_bits``, ``guide_bits >= 1``).
    """
    cdef const char *name = "BitGenerator"
    if not PyCapsule_IsValid(capsule, name):
        raise ValueError("capsule must be a NumPy BitGenerator capsule")
    if not 1 <= guide_bits <= 32 or guide.shape[0] != (1 << guide_bits):
        raise ValueError("guide must have 2**guide_bits entries, 1 <= guide_bits <= 32")
    cdef bitgen_t *bg = <bitgen_t *> PyCapsule_GetPointer(capsule, name)
    cdef Py_ssize_t n = out.shape[0], i, c, k = 0
    cdef int shift = 64 - guide_bits
    cdef uint64_t w
    idx_arr = np.empty(n, dtype=np.int64)
    w_arr = np.empty(n, dtype=np.uint64)
    cdef int64_t[::1] idx = idx_arr
    cdef uint64_t[::1] ws = w_arr
    with nogil:
        for i in range(n):
            w = bg.next_uint64(bg.state)
            if _locate(w, L, H, guide, shift, lower_closed, upper_closed, &c):
                idx[k] = i
                ws[k] = w
                k += 1
            out[i] = xmin + c
    return idx_arr[:k], w_arr[:k]


def classify(const uint64_t[::1] L not None, const uint64_t[::1] H not None, const int32_t[::1] guide not None,
             int guide_bits, int64_t xmin, bint lower_closed, bint upper_closed, const uint64_t[::1] words not None,
             int64_t[::1] out not None, uint8_t[::1] unsure not None):
    """:func:`draw`'s decision for given words (values into ``out``, the settle mask into ``unsure``)."""
    if not 1 <= guide_bits <= 32 or guide.shape[0] != (1 << guide_bits):
        raise ValueError("guide must have 2**guide_bits entries, 1 <= guide_bits <= 32")
    cdef Py_ssize_t n = words.shape[0], i, c
    cdef int shift = 64 - guide_bits
    with nogil:
        for i in range(n):
            unsure[i] = _locate(words[i], L, H, guide, shift, lower_closed, upper_closed, &c)
            out[i] = xmin + c

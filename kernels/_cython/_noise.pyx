# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exact discrete noise, compiled: the common path of :mod:`semiprivate.kernels._reference_noise`.

:func:`draw` reads one 64-bit word per sample from NumPy's C bit generator (``next_uint64``, the word
``rng.integers(0, 2**64, dtype=np.uint64)`` gives in the reference), locates it among the table's lower
bounds ``L`` (a guide table on the top bits, then a short scan: the same ``c = #{L <= w}`` as the
reference's ``searchsorted``), and marks the samples the reference settles (``H`` of the boundary below
above the word, an open tail cell, the all-ones word).  The Python wrapper then settles those in index
order with the reference's own code, so outputs and the generator's state after are the reference's,
bit for bit.  The caller holds the bit generator's lock.

:func:`draw_into` is the same loop accumulating into an array (the parts of a wide discrete Laplace, the
last forming ``sign(Y) (|Y| + B G)``); :func:`gaussian_coins` and :func:`accept_compact` are the coins and
the round bookkeeping of CKS20 Alg. 3 (coins the float bound leaves open go to the reference's exact code).
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.math cimport exp, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from numpy.random cimport bitgen_t

import numpy as np


cdef bitgen_t *_bitgen(object capsule) except NULL:
    """The C bit generator inside a NumPy ``BitGenerator.capsule`` (a ValueError for anything else)."""
    cdef const char *name = "BitGenerator"
    if not PyCapsule_IsValid(capsule, name):
        raise ValueError("capsule must be a NumPy BitGenerator capsule")
    return <bitgen_t *> PyCapsule_GetPointer(capsule, name)


cdef int _check_guide(const int32_t[::1] guide, int guide_bits) except -1:
    if not 1 <= guide_bits <= 32 or guide.shape[0] != (1 << guide_bits):
        raise ValueError("guide must have 2**guide_bits entries, 1 <= guide_bits <= 32")
    return 0


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
    _check_guide(guide, guide_bits)
    cdef bitgen_t *bg = _bitgen(capsule)
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
    _check_guide(guide, guide_bits)
    cdef Py_ssize_t n = words.shape[0], i, c
    cdef int shift = 64 - guide_bits
    with nogil:
        for i in range(n):
            unsure[i] = _locate(words[i], L, H, guide, shift, lower_closed, upper_closed, &c)
            out[i] = xmin + c


def draw_into(const uint64_t[::1] L not None, const uint64_t[::1] H not None, const int32_t[::1] guide not None,
              int guide_bits, int64_t xmin, bint lower_closed, bint upper_closed, object capsule,
              int64_t[::1] out not None, int64_t mult, bint add, const int64_t[::1] y=None):
    """:func:`draw`'s words and values ``v = xmin + c``, accumulated: ``out[i] = mult * v`` (``add`` False) or
    ``out[i] += mult * v`` (``add`` True), one pass and no temporary (the parts of a wide discrete Laplace).

    Returns ``(indices, words, guesses, vmax)``: the samples still to settle with their words and values
    ``v`` (the caller adds ``mult * (settled - guess)``), and the largest ``v`` drawn.  ``mult * v`` must
    fit in int64 for every ``v`` of the table (the caller checks ``mult * (xmin + len(L))``).

    With ``y`` (the low part of a wide discrete Laplace, ``add`` True) the last part also forms the sample:
    ``out[i] = sign(y[i]) (|y[i]| + out[i] + mult * v)`` (0 where ``y[i] = 0``), so a settled value's
    correction is ``sign(y[i]) mult (settled - guess)``.
    """
    _check_guide(guide, guide_bits)
    cdef bitgen_t *bg = _bitgen(capsule)
    cdef Py_ssize_t n = out.shape[0], i, c = 0, k = 0, nb = L.shape[0]
    cdef int shift = 64 - guide_bits
    cdef uint64_t w = 0
    cdef int64_t v, vmax = xmin
    cdef bint unsure
    cdef const uint64_t *Lp = &L[0] if nb else NULL
    cdef const uint64_t *Hp = &H[0] if nb else NULL
    cdef const int32_t *Gp = &guide[0]
    cdef int64_t *op = &out[0] if n else NULL
    idx_arr = np.empty(16, dtype=np.int64)
    w_arr = np.empty(16, dtype=np.uint64)
    g_arr = np.empty(16, dtype=np.int64)
    cdef int64_t[::1] idx = idx_arr
    cdef uint64_t[::1] ws = w_arr
    cdef int64_t[::1] gs = g_arr
    cdef bint final = y is not None
    cdef const int64_t *yp = NULL
    cdef int64_t yv
    if final:
        if y.shape[0] != n or not add:
            raise ValueError("y must have out's length, with add=True")
        if n:
            yp = &y[0]
    with nogil:
        for i in range(n):
            w = bg.next_uint64(bg.state)
            c = Gp[w >> shift]
            while c < nb and Lp[c] <= w:
                c += 1
            # the reference's settle mask (as _locate): all-ones word, H below above w, open tail cells
            unsure = w == 0xFFFFFFFFFFFFFFFFULL
            if c > 0:
                unsure = unsure or Hp[c - 1] > w
            elif not lower_closed:
                unsure = True
            if c == nb and not upper_closed:
                unsure = True
            if unsure:
                if k == idx.shape[0]:
                    with gil:  # the settle lists are full: double them (rare)
                        idx_arr = np.concatenate([idx_arr, np.empty(idx_arr.shape[0], dtype=np.int64)])
                        w_arr = np.concatenate([w_arr, np.empty(w_arr.shape[0], dtype=np.uint64)])
                        g_arr = np.concatenate([g_arr, np.empty(g_arr.shape[0], dtype=np.int64)])
                        idx, ws, gs = idx_arr, w_arr, g_arr
                idx[k] = i
                ws[k] = w
                gs[k] = xmin + c
                k += 1
            v = xmin + c
            if v > vmax:
                vmax = v
            if final:
                yv = yp[i]
                if yv > 0:
                    op[i] = yv + op[i] + mult * v
                elif yv < 0:
                    op[i] = yv - op[i] - mult * v
                else:
                    op[i] = 0
            elif add:
                op[i] += mult * v
            else:
                op[i] = mult * v
    return idx_arr[:k], w_arr[:k], g_arr[:k], vmax


def gaussian_coins(const int64_t[::1] y not None, double centre, double two_sigma2, object capsule,
                   uint8_t[::1] keep not None, double margin=9.5367431640625e-07):
    """One coin word per proposal (``next_uint64``, in index order) for CKS20 Alg. 3's acceptance
    ``Bernoulli(exp(-gamma))``, ``gamma = (|y| - sigma2 / t)**2 / (2 sigma2)``, decided where a float
    bound makes the exact answer certain; returns ``(indices, words)`` of the coins left to the exact code.

    ``A = 2**64 exp(-gamma)`` is computed in double precision from ``centre`` = ``sigma2 / t`` and
    ``two_sigma2`` = ``2 sigma2`` (each within half an ulp of the rational): its relative error is below
    about ``16 * 2**-53 * max(gamma, 1)``, under ``2**-21`` for ``gamma < 2**28`` (beyond, ``exp`` is 0 and
    the exact bound is at most 1).  The reference's 64-bit decision (accept when ``w + 1 <= lo``, reject
    when ``w >= hi``, ``lo <= 2**64 exp(-gamma) <= hi`` within a few units) is therefore the same as
    "accept when ``w < A (1 - 2**-20) - 64``, reject when ``w > A (1 + 2**-20) + 64``"; every word in
    between is left to the exact code (about ``2**-19`` of them), so the decisions are the reference's.
    ``margin`` (default ``2**-20``) may be widened, never narrowed: a wider band leaves more coins to the
    exact code and changes no decision.
    """
    if not 9.5367431640625e-07 <= margin < 1.0:
        raise ValueError(f"margin must be in [2**-20, 1), got {margin!r}")
    cdef bitgen_t *bg = _bitgen(capsule)
    cdef Py_ssize_t n = y.shape[0], i, k = 0
    if keep.shape[0] != n:
        raise ValueError("y and keep must have the same length")
    cdef uint64_t w
    cdef double a, d, gam, A, wd
    cdef double two64 = 18446744073709551616.0
    idx_arr = np.empty(n, dtype=np.int64)
    w_arr = np.empty(n, dtype=np.uint64)
    cdef int64_t[::1] idx = idx_arr
    cdef uint64_t[::1] ws = w_arr
    with nogil:
        for i in range(n):
            w = bg.next_uint64(bg.state)
            a = fabs(<double> y[i])
            d = a - centre
            gam = d * d / two_sigma2
            A = exp(-gam) * two64
            wd = <double> w
            if wd < A * (1.0 - margin) - 64.0:
                keep[i] = 1
            elif wd > A * (1.0 + margin) + 64.0:
                keep[i] = 0
            else:
                keep[i] = 0
                idx[k] = i
                ws[k] = w
                k += 1
    return idx_arr[:k], w_arr[:k]


def accept_compact(const int64_t[::1] y not None, const uint8_t[::1] keep not None, int64_t[::1] pending not None,
                   int64_t[::1] out not None):
    """One round's bookkeeping of CKS20 Alg. 3, in one pass: ``out[pending[i]] = y[i]`` where ``keep[i]``, and the
    rejected ``pending[i]`` moved (in order) to the front of ``pending``; returns their number."""
    cdef Py_ssize_t m = y.shape[0], i, k = 0
    if keep.shape[0] != m or pending.shape[0] < m:
        raise ValueError("y, keep and pending must have the same length")
    with nogil:
        for i in range(m):
            if keep[i]:
                out[pending[i]] = y[i]
            else:
                pending[k] = pending[i]
                k += 1
    return k

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exact discrete noise, compiled: the common path of :mod:`semiprivate.kernels._reference_noise`.

:func:`draw` reads one 64-bit word per sample from NumPy's C bit generator (``next_uint64``, the word
``rng.integers(0, 2**64, dtype=np.uint64)`` gives in the reference), locates it among the table's lower
bounds ``L`` (a guide table on the top bits, then a short scan: the same ``c = #{L <= w}`` as the
reference's ``searchsorted``), and marks the samples the reference settles (``H`` of the boundary below
above the word, an open tail cell, the all-ones word).  The Python wrapper then settles those in index
order with the reference's own code, so outputs and the generator's state after are the reference's,
bit for bit.  The caller holds the bit generator's lock.

:func:`laplace_wide` is the wide discrete Laplace in one pass (per sample its words, two parts per word,
each part located from a 32-bit half on its boundaries' top 32 bits, ``sign(Y) (|Y| + B G)`` formed at
once); :func:`gaussian_round` is one round of CKS20 Alg. 3 on the same proposals with a coin word each,
:func:`gaussian_bucket_round` one round of the bucketed discrete Gaussian (``_GaussianBuckets``), and :func:`accept_compact` their
bookkeeping (parts and coins the 64 or 32 bits or the float bound leave open go to the reference's exact
code).
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.math cimport exp, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from numpy.random cimport bitgen_t

import numpy as np


cdef bitgen_t *_bitgen(object capsule) except NULL:
    """The C bit generator inside a NumPy ``BitGenerator.capsule`` (a ValueError for anything else)."""
    cdef const char *name = "BitGenerator"
    if not PyCapsule_IsValid(capsule, name):
        raise ValueError("capsule must be a NumPy BitGenerator capsule")
    return <bitgen_t *> PyCapsule_GetPointer(capsule, name)


cdef int _check_guide(const int32_t[::1] guide, int guide_bits, Py_ssize_t nb) except -1:
    """``guide`` has ``2**guide_bits`` entries and its last is at most ``nb``.  The entries are not all read
    (a call for a few samples would pay for the whole guide): a guide is the counts ``semiprivate.kernels.noise``
    builds, nondecreasing, so its last entry bounds them all."""
    if not 1 <= guide_bits <= 32 or guide.shape[0] != ((<Py_ssize_t> 1) << guide_bits):
        raise ValueError("guide must have 2**guide_bits entries, 1 <= guide_bits <= 32")
    if not 0 <= guide[0] <= guide[guide.shape[0] - 1] <= nb:
        raise ValueError("guide entries must be nondecreasing counts in [0, len(L)]")
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
    _check_guide(guide, guide_bits, L.shape[0])
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
    _check_guide(guide, guide_bits, L.shape[0])
    cdef Py_ssize_t n = words.shape[0], i, c
    cdef int shift = 64 - guide_bits
    with nogil:
        for i in range(n):
            unsure[i] = _locate(words[i], L, H, guide, shift, lower_closed, upper_closed, &c)
            out[i] = xmin + c


def accept_compact(const int64_t[::1] y not None, const uint8_t[::1] keep not None, int64_t[::1] pending not None,
                   int64_t[::1] out not None):
    """One round's bookkeeping of a rejection sampler (the bucketed Gaussian, CKS20 Alg. 3), in one pass:
    ``out[pending[i]] = y[i]`` where ``keep[i]``, and the rejected ``pending[i]`` moved (in order) to the front of
    ``pending``; returns their number."""
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


# ---------------------------------------------------------------------------
# Wide discrete Laplace and CKS20 Alg. 3: two parts per word, one pass
# ---------------------------------------------------------------------------

cdef enum:
    MAX_PARTS = 16

cdef struct Part:
    const uint32_t *K
    const int32_t *G
    int gshift
    bint tight
    const uint64_t *L
    const uint64_t *H
    Py_ssize_t nb
    int64_t xmin
    int64_t place
    bint lower_closed
    bint upper_closed


cdef int _parts(list tables, Part *out) except -1:
    """Fill ``out`` from ``tables``: ``(L, H, guide, guide_bits, xmin, lower_closed, upper_closed, place, K, tight)``
    each, as ``semiprivate.kernels.noise._half_part`` builds them (the arrays stay owned by the caller, who keeps
    them alive for the call).

    ``K`` is ``L >> 32`` as uint32 followed by one sentinel ``2**32 - 1`` (``nb + 1`` entries); ``guide[j] = #{i :
    K[i] < j << (32 - guide_bits)}`` over the 32-bit halves; ``tight`` is True when every boundary's ``H`` lies in
    the same ``2**32`` cell as its ``L`` (``(H - 1) >> 32 <= L >> 32``, or ``H = 0``)."""
    cdef Py_ssize_t j
    cdef const uint64_t[::1] L
    cdef const uint64_t[::1] H
    cdef const int32_t[::1] G
    cdef const uint32_t[::1] K
    cdef int bits
    if not 1 <= len(tables) <= MAX_PARTS:
        raise ValueError(f"tables must hold 1 to {MAX_PARTS} parts, got {len(tables)}")
    for j in range(len(tables)):
        L, H, G, bits, xmin, lc, uc, place, K, tight = tables[j]
        _check_guide(G, bits, L.shape[0])
        if L.shape[0] < 1 or H.shape[0] != L.shape[0] or bits > 32:
            raise ValueError("each part needs L and H of one positive length and guide_bits <= 32")
        if K.shape[0] != L.shape[0] + 1 or K[L.shape[0]] != 0xFFFFFFFFU:
            raise ValueError("each part needs K = L >> 32 and one sentinel 2**32 - 1 (len(L) + 1 entries)")
        out[j].K = &K[0]
        out[j].G = &G[0]
        out[j].gshift = 32 - bits
        out[j].tight = tight
        out[j].L = &L[0]
        out[j].H = &H[0]
        out[j].nb = L.shape[0]
        out[j].xmin = xmin
        out[j].place = place
        out[j].lower_closed = lc
        out[j].upper_closed = uc
    return 0


cdef inline bint _half_exact(const Part *p, uint64_t a, Py_ssize_t c, int64_t *v) noexcept nogil:
    """:func:`_half` when some boundary's ``L >> 32`` equals ``a``: the reference's test on the 64-bit bounds, the
    scan resumed at ``c`` (every boundary below ``c`` has ``L < a 2**32``)."""
    cdef uint64_t lo = a << 32
    cdef Py_ssize_t nb = p.nb
    cdef bint first, last
    while c < nb and p.L[c] <= lo:
        c += 1
    v[0] = p.xmin + c
    first = c == 0
    last = c == nb
    return (((not first) & (p.H[c - (not first)] > lo)) | (first & (not p.lower_closed))
            | ((not last) & ((p.L[c - last] >> 32) <= a)) | (last & (not p.upper_closed)))


cdef bint _half_below(const Part *p, uint64_t a, Py_ssize_t c) noexcept nogil:
    """:func:`_half`'s flag for a table that is not ``tight`` (``c = #{L <= a 2**32}``, the boundary above certain):
    the boundary below's ``H`` read.  Kept out of line: :func:`_half`'s common path (a tight table) stays small."""
    cdef bint first = c == 0, last = c == p.nb
    return (((not first) & (p.H[c - (not first)] > (a << 32))) | (first & (not p.lower_closed))
            | (last & (not p.upper_closed)))


cdef inline bint _half(const Part *p, uint64_t a, int64_t *v) noexcept nogil:
    """The reference's ``classify_halves`` for one 32-bit chunk ``a``: ``v[0] = xmin + c``; True to settle.

    Located on ``K = L >> 32`` (4 bytes a boundary, so the tables of a sample's parts stay in the near caches):
    ``c = #{K < a}`` from the guide and one branch-free step, then the rare rest.  When ``K[c] != a`` (so ``K[c]
    > a``) that ``c`` is the reference's ``#{L <= a 2**32}`` and the boundary above is certain (``L[c] >> 32 >
    a``), so only the boundary below can leave the half open: ``H[c - 1] > a 2**32``, never so for a ``tight``
    table (``H[c - 1] <= (K[c - 1] + 1) 2**32 <= a 2**32``).  ``K[c] == a`` (about ``nb 2**-32`` of the halves,
    and the all-ones half at the sentinel) goes to the 64-bit test, :func:`_half_exact`."""
    cdef uint32_t a32 = <uint32_t> a
    cdef Py_ssize_t c = p.G[a >> p.gshift]
    cdef bint first, last
    c += p.K[c] < a32  # one step without a branch (the guide leaves about one boundary per cell), then the rare rest
    while p.K[c] < a32:  # the sentinel stops it at nb
        c += 1
    if p.K[c] == a32:
        return _half_exact(p, a, c, v)
    v[0] = p.xmin + c
    first = c == 0
    last = c == p.nb
    if p.tight:
        return (first & (not p.lower_closed)) | (last & (not p.upper_closed))
    return _half_below(p, a, c)



cdef inline bint _wide_sample(const Part *parts, int np_, bitgen_t *bg, int64_t *y, int64_t *s, int64_t *top,
                              uint64_t *words) noexcept nogil:
    """One wide discrete Laplace sample's common path: ``ceil(np_ / 2)`` words (kept in ``words``), part ``j``
    from the high (even ``j``) or low (odd ``j``) half of word ``j // 2``.  ``y`` = the low part, ``s`` = the sum
    of the other parts times their place values, ``top`` = the last part.  True when some part must be settled
    (then :func:`_wide_parts_of` gives each part's half, value and flag from ``words``)."""
    cdef int j
    cdef uint64_t w = 0, h
    cdef int64_t v = 0, acc = 0
    cdef bint any_unsure = False
    y[0] = 0
    for j in range(np_):
        if j % 2 == 0:
            w = bg.next_uint64(bg.state)
            words[j >> 1] = w
            h = w >> 32
        else:
            h = w & 0xFFFFFFFFULL
        any_unsure = any_unsure | _half(&parts[j], h, &v)
        if j == 0:
            y[0] = v
        else:
            acc += parts[j].place * v
    s[0] = acc
    top[0] = v
    return any_unsure


cdef inline void _wide_parts_of(const Part *parts, int np_, const uint64_t *words, uint64_t *halves, int64_t *vals,
                         uint8_t *flags) noexcept nogil:
    """Each part's half, value and settle flag, from a sample's words (the rare path of :func:`_wide_sample`:
    the same pure decisions, recomputed)."""
    cdef int j
    cdef int64_t v
    for j in range(np_):
        halves[j] = (words[j >> 1] >> 32) if j % 2 == 0 else (words[j >> 1] & 0xFFFFFFFFULL)
        flags[j] = _half(&parts[j], halves[j], &v)
        vals[j] = v


cdef inline int64_t _signed(int64_t y, int64_t s) noexcept nogil:
    """``sign(y) (|y| + s)`` without a branch on the sign (0 for ``y = 0``)."""
    return y + ((y > 0) - (y < 0)) * s


cdef inline int _float_coin(double wd, double A, double lo_f, double hi_f) noexcept nogil:
    """A coin word ``wd`` against ``A ~ 2**64 exp(-gamma)``: 1 (accept) below ``A lo_f - 64``, 0 (reject) above
    ``A hi_f + 64``, -1 (left to the exact code) in between (the argument: :func:`gaussian_round`)."""
    if wd < A * lo_f - 64.0:
        return 1
    if wd > A * hi_f + 64.0:
        return 0
    return -1


cdef class _Entries:
    """A growing table of settle entries: ``(sample, part, half, guess, y, s)`` rows."""
    cdef public object arr
    cdef int64_t[:, ::1] view
    cdef Py_ssize_t k

    def __init__(self):
        self.arr = np.empty((16, 6), dtype=np.int64)
        self.view = self.arr
        self.k = 0

    cdef void push(self, int64_t i, int64_t j, uint64_t half, int64_t guess, int64_t y, int64_t s) noexcept nogil:
        if self.k == self.view.shape[0]:
            with gil:
                self.arr = np.concatenate([self.arr, np.empty_like(self.arr)])
                self.view = self.arr
        self.view[self.k, 0] = i
        self.view[self.k, 1] = j
        self.view[self.k, 2] = <int64_t> half
        self.view[self.k, 3] = guess
        self.view[self.k, 4] = y
        self.view[self.k, 5] = s
        self.k += 1

    def rows(self):
        return self.arr[:self.k]


cdef void _record_open(const Part *parts, int np_, const uint64_t *words, Py_ssize_t i, int64_t y, int64_t s,
                       _Entries ent) noexcept nogil:
    """Push the settle rows ``(i, part, half, guess, y, s)`` of sample ``i``'s open parts (recomputed from its
    words), in part order.  Not inline: the common path stays small."""
    cdef uint64_t halves[MAX_PARTS]
    cdef int64_t vals[MAX_PARTS]
    cdef uint8_t flags[MAX_PARTS]
    cdef int j
    _wide_parts_of(parts, np_, words, halves, vals, flags)
    for j in range(np_):
        if flags[j]:
            ent.push(i, j, halves[j], vals[j], y, s)


def laplace_wide(list tables, object capsule, int64_t[::1] out not None):
    """The wide discrete Laplace (the reference's ``_LaplaceLarge.sample``) in one pass: per sample its
    ``ceil(P / 2)`` words, the ``P`` parts located from 32-bit halves, ``out = sign(Y) (|Y| + sum place_j v_j)``.

    ``tables``: per part ``(L, H, guide, guide_bits, xmin, lower_closed, upper_closed, place, K, tight)`` (as
    :func:`_parts` reads them), the low part
    first (its place unused), the top part last.  Returns ``(entries, topmax)``: the rows ``(sample, part,
    half, guess, Y, S)`` of the parts to settle, in (sample, part) order (``Y`` and ``S`` as computed from the
    guesses), and the largest top-part value drawn.  ``place * v`` must fit in int64 for every value of each
    table (the caller checks).
    """
    cdef Part parts[MAX_PARTS]
    _parts(tables, parts)
    cdef int np_ = len(tables), j
    cdef bitgen_t *bg = _bitgen(capsule)
    cdef Py_ssize_t n = out.shape[0], i
    cdef int64_t y, s, top, topmax = parts[np_ - 1].xmin
    cdef uint64_t words[MAX_PARTS]
    cdef _Entries ent = _Entries()
    with nogil:
        for i in range(n):
            if _wide_sample(parts, np_, bg, &y, &s, &top, words):
                _record_open(parts, np_, words, i, y, s, ent)
            if top > topmax:
                topmax = top
            out[i] = _signed(y, s)
    return ent.rows(), topmax


def gaussian_round(list tables, object capsule, double centre, double two_sigma2, int64_t[::1] y_out not None,
                   uint8_t[::1] keep not None, double margin=9.5367431640625e-07):
    """One round of CKS20 Alg. 3 over ``m = len(y_out)`` pending samples (the reference's
    ``_GaussianRejection.sample`` round): per sample its proposal's words (as :func:`laplace_wide`) then its
    coin word; the proposal into ``y_out``, the coin's decision into ``keep``.

    A coin is decided here when its proposal needs no settling and the double-precision bound makes the
    reference's 64-bit decision certain.  ``A = 2**64 exp(-gamma)``, ``gamma = (|y| - sigma2 / t)**2 / (2
    sigma2)``, is computed in double precision from ``centre`` = ``sigma2 / t`` and ``two_sigma2`` = ``2
    sigma2`` (each within half an ulp of the rational): its relative error is below about ``16 * 2**-53 *
    max(gamma, 1)``, under ``2**-21`` for ``gamma < 2**28`` (beyond, ``exp`` is 0 and the exact bound is at
    most 1).  The reference's 64-bit decision (accept when ``w + 1 <= lo``, reject when ``w >= hi``, ``lo <=
    2**64 exp(-gamma) <= hi`` within a few units) is therefore the same as "accept when ``w < A (1 - 2**-20) -
    64``, reject when ``w > A (1 + 2**-20) + 64``"; every word in between is left to the exact code (about
    ``2**-19`` of them), so the decisions are the reference's.  ``margin`` (default ``2**-20``) may be
    widened, never narrowed: a wider band leaves more coins to the exact code and changes no decision.
    The rest are returned.  Returns ``(entries, topmax, coin_idx, coin_words)``: the proposals' settle rows
    (as :func:`laplace_wide`), the largest top part, and the coins left to the exact code, in index order
    (``keep`` is 0 there).
    """
    if not 9.5367431640625e-07 <= margin < 1.0:
        raise ValueError(f"margin must be in [2**-20, 1), got {margin!r}")
    cdef Part parts[MAX_PARTS]
    _parts(tables, parts)
    cdef int np_ = len(tables), j
    cdef bitgen_t *bg = _bitgen(capsule)
    cdef Py_ssize_t m = y_out.shape[0], i, k = 0
    if keep.shape[0] != m:
        raise ValueError("y_out and keep must have the same length")
    cdef int64_t y, s, top, topmax = parts[np_ - 1].xmin, x
    cdef uint64_t words[MAX_PARTS]
    cdef uint64_t w
    cdef double d, two64 = 18446744073709551616.0
    cdef double lo_f = 1.0 - margin, hi_f = 1.0 + margin
    cdef bint open_
    cdef int coin
    cdef _Entries ent = _Entries()
    idx_arr = np.empty(m, dtype=np.int64)
    w_arr = np.empty(m, dtype=np.uint64)
    cdef int64_t[::1] idx = idx_arr
    cdef uint64_t[::1] ws = w_arr
    with nogil:
        for i in range(m):
            open_ = _wide_sample(parts, np_, bg, &y, &s, &top, words)
            if open_:
                _record_open(parts, np_, words, i, y, s, ent)
            if top > topmax:
                topmax = top
            x = _signed(y, s)
            y_out[i] = x
            w = bg.next_uint64(bg.state)
            keep[i] = 0
            if not open_:
                d = fabs(<double> x) - centre
                coin = _float_coin(<double> w, exp(-(d * d / two_sigma2)) * two64, lo_f, hi_f)
                if coin >= 0:
                    keep[i] = coin
                    continue
            idx[k] = i
            ws[k] = w
            k += 1
    return ent.rows(), topmax, idx_arr[:k], w_arr[:k]


def classify_halves(list tables, const uint64_t[::1] halves not None, int64_t[::1] out not None,
                    uint8_t[::1] unsure not None):
    """The compiled decision for given 32-bit halves of the first part in ``tables`` (as :func:`laplace_wide`
    locates each part): values into ``out``, the settle mask into ``unsure``."""
    cdef Part parts[MAX_PARTS]
    _parts(tables, parts)
    cdef Py_ssize_t n = halves.shape[0], i
    cdef int64_t v
    if out.shape[0] != n or unsure.shape[0] != n:
        raise ValueError("halves, out and unsure must have the same length")
    for i in range(n):
        if halves[i] > 0xFFFFFFFFULL:
            raise ValueError("halves must lie in [0, 2**32)")
    with nogil:
        for i in range(n):
            unsure[i] = _half(&parts[0], halves[i], &v)
            out[i] = v


def gaussian_bucket_round(list tables, int wbits, object capsule, double two_sigma2, int64_t[::1] x_out not None,
                          uint8_t[::1] keep not None, double margin=9.5367431640625e-07):
    """One round of the bucketed discrete Gaussian (the reference's ``_GaussianBuckets.sample`` round) over
    ``m = len(x_out)`` pending samples: per sample its proposal word (``K`` from the high half, located as
    :func:`laplace_wide` locates a part; bit 31 the sign ``S``; for ``wbits <= 31`` the low ``wbits`` bits
    ``R``), for ``wbits > 31`` an offset word (its low ``wbits`` bits ``R``), then its coin word; ``x = W j +
    R``, ``j = K`` or ``-K - 1``.

    The coin accepts with probability ``exp(-gamma)``, ``gamma = (|x| - W k)(|x| + W k) / (2 sigma2)``.  Both
    factors are formed in int64 (``|x| <= W (k + 1) < 2**56``: ``W <= 2**46`` and ``k`` from the table, a few
    hundred); in double precision ``|x| - W k``, in ``[0, W]``, is exact and ``|x| + W k`` rounds once, and the
    product, ``two_sigma2`` and the quotient each round once, so ``gamma``'s relative error is below ``5 *
    2**-53``; ``A = 2**64 exp(-gamma)`` is then within a relative ``2**-53 (5 gamma + 2)`` (``exp`` within an
    ulp), below ``2**-21`` for ``gamma < 2**28``, and the reference's 64-bit decision is certain outside the
    band ``A (1 +- margin) +- 64``, as for
    :func:`gaussian_round`.  Most coins are decided before ``exp``: for ``gamma < 1/2``, ``exp(-gamma) >= 1 -
    gamma`` and ``(1 - gamma) 2**64 (1 - margin) - 64`` lies at least ``2**42`` below ``2**64 exp(-gamma)``
    (rounding of ``1 - gamma`` is at most ``2**12`` units there), so a word below it is accepted by the
    reference too.

    Returns ``(entries, coin_idx, coin_words)``: rows ``(sample, high half, S, R, guess)`` of the ``K`` to
    settle, in index order, and the coins left to the exact code (those of unsettled proposals the
    float bound leaves open, and every coin of a proposal to settle), in index order (``keep`` is 0 there).
    """
    if not 9.5367431640625e-07 <= margin < 1.0:
        raise ValueError(f"margin must be in [2**-20, 1), got {margin!r}")
    if not 0 <= wbits <= 46:
        raise ValueError(f"wbits must be in [0, 46], got {wbits}")
    cdef Part parts[MAX_PARTS]
    _parts(tables, parts)
    cdef bitgen_t *bg = _bitgen(capsule)
    cdef Py_ssize_t m = x_out.shape[0], i, k = 0, ke = 0
    if keep.shape[0] != m:
        raise ValueError("x_out and keep must have the same length")
    cdef uint64_t w, a, rmask = ((<uint64_t> 1) << wbits) - 1
    cdef int64_t kk, j, x, r, ax, wk, sgn, W = (<int64_t> 1) << wbits
    cdef bint wide = wbits > 31
    cdef double gam, wd, two64 = 18446744073709551616.0
    cdef double lo_f = 1.0 - margin, hi_f = 1.0 + margin
    cdef bint open_
    cdef int coin
    ent_arr = np.empty((16, 5), dtype=np.int64)
    cdef int64_t[:, ::1] ent = ent_arr
    idx_arr = np.empty(m, dtype=np.int64)
    w_arr = np.empty(m, dtype=np.uint64)
    cdef int64_t[::1] idx = idx_arr
    cdef uint64_t[::1] ws = w_arr
    with nogil:
        for i in range(m):
            w = bg.next_uint64(bg.state)
            a = w >> 32
            open_ = _half(&parts[0], a, &kk)
            sgn = (w >> 31) & 1
            j = kk ^ (-sgn)  # kk, or ~kk = -kk - 1 (no branch on a fair bit)
            if wide:
                w = bg.next_uint64(bg.state)
            r = <int64_t> (w & rmask)
            x = W * j + r
            x_out[i] = x
            if open_:
                if ke == ent.shape[0]:
                    with gil:
                        ent_arr = np.concatenate([ent_arr, np.empty_like(ent_arr)])
                        ent = ent_arr
                ent[ke, 0] = i
                ent[ke, 1] = <int64_t> a
                ent[ke, 2] = sgn
                ent[ke, 3] = r
                ent[ke, 4] = kk
                ke += 1
            w = bg.next_uint64(bg.state)
            keep[i] = 0
            if not open_:
                ax = (x ^ (x >> 63)) - (x >> 63)  # |x| without a branch
                wk = W * kk
                gam = ((<double> (ax - wk)) * (<double> (ax + wk))) / two_sigma2
                wd = <double> w
                if gam < 0.5 and wd < (1.0 - gam) * two64 * lo_f - 64.0:
                    keep[i] = 1
                    continue
                coin = _float_coin(wd, exp(-gam) * two64, lo_f, hi_f)
                if coin >= 0:
                    keep[i] = coin
                    continue
            idx[k] = i
            ws[k] = w
            k += 1
    return ent_arr[:ke], idx_arr[:k], w_arr[:k]

"""Exact discrete noise samplers, NumPy reference: the specification of :mod:`semiprivate.kernels.noise`.

Distributions (on the integers, parameters exact rationals)
-----------------------------------------------------------
* discrete Laplace, scale ``t > 0``: ``P[X = x] = (1 - p) / (1 + p) * p**|x|``, ``p = exp(-1/t)``
  (CKS20 Def. 3; Inusah and Kozubowski 2006).
* discrete Gaussian, variance parameter ``sigma2 > 0``: ``P[X = x] = exp(-x**2 / (2 sigma2)) / Z``,
  ``Z = sum_y exp(-y**2 / (2 sigma2))`` (CKS20 Def. 1: Canonne, Kamath and Steinke 2020, "The Discrete
  Gaussian for Differential Privacy").
* ``Bernoulli(exp(-gamma))`` for rational ``gamma >= 0`` (the building block of CKS20 Alg. 1).

Method: exact lazy inversion
----------------------------
Every sample is ``X = min {x : U < F(x)}`` for one uniform ``U`` in ``[0, 1)`` and the exact
cumulative distribution ``F``, decided without ever rounding ``F`` or ``U``:

1. ``U``'s first 64 bits are one raw word ``w`` of the generator: ``U`` lies in ``[w, w + 1) / 2**64``.
2. A table holds, for every boundary ``F(x)`` of a window of the support, integers ``L_x <= 2**64 F(x) <= H_x``
   (rigorous: every ``exp`` is bracketed by :func:`semiprivate.kernels._reference._exp_neg_fixed`,
   every sum and quotient rounded outward).  ``c = #{x : L_x <= w}`` locates the candidate; when
   ``H`` of the boundary below is ``<= w`` (and the word is not ``2**64 - 1``), ``[w, w + 1) / 2**64``
   lies inside one cell and the sample is that cell's value: exactly, for every continuation of
   ``U``'s bits.
3. Otherwise (a word within about ``2**-50`` of a boundary, the ``2**-48`` tails beyond the window, or
   the all-ones word), :meth:`_LazyInversion.settle` reads further words, 64 bits at a time, and
   recomputes the bounds at doubling precision until ``U``'s interval lies inside one cell.  This
   terminates with probability 1 and gives exactly ``P[X = x] = F(x) - F(x - 1)``.

This is the inversion that CKS20 (Sec. 5) contrast with their rejection samplers (Alg. 1-3): theirs
need no table, ours reads one word per sample on the common path, which is what makes a compiled
version run at memory speed.  The distribution is theirs; there is no float anywhere on the path.

Wide parameters
---------------
A table covers about ``+-35 scale`` (Laplace) or ``+-8.3 sigma`` (Gaussian) and costs about 10 us per
entry to build, so only narrow laws get one (:data:`LAPLACE_DIRECT_HALF`, :data:`GAUSSIAN_DIRECT_HALF`).
A wider discrete Laplace is :class:`_LaplaceLarge`: a folded low part and the base-4096 digits of a
geometric, each a small exact inversion (tables of at most ``2 * 2**LOW_BITS`` entries whatever the
scale).  A wider discrete Gaussian is drawn by rejection from a bucketed envelope
(:class:`_GaussianBuckets`: a bucket index from a small table, a uniform offset), with exact
``Bernoulli(exp(-gamma))`` coins; CKS20 Alg. 3 (:class:`_GaussianRejection`: discrete Laplace proposals) is
kept beside it as the paper's sampler (tests and comparisons).  Parameters are exact rationals of any size: a
float never sizes a table from an overflowing value (:func:`_half_width`); the public functions refuse
a Laplace scale above :data:`MAX_SCALE` and a ``sigma2`` above :data:`MAX_SIGMA2` (samples must fit in int64).

Bits consumed (the contract the compiled backend reproduces bit for bit)
-----------------------------------------------------------------------
A word is the bit generator's ``next_uint64``, read in Python with
``rng.integers(0, 2**64, dtype=np.uint64)`` (NumPy returns the full-range draw unchanged, for every bit
generator; ``random_raw`` would give 32-bit words for MT19937).  A call for ``n`` samples reads ``n``
words (sample ``i`` gets word ``i``), then, for each sample that needs it in increasing index order,
further words one at a time.  Nothing else touches the generator (no float uniform, no buffered 32-bit
draw).  ``bernoulli_exp(0)`` reads no word (the answer is always True).  The wide samplers read fewer
words per part: :class:`_LaplaceLarge` cuts two parts' first 32 bits from each word (its docstring gives
the order), :class:`_GaussianBuckets` reads, per round, each pending sample's proposal word (and, for
buckets wider than ``2**31``, an offset word) and its coin word together, as :class:`_GaussianRejection` reads
its proposal words and coin word.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray
from semiprivate.kernels._memo import memo
from semiprivate.kernels._reference import _exp_neg_fixed, _exp_neg_multiples

__all__ = [
    "TAIL_BITS",
    "words",
    "MAX_HALF_WIDTH",
    "LAPLACE_DIRECT_HALF",
    "GAUSSIAN_DIRECT_HALF",
    "LOW_BITS",
    "DIGIT_BITS",
    "TOP_MIN_RATE",
    "MAX_SCALE",
    "MAX_SIGMA2",
    "BUCKETS_WIDE_BITS",
    "laplace_table",
    "gaussian_table",
    "bernoulli_exp_table",
    "reference_discrete_laplace",
    "reference_discrete_gaussian",
    "reference_bernoulli_exp",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
]

#: the window of a two-sided table leaves at most about ``2**-TAIL_BITS`` of the mass to the exact tail path
TAIL_BITS = 48
#: the window's half-width is capped (a table of at most ``2 * MAX_HALF_WIDTH + 2`` boundaries, 16 MiB):
#: beyond discrete Laplace scale ~15,000 or discrete Gaussian sigma ~64,000 more mass goes to the slow exact path
MAX_HALF_WIDTH = 1 << 19
#: the discrete Laplace gets a direct table while its half-width is at most this (scale up to about 236);
#: wider ones are drawn by :class:`_LaplaceLarge` from small tables (no table grows with the scale)
LAPLACE_DIRECT_HALF = 1 << 13
#: the discrete Gaussian gets a direct table while its half-width is at most this (sigma up to about 7,900);
#: wider ones are drawn from a bucketed envelope (:class:`_GaussianBuckets`)
GAUSSIAN_DIRECT_HALF = 1 << 16
#: :class:`_GaussianBuckets` cuts a bucket's offset from the proposal word's low bits while the bucket width is at
#: most ``2**BUCKETS_WIDE_BITS`` (``sigma < 2**36``); wider buckets read the offset from a word of its own
BUCKETS_WIDE_BITS = 31
#: :class:`_LaplaceLarge`'s low table covers ``|Y| <= 2**LOW_BITS`` at most
LOW_BITS = 12
#: :class:`_LaplaceLarge` splits the geometric into base-``2**DIGIT_BITS`` digits (scale 2e9: three parts,
#: two words per sample)
DIGIT_BITS = 12
#: :class:`_LaplaceLarge`'s top part ``Q`` is a geometric of rate ``e = B D**K / scale >= TOP_MIN_RATE``
#: (a table of at most about ``35 / TOP_MIN_RATE`` entries)
TOP_MIN_RATE = Fraction(1, 128)
#: the largest discrete Laplace scale accepted: samples must fit in int64 (``P[|X| >= 2**62] < 2**-5900``)
MAX_SCALE = 1 << 50
#: the largest discrete Gaussian ``sigma2`` accepted (``sigma <= 2**50``, as :data:`MAX_SCALE`)
MAX_SIGMA2 = 1 << 100
_ALL_ONES = (1 << 64) - 1
#: ``(tail_bits + 2) ln 2`` is computed with this upper bound on ``ln 2`` (it only sizes tables)
_LN2_UP = Fraction(6932, 10000)


def words(rng: np.random.Generator, n: int | None) -> Any:
    """``n`` 64-bit words (``next_uint64``) as a uint64 array, or one as a Python int for ``n=None``."""
    if n is None:
        return int(rng.integers(0, 1 << 64, dtype=np.uint64))
    return rng.integers(0, 1 << 64, size=n, dtype=np.uint64)


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def _float(x: Fraction) -> float:
    """``x >= 0`` as a float for sizing only: clamped to ``2**1000`` (a tiny ``x`` may round to 0)."""
    return float(min(x, Fraction(1 << 1000)))


def _half_width(a: Fraction, c: Fraction, tail_bits: int) -> int:
    """A half-width ``K`` with ``a K + c K**2 >= (tail_bits + 2) ln 2`` (about ``2**-tail_bits`` of the mass of
    ``exp(-(a |y| + c y**2))`` beyond ``+-K``), at least 1, capped at ``2**40``; exact rationals, so no
    parameter overflows a float (the window only trades table size against settling, never exactness)."""
    need = (tail_bits + 2) * _LN2_UP
    cap = 1 << 40
    if c > 0:
        k_c = need / c  # c K**2 >= need suffices
        k = cap if k_c >= cap * cap else math.isqrt(math.ceil(k_c)) + 1
        if a > 0:
            k = min(k, cap if need / a >= cap else math.ceil(need / a))
    else:
        k = cap if need / a >= cap else math.ceil(need / a)
    return int(min(max(k + 1, 1), cap))


class _LazyInversion:
    """Exact inversion ``X = min {x : U < F(x)}`` of an integer-valued distribution (see the module docstring).

    Subclasses give :meth:`cdf_bounds`.  The table covers the boundaries ``F(x)`` for
    ``x = xmin .. xmin + nb - 1``: ``c`` boundaries at or below the word means ``X = xmin + c``.
    ``lower_closed`` / ``upper_closed``: the support has no value below ``xmin`` / above
    ``xmin + nb`` (else those two cells are open tails, settled exactly).
    """

    xmin: int
    lower_closed: bool
    upper_closed: bool
    L: NDArray[np.uint64]
    H: NDArray[np.uint64]

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        """Integers ``lo <= 2**q F(x) <= hi`` (rigorous), ``F(x) = P[X <= x]``."""
        raise NotImplementedError

    def _set_table(self, lo: list[int], hi: list[int], q: int, bits: int) -> None:
        """Store the boundaries' 64-bit bounds from ``q``-bit ones; ``bits < 64`` coarsens them (tests only)."""
        shift = q - 64
        L = [v >> shift for v in lo]
        H = [_ceil_div(v, 1 << shift) for v in hi]
        if bits < 64:
            step = 1 << (64 - bits)
            L = [(v // step) * step for v in L]
            H = [_ceil_div(v, step) * step for v in H]
        for i in range(1, len(L)):  # F increases: running max / min keep the bounds valid and sorted
            L[i] = max(L[i], L[i - 1])
        for i in range(len(H) - 2, -1, -1):
            H[i] = min(H[i], H[i + 1])
        self.L = np.array([min(v, _ALL_ONES) for v in L], dtype=np.uint64)
        # H = 2**64 is stored as 2**64 - 1: no word below 2**64 - 1 passes H <= w, and that word always settles
        self.H = np.array([min(v, _ALL_ONES) for v in H], dtype=np.uint64)

    def classify(self, w: NDArray[np.uint64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Values ``xmin + c`` and the mask of words that need :meth:`settle`."""
        nb = self.L.shape[0]
        c = np.searchsorted(self.L, w, side="right").astype(np.int64)
        below = self.H[np.maximum(c - 1, 0)]
        unsure = (w == np.uint64(_ALL_ONES)) | ((c > 0) & (below > w))
        if not self.lower_closed:
            unsure |= c == 0
        if not self.upper_closed:
            unsure |= c == nb
        return c + self.xmin, unsure

    def settle(self, word: int, guess: int, rng: np.random.Generator, bits: int = 64) -> int:
        """The exact value for a uniform whose first ``bits`` bits are ``word``, reading more words as needed.

        ``U`` is known to lie in ``[A, A + 1) / 2**b``; ``x`` is certain when
        ``F(x - 1) <= A / 2**b`` and ``(A + 1) / 2**b <= F(x)`` for the rigorous bounds at
        precision ``q``.  Else one more word is appended to ``A`` (``b += 64``) and ``q`` doubles
        when ``b`` comes within 32 bits of it.
        """
        a, b, q = int(word), int(bits), 128
        x = int(guess)
        while True:
            x = self._locate(a, b, q, x)
            lo_prev = self.cdf_bounds(x - 1, q)[1]
            hi_x = self.cdf_bounds(x, q)[0]
            if (lo_prev << b) <= (a << q) and ((a + 1) << q) <= (hi_x << b):
                return x
            a = (a << 64) | words(rng, None)
            b += 64
            if b + 32 > q:
                q *= 2

    def classify_halves(self, a: NDArray[np.uint64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Values ``xmin + c`` and the settle mask for 32-bit chunks ``a`` (``U``'s first 32 bits, in ``[0, 2**32)``).

        ``U`` lies in ``[a, a + 1) / 2**32``: with ``c = #{x : L_x <= a 2**32}`` the value is certain when
        ``H`` of the boundary below is ``<= a 2**32`` and ``L`` of the boundary above is ``>= (a + 1) 2**32``
        (``L >> 32 > a``; never for ``a = 2**32 - 1`` below the last boundary) and the cell is not an open tail.
        """
        nb = self.L.shape[0]
        a = np.asarray(a, dtype=np.uint64)
        lo = a << np.uint64(32)
        c = np.searchsorted(self.L, lo, side="right").astype(np.int64)
        below = self.H[np.maximum(c - 1, 0)]
        above = self.L[np.minimum(c, nb - 1)] >> np.uint64(32)
        unsure = ((c > 0) & (below > lo)) | ((c < nb) & (above <= a))
        if not self.lower_closed:
            unsure |= c == 0
        if not self.upper_closed:
            unsure |= c == nb
        return c + self.xmin, unsure

    def _below(self, x: int, a: int, b: int, q: int) -> bool:
        """Approximately ``F(x) <= U`` (midpoint of the bounds): only steers the search."""
        lo, hi = self.cdf_bounds(x, q)
        return ((lo + hi) >> 1) << b <= (a << q)

    def _locate(self, a: int, b: int, q: int, x: int) -> int:
        """The smallest ``x`` that is not :meth:`_below`, searched from ``x`` by galloping then bisection."""
        if self._below(x, a, b, q):
            lo, step = x, 1
            while self._below(lo + step, a, b, q):
                lo += step
                step *= 2
            hi = lo + step
        else:
            hi, step = x, 1
            while not self._below(hi - step, a, b, q):
                hi -= step
                step *= 2
            lo = hi - step
        while hi - lo > 1:  # invariant: below(lo), not below(hi)
            mid = (lo + hi) // 2
            if self._below(mid, a, b, q):
                lo = mid
            else:
                hi = mid
        return hi

    def sample(self, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """``n`` exact samples, reading the generator as the module docstring says."""
        w = np.asarray(words(rng, n), dtype=np.uint64).reshape(n)
        x, unsure = self.classify(w)
        for i in np.flatnonzero(unsure).tolist():
            x[i] = self.settle(int(w[i]), int(x[i]), rng)
        return x


class _Symmetric(_LazyInversion):
    """Two-sided weights ``w_y = exp(-(a |y| + c y**2))`` on the integers (``a, c >= 0`` rational, not both 0).

    Discrete Laplace: ``a = 1 / scale, c = 0``; discrete Gaussian: ``a = 0, c = 1 / (2 sigma2)``.
    ``F(x) = T(-x) / Z`` for ``x < 0`` and ``1 - T(x + 1) / Z`` for ``x >= 0``, with the tail sums
    ``T(j) = sum_{y >= j} w_y`` and ``Z = 2 T(0) - 1``.  The weights come from the recursion
    ``w_{y+1} = w_y r_y``, ``r_y = exp(-(a + c (2y + 1)))``, ``r_{y+1} = r_y exp(-2c)`` in fixed point
    rounded outward; beyond the computed terms ``T(n) <= w_n / (1 - r_n)`` (the ratios decrease).
    """

    def __init__(self, a: Fraction, c: Fraction, *, tail_bits: int = TAIL_BITS,
                 max_half: int = MAX_HALF_WIDTH, bits: int = 64) -> None:
        self.a, self.c = Fraction(a), Fraction(c)
        self._seq: dict[int, tuple[int, list[int], list[int], int]] = {}
        half = min(_half_width(self.a, self.c, tail_bits), max_half)
        q = 64 + 32
        self.xmin, self.lower_closed, self.upper_closed = -half - 1, False, False
        bounds = self._bounds_many(range(-half - 1, half + 1), q)
        self._set_table([lo for lo, _ in bounds], [hi for _, hi in bounds], q, bits)

    def _bounds_many(self, xs: range, q: int) -> list[tuple[int, int]]:
        """:meth:`cdf_bounds` of every ``x`` in ``xs`` (the same integers; ``Z`` and the sums computed once)."""
        need = max(abs(xs.start), abs(xs.stop)) + 2
        n, tlo, thi, qq = self._terms(q, need)
        one_q = 1 << q
        z_lo, z_hi = 2 * tlo[0] - (1 << qq), 2 * thi[0] - (1 << qq)
        out = []
        for x in xs:
            if x < 0:
                out.append(((tlo[-x] << q) // z_hi, min(_ceil_div(thi[-x] << q, z_lo), one_q)))
            else:
                out.append((max(one_q - _ceil_div(thi[x + 1] << q, z_lo), 0), one_q - ((tlo[x + 1] << q) // z_hi)))
        return out

    def _terms(self, q: int, need: int) -> tuple[int, list[int], list[int], int]:
        """Suffix sums of the weights at precision ``q``: ``(n, Tlo, Thi, qq)``, valid for ``j <= n``."""
        cached = self._seq.get(q)
        if cached is not None and cached[0] >= need:
            return cached
        # enough terms that w_n is far below 2**-q (for a tight Z), and at least `need`
        # (the Laplace bound w_n / (1 - p) is exact up to rounding, so any n is tight there)
        af, cf = _float(self.a), _float(self.c)
        target = (q + 16) * math.log(2)
        n0 = (-af + math.sqrt(af * af + 4 * cf * target)) / (2 * cf) if cf > 0 else 0.0
        n = max(int(math.ceil(n0)) + 2, need + 1, 2 * (cached[0] if cached else 0))
        qq = q + 2 * n.bit_length() + 16 + max(0, math.ceil(math.log2(1 + 1 / (af + cf))))
        one = 1 << qq
        r_lo, r_hi = _exp_neg_fixed(self.a + self.c, qq)
        s_lo, s_hi = _exp_neg_fixed(2 * self.c, qq)
        w_lo = w_hi = one
        wl: list[int] = []
        wh: list[int] = []
        for _ in range(n):
            wl.append(w_lo)
            wh.append(w_hi)
            w_lo = (w_lo * r_lo) >> qq
            w_hi = _ceil_div(w_hi * r_hi, one)
            r_lo = (r_lo * s_lo) >> qq
            r_hi = min(_ceil_div(r_hi * s_hi, one), r_hi)
        if r_hi >= one:  # pragma: no cover - qq has room for 1 - r_n
            raise ArithmeticError("weight ratio not resolved at this precision")
        tail_hi = _ceil_div(w_hi * one, one - r_hi)  # T(n) <= w_n / (1 - r_n)
        tlo = [0] * (n + 1)
        thi = [0] * (n + 1)
        # T(n) >= w_n; for the Laplace (c = 0, constant ratio) exactly w_n / (1 - p)
        tlo[n], thi[n] = (w_lo * one) // (one - r_lo) if self.c == 0 else w_lo, tail_hi
        for j in range(n - 1, -1, -1):
            tlo[j] = tlo[j + 1] + wl[j]
            thi[j] = thi[j + 1] + wh[j]
        out = (n, tlo, thi, qq)
        self._seq[q] = out
        return out

    def _tail(self, j: int, q: int) -> tuple[int, int, int]:
        """``(lo, hi, qq)`` with ``lo <= 2**qq T(j) <= hi``."""
        n, tlo, thi, qq = self._terms(q, j)
        return tlo[j], thi[j], qq

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        one_q = 1 << q
        t0_lo, t0_hi, qq = self._tail(0, q)
        z_lo, z_hi = 2 * t0_lo - (1 << qq), 2 * t0_hi - (1 << qq)
        if x < 0:
            t_lo, t_hi, qq2 = self._tail(-x, q)
            if qq2 != qq:  # the cache grew: recompute Z at the same precision
                return self.cdf_bounds(x, q)
            return (t_lo << q) // z_hi, min(_ceil_div(t_hi << q, z_lo), one_q)
        t_lo, t_hi, qq2 = self._tail(x + 1, q)
        if qq2 != qq:
            return self.cdf_bounds(x, q)
        return max(one_q - _ceil_div(t_hi << q, z_lo), 0), one_q - ((t_lo << q) // z_hi)


class _Laplace(_Symmetric):
    """Discrete Laplace: :class:`_Symmetric` with ``a = 1/scale``; far tails from the closed form.

    ``T(j) = p**j / (1 - p)`` and ``Z = (1 + p) / (1 - p)``, so ``F(x) = p**-x / (1 + p)`` for
    ``x < 0`` and ``1 - p**(x + 1) / (1 + p)`` for ``x >= 0``, ``p = exp(-1/scale)``.
    """

    def __init__(self, scale: Fraction, **kw: int) -> None:
        self.scale = Fraction(scale)
        super().__init__(1 / self.scale, Fraction(0), **kw)

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        j = -x if x < 0 else x + 1
        if j <= 4 * MAX_HALF_WIDTH:
            return super().cdf_bounds(x, q)
        # closed form: guard bits for 1 + p and for the quotient
        g = q + 16
        p_lo, p_hi = _exp_neg_fixed(1 / self.scale, g)
        pj_lo, pj_hi = _exp_neg_fixed(Fraction(j) / self.scale, g)
        one_g, one_q = 1 << g, 1 << q
        m_lo, m_hi = (pj_lo << q) // (one_g + p_hi), _ceil_div(pj_hi << q, one_g + p_lo)  # 2**q p**j / (1 + p)
        if x < 0:
            return m_lo, min(m_hi, one_q)
        return max(one_q - m_hi, 0), one_q - m_lo


class _BernoulliExp(_LazyInversion):
    """``X = 0`` (the answer True) with probability ``exp(-gamma)``, else ``X = 1``."""

    def __init__(self, gamma: Fraction, *, bits: int = 64) -> None:
        self.gamma = Fraction(gamma)
        self.xmin, self.lower_closed, self.upper_closed = 0, True, True
        q = 64 + 32
        lo, hi = self.cdf_bounds(0, q)
        self._set_table([lo], [hi], q, bits)

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        if x < 0:
            return 0, 0
        if x >= 1:
            return 1 << q, 1 << q
        return _exp_neg_fixed(self.gamma, q)


class _LowLaplace(_LazyInversion):
    """``Y`` on ``{-B, ..., B}``: the discrete Laplace folded at ``B`` (the low part of :class:`_LaplaceLarge`).

    ``P[Y = 0] = (1 - p) / (1 + p)`` and ``P[Y = +-(1 + d)] = p (1 - p) p**d / ((1 + p) (1 - p**B))`` for
    ``d = 0 .. B - 1``, ``p = exp(-1/scale)``: ``F(-(1 + d)) = p (p**d - p**B) / ((1 + p) (1 - p**B))`` and
    ``F(x) = 1 - F(-(1 + x))`` for ``x >= 0``.
    """

    def __init__(self, scale: Fraction, B: int, *, bits: int = 64) -> None:
        self.unit, self.B = 1 / Fraction(scale), int(B)
        self.xmin, self.lower_closed, self.upper_closed = -self.B, True, True
        q = 64 + 32
        g = q + 64 + 2 * self.B.bit_length()
        pw = _exp_neg_multiples(self.unit, list(range(self.B + 1)), g)  # p**d, d = 0 .. B, one bracket each
        bounds = [self._bounds(x, q, g, pw[1], pw[min(abs(x + 1) if x < 0 else x, self.B)], pw[self.B])
                  for x in range(-self.B, self.B)]
        self._set_table([lo for lo, _ in bounds], [hi for _, hi in bounds], q, bits)

    def _bounds(self, x: int, q: int, g: int, p: tuple[int, int], pd: tuple[int, int],
                pb: tuple[int, int]) -> tuple[int, int]:
        """``F(x)`` from brackets (at ``2**g``) of ``p``, ``p**d`` (``d = -x - 1`` or ``x``) and ``p**B``."""
        one_g, one_q = 1 << g, 1 << q
        num_lo, num_hi = p[0] * max(pd[0] - pb[1], 0), p[1] * (pd[1] - pb[0])
        den_lo, den_hi = (one_g + p[0]) * (one_g - pb[1]), (one_g + p[1]) * (one_g - pb[0])
        m_lo, m_hi = (num_lo << q) // den_hi, min(_ceil_div(num_hi << q, den_lo), one_q)  # 2**q F(-(1 + d))
        if x < 0:
            return m_lo, m_hi
        return one_q - m_hi, one_q - m_lo

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        if x < -self.B:
            return 0, 0
        if x >= self.B:
            return 1 << q, 1 << q
        d = -x - 1 if x < 0 else x
        g = q + 64 + 2 * self.B.bit_length()
        p, pd, pb = _exp_neg_multiples(self.unit, [1, d, self.B], g)
        return self._bounds(x, q, g, p, pd, pb)


class _Geometric(_LazyInversion):
    """``G`` on ``{0, 1, ...}`` with ``P[G = k] = (1 - r) r**k``, ``r = exp(-e)``: ``F(k) = 1 - r**(k + 1)``."""

    def __init__(self, e: Fraction, *, tail_bits: int = TAIL_BITS, bits: int = 64) -> None:
        self.e = Fraction(e)
        nb = _half_width(self.e, Fraction(0), tail_bits)
        self.xmin, self.lower_closed, self.upper_closed = 0, True, False
        q = 64 + 32
        rk = _exp_neg_multiples(self.e, list(range(1, nb + 1)), q)
        self._set_table([(1 << q) - hi for _, hi in rk], [(1 << q) - lo for lo, _ in rk], q, bits)

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        if x < 0:
            return 0, 0
        lo, hi = _exp_neg_multiples(self.e, [x + 1], q)[0]
        return (1 << q) - hi, (1 << q) - lo


class _TruncGeometric(_LazyInversion):
    """``X`` on ``{0, .., D - 1}`` with ``P[X = k] ∝ r**k``, ``r = exp(-e)``: one base-``D`` digit of a geometric.

    ``F(k) = (1 - r**(k + 1)) / (1 - r**D)``; ``D = 2`` is the bit with ``P[1] = r / (1 + r)``.
    """

    def __init__(self, e: Fraction, D: int, *, bits: int = 64) -> None:
        self.e, self.D = Fraction(e), int(D)
        self.xmin, self.lower_closed, self.upper_closed = 0, True, True
        q = 64 + 32
        g = self._guard(q)
        rk = _exp_neg_multiples(self.e, list(range(1, self.D + 1)), g)
        bounds = [self._bounds(q, g, rk[k], rk[-1]) for k in range(self.D - 1)]
        self._set_table([lo for lo, _ in bounds], [hi for _, hi in bounds], q, bits)

    def _guard(self, q: int) -> int:
        # 1 - r**D may be as small as about e D: its leading zero bits are added as guard bits
        return q + 64 + 2 * self.D.bit_length() + max(0, -math.floor(math.log2(_float(self.e * self.D)) if
                                                                      self.e * self.D < 1 else 0))

    def _bounds(self, q: int, g: int, rk1: tuple[int, int], rD: tuple[int, int]) -> tuple[int, int]:
        one_g, one_q = 1 << g, 1 << q
        num_lo, num_hi = one_g - rk1[1], one_g - rk1[0]
        den_lo, den_hi = one_g - rD[1], one_g - rD[0]
        return (num_lo << q) // den_hi, min(_ceil_div(num_hi << q, den_lo), one_q)

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        if x < 0:
            return 0, 0
        if x >= self.D - 1:
            return 1 << q, 1 << q
        g = self._guard(q)
        rk1, rD = _exp_neg_multiples(self.e, [x + 1, self.D], g)
        return self._bounds(q, g, rk1, rD)


class _LaplaceLarge:
    """The discrete Laplace of a large scale from small tables: ``X = 0`` if ``Y = 0``, else
    ``X = sign(Y) (|Y| + B G)``.

    ``Y`` is :class:`_LowLaplace`, folded at ``B``, the least power of two ``>= scale`` capped at
    ``2**LOW_BITS``, and ``G`` is geometric with ratio ``p**B``, independent of ``Y``.  Exact: for
    ``x = +-(1 + d + B k)``, ``0 <= d < B``, ``P[Y = +-(1 + d)] P[G = k] = p (1 - p) p**d / ((1 + p)
    (1 - p**B)) * (1 - p**B) p**(B k) = (1 - p) / (1 + p) p**|x|`` (CKS20 Def. 3), and ``P[X = 0] =
    P[Y = 0]``.  ``G`` in turn is ``sum_i d_i D**i + D**K Q`` with independent base-``D`` digits
    ``d_i`` (:class:`_TruncGeometric`, ratio ``p**(B D**i)``, ``D = 2**DIGIT_BITS``) and ``Q`` geometric
    with ratio ``p**(B D**K)`` (:class:`_Geometric`), ``K`` the least with ``B D**K / scale >= TOP_MIN_RATE``:
    the geometric's pmf ``prod_i (r**(D**i))**d_i (r**(D**K))**Q`` factorises over the digits.  (CKS20
    Alg. 2 splits the geometric the same way, at the scale's integer part.)  Every table has at most
    ``2**(LOW_BITS + 1)`` entries whatever the scale; a scale up to ``2**LOW_BITS * 128`` needs two parts,
    one up to about ``2**LOW_BITS * 128 * D = 2**31`` three.

    Bits read (two parts per word): the parts ``P_0 = Y, P_1 = d_0, .., P_K = d_{K-1}, P_{K+1} = Q`` of one
    sample take their first 32 bits from that sample's ``W = ceil((K + 2) / 2)`` words, sample after sample
    (sample ``i`` reads words ``i W .. i W + W - 1`` of the call's ``n W``): part ``2 j`` the high half of
    word ``j``, part ``2 j + 1`` its low half.  Each half is the first 32 bits of that part's uniform
    (:meth:`_LazyInversion.classify_halves`); the rest of its bits, when needed, come after all ``n W``
    words, in the order (sample, part), from :meth:`_LazyInversion.settle` with ``bits=32``.  The halves
    of a word are independent uniform 32-bit numbers, so every part is an exact inversion of its own
    uniform and the parts are independent, as the factorisation needs.  A part's half is not enough
    when a boundary's 64-bit bracket falls inside its ``2**-32`` interval: about ``2 B 2**-32 <= 2**-19``
    of the low part's draws and fewer of the small tables'.
    """

    def __init__(self, scale: Fraction, *, low_bits: int = LOW_BITS, digit_bits: int = DIGIT_BITS) -> None:
        self.scale = Fraction(scale)
        b = 0
        while b < low_bits and (1 << b) < self.scale:
            b += 1
        self.B, self.D = 1 << b, 1 << digit_bits
        e0 = self.B / self.scale
        k = 0
        while e0 * self.D ** k < TOP_MIN_RATE:
            k += 1
        self.K = k
        self.parts: list[_LazyInversion] = [_LowLaplace(self.scale, self.B)]
        self.parts += [_TruncGeometric(e0 * self.D ** i, self.D) for i in range(k)]
        self.parts.append(_Geometric(e0 * self.D ** k))

    @property
    def n_words(self) -> int:
        """Words per sample on the common path: two parts per word."""
        return (len(self.parts) + 1) // 2

    @property
    def q_limit(self) -> int:
        """A top part ``Q`` at or above this is refused (the sample might not fit in int64)."""
        return (1 << 61) // (self.B * self.D ** self.K)

    def combine(self, draws: list[NDArray[np.int64]]) -> NDArray[np.int64]:
        """``X`` from the parts' draws (in :attr:`parts` order); the draws' arrays are reused."""
        y, g = draws[0], draws[-1]
        if g.size and int(g.max()) >= self.q_limit:
            raise OverflowError("a discrete Laplace sample does not fit in int64 (probability below 2**-5900 "
                                f"at scale <= 2**50; scale = {float(self.scale):g})")
        for d in reversed(draws[1:-1]):  # Horner from the top digit: G = (..(Q D + d_{K-1}) D + ..) D + d_0
            g *= self.D
            g += d
        g *= self.B
        g += np.abs(y)
        g *= np.sign(y)  # Y = 0 gives 0 whatever G is
        return g

    def from_words(self, w: NDArray[np.uint64], rng: np.random.Generator) -> NDArray[np.int64]:
        """Samples from their common-path words ``w`` (shape ``(n, W)``), settling from ``rng`` as the class
        docstring says."""
        w = np.asarray(w, dtype=np.uint64)
        halves = [(w[:, j // 2] >> np.uint64(32)) if j % 2 == 0 else (w[:, j // 2] & np.uint64(0xFFFFFFFF))
                  for j in range(len(self.parts))]
        draws, masks = [], []
        for part, a in zip(self.parts, halves):
            v, unsure = part.classify_halves(a)
            draws.append(v)
            masks.append(unsure)
        todo = np.stack(masks, axis=1) if masks else np.zeros((0, 0), dtype=bool)
        for i, j in zip(*np.nonzero(todo)):  # row-major: (sample, part) order
            draws[j][i] = self.parts[j].settle(int(halves[j][i]), int(draws[j][i]), rng, bits=32)
        return self.combine(draws)

    def sample(self, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        w = np.asarray(words(rng, n * self.n_words), dtype=np.uint64).reshape(n, self.n_words)
        return self.from_words(w, rng)


class _GaussianRejection:
    """The discrete Gaussian of a large ``sigma2`` by CKS20 Alg. 3: ``Y`` discrete Laplace of scale
    ``t = floor(sigma) + 1``, accepted with probability ``exp(-(|Y| - sigma2 / t)**2 / (2 sigma2))``.

    Exact (CKS20 Thm. 6: the accepted ``Y`` has ``P[Y = y] ∝ exp(-y**2 / (2 sigma2))``); the coin is an
    exact lazy inversion against rigorous bounds on ``exp(-gamma)`` (:func:`_exp_neg_fixed`), settled as
    :class:`_BernoulliExp` does.  Bits read, per round over the ``m`` pending samples (in index order):
    ``m (W + 1)`` words, pending sample after pending sample, its proposal's ``W`` common-path words
    (:attr:`_LaplaceLarge.n_words`, or 1 for a direct table) then its coin word; then the proposals'
    settling words (as :meth:`_LaplaceLarge.from_words`); then the coins' settling words, in index order.
    The rejected stay pending, in order, for the next round.  Here each coin costs a Python big-integer ``exp`` bound (tens of microseconds); the compiled backend
    decides the same coins from a double-precision bound and falls back to :meth:`decide` only in a
    ``2**-20`` band around the boundary (``semiprivate.kernels.noise``), with the same outputs.
    """

    def __init__(self, sigma2: Fraction) -> None:
        self.sigma2 = Fraction(sigma2)
        self.t = math.isqrt(math.floor(self.sigma2)) + 1  # floor(sqrt(s)) = isqrt(floor(s))
        self.lap = laplace_table(Fraction(self.t))

    def _gamma(self, y: int) -> Fraction:
        return (abs(y) - self.sigma2 / self.t) ** 2 / (2 * self.sigma2)

    @property
    def n_words(self) -> int:
        """Common-path words per proposal (the coin word not counted)."""
        return self.lap.n_words if isinstance(self.lap, _LaplaceLarge) else 1

    def proposals(self, w: NDArray[np.uint64], rng: np.random.Generator) -> NDArray[np.int64]:
        """The proposals from their words ``w`` (shape ``(m, n_words)``), settled from ``rng``."""
        if isinstance(self.lap, _LaplaceLarge):
            return self.lap.from_words(w, rng)
        x, unsure = self.lap.classify(np.ascontiguousarray(w[:, 0]))
        for i in np.flatnonzero(unsure).tolist():
            x[i] = self.lap.settle(int(w[i, 0]), int(x[i]), rng)
        return x

    def _coins(self, y: NDArray[np.int64], w: NDArray[np.uint64], rng: np.random.Generator) -> NDArray[np.bool_]:
        keep = np.zeros(y.size, dtype=bool)
        cache: dict[int, tuple[int, int]] = {}
        unsure = []
        for i, (v, wi) in enumerate(zip(np.abs(y).tolist(), w.tolist())):
            lo, hi = cache.get(v) or cache.setdefault(v, _exp_neg_fixed(self._gamma(v), 64))
            if wi + 1 <= lo:  # [w, w + 1) / 2**64 below exp(-gamma): accept
                keep[i] = True
            elif wi < hi:  # not decided at 64 bits
                unsure.append(i)
        for i in unsure:
            keep[i] = _BernoulliExp(self._gamma(int(y[i]))).settle(int(w[i]), 0, rng) == 0
        return keep

    def decide(self, y: int, word: int, rng: np.random.Generator) -> bool:
        """The coin of one proposal ``y`` whose first word is ``word``, as :meth:`_coins` decides it (settling
        words read from ``rng`` only when 64 bits do not decide): the compiled coins' exact fallback."""
        lo, hi = _exp_neg_fixed(self._gamma(y), 64)
        if word + 1 <= lo:
            return True
        if word >= hi:
            return False
        return _BernoulliExp(self._gamma(y)).settle(word, 0, rng) == 0

    def sample(self, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """``n`` samples, reading the generator as the class docstring says."""
        out = np.empty(n, dtype=np.int64)
        pending = np.arange(n)
        k = self.n_words
        while pending.size:
            m = int(pending.size)
            w = np.asarray(words(rng, m * (k + 1)), dtype=np.uint64).reshape(m, k + 1)
            y = self.proposals(w[:, :k], rng)
            ok = self._coins(y, w[:, k], rng)
            out[pending[ok]] = y[ok]
            pending = pending[~ok]
        return out


class _HalfGaussian(_Symmetric):
    """``K`` on ``{0, 1, ...}`` with ``P[K = k] ∝ exp(-c k**2)``: ``F(k) = 1 - T(k + 1) / T(0)`` with
    :class:`_Symmetric`'s tail sums ``T(j) = sum_{y >= j} exp(-c y**2)`` (the bucket index of
    :class:`_GaussianBuckets`)."""

    def __init__(self, c: Fraction, *, tail_bits: int = TAIL_BITS, bits: int = 64) -> None:
        self.a, self.c = Fraction(0), Fraction(c)
        self._seq = {}
        half = min(_half_width(self.a, self.c, tail_bits), MAX_HALF_WIDTH)
        q = 64 + 32
        self.xmin, self.lower_closed, self.upper_closed = 0, True, False
        bounds = [self.cdf_bounds(k, q) for k in range(half + 1)]
        self._set_table([lo for lo, _ in bounds], [hi for _, hi in bounds], q, bits)

    def cdf_bounds(self, x: int, q: int) -> tuple[int, int]:
        if x < 0:
            return 0, 0
        t0_lo, t0_hi, qq = self._tail(0, q)
        t_lo, t_hi, qq2 = self._tail(x + 1, q)
        if qq2 != qq:  # the cache grew: recompute T(0) at the same precision
            return self.cdf_bounds(x, q)
        one_q = 1 << q
        return max(one_q - _ceil_div(t_hi << q, t0_lo), 0), one_q - ((t_lo << q) // t0_hi)


class _GaussianBuckets:
    """The discrete Gaussian of a wide ``sigma2`` (``sigma >= 16``, up to :data:`MAX_SIGMA2`) by rejection from a
    bucketed envelope.

    Buckets of width ``W = 2**wbits``, the largest power of two ``<= sigma / 16``: ``x = W j + r``, ``0 <= r < W``.
    Bucket ``j`` gets the envelope ``exp(-(W k)**2 / (2 sigma2))`` with ``k = j`` for ``j >= 0`` and ``k = -j - 1``
    for ``j < 0``: every ``x`` of the bucket has ``|x| >= W k`` (``|x|`` runs over ``W k .. W k + W - 1``, or
    ``W k + 1 .. W k + W``), so ``gamma(x) = (x**2 - (W k)**2) / (2 sigma2) >= 0``.  A proposal is ``K``
    (:class:`_HalfGaussian`, ``c = W**2 / (2 sigma2)``), a fair sign bit ``S`` (``j = K`` or ``-K - 1``) and ``R``
    uniform on ``{0 .. W - 1}``; it is accepted with probability ``exp(-gamma(x))``, an exact
    ``Bernoulli(exp(-gamma))`` coin as in :class:`_GaussianRejection`.  Exact: ``P[K = k, S = s, R = r,
    accept] = exp(-c k**2) / T(0) * 1/2 * 1/W * exp(-(x**2 - (W k)**2) / (2 sigma2)) = exp(-x**2 / (2 sigma2))
    / (2 W T(0))`` (``c k**2 = (W k)**2 / (2 sigma2)``), one triple per integer ``x``: the accepted ``x`` has
    ``P[X = x] ∝ exp(-x**2 / (2 sigma2))`` (CKS20 Def. 1), and the rounds repeat until acceptance.  The
    acceptance rate is ``exp(-gamma)`` averaged, 0.976-0.988 measured for sigma2 from 7e7 to 2**100 (CKS20 Alg. 3:
    about 0.76).

    Bits read, per round over the ``m`` pending samples (in index order): ``n_words m`` words, per pending sample
    its proposal word (high 32 bits: ``K``'s first 32 bits, :meth:`_LazyInversion.classify_halves`; bit 31:
    ``S``; while ``wbits <= BUCKETS_WIDE_BITS``, the low ``wbits`` bits: ``R``), then, for wider buckets
    (``sigma >= 2**36``), an offset word whose low ``wbits`` bits are ``R``, then its coin word; then ``K``'s
    settling words (``bits=32``) in index order; then the coins' settling words in index order.  The rejected
    stay pending, in order.  ``x`` fits in int64: ``|x| <= W (K + 1)`` with ``W <= 2**46``, and a ``K`` of
    ``2**62 / W - 1 >= 2**16 - 1`` or more (probability below ``exp(-2**20)``, as ``W > sigma / 32`` gives ``c >
    2**-11``) is refused with an OverflowError.
    """

    def __init__(self, sigma2: Fraction) -> None:
        self.sigma2 = Fraction(sigma2)
        sigma_floor = math.isqrt(math.floor(self.sigma2))
        if sigma_floor < 16 or self.sigma2 > MAX_SIGMA2:
            raise ValueError("the bucketed discrete Gaussian needs sigma >= 16 and sigma2 <= 2**100")
        self.wbits = (sigma_floor // 16).bit_length() - 1
        self.W = 1 << self.wbits
        self.k_table = _HalfGaussian(Fraction(self.W * self.W) / (2 * self.sigma2))
        self.k_limit = (1 << 62) // self.W - 1

    @property
    def n_words(self) -> int:
        """Common-path words per proposal, the coin word included: 2, or 3 with an offset word."""
        return 2 if self.wbits <= BUCKETS_WIDE_BITS else 3

    def _check_k(self, k_max: int) -> None:
        if k_max >= self.k_limit:
            raise OverflowError("a discrete Gaussian sample does not fit in int64 (probability below exp(-2**20); "
                                f"sigma2 = {float(self.sigma2):g})")

    def value(self, k: int, s: int, r: int) -> int:
        """``x = W j + r`` for the proposal ``(K, S, R) = (k, s, r)`` (an OverflowError past int64)."""
        self._check_k(k)
        return self.W * (k if s == 0 else -k - 1) + r

    def _gamma(self, x: int) -> Fraction:
        j = x // self.W
        wk = self.W * (j if j >= 0 else -j - 1)
        return Fraction((abs(x) - wk) * (abs(x) + wk)) / (2 * self.sigma2)

    def proposals(self, w: NDArray[np.uint64], rng: np.random.Generator,
                  offsets: NDArray[np.uint64] | None = None) -> NDArray[np.int64]:
        """The proposals from their words ``w`` (one per pending sample; for buckets wider than
        ``2**BUCKETS_WIDE_BITS`` also their offset words ``offsets``), ``K`` settled from ``rng``."""
        w = np.asarray(w, dtype=np.uint64)
        if (offsets is None) != (self.wbits <= BUCKETS_WIDE_BITS):
            raise ValueError(f"offsets must be given exactly when wbits > {BUCKETS_WIDE_BITS} (wbits = {self.wbits})")
        a = w >> np.uint64(32)
        k, unsure = self.k_table.classify_halves(a)
        for i in np.flatnonzero(unsure).tolist():
            k[i] = self.k_table.settle(int(a[i]), int(k[i]), rng, bits=32)
        if k.size:
            self._check_k(int(k.max()))
        s = ((w >> np.uint64(31)) & np.uint64(1)).astype(np.int64)
        r_src = w if offsets is None else np.asarray(offsets, dtype=np.uint64)
        r = (r_src & np.uint64(self.W - 1)).astype(np.int64)
        return self.W * np.where(s == 0, k, -k - 1) + r

    def decide(self, x: int, word: int, rng: np.random.Generator) -> bool:
        """The coin of proposal ``x`` whose first word is ``word``: accept when ``[w, w + 1) / 2**64`` lies below
        ``exp(-gamma)`` by 64-bit rigorous bounds, reject when above, else settled as :class:`_BernoulliExp`."""
        lo, hi = _exp_neg_fixed(self._gamma(x), 64)
        if word + 1 <= lo:
            return True
        if word >= hi:
            return False
        return _BernoulliExp(self._gamma(x)).settle(word, 0, rng) == 0

    def sample(self, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """``n`` samples, reading the generator as the class docstring says."""
        out = np.empty(n, dtype=np.int64)
        pending = np.arange(n)
        while pending.size:
            m = int(pending.size)
            w = np.asarray(words(rng, self.n_words * m), dtype=np.uint64).reshape(m, self.n_words)
            x = self.proposals(w[:, 0], rng, w[:, 1] if self.n_words == 3 else None)
            first: list[int] = []
            ok = np.zeros(m, dtype=bool)
            cache: dict[int, tuple[int, int]] = {}
            for i, (v, wi) in enumerate(zip(x.tolist(), w[:, -1].tolist())):  # 64-bit decisions: no word read
                lo, hi = cache.get(v) or cache.setdefault(v, _exp_neg_fixed(self._gamma(v), 64))
                if wi + 1 <= lo:
                    ok[i] = True
                elif wi < hi:
                    first.append(i)
            for i in first:  # then the coins 64 bits leave open, in index order
                ok[i] = _BernoulliExp(self._gamma(int(x[i]))).settle(int(w[i, -1]), 0, rng) == 0
            out[pending[ok]] = x[ok]
            pending = pending[~ok]
        return out


@memo(maxsize=16)
def laplace_table(scale: Fraction) -> _Laplace | _LaplaceLarge:
    """The (cached) exact sampler of the discrete Laplace with this ``scale``: a direct table while its
    half-width is at most :data:`LAPLACE_DIRECT_HALF`, else :class:`_LaplaceLarge`."""
    s = Fraction(scale)
    if _half_width(1 / s, Fraction(0), TAIL_BITS) <= LAPLACE_DIRECT_HALF:
        return _Laplace(s)
    return _LaplaceLarge(s)


@memo(maxsize=16)
def gaussian_table(sigma2: Fraction) -> _Symmetric | _GaussianBuckets | _GaussianRejection:
    """The (cached) exact sampler of the discrete Gaussian with this ``sigma2``: a direct table while its
    half-width is at most :data:`GAUSSIAN_DIRECT_HALF`, else the bucketed envelope (:class:`_GaussianBuckets`).
    (Before 2026-11-29, ``sigma2 >= 2**72`` was drawn by CKS20 Alg. 3, :class:`_GaussianRejection`: other numbers
    for the same seed there.)"""
    s2 = Fraction(sigma2)
    c = 1 / (2 * s2)
    if _half_width(Fraction(0), c, TAIL_BITS) <= GAUSSIAN_DIRECT_HALF:
        return _Symmetric(Fraction(0), c)
    return _GaussianBuckets(s2)


def bernoulli_exp_table(gamma: Fraction, bits: int = 64) -> _BernoulliExp:
    """The exact sampler of ``Bernoulli(exp(-gamma))``, built afresh at every call: **not memoised**.

    ``gamma`` may be computed from private data (``ComponentDisjunctionLearner(method="factorised")`` draws
    ``bernoulli_exp(|t|)`` with ``t`` from the private label shares), and a process-wide memo keeps its keys after
    the run: one fit on neighbouring label vectors left different keys in the table this was before.  The
    samplers memoised here (:func:`laplace_table`, :func:`gaussian_table`) are keyed by a noise scale, a public
    parameter; ``tests/theory/privacy/release/test_memo_keys_are_public.py`` checks every learner's fit against
    its neighbour's."""
    return _BernoulliExp(gamma, bits=bits)


def reference_discrete_laplace(scale: Fraction, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``n`` exact discrete Laplace samples (``P[x] ∝ exp(-|x| / scale)``), ``scale > 0`` rational."""
    return laplace_table(Fraction(scale)).sample(n, rng)


def reference_discrete_gaussian(sigma2: Fraction, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``n`` exact discrete Gaussian samples (``P[x] ∝ exp(-x**2 / (2 sigma2))``), ``sigma2 > 0`` rational."""
    return gaussian_table(Fraction(sigma2)).sample(n, rng)


def reference_bernoulli_exp(gamma: Fraction, n: int, rng: np.random.Generator) -> NDArray[np.bool_]:
    """``n`` exact ``Bernoulli(exp(-gamma))`` draws, ``gamma >= 0`` rational; ``gamma = 0`` reads no word."""
    if gamma == 0:
        return np.ones(n, dtype=bool)
    return bernoulli_exp_table(Fraction(gamma)).sample(n, rng) == 0


# ---------------------------------------------------------------------------
# Closed-form pmfs (for tests and audits), in mpmath at a stated precision
# ---------------------------------------------------------------------------


def discrete_laplace_pmf(scale: Fraction, xs: NDArray[np.int64], dps: int = 40) -> NDArray[np.float64]:
    """``P[X = x] = (1 - p) / (1 + p) p**|x|``, ``p = exp(-1/scale)``, evaluated in mpmath (``dps`` digits)."""
    import mpmath

    with mpmath.workdps(dps):
        p = mpmath.exp(-1 / mpmath.mpf(Fraction(scale).numerator) * Fraction(scale).denominator)
        k = (1 - p) / (1 + p)
        return np.array([float(k * p ** abs(int(x))) for x in np.asarray(xs).ravel()])


def discrete_gaussian_pmf(sigma2: Fraction, xs: NDArray[np.int64], dps: int = 40) -> NDArray[np.float64]:
    """``exp(-x**2 / (2 sigma2)) / Z`` with ``Z`` summed in mpmath (``dps`` digits) to below ``10**-dps``."""
    import mpmath

    s2 = Fraction(sigma2)
    with mpmath.workdps(dps):
        s2m = mpmath.mpf(s2.numerator) / s2.denominator
        span = int(math.ceil(math.sqrt(2 * float(s2) * dps * math.log(10)))) + 2
        z = mpmath.fsum(mpmath.exp(-mpmath.mpf(y) ** 2 / (2 * s2m)) for y in range(-span, span + 1))
        return np.array([float(mpmath.exp(-mpmath.mpf(int(x)) ** 2 / (2 * s2m)) / z) for x in np.asarray(xs).ravel()])

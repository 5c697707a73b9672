"""NumPy reference implementations of the exponential-mechanism kernels: the specification.

Everything here is plain and obviously correct; the Cython (:mod:`semiprivate.kernels._cython._expmech`)
and CuPy (:mod:`semiprivate.kernels._cupy.exponential`) backends are tested against these functions.
Inputs are assumed already validated by the public wrappers in :mod:`semiprivate.kernels._exponential`
(1-D, non-empty, no NaN, a scale ``c = epsilon / (2 * sensitivity)`` that is > 0 and finite).

Implements: EXPMECH (``python -m semiprivate spec EXPMECH``): output ``i`` with probability proportional to
``exp(epsilon * q_i / (2 * sensitivity))`` (McSherry and Talwar 2007; BNS15 Prop A.1;
HPSY writes ``exp(eps * Q / 2)`` with sensitivity 1).

Conventions (shared by every backend)
-------------------------------------
* ``+inf`` scores: the mechanism is uniform over the ``+inf`` entries (the limit of the
  finite case when those scores grow together); every finite or ``-inf`` entry gets 0.
* ``-inf`` scores get probability 0; all ``-inf`` is an error (no distribution).
* Integer scores are differenced exactly (in ``uint64``) before conversion to float, so
  ranges up to ``2**64 - 1`` are handled without overflow.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "reference_shifted_exponents",
    "reference_log_probabilities",
    "reference_exponential_mechanism",
    "reference_error_counts",
    "reference_pack_bits",
    "reference_unpack_bits",
    "reference_exact_sample",
    "reference_exact_weighted_sample",
]


def reference_shifted_exponents(scores: NDArray[Any], c: float) -> NDArray[np.float64]:
    """``z_i = c * (s_i - max_j s_j)`` in float64 (all <= 0; the max entry gives 0).

    Integer scores are differenced exactly in ``uint64`` first.  Callers handle ``+inf``
    maxima (see :func:`reference_log_probabilities`); all ``-inf`` raises ``ValueError``.
    """
    s = np.asarray(scores)
    if s.dtype.kind in "iu":
        m = s.max()
        diff = np.asarray(m, dtype=s.dtype).astype(np.uint64) - s.astype(np.uint64)  # exact: 0 <= m - s < 2**64
        return -c * diff.astype(np.float64)
    s = s.astype(np.float64, copy=False)
    m = float(s.max())
    if m == -np.inf:
        raise ValueError("scores must contain at least one entry > -inf (all scores are -inf)")
    with np.errstate(over="ignore"):
        return c * (s - m)  # s - m in [-inf, 0]; overflow to -inf means probability 0


def reference_log_probabilities(scores: NDArray[Any], c: float) -> NDArray[np.float64]:
    """Exact log-probabilities ``log p_i = z_i - log(sum_j exp(z_j))`` (float64).

    ``c = epsilon / (2 * sensitivity)``.  ``+inf`` entries share the mass uniformly.

    >>> import numpy as np
    >>> np.exp(reference_log_probabilities(np.array([0.0, 0.0, np.log(2.0)]), 1.0))
    array([0.25, 0.25, 0.5 ])
    """
    s = np.asarray(scores)
    if s.dtype.kind == "f":
        pos_inf = np.isposinf(s)
        n_inf = int(np.count_nonzero(pos_inf))
        if n_inf:
            out = np.full(s.shape, -np.inf)
            out[pos_inf] = -np.log(n_inf)
            return out
    z = reference_shifted_exponents(s, c)
    with np.errstate(under="ignore"):
        total = float(np.sum(np.exp(z)))  # >= 1: the max entry contributes exp(0) = 1
    return z - np.log(total)


def reference_exponential_mechanism(
    scores: NDArray[Any], c: float, size: int | None, rng: np.random.Generator
) -> int | NDArray[np.int64]:
    """Sample by inversion of the cumulative distribution (one uniform per draw).

    ``u ~ U[0, 1)``, output the first ``i`` with ``cdf_i > u * cdf_{N-1}``.  A zero-probability
    entry can never be output (its ``cdf`` equals its predecessor's).
    """
    logp = reference_log_probabilities(scores, c)
    with np.errstate(under="ignore"):
        p = np.exp(logp)
    cdf = np.cumsum(p)
    k = 1 if size is None else int(size)
    u = rng.random(k)
    idx = np.searchsorted(cdf, u * cdf[-1], side="right")
    last = int(np.flatnonzero(p > 0)[-1])
    idx = np.minimum(idx, last).astype(np.int64)  # u * total rounded up to total
    if size is None:
        return int(idx[0])
    return idx


def reference_pack_bits(bool_matrix: NDArray[Any]) -> NDArray[np.uint64]:
    """Pack the last axis into little-endian ``uint64`` words (bit ``j`` of word ``w`` = column ``64 w + j``).

    Padding bits are 0.

    >>> import numpy as np
    >>> reference_pack_bits(np.array([[1, 0, 1], [0, 0, 0]], dtype=bool))
    array([[5],
           [0]], dtype=uint64)
    """
    b = np.asarray(bool_matrix).astype(bool)
    m = b.shape[-1]
    words = (m + 63) // 64
    packed8 = np.packbits(b, axis=-1, bitorder="little")
    pad = words * 8 - packed8.shape[-1]
    if pad:
        packed8 = np.concatenate([packed8, np.zeros(packed8.shape[:-1] + (pad,), dtype=np.uint8)], axis=-1)
    packed8 = np.ascontiguousarray(packed8)
    return packed8.view("<u8").astype(np.uint64)


def reference_unpack_bits(packed: NDArray[Any], m: int) -> NDArray[np.bool_]:
    """Inverse of :func:`reference_pack_bits` for ``m`` columns."""
    w = np.ascontiguousarray(np.asarray(packed).astype("<u8"))
    bits = np.unpackbits(w.view(np.uint8), axis=-1, bitorder="little")
    return bits[..., :m].astype(bool)


def reference_error_counts(predictions: NDArray[Any], labels: NDArray[Any], packed: bool) -> NDArray[np.int64]:
    """Number of positions where each row of ``predictions`` differs from ``labels`` (int64).

    ``predictions``: ``(H, m)`` 0/1 matrix, or ``(H, ceil(m/64))`` packed words when ``packed``;
    ``labels``: ``(m,)`` 0/1 vector.
    """
    lab = np.asarray(labels).astype(bool)
    m = lab.shape[0]
    pred = reference_unpack_bits(predictions, m) if packed else np.asarray(predictions).astype(bool)
    return np.count_nonzero(pred != lab[None, :], axis=1).astype(np.int64)


# ---------------------------------------------------------------------------
# Exact sampler (exact=True): rational arithmetic and rigorous interval bounds
# ---------------------------------------------------------------------------


def _exp_neg_fixed(x: Fraction, p: int) -> tuple[int, int]:
    """Integers ``lo, hi`` with ``lo 2**-p <= exp(-x) <= hi 2**-p`` for a rational ``x >= 0``.

    Rigorous: ``exp(-x) <= 2**-x`` gives ``(0, 1)`` when ``x >= p``; otherwise
    ``exp(-x) = exp(-y)**n`` with ``y = x / n <= 1``, and ``exp(-y)`` is bracketed by
    consecutive partial sums of its alternating Taylor series (terms decrease for ``y <= 1``),
    evaluated in fixed point with outward (floor/ceil) rounding at every step.
    """
    if x == 0:
        return 1 << p, 1 << p
    if x >= p:
        return 0, 1
    n = max(1, math.ceil(x))
    q = p + 2 * n.bit_length() + 24
    one = 1 << q
    y = x / n
    y_lo = (y.numerator << q) // y.denominator  # y_lo <= y*2**q <= y_hi
    y_hi = -((-y.numerator << q) // y.denominator)

    def series(yq: int, upper: bool) -> int:
        # fixed-point bound on exp(-yq / 2**q): upper -> S_even upper bound, else S_odd lower bound
        total = one
        t_up = t_dn = one
        k = 0
        while True:
            k += 1
            t_up = -((-t_up * yq) // (k << q))  # ceil: upper bound on y^k / k!
            t_dn = (t_dn * yq) // (k << q)  # floor: lower bound
            if k % 2:  # subtract odd terms
                total -= t_dn if upper else t_up
            else:
                total += t_up if upper else t_dn
            if t_up <= 1 and ((upper and k % 2 == 0) or (not upper and k % 2 == 1)):
                return max(total, 0)

    lo_y = series(y_hi, upper=False)  # exp(-y) >= exp(-y_hi) >= lo_y
    hi_y = series(y_lo, upper=True)
    lo, hi = one, one
    for _ in range(n):
        lo = (lo * lo_y) >> q
        hi = -((-hi * hi_y) >> q)
    shift = q - p
    return lo >> shift, -((-hi) >> shift)


def _exp_neg_multiples(unit: Fraction, ds: list[int], p: int) -> list[tuple[int, int]]:
    """Bounds ``(lo, hi)`` with ``lo 2**-p <= exp(-unit d) <= hi 2**-p`` for each integer ``d >= 0`` of ``ds``.

    ``exp(-unit d) = exp(-unit)**d``: one bracket of ``exp(-unit)`` (:func:`_exp_neg_fixed`) at a working
    precision ``q`` with guard bits; the levels are visited in increasing order and each is the previous one
    times ``exp(-unit)**(d_i - d_{i-1})``, that power by square-and-multiply, every product rounded outward
    (floor for the lower bound, ceiling for the upper), so each bound stays rigorous: O(log gap) products per
    level.  ``d`` with ``unit d >= p`` gets ``(0, 1)`` as in :func:`_exp_neg_fixed`.
    """
    if unit == 0:
        return [(1 << p, 1 << p) for _ in ds]
    num, den = unit.numerator, unit.denominator
    limit = p * den  # unit d >= p  <=>  num d >= p den (integers only: no Fraction arithmetic per level)
    levels = sorted({d for d in ds if num * d < limit})
    q = p + 2 * max(len(levels), 1).bit_length() + 2 * max(levels[-1] if levels else 1, 1).bit_length() + 24
    lo1, hi1 = _exp_neg_fixed(unit, q)

    def mul(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        return (a[0] * b[0]) >> q, -((-a[1] * b[1]) >> q)

    def power(k: int) -> tuple[int, int]:
        out, base = (1 << q, 1 << q), (lo1, hi1)
        while k:
            if k & 1:
                out = mul(out, base)
            k >>= 1
            if k:
                base = mul(base, base)
        return out

    at: dict[int, tuple[int, int]] = {}
    cur_d, cur = 0, (1 << q, 1 << q)
    shift = q - p
    for d in levels:
        cur, cur_d = mul(cur, power(d - cur_d)), d
        at[d] = (cur[0] >> shift, -((-cur[1]) >> shift))
    return [at.get(d, (0, 1)) for d in ds]


class _ExactGroups:
    """Weights ``n_g exp(-x_g)`` of the distinct score levels, with cached interval bounds.

    With ``unit`` (and ``xs = unit * ds`` for integers ``ds``), the bounds come from
    :func:`_exp_neg_multiples` (powers of one bracket of ``exp(-unit)``); otherwise one series per level.
    """

    def __init__(self, counts: list[int], xs: list[Fraction], unit: Fraction | None = None,
                 ds: list[int] | None = None) -> None:
        self.counts = counts
        self.xs = xs
        self.unit = unit
        self.ds = ds
        self._cache: dict[int, tuple[list[int], list[int], list[int], int, int]] = {}

    def _level_bounds(self, p: int) -> list[tuple[int, int]]:
        if self.unit is not None and self.ds is not None:
            return _exp_neg_multiples(self.unit, self.ds, p)
        return [_exp_neg_fixed(x, p) for x in self.xs]

    def bounds(self, p: int) -> tuple[list[int], list[int], list[int], int, int]:
        """Prefix sums CL (lower) and CH (upper), Cmid, totals TL and TH at precision ``p``."""
        if p not in self._cache:
            cl, ch, cmid = [], [], []
            sl = sh = 0
            for n_g, (lo, hi) in zip(self.counts, self._level_bounds(p)):
                sl += n_g * lo
                sh += n_g * hi
                cl.append(sl)
                ch.append(sh)
                cmid.append(sl + sh)
            self._cache[p] = (cl, ch, cmid, sl, sh)
        return self._cache[p]

    def draw(self, rng: np.random.Generator) -> int:
        """One group index ``g`` with probability exactly ``W_g / sum W`` (lazy inversion)."""
        G = len(self.counts)
        if G == 1:
            return 0
        p, b = 64, 64
        A = int.from_bytes(rng.bytes(8), "little")  # U in [A 2**-b, (A + 1) 2**-b)
        while True:
            cl, ch, cmid, tl, th = self.bounds(p)
            g0 = bisect.bisect_right(cmid, (A * (tl + th)) >> b)
            for g in (g0, g0 - 1, g0 + 1):
                if 0 <= g < G and self._certain(g, A, b, cl, ch, tl, th):
                    return g
            A = (A << 64) | int.from_bytes(rng.bytes(8), "little")
            b += 64
            if b > p - 32:
                p *= 2

    @staticmethod
    def _certain(g: int, A: int, b: int, cl: list[int], ch: list[int], tl: int, th: int) -> bool:
        # For every weight vector inside the bounds: C_{g-1} <= U T < C_g, i.e.
        # U_lo >= max C_{g-1}/T and U_hi <= min C_g/T (ratios monotone in each block of weights).
        if g > 0:
            c_prev_hi = ch[g - 1]
            rest_lo = tl - cl[g - 1]  # sum_{k >= g} lo_k
            if A * (c_prev_hi + rest_lo) < (c_prev_hi << b):
                return False
        if g < len(cl) - 1:
            c_lo = cl[g]
            rest_hi = th - ch[g]  # sum_{k > g} hi_k
            if (A + 1) * (c_lo + rest_hi) > (c_lo << b):
                return False
        return True


def reference_exact_sample(
    scores: NDArray[Any], epsilon: Fraction, sensitivity: Fraction, size: int | None, rng: np.random.Generator
) -> int | NDArray[np.int64]:
    """Exact exponential mechanism for integer scores and rational ``epsilon / sensitivity``.

    ``P[i] = exp(c s_i) / sum_j exp(c s_j)``, ``c = epsilon / (2 sensitivity)`` as a Fraction,
    exactly: see :func:`semiprivate.kernels.exponential_mechanism` (``exact=True``).  Float arrays are
    accepted when every finite entry is an integer; ``+inf`` entries share the mass
    uniformly, ``-inf`` entries get 0.
    """
    s = np.asarray(scores)
    k = 1 if size is None else int(size)
    c = Fraction(epsilon) / (2 * Fraction(sensitivity))
    if s.dtype.kind == "f":
        if bool(np.isnan(s).any()):
            raise ValueError("scores must not contain NaN")
        pos = np.flatnonzero(np.isposinf(s))
        if pos.size:
            out = pos[rng.integers(0, pos.size, size=k)].astype(np.int64)
            return int(out[0]) if size is None else out
        finite = np.flatnonzero(np.isfinite(s))
        if finite.size == 0:
            raise ValueError("scores must contain at least one entry > -inf (all scores are -inf)")
        vals = s[finite]
        if not bool(np.all(vals == np.floor(vals))):
            raise TypeError("exact=True needs integer scores (an integer dtype, or floats with integral values)")
        uniq_f, inverse, counts = np.unique(vals, return_inverse=True, return_counts=True)
        uniq = [int(v) for v in uniq_f.tolist()]
        index_of = finite
    elif s.dtype.kind in "iu":
        uniq_i, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
        uniq = [int(v) for v in uniq_i.tolist()]
        index_of = np.arange(s.shape[0])
    else:
        raise TypeError(f"exact=True needs integer scores, got dtype {s.dtype}")
    G = len(uniq)
    top = uniq[-1]
    # group g = G-1-j holds the j-th largest score; d = top - score >= 0, x = c d
    order_groups = list(range(G - 1, -1, -1))
    ds = [top - uniq[j] for j in order_groups]
    groups = _ExactGroups([int(counts[j]) for j in order_groups], [], unit=c, ds=ds)
    members = np.argsort(inverse.ravel(), kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    out = np.empty(k, dtype=np.int64)
    for t in range(k):
        j = order_groups[groups.draw(rng)]
        r = int(rng.integers(0, int(counts[j])))
        out[t] = int(index_of[members[starts[j] + r]])
    return int(out[0]) if size is None else out


def _uniform_below(n: int, rng: Any) -> int:
    """A uniform integer in ``[0, n)`` for a Python int ``n >= 1``, exactly (bounded integers below 2^62,
    else rejection on raw bytes)."""
    if n <= 2**62:
        return int(rng.integers(0, n))
    nbytes = (n.bit_length() + 7) // 8
    top = 1 << (8 * nbytes)
    limit = top - top % n
    while True:
        v = int.from_bytes(rng.bytes(nbytes), "little")
        if v < limit:
            return v % n


def reference_exact_weighted_sample(
    scores: NDArray[Any], multiplicities: list[int], epsilon: Fraction, sensitivity: Fraction, rng: np.random.Generator
) -> int:
    """Exact exponential mechanism over entries with integer multiplicities: index ``i`` with probability
    ``n_i exp(c s_i) / sum_j n_j exp(c s_j)``, ``c = epsilon / (2 sensitivity)`` as a Fraction.

    ``scores``: finite integers; ``multiplicities``: Python ints >= 1 (any size, e.g. the 2^64 thresholds of
    a cell).  Entries with the same score form one group of weight ``(sum of their n_i) exp(c s)``; the
    group is drawn by :class:`_ExactGroups`' lazy inversion, then an entry of the group with probability
    proportional to its multiplicity, by one exact uniform integer below the group's total.
    """
    s = np.asarray(scores)
    if s.dtype.kind not in "iu":
        if not (s.dtype.kind == "f" and bool(np.all(np.isfinite(s))) and bool(np.all(s == np.floor(s)))):
            raise TypeError("the exact weighted sampler needs finite integer scores")
    vals = [int(v) for v in s.tolist()]
    if len(vals) != len(multiplicities) or not vals:
        raise ValueError("scores and multiplicities must be non-empty and of the same length")
    mult = [int(m) for m in multiplicities]
    if min(mult) < 1:
        raise ValueError("multiplicities must be >= 1")
    c = Fraction(epsilon) / (2 * Fraction(sensitivity))
    levels = sorted(set(vals), reverse=True)
    top = levels[0]
    members: dict[int, list[int]] = {v: [] for v in levels}
    for i, v in enumerate(vals):
        members[v].append(i)
    totals = [sum(mult[i] for i in members[v]) for v in levels]
    ds = [top - v for v in levels]
    groups = _ExactGroups(totals, [], unit=c, ds=ds)
    g = groups.draw(rng)
    r = _uniform_below(totals[g], rng)
    for i in members[levels[g]]:
        if r < mult[i]:
            return i
        r -= mult[i]
    raise AssertionError("unreachable: r below the group's total")  # pragma: no cover

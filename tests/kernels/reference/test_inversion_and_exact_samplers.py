"""semiprivate.kernels._reference (the specification the fast backends are checked against).

The inversion sampler is driven by a stub generator whose uniforms are chosen, to pin down its
documented edge cases: one uniform per draw, a zero-probability entry is never output (also at
u = 0 and when u * total rounds up to total), and the unpacking helpers' shapes and dtypes.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from semiprivate.kernels._reference import (
    _ExactGroups,
    reference_error_counts,
    reference_exact_sample,
    reference_exponential_mechanism,
    reference_log_probabilities,
    reference_pack_bits,
    reference_unpack_bits,
)


class _Uniforms:
    """A generator stand-in whose ``random(k)`` returns the given uniforms (and records k)."""

    def __init__(self, *u: float) -> None:
        self.u = list(u)
        self.asked: list[int] = []

    def random(self, k: int) -> np.ndarray:
        self.asked.append(k)
        out, self.u = self.u[:k], self.u[k:]
        return np.array(out, dtype=np.float64)


def test_one_uniform_per_draw() -> None:
    s = np.array([0.0, 1.0, 2.0])
    g = _Uniforms(0.3)
    i = reference_exponential_mechanism(s, 0.5, None, g)
    assert type(i) is int and g.asked == [1]
    g = _Uniforms(0.1, 0.5, 0.9)
    idx = reference_exponential_mechanism(s, 0.5, 3, g)
    assert g.asked == [3] and idx.dtype == np.int64 and idx.shape == (3,)
    # with a real generator: size=None consumes exactly one uniform (the next draw is the 2nd)
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    reference_exponential_mechanism(s, 0.5, None, a)
    b.random(1)
    assert a.random() == b.random()


def test_inversion_is_the_cdf_of_the_log_probabilities() -> None:
    s = np.array([0.0, 1.0, 2.0, -1.0])
    p = np.exp(reference_log_probabilities(s, 0.7))
    cdf = np.cumsum(p)
    us = [0.0, cdf[0] - 1e-12, cdf[0] + 1e-12, cdf[1] + 1e-9, cdf[2] - 1e-9, 0.999999]
    g = _Uniforms(*us)
    got = reference_exponential_mechanism(s, 0.7, len(us), g).tolist()
    assert got == [0, 0, 1, 2, 2, 3]


def test_zero_probability_entries_are_never_output() -> None:
    s = np.array([-np.inf, 0.0, 1.0, -np.inf])  # entries 0 and 3 have probability 0
    # u = 0: the first entry with cdf > 0 (not the leading zero-probability entry)
    assert reference_exponential_mechanism(s, 1.0, None, _Uniforms(0.0)) == 1
    # u * total rounded up to total: clamped to the last entry of positive probability
    assert reference_exponential_mechanism(s, 1.0, None, _Uniforms(1.0)) == 2
    # underflow to probability 0 behaves the same, and raises no floating-point warning
    s2 = np.array([-1e6, 0.0, -1e6])
    with np.errstate(all="raise"):
        assert reference_exponential_mechanism(s2, 1.0, 2, _Uniforms(0.0, 1.0)).tolist() == [1, 1]


def test_unpack_bits_shapes_and_dtype() -> None:
    rng = np.random.default_rng(0)
    M = rng.random((3, 130)) < 0.5
    packed = reference_pack_bits(M)
    out = reference_unpack_bits(packed, 130)
    assert out.dtype == np.bool_ and np.array_equal(out, M)
    # one packed row (1-d) unpacks to one row of bits
    row = reference_unpack_bits(packed[1], 130)
    assert row.dtype == np.bool_ and row.shape == (130,) and np.array_equal(row, M[1])


def test_error_counts_dtype_and_values() -> None:
    P = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1]], dtype=np.uint8)
    y = np.array([1, 0, 0])
    for packed in (False, True):
        pred = reference_pack_bits(P.astype(bool)) if packed else P
        e = reference_error_counts(pred, y, packed)
        assert e.dtype == np.int64 and e.tolist() == [1, 1, 2]
    # boolean labels and boolean predictions give the same counts
    assert reference_error_counts(P.astype(bool), y.astype(bool), False).tolist() == [1, 1, 2]


def test_exact_groups_bounds_bracket_the_prefix_sums() -> None:
    """_ExactGroups.bounds(p): CL[g] 2^-p <= sum_{k <= g} n_k exp(-x_k) <= CH[g] 2^-p, Cmid = CL + CH and
    the totals are the last prefix sums; exact weights (x = 0) give exact bounds.  Checked against the
    bounds at precision 512, which bracket the same sums 2^448 times tighter."""
    from fractions import Fraction

    from semiprivate.kernels._reference import _ExactGroups

    G = _ExactGroups([3], [Fraction(0)])
    assert G.bounds(64) == ([3 << 64], [3 << 64], [6 << 64], 3 << 64, 3 << 64)
    g = np.random.default_rng(2)
    for _ in range(20):
        xs = sorted(Fraction(int(v), 7) for v in g.integers(0, 200, size=4))
        counts = [int(c) for c in g.integers(1, 50, size=4)]
        cl, ch, cmid, tl, th = _ExactGroups(counts, xs).bounds(64)
        fl, fh, _, _, _ = _ExactGroups(counts, xs).bounds(512)
        assert (tl, th) == (cl[-1], ch[-1])
        for i in range(4):
            assert cmid[i] == cl[i] + ch[i]
            assert cl[i] << 448 <= fh[i] and ch[i] << 448 >= fl[i]


def _certain_by_enumeration(g: int, A: int, b: int, lo: list[int], hi: list[int]) -> bool:
    """The definition _ExactGroups._certain decides: for every integer weight vector w with lo <= w <= hi,
    the uniform's dyadic interval [A 2^-b, (A + 1) 2^-b) lies inside group g's cell [C_{g-1}/T, C_g/T)."""
    import itertools

    for w in itertools.product(*(range(a, c + 1) for a, c in zip(lo, hi))):
        T = sum(w)
        below, upto = sum(w[:g]), sum(w[:g + 1])
        if A * T < (below << b) or (A + 1) * T > (upto << b):
            return False
    return True


def test_exact_groups_certain_is_exactly_its_definition():
    """_certain(g, A, b, CL, CH, TL, TH) -- the stopping rule of the exact sampler's lazy inversion --
    equals the definition on every weight box, group and dyadic interval of small random instances
    (including the boundary cases A T = C_{g-1} 2^b and (A + 1) T = C_g 2^b).  A rule that stops when
    some weights in the box still map the interval elsewhere biases the sample; one that never stops
    on a certain group loops (the sampler refines until it does)."""
    from semiprivate.kernels._reference import _ExactGroups

    rng = np.random.default_rng(2026)
    n_true = n_false = n_edge = 0
    for _ in range(400):
        G = int(rng.integers(2, 5))
        lo = [int(v) for v in rng.integers(0, 4, G)]
        hi = [a + int(v) for a, v in zip(lo, rng.integers(0, 3, G))]
        if sum(lo) == 0:
            continue
        cl = list(np.cumsum(lo).tolist())
        ch = list(np.cumsum(hi).tolist())
        b = int(rng.integers(1, 5))
        for A in range(1 << b):
            for g in range(G):
                want = _certain_by_enumeration(g, A, b, lo, hi)
                got = _ExactGroups._certain(g, A, b, cl, ch, cl[-1], ch[-1])
                assert got == want, (g, A, b, lo, hi)
                n_true += want
                n_false += not want
                T = sum(lo)
                n_edge += A * T == (sum(lo[:g]) << b) or (A + 1) * T == (sum(lo[:g + 1]) << b)
    assert min(n_true, n_false, n_edge) > 100  # both answers and the equality cases were exercised


# --- the exact sampler's refinement: U straddling a group boundary at 64 bits ---


class _Bytes:
    """A generator stand-in whose ``bytes(8)`` returns the given 64-bit words, little-endian, in order."""

    def __init__(self, *words: int | bytes) -> None:
        self.words = [w if isinstance(w, bytes) else int(w).to_bytes(8, "little") for w in words]
        self.read = 0

    def bytes(self, n: int) -> bytes:
        assert n == 8, n
        self.read += 1
        return self.words.pop(0)


def _boundary_word() -> tuple[int, int]:
    """Two groups of weights 1 and e^-1: group 0 iff U < 1 / (1 + e^-1).  Returns A0 = floor(2^64 x boundary) and
    floor(2^64 x delta), delta = the boundary's offset inside [A0, A0 + 1) 2^-64 (60 digits of e)."""
    from decimal import Decimal, getcontext

    getcontext().prec = 60
    boundary = 1 / (1 + Decimal(-1).exp())
    scaled = boundary * (Decimal(2) ** 64)
    a0 = int(scaled)
    return a0, int((scaled - a0) * (Decimal(2) ** 64))


def test_exact_groups_refine_when_the_first_64_bits_straddle_a_boundary() -> None:
    """U's first 64 bits A0 contain the boundary, so no precision can decide: the sampler must read the next 64
    bits and return the group of U = (A0 2^64 + V) 2^-128 -- group 0 for V below the boundary's offset, group 1
    above (V = 0, V = 2^64 - 1, and the little-endian word 0xFF 00 .. 00 = 255, whose big-endian reading would be
    above).  Exactly two words are read in each case."""
    a0, offset = _boundary_word()
    assert 2**8 < offset < 2**64 - 2**57  # the three V below sit clearly on their sides
    for v, want in ((0, 0), (2**64 - 1, 1), (b"\xff" + bytes(7), 0), (offset + 2**20, 1), (offset - 2**20, 0)):
        rng = _Bytes(a0, v)
        got = _ExactGroups([1, 1], [Fraction(0), Fraction(1)]).draw(rng)  # type: ignore[arg-type]
        assert (got, rng.read) == (want, 2), v


def test_exact_groups_decide_at_64_bits_away_from_a_boundary() -> None:
    a0, _ = _boundary_word()
    for a, want in ((a0 - 2**20, 0), (a0 + 2**20, 1)):
        rng = _Bytes(a)
        assert (_ExactGroups([1, 1], [Fraction(0), Fraction(1)]).draw(rng), rng.read) == (want, 1)  # type: ignore[arg-type]


# --- reference_exact_sample: its own checks and the +inf branch ---


def test_exact_sample_refuses_nan_non_integers_and_all_minus_inf_by_name() -> None:
    one = Fraction(1)
    cases = [(np.array([0.0, np.nan]), ValueError, "scores must not contain NaN"),
             (np.array([0.5, 1.0]), TypeError,
              "exact=True needs integer scores (an integer dtype, or floats with integral values)"),
             (np.array([-np.inf, -np.inf]), ValueError,
              "scores must contain at least one entry > -inf (all scores are -inf)"),
             (np.array([True, False]), TypeError, "exact=True needs integer scores, got dtype bool")]
    for scores, exc, msg in cases:
        with pytest.raises(exc) as err:
            reference_exact_sample(scores, one, one, 3, np.random.default_rng(0))
        assert str(err.value) == msg


def test_exact_sample_plus_inf_is_uniform_over_them_with_int_results() -> None:
    s = np.array([1.0, np.inf, 0.0, np.inf])
    one = Fraction(1)
    many = reference_exact_sample(s, one, one, 400, np.random.default_rng(1))
    assert many.dtype == np.int64 and set(many.tolist()) == {1, 3}
    single = reference_exact_sample(s, one, one, None, np.random.default_rng(1))
    assert type(single) is int and single == many[0]


def test_exact_single_draws_take_one_draw_each_from_the_generator() -> None:
    """size=None is one draw: two single draws from one generator are the first two of size=2 from the seed."""
    s = np.array([0, 1, 1, 2, 5])
    c = Fraction(1, 3)
    g = np.random.default_rng(8)
    singles = [reference_exact_sample(s, c, Fraction(1), None, g) for _ in range(6)]
    assert all(type(x) is int for x in singles)
    assert singles == reference_exact_sample(s, c, Fraction(1), 6, np.random.default_rng(8)).tolist()


def _near_integer_points() -> list[tuple[Fraction, int, int]]:
    """(x, p, m) with exp(-x) 2^p within ~2^-50 of the integer m, on either side: x = p ln 2 - ln m rounded to 2^-64
    up or down (mpmath at 300 bits).  There the final floor / ceil of _exp_neg_fixed sees an error of its
    partial sums that is far below the 2^-24 guard bits elsewhere."""
    import mpmath

    out = []
    with mpmath.workprec(300):
        for p, m in ((8, 100), (8, 200), (16, 40_000), (12, 3_000), (10, 1)):
            x = p * mpmath.log(2) - mpmath.log(m)
            scaled = x * mpmath.mpf(2) ** 64
            for num in (int(mpmath.floor(scaled)), int(mpmath.ceil(scaled))):
                out.append((Fraction(num, 2**64), p, m))
    return out


def test_exp_neg_fixed_is_rigorous_next_to_an_integer() -> None:
    """lo 2^-p <= exp(-x) <= hi 2^-p also where exp(-x) 2^p is within 2^-50 of an integer: a lower bound taken
    from the upper partial sum (or the reverse) is off by a few units of 2^-q and rounds to the wrong side here."""
    import mpmath
    from semiprivate.kernels._reference import _exp_neg_fixed

    for x, p, m in _near_integer_points():
        lo, hi = _exp_neg_fixed(x, p)
        with mpmath.workprec(400):
            v = mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator) * mpmath.mpf(2) ** p
        assert abs(v - m) < mpmath.mpf(2) ** -40, (x, p, m)
        assert lo <= v <= hi and hi - lo <= 2, (x, p, m, lo, hi)


def test_exp_neg_fixed_is_rigorous_at_random_near_integer_points() -> None:
    """The bracket holds at 128 seeded points where exp(-x) 2^p lies within ~m 2^-80 of an integer m (p up to 64,
    m uniform, x = p ln 2 - ln m rounded down and up to 2^-80).  There the final floor / ceil exposes the sign of the
    fixed-point series' error: an upper bound that subtracts the rounded-up odd terms (instead of the rounded-down
    ones) falls below exp(-y) by a unit or two of 2^-q at 10-40% of such points (measured: 13 and 19 of these 128)."""
    import mpmath
    from semiprivate.kernels._reference import _exp_neg_fixed

    g = np.random.default_rng(0)
    for _ in range(64):
        p = int(g.choice([8, 16, 24, 32, 48, 64]))
        m = int(g.integers(1, 2**p, dtype=np.uint64)) if p < 64 else 2 * int(g.integers(1, 2**63)) + 1
        with mpmath.workprec(300):
            scaled = (p * mpmath.log(2) - mpmath.log(m)) * mpmath.mpf(2) ** 80
            nums = (int(mpmath.floor(scaled)), int(mpmath.ceil(scaled)))
        for num in nums:
            x = Fraction(num, 2**80)
            lo, hi = _exp_neg_fixed(x, p)
            with mpmath.workprec(400):
                v = mpmath.exp(-mpmath.mpf(num) / 2**80) * mpmath.mpf(2) ** p
            assert abs(v - m) < mpmath.mpf(2) ** -10, (num, p, m)
            assert lo <= v <= hi and hi - lo <= 2, (num, p, m, lo, hi)


def test_exp_neg_fixed_keeps_its_guard_bits_at_any_precision() -> None:
    """The sampler doubles p without bound, so the bracket must hold at any p: at p = 8192 and x > 4096
    (n = ceil(x) has 13 bits) the working precision q = p + 2 bitlen(n) + 24 still exceeds p; one with the
    guard bits subtracted (q = p - 2 bitlen(n) + 24 < p) cannot even shift back to 2^-p."""
    import mpmath
    from semiprivate.kernels._reference import _exp_neg_fixed

    x = Fraction(40_961, 9)  # 4551.2..., about 1 s at 8192 bits
    lo, hi = _exp_neg_fixed(x, 8192)
    with mpmath.workprec(3000):
        v = mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator) * mpmath.mpf(2) ** 8192
    assert v > 2**1000 and lo <= v <= hi and hi - lo <= 2, (lo, hi)


def test_shifted_exponents_overflow_to_minus_inf_quietly_and_all_minus_inf_is_refused() -> None:
    """s - max overflowing (1e308 apart) or c (s - max) overflowing gives -inf (probability 0) without a floating-point
    warning, even where warnings are errors; all -inf scores are refused with the documented message."""
    import warnings

    from semiprivate.kernels._reference import reference_shifted_exponents

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reference_shifted_exponents(np.array([1e308, -1e308]), 1.0).tolist() == [0.0, -np.inf]
        assert reference_shifted_exponents(np.array([0.0, -1e300]), 1e10).tolist() == [0.0, -np.inf]
    with pytest.raises(ValueError) as err:
        reference_shifted_exponents(np.array([-np.inf, -np.inf]), 1.0)
    assert str(err.value) == "scores must contain at least one entry > -inf (all scores are -inf)"

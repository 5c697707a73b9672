"""semiprivate.kernels.noise: the exact samplers have exactly the distributions they name.

Chi-square tests of 200,000 seeded draws against the closed-form pmfs (mpmath, 40 digits), bins with
expected count >= 20 and the tails pooled.  Each test rejects at ALPHA = 1e-6: over the seeds a correct
sampler fails with probability 1e-6 per test (the seeds are fixed, so the suite is deterministic); each
also shows its power: the same statistic rejects the sampler run with a parameter 10% off.  The exact
fallback (:meth:`settle`) is exercised on its own by coarsened tables (most words go through it) and
by word streams chosen next to a boundary, checked against the boundary computed in mpmath.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels.noise import bernoulli_exp, discrete_gaussian, discrete_laplace

ALPHA = 1e-6
N = 200_000


def _chi2_pvalue(x: np.ndarray, pmf) -> float:
    lo, hi = int(x.min()), int(x.max())
    support = np.arange(lo - 50, hi + 51)
    p = pmf(support)
    expected = p * x.size
    keep = expected >= 20
    counts = np.bincount(x - support[0], minlength=support.size)[: support.size]
    obs = list(counts[keep]) + [x.size - counts[keep].sum()]
    exp = list(expected[keep]) + [x.size - expected[keep].sum()]
    if exp[-1] < 20:  # pool the tails into the last bin
        obs[-2] += obs.pop()
        exp[-2] += exp.pop()
    exp_arr = np.array(exp) * (sum(obs) / sum(exp))
    return float(stats.chisquare(obs, exp_arr).pvalue)


LAPLACE_SCALES = [Fraction(3, 10), 1.0, 3.7, Fraction(7, 3), 25.0]
GAUSS_SIGMA2 = [Fraction(1, 2), 1.0, 3.7, Fraction(10, 3), 60.0]


@pytest.mark.parametrize("scale", LAPLACE_SCALES)
def test_discrete_laplace_matches_its_pmf(scale) -> None:
    x = discrete_laplace(scale, N, rng=11, backend="numpy")
    assert _chi2_pvalue(x, lambda s: ref.discrete_laplace_pmf(Fraction(scale), s)) > ALPHA


@pytest.mark.parametrize("scale", [1.0, 3.7, 25.0])
def test_laplace_test_rejects_a_scale_10_percent_off(scale) -> None:
    x = discrete_laplace(scale * 1.1, N, rng=11, backend="numpy")
    assert _chi2_pvalue(x, lambda s: ref.discrete_laplace_pmf(Fraction(scale), s)) < ALPHA


@pytest.mark.parametrize("sigma2", GAUSS_SIGMA2)
def test_discrete_gaussian_matches_its_pmf(sigma2) -> None:
    x = discrete_gaussian(sigma2, N, rng=12, backend="numpy")
    assert _chi2_pvalue(x, lambda s: ref.discrete_gaussian_pmf(Fraction(sigma2), s)) > ALPHA


@pytest.mark.parametrize("sigma2", [1.0, 3.7, 60.0])
def test_gaussian_test_rejects_a_variance_10_percent_off(sigma2) -> None:
    x = discrete_gaussian(sigma2 * 1.1, N, rng=12, backend="numpy")
    assert _chi2_pvalue(x, lambda s: ref.discrete_gaussian_pmf(Fraction(sigma2), s)) < ALPHA


@pytest.mark.parametrize("gamma", [Fraction(1, 10), 1.0, 2.5, Fraction(1, 3), 6.0])
def test_bernoulli_exp_matches_exp_minus_gamma(gamma) -> None:
    x = bernoulli_exp(gamma, N, rng=13, backend="numpy")
    p = float(mpmath.exp(-mpmath.mpf(Fraction(gamma).numerator) / Fraction(gamma).denominator))
    assert stats.binomtest(int(x.sum()), N, p).pvalue > ALPHA
    # power: exp(-1.1 gamma) is rejected
    assert stats.binomtest(int(x.sum()), N, p ** 1.1).pvalue < ALPHA


def test_bernoulli_exp_of_zero_is_true_and_reads_nothing() -> None:
    g = np.random.default_rng(5)
    before = g.bit_generator.state
    assert bernoulli_exp(0, 7, rng=g).all() and bernoulli_exp(Fraction(0), rng=g) is True
    assert g.bit_generator.state == before


# --- the exact fallback path -------------------------------------------------------------------


def _fallback_share(table, n: int, seed: int) -> float:
    w = np.random.default_rng(seed).bit_generator.random_raw(n)
    return float(table.classify(np.asarray(w, dtype=np.uint64))[1].mean())


def test_coarse_tables_route_most_words_through_settle_and_keep_the_distribution() -> None:
    # 6-bit tables: every word within 2**-6 of a boundary, and the tails beyond +-3, are settled exactly
    lap = ref._Laplace(Fraction(37, 10), bits=6, max_half=3)
    gau = ref._Symmetric(Fraction(0), Fraction(1, 2 * 3), bits=6, max_half=3)
    for table, pmf in ((lap, lambda s: ref.discrete_laplace_pmf(Fraction(37, 10), s)),
                       (gau, lambda s: ref.discrete_gaussian_pmf(Fraction(3), s))):
        assert _fallback_share(table, 20_000, 0) > 0.1
        x = table.sample(40_000, np.random.default_rng(21))
        assert _chi2_pvalue(x, pmf) > ALPHA


def test_coarse_bernoulli_table_keeps_the_distribution() -> None:
    table = ref._BernoulliExp(Fraction(1, 3), bits=3)
    assert _fallback_share(table, 20_000, 0) > 0.05
    x = table.sample(30_000, np.random.default_rng(22)) == 0
    assert stats.binomtest(int(x.sum()), 30_000, float(mpmath.exp(-mpmath.mpf(1) / 3))).pvalue > ALPHA


class _Words:
    """A generator stand-in whose 64-bit draws (``integers(0, 2**64, ...)``) are the given words."""

    def __init__(self, *words: int) -> None:
        self.words = list(words)

    def integers(self, low, high, size=None, dtype=None):
        assert (low, high, dtype) == (0, 2**64, np.uint64)
        if size is None:
            return np.uint64(self.words.pop(0))
        out, self.words = self.words[:size], self.words[size:]
        return np.array(out, dtype=np.uint64)


@pytest.mark.parametrize("gamma", [Fraction(1), Fraction(7, 5), Fraction(1, 10**12)])
def test_settle_decides_by_the_exact_boundary(gamma) -> None:
    # U's first 128 bits straddle exp(-gamma)'s: the answer is (U < exp(-gamma)) computed at 300 digits
    with mpmath.workdps(300):
        e = mpmath.exp(-mpmath.mpf(gamma.numerator) / gamma.denominator)
        top = int(mpmath.floor(e * mpmath.mpf(2) ** 128))
    table = ref._BernoulliExp(gamma)
    for a in (top - 1, top, top + 1):
        w0, w1 = a >> 64, a & ((1 << 64) - 1)
        got = table.sample(1, _Words(w0, w1, 0, 0, 0, 0))[0] == 0
        # a != top: [a, a + 1) / 2**128 lies on one side of exp(-gamma); a == top with zero words after
        # it: U = top / 2**128 (plus less than any continuation) < exp(-gamma)
        assert bool(got) == (a <= top)


def test_settle_near_a_laplace_boundary_against_mpmath() -> None:
    scale = Fraction(37, 10)
    table = ref.laplace_table(scale)
    with mpmath.workdps(200):
        p = mpmath.exp(-mpmath.mpf(10) / 37)
        for x in (-3, 0, 2):  # F(x) = p**-x / (1 + p) for x < 0, 1 - p**(x + 1) / (1 + p) for x >= 0
            f = p ** (-x) / (1 + p) if x < 0 else 1 - p ** (x + 1) / (1 + p)
            top = int(mpmath.floor(f * mpmath.mpf(2) ** 128))
            for a, want in ((top - 1, x), (top + 1, x + 1)):
                got = int(table.sample(1, _Words(a >> 64, a & ((1 << 64) - 1), 0, 0))[0])
                assert got == want


@pytest.mark.parametrize("make,cdf", [
    (lambda: ref.laplace_table(Fraction(37, 10)),
     lambda x, p: p ** (-x) / (1 + p) if x < 0 else 1 - p ** (x + 1) / (1 + p)),
])
def test_cdf_bounds_bracket_the_closed_form(make, cdf) -> None:
    table = make()
    with mpmath.workdps(120):
        p = mpmath.exp(-mpmath.mpf(10) / 37)
        for q in (96, 256):
            for x in (-400, -40, -1, 0, 1, 39, 10**7):
                lo, hi = table.cdf_bounds(x, q)
                f = cdf(x, p) * mpmath.mpf(2) ** q
                assert lo <= f <= hi
                assert hi - lo <= 8


def test_gaussian_cdf_bounds_bracket_the_sum() -> None:
    s2 = Fraction(10, 3)
    table = ref.gaussian_table(s2)
    with mpmath.workdps(120):
        w = [mpmath.exp(-mpmath.mpf(y) ** 2 * 3 / 20) for y in range(-60, 61)]
        z = mpmath.fsum(w)
        for q in (96, 200):
            for x in (-9, -1, 0, 3, 20):
                f = mpmath.fsum(w[: x + 61]) / z * mpmath.mpf(2) ** q
                lo, hi = table.cdf_bounds(x, q)
                assert lo <= f <= hi and hi - lo <= 8


def test_laplace_far_tail_bounds_bracket_the_closed_form() -> None:
    # a wide Laplace (scale 10**6, a small window): far boundaries come from the closed form
    table = ref._Laplace(Fraction(10**6), max_half=4)
    with mpmath.workdps(120):
        p = mpmath.exp(-mpmath.mpf(1) / 10**6)
        for x in (-3 * 10**6, 5 * 10**6):
            f = (p ** (-x) / (1 + p) if x < 0 else 1 - p ** (x + 1) / (1 + p)) * mpmath.mpf(2) ** 128
            lo, hi = table.cdf_bounds(x, 128)
            assert lo <= f <= hi and hi - lo <= 8

"""semiprivate.kernels.noise at wide and extreme parameters: exact laws without large tables, clear refusals.

A discrete Laplace wider than a direct table (scale above about 236) is drawn from small tables
(:class:`~semiprivate.kernels._reference_noise._LaplaceLarge`: a folded low part and the base-4096 digits
of a geometric); a discrete Gaussian wider than its table (sigma above about 7,900) by CKS20 Alg. 3
(:class:`~semiprivate.kernels._reference_noise._GaussianRejection`).  Chi-square tests over bins of
equal exact probability reject at ALPHA = 1e-6 per test (the false-failure rate over seeds; the seeds
are fixed); each law test also shows its power against a parameter 10% off.  Parameters of 10**+-400
are either handled exactly or refused with a ValueError naming the parameter and its range.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels.noise import bernoulli_exp, discrete_gaussian, discrete_laplace

ALPHA = 1e-6
BINS = 40


def _binned_pvalue(x: np.ndarray, cdf) -> float:
    """Chi-square of ``x`` over ``BINS`` bins cut at integer quantiles of the exact ``cdf`` (vectorised)."""
    lo, hi = int(x.min()), int(x.max())
    # integer cut points at the exact quantiles k / BINS (searched on a grid spanning the sample)
    grid = np.unique(np.linspace(lo - 1, hi, 20_001).astype(np.int64))
    F = cdf(grid)
    cuts = np.unique(grid[np.searchsorted(F, np.arange(1, BINS) / BINS)])
    p = np.diff(np.concatenate([[0.0], cdf(cuts), [1.0]]))
    counts = np.bincount(np.searchsorted(cuts, x, side="left"), minlength=p.size)
    keep = p * x.size >= 20
    obs = np.r_[counts[keep], counts[~keep].sum()]
    exp = np.r_[p[keep], p[~keep].sum()] * x.size
    if exp[-1] < 20:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


def _laplace_cdf(scale: float):
    p = math.exp(-1 / scale)

    def cdf(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return np.where(x < 0, np.exp(x / scale) / (1 + p), 1 - np.exp(-(x + 1) / scale) / (1 + p))
    return cdf


def _gaussian_cdf(sigma2: float):
    span = int(12 * math.sqrt(sigma2)) + 2
    ys = np.arange(-span, span + 1)
    w = np.exp(-(ys.astype(np.float64) ** 2) / (2 * sigma2))
    F = np.cumsum(w) / w.sum()

    def cdf(x: np.ndarray) -> np.ndarray:
        return F[np.clip(np.asarray(x) + span, 0, ys.size - 1)]
    return cdf


WIDE_SCALES = [Fraction(300), 1000.0, Fraction(50_000), 2e9]


def test_wide_scales_use_small_tables_only() -> None:
    for scale in WIDE_SCALES + [Fraction(2**50)]:
        table = ref.laplace_table(Fraction(scale))
        assert isinstance(table, ref._LaplaceLarge)
        assert max(part.L.size for part in table.parts) <= 2 * (1 << ref.LOW_BITS)
    assert isinstance(ref.laplace_table(Fraction(100)), ref._Laplace)


@pytest.mark.parametrize("scale", WIDE_SCALES)
def test_wide_discrete_laplace_matches_its_law(scale) -> None:
    x = discrete_laplace(scale, 200_000, rng=31)
    assert _binned_pvalue(x, _laplace_cdf(float(scale))) > ALPHA


@pytest.mark.parametrize("scale", [1000.0, 2e9])
def test_wide_laplace_test_rejects_a_scale_10_percent_off(scale) -> None:
    x = discrete_laplace(scale * 1.1, 200_000, rng=31)
    assert _binned_pvalue(x, _laplace_cdf(scale)) < ALPHA


def test_wide_laplace_pmf_near_zero_is_exact_in_shape() -> None:
    # the folded low part and the geometric meet at |x| = B + 1: no kink in the pmf there (ratio p per step)
    scale = 300.0
    x = discrete_laplace(scale, 400_000, rng=5)
    B = ref.laplace_table(Fraction(scale)).B  # 512: the least power of two >= scale
    assert (np.abs(x) > B).mean() > 0.1
    inner = np.abs(x)[(np.abs(x) >= B - 200) & (np.abs(x) <= B + 200)]
    pmf = lambda s: ref.discrete_laplace_pmf(Fraction(scale), s)  # noqa: E731
    ks = np.arange(B - 200, B + 201)
    exp = 2 * pmf(ks) * x.size
    counts = np.bincount(inner - (B - 200), minlength=ks.size)
    edges = np.linspace(0, ks.size, 11).astype(int)
    obs = np.add.reduceat(counts, edges[:-1])
    e = np.add.reduceat(exp, edges[:-1])
    assert stats.chisquare(obs, e * obs.sum() / e.sum()).pvalue > ALPHA


@pytest.mark.parametrize("sigma2", [Fraction(37, 10), 60.0])
def test_cks_alg3_matches_the_discrete_gaussian(sigma2) -> None:
    # Alg. 3 on its own at small sigma2 (few distinct coins: fast), against the exact pmf
    table = ref._GaussianRejection(Fraction(sigma2))
    x = table.sample(200_000, np.random.default_rng(32))
    assert _binned_pvalue(x, _gaussian_cdf(float(sigma2))) > ALPHA
    y = ref._GaussianRejection(Fraction(sigma2) * Fraction(11, 10)).sample(200_000, np.random.default_rng(32))
    assert _binned_pvalue(y, _gaussian_cdf(float(sigma2))) < ALPHA


def test_wide_discrete_gaussian_matches_its_law() -> None:
    sigma2 = 1e8
    assert isinstance(ref.gaussian_table(Fraction(sigma2)), ref._GaussianBuckets)
    x = discrete_gaussian(sigma2, 20_000, rng=33)
    assert _binned_pvalue(x, _gaussian_cdf(sigma2)) > ALPHA
    # power: 1.3 sigma2 is rejected at this sample size
    y = discrete_gaussian(sigma2 * 1.3, 20_000, rng=33)
    assert _binned_pvalue(y, _gaussian_cdf(sigma2)) < ALPHA


def test_part_bounds_bracket_their_closed_forms() -> None:
    scale = Fraction(300)
    with mpmath.workdps(150):
        p = mpmath.exp(-mpmath.mpf(1) / 300)
        B = 1 << ref.LOW_BITS
        low = ref._LowLaplace(scale, B)
        for q in (96, 256):
            for x in (-B - 1, -B, -B + 1, -5, -1, 0, 3, B - 1, B):
                if x < -B:
                    f = mpmath.mpf(0)
                elif x >= B:
                    f = mpmath.mpf(1)
                else:
                    d = -x - 1 if x < 0 else x
                    m = p * (p ** d - p ** B) / ((1 + p) * (1 - p ** B))
                    f = m if x < 0 else 1 - m
                lo, hi = low.cdf_bounds(x, q)
                assert lo <= f * mpmath.mpf(2) ** q <= hi and hi - lo <= 8
        e = Fraction(7, 5)
        geo, bit, digit = ref._Geometric(e), ref._TruncGeometric(e, 2), ref._TruncGeometric(e / 300, 256)
        r = mpmath.exp(-mpmath.mpf(7) / 5)
        for q in (96, 256):
            for x in (0, 1, 30, 500):
                lo, hi = geo.cdf_bounds(x, q)
                assert lo <= (1 - r ** (x + 1)) * mpmath.mpf(2) ** q <= hi and hi - lo <= 8
            lo, hi = bit.cdf_bounds(0, q)
            assert lo <= mpmath.mpf(2) ** q / (1 + r) <= hi and hi - lo <= 8
            r300 = mpmath.exp(-mpmath.mpf(7) / 1500)
            for k in (0, 1, 100, 254):
                lo, hi = digit.cdf_bounds(k, q)
                assert lo <= (1 - r300 ** (k + 1)) / (1 - r300 ** 256) * mpmath.mpf(2) ** q <= hi and hi - lo <= 8


def test_bucket_index_bounds_bracket_the_gaussian_sums() -> None:
    # _HalfGaussian: F(k) = 1 - T(k + 1) / T(0), T(j) = sum_{y >= j} exp(-c y**2), summed in mpmath
    c = Fraction(1024**2, 2 * 10**9)
    table = ref._HalfGaussian(c)
    with mpmath.workdps(150):
        cm = mpmath.mpf(c.numerator) / c.denominator
        terms = [mpmath.exp(-cm * y * y) for y in range(3000)]  # exp(-c 3000**2) < 10**-1900: the rest is nothing
        tail = [mpmath.fsum(terms[j:]) for j in range(0, 400)]
        for q in (96, 256):
            for k in (-1, 0, 1, 17, 130, 260, 399 - 1):
                f = mpmath.mpf(0) if k < 0 else 1 - tail[k + 1] / tail[0]
                lo, hi = table.cdf_bounds(k, q)
                assert lo <= f * mpmath.mpf(2) ** q <= hi and hi - lo <= 8


EXTREME = [Fraction(1, 10**400), Decimal("1e-400")]


@pytest.mark.parametrize("tiny", EXTREME)
def test_tiny_parameters_are_handled_exactly(tiny) -> None:
    # P[X != 0] = 2 p / (1 + p) with p = exp(-10**400): every draw is 0; likewise the Gaussian
    assert not discrete_laplace(tiny, 1000, rng=0).any()
    assert not discrete_gaussian(tiny, 1000, rng=0).any()
    assert bernoulli_exp(tiny, 1000, rng=0).all()  # exp(-10**-400) is 1 to 64 bits
    assert not bernoulli_exp(Fraction(10**400), 1000, rng=0).any()


@pytest.mark.parametrize("fn,name,top", [(discrete_laplace, "scale", 2**50), (discrete_gaussian, "sigma2", 2**100)])
def test_parameters_beyond_int64_samples_are_refused(fn, name, top) -> None:
    for bad in (Fraction(10**400), top + 1, Decimal("1e400")):
        with pytest.raises(ValueError, match=rf"{name} must be <= 2\*\*\d+"):
            fn(bad, rng=0)
    assert fn(top, 3, rng=0).shape == (3,)
    with pytest.raises(ValueError, match=f"{name} must be finite"):
        fn(Decimal("nan"), rng=0)


def _part_pmf(table) -> tuple[np.ndarray, np.ndarray]:
    """Values and probabilities of a closed-below table part, from its 64-bit CDF bounds (error ~2**-60)."""
    F = np.r_[0.0, table.L.astype(np.float64) / 2.0**64]
    if table.upper_closed:
        F = np.r_[F, 1.0]
    return table.xmin + np.arange(F.size - 1), np.diff(F)


def test_wide_laplace_parts_combine_to_the_exact_pmf() -> None:
    # every combination of the parts' values (low part, digits, top geometric) is mapped to one x,
    # and the product of the parts' probabilities is the discrete Laplace pmf at that x
    s = 10_000.0
    table = ref._LaplaceLarge(Fraction(s), low_bits=3, digit_bits=2)  # B = 8, D = 4: the same code, small parts
    assert table.K == 2  # the digits are exercised
    vals, probs = zip(*(_part_pmf(t) for t in table.parts))
    grids = np.meshgrid(*vals, indexing="ij")
    mass = np.ones(grids[0].shape)
    for axis, p in enumerate(probs):
        shape = [1] * len(probs)
        shape[axis] = p.size
        mass = mass * p.reshape(shape)
    x = table.combine([g.ravel().astype(np.int64) for g in grids])  # fresh arrays: combine reuses them
    m = mass.ravel()
    zero = grids[0].ravel() == 0  # Y = 0 gives x = 0 whatever the rest: its mass is P[Y = 0]
    p = math.exp(-1 / s)
    assert np.all(x[zero] == 0) and math.isclose(m[zero].sum(), -math.expm1(-1 / s) / (1 + p), rel_tol=1e-9)
    x, m = x[~zero], m[~zero]
    assert not (x == 0).any() and np.unique(x).size == x.size  # one-to-one elsewhere
    near = np.abs(x) <= 20_000  # well inside the enumerated range of the top geometric
    want = np.exp(-np.abs(x[near]) / s) * -math.expm1(-1 / s) / (1 + p)
    assert np.allclose(m[near], want, rtol=1e-9, atol=0)
    covered = np.zeros(40_001, dtype=bool)
    covered[x[near] + 20_000] = True
    covered[20_000] = True
    assert covered.all()  # every x in range is reached


def test_bucket_proposals_give_each_integer_the_gaussian_weight_once() -> None:
    # _GaussianBuckets' algebra, exactly: every (K, S, R) with K <= 40 gives a different integer, they cover
    # -W(K + 1) .. W(K + 1) - 1, each gamma >= 0, and c K**2 + gamma(x) = x**2 / (2 sigma2) (so the accepted
    # proposal has weight exp(-x**2 / (2 sigma2)) / (2 W T(0)) for every x)
    table = ref._GaussianBuckets(Fraction(3000))
    W, c = table.W, table.k_table.c
    assert W == 2
    seen = {}
    for k in range(41):
        for s in (0, 1):
            for r in range(W):
                x = table.value(k, s, r)
                assert x not in seen
                seen[x] = k
                g = table._gamma(x)
                assert g >= 0 and c * k * k + g == Fraction(x * x) / (2 * table.sigma2)
    assert sorted(seen) == list(range(-W * 41, W * 41))


@pytest.mark.parametrize("sigma2", [Fraction(3000), Fraction(77777, 3)])
def test_bucketed_gaussian_matches_the_discrete_gaussian(sigma2) -> None:
    table = ref._GaussianBuckets(Fraction(sigma2))
    x = table.sample(200_000, np.random.default_rng(34))
    assert _binned_pvalue(x, _gaussian_cdf(float(sigma2))) > ALPHA
    # power: a variance 5% too large is rejected at this sample size
    y = ref._GaussianBuckets(Fraction(sigma2) * Fraction(105, 100)).sample(200_000, np.random.default_rng(34))
    assert _binned_pvalue(y, _gaussian_cdf(float(sigma2))) < ALPHA


def test_wide_gaussians_use_buckets_up_to_the_largest_sigma2() -> None:
    for s2 in (10**9, 2**72 - 1, 2**72, 2**100):
        assert isinstance(ref.gaussian_table(Fraction(s2)), ref._GaussianBuckets)
    # the offset leaves the proposal word for a word of its own once a bucket is wider than 2**31
    assert ref.gaussian_table(Fraction(2**72 - 1)).wbits == 31 and ref.gaussian_table(Fraction(2**72 - 1)).n_words == 2
    assert ref.gaussian_table(Fraction(2**72)).wbits == 32 and ref.gaussian_table(Fraction(2**72)).n_words == 3
    assert ref.gaussian_table(Fraction(2**100)).wbits == 46
    with pytest.raises(ValueError, match="sigma"):
        ref._GaussianBuckets(Fraction(200))
    with pytest.raises(ValueError, match="sigma2 <= 2"):
        ref._GaussianBuckets(Fraction(2**100 + 1))
    with pytest.raises(ValueError, match="offsets"):
        ref._GaussianBuckets(Fraction(2**80)).proposals(np.zeros(2, dtype=np.uint64), np.random.default_rng(0))
    with pytest.raises(ValueError, match="offsets"):
        ref._GaussianBuckets(Fraction(10**9)).proposals(np.zeros(2, dtype=np.uint64), np.random.default_rng(0),
                                                        np.zeros(2, dtype=np.uint64))


def test_wide_bucket_proposals_give_each_integer_the_gaussian_weight() -> None:
    # the same algebra with buckets of 2**36 (sigma2 = 2**80), exactly, on random (K, S, R) and on the bucket edges
    table = ref._GaussianBuckets(Fraction(2**80))
    W, c = table.W, table.k_table.c
    assert W == 2**36
    g = np.random.default_rng(35)
    for k, sgn, r in [(0, 0, 0), (0, 1, W - 1), (0, 1, 0), (300, 0, W - 1), (300, 1, 0)] + [
            (int(g.integers(0, 400)), int(g.integers(0, 2)), int(g.integers(0, W))) for _ in range(200)]:
        x = table.value(k, sgn, r)
        assert x // W == (k if sgn == 0 else -k - 1) and x % W == r
        gam = table._gamma(x)
        assert gam >= 0 and c * k * k + gam == Fraction(x * x) / (2 * table.sigma2)
    with pytest.raises(OverflowError, match="int64"):
        table.value(table.k_limit, 0, 0)


def _normal_cdf(sigma2: float):
    # the discrete Gaussian's cdf at sigma >= 2**36 is the normal cdf at x + 1/2 far below this test's resolution
    sigma = math.sqrt(sigma2)
    return lambda x: stats.norm.cdf((np.asarray(x, dtype=np.float64) + 0.5) / sigma)


@pytest.mark.parametrize("sigma2", [2.0**72, 2.0**100])
def test_widest_discrete_gaussian_matches_its_law(sigma2) -> None:
    x = discrete_gaussian(sigma2, 200_000, rng=36)
    assert _binned_pvalue(x, _normal_cdf(sigma2)) > ALPHA
    # power: the same sample is rejected against a variance 5% off (2**100 is the largest sigma2 accepted)
    assert _binned_pvalue(x, _normal_cdf(sigma2 / 1.05)) < ALPHA
    assert _binned_pvalue(x, _normal_cdf(sigma2 * 1.05)) < ALPHA

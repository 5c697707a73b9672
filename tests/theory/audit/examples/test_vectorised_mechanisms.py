"""The benchmark mechanisms' vectorised responses equal the query-by-query algorithms they implement."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from semiprivate.theory.audit.examples import SVT, NumericalSVT, SVT34Parallel, laplace_noise


def _svt_loop(mech: SVT, noisy: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """Lyu et al. Algs. 1-6 query by query (dpsniper's loop), fixed threshold noise."""
    size, m = noisy.shape
    if mech.variant in (5, 6):
        return (noisy >= (rho + mech.t)[:, None]).astype(np.float64)
    below, aborted_code = (-1000.0, -2000.0) if mech.variant == 3 else (0.0, -1.0)
    out = np.empty((size, m))
    count = np.zeros(size)
    aborted = np.zeros(size, dtype=bool)
    for i in range(m):
        above = noisy[:, i] >= rho + mech.t
        out[:, i] = np.where(above, noisy[:, i] if mech.variant == 3 else 1.0, below)
        out[aborted, i] = aborted_code
        count += above
        aborted |= count == mech.c
    return out


@pytest.mark.parametrize("variant", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("c", [1, 2, 3])
def test_svt_response_equals_the_query_by_query_loop(variant: int, c: int) -> None:
    g = np.random.default_rng(10 * variant + c)
    mech = SVT(variant, c=c)
    a = np.array([1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 1.0, 1.0])
    noisy = a + g.laplace(0.0, 3.0, (5000, a.size))  # small scales: every count of aboves occurs
    rho = g.laplace(0.0, 1.0, 5000)
    if variant == 2 and c > 1:
        pytest.skip("Alg. 2 with c > 1 redraws its threshold noise: respond_redrawn is the loop itself")
    want = _svt_loop(mech, noisy, rho)
    np.testing.assert_array_equal(mech.respond(noisy, rho), want)
    if variant not in (5, 6):  # the test exercises aborts
        assert np.any(want == mech.codes()[1])


def test_svt2_with_one_above_has_the_law_of_fixed_threshold_noise() -> None:
    """c = 1: the redrawn noise is never compared again, so the vectorised path is Alg. 2 (same draws)."""
    mech = SVT(2, c=1)
    a = np.zeros(10)
    x = mech(a, 4000, np.random.default_rng(3))
    g = np.random.default_rng(3)
    rho_s, nu_s = mech.scales()
    rho = laplace_noise(g, rho_s, 4000)
    noisy = a + laplace_noise(g, nu_s, (4000, 10))
    np.testing.assert_array_equal(x, _svt_loop(mech, noisy, rho))


def test_numerical_svt_equals_the_query_by_query_loop() -> None:
    mech = NumericalSVT(eps=2.0)  # small noise: aborts happen
    a = np.array([1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 1.0, 1.0])
    got = mech(a, 3000, np.random.default_rng(5))
    g = np.random.default_rng(5)
    rho1 = laplace_noise(g, 3 / mech.eps, (3000, 1))
    cmp = a + laplace_noise(g, 6 * mech.c / mech.eps, (3000, a.size)) >= mech.t + rho1
    z = a + laplace_noise(g, 3 * mech.c / mech.eps, (3000, a.size))
    res = np.zeros((3000, a.size))
    count = np.zeros(3000)
    aborted = np.zeros(3000, dtype=bool)
    for i in range(a.size):
        res[cmp[:, i], i] = z[cmp[:, i], i]
        count += cmp[:, i]
        res[aborted, i] = -1000.0
        aborted |= count == mech.c
    np.testing.assert_array_equal(got, res)
    assert np.any(res == -1000.0)


def test_laplace_noise_has_the_laplace_law() -> None:
    """Kolmogorov-Smirnov against Lap(2) at level 1e-3 (false-failure rate 1e-3); a scale or sign
    error (Lap(2.1), or |Lap|) fails it."""
    x = laplace_noise(np.random.default_rng(0), 2.0, 200_000)
    assert stats.kstest(x, stats.laplace(scale=2.0).cdf).pvalue > 1e-3
    assert stats.kstest(x, stats.laplace(scale=2.1).cdf).pvalue < 1e-3
    assert stats.kstest(np.abs(x), stats.laplace(scale=2.0).cdf).pvalue < 1e-3
    assert laplace_noise(np.random.default_rng(0), 2.0, (3, 4)).shape == (3, 4)


def test_svt34_parallel_is_svt3_then_svt4_on_one_stream() -> None:
    """dpsniper's SVT34Parallel: Alg. 3's 10 columns, then Alg. 4's, drawn in that order from one generator
    (each half written in place, c = 2), every code of both present."""
    a = np.array([1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 1.0, 1.0])
    mech = SVT34Parallel(eps=2.0)
    got = mech(a, 4000, np.random.default_rng(8))
    g = np.random.default_rng(8)
    want = np.column_stack([SVT(3, 2.0, 2)(a, 4000, g), SVT(4, 2.0, 2)(a, 4000, g)])
    np.testing.assert_array_equal(got, want)
    assert {-1000.0, -2000.0} <= set(np.unique(got[:, :10])) and set(np.unique(got[:, 10:])) == {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("variant", [2, 3, 5])
def test_svt_writes_into_a_block_of_a_wider_output(variant: int) -> None:
    a = np.zeros(6)
    mech = SVT(variant, eps=1.0, c=2)
    wide = np.full((500, 9), 7.0)
    res = mech(a, 500, np.random.default_rng(2), out=wide[:, 2:8])
    assert np.shares_memory(res, wide)
    np.testing.assert_array_equal(wide[:, 2:8], mech(a, 500, np.random.default_rng(2)))
    assert np.all(wide[:, :2] == 7.0) and np.all(wide[:, 8:] == 7.0)

"""The sparse-vector examples with ``exact=True``: the exact discrete Laplace noise gives the integer-noise
SVT's exact output law; host generators only.

The law of SVT Alg. 1 with ``c = 1`` on integer queries is computed exactly from the discrete Laplace
pmfs (given the threshold noise ``rho``, query ``i`` is below iff ``nu_i <= ceil(rho + t - a_i) - 1``,
independently over ``i``; summed over ``rho``), and 200,000 runs are tested against it by chi-square at
ALPHA = 1e-6 (the false-failure rate over seeds; the seed is fixed).  Power: the same test rejects the
float-noise runs' law at this scale and a threshold noise of the wrong scale.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from semiprivate.theory.audit.examples import SVT, NumericalSVT, SVT34Parallel

ALPHA = 1e-6
N = 200_000


def _dlap_pmf(scale: float, xs: np.ndarray) -> np.ndarray:
    p = math.exp(-1 / scale)
    return -math.expm1(-1 / scale) / (1 + p) * np.exp(-np.abs(xs) / scale)


def _dlap_cdf(scale: float, xs: np.ndarray) -> np.ndarray:
    p = math.exp(-1 / scale)
    xs = np.asarray(xs, dtype=np.float64)
    return np.where(xs < 0, np.exp(xs / scale) / (1 + p), 1 - np.exp(-(xs + 1) / scale) / (1 + p))


def _svt1_law(mech: SVT, a: np.ndarray) -> np.ndarray:
    """P[first above at query k] for k = 0 .. m - 1, then P[no above] (Alg. 1, c = 1, integer queries)."""
    rho_s, nu_s = mech.scales()
    span = int(60 * rho_s)
    rho = np.arange(-span, span + 1)
    w = _dlap_pmf(rho_s, rho)
    below = np.stack([_dlap_cdf(nu_s, np.ceil(rho + mech.t - ai) - 1) for ai in a])  # P[below | rho]
    out, run = [], np.ones_like(w)
    for k in range(a.size):
        out.append(float(np.sum(w * run * (1 - below[k]))))
        run = run * below[k]
    out.append(float(np.sum(w * run)))
    return np.array(out)


def _cells(x: np.ndarray) -> np.ndarray:
    above = x == 1.0
    first = np.where(above.any(axis=1), above.argmax(axis=1), x.shape[1])
    return np.bincount(first, minlength=x.shape[1] + 1)


A = np.array([0.0, 1.0, 2.0, -1.0, 3.0, 0.0])


def test_exact_svt1_has_the_integer_noise_law() -> None:
    mech = SVT(1, eps=2.0, t=0.5, exact=True)
    x = mech(A, N, np.random.default_rng(41))
    assert set(np.unique(x)) <= {1.0, 0.0, -1.0}
    law = _svt1_law(mech, A)
    assert math.isclose(law.sum(), 1.0, abs_tol=1e-12)
    assert stats.chisquare(_cells(x), law * N).pvalue > ALPHA


@pytest.mark.parametrize("wrong", ["float noise", "threshold scale doubled"])
def test_the_law_test_rejects_other_laws(wrong: str) -> None:
    mech = SVT(1, eps=2.0, t=0.5, exact=True)
    if wrong == "float noise":
        x = SVT(1, eps=2.0, t=0.5)(A, N, np.random.default_rng(41))
    else:
        rho_s, nu_s = mech.scales()
        g = np.random.default_rng(41)
        from semiprivate.kernels.noise import discrete_laplace

        rho = discrete_laplace(2 * rho_s, N, rng=g).astype(np.float64)
        x = mech.respond(A + discrete_laplace(nu_s, (N, A.size), rng=g), rho)
    assert stats.chisquare(_cells(x), _svt1_law(mech, A) * N).pvalue < ALPHA


def test_exact_noise_is_integer_and_reproducible() -> None:
    a = np.zeros(10)
    for mech in (SVT(3, exact=True), SVT(2, c=2, exact=True), NumericalSVT(exact=True)):
        x, y = mech(a, 500, np.random.default_rng(3)), mech(a, 500, np.random.default_rng(3))
        np.testing.assert_array_equal(x, y)
    values = SVT(3, exact=True)(a, 2000, np.random.default_rng(4))  # Alg. 3 releases the noisy query
    released = values[(values != -1000.0) & (values != -2000.0)]
    assert released.size and np.all(released == np.round(released))
    assert SVT34Parallel(exact=True)(a, 100, np.random.default_rng(5)).shape == (100, 20)


def test_exact_noise_needs_a_host_generator() -> None:
    class NotNumpy:
        pass

    with pytest.raises(TypeError, match="numpy.random.Generator"):
        SVT(1, exact=True)(np.zeros(3), 10, NotNumpy())

"""Distribution tests of every exponential-mechanism sampler against the reference.

False-failure rate: every statistical assertion is made at level ``ALPHA = 1e-7`` (G-test
p-value, or a Clopper-Pearson bound), and each test function makes at most 10 of them, so
each test fails wrongly with probability <= 1e-6 (union bound).  Seeds are fixed.

Power: 100 000 draws per vector detect a relative error of a few percent in any category of
probability >= 0.01 (e.g. ``epsilon`` instead of ``epsilon / 2``, an off-by-one in the
chunk search, a dropped chunk, a wrong table entry) with overwhelming probability.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy import stats

import kernels
from kernels import exponential_log_probabilities, exponential_mechanism

ALPHA = 1e-7
N_DRAWS = 100_000

BACKENDS = [b for b in ("numpy", "cython") if b in kernels.available_backends()]


def _pool(e: np.ndarray, o: np.ndarray, min_expected: float) -> tuple[np.ndarray, np.ndarray]:
    """Greedy pooling of categories sorted by expected count: each group has expected >= min_expected."""
    ge: list[float] = []
    go: list[float] = []
    acc_e = acc_o = 0.0
    for ei, oi in zip(e.tolist(), o.tolist()):
        acc_e += ei
        acc_o += oi
        if acc_e >= min_expected:
            ge.append(acc_e)
            go.append(acc_o)
            acc_e = acc_o = 0.0
    if acc_e > 0 or acc_o > 0:  # the remainder joins the last group
        if ge:
            ge[-1] += acc_e
            go[-1] += acc_o
        else:
            ge.append(acc_e)
            go.append(acc_o)
    return np.array(ge), np.array(go)


def g_test_pvalue(counts: np.ndarray, probs: np.ndarray, min_expected: float = 20.0) -> float:
    """p-value of the G-test of ``counts`` against ``probs`` (Williams-corrected).

    Categories are sorted by expected count and pooled greedily (smallest first) into groups of
    expected count >= ``min_expected`` (so the chi-square approximation holds in the 1e-7 tail); Williams'
    correction ``q = 1 + (sum 1/p_i - 1) / (6 n (k - 1))`` removes the G statistic's O(1/n)
    mean bias.  A positive count in a zero-probability category gives 0.
    """
    counts = np.asarray(counts, dtype=np.float64)
    probs = np.asarray(probs, dtype=np.float64)
    n = counts.sum()
    if np.any(counts[probs == 0] > 0):
        return 0.0
    keep = probs > 0
    counts, probs = counts[keep], probs[keep] / probs[keep].sum()
    order = np.argsort(probs, kind="stable")
    exp, counts = probs[order] * n, counts[order]
    exp_g, cnt_g = _pool(exp, counts, min_expected)
    k = len(exp_g)
    if k < 2:
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(cnt_g > 0, cnt_g * np.log(cnt_g / exp_g), 0.0)
    g = 2.0 * terms.sum()
    q = 1.0 + (np.sum(n / exp_g) - 1.0) / (6.0 * n * (k - 1))
    return float(stats.chi2.sf(g / q, k - 1))


def assert_matches(samples: np.ndarray, probs: np.ndarray, label: str = "") -> None:
    counts = np.bincount(np.asarray(samples), minlength=len(probs))
    assert counts.shape[0] == len(probs), f"{label}: sample outside [0, N)"
    p = g_test_pvalue(counts, probs)
    assert p > ALPHA, f"{label}: G-test p-value {p:.3g} <= {ALPHA}; counts {counts[:10]}, probs {probs[:10]}"


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


I64 = np.iinfo(np.int64)
_R = np.random.default_rng(12345)

# (name, scores, epsilon, sensitivity)
VECTORS = [
    ("ties", np.zeros(50), 1.0, 1.0),
    ("one candidate", np.array([3.0]), 1.0, 1.0),
    ("+-1e300", np.array([1e300, -1e300, 1e300, 0.0, -1e300]), 1.0, 1.0),
    ("1e300 close", np.array([1e300, 1e300 - 2e284, 1e300 - 4e284]), 2.0, 1e284),
    ("all equal large", np.full(1000, 7.25), 1.0, 1.0),
    ("one dominating", np.r_[np.zeros(99), 20.0], 1.0, 1.0),
    ("spread", np.linspace(-30.0, 30.0, 257), 1.0, 1.0),
    ("float32", (_R.standard_normal(300) * 5).astype(np.float32), 1.0, 1.0),
    ("float32 1e30", np.array([3e38, -3e38, 3e38, 1e30], dtype=np.float32), 1.0, 1e38),
    ("error counts", -_R.binomial(100, 0.3, 500), 0.5, 1.0),
    ("int64 extremes", np.array([I64.min, I64.max, I64.max - 1, 0]), 1.0, 1.0),
    ("uint64 top", np.array([2**64 - 1, 2**64 - 2, 0, 2**64 - 3], dtype=np.uint64), 1.0, 1.0),
    ("int32", _R.integers(-5, 5, 200).astype(np.int32), 1.0, 1.0),
    ("uint8", _R.integers(0, 20, 200).astype(np.uint8), 0.7, 1.0),
    ("-inf entries", np.array([-np.inf, 0.0, 1.0, -np.inf, 2.0]), 1.0, 1.0),
    ("+inf entries", np.array([0.0, np.inf, 5.0, np.inf, -np.inf]), 1.0, 1.0),
    ("chunk boundaries", _R.integers(0, 6, 2048 * 3 + 5).astype(np.float64), 0.5, 1.0),
    ("chunk boundary int", np.r_[np.zeros(2047, np.int64), [30], np.zeros(2048, np.int64), [30]], 0.5, 1.0),
    ("chunk ramp", (np.arange(2048 * 6) // 2048) * 1.0 + _R.random(2048 * 6), 1.0, 1.0),
    ("chunk ramp int", (np.arange(2048 * 6 + 100) // 2048) * 2 - _R.integers(0, 3, 2048 * 6 + 100), 1.0, 1.0),
    ("int random chunks", _R.integers(0, 10, 2048 * 4 + 3), 1.0, 1.0),
    ("chunk ramp f32", ((np.arange(2048 * 5) // 2048) * 1.5 - _R.random(2048 * 5)).astype(np.float32), 1.0, 1.0),
    ("tiny epsilon", np.linspace(0, 100, 64), 1e-6, 1.0),
    ("huge epsilon", np.array([0.0, 1e-5, 2e-5, 2e-5]), 1e6, 1.0),
    ("underflow tail", np.r_[0.0, -np.arange(1, 200) * 10.0], 1.0, 1.0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,scores,eps,sens", VECTORS, ids=[v[0] for v in VECTORS])
def test_sampler_matches_reference(backend: str, name: str, scores: np.ndarray, eps: float, sens: float) -> None:
    """One G-test per (vector, backend) at level 1e-7, plus one by chunk for N > 2048 (<= 2e-7)."""
    probs = np.exp(exponential_log_probabilities(scores, eps, sensitivity=sens))
    draws = exponential_mechanism(scores, eps, sensitivity=sens, size=N_DRAWS, rng=7, backend=backend)
    assert draws.dtype == np.int64 and draws.shape == (N_DRAWS,)
    assert_matches(draws, probs, f"{name}/{backend}")
    if len(scores) > 2048:  # second G-test, aggregated by chunk of 2048: power against chunk-level errors
        block = np.arange(len(scores)) // 2048
        assert_matches(block[draws], np.bincount(block, weights=probs), f"{name}/{backend}/chunks")


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_draws_match_reference(backend: str) -> None:
    """size=None path: 4000 single draws vs the reference (one G-test, level 1e-7)."""
    scores = np.array([0.0, 1.0, 2.0, 3.0])
    probs = np.exp(exponential_log_probabilities(scores, 1.0))
    g = np.random.default_rng(3)
    draws = np.array([exponential_mechanism(scores, 1.0, rng=g, backend=backend) for _ in range(4000)])
    assert all(isinstance(int(d), int) for d in draws[:3])
    assert_matches(draws, probs, f"single/{backend}")


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_ten_million_candidates(dtype: type) -> None:
    """1e7 candidates (4883 chunks, parallel path): aggregated by score class and by region.

    Scores ``i % 7 + 3 ((i // 2048) % 4)`` (chunk maxima differ, so the chunk combination is
    exercised) with a few planted maxima near chunk and array ends; categories are (planted
    index) or (score class, first/second half).  One G-test at level 1e-7.
    """
    if "cython" not in BACKENDS:
        pytest.skip("compiled backend not built")
    N = 10_000_000
    i = np.arange(N)
    base = i % 7 + 3 * ((i // 2048) % 4)
    scores: np.ndarray = base.astype(dtype)
    planted = np.array([0, 2047, 2048, N // 2, N - 2, N - 1])
    scores[planted] = 30
    eps = 1.0
    logp = exponential_log_probabilities(scores, eps)
    p = np.exp(logp)
    cls = base + 16 * (i >= N // 2)
    cls[planted] = 32 + np.arange(len(planted))
    probs = np.bincount(cls, weights=p, minlength=32 + len(planted))
    draws = exponential_mechanism(scores, eps, size=200_000, rng=11, backend="cython")
    assert_matches(cls[draws], probs, f"1e7/{np.dtype(dtype).name}")
    assert 1 <= kernels._exponential.cython_threads() <= 64


RATIONAL_VECTORS: list[tuple[str, np.ndarray, Any, Any]] = [
    ("ints", np.array([0, 1, 2, 2, -5]), Fraction(1), Fraction(1)),
    ("third", np.array([3, 0, -7, 3, 1]), Fraction(1, 3), Fraction(1)),
    ("float eps", np.array([10, 12, 11, 0]), 0.1, 1.0),
    ("big gap", np.array([0, 60, 59, -1000, 10**12]), Fraction(1), Fraction(1)),
    ("wide range", np.arange(-200, 1) * 3, Fraction(7, 50), Fraction(3, 2)),
    ("float ints +-inf", np.array([2.0, -np.inf, 0.0, 1.0]), Fraction(2), Fraction(1)),
]


@pytest.mark.parametrize("name,scores,eps,sens", RATIONAL_VECTORS, ids=[v[0] for v in RATIONAL_VECTORS])
def test_exact_sampler_matches_reference(name: str, scores: np.ndarray, eps: Any, sens: Any) -> None:
    """exact=True vs the reference probabilities: one G-test at level 1e-7 on 100 000 draws."""
    probs = np.exp(exponential_log_probabilities(scores, float(eps), sensitivity=float(sens)))
    draws = exponential_mechanism(scores, eps, sensitivity=sens, size=100_000, rng=5, exact=True)
    assert_matches(draws, probs, f"exact/{name}")


SAMPLERS = [*((b, False) for b in BACKENDS), ("numpy", True)]


@pytest.mark.parametrize("backend,exact", SAMPLERS, ids=[f"{b}{'-exact' if e else ''}" for b, e in SAMPLERS])
def test_privacy_ratio_empirical(backend: str, exact: bool) -> None:
    """Empirical privacy ratio for the worst neighbouring pair.

    ``q = (0, 3, 3, 3, 3)``, ``q' = q + Delta e_0 - Delta (1 - e_0)``: output 0 gains the
    most (true ratio ``P'[0]/P[0] = 2.50 = 0.92 e^eps``).  With 200 000 draws from each side,
    the Clopper-Pearson (1 - 1e-7) bounds must satisfy ``lower(P'[0]) / upper(P[0]) <= e^eps``
    and ``lower(P[j]) / upper(P'[j]) <= e^eps``; each of the 4 checks fails wrongly with
    probability <= 1e-7.  A sampler using ``exp(eps q)`` (no factor 1/2) fails them.
    """
    eps = 1.0
    q = np.array([0, 3, 3, 3, 3])
    qp = q - 1
    qp[0] = q[0] + 1
    n = 200_000 if not exact else 20_000
    a = np.bincount(exponential_mechanism(q, eps, size=n, rng=21, backend=backend, exact=exact), minlength=5)
    b = np.bincount(exponential_mechanism(qp, eps, size=n, rng=22, backend=backend, exact=exact), minlength=5)
    for j in (0, 1, 2, 4):
        lo_a, hi_a = clopper_pearson(int(a[j]), n, ALPHA)
        lo_b, hi_b = clopper_pearson(int(b[j]), n, ALPHA)
        assert max(lo_b / hi_a, lo_a / hi_b) <= math.exp(eps), (j, a, b)
    # and the true ratio is reached: the bound is not vacuous (power check at the same level)
    lo_b0, _ = clopper_pearson(int(b[0]), n, ALPHA)
    _, hi_a0 = clopper_pearson(int(a[0]), n, ALPHA)
    assert lo_b0 / hi_a0 > math.exp(eps) * (0.6 if exact else 0.8)

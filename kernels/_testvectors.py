"""Test support shared by several test files: adversarial score vectors and the G-test used to
check every exponential-mechanism sampler, and the low-rank data of the PCA tests.

One place for what the statistical tests (``tests/kernels/exponential/test_output_distribution.py``), the
GPU tests (``tests/kernels/exponential/test_cupy_sampler.py``) and the report section
(``theory/report/sections/exponential.py``) all need: the score vectors that stress the
samplers (ties, huge magnitudes, +-inf, every integer dtype, chunk boundaries, extreme
epsilon) and a Williams-corrected G-test of draws against the exact probabilities.  The PCA
tests (``tests/kernels/pca/test_decomposition.py``, ``test_cupy.py``, ``test_cupy_streaming_standin.py``) share
:func:`low_rank` (their accuracy measure is :func:`semiprivate.kernels._reference_pca.subspace_distance`).

Implements: test support for EXPMECH (``python -m semiprivate spec EXPMECH``) and PCA (HPSY.Thm3 / PILLAR.Alg1
step 1).  NumPy and SciPy only (no theory import, no CuPy).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["score_vectors", "pool_categories", "g_test_pvalue", "low_rank"]


def score_vectors(chunk: int = 2048, seed: int = 12345) -> list[tuple[str, np.ndarray, float, float]]:
    """The adversarial score vectors: ``(name, scores, epsilon, sensitivity)``.

    ``chunk`` is the sampler's chunk size (2048 for Cython, 4096 for CuPy): the "chunk ..."
    vectors straddle its boundaries.  ``seed`` fixes the random ones.

    >>> [v[0] for v in score_vectors()][:3]
    ['ties', 'one candidate', '+-1e300']
    """
    r = np.random.default_rng(seed)
    i64 = np.iinfo(np.int64)
    c = int(chunk)
    return [
        ("ties", np.zeros(50), 1.0, 1.0),
        ("one candidate", np.array([3.0]), 1.0, 1.0),
        ("+-1e300", np.array([1e300, -1e300, 1e300, 0.0, -1e300]), 1.0, 1.0),
        ("1e300 close", np.array([1e300, 1e300 - 2e284, 1e300 - 4e284]), 2.0, 1e284),
        ("all equal large", np.full(1000, 7.25), 1.0, 1.0),
        ("one dominating", np.r_[np.zeros(99), 20.0], 1.0, 1.0),
        ("spread", np.linspace(-30.0, 30.0, 257), 1.0, 1.0),
        ("float32", (r.standard_normal(300) * 5).astype(np.float32), 1.0, 1.0),
        ("float32 1e30", np.array([3e38, -3e38, 3e38, 1e30], dtype=np.float32), 1.0, 1e38),
        ("error counts", -r.binomial(100, 0.3, 500), 0.5, 1.0),
        ("int64 extremes", np.array([i64.min, i64.max, i64.max - 1, 0]), 1.0, 1.0),
        ("uint64 top", np.array([2**64 - 1, 2**64 - 2, 0, 2**64 - 3], dtype=np.uint64), 1.0, 1.0),
        ("int32", r.integers(-5, 5, 200).astype(np.int32), 1.0, 1.0),
        ("uint8", r.integers(0, 20, 200).astype(np.uint8), 0.7, 1.0),
        ("-inf entries", np.array([-np.inf, 0.0, 1.0, -np.inf, 2.0]), 1.0, 1.0),
        ("+inf entries", np.array([0.0, np.inf, 5.0, np.inf, -np.inf]), 1.0, 1.0),
        ("chunk boundaries", r.integers(0, 6, c * 3 + 5).astype(np.float64), 0.5, 1.0),
        ("chunk boundary int", np.r_[np.zeros(c - 1, np.int64), [30], np.zeros(c, np.int64), [30]], 0.5, 1.0),
        ("chunk ramp", (np.arange(c * 6) // c) * 1.0 + r.random(c * 6), 1.0, 1.0),
        ("chunk ramp int", (np.arange(c * 6 + 100) // c) * 2 - r.integers(0, 3, c * 6 + 100), 1.0, 1.0),
        ("int random chunks", r.integers(0, 10, c * 4 + 3), 1.0, 1.0),
        ("chunk ramp f32", ((np.arange(c * 5) // c) * 1.5 - r.random(c * 5)).astype(np.float32), 1.0, 1.0),
        ("tiny epsilon", np.linspace(0, 100, 64), 1e-6, 1.0),
        ("huge epsilon", np.array([0.0, 1e-5, 2e-5, 2e-5]), 1e6, 1.0),
        ("underflow tail", np.r_[0.0, -np.arange(1, 200) * 10.0], 1.0, 1.0),
    ]


def pool_categories(e: np.ndarray, o: np.ndarray, min_expected: float) -> tuple[np.ndarray, np.ndarray]:
    """Greedy pooling of categories (sorted by expected count): each group has expected >= min_expected.

    >>> pool_categories(np.array([1.0, 1.0, 5.0, 6.0]), np.array([0.0, 2.0, 5.0, 6.0]), 2.0)
    (array([2., 5., 6.]), array([2., 5., 6.]))
    """
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

    Categories are sorted by expected count and pooled greedily (smallest first) into groups
    of expected count >= ``min_expected`` (so the chi-square approximation holds in the 1e-7
    tail); Williams' correction ``q = 1 + (sum 1/p_i - 1) / (6 n (k - 1))`` removes the G
    statistic's O(1/n) mean bias.  A positive count in a zero-probability category gives 0.

    >>> g_test_pvalue(np.array([5000, 5000]), np.array([0.5, 0.5]))
    1.0
    >>> g_test_pvalue(np.array([1, 9]), np.array([1.0, 0.0]))
    0.0
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
    exp_g, cnt_g = pool_categories(exp, counts, min_expected)
    k = len(exp_g)
    if k < 2:
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(cnt_g > 0, cnt_g * np.log(cnt_g / exp_g), 0.0)
    g = 2.0 * terms.sum()
    q = 1.0 + (np.sum(n / exp_g) - 1.0) / (6.0 * n * (k - 1))
    return float(stats.chi2.sf(g / q, k - 1))


def low_rank(n: int, d: int, r: int, *, seed: int, mean_scale: float = 3.0, noise: float = 0.01) -> np.ndarray:
    """``n`` points near an ``r``-dimensional subspace of R^d with a clear spectrum (standard
    deviations 10, 10/2, 10/3, ... along a random orthonormal basis), plus isotropic noise of
    standard deviation ``noise`` and a common mean of scale ``mean_scale``.

    >>> low_rank(5, 3, 2, seed=0).shape
    (5, 3)
    """
    g = np.random.default_rng(seed)
    basis = np.linalg.qr(g.standard_normal((d, r)))[0]
    scales = 10.0 / np.arange(1, r + 1)
    Z = g.standard_normal((n, r)) * scales
    return np.asarray(Z @ basis.T + noise * g.standard_normal((n, d)) + mean_scale * g.standard_normal(d))

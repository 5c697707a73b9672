"""EXPMECH and Structured EXPMECH: exact distributions, sampling, structured == brute force."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare
from semiprivate.theory.classes import Intervals, Thresholds
from semiprivate.theory.privacy.exponential import (
    error_counts_of,
    interval_log_normalizer,
    log_output_distribution,
    output_distribution,
    sample,
    structured_interval_log_probability,
    structured_interval_mechanism,
    structured_threshold_log_probability,
    structured_threshold_mechanism,
    threshold_cells,
)

# False-failure rate of each chi-square test below: 1e-3 (p-value threshold), fixed seeds.
P_MIN = 1e-3


def test_exact_distribution_ratios_and_utility():
    errors = np.array([0, 1, 3, 3, 10])
    eps = 0.8
    p = output_distribution(errors, eps)
    assert p.sum() == pytest.approx(1.0)
    assert p[0] / p[1] == pytest.approx(math.exp(eps / 2))
    # BNS15 Prop A.1: P[errors > e_min + Delta m] <= |H| exp(-eps Delta m / 2)
    for gap in (1, 2, 5):
        assert p[errors > gap].sum() <= len(errors) * math.exp(-eps * gap / 2)


def test_sampling_matches_exact_distribution():
    errors = np.array([0, 1, 2, 2, 5])
    draws = np.asarray(sample(errors, 1.0, size=40000, rng=7))
    counts = np.bincount(draws, minlength=5)
    assert chisquare(counts, 40000 * output_distribution(errors, 1.0)).pvalue > P_MIN


def test_sampling_detects_a_wrong_epsilon():
    """Power: the same test rejects samples drawn with epsilon 1.3 instead of 1.0."""
    errors = np.array([0, 1, 2, 2, 5])
    draws = np.asarray(sample(errors, 1.3, size=40000, rng=7))
    counts = np.bincount(draws, minlength=5)
    assert chisquare(counts, 40000 * output_distribution(errors, 1.0)).pvalue < P_MIN


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 1)), min_size=1, max_size=9),
       st.floats(0.1, 3.0))
def test_structured_equals_brute_force_small_d(data, eps):
    X = [x for x, _ in data]
    y = [v for _, v in data]
    T, Iv = Thresholds(4), Intervals(4)
    for cls, logp in ((T, structured_threshold_log_probability), (Iv, structured_interval_log_probability)):
        H = cls.hypotheses()
        exact = log_output_distribution(error_counts_of(cls.evaluate_many(H, X), y), eps)
        got = np.array([logp(h, X, y, eps, 4) for h in H])
        np.testing.assert_allclose(got, exact, rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["threshold", "interval"])
def test_structured_sampler_matches_brute_force(which):
    """8,000 draws of the seed-11 stream against the brute-force law (chi-square, P_MIN).  The first draws go
    through the public function; the rest through the same function without its seed-record wrapper
    (``__wrapped__``: the same validation and sampler, without the per-call release bookkeeping, which is ~2/3 of
    a call here), after checking that both give the same draws from the same stream, so the 8,000 draws are the
    stream's first 8,000 public draws."""
    X, y, eps, d = [2, 5, 5, 9, 13], [1, 1, 0, 0, 1], 0.9, 4
    cls = Thresholds(d) if which == "threshold" else Intervals(d)
    mech = structured_threshold_mechanism if which == "threshold" else structured_interval_mechanism
    H = cls.hypotheses()
    p = output_distribution(error_counts_of(cls.evaluate_many(H, X), y), eps)
    n, n_public = 8000, 100
    rng_public, rng_inner = np.random.default_rng(11), np.random.default_rng(11)
    public = [mech(X, y, eps, d, rng=rng_public) for _ in range(n_public)]
    inner = [mech.__wrapped__(X, y, eps, d, rng=rng_inner) for _ in range(n_public)]
    assert inner == public  # the wrapper draws nothing and changes nothing: same stream, same draws
    c = Counter(public + [mech.__wrapped__(X, y, eps, d, rng=rng_inner) for _ in range(n - n_public)])
    index = {h: i for i, h in enumerate(H)}
    counts = np.zeros(len(H))
    for h, k in c.items():
        counts[index[h]] += k
    assert counts.sum() == n
    assert _pooled_chisquare(counts, n * p) > P_MIN


def _pooled_chisquare(counts, expected):
    """Chi-square p-value after pooling the categories with expected count < 5 into one."""
    small = expected < 5
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    return chisquare(obs[keep], exp[keep]).pvalue


def test_structured_d64_cells_are_exact():
    X = [0, 2**64 - 1, 2**63, 2**63]
    y = [1, 0, 1, 0]
    cells = threshold_cells(X, y, 1.0, 64)
    assert sum(cells["size"]) == 2**64 + 1  # every threshold in exactly one cell
    assert cells["lo"][0] == 0 and cells["hi"][-1] == 2**64
    t = structured_threshold_mechanism(X, y, 1.0, 64, rng=0)
    assert 0 <= t <= 2**64
    h = structured_interval_mechanism(X, y, 1.0, 64, rng=1)
    assert h is None or 0 <= h[0] <= h[1] < 2**64
    assert math.isfinite(interval_log_normalizer(X, y, 1.0, 64))


def test_structured_interval_total_count():
    """With epsilon -> tiny, the normaliser is ~ log(number of intervals) = log(N(N+1)/2 + 1)."""
    d = 10
    N = 2**d
    val = interval_log_normalizer([3, 700], [1, 0], 1e-12, d)
    assert val == pytest.approx(math.log(N * (N + 1) // 2 + 1), abs=1e-6)


def test_structured_neighbouring_ratio_bounded():
    X, y = [1, 4, 4, 9, 12], [1, 1, 0, 0, 1]
    Xn, yn = [1, 4, 4, 9, 3], [1, 1, 0, 0, 0]  # last example replaced
    eps = 0.7
    for H, f in ((Thresholds(4).hypotheses(), structured_threshold_log_probability),
                 (Intervals(4).hypotheses(), structured_interval_log_probability)):
        diff = [abs(f(h, X, y, eps, 4) - f(h, Xn, yn, eps, 4)) for h in H]
        assert max(diff) <= eps + 1e-12


@pytest.mark.parametrize(
    "X,y,exc",
    [([1, 2], [1, 2], ValueError), ([1, 2], [1], ValueError), ([-1], [1], ValueError),
     ([2**64], [1], ValueError), ([1.5], [0], ValueError), (["a"], [0], TypeError)],
)
def test_bad_input(X, y, exc):
    with pytest.raises(exc):
        structured_threshold_mechanism(X, y, 1.0, 64, rng=0)


def test_bad_parameters():
    with pytest.raises(ValueError):
        structured_threshold_mechanism([1], [1], 1.0, 65)
    with pytest.raises(ValueError):
        structured_interval_mechanism([1], [1], -1.0, 8)
    with pytest.raises(ValueError):
        error_counts_of(np.ones((2, 3), dtype=bool), [0, 1])


@pytest.mark.parametrize(
    "P,y,exc,name",
    [([[0.5, 0]], [1, 0], TypeError, "predictions"), ([[2, 0]], [1, 0], ValueError, "predictions"),
     ([[1, 0]], [2, 0], ValueError, "labels"), ([[1, 0]], [1.0, 0.0], TypeError, "labels"),
     ([[1, 0]], [1, 0, 1], ValueError, "labels")],
)
def test_error_counts_of_rejects_non_binary_input(P, y, exc, name):
    """[[0.5, 0]] was cast to [[True, False]]; the one 0/1 rule (kernels check_binary) applies."""
    with pytest.raises(exc, match=name):
        error_counts_of(P, y)


def test_one_binary_rule_for_kernels_and_theory():
    """The kernel and the theory wrappers share one checker: same verdicts on the same input."""
    from semiprivate import kernels

    for P, y in [([[0.5, 0]], [1, 0]), ([[1, 0]], [1.0, 0.0]), ([[3, 0]], [1, 0]), ([[1, 0]], [-1, 0])]:
        with pytest.raises((TypeError, ValueError)) as e1:
            kernels.error_counts(np.asarray(P), np.asarray(y))
        with pytest.raises((TypeError, ValueError)) as e2:
            error_counts_of(P, y)
        assert e1.type is e2.type
    assert error_counts_of([[1, 0], [0, 0]], np.array([1, 1], dtype=np.uint8)).tolist() == [1, 2]

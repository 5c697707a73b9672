"""semiprivate.theory.privacy.sanitizers: the noisy histogram's clipping/normalisation (including the all-clipped
fallback to uniform weights), the support it returns, seeded runs, and privacy_ after a BLR draw.
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy.sanitizers import BLRSanitizer, NoisyHistogramSanitizer
from semiprivate.theory.privacy.seeds import separate_seed_record


def _first_seed(cond, eps: float, X: list[int], size: int):  # type: ignore[no-untyped-def]
    for s in range(10_000):
        S = NoisyHistogramSanitizer(eps, domain_size=size, rng=s)
        S.sanitize(X)
        if cond(np.maximum(S.noisy_counts_, 0.0).sum()):
            return s
    raise AssertionError("no seed found")


def test_weights_are_the_clipped_normalised_noisy_counts() -> None:
    S = NoisyHistogramSanitizer(1.0, domain_size=16, rng=3)
    support = S.sanitize([1, 1, 2, 9])
    clipped = np.maximum(S.noisy_counts_, 0.0)
    assert np.allclose(S.weights_, clipped / clipped.sum())
    assert np.array_equal(support, np.flatnonzero(clipped > 0)) and 0 < len(support) < 16
    assert S.privacy_ == (1.0, 0.0)
    # the noise is the discrete Laplace of scale 2/eps around the true counts (integers): seeded runs repeat,
    # fresh draws differ
    assert S.noisy_counts_.dtype == np.int64
    T = NoisyHistogramSanitizer(1.0, domain_size=16, rng=3)
    T.sanitize([1, 1, 2, 9])
    assert np.array_equal(T.noisy_counts_, S.noisy_counts_)
    g = np.random.default_rng(3)
    U = NoisyHistogramSanitizer(1.0, domain_size=16, rng=g)
    U.sanitize([1, 1, 2, 9])
    first = U.noisy_counts_.copy()
    U.sanitize([1, 1, 2, 9])
    assert np.array_equal(first, S.noisy_counts_) and not np.array_equal(U.noisy_counts_, first)


def test_all_clipped_gives_uniform_weights_and_small_totals_normalise() -> None:
    s0 = _first_seed(lambda t: t == 0, 0.2, [0], 2)
    S = NoisyHistogramSanitizer(0.2, domain_size=2, rng=s0)
    assert S.sanitize([0]).tolist() == [0, 1]
    assert S.weights_.tolist() == [0.5, 0.5]
    s1 = _first_seed(lambda t: t == 1, 0.2, [0], 2)  # integer noisy counts: the smallest positive total
    S = NoisyHistogramSanitizer(0.2, domain_size=2, rng=s1)
    S.sanitize([0])
    clipped = np.maximum(S.noisy_counts_, 0.0)
    assert np.allclose(S.weights_, clipped / clipped.sum()) and S.weights_.sum() == 1.0


def test_blr_reports_privacy_of_the_draw_and_uses_its_rng() -> None:
    Q = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], dtype=bool)
    B = BLRSanitizer(0.9, predicates=Q, size=2, rng=5)
    out = B.sanitize([0, 1, 1, 2])
    assert B.privacy_ == (0.9, 0.0)
    draws = [tuple(BLRSanitizer(0.9, predicates=Q, size=2, rng=7).sanitize([0, 1, 1, 2])) for _ in range(3)]
    assert len(set(draws)) == 1 and out.shape == (2,)
    g = np.random.default_rng(11)
    B2 = BLRSanitizer(0.9, predicates=Q, size=2, rng=g)
    seq = [tuple(B2.sanitize([0, 1, 1, 2])) for _ in range(40)]
    assert len(set(seq)) > 1  # one generator, advancing


def test_points_are_checked_and_named() -> None:
    S = NoisyHistogramSanitizer(1.0, domain_size=8, rng=0)
    with pytest.raises(TypeError, match="^X must be an array of domain indices, got NoneType$"):
        S.sanitize(None)
    with pytest.raises(TypeError, match="^X must be an array of domain indices, got str$"):
        S.sanitize("abc")
    with pytest.raises(TypeError, match="^X must hold integer domain indices, got dtype float64$"):
        S.sanitize([0.5, 1.0])
    T = NoisyHistogramSanitizer(1.0, domain_size=8, rng=4)
    U = NoisyHistogramSanitizer(1.0, domain_size=8, rng=4)
    T.sanitize([1.0, 2.0, 2.0])  # integer-valued floats are the same indices
    with separate_seed_record():  # the same seed on purpose: equal inputs give equal draws
        U.sanitize([1, 2, 2])
    assert np.array_equal(T.noisy_counts_, U.noisy_counts_)
    with pytest.raises(ValueError, match=r"^X must hold indices in \[0, 8\); some entry is outside$"):  # no value echoed
        S.sanitize([0, 8])


# --- DyadicThresholdSanitizer: the top-down sampler's law given the noisy tree ------------------------


def _dyadic_exact_law(X: list[int], d: int, noise: dict[tuple[int, int], float]) -> np.ndarray:
    """P[output = x] for every x in X_d given the noise of the nodes (the docstring's rule: go to child b
    with probability max(count_b + noise_b, 0) / (sum over both children), 1/2 each when that sum is
    <= 0), counts by brute force over X; every node reached with positive probability must have both
    children's noise in ``noise`` (asserted)."""
    x = np.asarray(X, dtype=np.int64)

    def weight(level: int, prefix: int) -> float:
        return max(float(np.sum((x >> (d - level)) == prefix)) + noise[(level, prefix)], 0.0)

    law = np.zeros(2**d)

    def walk(level: int, prefix: int, mass: float) -> None:
        if level == d:
            law[prefix] += mass
            return
        assert (level + 1, 2 * prefix) in noise and (level + 1, 2 * prefix + 1) in noise, (level, prefix)
        w0, w1 = weight(level + 1, 2 * prefix), weight(level + 1, 2 * prefix + 1)
        p1 = 0.5 if w0 + w1 <= 0 else w1 / (w0 + w1)
        for bit, pb in ((0, 1.0 - p1), (1, p1)):
            if pb > 0:
                walk(level + 1, 2 * prefix + bit, mass * pb)

    walk(0, 0, 1.0)
    return law


def test_dyadic_output_follows_the_noisy_tree_of_its_run() -> None:
    """Given the noise of its run (observed through the table the run fills, which is not kept after it), the
    20,000 synthetic points are i.i.d. from the top-down rule (lazy noise is a reordering of the stream, so
    conditioning on the table leaves the paths i.i.d.): a binomial test per leaf, Bonferroni over the 8 leaves,
    false-failure rate 1e-4.  At eps 0.5 (scale 12) the tree has nodes whose two children are both clipped to
    0 (the uniform branch), nodes with one child clipped, and nodes with two positive children of different
    weights, each of which changes the law when mishandled."""
    from scipy.stats import binomtest
    from semiprivate.theory.privacy.sanitizers import DyadicThresholdSanitizer

    tables: list[dict[tuple[int, int], int]] = []

    class Observed(DyadicThresholdSanitizer):
        @staticmethod
        def _noise_table() -> dict[tuple[int, int], int]:
            tables.append({})
            return tables[-1]

    X = [0, 0, 1, 5, 5, 5, 7, 7, 6]
    S = Observed(0.5, d=3, size=20_000, rng=256)
    out = S.sanitize(np.array(X, np.uint64))
    assert not hasattr(S, "noise_") and len(tables) == 1
    noise = tables[0]
    law = _dyadic_exact_law(X, 3, noise)
    assert law.sum() == pytest.approx(1.0)
    counts = np.bincount(out.astype(np.int64), minlength=8)
    for v in range(8):
        if law[v] == 0:
            assert counts[v] == 0, v
        else:
            assert binomtest(int(counts[v]), 20_000, law[v]).pvalue > 1e-4 / 8, (v, counts[v], law[v])
    # the cases the rule distinguishes occur at sibling pairs this tree reaches with probability >= 0.02
    reach = {(0, 0): 1.0}
    cases = set()
    for lv in range(3):
        for q in range(2**lv):
            r = reach.get((lv, q), 0.0)
            if r < 0.02:
                continue
            w0, w1 = (max(float(np.sum((np.array(X) >> (2 - lv)) == c)) + noise[(lv + 1, c)], 0.0)
                      for c in (2 * q, 2 * q + 1))
            cases |= {"both clipped"} if w0 + w1 == 0 else set()
            cases |= {"one clipped"} if (w0 == 0) != (w1 == 0) else set()
            cases |= {"both positive, unequal"} if w0 > 0 and w1 > 0 and w0 != w1 else set()
            p1 = 0.5 if w0 + w1 <= 0 else w1 / (w0 + w1)
            reach[(lv + 1, 2 * q)], reach[(lv + 1, 2 * q + 1)] = r * (1 - p1), r * p1
    assert cases == {"both clipped", "one clipped", "both positive, unequal"}, cases


def test_dyadic_counts_use_each_nodes_own_interval_at_d8() -> None:
    """With eps = 1e6 (noise scale 1.6e-5) the synthetic points are the data's points in the data's
    proportions: 3/4 at x = 3 and 1/4 at x = 200 (upper half of X_8, so nodes with right end
    >= 128 are counted); binomial test, false-failure rate 1e-4."""
    from scipy.stats import binomtest
    from semiprivate.theory.privacy.sanitizers import DyadicThresholdSanitizer

    S = DyadicThresholdSanitizer(1e6, d=8, size=4000, rng=0)
    out = S.sanitize(np.array([3, 3, 3, 200], np.uint64))
    assert set(np.unique(out).tolist()) <= {3, 200}
    assert binomtest(int((out == 200).sum()), 4000, 0.25).pvalue > 1e-4


def test_dyadic_is_seeded_and_names_X() -> None:
    from semiprivate.theory.privacy.sanitizers import DyadicThresholdSanitizer

    X = np.array([1, 2, 9, 9], np.uint64)
    a = DyadicThresholdSanitizer(1.0, d=4, size=30, rng=5).sanitize(X)
    b = DyadicThresholdSanitizer(1.0, d=4, size=30, rng=5).sanitize(X)
    c = DyadicThresholdSanitizer(1.0, d=4, size=30, rng=6).sanitize(X)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    with pytest.raises(ValueError, match=r"^X must lie in X_d"):
        DyadicThresholdSanitizer(1.0, d=4, size=3, rng=0).sanitize([16])


def test_points_empty_and_column_input() -> None:
    S = NoisyHistogramSanitizer(1.0, domain_size=8, rng=0)
    with pytest.raises(ValueError, match="^X must not be empty$"):
        S.sanitize([])
    T = NoisyHistogramSanitizer(1.0, domain_size=8, rng=4)
    T.sanitize(np.array([[1], [2], [2]]))  # a column of indices is the same points
    U = NoisyHistogramSanitizer(1.0, domain_size=8, rng=4)
    with separate_seed_record():  # the same seed on purpose: equal inputs give equal draws
        U.sanitize([1, 2, 2])
    assert np.array_equal(T.noisy_counts_, U.noisy_counts_)

"""theory.privacy.sanitizers: behaviour the mutation run showed untested (scripts/mutation.sh):
the noisy histogram's clipping/normalisation (including the all-clipped fallback to uniform
weights), the support it returns, seeded runs, and privacy_ after a BLR draw.
"""

from __future__ import annotations

import numpy as np

from theory.privacy.sanitizers import BLRSanitizer, NoisyHistogramSanitizer


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
    # the noise is Laplace(2/eps) around the true counts: seeded runs repeat, fresh draws differ
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
    s1 = _first_seed(lambda t: 0 < t < 1, 0.2, [0], 2)
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
    import pytest

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
    U.sanitize([1, 2, 2])
    assert np.array_equal(T.noisy_counts_, U.noisy_counts_)
    with pytest.raises(ValueError, match=r"^X must hold indices in \[0, 8\), got range \[0, 8\]$"):
        S.sanitize([0, 8])

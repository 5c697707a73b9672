"""PILLAR.Def3 / PILLAR.Ex1 / PILLAR.Def4 generators and the digits split (semiprivate.theory.halfspace_data).

Statistical checks: fixed seeds; binomial / normal tails at 1e-4 where stated.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.halfspace_data import (
    GaussianMixtureHalfspace,
    LargeMarginLowRank,
    TVShiftedPublic,
    digits_split,
    normalize_rows,
    projected_margins,
    subspace_distance,
)


@pytest.mark.parametrize("d, k, gamma, eta, tail, rank", [(20, 3, 0.2, 0.1, 0.05, 1), (50, 5, 0.1, 0.0, 0.2, 3),
                                                         (8, 8, 0.3, 0.0, 0.0, 2)])
def test_def3_is_exact(d, k, gamma, eta, tail, rank):
    """PILLAR.Def3: margin gamma a.s., ||w* - A_k A_k' w*|| = eta, tail mass exact, rows in the ball, E[xx'] exact."""
    D = LargeMarginLowRank(d, k, gamma, eta=eta, tail=tail, signal_rank=rank, decay=1.3, rng=4)
    assert D.gamma == pytest.approx(gamma, abs=1e-12)
    assert np.linalg.norm(D.w_star) == pytest.approx(1.0)
    P = D.components @ D.components.T
    assert np.linalg.norm(D.w_star - P @ D.w_star) == pytest.approx(eta, abs=1e-12)
    ev = np.linalg.eigvalsh(D.second_moment)[::-1]
    assert np.allclose(ev, D.eigenvalues, atol=1e-12)
    assert ev[k:].sum() == pytest.approx(D.tail_mass, abs=1e-12) and D.tail_mass == pytest.approx(tail, abs=1e-12)
    # the signal direction (b_1) is the rank-th eigenvector
    assert int(np.argsort(-D.variances, kind="stable").tolist().index(0)) == rank - 1
    X, y = D.sample(100_000, rng=5)
    assert np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)
    m = y * (X @ D.w_star)
    assert m.min() >= D.gamma - 1e-12 and m.min() <= D.gamma + 0.01  # the margin is the infimum, nearly attained
    # empirical second moment vs the exact one: each entry is a mean of bounded terms, |x_i x_j| <= 1
    err = np.abs(X.T @ X / len(X) - D.second_moment).max()
    assert err < 4.5 * math.sqrt(1 / len(X)) + 1e-3
    assert abs(np.mean(y > 0) - 0.5) < 4 * math.sqrt(0.25 / len(X))


def test_def3_infeasible_parameters_are_named():
    with pytest.raises(ValueError, match="gamma"):
        LargeMarginLowRank(10, 5, 0.9, decay=3.0, signal_rank=5)
    with pytest.raises(ValueError, match="tail"):
        LargeMarginLowRank(10, 2, 0.05, tail=0.9)
    with pytest.raises(ValueError, match=r"\bk\b"):
        LargeMarginLowRank(5, 6, 0.1)
    with pytest.raises(ValueError, match="signal_rank"):
        LargeMarginLowRank(10, 2, 0.1, signal_rank=3)
    with pytest.raises(ValueError, match="gamma"):
        LargeMarginLowRank(10, 2, float("nan"))
    with pytest.raises(TypeError, match=r"\bd\b"):
        LargeMarginLowRank("10", 2, 0.1)


def test_ex1_mixture():
    """PILLAR.Ex1: margin gamma with probability one after truncation, rows in the ball, two spiked directions."""
    M = GaussianMixtureHalfspace(40, 6.0, 0.5, offset=3.0, rng=1)
    X, y = M.sample(20_000, rng=2)
    assert np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)
    assert (y * (X @ M.w_star)).min() >= M.gamma - 1e-12 > 0
    S = X.T @ X / len(X)
    top2 = np.linalg.eigh(S)[1][:, -2:]
    span = np.column_stack([M.mu, M.c])
    span /= np.linalg.norm(span, axis=0)
    assert subspace_distance(top2, span) < 0.05
    with pytest.raises(ValueError, match="mu_norm"):
        GaussianMixtureHalfspace(40, 0.1, 0.5)


def test_tv_shift_is_exact_and_its_fraction_is_tau():
    """PILLAR.Def4: the public marginal is (1 - tau) D_X + tau Q, Q on a segment; the Q-fraction is Binomial(n, tau)."""
    D = LargeMarginLowRank(20, 3, 0.2, rng=0)
    P = TVShiftedPublic(D, 0.15, scale=0.8, rng=1)
    assert P.tv == 0.15
    Xp = P.sample_X(20_000, rng=3)
    on_segment = np.abs(np.linalg.norm(Xp - np.outer(Xp @ P.direction, P.direction), axis=1)) < 1e-12
    k = int(on_segment.sum())
    assert binom.cdf(k, 20_000, 0.15) > 1e-4 and binom.sf(k - 1, 20_000, 0.15) > 1e-4
    assert np.abs(Xp[on_segment] @ P.direction).max() <= 0.8
    assert abs(P.direction @ D.basis[:, 0]) < 1e-12  # a tail direction, orthogonal to the signal
    with pytest.raises(TypeError, match="base"):
        TVShiftedPublic(object(), 0.1)
    with pytest.raises(ValueError, match="tau"):
        TVShiftedPublic(D, 1.5)


def test_digits_split():
    s = digits_split(n_public=500, n_test=300, rng=7)
    assert s.X_public.shape == (500, 64) and s.X_private.shape == (997, 64) and s.X_test.shape == (300, 64)
    for A in (s.X_public, s.X_private, s.X_test):
        assert np.allclose(np.linalg.norm(A, axis=1), 1.0)
    assert sorted(set(s.y_private.tolist())) == list(range(10))
    t = digits_split(n_public=500, n_test=300, rng=7)
    assert all(np.array_equal(a, b) for a, b in zip(s, t))
    # the three parts partition the data: no row appears twice across parts (digits has 1797 distinct rows
    # up to a handful of exact duplicates, so count rows, not identities)
    from sklearn.datasets import load_digits

    X = normalize_rows(load_digits().data)
    allrows = np.vstack([s.X_public, s.X_private, s.X_test])
    assert np.array_equal(np.sort(allrows.view([("", allrows.dtype)] * 64), axis=0),
                          np.sort(X.view([("", X.dtype)] * 64), axis=0))
    with pytest.raises(ValueError, match="n_public"):
        digits_split(n_public=1500, n_test=300)


def test_projected_margins_and_subspace_distance():
    A = np.eye(3)[:, :2]
    m = projected_margins(A, np.array([0.6, 0.0, 0.8]), np.array([[1.0, 0, 0], [-0.5, 0.2, 0.9]]), np.array([1, -1]))
    assert np.allclose(m, [1.0, 0.5])
    assert projected_margins(A, np.array([0, 0, 1.0]), np.ones((1, 3)), np.array([1]))[0] == -np.inf
    assert subspace_distance(A, A) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="w"):
        projected_margins(A, np.ones(4), np.ones((1, 3)), np.array([1]))

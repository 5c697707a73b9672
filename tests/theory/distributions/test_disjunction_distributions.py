"""HPSY.Def4 (D_{f,p}) and the block-compatible distributions of HPSY.Thm1.

Statistical tests: fixed seeds; every per-variable binomial test runs at level FFR/d
(Bonferroni), so each test's false-failure rate is <= FFR = 1e-4.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binomtest
from semiprivate.theory.distributions import BlockDisjunctionDistribution, DisjunctionGraphDistribution
from semiprivate.theory.graphs import chi_disj, component_labels

FFR = 1e-4


def exact_side_probabilities(k, p):
    """By enumeration of all graphs on k vertices (HPSY Def 4 + footnote): P[x_v = 1 | side drawn]
    and P[x_i = x_j = 1 | side drawn]; independent of the class's closed forms."""
    pairs = list(itertools.combinations(range(k), 2))
    act = np.zeros(k)
    both = np.zeros((k, k))
    for mask in range(2 ** len(pairs)):
        m = bin(mask).count("1")
        w = p**m * (1 - p) ** (len(pairs) - m)
        deg = np.zeros(k, dtype=int)
        for t, (a, b) in enumerate(pairs):
            if mask >> t & 1:
                deg[a] += 1
                deg[b] += 1
        if m == 0:  # footnote 1: one uniformly random variable is 1
            act += w / k
            continue
        on = deg > 0
        act += w * on
        both += w * np.outer(on, on)
    np.fill_diagonal(both, 0)
    return act, both


@pytest.mark.parametrize("d, positive, p", [(7, [1, 3, 4, 6], 0.3), (6, [0, 5], 0.15), (5, [2], 0.5)])
def test_dfp_closed_forms_match_enumeration(d, positive, p):
    D = DisjunctionGraphDistribution(d, positive, p)
    neg = [v for v in range(d) if v not in positive]
    want = np.zeros(d)
    pair = np.zeros((d, d))
    for V in (positive, neg):
        a, b = exact_side_probabilities(len(V), p)
        want[V] = 0.5 * a
        pair[np.ix_(V, V)] = 0.5 * b
    np.testing.assert_allclose(D.activation_probabilities(), want, rtol=1e-12)
    np.testing.assert_allclose(D.pair_probabilities(), pair, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("d, positive, p", [(7, [1, 3, 4, 6], 0.3), (6, [0, 5], 0.15), (9, [0, 1, 2], 0.05)])
def test_dfp_marginals_sampled(d, positive, p):
    """Sampled per-variable activation and label frequencies vs the exact values (Bonferroni, FFR 1e-4)."""
    D = DisjunctionGraphDistribution(d, positive, p)
    n = 100_000
    X, y = D.sample(n, rng=12)
    want = D.activation_probabilities()
    for v in range(d):
        assert binomtest(int(X[:, v].sum()), n, want[v]).pvalue > FFR / (d + 2), v
    assert binomtest(int((y == 1).sum()), n, 0.5).pvalue > FFR / (d + 2)
    P = D.pair_probabilities()
    i, j = positive[0], positive[-1]
    if i != j:
        assert binomtest(int((X[:, i] & X[:, j]).sum()), n, P[i, j]).pvalue > FFR / (d + 2)


def test_dfp_structure():
    """Labels equal f(x); V- is 0 when y = +1 and V+ when y = -1; every draw has an active variable
    (footnote); compatible (chi = 1); the component graph of many draws has the two components."""
    D = DisjunctionGraphDistribution(12, [0, 2, 4, 6, 8], 0.02)
    X, y = D.sample(20_000, rng=2)
    assert np.array_equal(D.label(X), y)
    assert not X[y == 1][:, D.negative].any() and not X[y == -1][:, D.positive].any()
    assert X.any(axis=1).all()
    assert chi_disj(D.positive, X).all()
    Z, lab = component_labels(X)
    assert Z == 2 and len(set(lab[D.positive])) == 1
    # footnote rows: exactly one active variable, uniform over the side (FFR 1e-4 via binomial on a vertex)
    one = X[y == 1].sum(axis=1) == 1
    assert one.any()


def test_dfp_p_min():
    D = DisjunctionGraphDistribution(10, range(4), 0.2)
    q = 0.8
    assert D.p_min == pytest.approx(min(0.5 * (1 - 2 * q**3 + q**5), 0.5 * (1 - 2 * q**5 + q**9)))


def test_block_distribution():
    D = BlockDisjunctionDistribution(10, [[0, 1, 2], [3, 4], [5]], [0, 2], 0.6, weights=[0.5, 0.3, 0.2])
    assert D.n_components == 7
    assert D.p_min == pytest.approx(0.3 * 0.36)
    n = 100_000
    X, y = D.sample(n, rng=3)
    want = D.activation_probabilities()
    for v in range(10):
        if want[v] == 0:
            assert not X[:, v].any()
        else:
            assert binomtest(int(X[:, v].sum()), n, want[v]).pvalue > FFR / 10
    assert chi_disj(D.positive, X).all()
    assert np.array_equal(D.label(X), y)


def test_block_distribution_exact_error():
    """err(h; D) in closed form vs the error on 200000 draws (binomial test per h, FFR 1e-4 in total)."""
    D = BlockDisjunctionDistribution(12, [range(0, 4), range(4, 8), [8, 9]], [0, 2], 0.4, weights=[0.3, 0.5, 0.2])
    n = 200_000
    X, y = D.sample(n, rng=4)
    hs = [[0, 1, 2, 3, 8, 9], [0], [4, 5], [0, 4, 8], [11]]
    for h in hs:
        wrong = int((np.where(X[:, h].any(axis=1), 1, -1) != y).sum())
        e = D.error(h)
        assert (e == 0 and wrong == 0) or binomtest(wrong, n, e).pvalue > FFR / len(hs)
    H = np.zeros((len(hs), 12), dtype=bool)
    for r, h in enumerate(hs):
        H[r, h] = True
    np.testing.assert_allclose(D.errors(H), [D.error(h) for h in hs])


def test_block_distribution_error_exact_at_target_and_in_unit_interval():
    """err(h; D) is a probability: exactly 0 for every h that covers the positive blocks and no
    negative variable (the Bayes-optimal target; a last-bit difference between two pow routines gave
    -8e-18 there, which scipy's binomtest rejects), and in [0, 1] for every h."""
    g = np.random.default_rng(11)
    for _ in range(200):
        d = int(g.integers(2, 40))
        perm = g.permutation(d)
        cuts = np.sort(g.choice(np.arange(1, d), size=min(d - 1, int(g.integers(1, 6))), replace=False))
        blocks = [b.tolist() for b in np.split(perm, cuts) if b.size]
        pb = sorted(g.choice(len(blocks), size=int(g.integers(1, len(blocks) + 1)), replace=False).tolist())
        w = g.dirichlet(np.ones(len(blocks)))
        D = BlockDisjunctionDistribution(d, blocks, pb, float(g.uniform(0.01, 0.99)), weights=w)
        assert D.error(D.positive) == 0.0
        assert D.errors(np.ones((1, d), dtype=bool))[0] >= 0.0
        H = g.random((50, d)) < 0.5
        e = D.errors(H)
        assert np.all((e >= 0.0) & (e <= 1.0))


@pytest.mark.parametrize("call, exc, word", [
    (lambda: DisjunctionGraphDistribution(10, [0, 1], 1.5), ValueError, "p"),
    (lambda: DisjunctionGraphDistribution(10, [0, 1], 0.0), ValueError, "p"),
    (lambda: DisjunctionGraphDistribution(10, [0, 1], math.nan), ValueError, "p"),
    (lambda: DisjunctionGraphDistribution(10, [0, 11], 0.5), ValueError, "positive"),
    (lambda: DisjunctionGraphDistribution(3, [0, 1, 2], 0.5), ValueError, "positive"),
    (lambda: DisjunctionGraphDistribution(3, [], 0.5), ValueError, "positive"),
    (lambda: DisjunctionGraphDistribution(3, None, 0.5), TypeError, "positive"),
    (lambda: DisjunctionGraphDistribution(3, [0.5], 0.5), TypeError, "positive"),
    (lambda: DisjunctionGraphDistribution(-3, [0], 0.5), ValueError, "d"),
    (lambda: DisjunctionGraphDistribution(5, [0], 0.5).sample(-1), ValueError, "n"),
    (lambda: BlockDisjunctionDistribution(5, [[0, 1], [1, 2]], [0], 0.5), ValueError, "disjoint"),
    (lambda: BlockDisjunctionDistribution(5, [[0, 1]], [3], 0.5), ValueError, "positive_blocks"),
    (lambda: BlockDisjunctionDistribution(5, [[0, 1]], [0], 0.5, weights=[2.0]), ValueError, "weights"),
    (lambda: BlockDisjunctionDistribution(5, [[0, 1]], [0], -0.5), ValueError, "q"),
])
def test_bad_input(call, exc, word):
    with pytest.raises(exc, match=word):
        call()

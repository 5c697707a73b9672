"""HPSY.ComponentGraph, HPSY.Eq1/Def1/Def2, HPSY.Lem1, HPSY.Lem2: semiprivate.theory.graphs.

Statistical tests: fixed seeds, each at level 1e-4 (its false-failure rate) unless stated.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import binomtest
from semiprivate.theory.bounds.hpsy import hpsy_connectivity_threshold, karger_cut_bound
from semiprivate.theory.graph_checks import gnp_connectivity, karger_cut_check, lem2_connectivity
from semiprivate.theory.graphs import (
    _pairs_of_positions,
    active_sets,
    chi_disj,
    component_graph,
    component_graph_reference,
    component_labels,
    count_components,
    disjunction_compatibility,
    gnp_component_counts,
    gnp_edges,
)

FFR = 1e-4


def _partition(labels):
    return sorted(sorted(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(arrays(np.int8, st.tuples(st.integers(1, 12), st.integers(1, 8)), elements=st.integers(0, 1)),
       st.integers(1, 5))
def test_component_graph_equals_brute_force(X, block_rows):
    """G_S from the sparse block construction == the plain pairwise reference; components too."""
    G = component_graph(X, block_rows=block_rows)
    R = component_graph_reference(X)
    assert sorted(G.nodes()) == sorted(R.nodes())
    assert sorted(G.edges()) == sorted(R.edges())
    Z, labels = component_labels(X, block_rows=block_rows)
    want = sorted(sorted(c) for c in nx.connected_components(R))
    assert _partition(labels) == want
    assert Z == len(want) == count_components(X, block_rows=block_rows)
    assert labels[0] == 0 and labels.max() == Z - 1


def test_component_graph_sparse_path_large_d():
    """d > 8192 takes the sparse-product path: edges are exactly the pairs inside each row."""
    g = np.random.default_rng(8)
    d = 9000
    X = np.zeros((25, d), dtype=bool)
    want = set()
    for r in range(25):
        act = np.sort(g.choice(d, 3, replace=False))
        X[r, act] = True
        want |= {(int(a), int(b)) for a, b in itertools.combinations(act, 2)}
    G = component_graph(X, block_rows=4)
    assert set(G.edges()) == want and G.number_of_nodes() == d


def test_single_active_variable_gives_no_edge():
    X = np.array([[0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    assert component_graph(X).number_of_edges() == 0
    assert component_labels(X)[0] == 4


def test_components_large_sample_blocks():
    """Blocks of rows merge correctly: a path spread over many blocks is one component."""
    d = 200
    X = np.zeros((d - 1, d), dtype=bool)
    X[np.arange(d - 1), np.arange(d - 1)] = True
    X[np.arange(d - 1), np.arange(1, d)] = True
    perm = np.random.default_rng(0).permutation(d - 1)
    assert component_labels(X[perm], block_rows=7)[0] == 1
    assert component_labels(X[perm][:-1], block_rows=7)[0] >= 2


def test_active_sets_and_compatibility():
    X = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 0, 0, 0]])
    assert [a.tolist() for a in active_sets(X)] == [[0, 1], [2, 3], [0, 2], []]
    assert chi_disj([0, 1], X).tolist() == [True, True, False, True]
    assert disjunction_compatibility([0, 1], X) == 0.75
    assert disjunction_compatibility([0, 1], X, weights=[0.5, 0.2, 0.1, 0.2]) == pytest.approx(0.9)
    with pytest.raises(ValueError, match="weights"):
        disjunction_compatibility([0, 1], X, weights=[0.5, 0.5, 0.5, 0.5])


def test_pairs_of_positions_exact():
    """Slot positions -> (graph, i, j) equals the row-major upper triangle, every slot of 3 graphs."""
    for d in (2, 3, 7, 50, 201):
        i, j = np.triu_indices(d, 1)
        N = i.size
        gi, gi_i, gi_j = _pairs_of_positions(np.arange(3 * N, dtype=np.int64), d, 3)
        assert np.array_equal(gi, np.repeat(np.arange(3), N))
        assert np.array_equal(gi_i, np.tile(i, 3)) and np.array_equal(gi_j, np.tile(j, 3))
    d = 100_000  # large d: the ends of rows, sparse positions
    rows = np.array([0, 1, 2, 5000, 99_997, 99_998])
    off = rows * (2 * d - rows - 1) // 2
    r = np.sort(np.concatenate([off, off + (d - rows - 2)]))
    gi, i, j = _pairs_of_positions(r, d, 1)
    assert np.array_equal(i, np.repeat(rows, 2))
    assert np.array_equal(j, np.stack([rows + 1, np.full(rows.size, d - 1)], 1).ravel())


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_bernoulli_positions_every_slot(p):
    """Geometric skips (p < 0.25) and dense draws: each of 6 slots of one graph of G(4, p) is an edge
    w.p. p, independently of its position (the first and last slots included); 5000 seeds."""
    counts = np.zeros(6)
    n = 5000
    for s in range(n):
        _, i, j = gnp_edges(4, p, 1, rng=s)
        counts[i * (7 - i) // 2 + (j - i - 1)] += 1
    for c in counts:
        assert binomtest(int(c), n, p).pvalue > FFR / 6


def _exact_connectivity(d, p):
    pairs = list(itertools.combinations(range(d), 2))
    tot = 0.0
    for mask in range(2 ** len(pairs)):
        G = nx.empty_graph(d)
        G.add_edges_from(pr for t, pr in enumerate(pairs) if mask >> t & 1)
        m = bin(mask).count("1")
        if nx.is_connected(G):
            tot += p**m * (1 - p) ** (len(pairs) - m)
    return tot


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_gnp_connectivity_vs_exact(p):
    """Monte Carlo connectivity of G(5, p) vs the exact value over all 1024 graphs (binomial test)."""
    exact = _exact_connectivity(5, p)
    r = gnp_connectivity(5, p, 20000, rng=3, confidence=1 - FFR)
    assert r.lower <= exact <= r.upper
    assert binomtest(r.connected, r.n_graphs, exact).pvalue > FFR


def test_gnp_component_counts_batches_agree_with_networkx():
    """Vectorised component counts == networkx on the same edges (batched over graphs)."""
    d, p, n = 30, 0.06, 200
    gi, i, j = gnp_edges(d, p, n, rng=4)
    counts = gnp_component_counts(d, p, n, rng=4)
    for g in range(n):
        G = nx.empty_graph(d)
        sel = gi == g
        G.add_edges_from(zip(i[sel].tolist(), j[sel].tolist()))
        assert counts[g] == nx.number_connected_components(G)
    assert counts.min() >= 1 and counts.size == n


@pytest.mark.slow
def test_lem2_connectivity_thresholds():
    """HPSY.Lem2: thresholds are the bounds' values; observed connectivity >= 1 - beta at both."""
    r = lem2_connectivity(200, 0.01, 2000, rng=5, confidence=1 - FFR)
    assert r.hypotheses_hold
    assert r.threshold_statement == pytest.approx(hpsy_connectivity_threshold(200, 0.01))
    assert r.threshold_proof == pytest.approx(hpsy_connectivity_threshold(200, 0.01, form="proof"))
    assert r.holds
    assert r.at_proof is not None and r.at_proof.upper >= 0.99
    r36 = lem2_connectivity(36, 0.05, 200, rng=5)
    assert not r36.hypotheses_hold and "beta" in r36.reason


def test_karger_exhaustive_cuts_match_brute_force():
    """HPSY.Lem1: exhaustive cut ratios equal a direct enumeration of all cuts of each sample."""
    G = nx.complete_graph(7)
    r = karger_cut_check(G, 0.8, 1.0, 30, rng=9)
    assert r.exhaustive and r.min_cut_G == 6.0 and r.c_hat == pytest.approx(4.8)
    assert not r.applies  # e = sqrt(9 log 7 / 4.8) > 1: the lemma is vacuous here
    kb = karger_cut_bound(7, 1.0, 4.8, strict=False)
    assert math.isnan(r.epsilon) or r.epsilon == pytest.approx(getattr(kb, "epsilon", r.epsilon))
    # the minimum cut of each sample / c_hat is <= the worst low ratio's cut (the min cut side has cut_G >= 6)
    assert (r.worst_ratio_low <= r.min_cut_ratio + 1e-12).all()
    assert (r.worst_ratio_high >= 1.0).all() or (r.worst_ratio_high >= r.worst_ratio_low).all()


@pytest.mark.parametrize("p", [0.3, 0.8])
def test_karger_sampling_keeps_each_edge_with_probability_p(p):
    """G(p) of HPSY.Lem1 as karger_cut_check draws it: on a tree every edge is a bridge.

    On the path 0-1-2 (lambda(G) = 1, c_hat = p) the sample is connected iff both edges are
    kept: P = p^2 exactly, and then its minimum cut is 1, so min_cut_ratio = 1/p; otherwise 0.
    The single-edge cut {0} | {1, 2} has ratio kept(0-1)/p, so worst_ratio_high = 1/p exactly
    when some edge is kept.  Two-sided binomial tests at 1e-4 each.
    """
    n = 4000
    r = karger_cut_check(nx.path_graph(3), p, 1.0, n, rng=11)
    assert r.exhaustive and r.min_cut_G == 1.0 and r.c_hat == pytest.approx(p)
    connected = r.min_cut_ratio > 0
    assert np.allclose(r.min_cut_ratio[connected], 1 / p) and (r.min_cut_ratio[~connected] == 0).all()
    assert binomtest(int(connected.sum()), n, p * p).pvalue > FFR
    some = r.worst_ratio_high > 0
    assert np.allclose(r.worst_ratio_high[some], 1 / p)
    assert binomtest(int(some.sum()), n, 1 - (1 - p) ** 2).pvalue > FFR


def test_karger_band_on_dense_graph():
    """Where e <= 1 (c_hat large), the observed in-band rate is >= the lemma's 1 - 4/(l d^l)."""
    G = nx.complete_graph(60)
    r = karger_cut_check(G, 0.9, 1.0, 20, rng=2, random_cuts=100)
    assert not r.exhaustive and r.epsilon <= 1 and r.applies
    assert r.in_band_ci[1] >= 1 - r.failure_probability


@pytest.mark.parametrize("call, exc, word", [
    (lambda: component_labels([[2, 0]]), ValueError, "X"),
    (lambda: component_labels(object()), TypeError, "X"),
    (lambda: component_graph(np.zeros((0, 3))), ValueError, "X"),
    (lambda: gnp_connectivity(10, 1.5, 10), ValueError, "p"),
    (lambda: gnp_connectivity(10, math.nan, 10), ValueError, "p"),
    (lambda: gnp_connectivity(-3, 0.5, 10), ValueError, "d"),
    (lambda: gnp_edges(10, 0.5, 0), ValueError, "n_graphs"),
    (lambda: lem2_connectivity(100, 2.0), ValueError, "beta"),
    (lambda: karger_cut_check(nx.path_graph(4), 1.5), ValueError, "p"),
    (lambda: karger_cut_check("G", 0.5), TypeError, "G"),
    (lambda: chi_disj([7], [[1, 0]]), ValueError, "positive"),
    (lambda: chi_disj(None, [[1, 0]]), TypeError, "positive"),
])
def test_bad_input(call, exc, word):
    with pytest.raises(exc, match=word):
        call()

"""Component graphs of disjunction data, Erdős–Rényi graphs G(d, p), Karger's cut sampling.

Implements: HPSY.Def1, HPSY.Def2, HPSY.Eq1, HPSY.ComponentGraph, HPSY.Lem1, HPSY.Lem2 (the
objects and their Monte Carlo companions; the bounds themselves are in
:mod:`theory.bounds.hpsy`).

* Active set of x in {0,1}^d: hat V+(x) = {i : x[i] = 1}.
* HPSY.Eq1: chi_DISJ(f, x) = 1{hat V+(x) subset V+(f) or hat V+(x) cap V+(f) = empty}.
* HPSY.Def1/Def2: chi(f, D_X) = E_{x ~ D_X} chi(f, x) (exact for a finite support with
  probabilities, empirical on a sample); D is compatible when chi(f, D_X) = 1 for an f with
  zero error.
* HPSY.ComponentGraph: G_D = ([d], E_D) with (i, j) in E_D iff x[i] = x[j] = 1 for some x in
  the support of D; G_S the same over a sample S.  Every active set is a clique of G_S, so the
  *components* of G_S are those of the graph with a star from the first active variable of
  each row to the others: :func:`component_labels` uses that (O(nnz) edges, row blocks, one
  ``scipy.sparse.csgraph.connected_components`` per block on d vertices: memory bounded by the
  block, never a loop over pairs).  :func:`component_graph` returns the full co-activation
  graph as a ``networkx.Graph`` (sparse X_b^T X_b accumulated over row blocks).
* G(d, p) Monte Carlo (HPSY.Lem2 companion): edges of many graphs at once by geometric
  skipping over the concatenated pair-index spaces (an exact Bernoulli(p) process), vertex ids
  offset per graph, one ``connected_components`` call per batch.
* HPSY.Lem1 (Karger): every cut of G(p) is within (1 +- e) of its expectation w.p. >=
  1 - 4/(l d^l), e = sqrt(3 (l + 2) log d / c_hat), c_hat the minimum expected cut = p lambda(G).

Examples
--------
>>> X = [[1, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]
>>> n, labels = component_labels(X)
>>> n, labels.tolist()
(3, [0, 0, 1, 2])
>>> sorted(component_graph(X).edges())
[(0, 1)]
>>> disjunction_compatibility([0, 1], X)
1.0
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from kernels.validation import (
    PROBABILITY,
    RNG,
    ArrayLike,
    Boolean,
    Integer,
    Optional,
    Real,
    as_generator,
    validate_params,
)
from theory.audit.stats import clopper_pearson

__all__ = [
    "binary_points",
    "active_sets",
    "chi_disj",
    "disjunction_compatibility",
    "component_graph",
    "component_graph_reference",
    "component_labels",
    "count_components",
    "gnp_edges",
    "gnp_component_counts",
    "ConnectivityEstimate",
    "gnp_connectivity",
    "lem2_connectivity",
    "KargerCutResult",
    "karger_cut_check",
]

_CONF = Real(0.0, 1.0, closed="neither")
_BLOCK = Integer(1, 1 << 24)


@validate_params(d=Optional(Integer(1)), allow_empty=Boolean())
def binary_points(X: Any, name: str = "X", *, d: int | None = None, allow_empty: bool = False) -> np.ndarray:
    """Validate a 0/1 matrix of shape (n, d) (bool or integer dtype, or floats equal to 0/1); return bool.

    Raises TypeError for a non-numeric array, ValueError for other values, a wrong shape, a
    wrong number of columns ``d`` or (unless ``allow_empty``) an empty sample; the message
    names ``name``.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str (the parameter name used in messages), got {name!r}")
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a 0/1 array of shape (n, d), got {type(X).__name__}")
    arr = X if isinstance(X, np.ndarray) else np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a 0/1 array of shape (n, d), got dtype {arr.dtype}")
    if arr.ndim != 2:
        if arr.size == 0 and not allow_empty:
            raise ValueError(f"{name} must not be empty")
        raise ValueError(f"{name} must be 2-d of shape (n, d), got shape {arr.shape}")
    if d is not None and arr.shape[1] != d:
        raise ValueError(f"{name} must have d = {d} columns, got {arr.shape[1]}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one column (d >= 1), got shape {arr.shape}")
    if arr.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty (n >= 1 rows), got shape {arr.shape}")
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind == "f" and not bool(np.isfinite(arr).all()):
        raise ValueError(f"{name} must contain only 0 and 1, got NaN or inf")
    if bool(((arr != 0) & (arr != 1)).any()):
        raise ValueError(f"{name} must contain only 0 and 1 (non-binary entries found)")
    return arr.astype(bool)


def _positive_set(positive: Any, d: int, name: str = "positive") -> np.ndarray:
    if positive is None or isinstance(positive, (str, bytes, float)):
        raise TypeError(f"{name} must be a collection of variable indices, got {positive!r}")
    try:
        idx = np.asarray(list(positive) if not isinstance(positive, np.ndarray) else positive)
    except TypeError:
        raise TypeError(f"{name} must be a collection of variable indices, got {positive!r}") from None
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"{name} must contain integer variable indices, got dtype {idx.dtype}")
    idx = idx.astype(np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= d):
        raise ValueError(f"{name} must contain indices in [0, {d}), got {positive!r}")
    mask = np.zeros(d, dtype=bool)
    mask[idx] = True
    return mask


@validate_params(X=ArrayLike(ndim=2, dtype_kinds="biuf"))
def active_sets(X: Any) -> list[np.ndarray]:
    """hat V+(x) = {i : x[i] = 1} for every row of X (HPSY Sec 3.1 notation).

    Implements: HPSY.Eq1 (the active sets it is written in).

    >>> [a.tolist() for a in active_sets([[1, 0, 1], [0, 0, 0]])]
    [[0, 2], []]
    """
    Xb = binary_points(X)
    rows, cols = np.nonzero(Xb)
    return np.split(cols, np.searchsorted(rows, np.arange(1, Xb.shape[0])))


@validate_params(X=ArrayLike(ndim=2, dtype_kinds="biuf"))
def chi_disj(positive: Any, X: Any) -> np.ndarray:
    """chi_DISJ(f, x) per row: 1{hat V+(x) subset V+(f) or hat V+(x) cap V+(f) = empty}.

    Implements: HPSY.Eq1.  ``positive`` = V+(f) (0-based variable indices).

    >>> chi_disj([0, 1], [[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]]).tolist()
    [True, False, True, True]
    """
    Xb = binary_points(X)
    mask = _positive_set(positive, Xb.shape[1])
    inside = Xb[:, mask].any(axis=1)
    outside = Xb[:, ~mask].any(axis=1)
    return np.asarray(~(inside & outside), dtype=bool)


@validate_params(X=ArrayLike(ndim=2, dtype_kinds="biuf"), weights=Optional(ArrayLike(ndim=1, dtype_kinds="iuf")))
def disjunction_compatibility(positive: Any, X: Any, weights: Any = None) -> float:
    """chi^DISJ(f, D_X) = E_{x ~ D_X}[chi_DISJ(f, x)] (HPSY Def 1, Eq. 1).

    Implements: HPSY.Def1, HPSY.Def2, HPSY.Eq1.  With ``weights`` (the probabilities of the
    rows of ``X``, a finite support; they must be >= 0 and sum to 1) the value is exact; without,
    it is the empirical compatibility on the sample ``X`` (HPSY.Def2 asks for value 1).

    >>> disjunction_compatibility([0], [[1, 0], [1, 1]], weights=[0.25, 0.75])
    0.25
    """
    c = chi_disj(positive, X)
    if weights is None:
        return float(c.mean())
    w = np.asarray(weights, dtype=float)
    if w.shape != c.shape:
        raise ValueError(f"weights must have one entry per row of X ({c.shape[0]}), got shape {w.shape}")
    if (w < 0).any() or abs(float(w.sum()) - 1.0) > 1e-9:
        raise ValueError("weights must be probabilities (>= 0, summing to 1)")
    return float(w[c].sum())


def _star_edges(Xb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edges (first active variable of the row, each active variable of the row)."""
    rows, cols = np.nonzero(Xb)
    if rows.size == 0:
        return rows, cols
    start = np.ones(rows.size, dtype=bool)
    start[1:] = rows[1:] != rows[:-1]
    first = cols[start][np.cumsum(start) - 1]
    return first, cols


@validate_params(X=ArrayLike(ndim=2, dtype_kinds="biuf"), block_rows=_BLOCK)
def component_labels(X: Any, *, block_rows: int = 2048) -> tuple[int, np.ndarray]:
    """Components of the empirical component graph G_S: (number Z, label of each variable).

    Implements: HPSY.ComponentGraph (components of G_S).  Each row's active set is a clique
    of G_S, so a star on it gives the same components.  Rows are processed in blocks of
    ``block_rows``: per block the star edges are mapped through the current component
    representatives and one ``connected_components`` call on d vertices merges them, so the
    extra memory is O(nnz of a block + d), whatever n is.  Labels are numbered by first
    appearance (the component of variable 0 is 0); a variable never active is a component of
    its own.

    >>> component_labels([[0, 1, 1, 0], [0, 0, 0, 1]])[1].tolist()
    [0, 1, 1, 2]
    """
    Xin = X if isinstance(X, np.ndarray) else np.asarray(X)
    if Xin.ndim != 2 or Xin.shape[0] == 0 or Xin.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-d 0/1 array, got shape {Xin.shape}")
    d = Xin.shape[1]
    rep = np.arange(d)
    for s in range(0, Xin.shape[0], block_rows):
        Xb = binary_points(Xin[s:s + block_rows])
        a, b = _star_edges(Xb)
        if a.size == 0:
            continue
        g = sp.coo_matrix((np.ones(a.size, dtype=np.int8), (rep[a], rep[b])), shape=(d, d)).tocsr()
        _, lab = connected_components(g, directed=False)
        rep = lab[rep]
    # renumber by first appearance
    _, first_idx, inv = np.unique(rep, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first_idx))
    labels = order[inv].astype(np.int64)
    return int(first_idx.size), labels


def count_components(X: Any, *, block_rows: int = 2048) -> int:
    """Number of components Z of the empirical component graph G_S (see :func:`component_labels`).

    Implements: HPSY.ComponentGraph.

    >>> count_components([[1, 1, 0], [0, 0, 0]])
    2
    """
    return component_labels(X, block_rows=block_rows)[0]


@validate_params(X=ArrayLike(ndim=2, dtype_kinds="biuf"), block_rows=_BLOCK)
def component_graph(X: Any, *, block_rows: int = 4096) -> Any:
    """The empirical component graph G_S as a ``networkx.Graph`` on nodes 0..d-1.

    Implements: HPSY.ComponentGraph.  Edge (i, j), i != j, iff x[i] = x[j] = 1 for some row x.
    For a distribution with finite support, pass the support points (rows of positive
    probability): the result is G_D.  Built from the co-activation counts X_b^T X_b of row
    blocks of ``block_rows`` rows: for d <= 8192 a dense float32 BLAS product OR-ed into a d x d
    boolean matrix (extra memory 4 block_rows d + 5 d^2 bytes), above that sparse products
    (O(nnz(block) + |E|)).

    >>> sorted(component_graph([[1, 1, 1], [0, 0, 1]]).edges())
    [(0, 1), (0, 2), (1, 2)]
    """
    import networkx as nx

    Xin = X if isinstance(X, np.ndarray) else np.asarray(X)
    d = Xin.shape[1] if Xin.ndim == 2 else 0
    if Xin.ndim != 2 or Xin.shape[0] == 0 or d == 0:
        raise ValueError(f"X must be a non-empty 2-d 0/1 array, got shape {Xin.shape}")
    if d <= 8192:
        # dense BLAS X_b^T X_b (float32 counts are exact below 2^24 rows per block), OR-ed into d x d bools
        dense = np.zeros((d, d), dtype=bool)
        for s in range(0, Xin.shape[0], block_rows):
            Xf = binary_points(Xin[s:s + block_rows]).astype(np.float32)
            dense |= (Xf.T @ Xf) > 0
        coo = sp.triu(sp.csr_matrix(dense), k=1).tocoo()
    else:
        acc = sp.csr_matrix((d, d), dtype=np.int8)
        for s in range(0, Xin.shape[0], block_rows):
            Xb = sp.csr_matrix(binary_points(Xin[s:s + block_rows]).astype(np.float32))
            C = (Xb.T @ Xb).tocsr()
            C.data[:] = 1
            acc = ((acc + C.astype(np.int8)) > 0).astype(np.int8)
        coo = sp.triu(acc, k=1).tocoo()
    G = nx.Graph()
    G.add_nodes_from(range(d))
    G.add_edges_from(zip(coo.row.tolist(), coo.col.tolist()))
    return G


@validate_params(X=ArrayLike(ndim=2, dtype_kinds="biuf"))
def component_graph_reference(X: Any) -> Any:
    """Plain-Python specification of G_S: a double loop over variable pairs and rows.

    Implements: HPSY.ComponentGraph (reference; quadratic in d, for tests only).

    >>> sorted(component_graph_reference([[1, 0, 1]]).edges())
    [(0, 2)]
    """
    import networkx as nx

    Xb = binary_points(X)
    n, d = Xb.shape
    G = nx.Graph()
    G.add_nodes_from(range(d))
    for i in range(d):
        for j in range(i + 1, d):
            if any(bool(Xb[r, i]) and bool(Xb[r, j]) for r in range(n)):
                G.add_edge(i, j)
    return G


# ---------------------------------------------------------------------------
# G(d, p)
# ---------------------------------------------------------------------------


def _pairs_of_positions(pos: np.ndarray, d: int, n_graphs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted slot positions in [0, n_graphs d(d-1)/2) -> (graph, i, j), i < j, row-major per graph.

    Row starts g N + off(i), off(i) = i (2d - i - 1)/2, are located in ``pos`` by one
    ``searchsorted`` over the n_graphs * d boundaries; each position's row is then a ``repeat``,
    so the cost is O(m + n_graphs d log m) with exact integer arithmetic.
    """
    N = d * (d - 1) // 2
    i_all = np.arange(d, dtype=np.int64)
    off = i_all * (2 * d - i_all - 1) // 2
    starts = (np.arange(n_graphs, dtype=np.int64)[:, None] * N + off[None, :]).ravel()
    first = np.searchsorted(pos, starts, side="left")
    counts = np.diff(np.append(first, pos.size))
    row = np.repeat(np.arange(n_graphs * d, dtype=np.int64), counts)
    gi = row // d
    i = row - gi * d
    j = pos - starts[row] + i + 1
    return gi, i, j


def _bernoulli_positions(total: int, p: float, g: np.random.Generator) -> np.ndarray:
    """Positions of the successes of `total` independent Bernoulli(p) trials (geometric skips)."""
    if total <= 0:
        return np.zeros(0, dtype=np.int64)
    if p >= 0.25:  # dense draws are cheaper than skips
        return np.flatnonzero(g.random(total) < p).astype(np.int64)
    mean = total * p
    out = []
    pos = -1
    while True:
        m = int(mean + 6 * math.sqrt(mean) + 16)
        gaps = g.geometric(p, size=m)
        cs = pos + np.cumsum(gaps)
        if cs[-1] >= total:
            out.append(cs[cs < total])
            break
        out.append(cs)
        pos = int(cs[-1])
        mean = max((total - pos) * p, 1.0)
    return np.concatenate(out).astype(np.int64)


@validate_params(d=Integer(1, 1 << 20), p=Real(0.0, 1.0, closed="both"), n_graphs=Integer(1, 1 << 30), rng=RNG)
def gnp_edges(d: int, p: float, n_graphs: int = 1, rng: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edges of ``n_graphs`` independent Erdős–Rényi graphs G(d, p): (graph index, i, j), i < j.

    Implements: HPSY.Lem2 (the random graph; also Def 4's G+ and G-).  Exact: the successes of
    a Bernoulli(p) process over the n_graphs * d(d-1)/2 pair slots, found by geometric skips.

    >>> g, i, j = gnp_edges(5, 1.0, 2)
    >>> len(g), bool((i < j).all())
    (20, True)
    """
    gen = as_generator(rng)
    N = d * (d - 1) // 2
    if N == 0 or p == 0.0:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), z.copy()
    if p == 1.0:
        pos = np.arange(n_graphs * N, dtype=np.int64)
    else:
        pos = _bernoulli_positions(n_graphs * N, float(p), gen)
    return _pairs_of_positions(pos, d, n_graphs)


def _components_per_graph(d: int, gi: np.ndarray, i: np.ndarray, j: np.ndarray, n_graphs: int) -> np.ndarray:
    """Components of each graph; the edges come sorted by (graph, i), so the CSR is built directly."""
    V = n_graphs * d
    rows = gi * d + i
    indptr = np.zeros(V + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=V), out=indptr[1:])
    g = sp.csr_matrix((np.ones(rows.size, dtype=np.int8), gi * d + j, indptr), shape=(V, V))
    ncomp, lab = connected_components(g, directed=False)
    owner = np.empty(ncomp, dtype=np.int64)
    owner[lab] = np.arange(V) // d
    return np.bincount(owner, minlength=n_graphs)


@validate_params(d=Integer(1, 1 << 20), p=Real(0.0, 1.0, closed="both"), n_graphs=Integer(1, 1 << 30), rng=RNG,
                 max_edges=Integer(1000))
def gnp_component_counts(d: int, p: float, n_graphs: int, rng: Any = None, *, max_edges: int = 4_000_000) -> np.ndarray:
    """Number of components of each of ``n_graphs`` independent G(d, p) (vectorised).

    Implements: HPSY.Lem2 (Monte Carlo companion).  Graphs are drawn in batches of about
    ``max_edges`` expected edges; each batch is one sparse graph on batch * d vertices and one
    ``connected_components`` call.

    >>> gnp_component_counts(10, 1.0, 3, rng=0).tolist()
    [1, 1, 1]
    """
    gen = as_generator(rng)
    N = d * (d - 1) // 2
    per = max(1.0, N * p + d)
    batch = int(max(1, min(n_graphs, max_edges // per)))
    out = []
    done = 0
    while done < n_graphs:
        b = min(batch, n_graphs - done)
        gi, i, j = gnp_edges(d, p, b, gen)
        out.append(_components_per_graph(d, gi, i, j, b))
        done += b
    return np.concatenate(out)


class ConnectivityEstimate(NamedTuple):
    """Monte Carlo estimate of P[G(d, p) connected] with a Clopper–Pearson interval."""

    d: int
    p: float
    n_graphs: int
    connected: int
    estimate: float
    lower: float
    upper: float
    confidence: float


@validate_params(d=Integer(1, 1 << 20), p=Real(0.0, 1.0, closed="both"), n_graphs=Integer(1, 1 << 30), rng=RNG,
                 confidence=_CONF)
def gnp_connectivity(d: int, p: float, n_graphs: int = 1000, rng: Any = None, *,
                     confidence: float = 0.95) -> ConnectivityEstimate:
    """P[G(d, p) connected] by Monte Carlo, with a two-sided Clopper–Pearson interval.

    Implements: HPSY.Lem2 (Monte Carlo companion).  The interval covers the true probability
    with probability >= ``confidence`` (exact binomial interval).

    >>> r = gnp_connectivity(50, 0.5, 200, rng=1)
    >>> r.connected, r.lower > 0.98
    (200, True)
    """
    counts = gnp_component_counts(d, p, n_graphs, rng)
    k = int((counts == 1).sum())
    lo, hi = clopper_pearson(k, n_graphs, confidence)
    return ConnectivityEstimate(int(d), float(p), int(n_graphs), k, k / n_graphs, float(lo), float(hi),
                                float(confidence))


class Lem2Check(NamedTuple):
    """HPSY Lemma 2 at one (d, beta): thresholds and the Monte Carlo connectivity at each."""

    d: int
    beta: float
    threshold_statement: float
    threshold_proof: float
    hypotheses_hold: bool
    reason: str
    at_statement: ConnectivityEstimate | None
    at_proof: ConnectivityEstimate | None
    holds: bool | None


@validate_params(d=Integer(2, 1 << 20), beta=PROBABILITY, n_graphs=Integer(1, 1 << 30), rng=RNG, confidence=_CONF)
def lem2_connectivity(d: int, beta: float, n_graphs: int = 1000, rng: Any = None, *,
                      confidence: float = 0.95) -> Lem2Check:
    """HPSY Lemma 2 observed: P[G(d, p) connected] at the statement's and the proof's thresholds vs 1 - beta.

    Implements: HPSY.Lem2.  Thresholds from :func:`theory.bounds.hpsy.hpsy_connectivity_threshold`
    (statement 9(log(4/beta) + 4)/(d-1), proof (9 log(4/beta) + 4)/(d-1)); hypotheses d > 35 and
    beta in (4 exp(-(d-5)/9), 4/d) reported (not enforced: the simulation runs anyway where
    the threshold is < 1).  ``holds``: the Clopper–Pearson upper end at both thresholds is
    >= 1 - beta (a refutation would need the upper end below 1 - beta).

    >>> r = lem2_connectivity(100, 0.03, 200, rng=0)
    >>> r.hypotheses_hold, r.holds
    (True, True)
    """
    from theory.bounds.hpsy import hpsy_connectivity_threshold
    from theory.validity import Checked

    gen = as_generator(rng)
    ts = hpsy_connectivity_threshold(d, beta, strict=False)
    tp = hpsy_connectivity_threshold(d, beta, form="proof", strict=False)
    ok = not isinstance(ts, Checked) or bool(ts.valid)
    reason = "" if ok else str(ts.reason)
    vs = float(ts.value if isinstance(ts, Checked) else ts) if (not isinstance(ts, Checked) or ts.value is not None) \
        else 9 * (math.log(4 / beta) + 4) / (d - 1)
    vp = float(tp.value if isinstance(tp, Checked) else tp) if (not isinstance(tp, Checked) or tp.value is not None) \
        else (9 * math.log(4 / beta) + 4) / (d - 1)
    a = gnp_connectivity(d, vs, n_graphs, gen, confidence=confidence) if vs <= 1 else None
    b = gnp_connectivity(d, vp, n_graphs, gen, confidence=confidence) if vp <= 1 else None
    est = [e for e in (a, b) if e is not None]
    holds = all(e.upper >= 1 - beta for e in est) if est else None
    return Lem2Check(int(d), float(beta), vs, vp, ok, reason, a, b, holds)


# ---------------------------------------------------------------------------
# Karger (Lemma 1)
# ---------------------------------------------------------------------------


class KargerCutResult(NamedTuple):
    """HPSY Lemma 1 observed on ``n_samples`` draws of G(p).

    ``min_cut_G``: lambda(G); ``c_hat`` = p lambda(G); ``epsilon``/``failure_probability``
    from :func:`theory.bounds.hpsy.karger_cut_bound` (nan when e > 1); ``min_cut_ratio``:
    lambda(G(p))/c_hat per sample (Stoer–Wagner, 0 when disconnected); ``worst_ratio_low`` /
    ``worst_ratio_high``: min / max over the checked cuts S of cut_{G(p)}(S)/(p cut_G(S)) per
    sample; ``exhaustive``: all 2^(d-1) - 1 cuts checked (else singletons, the minimum cut and
    ``random_cuts`` uniform cuts); ``in_band``: samples with every checked cut in [1-e, 1+e];
    ``in_band_ci``: Clopper–Pearson interval of the in-band probability; ``applies``: e <= 1
    (otherwise the lemma says nothing and ``in_band`` only reports the wide band).
    """

    d: int
    p: float
    ell: float
    min_cut_G: float
    c_hat: float
    epsilon: float
    failure_probability: float
    min_cut_ratio: np.ndarray
    worst_ratio_low: np.ndarray
    worst_ratio_high: np.ndarray
    exhaustive: bool
    in_band: int
    in_band_ci: tuple[float, float]
    applies: bool


@validate_params(p=PROBABILITY, ell=Real(1.0, math.inf), n_samples=Integer(1, 1 << 20), rng=RNG,
                 exhaustive_max=Integer(2, 20), random_cuts=Integer(0, 1 << 20), confidence=_CONF)
def karger_cut_check(G: Any, p: float, ell: float = 1.0, n_samples: int = 100, rng: Any = None, *,
                     exhaustive_max: int = 14, random_cuts: int = 200, confidence: float = 0.95) -> KargerCutResult:
    """Karger's cut sampling (HPSY Lemma 1) observed: cuts of G(p) against (1 +- e) times their mean.

    Implements: HPSY.Lem1.  G(p) keeps each edge of ``G`` (a connected ``networkx.Graph`` on
    nodes 0..d-1) independently with probability p.  c_hat = p lambda(G) (lambda: exact minimum
    cut of G by Stoer–Wagner, ``networkx.stoer_wagner``), e = sqrt(3 (l + 2) log d / c_hat); the
    lemma claims all cuts in the band w.p. >= 1 - 4/(l d^l) when e <= 1.  The minimum cut of
    each sample is exact (Stoer–Wagner); all cuts are checked exactly when d <= exhaustive_max.

    >>> import networkx as nx
    >>> r = karger_cut_check(nx.complete_graph(8), 0.9, 1.0, 5, rng=0)
    >>> r.min_cut_G, r.exhaustive
    (7.0, True)
    """
    import networkx as nx

    from theory.bounds.hpsy import karger_cut_bound
    from theory.validity import Checked

    if not isinstance(G, nx.Graph) or G.is_directed():
        raise TypeError(f"G must be an undirected networkx.Graph, got {type(G).__name__}")
    d = G.number_of_nodes()
    if d < 2 or sorted(G.nodes()) != list(range(d)):
        raise ValueError(f"G must have nodes 0..d-1 with d >= 2, got {d} nodes")
    if not nx.is_connected(G):
        raise ValueError("G must be connected (its minimum cut is 0 otherwise)")
    gen = as_generator(rng)
    lam = float(nx.stoer_wagner(G)[0])
    c_hat = p * lam
    kb = karger_cut_bound(d, float(ell), c_hat, strict=False)
    if isinstance(kb, Checked):
        eps, fail = (math.nan, math.nan) if kb.value is None else (kb.value.epsilon, kb.value.failure_probability)
        if not kb.valid:
            eps = float(kb.details.get("epsilon", math.nan)) if isinstance(kb.details, dict) else math.nan
            fail = 4.0 / (ell * d**ell)
    else:
        eps, fail = kb.epsilon, kb.failure_probability
    E = np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2)
    exhaustive = d <= exhaustive_max
    if exhaustive:
        masks = np.arange(1, 2 ** (d - 1), dtype=np.int64)  # vertex d-1 always on side 0
    else:
        masks = None
        sides_list = [np.eye(d, dtype=bool)]
        rnd = gen.random((random_cuts, d)) < 0.5
        rnd = rnd[rnd.any(1) & ~rnd.all(1)]
        sides_list.append(rnd)
    ratio_min = np.empty(n_samples)
    low = np.empty(n_samples)
    high = np.empty(n_samples)
    in_band = 0
    for s in range(n_samples):
        keep = gen.random(E.shape[0]) < p
        Es = E[keep]
        H = nx.Graph()
        H.add_nodes_from(range(d))
        H.add_edges_from(map(tuple, Es.tolist()))
        if nx.is_connected(H):
            cut_val, (A, _) = nx.stoer_wagner(H)
            sides_min = np.zeros((1, d), dtype=bool)
            sides_min[0, list(A)] = True
        else:
            cut_val = 0.0
            comp = next(iter(nx.connected_components(H)))
            sides_min = np.zeros((1, d), dtype=bool)
            sides_min[0, list(comp)] = True
        ratio_min[s] = cut_val / c_hat
        if exhaustive:
            assert masks is not None
            side = ((masks[:, None] >> np.arange(d)[None, :]) & 1).astype(bool)
        else:
            side = np.vstack(sides_list + [sides_min])
        cutG = (side[:, E[:, 0]] != side[:, E[:, 1]]).sum(1)
        cutH = (side[:, Es[:, 0]] != side[:, Es[:, 1]]).sum(1) if Es.size else np.zeros(side.shape[0])
        r = cutH / (p * cutG)
        low[s] = float(r.min())
        high[s] = float(r.max())
        if not math.isnan(eps) and low[s] >= 1 - eps and high[s] <= 1 + eps:
            in_band += 1
    lo, hi = clopper_pearson(in_band, n_samples, confidence)
    return KargerCutResult(d, float(p), float(ell), lam, c_hat, float(eps), float(fail), ratio_min, low, high,
                           exhaustive, in_band, (float(lo), float(hi)), bool(eps <= 1))

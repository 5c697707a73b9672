"""Component graphs of disjunction data, Erdős–Rényi graphs G(d, p), Karger's cut sampling.

Implements: HPSY.Def1, HPSY.Def2, HPSY.Eq1, HPSY.ComponentGraph (the objects; the Monte Carlo
checks of HPSY.Lem1 and HPSY.Lem2 against their bounds are in :mod:`semiprivate.theory.graph_checks`,
the bounds themselves in :mod:`semiprivate.theory.bounds.hpsy`).

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
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from semiprivate.validation import (
    RNG,
    ArrayLike,
    Boolean,
    Integer,
    Optional,
    Real,
    as_generator,
    validate_params,
)

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
        raise ValueError(f"{name} must have d = {d} columns, got shape {arr.shape}")
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

"""Monte Carlo checks of HPSY's graph lemmas against their bounds.

Implements: HPSY.Lem1, HPSY.Lem2 (Monte Carlo companions).

* HPSY.Lem2: P[G(d, p) connected] at the thresholds of
  :func:`semiprivate.theory.bounds.hpsy.hpsy_connectivity_threshold`, with Clopper–Pearson
  intervals (:func:`semiprivate.theory.audit.stats.clopper_pearson`).
* HPSY.Lem1 (Karger): every cut of G(p) is within (1 +- e) of its expectation w.p. >=
  1 - 4/(l d^l), e = sqrt(3 (l + 2) log d / c_hat), c_hat the minimum expected cut = p lambda(G);
  the bound from :func:`semiprivate.theory.bounds.hpsy.karger_cut_bound`.

The graphs themselves (G(d, p) sampling, component counts) are in :mod:`semiprivate.theory.graphs`;
this module sits above it, the auditor's statistics and the bounds (ARCHITECTURE.md).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import networkx as nx
import numpy as np
from semiprivate.theory.audit.stats import clopper_pearson
from semiprivate.theory.bounds.hpsy import hpsy_connectivity_threshold, karger_cut_bound
from semiprivate.theory.graphs import gnp_component_counts
from semiprivate.theory.validity import Checked
from semiprivate.validation import PROBABILITY, RNG, Integer, Real, as_generator, validate_params

__all__ = ["ConnectivityEstimate", "gnp_connectivity", "Lem2Check", "lem2_connectivity", "KargerCutResult",
           "karger_cut_check"]

_CONF = Real(0.0, 1.0, closed="neither")


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

    Implements: HPSY.Lem2.  Thresholds from :func:`semiprivate.theory.bounds.hpsy.hpsy_connectivity_threshold`
    (statement 9(log(4/beta) + 4)/(d-1), proof (9 log(4/beta) + 4)/(d-1)); hypotheses d > 35 and
    beta in (4 exp(-(d-5)/9), 4/d) reported (not enforced: the simulation runs anyway where
    the threshold is < 1).  ``holds``: the Clopper–Pearson upper end at both thresholds is
    >= 1 - beta (a refutation would need the upper end below 1 - beta).

    >>> r = lem2_connectivity(100, 0.03, 200, rng=0)
    >>> r.hypotheses_hold, r.holds
    (True, True)
    """

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
    from :func:`semiprivate.theory.bounds.hpsy.karger_cut_bound` (nan when e > 1); ``min_cut_ratio``:
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

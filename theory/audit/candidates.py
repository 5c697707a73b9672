"""Candidate events for one neighbouring pair, built and scored on the selection batch.

:func:`search_pair` reads the two selection batches of a pair and builds every candidate family
(see :mod:`semiprivate.theory.audit.core` for the method and :class:`semiprivate.theory.audit.result.PairSearch`
for the family names): thresholds of scalars, of coordinates and of projections of vectors (Fisher
direction, mean difference, logistic and MLP scores), single values and likelihood-ratio-ordered
value sets, joint events on output tables (:func:`table_events`), whole-row patterns of coded float
columns and float bit patterns.  Each (event, direction) is scored by the pessimistic anticipated
bound (:func:`semiprivate.theory.audit.selection.anticipated_bound`); the best 8 of each family and
direction become :class:`Candidate` s, from which the audit keeps ``K``
(:func:`semiprivate.theory.audit.selection.pick`).  Nothing here sees the estimation batch.

Implements: AUDIT (event selection on a separate batch, [DWWZK18] in :mod:`semiprivate.theory.audit.core`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.audit import selection
from semiprivate.theory.audit.draws import Codec, Outputs
from semiprivate.theory.audit.events import (
    BitsEvent,
    Event,
    RandomizedEvent,
    TableEvent,
    ThresholdEvent,
    UserEvent,
    ValueSetEvent,
    bit_keys,
)

#: the auditor's internals: the audit (:mod:`semiprivate.theory.audit.core`) is their only caller
__all__ = ["Candidate"]

#: candidates kept per family and direction (the best by anticipated bound)
PER_FAMILY = 8
#: joint events: at most this many categorical columns (the best by their single-value events) and
#: values per column (the most frequent), each crossed with every ranked numeric column
MAX_JOINT_COLUMNS = 4
MAX_JOINT_VALUES = 8
#: auto-categorical: a numeric column whose selection values are integers with at most this many
#: distinct values also gets value and joint events (declared categorical columns get no thresholds)
MAX_AUTO_CATEGORIES = 16


@dataclass
class Candidate:
    """One (pair, event, direction) with its anticipated bound; ``group`` names its family."""

    score: float
    pair: int
    event: Event
    forward: bool  # True: numerator is pair's first dataset
    group: tuple[Any, ...]


def sorted_quantiles(a: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(a, q)`` (method ``"linear"``) of an ascending-sorted 1-D float array, without the
    partition ``np.quantile`` runs: NumPy's virtual indices ``(n - 1) q``, its neighbouring indices and
    weights, and its two-sided interpolation, so the result is the same bit for bit (checked against
    ``np.quantile``); NaN everywhere when ``a`` holds a NaN (sorted last), as ``np.quantile``."""
    v = (a.size - 1) * q
    prev = np.floor(v)
    nxt = prev + 1
    for where, index in ((v >= a.size - 1, -1), (v < 0, 0), (np.isnan(v), -1)):
        prev[where] = index
        nxt[where] = index
    lo_i, hi_i = prev.astype(np.intp), nxt.astype(np.intp)
    gamma = v - lo_i
    lo, hi = a[lo_i], a[hi_i]
    diff = hi - lo
    out = np.add(lo, diff * gamma)
    np.subtract(hi, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    if a.size and np.isnan(a[-1]):
        out[...] = a[-1]
    return out


def threshold_candidates(xs: np.ndarray, ys: np.ndarray, n_thresholds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thresholds ``t`` (pooled quantiles and the extremes, finite only) and the counts of ``x > t``."""
    xs = np.sort(xs)
    ys = np.sort(ys)
    pooled = np.sort(np.concatenate([xs, ys]), kind="stable")  # two sorted runs: a merge
    qs = sorted_quantiles(pooled, np.linspace(0.0, 1.0, n_thresholds))
    ext = [xs[0], ys[0], xs[-1], ys[-1]]
    with np.errstate(all="ignore"):
        ext += [np.nextafter(xs[0], -np.inf), np.nextafter(ys[0], -np.inf)]
    t = selection.unique(np.concatenate([qs, np.asarray(ext, dtype=np.float64)]))
    t = t[np.isfinite(t)]
    cx = xs.size - np.searchsorted(xs, t, side="right")
    cy = ys.size - np.searchsorted(ys, t, side="right")
    return t, cx.astype(np.float64), cy.astype(np.float64)


#: the probabilities of keeping the boundary value of a learned randomised event (:meth:`_Search.randomized_sets`)
RANDOMIZED_GAMMAS = (0.25, 0.5, 0.75)


class _Search:
    """The candidates of one pair: each family adds its scored (event, direction) candidates."""

    learned = False

    def __init__(self, pair: int, s: int, n: int, a: float, delta: float, n_thresholds: int, max_values: int) -> None:
        self.pair, self.s, self.n, self.a, self.delta = pair, s, n, a, delta
        self.n_thresholds, self.max_values = n_thresholds, max_values
        self.cands: list[Candidate] = []
        self.fams: dict[str, int] = {}
        self.counts_score: selection.CountScores | None = None

    #: another score of the counts ``(kx, ky)`` (``search_pair(..., score=)``); default the anticipated bound
    scorer: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None

    def score(self, kx: np.ndarray, ky: np.ndarray) -> np.ndarray:
        if self.scorer is not None:
            return self.scorer(kx, ky)
        if self.counts_score is None:
            self.counts_score = selection.CountScores(self.s, self.n, self.a, self.delta)
        return self.counts_score(kx, ky)

    def keep(self, sc: np.ndarray, make: Callable[[int], Event], forward: bool, group: str) -> None:
        for i in np.argsort(-sc, kind="stable")[:PER_FAMILY]:
            self.cands.append(Candidate(float(sc[i]), self.pair, make(int(i)), forward, (self.pair, group, forward)))

    def add(self, events: list[Event], kx: np.ndarray, ky: np.ndarray, group: str) -> None:
        """Candidates from built events counted ``kx`` vs ``ky``."""
        self.fams[group] = self.fams.get(group, 0) + 2 * len(events)
        if not events:
            return
        fwd, bwd = self.score(kx, ky), self.score(ky, kx)
        for forward, sc in ((True, fwd), (False, bwd)):
            self.keep(sc, events.__getitem__, forward, group)

    def add_lazy(self, m: int, make: Callable[[int], Event], kx: np.ndarray, ky: np.ndarray, group: str,
                 family: str) -> None:
        """Score ``m`` candidates counted ``kx`` vs ``ky``; build events only for the kept ones."""
        self.fams[family] = self.fams.get(family, 0) + 2 * m
        if not m:
            return
        for forward, (num, den) in ((True, (kx, ky)), (False, (ky, kx))):
            self.keep(self.score(num, den), make, forward, group)

    def ordered_sets(self, cxk: np.ndarray, cyk: np.ndarray, make_set: Callable[[np.ndarray], Event],
                     family: str, group: str) -> None:
        """Likelihood-ratio-ordered sets of the first ``2, 3, ...`` values (at most 513), each direction."""
        for forward in (True, False):
            num, den = (cxk, cyk) if forward else (cyk, cxk)
            order = np.argsort(-(num + 0.5) / (den + 0.5), kind="stable")
            m = min(order.size - 1, 512)
            kx = np.cumsum(num[order])[1:m + 1]
            ky = np.cumsum(den[order])[1:m + 1]
            sc = self.score(kx, ky)
            self.fams[family] = self.fams.get(family, 0) + m

            def first(i: int, order: np.ndarray = order) -> Event:  # the set of the i + 2 most likely values
                return make_set(order[: i + 2])

            self.keep(sc, first, forward, group)

    def value_family(self, kx_keys: np.ndarray, ky_keys: np.ndarray, make: Callable[[np.ndarray, str], Event],
                     label: Callable[[Any], str], family: str) -> None:
        """Single values and likelihood-ratio-ordered value sets of derived keys (as for raw values)."""
        keys = np.concatenate([kx_keys, ky_keys])
        uniq, inv, counts = selection.unique(keys, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        cx = np.bincount(inv[: kx_keys.size], minlength=uniq.size).astype(np.float64)
        cy = np.bincount(inv[kx_keys.size:], minlength=uniq.size).astype(np.float64)
        # values seen fewer than 3 times cannot carry evidence alone, and as members of the
        # likelihood-ratio-ordered sets they only overfit the selection batch (continuous leaves)
        keep = np.nonzero(counts >= 3)[0]
        keep = keep[np.argsort(-counts[keep], kind="stable")[:self.max_values]]
        uk, cxk, cyk = uniq[keep], cx[keep], cy[keep]
        self.add_lazy(uk.size, lambda i: make(uk[i:i + 1], label(uk[i])), cxk, cyk, family, family)
        if uk.size < 2:
            return

        def make_set(idx: np.ndarray) -> Event:
            vals = uk[idx]
            shown = " | ".join(label(v) for v in vals[:3]) + (" | ..." if vals.size > 3 else "")
            return make(vals, f"{shown} ({vals.size} values)")

        self.ordered_sets(cxk, cyk, make_set, family, family + "set")

    def restricted(self, xv: np.ndarray, yv: np.ndarray, make: Callable[[float, bool], Event], group: str,
                   family: str, n_thr: int) -> None:
        """Thresholds ``{v > t}``, ``{v <= t}`` on the rows kept in ``xv``, ``yv`` (counts out of ``s``)."""
        if xv.size == 0 or yv.size == 0:
            return
        t, cx, cy = threshold_candidates(xv, yv, n_thr)
        kx = np.concatenate([cx, xv.size - cx])
        ky = np.concatenate([cy, yv.size - cy])
        self.add_lazy(kx.size, lambda i: make(float(t[i % t.size]), i < t.size), kx, ky, group, family)

    def thresholds(self, x: np.ndarray, y: np.ndarray,
                   proj: None | int | np.ndarray | Callable[[np.ndarray], np.ndarray], name: str, group: str) -> None:
        """``{proj(x) > t}`` and ``{proj(x) <= t}`` at the pooled quantiles and extremes."""
        t, cx, cy = threshold_candidates(x, y, self.n_thresholds)
        s, m = self.s, t.size
        built: dict[int, Event] = {}  # the kept ones only; one object per event, shared by its two directions

        def make(i: int) -> Event:
            if i not in built:
                built[i] = ThresholdEvent(t[i % m], i < m, proj, name)
            return built[i]

        self.add_lazy(2 * m, make, np.concatenate([cx, s - cx]), np.concatenate([cy, s - cy]), group, group)

    def vector(self, x: np.ndarray, y: np.ndarray, discrete: bool, categorical: Sequence[Any], mlp: bool) -> list[int]:
        """Projections, ranked coordinates, table and pattern events of vector outputs; the coordinates used."""
        pair, s = self.pair, self.s
        d = x.shape[1]
        diff = x.mean(axis=0) - y.mean(axis=0)
        # one selection output per dataset (selection_trials=1) has no sample covariance
        cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False)) if s > 1 else np.zeros((d, d))
        cov = np.atleast_2d(cov)
        reg = 1e-6 * (np.trace(cov) / d + 1e-12)
        try:
            w = np.linalg.solve(cov + reg * np.eye(d), diff)
        except np.linalg.LinAlgError:
            w = diff
        for vec, nm in ((w, "fisher"), (diff, "meandiff")):
            norm = float(np.linalg.norm(vec))
            if norm > 0 and np.isfinite(norm):
                u = vec / norm
                self.thresholds(x @ u, y @ u, u, f"<{nm} direction, x>", nm)
        learned = selection.learned_score(x, y, np.random.default_rng(pair))  # selection batch only
        if learned is not None:
            self.thresholds(learned(x), learned(y), learned, "<logistic score, x>", "logistic")
        if mlp:
            net = selection.mlp_score(x, y, np.random.default_rng(pair))  # selection batch only
            if net is not None:
                self.thresholds(net(x), net(y), net, "<mlp score, x>", "mlp")
        if not discrete:
            signs = selection.sign_score(x, y)  # selection batch only
            if signs is not None:
                self.thresholds(signs(x), signs(y), signs, "<whitened-sign score, x>", "sign")
        # per-coordinate thresholds: declared categorical coordinates get value events instead;
        # beyond MAX_COORDS coordinates only the MAX_COORDS ranked first on the selection batch
        declared = {int(c) for c in categorical if isinstance(c, (int, np.integer)) and 0 <= int(c) < d}
        free = [j for j in range(d) if j not in declared]
        if len(free) > selection.MAX_COORDS:
            coords = [free[int(i)] for i in selection.rank_columns(x[:, free], y[:, free], selection.MAX_COORDS)]
        else:
            coords = free
        for j in coords:
            self.thresholds(x[:, j], y[:, j], j, f"x[{j}]", f"coord{j}")
        table_events(x, y, [f"x[{j}]" for j in range(d)], np.array([j in declared for j in range(d)]), coords,
                     None, self.value_family, self.add_lazy, self.n_thresholds)
        if not discrete:
            self.patterns(x, y)
        return coords

    def patterns(self, x: np.ndarray, y: np.ndarray) -> None:
        """Whole-block patterns of coded float columns (:class:`semiprivate.theory.audit.selection.RowPatterns`)
        and their cross-fitted likelihood-ratio-ordered sets."""
        pair = self.pair
        for blk in selection.atom_blocks(x, y):
            px, py = blk(x), blk(y)
            uk, cnt = selection.unique(np.concatenate([px, py]), return_counts=True)
            uk = uk[cnt >= 3]
            cx, cy = (np.bincount(np.searchsorted(uk, v[np.isin(v, uk)]), minlength=uk.size).astype(np.float64)
                      for v in (px, py))

            def one(i: int, blk: selection.RowPatterns = blk, uk: np.ndarray = uk) -> Event:
                return UserEvent(selection.PatternEvent(blk, uk[i:i + 1], blk.describe(uk[i])))

            self.add_lazy(uk.size, one, cx, cy, "pattern", "pattern")
            psets, scored = selection.honest_sets(px, py, self.s, self.n, self.a, self.delta, self.max_values)
            self.fams["patternset"] = self.fams.get("patternset", 0) + scored
            for psc, pfwd, pvals in psets:  # scored on rows that did not order them (cross-fitting)
                pdesc = " | ".join(blk.describe(v) for v in pvals[:3]) + (" | ..." if pvals.size > 3 else "")
                pev = UserEvent(selection.PatternEvent(blk, pvals, f"{pdesc} ({pvals.size} patterns)"))
                self.cands.append(Candidate(psc, pair, pev, pfwd, (pair, "patternset", pfwd)))

    def table(self, tx: np.ndarray, ty: np.ndarray, codec: Codec) -> None:
        """Column thresholds, value and joint events on the tables of structured outputs."""
        sch = codec.schema
        assert sch is not None
        numeric = [j for j in range(tx.shape[1]) if not sch.categorical[j]]
        if len(numeric) > selection.MAX_COORDS:
            numeric = [numeric[int(i)] for i in
                       selection.rank_columns(tx[:, numeric], ty[:, numeric], selection.MAX_COORDS)]
        for j in numeric:
            xv, yv = tx[:, j], ty[:, j]
            nm = sch.names[j]

            def col_event(t: float, up: bool, j: int = j, nm: str = nm) -> TableEvent:
                return TableEvent([], (j, t, up), f"{nm} {'>' if up else '<='} {t:.6g}")

            self.restricted(xv[~np.isnan(xv)], yv[~np.isnan(yv)], col_event, f"col{j}", "col", self.n_thresholds)
        table_events(tx, ty, sch.names, sch.categorical, numeric, codec, self.value_family, self.add_lazy,
                     self.n_thresholds)

    def bits(self, ox: Outputs, oy: Outputs, cols: list[int | None]) -> None:
        """Sign, exponent and low 1 or 4 mantissa bits of float outputs (:func:`bit_keys`)."""
        assert ox.num is not None and oy.num is not None
        for col in cols:
            xv = ox.num if col is None else ox.num[:, col]
            yv = oy.num if col is None else oy.num[:, col]
            for k in (1, 4):
                nm = "x" if col is None else f"x[{col}]"

                def bits_label(v: Any, k: int = k, nm: str = nm) -> str:
                    v = int(v)
                    top = v >> k
                    return f"{'-' if top >> 11 else '+'}2^{(top & 0x7FF) - 1023} bits{k}={v & ((1 << k) - 1):0{k}b}"

                def bits_event(vals: Any, desc: str, col: int | None = col, k: int = k, nm: str = nm) -> BitsEvent:
                    return BitsEvent(col, k, vals, f"(sign, exponent, low {k} bits of {nm}): {desc}")

                self.value_family(bit_keys(xv, k), bit_keys(yv, k), bits_event, bits_label, "bits")

    def values(self, ox: Outputs, oy: Outputs, codec: Codec) -> None:
        """Single output values and likelihood-ratio-ordered value sets (discrete outputs and atoms)."""
        assert ox.keys is not None and oy.keys is not None
        keys = np.concatenate([ox.keys, oy.keys])
        uniq, inv, counts = selection.unique(keys, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        cx = np.bincount(inv[: ox.keys.size], minlength=uniq.size).astype(np.float64)
        cy = np.bincount(inv[ox.keys.size:], minlength=uniq.size).astype(np.float64)
        # labels with continuous leaves (a numeric table column) are atoms like real outputs: count >= 3
        continuous = codec.schema is not None and ox.table is not None and not bool(np.all(codec.schema.categorical))
        keep = np.nonzero(counts >= (1 if ox.discrete and not continuous else 3))[0]
        if keep.size > self.max_values:
            keep = keep[np.argsort(-counts[keep], kind="stable")[:self.max_values]]
        if not keep.size:
            return
        uk, cxk, cyk = uniq[keep], cx[keep], cy[keep]

        def label(v: Any) -> str:
            if ox.kind == "label":
                return f"x == {codec.labels[int(v)]!r}"
            if ox.kind == "vector":
                return f"x == {np.frombuffer(v.tobytes(), dtype=np.int64).tolist()}"
            return f"x == {v.item()!r}"

        ev: list[Event] = [ValueSetEvent(uk[i:i + 1], label(uk[i])) for i in range(uk.size)]
        self.add(ev, cxk, cyk, "value")
        if uk.size < 2:
            return

        def make_set(idx: np.ndarray) -> Event:
            vals = uk[idx]
            shown = ", ".join(label(v)[5:] for v in vals[:4]) + (", ..." if vals.size > 4 else "")
            return ValueSetEvent(vals, f"x in {{{shown}}} ({vals.size} values)")

        self.ordered_sets(cxk, cyk, make_set, "valueset", "valueset")
        if self.learned:
            self.randomized_sets(cxk, cyk, make_set, lambda i: ValueSetEvent(uk[i:i + 1], label(uk[i])))

    def randomized_sets(self, cxk: np.ndarray, cyk: np.ndarray, make_set: Callable[[np.ndarray], Event],
                        make_value: Callable[[int], Event]) -> None:
        """Learned randomised events: the likelihood-ratio ordering of the values on the selection batch (the
        frequency classifier), its first ``k`` values (``k = 0, 1, ...``, at most 512) plus value ``k + 1`` kept
        with probability ``gamma`` (:data:`RANDOMIZED_GAMMAS`), each direction, scored on the expected selection
        counts ``c(S) + gamma c(v)``.  Implements: AUDIT (learned randomised events)."""
        for forward in (True, False):
            num, den = (cxk, cyk) if forward else (cyk, cxk)
            order = np.argsort(-(num + 0.5) / (den + 0.5), kind="stable")
            m = min(order.size, 512)
            base_x = np.concatenate([[0.0], np.cumsum(num[order])])[:m]
            base_y = np.concatenate([[0.0], np.cumsum(den[order])])[:m]
            g = np.repeat(np.asarray(RANDOMIZED_GAMMAS), m)
            k = np.tile(np.arange(m), len(RANDOMIZED_GAMMAS))
            sc = self.score(base_x[k] + g * num[order][k], base_y[k] + g * den[order][k])
            self.fams["learned"] = self.fams.get("learned", 0) + sc.size

            def make(i: int, order: np.ndarray = order, k: np.ndarray = k, g: np.ndarray = g) -> Event:
                kk, gamma = int(k[i]), float(g[i])
                edge = make_value(int(order[kk]))
                base = make_set(order[:kk])
                return RandomizedEvent(base, edge, gamma, f"{base.description} or ({edge.description}) with "
                                                          f"probability {gamma:g}")

            self.keep(sc, make, forward, "learned")


def search_pair(
    pair: int,
    ox: Outputs,
    oy: Outputs,
    s: int,
    n: int,
    a: float,
    delta: float,
    n_thresholds: int,
    max_values: int,
    codec: Codec,
    categorical: Sequence[Any] = (),
    float_bits: bool = False,
    mlp: bool = False,
    learned: bool = False,
    score: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    counts_score: selection.CountScores | None = None,
) -> tuple[list[Candidate], dict[str, int]]:
    """Candidates ``(score, pair, event, direction)`` of one pair and the number built per family.

    ``ox``, ``oy``: the pair's selection outputs (``s`` each); ``n``: estimation trials and ``a`` the
    planned per-test level that the anticipated bound assumes.  ``score(kx, ky)``, when given, replaces the
    anticipated epsilon bound as the ranking of events counted ``kx`` (numerator) vs ``ky`` out of ``s``
    (the hockey-stick tester ranks by :func:`semiprivate.theory.audit.selection.anticipated_hockey_stick`);
    the cross-fitted pattern sets keep their own epsilon score (family ``"patternset"``).  ``counts_score``: the
    default ranking's tables (:class:`semiprivate.theory.audit.selection.CountScores` at ``(s, n, a, delta)``),
    shared by the pairs of one audit; by default the search builds its own."""
    if ox.kind != oy.kind or (ox.num is not None and oy.num is not None and ox.num.shape[1:] != oy.num.shape[1:]):
        raise ValueError("outputs under the two datasets have different shapes/kinds; "
                         "return labels (e.g. tuples) if the output space itself differs")
    search = _Search(pair, s, n, a, delta, n_thresholds, max_values)
    search.learned = bool(learned)
    search.scorer = score
    if counts_score is not None:
        if (counts_score.s, counts_score.n, counts_score.a, counts_score.delta) != (s, n, float(a), float(delta)):
            raise ValueError(f"counts_score is tabulated at (s, n, a, delta) = ({counts_score.s}, {counts_score.n}, "
                             f"{counts_score.a}, {counts_score.delta}), not at ({s}, {n}, {a}, {delta})")
        search.counts_score = counts_score
    coords: list[int] = []
    if ox.kind == "scalar":
        assert ox.num is not None and oy.num is not None
        search.thresholds(ox.num.astype(np.float64), oy.num.astype(np.float64), None, "x", "thr")
    elif ox.kind == "vector":
        assert ox.num is not None and oy.num is not None
        coords = search.vector(ox.num.astype(np.float64), oy.num.astype(np.float64), ox.discrete, categorical, mlp)
    elif ox.table is not None and oy.table is not None and codec.schema is not None:
        search.table(ox.table, oy.table, codec)
    if float_bits and ox.num is not None and oy.num is not None and ox.num.dtype.kind == "f":
        search.bits(ox, oy, [None] if ox.kind == "scalar" else list(coords))
    atoms = ox.discrete or (ox.kind == "scalar" and has_repeats(ox.num) or has_repeats(oy.num))
    if ox.keys is not None and oy.keys is not None and atoms:
        search.values(ox, oy, codec)
    return search.cands, search.fams


def table_events(tx: np.ndarray, ty: np.ndarray, names: Sequence[str], declared: np.ndarray, numeric: Sequence[int],
                  codec: Codec | None, value_family: Callable[..., None], add_lazy: Callable[..., None],
                  n_thresholds: int) -> None:
    """Value events on categorical columns and joint events ``{x[j] == v and x[i] > t}`` (or ``<= t``).

    ``declared`` marks the categorical columns (declared, or non-numeric leaves of structured
    outputs); numeric columns with few integer values are added (:data:`MAX_AUTO_CATEGORIES`).
    Joint events cross the :data:`MAX_JOINT_COLUMNS` x :data:`MAX_JOINT_VALUES` categories with the
    ``numeric`` columns, ``min(n_thresholds, 64)`` thresholds each, counted on the rows of the
    category (so every count is out of the ``s`` selection draws).  Implements: AUDIT (joint events)."""
    d = tx.shape[1]
    cat = [j for j in range(d) if declared[j]]
    for j in numeric:  # auto-categorical among the (ranked) numeric columns only: bounded cost
        if declared[j]:
            continue
        col = np.concatenate([tx[:, j], ty[:, j]])
        col = col[~np.isnan(col)]
        if col.size and np.all(np.isfinite(col)) and np.all(col == np.round(col)):
            nu = np.unique(col).size
            if 2 <= nu <= MAX_AUTO_CATEGORIES:
                cat.append(j)
    if not cat:
        return

    def show(j: int, v: Any) -> str:
        if codec is not None and declared[j]:
            lab = codec.labels[int(v)]
            return repr(lab[1] if isinstance(lab, tuple) and len(lab) == 2 and lab[0] == "#leaf" else lab)
        return f"{float(v):g}"

    rank = []
    for j in cat:
        xv, yv = tx[:, j], ty[:, j]
        value_family(xv[~np.isnan(xv)], yv[~np.isnan(yv)],
                     lambda vals, desc, j=j: TableEvent([(j, vals)], None, desc),
                     lambda v, j=j: f"{names[j]} == {show(j, v)}", "cat")
        col = np.concatenate([xv, yv])
        vals, counts = selection.unique(col[~np.isnan(col)], return_counts=True)
        rank.append((-(vals.size > 1), j, vals[np.argsort(-counts, kind="stable")[:MAX_JOINT_VALUES]]))
    n_thr = min(n_thresholds, 64)
    # all joint candidates are counted first and scored in one call (one Beta-quantile pass)
    parts: list[tuple[np.ndarray, int, int, Any, str]] = []
    kxs: list[np.ndarray] = []
    kys: list[np.ndarray] = []
    for _, j, vals in sorted(rank, key=lambda r: r[0])[:MAX_JOINT_COLUMNS]:
        for v in vals:
            rows_x, rows_y = tx[tx[:, j] == v], ty[ty[:, j] == v]  # the category's rows, gathered once
            cond = f"{names[j]} == {show(j, v)}"
            for i in numeric:
                if i == j:
                    continue
                xv, yv = rows_x[:, i], rows_y[:, i]
                xv, yv = xv[~np.isnan(xv)], yv[~np.isnan(yv)]
                if xv.size == 0 or yv.size == 0:
                    continue
                t, cx, cy = threshold_candidates(xv, yv, n_thr)
                parts.append((t, i, j, v, cond))
                kxs.append(np.concatenate([cx, xv.size - cx]))
                kys.append(np.concatenate([cy, yv.size - cy]))
    if not parts:
        return
    ends = np.cumsum([k.size for k in kxs])

    def make(idx: int) -> Event:
        p = int(np.searchsorted(ends, idx, side="right"))
        t, i, j, v, cond = parts[p]
        r = idx - (int(ends[p - 1]) if p else 0)
        up = r < t.size
        th = float(t[r % t.size])
        return TableEvent([(j, np.array([v]))], (i, th, up), f"{cond} and {names[i]} {'>' if up else '<='} {th:.6g}")

    add_lazy(int(ends[-1]), make, np.concatenate(kxs), np.concatenate(kys), "joint", "joint")


def has_repeats(x: np.ndarray | None) -> bool:
    if x is None or x.ndim != 1:
        return False
    xs = np.sort(x)
    return bool(np.any(xs[1:] == xs[:-1]))

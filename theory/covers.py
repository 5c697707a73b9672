"""alpha-covers of a class from public unlabelled data (ABM19 Alg 1 steps 1-5, Def 2.7).

Implements: ABM19.Alg1.cover, ABM19.Def2.7 (empirical check), empirical disagreement.

Examples
--------
>>> from semiprivate.theory.classes import Thresholds
>>> cov = build_cover(Thresholds(8), [7, 3, 3, 200])
>>> len(cov), cov.hypotheses
(4, [0, 4, 8, 201])
>>> empirical_disagreement(Thresholds(8), 4, 8, [0, 5, 9, 100])
0.25
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.classes.base import ConceptClass, Dichotomies, check_hypothesis_list
from semiprivate.theory.classes.constraint import CONCEPT_CLASS
from semiprivate.validation import Optional, Real, validate_params

__all__ = ["Cover", "CoverCheck", "distinct_points", "build_cover", "empirical_disagreement",
           "disagreement_matrix", "empirical_cover_check"]


class Cover:
    """The finite class H~_Tpub of ABM19 Alg 1 (steps 1-5).

    Attributes
    ----------
    points : ndarray
        T~: the distinct points of T_pub (step 1).
    patterns : ndarray of bool, shape (k, |T~|)
        Pi_H(T~) (step 2), computed lazily (it can have |T~|^2 or more rows).
    hypotheses : list
        One representative h in H per dichotomy (steps 3-5).
    """

    def __init__(self, dichotomies: Dichotomies) -> None:
        if not isinstance(dichotomies, Dichotomies):
            raise TypeError(f"dichotomies must be a Dichotomies (from ConceptClass.dichotomies), "
                            f"got {type(dichotomies).__name__}")
        self.dichotomies = dichotomies
        self.points = dichotomies.points
        self.hypotheses = list(dichotomies.representatives)

    @property
    def patterns(self) -> np.ndarray:
        return self.dichotomies.patterns

    def __len__(self) -> int:
        return len(self.hypotheses)


@dataclass
class CoverCheck:
    """Result of :func:`empirical_cover_check`.

    ``radius`` = max over probes of min over the cover of the empirical disagreement on the
    fresh sample; ``worst_probe`` its index; ``is_cover`` = radius <= alpha (when alpha given).
    """

    radius: float
    worst_probe: int
    per_probe: np.ndarray
    is_cover: bool | None


@validate_params(concept_class=CONCEPT_CLASS)
def distinct_points(concept_class: ConceptClass, T_pub: Any) -> np.ndarray:
    """ABM19 Alg 1 step 1: the set T~ of points appearing at least once in T_pub.

    Implements: ABM19.Alg1.cover (step 1).  Order: sorted (lexicographically for vectors).
    """
    T = concept_class.validate_points(T_pub, "T_pub", allow_empty=True)
    if len(T) == 0:
        return T
    return np.unique(T, axis=0)


@validate_params(concept_class=CONCEPT_CLASS)
def build_cover(concept_class: ConceptClass, T_pub: Any) -> Cover:
    """ABM19 Alg 1 steps 1-5: the finite class H~_Tpub from public unlabelled points.

    Implements: ABM19.Alg1.cover.  Step 1: distinct points T~; step 2: Pi_H(T~) (by the
    structure of the class, :meth:`ConceptClass.dichotomies`); steps 3-5: one representative
    per dichotomy.  With |T_pub| = n_pub from ABM19 Lem 3.3
    (:func:`semiprivate.theory.bounds.abm19.abm19_public_sample_size`) the result is an alpha-cover of H
    w.r.t. D_X with probability >= 1 - beta.  An empty T_pub gives one hypothesis (any
    hypothesis represents the single empty dichotomy).

    Parameters
    ----------
    concept_class : ConceptClass
    T_pub : array
        Public unlabelled points (repeats allowed).

    Returns
    -------
    Cover
    """
    Tt = distinct_points(concept_class, T_pub)
    return Cover(concept_class.dichotomies(Tt))


@validate_params(concept_class=CONCEPT_CLASS)
def disagreement_matrix(concept_class: ConceptClass, hyps_a: list[Any], hyps_b: list[Any], X: Any) -> np.ndarray:
    """Empirical disagreement dis^(a_i, b_j; X) for all pairs, shape (len(a), len(b)).

    Implements: ABM19 Sec 2 (empirical disagreement), computed as one matrix product.

    Counts are exact: float64 products of 0/1 matrices are integers below 2^53 (float32 lost
    counts above 2^24 points), converted to int64 before the division.
    """
    hyps_a = check_hypothesis_list(hyps_a, "hyps_a")
    hyps_b = check_hypothesis_list(hyps_b, "hyps_b")
    Xv = concept_class.validate_points(X, "X")
    A = concept_class.evaluate_many(hyps_a, Xv).astype(np.float64)
    B = concept_class.evaluate_many(hyps_b, Xv).astype(np.float64)
    n = len(Xv)
    # dis(a, b) = |a| + |b| - 2 |a and b|
    counts = A.sum(axis=1)[:, None] + B.sum(axis=1)[None, :] - 2.0 * (A @ B.T)
    return np.asarray(np.rint(counts).astype(np.int64) / n)


@validate_params(concept_class=CONCEPT_CLASS)
def empirical_disagreement(concept_class: ConceptClass, h1: Any, h2: Any, X: Any) -> float:
    """dis^(h1, h2; X) = (1/n) sum_i 1[h1(x_i) != h2(x_i)] (ABM19 Sec 2).

    Implements: ABM19 Sec 2 (empirical disagreement).
    """
    Xv = concept_class.validate_points(X, "X")
    return float(np.mean(concept_class.evaluate(h1, Xv) != concept_class.evaluate(h2, Xv)))


@validate_params(concept_class=CONCEPT_CLASS, alpha=Optional(Real(0.0, 1.0)))
def empirical_cover_check(
    concept_class: ConceptClass,
    cover: Cover | list[Any],
    probes: list[Any],
    X_fresh: Any,
    alpha: float | None = None,
) -> CoverCheck:
    """Empirical alpha-cover check: max over probes h of min over h~ in the cover of dis^(h, h~).

    Implements: ABM19.Def2.7 (empirical version).  The disagreement is estimated on a fresh
    sample ``X_fresh`` from D_X (independent of the public data the cover was built from).

    Parameters
    ----------
    concept_class : ConceptClass
    cover : Cover or list of hypotheses
    probes : list
        Hypotheses of H to test (e.g. random ones plus adversarial ones between cover points).
    X_fresh : array
        Fresh points from D_X.
    alpha : float, optional
        If given, ``is_cover`` reports radius <= alpha.

    Returns
    -------
    CoverCheck
    """
    hyps = cover.hypotheses if isinstance(cover, Cover) else check_hypothesis_list(cover, "cover")
    probes = check_hypothesis_list(probes, "probes")
    if not probes:
        raise ValueError("probes must not be empty")
    if not hyps:
        raise ValueError("cover must not be empty")
    Xv = concept_class.validate_points(X_fresh, "X_fresh")
    nearest = _nearest_disagreement(concept_class, cover, Xv) if isinstance(cover, Cover) else None
    if nearest is not None:
        n = len(Xv)
        per = np.array([nearest(h) / n for h in probes], dtype=np.float64)
    else:
        per = np.empty(len(probes))
        chunk = max(1, int(2e7 // max(1, len(hyps) * len(Xv))))
        for start in range(0, len(probes), chunk):
            M = disagreement_matrix(concept_class, list(probes[start:start + chunk]), hyps, Xv)
            per[start:start + chunk] = M.min(axis=1)
    worst = int(np.argmax(per))
    radius = float(per[worst])
    return CoverCheck(radius=radius, worst_probe=worst, per_probe=per,
                      is_cover=None if alpha is None else bool(radius <= alpha))


def _nearest_disagreement(concept_class: ConceptClass, cover: Cover, Xv: np.ndarray) -> Any:
    """For 1-d classes: a function h -> min over the cover of #{x in Xv : h(x) != h~(x)} (an int), else None.

    Which members can be nearest: thresholds: the cover is {0} ∪ {x + 1 : x in T~}; the nearest cover
    thresholds below and above t minimise the disagreement on any sample.  Intervals (and 1-d
    rectangles): the cover holds the empty interval and [u, v] for all u <= v in T~; for a probe
    [a, b] the disagreement of an overlapping [u, v] is (#points between a and u) + (#points between b
    and v), minimised by the neighbours of a and of b in T~, and a disjoint one is never better than
    the empty interval.  So the minimum over these <= 5 members is the exact minimum over the whole
    cover.

    How it is counted: each hypothesis of these classes labels 1 exactly the points of one integer
    range [lo, hi) (c_t: [0, t); [a, b]: [a, b + 1); empty: [0, 0)), so the disagreement of two of
    them is |R1| + |R2| - 2 |R1 ∩ R2|, each count a binary search in the sorted sample: the same
    integers as comparing their labelings point by point (``evaluate_many``), in O(log n) per pair.
    Every probe and member is validated by the class as ``evaluate_many`` validates it.
    """
    from semiprivate.theory.classes import Intervals, Rectangles, Thresholds

    is_thr = isinstance(concept_class, Thresholds)
    wrap = isinstance(concept_class, Rectangles) and concept_class.l == 1
    if not (is_thr or wrap or isinstance(concept_class, Intervals)):
        return None
    xs = np.sort(Xv.reshape(-1)).tolist()  # the sample's points as Python ints, sorted

    def count(lo: int, hi: int) -> int:  # #points in [lo, hi)
        return bisect.bisect_left(xs, hi) - bisect.bisect_left(xs, lo) if lo < hi else 0

    def nearest_of(spans: list[tuple[int, int]]) -> int:
        (a, b), rest = spans[0], spans[1:]
        size = count(a, b)
        return min(size + count(u, v) - 2 * count(max(a, u), min(b, v)) for u, v in rest)

    if is_thr:
        ts = sorted(int(t) for t in cover.hypotheses)
        check_t = concept_class._check_h

        def thr(h: Any) -> int:
            t = check_t(h)
            i = bisect.bisect_right(ts, t)
            cands = sorted({ts[max(i - 1, 0)], ts[min(i, len(ts) - 1)]})
            return nearest_of([(0, t)] + [(0, check_t(c)) for c in cands])

        return thr
    vals = sorted(int(v) for v in np.asarray(cover.points).reshape(-1))
    check_h = concept_class._check_h

    def span(h: Any) -> tuple[int, int]:
        box = check_h(h)
        if box is None:
            return (0, 0)
        return (box[0][0], box[1][0] + 1) if wrap else (box[0], box[1] + 1)

    def near(x: int) -> set[int]:
        i = bisect.bisect_left(vals, x)
        out = set()
        if i < len(vals):
            out.add(vals[i])
        j = bisect.bisect_right(vals, x) - 1
        if j >= 0:
            out.add(vals[j])
        return out

    def itv(h: Any) -> int:
        cands: list[Any] = [None]
        if h is not None and vals:
            a, b = (int(h[0][0]), int(h[1][0])) if wrap else (int(h[0]), int(h[1]))
            for u in near(a):
                for v in near(b):
                    if u <= v:
                        cands.append(((u,), (v,)) if wrap else (u, v))
        return nearest_of([span(h)] + [span(c) for c in cands])

    return itv

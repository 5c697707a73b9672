"""Pooled two-direction tests: one exact conditional test of ``P_A(E) + P_B(F) <= e^eps (P_B(E) + P_A(F))``.

Implements: AUDIT (``interval="poisson-conditional"``: pooled two-direction tests).

An (eps, 0)-DP mechanism satisfies ``P_A(E) <= e^eps P_B(E)`` and ``P_B(F) <= e^eps P_A(F)`` for every
pair of neighbouring inputs ``A``, ``B`` and every pair of events ``E``, ``F``; summing the two,

    ``P_A(E) + P_B(F) <= e^eps (P_B(E) + P_A(F))``.

A pooled test bounds the ratio of the two sides with one exact conditional binomial test
(:mod:`semiprivate.theory.audit.conditional`).  With ``F' = F minus E`` (so ``E`` and ``F'`` are disjoint;
``P_B(F') <= e^eps P_A(F')`` holds for ``F'`` as for any event) and Poisson-sized batches ``N_A, N_B ~
Poisson(lam)``, the four counts ``k_A(E), k_A(F'), k_B(E), k_B(F')`` are independent Poisson variables
(thinning of one Poisson process by disjoint events), so

    ``X = k_A(E) + k_B(F') ~ Poisson(lam (P_A(E) + P_B(F')))``,
    ``Y = k_B(E) + k_A(F') ~ Poisson(lam (P_B(E) + P_A(F')))``

are independent and, given ``X + Y = T``, ``X ~ Binomial(T, r)`` with ``r / (1 - r)`` the ratio of the two
sides: one Clopper–Pearson lower bound on ``r`` at the test's level gives ``eps >= log(r / (1 - r))``
with the test's confidence, exactly as a one-direction test does (:func:`ratio_epsilon_bound`).  The
disjointness is what makes ``X`` and ``Y`` independent: with ``E`` and ``F`` overlapping, ``k_A(E)`` and
``k_A(F)`` share outputs.

Where it helps: a symmetric pair (Laplace on 0 and 1, a histogram and its mirror) has its best event in
each direction with the same loss, and the pooled test counts both: about twice the events at the same
ratio, so the bound's distance to the true log ratio shrinks by about ``sqrt(2)``.  Where the two
directions differ, the pooled ratio is a weighted mean of the two and may lose to the better one alone;
the audit offers pooled tests beside the one-direction ones and keeps whichever wins its choice batch, so
the multiplicity control is unchanged (the choice never sees the estimation outputs; with
``estimate_on="all"`` the kept pooled tests are counted in ``K`` like any other).

The pooled events are built from the pair's selection candidates only (:func:`pooled_candidates`): the
best event of each of the :data:`POOLED_SIDES` best families in each direction, paired.  Counting needs
``delta = 0`` and Poisson sizes, so pooled tests are built with ``interval="poisson-conditional"`` only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.audit.candidates import Candidate
from semiprivate.theory.audit.draws import Outputs
from semiprivate.theory.audit.events import Event
from semiprivate.theory.audit.selection import anticipated_bound

__all__ = ["POOLED_SIDES", "PooledEvent"]

#: per direction, how many events (the best of each of the best families) are paired into pooled tests
POOLED_SIDES = 3


class DifferenceEvent(Event):
    """``{x in F and x not in E}``: ``F`` with ``E``'s outputs removed (disjoint from ``E`` by construction)."""

    def __init__(self, keep: Event, drop: Event) -> None:
        self.keep, self.drop = keep, drop
        self.description = f"{keep.description} and not ({drop.description})"

    def indicator(self, out: Outputs) -> np.ndarray:
        return np.asarray(self.keep.indicator(out), dtype=bool) & ~np.asarray(self.drop.indicator(out), dtype=bool)


class PooledEvent(Event):
    """The pooled test of a pair ``(A, B)``: ``forward`` (``E``, numerator ``A``) and ``backward``
    (``F' = F minus E``, numerator ``B``), counted as ``k_A(E) + k_B(F')`` against ``k_B(E) + k_A(F')``.

    It is a test over both inputs, not an event of one output: :meth:`indicator` is refused."""

    def __init__(self, forward: Event, backward: Event) -> None:
        for name, ev in (("forward", forward), ("backward", backward)):
            if not isinstance(ev, Event) or isinstance(ev, PooledEvent):
                raise TypeError(f"{name} must be an output Event (not a pooled test), got {type(ev).__name__}")
        self.forward = forward
        self.backward = DifferenceEvent(backward, forward)
        self.description = (f"{forward.description}, data -> neighbour; pooled with "
                            f"{backward.description} (outside the first), neighbour -> data")

    def indicator(self, out: Outputs) -> np.ndarray:
        raise TypeError("a pooled test counts two events, one per input (PooledEvent.forward under the data, "
                        "PooledEvent.backward under the neighbour): use those events' indicators")


def count_plan(c: Candidate, index: list[tuple[int, int]]) -> list[tuple[int, Event]]:
    """(dataset index, event) pairs that candidate ``c``'s test needs counted."""
    i0, i1 = index[c.pair]
    if isinstance(c.event, PooledEvent):
        e, f = c.event.forward, c.event.backward
        return [(i0, e), (i1, e), (i0, f), (i1, f)]
    return [(i0, c.event), (i1, c.event)]


def pair_counts(c: Candidate, index: list[tuple[int, int]],
                counts: dict[tuple[int, int], int]) -> tuple[int, int]:
    """(numerator count, other count) of ``c``'s test from ``counts`` keyed by (dataset, ``id(event)``)."""
    i0, i1 = index[c.pair]
    if isinstance(c.event, PooledEvent):
        e, f = id(c.event.forward), id(c.event.backward)
        return counts[(i0, e)] + counts[(i1, f)], counts[(i1, e)] + counts[(i0, f)]
    num, oth = (i0, i1) if c.forward else (i1, i0)
    return counts[(num, id(c.event))], counts[(oth, id(c.event))]


def sides(c: Candidate) -> int:
    """How many inputs' outputs a test's counts add up (2 for a pooled test, else 1): the anticipated
    bound scores a pooled test as ``2 s`` draws of frequency ``(P_A(E) + P_B(F')) / 2``."""
    return 2 if isinstance(c.event, PooledEvent) else 1


def _best_per_family(cands: list[Candidate], forward: bool) -> list[Candidate]:
    best: dict[Any, Candidate] = {}
    for c in cands:
        if c.forward == forward and not isinstance(c.event, PooledEvent):
            if c.group not in best or c.score > best[c.group].score:
                best[c.group] = c
    return sorted(best.values(), key=lambda c: -c.score)[:POOLED_SIDES]


def pooled_candidates(pair: int, found: list[Candidate], ox: Outputs, oy: Outputs, s: int, n: int,
                      a: float) -> tuple[list[Candidate], int]:
    """Pooled tests of one pair from its selection candidates ``found`` (outputs ``ox`` under the pair's
    first input, ``oy`` under the second, ``s`` each): the best event of each of the :data:`POOLED_SIDES`
    best families in each direction, every forward one paired with every backward one, scored by the
    selection's anticipated bound (:func:`semiprivate.theory.audit.selection.anticipated_bound` at ``2 s``
    draws and ``2 n`` trials, level ``a``) on the pooled counts.  Returns the candidates and their number.

    The events and scores come from the selection batch only, as every other candidate's."""
    found = [c for c in found if not getattr(c.event, "coins", False)]  # a randomised event's coins are the counter's
    fwd, bwd = _best_per_family(found, True), _best_per_family(found, False)
    if not fwd or not bwd:
        return [], 0
    ind: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for c in fwd + bwd:
        if id(c.event) not in ind:
            ind[id(c.event)] = (np.asarray(c.event.indicator(ox), dtype=bool),
                                np.asarray(c.event.indicator(oy), dtype=bool))
    out: list[Candidate] = []
    kx, ky, events = [], [], []
    for e in fwd:
        ex, ey = ind[id(e.event)]
        for f in bwd:
            fx, fy = ind[id(f.event)]
            # k_A(E) + k_B(F minus E) against k_B(E) + k_A(F minus E)
            kx.append(int(np.count_nonzero(ex)) + int(np.count_nonzero(fy & ~ey)))
            ky.append(int(np.count_nonzero(ey)) + int(np.count_nonzero(fx & ~ex)))
            events.append(PooledEvent(e.event, f.event))
    scores = anticipated_bound(np.asarray(kx, dtype=np.float64), np.asarray(ky, dtype=np.float64), 2 * s, 2 * n, a,
                               0.0)
    for i, (sc, ev) in enumerate(zip(scores, events)):
        out.append(Candidate(float(sc), pair, ev, True, (pair, f"pooled{i}", True)))
    return out, len(out)

"""Event selection for :func:`theory.audit.audit_pairs` (Implements: AUDIT, selection stage).

The audit splits its samples: a *selection* batch of ``s`` outputs per dataset ranks candidate
(pair, event, direction) tuples, the best ``K`` are kept, and a fresh *estimation* batch of ``n``
outputs per dataset tests them with Clopper–Pearson intervals at level ``alpha / (2K)`` each
(Bonferroni over the ``2K`` one-sided intervals of the tests finally run; ``K`` is fixed before the
estimation batch is drawn, so the correction is valid whatever the selection did).

Two rules keep the selection from wasting the ``K`` slots:

* :func:`anticipated_bound` scores an event by the bound the estimation batch would give if the
  true frequencies were at the *pessimistic* end of the selection batch's own Clopper–Pearson
  intervals (level ``a``, the planned per-test level): ``p = cp_lower(kx, s, a)``,
  ``q = cp_upper(ky, s, a)``, then ``epsilon_bound(cp_lower(p n, n, a), cp_upper(q n, n, a), delta)``.
  An event seen ``3`` vs ``0`` times (a sample extreme) gets ``p ~ 0.8/s``, ``q ~ 3.7/s``: a bound
  of 0, where plugging the raw frequencies ``3/s`` vs ``0`` in gave a large score that collapsed on
  the fresh batch.
* :func:`pick` gives every pair a slot (its best event, pairs ordered by that score) before it fills
  the remaining slots by diversity groups and score; :func:`planned_tests` makes ``K`` at least the
  number of pairs (up to :data:`MAX_PAIR_SLOTS`) so every pair is examined.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theory.audit.stats import cp_lower, cp_upper, epsilon_bound

__all__ = ["MAX_PAIR_SLOTS", "anticipated_bound", "pick", "planned_tests"]

#: pairs beyond this many do not each get a reserved slot (the Bonferroni factor would grow with them)
MAX_PAIR_SLOTS = 32


def anticipated_bound(kx: Any, ky: Any, s: int, n: int, a: float, delta: float) -> np.ndarray:
    """Pessimistic anticipated epsilon bound of events counted ``kx`` vs ``ky`` in ``s`` selection draws.

    Examples
    --------
    >>> import numpy as np
    >>> b = anticipated_bound(np.array([3.0, 3000.0]), np.array([0.0, 1000.0]), 10_000, 100_000, 0.01, 0.0)
    >>> bool(b[0] <= 0), round(float(b[1]), 2)  # 3 vs 0 wins nothing; 3000 vs 1000 keeps ~log 3
    (True, 0.96)
    """
    kx = np.asarray(kx, dtype=np.float64)
    ky = np.asarray(ky, dtype=np.float64)
    p = cp_lower(kx, s, a)
    q = cp_upper(ky, s, a)
    return epsilon_bound(cp_lower(p * n, n, a), cp_upper(q * n, n, a), delta)


def planned_tests(max_events: int, n_pairs: int) -> int:
    """Number of tests ``K`` planned: ``max(max_events, min(n_pairs, MAX_PAIR_SLOTS))``."""
    return max(int(max_events), min(int(n_pairs), MAX_PAIR_SLOTS))


def pick(cands: list[Any], k: int) -> list[Any]:
    """Keep ``k`` candidates (objects with ``score``, ``pair``, ``group``): each pair's best first,
    then the best of each group, then the rest by score; returned by decreasing score."""
    cands = sorted(cands, key=lambda c: -c.score)
    chosen: list[Any] = []
    taken: set[int] = set()

    def take(c: Any) -> None:
        chosen.append(c)
        taken.add(id(c))

    seen_pairs: set[Any] = set()
    for c in cands:  # one slot per pair
        if len(chosen) >= k:
            break
        if c.pair not in seen_pairs:
            seen_pairs.add(c.pair)
            take(c)
    seen_groups = {c.group for c in chosen}
    for c in cands:  # then diversity over groups
        if len(chosen) >= k:
            break
        if c.group not in seen_groups and id(c) not in taken:
            seen_groups.add(c.group)
            take(c)
    for c in cands:
        if len(chosen) >= k:
            break
        if id(c) not in taken:
            take(c)
    chosen.sort(key=lambda c: -c.score)
    return chosen

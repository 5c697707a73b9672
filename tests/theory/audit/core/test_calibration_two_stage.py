"""Calibration of the two-stage audit (``estimate_on="best"``): Laplace on eight tight pairs.

The two-stage design keeps the best of the ``K`` tests on a choice batch and estimates it alone, at
level ``alpha / 2``, with no correction for the tests dropped; that is valid only because the choice
never sees the estimation outputs.  Case: ``LaplaceMechanism(1.0)`` (scale 1) on the pairs
(0, 1), (1, 2), ..., (7, 8), each tight (true epsilon = claim = 1), nine datasets, ``K = 8`` tests
offered to the choice, TRIALS = 2,000 estimation outputs per dataset and as many selection outputs,
confidence 0.8 (alpha = 0.2, generous, so that an anti-conservative audit shows; the audit
guarantees <= 20% flags per seed).

Reference: the correct audit flagged 35 of 1200 other seeds (300_000 + i, same settings); the
1 - 1e-4 Clopper-Pearson upper bound of that rate is P_REF (5.16%; limit 24 flags of R = 200).  The
test fails when the flags over R = 200 seeds (1000 + i) exceed the 1 - 1e-4 quantile of
Binomial(R, P_REF): false-failure rate <= 1e-4 (binomial) + 1e-4 (reference bound).  Power, measured on
these 200 seeds (the correct audit: 4 flags): with the selection batch re-used (choice and estimation
outputs replayed from it, :class:`semiprivate.theory.audit.broken.ReplayFirstBatch`) 129 flags; with
the best of the ``K`` tests chosen on the estimation counts themselves (no choice batch, level
``alpha / 2``; the choice stage replaced in the test, :func:`_choose_on_estimation_counts`) 47 flags;
both far above the limit, and each kept as a test that must exceed it.  (With three pairs, ``K = 4``,
the second break flagged only 21 of 200: too few tests to choose among, so the case has eight.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.stats import beta, binom
from semiprivate.theory.audit import audit_pairs, core
from semiprivate.theory.audit.broken import ReplayFirstBatch
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.audit.pvalues import bounds_at
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 200
TRIALS = 2_000
CONFIDENCE = 0.8
REF_FLAGS, REF_SEEDS = 35, 1200
P_REF = float(beta.ppf(1 - 1e-4, REF_FLAGS + 1, REF_SEEDS - REF_FLAGS))
LIMIT = int(binom.isf(1e-4, R, P_REF))
PAIRS = [(float(i), float(i + 1)) for i in range(8)]


def _flags(broken: bool, stop_above: int | None = None) -> int:
    """Flags over the seeds 1000 + i, i < R; with ``stop_above``, the count as soon as it exceeds it (a
    "must exceed the limit" test: the rest of the seeds cannot change that verdict)."""
    mech = LaplaceMechanism(1.0)
    flags = 0
    for i in range(R):
        flags += audit_pairs(ReplayFirstBatch(mech) if broken else mech, PAIRS, epsilon=1.0, trials=TRIALS,
                             confidence=CONFIDENCE, rng=1000 + i,
                             options=AuditOptions(selection_trials=TRIALS, estimate_on="best")).violation
        if stop_above is not None and flags > stop_above:
            break
    return flags


def _choose_on_estimation_counts(mechanism: Any, datasets: list[Any], index: list[tuple[int, int]], offered: list[Any],
                                 rounds: list[int], n_best: int, budget: int, alpha: float, delta: float,
                                 g: np.random.Generator, codec: Any, bar: Any, *_: Any) -> tuple[list[Any], int]:
    """The break of the choice stage (replaces ``core._choose_best``): no choice batch; every offered test
    is estimated as ``estimate_on="all"`` would (``n = budget / D`` outputs per dataset, the datasets drawn
    one after the other), and the one with the largest bound at the level ``alpha / 2`` of a single test is
    kept and reported on the very counts that chose it: the generator is put back to its state before the
    kept pair's first dataset, and the returned outputs used, ``budget - 2 n``, leave the estimation ``n``
    per dataset, so it draws the same outputs again (datasets in the same order, same sizes)."""
    assert n_best == 1
    n = budget // len(datasets)
    per_dataset = core._events_per_dataset(offered, index)
    state: dict[int, Any] = {}
    counts: dict[tuple[int, int], int] = {}
    for j in sorted(per_dataset):
        state[j] = g.bit_generator.state
        for e, k in zip(per_dataset[j], core._count(mechanism, datasets[j], per_dataset[j], n, g, codec)):
            counts[(j, id(e))] = int(k)
    bounds = []
    for c in offered:
        i0, i1 = index[c.pair] if c.forward else index[c.pair][::-1]
        kn, ko = np.array([counts[(i0, id(c.event))]]), np.array([counts[(i1, id(c.event))]])
        bounds.append(float(bounds_at(kn, ko, n, alpha / 2, delta)[0]))
    best = offered[int(np.argmax(bounds))]
    kept = sorted(core._events_per_dataset([best], index))
    assert kept == list(range(kept[0], kept[0] + len(kept)))  # drawn one after the other above
    g.bit_generator.state = state[kept[0]]
    return [best], budget - n * len(kept)


def test_reference_limits() -> None:
    assert 0.0 < P_REF < 0.06 and LIMIT < 0.65 * R * (1 - CONFIDENCE)  # 24 flags: 12%, well below the guaranteed 20%


def test_two_stage_false_flag_rate_on_tight_laplace_pairs() -> None:
    flags = _flags(broken=False)
    assert flags <= LIMIT, f"{flags}/{R} flagged; the correct two-stage audit flags <= {P_REF:.2%} (limit {LIMIT})"


def test_two_stage_selection_batch_reuse_is_caught() -> None:
    """Power of the test above: the break must exceed the limit (the 'must fail' side)."""
    flags = _flags(broken=True, stop_above=LIMIT)
    assert flags > LIMIT, f"selection batch reused: only {flags}/{R} flagged (limit {LIMIT})"


def test_two_stage_choice_on_the_estimation_counts_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Power of the test above against the second break: the best of the ``K`` tests chosen on its own
    estimation counts (no correction for the ``K - 1`` dropped) must exceed the limit."""
    monkeypatch.setattr(core, "_choose_best", _choose_on_estimation_counts)
    flags = _flags(broken=False, stop_above=LIMIT)
    assert flags > LIMIT, f"test chosen on the estimation counts: only {flags}/{R} flagged (limit {LIMIT})"

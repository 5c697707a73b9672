"""The two-stage design's choice stage step by step (:func:`semiprivate.theory.audit.core._choose_best`),
with prescribed counts: which counts each offered test is scored on (its direction), the trials and level
the scores anticipate, how many tests each round keeps and how (best overall, then each event group's
best, no per-pair slots), and what reaches the counting.  Also the progress of the counting itself
(:func:`semiprivate.theory.audit.core._count_datasets`) and the rounds' integer sizes."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit import core, selection
from semiprivate.theory.audit.candidates import Candidate
from semiprivate.theory.audit.draws import Codec
from semiprivate.theory.audit.events import UserEvent

INDEX = [(0, 1), (2, 1)]  # pair 1's first dataset is dataset 2
BUDGET = 3 * 100_000
ALPHA = 0.1
ROUNDS = [1_000, 2_000, 4_000]
# (pair, forward, group, rate on the numerator dataset, rate on the other): by decreasing log ratio,
# except k3 (pair 1, backward, the weakest) and k9 (group B's only test)
SPEC = [(0, True, "A", 0.200), (0, True, "A", 0.190), (0, True, "A", 0.180), (1, False, "A", 0.105),
        (0, True, "A", 0.160), (0, True, "A", 0.150), (0, True, "A", 0.140), (0, True, "A", 0.130),
        (0, True, "A", 0.125), (0, True, "B", 0.120)]
OTHER_RATE = 0.100
ANTICIPATED_BOUND = selection.anticipated_bound  # the real one (the tests record its calls)


def _offered() -> list[Candidate]:
    return [Candidate(0.0, pair, UserEvent(lambda o: np.asarray(o) > 0), fwd, (group,))
            for pair, fwd, group, _ in SPEC]


class _Stage:
    """Fake counting and scoring: counts ``round(n * rate)`` (the numerator dataset of test k at its
    rate, the other at OTHER_RATE); records what the counting receives and what the scores anticipate."""

    def __init__(self, offered: list[Candidate]) -> None:
        self.offered = offered
        self.counted: list[dict[str, Any]] = []
        self.scored: list[tuple[np.ndarray, np.ndarray, int, int, float, float]] = []

    def count(self, mechanism, datasets, per_dataset, n, g, codec, bar, executor, batch_size, timeout):
        self.counted.append(dict(per_dataset=per_dataset, n=n, codec=codec, bar=bar, executor=executor,
                                 batch_size=batch_size, timeout=timeout))
        out = {}
        for j, events in per_dataset.items():
            for e in events:
                k = next(i for i, c in enumerate(self.offered) if c.event is e)
                pair, fwd, _, rate = SPEC[k]
                numerator = INDEX[pair][0] if fwd else INDEX[pair][1]
                out[(j, id(e))] = round(n * (rate if j == numerator else OTHER_RATE))
        return out

    def score(self, kx, ky, s, n, a, delta):
        self.scored.append((np.array(kx), np.array(ky), s, n, a, delta))
        return ANTICIPATED_BOUND(kx, ky, s, n, a, delta)


def _run(monkeypatch, rounds, budget, **kw):
    offered = _offered()
    stage = _Stage(offered)
    monkeypatch.setattr(core, "_count_datasets", stage.count)
    monkeypatch.setattr(selection, "anticipated_bound", stage.score)
    kept, used = core._choose_best("mechanism", ["d0", "d1", "d2"], INDEX, offered, rounds, kw.get("n_best", 1), budget,
                                   ALPHA, 1e-9,
                                   np.random.default_rng(0), kw.get("codec", Codec()), kw.get("bar"),
                                   kw.get("executor"), kw.get("batch_size"), kw.get("timeout"))
    return offered, stage, kept, used


def test_each_round_scores_the_tests_on_their_own_direction_at_the_planned_trials_and_level(monkeypatch) -> None:
    offered, stage, kept, used = _run(monkeypatch, ROUNDS, BUDGET)
    # round 1 counts all three datasets; round 2 and 3 only pair 0's (the finalists have no pair-1 test)
    assert [sorted(c["per_dataset"]) for c in stage.counted] == [[0, 1, 2], [0, 1], [0, 1]]
    assert [c["n"] for c in stage.counted] == ROUNDS
    assert used == 1_000 * 3 + 2_000 * 2 + 4_000 * 2
    # the trials each score anticipates: (budget - drawn so far - at most what later rounds draw) / min(D, 2)
    later = [(2_000 + 4_000) * 3, 4_000 * 2, 0]
    drawn = [3_000, 7_000, 15_000]
    assert [sc[3] for sc in stage.scored] == [(BUDGET - d - lt) // 2 for d, lt in zip(drawn, later)]
    assert [sc[2] for sc in stage.scored] == ROUNDS
    assert all(sc[4] == ALPHA / 2 and sc[5] == 1e-9 for sc in stage.scored)
    # the backward test of pair 1 (k3) is scored with dataset 1 (index (2, 1) reversed) as numerator
    kx, ky = stage.scored[0][0], stage.scored[0][1]
    assert kx[3] == round(1_000 * 0.105) and ky[3] == round(1_000 * OTHER_RATE)
    assert kx[0] == 200 and ky[0] == 100
    # one test kept at the end, with its last round's score
    assert len(kept) == 1 and kept[0].event is offered[0].event
    assert kept[0].score == pytest.approx(float(ANTICIPATED_BOUND(
        [800], [400], 4_000, (BUDGET - 15_000) // 2, ALPHA / 2, 1e-9)[0]))
    assert kept[0].group == offered[0].group and kept[0].forward is True


def test_rounds_before_the_last_keep_the_best_then_each_groups_best_without_pair_slots(monkeypatch) -> None:
    offered, stage, kept, used = _run(monkeypatch, ROUNDS, BUDGET)
    second = stage.counted[1]["per_dataset"]
    finalists = {next(i for i, c in enumerate(offered) if c.event is e) for e in second[0]}
    # k0 (best), k9 (group B's best), then by score: k1 k2 k4 k5 k6 k7.  Pair slots would keep the weak
    # pair-1 test k3 instead of k7; dropping the groups would keep k8 instead of k9.
    assert finalists == {0, 9, 1, 2, 4, 5, 6, 7}


def test_counting_receives_the_callers_codec_bar_executor_batches_and_timeout(monkeypatch) -> None:
    codec, bar = Codec(), object()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        _, stage, _, _ = _run(monkeypatch, ROUNDS, BUDGET, codec=codec, bar=bar, executor=pool, batch_size=500,
                              timeout=7.5)
        assert all(c["codec"] is codec and c["bar"] is bar and c["executor"] is pool and c["batch_size"] == 500
                   and c["timeout"] == 7.5 for c in stage.counted)


def test_two_kept_tests_share_the_level_and_plan_on_all_three_datasets(monkeypatch) -> None:
    _, stage, kept, _ = _run(monkeypatch, [1_000], BUDGET, n_best=2)
    assert len(kept) == 2
    assert stage.scored[0][4] == ALPHA / 4  # alpha / (2 j), j = 2 kept tests
    assert stage.scored[0][3] == (BUDGET - 3_000) // 3  # min(D, 2 j) = 3 datasets


def test_planned_trials_are_at_least_one(monkeypatch) -> None:
    _, stage, _, _ = _run(monkeypatch, [1_000], 3_000)  # the one round uses the whole budget
    assert stage.scored[0][3] == 1


class _Bar:
    def __init__(self) -> None:
        self.updates: list[Any] = []

    def update(self, k: Any) -> None:
        self.updates.append(k)


def _mechanism(data: float, size: int, g: np.random.Generator) -> np.ndarray:
    return (g.random(size) < data).astype(np.float64)


@pytest.mark.parametrize("parallel", [False, True])
def test_counting_advances_the_bar_by_every_output(parallel) -> None:
    events = [UserEvent(lambda o: np.asarray(o) > 0)]
    bar = _Bar()
    kw = dict(executor=None, batch_size=None) if not parallel else dict(executor=None, batch_size=1_500)
    counts = core._count_datasets(_mechanism, [0.3, 0.6], {0: events, 1: events}, 5_000, np.random.default_rng(1),
                                  Codec(), bar, kw["executor"], kw["batch_size"], None)
    assert set(counts) == {(0, id(events[0])), (1, id(events[0]))}
    assert sum(bar.updates) == 10_000 and all(isinstance(u, int) and u > 0 for u in bar.updates)
    if parallel:
        assert bar.updates == [5_000, 5_000]  # one update per dataset once its batches are in


def test_round_sizes_are_integers() -> None:
    rounds = core._choice_rounds(500_000, 16_000_015)  # 16,000,015 / 16 is not an integer
    assert rounds == [500_000, 1_000_000] and all(type(r) is int for r in rounds)

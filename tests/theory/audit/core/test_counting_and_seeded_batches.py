"""semiprivate.theory.audit.core: how the estimation counts events (a probe, then chunks by output width) and
the seeded-batch branch (``batch_size`` / ``executor``): counts fixed by (rng, batch size), whoever runs them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit.options import AuditOptions


def _counting_mech(width: int, calls: list[int]) -> Any:
    def mech(data: Any, size: int, rng: Any) -> np.ndarray:
        calls.append(size)
        v = rng.integers(0, 4, size=size) + data
        return v if width == 1 else np.repeat(v[:, None], width, axis=1).astype(np.float64)

    return mech


def test_count_probes_then_chunks_by_width() -> None:
    from semiprivate.theory.audit.core import _count
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent

    calls: list[int] = []
    evs = [ThresholdEvent(1.5, True), ThresholdEvent(0.5, False)]
    cnt = _count(_counting_mech(1, calls), 0, evs, 5000, np.random.default_rng(3), Codec())
    assert calls == [1024, 3976] and cnt.dtype == np.int64
    g = np.random.default_rng(3)
    ref = np.concatenate([g.integers(0, 4, size=1024), g.integers(0, 4, size=3976)])
    assert cnt.tolist() == [int(np.sum(ref > 1.5)), int(np.sum(ref <= 0.5))]
    calls.clear()
    _count(_counting_mech(1, calls), 0, evs, 1000, np.random.default_rng(3), Codec())
    assert calls == [1000]
    calls.clear()
    # wide vectors: chunks of 2^21 / width elements, at least 1024 rows
    cnt = _count(_counting_mech(1024, calls), 0, [ThresholdEvent(1.5, True, 0)], 5000, np.random.default_rng(3),
                 Codec())
    assert calls == [1024, 2048, 1928]
    g = np.random.default_rng(3)
    ref = np.concatenate([g.integers(0, 4, size=m) for m in (1024, 2048, 1928)])
    assert cnt.tolist() == [int(np.sum(ref > 1.5))]
    calls.clear()
    _count(_counting_mech(4096, calls), 0, [ThresholdEvent(1.5, True, 0)], 3000, np.random.default_rng(3), Codec())
    assert calls == [1024, 1024, 952]
    # labels: the probe's length counts as done
    calls2: list[int] = []

    def lab(data: Any, size: int, rng: Any) -> np.ndarray:
        calls2.append(size)
        return np.array(["a", "b"] * (size // 2) + ["a"] * (size % 2))

    from semiprivate.theory.audit.events import ValueSetEvent

    c = Codec()
    c.encode(["a", "b"])
    assert _count(lab, 0, [ValueSetEvent(np.array([0]), "a")], 3001, np.random.default_rng(0), c).tolist() == [1501]
    assert calls2 == [1024, 1977]


def test_count_refuses_outputs_that_change_form() -> None:
    from semiprivate.theory.audit.core import _count
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent

    def mech(data: Any, size: int, rng: Any) -> Any:
        return np.zeros(size) if size == 1024 else np.zeros((size, 2))

    with pytest.raises(ValueError, match=r"^the mechanism's outputs changed form between batches \(\('scalar', \(\)\) "
                       r"-> vector\); return one consistent type \(numbers, fixed-length vectors or labels\)$"):
        _count(mech, 0, [ThresholdEvent(0.0, True)], 2000, np.random.default_rng(0), Codec())

    def mech2(data: Any, size: int, rng: Any) -> Any:
        return np.zeros((size, 2)) if size == 1024 else np.zeros((size, 3))

    with pytest.raises(ValueError, match=r"changed form between batches \(\('vector', \(2,\)\) -> vector\)"):
        _count(mech2, 0, [], 2000, np.random.default_rng(0), Codec())


def test_count_batch_is_count_on_the_seed_stream() -> None:
    from semiprivate.theory.audit.core import _count, _count_batch
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent, ValueSetEvent

    evs = [ThresholdEvent(1.5, True), ThresholdEvent(0.5, False)]
    calls: list[int] = []
    got = _count_batch(_counting_mech(1, calls), 0, evs, 3000, np.random.SeedSequence(11), Codec())
    want = _count(_counting_mech(1, []), 0, evs, 3000, np.random.default_rng(np.random.SeedSequence(11)), Codec())
    assert got.tolist() == want.tolist() and calls == [1024, 1976]
    g = np.random.default_rng(np.random.SeedSequence(11))
    ref = np.concatenate([g.integers(0, 4, size=1024), g.integers(0, 4, size=1976)])
    assert got.tolist() == [int(np.sum(ref > 1.5)), int(np.sum(ref <= 0.5))]
    assert got.tolist() != _count_batch(_counting_mech(1, []), 0, evs, 3000, np.random.SeedSequence(12),
                                        Codec()).tolist()
    # label outputs are coded with the codec passed (as it was after selection)
    codec = Codec()
    codec.encode(["b", "a"])

    def lab(data: Any, size: int, rng: Any) -> np.ndarray:
        return np.array(["a", "b", "c"])[rng.integers(0, 3, size=size)]

    got = _count_batch(lab, 0, [ValueSetEvent(np.array([1]), "a")], 2000, np.random.SeedSequence(3), codec)
    g = np.random.default_rng(np.random.SeedSequence(3))
    ref = np.concatenate([g.integers(0, 3, size=1024), g.integers(0, 3, size=976)])
    assert got.tolist() == [int(np.sum(ref == 0))] and codec.labels == ["b", "a", "c"]


def test_count_scalar_chunks_are_two_million_outputs() -> None:
    from semiprivate.theory.audit.core import _count
    from semiprivate.theory.audit.draws import Codec
    from semiprivate.theory.audit.events import ThresholdEvent

    calls: list[int] = []
    n = (1 << 20) + 4096
    cnt = _count(_counting_mech(1, calls), 0, [ThresholdEvent(1.5, True)], n, np.random.default_rng(1), Codec())
    assert calls == [1024, n - 1024]
    g = np.random.default_rng(1)
    ref = np.concatenate([g.integers(0, 4, size=1024), g.integers(0, 4, size=n - 1024)])
    assert cnt.tolist() == [int(np.sum(ref > 1.5))]


_BATCH_EVENTS = [lambda o: o > 0.6, lambda o: o <= 0.35]


def _uniform_shift(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return float(data) + np.random.default_rng(rng).random(size)


def _seeded_batch_counts(datasets: list[float], n: int, bs: int, seed: int) -> list[list[int]]:
    """The contract of semiprivate.theory.audit.batches, computed here from its statement: with user events nothing is drawn
    before estimation, so the root SeedSequence is the audit generator's first ``integers(2**63)``; one child per
    distinct dataset (order of first appearance), one grandchild per batch of ``bs`` (the last one smaller)."""
    root = np.random.SeedSequence(int(np.random.default_rng(seed).integers(2**63)))
    sizes = [bs] * (n // bs) + ([n % bs] if n % bs else [])
    out = []
    for d, child in zip(datasets, root.spawn(len(datasets))):
        c = [0] * len(_BATCH_EVENTS)
        for m, s in zip(sizes, child.spawn(len(sizes))):
            o = _uniform_shift(d, m, np.random.default_rng(s))
            c = [ci + int(np.count_nonzero(e(o))) for ci, e in zip(c, _BATCH_EVENTS)]
        out.append(c)
    return out


def _witness_counts(res: Any) -> list[tuple[int, int, int]]:
    return [w.counts for w in res.tests]


def _expected_witness_counts(ref: list[list[int]], n: int) -> list[tuple[int, int, int]]:
    """Witnesses in the order audit_pairs builds them: per pair, per event, data -> neighbour then back."""
    out = []
    for i0, i1 in ((0, 1), (1, 2)):
        for e in range(len(_BATCH_EVENTS)):
            out += [(ref[i0][e], ref[i1][e], n), (ref[i1][e], ref[i0][e], n)]
    return out


_BATCH_PAIRS = [(0.0, 0.25), (0.25, 0.5)]  # three distinct datasets: the middle one's counts sit mid-results


def test_batch_size_alone_runs_the_seeded_batches_here() -> None:
    """batch_size without an executor: the counts are the seeded batches' (not the sequential stream's), each
    dataset counted once over all its batches, trials_used = 3 datasets x n."""
    from semiprivate.theory.audit import audit_pairs

    n = 8000
    res = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=11,
                      options=AuditOptions(batch_size=3000))
    assert _witness_counts(res) == _expected_witness_counts(_seeded_batch_counts([0.0, 0.25, 0.5], n, 3000, 11), n)
    assert res.trials_used == 3 * n
    sequential = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=11)
    assert _witness_counts(sequential) != _witness_counts(res)


class _RecordingPool:
    """A concurrent.futures-style executor (``map`` only) that runs here and records its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def map(self, fn: Any, *columns: Any) -> Any:
        self.calls += 1
        return map(fn, *columns)


def test_an_executor_runs_the_batches_of_the_default_size_and_equals_the_local_run() -> None:
    """executor without batch_size: the batches go to the executor, one batch of n here (n < 1e6, the smallest
    default size); with batch_size too, the executor's counts equal the local seeded run's."""
    from semiprivate.theory.audit import audit_pairs

    n = 5000
    pool = _RecordingPool()
    res = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=3,
                      options=AuditOptions(executor=pool))
    assert pool.calls == 1
    assert _witness_counts(res) == _expected_witness_counts(_seeded_batch_counts([0.0, 0.25, 0.5], n, n, 3), n)
    assert res.trials_used == 3 * n
    here = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=3,
                       options=AuditOptions(batch_size=2000))
    there = audit_pairs(_uniform_shift, _BATCH_PAIRS, epsilon=1.0, trials=n, events=_BATCH_EVENTS, rng=3,
                        options=AuditOptions(batch_size=2000, executor=pool))
    assert pool.calls == 2 and _witness_counts(there) == _witness_counts(here)


def test_the_batches_get_the_executor_its_name_and_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """run_batches receives the executor, the name its errors use ('executor') and the timeout: the given one,
    else semiprivate.theory.audit.batches.DEFAULT_TIMEOUT."""
    import semiprivate.theory.audit.core as core
    from semiprivate.theory.audit import audit_pairs
    from semiprivate.theory.audit.batches import DEFAULT_TIMEOUT

    seen: list[tuple[Any, Any, Any]] = []
    real = core.run_batches

    def spy(fn: Any, jobs: Any, executor: Any = None, **kw: Any) -> Any:
        seen.append((executor, kw.get("name"), kw.get("timeout")))
        return real(fn, jobs, executor, **kw)

    monkeypatch.setattr(core, "run_batches", spy)
    pool = _RecordingPool()
    for timeout in (None, 5):
        audit_pairs(_uniform_shift, [(0.0, 1.0)], epsilon=1.0, trials=1000, events=_BATCH_EVENTS, rng=0,
                    options=AuditOptions(executor=pool, timeout=timeout))
    assert seen == [(pool, "executor", DEFAULT_TIMEOUT), (pool, "executor", 5.0)]
    assert isinstance(seen[1][2], float)


class _StopAudit(Exception):
    pass


@pytest.mark.parametrize(("trials", "size"), [(1000, 1_000_000), (64 * 1_000_003 + 63, 1_000_003),
                                              (64 * (10**8 + 5), 10**8)])
def test_default_batch_size_is_trials_over_64_clipped_to_1e6_1e8(monkeypatch: pytest.MonkeyPatch, trials: int,
                                                                  size: int) -> None:
    """With an executor and no batch_size the batches hold trials // 64 outputs, at least 10^6 and at most 10^8
    (an int).  The audit is stopped where the sizes are asked for, so no trials are drawn."""
    import semiprivate.theory.audit.core as core
    from semiprivate.theory.audit import audit_pairs

    asked: list[tuple[Any, Any]] = []

    def spy(n: Any, bs: Any) -> Any:
        asked.append((n, bs))
        raise _StopAudit

    monkeypatch.setattr(core, "batch_sizes", spy)
    with pytest.raises(_StopAudit):
        audit_pairs(_uniform_shift, [(0.0, 1.0)], epsilon=1.0, trials=trials, events=_BATCH_EVENTS, rng=0,
                    options=AuditOptions(executor=_RecordingPool()))
    assert asked == [(trials, size)] and type(asked[0][1]) is int

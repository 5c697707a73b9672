"""The two-stage audit (``estimate_on="best"``) hands the audit's settings to its choice batches too:
the executor, ``batch_size``, ``timeout``, the codec of label and structured outputs and the progress
bar; and it estimates on at least one output per dataset when the choice takes the whole budget.

Each test fails when the choice stage drops one of these (it then counts on this thread, in one
batch, waits the default timeout, cannot read labels, or leaves its outputs off the bar).
"""

from __future__ import annotations

import concurrent.futures
import threading
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit import audit_mechanism, audit_pairs
from semiprivate.theory.audit.options import AuditOptions

# trials 1200, selection 2000 on one pair: choice batches of min(2000, 1200 // 2) = 600 outputs per
# dataset, estimation on (2 x 1200 - 2 x 600) / 2 = 600; selection draws 2000 in one call
KW: dict[str, Any] = dict(epsilon=1.0, trials=1200, rng=0)
OPTS = AuditOptions(selection_trials=2000, estimate_on="best")


def _half_noise(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    """Laplace of scale 1/2 on a sensitivity-1 value: eps 2, claimed 1 below."""
    return float(np.asarray(data).sum()) + rng.laplace(0.0, 0.5, size)


def test_choice_batches_run_on_the_executor_in_batches_of_batch_size() -> None:
    calls: list[tuple[int, bool]] = []

    def mech(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        calls.append((size, threading.current_thread() is threading.main_thread()))
        return _half_noise(data, size, rng)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        audit_pairs(mech, [(0.0, 1.0)], options=replace(OPTS, executor=pool, batch_size=100), **KW)
    selection = [c for c in calls if c == (2000, True)]
    rest = [c for c in calls if c != (2000, True)]
    assert len(selection) == 2  # one selection draw per dataset, here
    # choice (2 x 600) and estimation (2 x 600) outputs, all on the pool, none in a call above 100
    assert sum(size for size, _ in rest) == 2400
    assert all(size <= 100 and not main for size, main in rest)


def test_choice_batches_get_the_audits_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch run, the choice's as the estimation's, waits at most the audit's ``timeout`` (here 7.5 s; the
    default is semiprivate.theory.audit.batches.DEFAULT_TIMEOUT).  A Dask cluster that misses it is in
    tests/theory/distributed/test_two_stage_timeout.py."""
    from semiprivate.theory.audit import core

    seen: list[Any] = []
    real = core.run_batches

    def spy(fn: Any, jobs: Any, executor: Any = None, **kw: Any) -> Any:
        seen.append(kw.get("timeout"))
        return real(fn, jobs, executor, **kw)

    monkeypatch.setattr(core, "run_batches", spy)
    audit_pairs(_half_noise, [(0.0, 1.0)], options=replace(OPTS, batch_size=100, timeout=7.5), **KW)
    assert len(seen) == 2 and seen == [7.5, 7.5]  # the choice batches, then the estimation


def _bucketed(data: Any, size: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    x = _half_noise(data, size, rng)
    return [{"side": "high" if v > 0.5 else "low", "x": float(v)} for v in x]


def _labels(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    return np.where(_half_noise(data, size, rng) > 0.5, "high", "low")


@pytest.mark.parametrize("mech", [_bucketed, _labels], ids=["structured", "labels"])
def test_two_stage_audit_reads_structured_and_label_outputs(mech: Any) -> None:
    """The choice batches decode labels with the selection's codec: eps 2 claimed as 1 is flagged."""
    res = audit_pairs(mech, [(0.0, 1.0)], epsilon=1.0, trials=40_000, rng=1, options=AuditOptions(estimate_on="best"))
    assert res.violation and res.epsilon_lower_bound > 1.0


def test_progress_bar_counts_the_choice_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """2 datasets x (selection 10,000 + choice 10,000 + estimation 10,000) = 60,000 outputs, all on the bar."""
    from semiprivate.theory.audit import core

    closed: list[tuple[float, float]] = []

    class Recorded(core.tqdm):  # type: ignore[misc, name-defined]
        def close(self) -> None:
            closed.append((self.n, self.total))
            super().close()

    monkeypatch.setattr(core, "tqdm", Recorded)
    res = audit_mechanism(_half_noise, 0.0, 1.0, epsilon=1.0, trials=20_000, rng=0, options=AuditOptions(progress=True, estimate_on="best"))
    assert res.trials_used == 60_000
    assert closed[0] == (60_000, 60_000)  # (tqdm closes again when collected)


def test_estimation_keeps_one_output_per_dataset_when_the_choice_takes_the_budget() -> None:
    """trials=1: the choice batch takes the one output of each dataset, and the estimation still draws one."""
    res = audit_pairs(_half_noise, [(0.0, 1.0)], epsilon=1.0, trials=1, rng=0, options=AuditOptions(estimate_on="best"))
    assert res.witness.counts[2] == 1
    assert res.trials_used == 2 * 10_000 + 2 + 2

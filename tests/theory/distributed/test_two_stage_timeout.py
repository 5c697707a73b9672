"""A two-stage audit (``estimate_on="best"``) on a Dask cluster: its choice batches wait no longer than ``timeout``.

An in-process cluster (threads), so that the test mechanism needs no pickling by reference; the mechanism
sleeps on the choice batches only (the selection draws on this thread, the estimation draws other sizes).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")

from distributed import Client, LocalCluster  # noqa: E402
from semiprivate.theory.audit import AuditOptions, audit_pairs  # noqa: E402


def _half_noise(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    return float(np.asarray(data).sum()) + rng.laplace(0.0, 0.5, size)


def _slow_choice(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    """Sleeps on the choice batches only: the 300-output calls off the main thread (the selection draws
    its 300 here; the estimation draws 900)."""
    if size == 300 and threading.current_thread() is not threading.main_thread():
        time.sleep(1.0)
    return _half_noise(data, size, rng)


def test_choice_batches_wait_no_longer_than_timeout() -> None:
    # selection 300, choice min(300, 600) = 300, estimation 1200 - 300 = 900 per dataset
    kw: dict[str, Any] = dict(epsilon=1.0, trials=1200, rng=0)
    opts = AuditOptions(selection_trials=300, estimate_on="best")
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        with pytest.raises(TimeoutError, match=r"executor: \d+ of 2 batches not done after 0.3 s"):
            audit_pairs(_slow_choice, [(0.0, 1.0)], options=replace(opts, executor=client, timeout=0.3), **kw)
        # the same audit with room for the sleep runs to the end (the timeout is what failed above)
        res = audit_pairs(_slow_choice, [(0.0, 1.0)], options=replace(opts, executor=client, timeout=30.0), **kw)
    assert res.witness.counts[2] == 900

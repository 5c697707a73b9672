"""The audit runs its BLAS calls on one thread (:func:`semiprivate.theory.audit.core._one_blas_thread`):
its parallel work is the counting batches, and a BLAS pool under each of them oversubscribes the cores."""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.kernels.threads import blas_controller
from semiprivate.theory.audit import audit_pairs
from threadpoolctl import threadpool_limits


def _blas_threads() -> int:
    return max((int(lib.num_threads) for lib in blas_controller().lib_controllers), default=1)


def test_audit_limits_blas_to_one_thread_and_restores_it() -> None:
    seen: list[int] = []

    def mechanism(data: Any, size: int, g: np.random.Generator) -> np.ndarray:
        seen.append(_blas_threads())
        return data + g.laplace(0.0, 1.0, (size, 3))

    with threadpool_limits(limits=2, user_api="blas"):
        outer = _blas_threads()
        audit_pairs(mechanism, [(np.zeros(3), np.ones(3))], epsilon=3.0, trials=4_000, rng=0)
        after = _blas_threads()
    assert seen and set(seen) == {1}
    assert after == outer

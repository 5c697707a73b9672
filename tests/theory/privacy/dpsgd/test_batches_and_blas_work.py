"""DP-SGD's R-run loop: the recorded batch sizes are run 0's Poisson batches, and the rule that runs small
steps' BLAS calls on one thread reads the per-step work ``R x p x max(1, q n)`` (runs x columns x expected
batch rows; SPEC DPSGD, Poisson subsampling)."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
from semiprivate.theory.privacy import dpsgd as dpsgd_mod
from semiprivate.theory.privacy.dpsgd import dp_sgd


def test_batch_sizes_of_several_runs_are_run_zeros_poisson_batches(half_ball_rows: Any):
    n, p, R, q, T = 30, 2, 3, 0.4, 6
    Z, y = half_ball_rows(n, p, 1)
    res = dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=q, steps=T, n_runs=R, rng=8)
    g = np.random.default_rng(8)  # each step draws the R Bernoulli(q) masks, then the (R, p) noise
    want = []
    for _ in range(T):
        want.append(int(np.count_nonzero(g.random((R, n))[0] < q)))
        g.standard_normal((R, p))
    assert res.batch_sizes.tolist() == want
    one = dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=1.0, steps=3, n_runs=1, rng=0)
    assert one.batch_sizes.tolist() == [n, n, n]  # q = 1: every example in every batch


def test_blas_rule_reads_runs_times_columns_times_expected_batch(monkeypatch, half_ball_rows: Any):
    seen = []

    def record(work: float) -> contextlib.nullcontext:
        seen.append(work)
        return contextlib.nullcontext()

    monkeypatch.setattr(dpsgd_mod, "_blas_single_thread", record)
    Z, y = half_ball_rows(50, 3, 2)
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.1, steps=2, rng=0)  # q n = 5
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.1, steps=2, n_runs=4, rng=0)
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.03, steps=2, rng=0)  # q n = 1.5
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.01, steps=2, rng=0)  # q n = 0.5 < 1
    assert seen == [3 * 5.0, 4 * 3 * 5.0, 3 * 1.5, 3 * 1.0]

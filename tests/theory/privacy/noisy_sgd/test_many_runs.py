"""Noisy SGD with many runs advanced together (audits draw up to millions of outputs): the R-run loop
draws its indices and noise in blocks of ``2^20 // (R p)`` steps, an integer number of steps however
large R p is, and takes exactly T steps."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd


def test_runs_beyond_a_quarter_million_take_every_step_in_whole_blocks():
    R = 2**18 + 1  # 2^20 // (R p) = 3 steps per block with p = 1: blocks of 3 and 1 for T = 4
    Z, y = np.array([[0.5], [-0.5]]), np.array([1.0, -1.0])
    r = noisy_sgd(Z, y, 1.0, 1e-3, n_runs=R, rng=0)
    assert r.steps == 4 and r.weights.shape == (R, 1)
    assert np.all(np.abs(r.weights) <= 1.0 + 1e-12)
    assert np.isfinite(r.weights).all() and np.unique(r.weights).size > R // 2  # the runs drew their own noise

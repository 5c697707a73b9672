"""The feature check of the margin losses, Noisy SGD and PILLAR Alg 2 (``_check_features``): float16, integer
and bool features are converted to float64 once (Noisy SGD then runs exactly as on their float64 copy),
while float32 features are read as they are: Noisy SGD, which reads one row per step, makes no float64
copy of Z."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd


@pytest.mark.parametrize("dtype", ["float16", "int8"])
def test_noisy_sgd_runs_low_precision_features_as_their_float64_copy(dtype):
    g = np.random.default_rng(0)
    if dtype == "int8":
        Z = np.zeros((30, 40), dtype=np.int8)
        Z[np.arange(30), g.integers(0, 40, 30)] = g.choice([-1, 1], 30)
    else:
        Z = g.normal(size=(30, 40))
        Z = (Z / (1.01 * np.linalg.norm(Z, axis=1, keepdims=True))).astype(np.float16)
    y = np.where(g.random(30) < 0.5, -1.0, 1.0)
    got = noisy_sgd(Z, y, 1.0, 1e-3, n_steps=200, margin=0.3, rng=1)
    want = noisy_sgd(Z.astype(np.float64), y, 1.0, 1e-3, n_steps=200, margin=0.3, rng=1)
    assert np.array_equal(got.weights, want.weights)


def test_noisy_sgd_reads_float32_features_without_a_float64_copy():
    g = np.random.default_rng(1)
    Z = g.normal(size=(4000, 250))
    Z = (Z / (1.01 * np.linalg.norm(Z, axis=1, keepdims=True))).astype(np.float32)  # 4 MB; float64: 8 MB
    y = np.where(g.random(4000) < 0.5, -1.0, 1.0)
    noisy_sgd(Z, y, 1.0, 1e-3, n_steps=10, rng=0)  # warm-up (imports, caches)
    tracemalloc.start()
    try:
        noisy_sgd(Z, y, 1.0, 1e-3, n_steps=10, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < Z.nbytes  # the rows are read one at a time (about 1 MB in all)

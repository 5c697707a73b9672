"""Neighbouring pairs found by optimisation (:func:`semiprivate.theory.audit.pair_search.search_pairs`).

Power: a Laplace mechanism with half the noise above 3 (a broken branch) audited on the pair (0, 1) passes;
the search over ``(t, t + 1)``, ``t`` in [-10, 10], finds ``t > 2`` and the audit on it flags the claim.
Calibration: a correct ``LaplaceMechanism(1.0)`` searched over the same family, then audited on the pair
found with a fresh stream at confidence 0.8, ``R = 40`` seeds: at most the 1 - 1e-4 binomial quantile of 40
seeds at 20% (18) flag (false-failure rate <= 1e-4; detects a rate of 0.56 or more with probability 0.9).  Measured (2026-11-28): 0 of 40 (one pair, the Clopper-Pearson rectangle: conservative; no break of the
search itself is kept: the API never hands the search outputs to the audit, which is the failure this rules out).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.pair_search import search_pairs
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 40
LIMIT = int(binom.isf(1e-4, R, 0.2))


class _Leaky:
    """``x + Lap(1)``, but ``x + Lap(1/2)`` where ``x > 3``: not 1-DP there."""

    def __call__(self, data: float, size: int, rng: Any) -> np.ndarray:
        return float(data) + rng.laplace(0.0, 1.0 if float(data) <= 3.0 else 0.5, size)


def _shift(t: np.ndarray) -> tuple[float, float]:
    return float(t[0]), float(t[0]) + 1.0


def test_search_finds_the_broken_region_and_the_audit_flags_it() -> None:
    assert not audit_pairs(_Leaky(), [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=1).violation
    pairs = search_pairs(_Leaky(), _shift, [(-10.0, 10.0)], trials=2_000, evaluations=30, n_pairs=2, rng=0)
    assert len(pairs) == 2 and all(b - a == 1.0 for a, b in pairs) and pairs[0][0] > 2.0
    assert audit_pairs(_Leaky(), pairs, epsilon=1.0, trials=20_000, rng=1).violation


@pytest.mark.slow
def test_audit_after_the_search_keeps_its_level() -> None:
    assert LIMIT == 18
    flags = 0
    for i in range(R):
        pairs = search_pairs(LaplaceMechanism(1.0), _shift, [(-10.0, 10.0)], trials=1_000, evaluations=10,
                             rng=11_000 + i)
        flags += audit_pairs(LaplaceMechanism(1.0), pairs, epsilon=1.0, trials=2_000, confidence=0.8,
                             rng=21_000 + i).violation
    assert flags <= LIMIT, f"{flags}/{R} flagged (limit {LIMIT})"


def test_bad_input_is_refused() -> None:
    with pytest.raises(TypeError, match="bounds must be a non-empty sequence"):
        search_pairs(LaplaceMechanism(1.0), _shift, [], rng=0)
    with pytest.raises(ValueError, match="bounds must be finite"):
        search_pairs(LaplaceMechanism(1.0), _shift, [(1.0, 0.0)], rng=0)
    with pytest.raises(ValueError, match="propose must return a"):
        search_pairs(LaplaceMechanism(1.0), lambda t: 0.0, [(0.0, 1.0)], trials=100, evaluations=1, rng=0)

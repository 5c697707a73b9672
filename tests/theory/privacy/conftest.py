"""Shared set-up of the privacy tests."""

from __future__ import annotations

from collections.abc import Callable

import dp_accounting
import numpy as np
import pytest
from dp_accounting.rdp import RdpAccountant
from semiprivate.theory.learners import halfspaces
from semiprivate.theory.privacy import accounting


@pytest.fixture(autouse=True)
def _no_memoised_noisy_sgd_epsilon() -> None:
    """Every test computes Noisy SGD's accountant epsilon and its PLD compositions itself, not values memoised by an
    earlier test (``noisy_sgd_accountant_epsilon`` and the PLD route keep them in module-level tables)."""
    accounting._NOISY_SGD_EPSILONS.clear()
    accounting._PLD_COMPOSED.clear()


@pytest.fixture(autouse=True)
def _no_memoised_halfspace_noise() -> None:
    """Every test calibrates and accounts the halfspace learners' noise itself, not with values memoised by
    an earlier test (the learners keep calibrated noise multipliers and their epsilons in two memo tables)."""
    for memo in (halfspaces._calibrated, halfspaces._accounted):
        if hasattr(memo, "cache_clear"):
            memo.cache_clear()
    for table in ("_CALIBRATED", "_ACCOUNTED"):  # plain memo tables (no hit counter), where the learners keep them
        getattr(halfspaces, table, {}).clear()


@pytest.fixture
def half_ball_rows() -> Callable[[int, int, int], tuple[np.ndarray, np.ndarray]]:
    """``make(n, p, seed)``: n Gaussian rows scaled to norm 1/2 and labels by the first coordinate's sign."""
    def make(n: int, p: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        g = np.random.default_rng(seed)
        Z = g.normal(size=(n, p))
        Z /= 2.0 * np.linalg.norm(Z, axis=1, keepdims=True)
        return Z, np.where(Z[:, 0] > 0, 1.0, -1.0)
    return make


@pytest.fixture
def rdp_one_of_n() -> Callable[[int, float, int, float], float]:
    """``eps(n, multiplier, steps, delta)``: dp-accounting's RDP epsilon (REPLACE_ONE) of ``steps`` Gaussian
    steps of noise multiplier ``multiplier`` on one example sampled out of n, the reference the Noisy SGD
    accountant is checked against."""
    def eps(n: int, multiplier: float, steps: int, delta: float) -> float:
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(n, 1, dp_accounting.GaussianDpEvent(multiplier)), steps)
        acc = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        return float(acc.compose(event).get_epsilon(delta))

    return eps

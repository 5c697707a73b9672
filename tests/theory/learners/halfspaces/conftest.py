"""Shared set-up of the halfspace learners' tests."""

from __future__ import annotations

import pytest
from semiprivate.theory.learners import halfspaces
from semiprivate.theory.privacy import accounting


@pytest.fixture(autouse=True)
def _no_memoised_noise() -> None:
    """Every test calibrates and accounts its learner's noise itself, not with values memoised by an earlier
    test: the learners keep calibrated noise multipliers and their epsilons in two lru_caches, and Noisy SGD's
    accountant epsilon sits in a module-level table of the accounting module."""
    halfspaces._calibrated.cache_clear()
    halfspaces._accounted.cache_clear()
    accounting._NOISY_SGD_EPSILONS.clear()

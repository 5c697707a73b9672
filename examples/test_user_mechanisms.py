"""A user's own test file: three mechanisms written here, audited with semiprivate's pytest plugin.

Run it with ``pytest examples/test_user_mechanisms.py`` once ``semiprivate`` is installed (the
plugin is registered automatically; from a source checkout that is not installed, add
``-p semiprivate.pytest_plugin``).  Expected outcome: 2 passed, 1 failed.  The third
mechanism is deliberately wrong (it adds noise for sensitivity 1 to a sum whose sensitivity is
10), and its failure message is the audit report: the claim, the epsilon lower bound, and the
output event that witnesses the violation, with the neighbouring pair.

Settings: ``--dp-trials``, ``--dp-confidence`` (default 0.999, so a correct mechanism fails a
test with probability at most 0.001) and ``--dp-seed`` (default 0: the run is reproducible).
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit import vectorize

EPSILON = 1.0


def laplace_count(data: list[int], size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` releases of the number of ones in ``data`` plus Laplace(1/EPSILON) noise.

    A count has sensitivity 1, so this is EPSILON-DP.
    """
    return sum(data) + rng.laplace(scale=1.0 / EPSILON, size=size)


def randomized_response(bit: int, rng: np.random.Generator) -> int:
    """One bit, kept with probability e^eps / (1 + e^eps), flipped otherwise: EPSILON-DP."""
    keep = rng.random() < np.exp(EPSILON) / (1.0 + np.exp(EPSILON))
    return bit if keep else 1 - bit


def noisy_sum_wrong_sensitivity(data: list[float], size: int, rng: np.random.Generator) -> np.ndarray:
    """The sum of values in [0, 10] plus Laplace(1/EPSILON) noise: noise for sensitivity 1, but
    one person can move the sum by 10.  Claimed EPSILON-DP; really 10 * EPSILON-DP."""
    return sum(data) + rng.laplace(scale=1.0 / EPSILON, size=size)


@pytest.mark.dp_audit(epsilon=EPSILON, trials=100_000)
def test_laplace_count_is_private(dp_audit) -> None:
    dp_audit(laplace_count, [1, 0, 1, 1], [1, 0, 1, 0])


@pytest.mark.dp_audit(epsilon=EPSILON, trials=100_000)
def test_randomized_response_is_private(dp_audit) -> None:
    dp_audit(vectorize(randomized_response), 0, 1)


@pytest.mark.dp_audit(epsilon=EPSILON, trials=100_000)
def test_noisy_sum_is_private(dp_audit) -> None:
    dp_audit(noisy_sum_wrong_sensitivity, [3.0, 0.0, 7.5], [3.0, 10.0, 7.5])

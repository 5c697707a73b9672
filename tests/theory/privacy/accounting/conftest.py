"""Shared work of the accounting tests: one calibration per (accountant, relation) of the setting two files check."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier

#: epsilon, delta, sampling rate, steps: the setting both calibration files check (to the last bit against
#: dp-accounting's own search, and as the smallest noise meeting the replace-one target)
CALIBRATION_SETTING = (1.0, 1e-5, 0.05, 100)


@pytest.fixture(scope="session")
def calibrated() -> Callable[[str, str], float]:
    """``calibrated(accountant, relation)``: calibrate_noise_multiplier at CALIBRATION_SETTING, computed once
    per (accountant, relation) in a test process (a float; each PLD calibration takes seconds)."""
    got: dict[tuple[str, str], float] = {}

    def get(accountant: str, relation: str) -> float:
        if (accountant, relation) not in got:
            got[accountant, relation] = calibrate_noise_multiplier(*CALIBRATION_SETTING, accountant=accountant,
                                                                   relation=relation)
        return got[accountant, relation]

    return get

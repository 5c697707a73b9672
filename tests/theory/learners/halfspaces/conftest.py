"""Shared set-up of the halfspace learners' tests."""

from __future__ import annotations

import pytest
from semiprivate.theory.learners import halfspaces
from semiprivate.theory.privacy import accounting
from semiprivate.theory.privacy.seeds import seed_reuse_allowed


@pytest.fixture(autouse=True)
def _no_memoised_noise() -> None:
    """Every test calibrates and accounts its learner's noise itself, not with values memoised by an earlier
    test: the learners keep calibrated noise multipliers and their epsilons in two dict memos, and Noisy SGD's
    accountant epsilon and the composed PLD events sit in module-level tables of the accounting module."""
    halfspaces._CALIBRATED.clear()
    halfspaces._ACCOUNTED.clear()
    accounting._NOISY_SGD_EPSILONS.clear()
    accounting._PLD_COMPOSED.clear()


@pytest.fixture(autouse=True)
def _seeds_as_in_scikit_learn():
    """These tests exercise scikit-learn's conventions (its estimator checks, clone, Pipeline, cross-validation),
    which refit one ``rng=0`` estimator on several datasets: each fit is a release, so the seed record would
    refuse the second. The record itself is tested in tests/theory/privacy/release/test_seed_record.py."""
    with seed_reuse_allowed():
        yield


#: calibrations (noise multipliers), accounted epsilons and Noisy SGD epsilons computed in earlier tests that asked
#: for ``calibrations_of_earlier_tests`` (the three memos' key -> value)
_SHARED: tuple[dict, dict, dict] = ({}, {}, {})


def _accounting_functions() -> dict[tuple[object, str], object]:
    """The accounting module's functions, where the accounting module and the halfspace learners' module name them."""
    return {(module, name): obj for module in (accounting, halfspaces) for name, obj in vars(module).items()
            if callable(obj) and getattr(obj, "__module__", None) == accounting.__name__}


@pytest.fixture
def calibrations_of_earlier_tests(_no_memoised_noise: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests of the mechanics (settings, shapes, messages, scikit-learn's contract), not of the calibration: the
    test starts from the calibrations and accountings that earlier such tests made, as one process of a user's does
    (the learners' memos), instead of recomputing each (a PLD calibration takes seconds).  Only tests that leave
    the accountant alone may ask for it: a test that breaks or spies on the calibration or the accounting keeps the
    cleared memos (``_no_memoised_noise``).  Enforced: a test asking for it that replaced an accounting function
    (monkeypatch, torn down after this fixture, so the replacement is still in place here) fails, and its
    memos are not shared."""
    memos = (halfspaces._CALIBRATED, halfspaces._ACCOUNTED, accounting._NOISY_SGD_EPSILONS)
    for memo, kept in zip(memos, _SHARED):
        memo.update(kept)
    functions = _accounting_functions()
    yield
    replaced = sorted(name for (module, name), obj in functions.items() if getattr(module, name, None) is not obj)
    if replaced:
        pytest.fail(f"a test asking for calibrations_of_earlier_tests replaced accounting functions {replaced}: its "
                    "calibrations are not the library's, so they are not shared; drop the fixture from that test")
    for memo, kept in zip(memos, _SHARED):
        kept.update(memo)

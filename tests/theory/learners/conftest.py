"""Fixtures of the learner tests."""

from __future__ import annotations

import functools
import unittest
from collections.abc import Callable
from typing import Any

import pytest


class DeclaredCheckFailure(Exception):
    """A scikit-learn check a learner declares it fails (``expected_failed_checks``) failed, as declared."""


def check_name(check: Any) -> str:
    """The name of a scikit-learn check (``parametrize_with_checks`` hands out partials of the check functions)."""
    while isinstance(check, functools.partial):
        check = check.func
    return str(check.__name__)


def _run_check(estimator: Any, check: Any, declared: dict[str, str]) -> None:
    try:
        check(estimator)
    except unittest.SkipTest:
        raise  # a check scikit-learn skips stays a skip
    except Exception as exc:
        if check_name(check) not in declared:
            raise  # an undeclared failure: its whole traceback
        # a declared failure (the test is an xfail): re-raised with a one-frame traceback.  pytest formats the
        # traceback of an xfailed test and never shows it; its long style re-parses scikit-learn's 5,000-line
        # estimator_checks.py for every frame (about 0.2 CPU-s per xfail, 57 CPU-s for test_estimator_checks.py)
        raise DeclaredCheckFailure(f"{check_name(check)}: {type(exc).__name__}: {exc}") from None


@pytest.fixture
def run_estimator_check() -> Callable[[Any, Any, dict[str, str]], None]:
    """``run_estimator_check(estimator, check, declared)``: runs a ``parametrize_with_checks`` check; a check
    named in ``declared`` (the learner's expected failures) that fails raises ``DeclaredCheckFailure`` with the
    check's exception in its message and a short traceback, and any other failure propagates unchanged."""
    return _run_check

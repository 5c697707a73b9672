"""Shared pytest configuration.

* hypothesis profiles: ``ci`` (default under CI=true: derandomized, more examples, no
  deadline) and ``dev`` (default otherwise: fewer examples). Select with
  ``HYPOTHESIS_PROFILE=ci|dev``.
* markers ``slow`` and ``gpu`` (declared in pyproject.toml); ``gpu`` tests are skipped
  cleanly unless CuPy imports and sees a CUDA device.
* warnings are errors (pyproject.toml ``filterwarnings = ["error"]``), except the once-per-process
  ``NumPyBackendWarning`` of an installation without the compiled kernels (tests that simulate one,
  or a run without a compiler, would otherwise fail on a notice meant for users; the tests of the
  notice itself catch it with ``pytest.warns``).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config: pytest.Config) -> None:
    # appended after "error": later filterwarnings lines take precedence
    config.addinivalue_line("filterwarnings", "ignore::semiprivate.kernels._backend.NumPyBackendWarning")


def _gpu_available() -> bool:
    from semiprivate.kernels._backend import _cupy_available

    return _cupy_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs CuPy and a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def seed_reuse_allowed():
    """The test runs without the seed record (``seeds.seed_reuse_allowed``): for tests of scikit-learn's
    conventions, which refit one seeded estimator on several datasets (every fold or check is a release)."""
    from semiprivate.theory.privacy.seeds import seed_reuse_allowed as allowed

    with allowed():
        yield

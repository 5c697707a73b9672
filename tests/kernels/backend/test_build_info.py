"""The compiled build path: the OpenMP probe extension and backend choice."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from semiprivate import kernels
from semiprivate.kernels._backend import ENV_VAR, resolve_backend

cython = pytest.importorskip("semiprivate.kernels._cython._probe", reason="compiled extensions not built")


def test_compiled_probe_is_available_and_sums_correctly() -> None:
    assert "cython" in kernels.available_backends()
    x = np.random.default_rng(0).standard_normal(100_001)
    assert cython.parallel_sum(x) == pytest.approx(float(np.sum(x)), rel=1e-12, abs=1e-9)
    assert cython.parallel_sum(np.zeros(0)) == 0.0


def test_thread_count_honours_omp_num_threads() -> None:
    if not cython.openmp_enabled():
        assert cython.max_threads() == 1
        return
    code = "from semiprivate.kernels._cython import _probe; print(_probe.max_threads())"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_backend_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert resolve_backend("auto", np.zeros(3)) == "cython"
    assert resolve_backend("numpy") == "numpy"
    monkeypatch.setenv(ENV_VAR, "numpy")
    assert resolve_backend("auto", np.zeros(3)) == "numpy"
    monkeypatch.setenv(ENV_VAR, "fortran")
    with pytest.raises(ValueError, match=ENV_VAR):
        resolve_backend("auto")
    with pytest.raises(ValueError, match="backend must be one of"):
        resolve_backend("gpu")
    with pytest.raises(TypeError, match="backend must be a str"):
        resolve_backend(3)
    if "cupy" not in kernels.available_backends():
        with pytest.raises(ValueError, match="not available"):
            resolve_backend("cupy")


def test_unknown_public_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_kernel"):
        kernels.no_such_kernel  # noqa: B018

"""Without the compiled backend, the first kernel call that picks its backend by "auto" warns once per
process that the NumPy reference runs (pip hides the build's own warning); choosing the backend (by
argument or SEMIPRIVATE_BACKEND) gives no notice; ``semiprivate --version`` lists the backends."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from semiprivate import kernels
from semiprivate.cli import main as cli_main
from semiprivate.kernels import _backend, _exponential


@pytest.fixture
def no_compiled(monkeypatch):  # noqa: ANN001, ANN201
    monkeypatch.setattr(_backend, "_cython_available", lambda: False)
    monkeypatch.setattr(_exponential, "_cython_module", lambda: None)
    monkeypatch.setattr(_backend, "_NOTICES", _backend.memo_table("test.notices", maxsize=4))  # none given yet
    monkeypatch.delenv(_backend.ENV_VAR, raising=False)


def test_the_first_auto_call_warns_once(no_compiled):
    with pytest.warns(_backend.NumPyBackendWarning, match="NumPy reference backend"):
        assert _backend.resolve_backend("auto") == "numpy"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _backend.resolve_backend("auto") == "numpy"
        kernels.exponential_mechanism(np.array([0.0, 1.0]), 1.0, size=3, rng=0)


def test_the_warning_points_at_the_callers_line(no_compiled):
    with pytest.warns(_backend.NumPyBackendWarning) as rec:
        kernels.exponential_mechanism(np.array([0.0, 1.0]), 1.0, size=3, rng=0)
    assert rec[0].filename == __file__


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_a_chosen_backend_gives_no_notice(no_compiled, monkeypatch, how):
    if how == "environment":
        monkeypatch.setenv(_backend.ENV_VAR, "numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _backend.resolve_backend("numpy" if how == "argument" else "auto") == "numpy"


def test_version_prints_the_backends(capsys):
    with pytest.raises(SystemExit) as ex:
        cli_main(["--version"])
    assert ex.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("semiprivate ") and "backends: numpy" in out
    assert ("cython (compiled" in out) == ("cython" in _backend.available_backends())


def test_version_says_numpy_only_without_the_compiled_backend(no_compiled, capsys):
    with pytest.raises(SystemExit):
        cli_main(["--version"])
    assert "backends: numpy only (the compiled backend is not built" in capsys.readouterr().out

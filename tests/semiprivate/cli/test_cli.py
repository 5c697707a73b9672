"""The command line: ``python -m semiprivate`` and the ``semiprivate`` console script."""

from __future__ import annotations

import subprocess
import sys

import pytest
from semiprivate.cli import SUBCOMMANDS, _load, main


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for name in ("bound", "audit", "report"):
        assert name in out


def test_no_arguments_prints_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "SUBCOMMAND" in capsys.readouterr().out


def test_unknown_subcommand_is_an_error() -> None:
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_each_subcommand_runs_its_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _load(SUBCOMMANDS[name][0]) is not None
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip()


def test_missing_dependency_inside_a_subcommand_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(name: str) -> None:
        raise ModuleNotFoundError("No module named 'somedep'", name="somedep")

    monkeypatch.setattr("importlib.import_module", boom)
    with pytest.raises(ModuleNotFoundError):
        _load("semiprivate.theory.bounds.cli")


def test_python_dash_m_theory_help_runs_in_a_subprocess() -> None:
    proc = subprocess.run([sys.executable, "-m", "semiprivate", "--help"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "report" in proc.stdout

"""``python -m semiprivate bound``: list, evaluate, solve, LaTeX, JSON and the error paths."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from semiprivate.theory.bounds import REGISTRY
from semiprivate.theory.bounds.cli import SUMMARY, main, to_jsonable


def test_summary_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert SUMMARY
    assert main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(REGISTRY)
    assert any(line.startswith("ABM19.Lem3.3 ") and "[solve: n_pub]" in line for line in out)


def test_evaluate_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["HPSY.Sec3.3.BST14", "dim=100", "alpha=0.1", "epsilon=1"]) == 0
    assert capsys.readouterr().out.strip() == "HPSY.Sec3.3.BST14: value = 100"
    assert main(["BNS15.Cl4.3", "n=100", "epsilon_star=4", "delta=1e-6", "epsilon=1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == "BNS15.Cl4.3" and data["value"]["t"] == 5760


def test_solve(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ABM19.Lem3.3", "--solve", "n_pub", "vc_dim=10", "alpha=0.05", "beta=0.01"]) == 0
    assert capsys.readouterr().out.strip() == "ABM19.Lem3.3: n_pub = 14815"
    assert main(["--json", "--solve", "m", "BNS15.PropA.1", "n_hypotheses=1000", "epsilon=1", "gap=0.1", "beta=0.05"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 199


def test_latex(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["HPSY.Thm3.n_lab", "k=5", "alpha=0.1", "beta=0.1", "epsilon=1", "gamma=0.5", "eta=0.001",
                 "--latex"]) == 0
    out = capsys.readouterr().out
    assert "value = 56" in out and "\\sqrt{k}" in out
    assert main(["BNS15.Cl4.8", "n=3", "--latex"]) == 0
    assert "no sympy form" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["HPSY.Thm3.n_lab", "k=5"], "missing parameter(s) alpha"),
        (["HPSY.Thm3.n_lab", "k=5", "alpha=2", "beta=0.1", "epsilon=1", "gamma=0.5", "eta=0"], "alpha must be in"),
        (["HPSY.Thm3.n_lab", "kk=5"], "has no parameter 'kk'"),
        (["HPSY.Thm3.n_lab", "k=x"], "invalid value for k"),
        (["HPSY.Thm3.n_lab", "k"], "expected key=value"),
        (["NOPE.Thm1"], "unknown bound id"),
        (["HPSY.Lem2", "--solve", "d"], "cannot be solved"),
    ],
)
def test_usage_errors_list_what_the_bound_needs(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    if "parameter" in needle or "value" in needle:
        assert "needs:" in err and "epsilon" in err


def test_hypothesis_failure_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["HPSY.Lem2", "dim=36", "beta=0.1"]) == 1
    assert "HPSY.Lem2 needs" in capsys.readouterr().err
    assert main(["HPSY.Lem2", "dim=36", "beta=0.1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False


def test_bound_help_and_bare_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ABM19.Lem3.3", "--help"]) == 0
    out = capsys.readouterr().out
    assert "n_pub" in out and "example: python -m semiprivate bound ABM19.Lem3.3" in out
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    assert main([]) == 2


def test_every_registered_example_runs_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    for b in REGISTRY.values():
        argv = [b.id, "--json"] + [f"{k}={v}" for k, v in b.example.items()]
        assert main(argv) == 0, b.id
        assert json.loads(capsys.readouterr().out)["id"] == b.id


def test_to_jsonable_handles_infinity() -> None:
    assert to_jsonable(float("inf")) == "inf"


def test_subprocess() -> None:
    proc = subprocess.run([sys.executable, "-m", "semiprivate", "bound", "ABM19.Thm4.1", "alpha=0.0001"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ABM19.Thm4.1: value = 7"

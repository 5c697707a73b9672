"""``semiprivate audit MODULE:FUNCTION --pair ...``: a user's mechanism audited from the shell, and
``semiprivate audit`` without a target still running the built-in suite.

Audits use fixed seeds; the correct mechanism (Laplace, eps = 1) is declared private when the
bound is <= 1 (false-failure rate <= 0.001, the command's default confidence 0.999); the broken one
(true epsilon 10 against a claim of 1) is refuted with a p-value below 1e-100.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from semiprivate.cli import main as cli_main

MECHS = '''
import numpy as np

def laplace_count(data, size, rng):
    return sum(data) + rng.laplace(scale=1.0, size=size)

def wrong_sum(data, size, rng):
    return sum(data) + rng.laplace(scale=1.0, size=size)

def one_bit(bit, rng):
    return bit if rng.random() < np.exp(1.0) / (1.0 + np.exp(1.0)) else 1 - bit

NOT_CALLABLE = 3
'''


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "usermechs.py").write_text(MECHS)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("usermechs", None)


def test_a_correct_mechanism_passes_and_the_report_is_printed(user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(["audit", "usermechs:laplace_count", "--pair", "[1, 0, 1]", "[1, 1, 1]",
                   "--epsilon", "1", "--trials", "50000"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.startswith("audit of usermechs:laplace_count:\nclaimed (epsilon, delta) = (1, 0)"), out
    assert "no violation found" in out


def test_a_broken_mechanism_exits_1_with_the_witness(user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(["audit", "usermechs:wrong_sum", "--pair", "[0.0, 3.0]", "[10.0, 3.0]",
                   "--pair", "[0.0]", "[0.0, 10.0]", "--epsilon", "1", "--trials", "50000", "--seed", "3"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "-> VIOLATION" in out and "event E = " in out and "2 neighbouring pair(s)" in out


def test_two_stage_audit_from_the_shell(user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(["audit", "usermechs:wrong_sum", "--pair", "[0.0, 3.0]", "[10.0, 3.0]",
                   "--pair", "[0.0]", "[0.0, 10.0]", "--epsilon", "1", "--trials", "50000", "--seed", "3",
                   "--estimate-on", "best"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "the 1 best on a choice batch tested on their datasets" in out
    with pytest.raises(SystemExit) as stop:  # argparse's usage error
        cli_main(["audit", "usermechs:laplace_count", "--pair", "0", "1", "--epsilon", "1", "--estimate-on", "most"])
    assert stop.value.code == 2 and "--estimate-on" in capsys.readouterr().err


def test_conditional_interval_from_the_shell(user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(["audit", "usermechs:laplace_count", "--pair", "[1, 0, 1]", "[1, 1, 1]", "--epsilon", "1",
                   "--trials", "50000", "--interval", "poisson-conditional"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "one conditional test each" in out and "bound from the conditional test of" in out


def test_single_output_functions_are_vectorized(user_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # randomized response with eps = 1 claimed as 0.25: refuted
    rc = cli_main(["audit", "usermechs:one_bit", "--single", "--pair", "0", "1", "--epsilon", "0.25",
                   "--trials", "50000"])
    assert rc == 1, capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["usermechs:nothing", "--pair", "0", "1", "--epsilon", "1"], "has no attribute 'nothing'"),
    (["usermechs:NOT_CALLABLE", "--pair", "0", "1", "--epsilon", "1"], "is not callable"),
    (["no_such_module_xyz:f", "--pair", "0", "1", "--epsilon", "1"], "cannot import module 'no_such_module_xyz'"),
    (["usermechs:laplace_count", "--pair", "[1,", "1", "--epsilon", "1"], "--pair DATA must be a Python literal"),
    (["usermechs:laplace_count", "--pair", "0", "1", "--epsilon", "1", "--confidence", "1"], "--confidence"),
    (["usermechs:laplace_count", "--pair", "0", "1", "--epsilon", "1", "--trials", "0"], "--trials"),
    (["usermechs:laplace_count", "--pair", "0", "1", "--epsilon", "1", "--delta", "1e-6", "--interval",
      "poisson-conditional"], "--interval poisson-conditional needs --delta 0, got 1e-06"),
])
def test_usage_errors_exit_2_with_a_message(user_folder: Path, capsys: pytest.CaptureFixture[str],
                                            args: list[str], message: str) -> None:
    assert cli_main(["audit", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


@pytest.mark.slow
def test_without_a_target_audit_still_runs_the_builtin_suite() -> None:
    run = subprocess.run([sys.executable, "-m", "semiprivate", "audit", "--list", "--quick"],
                         capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "LaplaceMechanism: claims (1, 0)" in run.stdout

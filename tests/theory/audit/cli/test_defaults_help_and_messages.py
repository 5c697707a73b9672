"""The audit's defaults are one set (confidence 0.999, 1,000,000 trials) across the command line, the
Python gate ``assert_private``, the pytest plugin and the built-in suite; ``semiprivate audit --help``
shows both forms with every option; a one-output mechanism given without ``--single`` is told to add
``--single`` (not to call Python's ``vectorize``); a p-value at the search's floor is printed as a bound.

Audits use fixed seeds (deterministic)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest
from semiprivate import pytest_plugin
from semiprivate.cli import main as cli_main
from semiprivate.theory import audit_suite
from semiprivate.theory.audit import assert_private
from semiprivate.theory.audit import cli as audit_cli
from semiprivate.theory.audit.core import DEFAULT_TRIALS

MECHS = '''
import numpy as np

def one_bit(bit, rng):
    return bit if rng.random() < 0.7 else 1 - bit

def scalar_out(data, size, rng):
    return float(sum(data)) + rng.laplace()

def exact_sum(data, size, rng):
    return np.full(size, float(sum(data)))
'''


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "defaultmechs.py").write_text(MECHS)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("defaultmechs", None)


def _default(parser, dest):  # noqa: ANN001, ANN202
    return next(a.default for a in parser._actions if a.dest == dest)


def test_one_set_of_defaults_everywhere():
    conf = audit_cli.DEFAULT_CONFIDENCE
    assert conf == 0.999
    assert _default(audit_cli.build_parser(), "confidence") == conf
    assert pytest_plugin.DEFAULT_CONFIDENCE == conf
    assert inspect.signature(assert_private).parameters["confidence"].default == conf
    assert inspect.signature(audit_suite.run_suite).parameters["confidence"].default == conf
    assert _default(audit_suite.build_parser(), "confidence") == conf
    assert audit_cli.DEFAULT_TRIALS == DEFAULT_TRIALS == 1_000_000
    assert inspect.signature(audit_suite.run_suite).parameters["trials"].default == DEFAULT_TRIALS


def test_audit_help_shows_both_forms_and_every_option(capsys):
    with pytest.raises(SystemExit) as ex:
        cli_main(["audit", "--help"])
    assert ex.value.code == 0
    out = capsys.readouterr().out
    for option in ("MODULE:FUNCTION", "--pair", "--epsilon", "--delta", "--single", "--trials", "--confidence",
                   "--estimate-on", "--interval", "--seed", "--no-broken", "--only", "--list", "--quick"):
        assert option in out, option
    assert "default 0.999" in out and "default 1,000,000" in out


def test_a_one_output_mechanism_without_single_is_told_to_add_single(user_folder, capsys):
    rc = cli_main(["audit", "defaultmechs:one_bit", "--pair", "0", "1", "--epsilon", "1", "--trials", "2000"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "add --single" in err and "vectorize" not in err


def test_a_mechanism_returning_one_value_per_call_is_told_to_add_single(user_folder, capsys):
    rc = cli_main(["audit", "defaultmechs:scalar_out", "--pair", "[0]", "[1]", "--epsilon", "1", "--trials", "2000"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "add --single" in err and "vectorize" not in err


def test_with_single_the_one_output_mechanism_is_audited(user_folder, capsys):
    rc = cli_main(["audit", "defaultmechs:one_bit", "--single", "--pair", "0", "1", "--epsilon", "1",
                   "--trials", "2000"])
    assert rc == 0, capsys.readouterr()


def test_a_p_value_far_below_1e_300_is_printed_as_below_it(user_folder, capsys):
    rc = cli_main(["audit", "defaultmechs:exact_sum", "--pair", "[0]", "[1]", "--epsilon", "1", "--trials", "20000"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "p-value < 1e-300;" in out and "e-300;" not in out.replace("< 1e-300;", "")


def test_format_p_value():
    assert audit_cli.format_p_value(0.5) == "0.5"
    assert audit_cli.format_p_value(1e-200) == "1e-200"
    assert audit_cli.P_VALUE_FLOOR == 1e-300
    assert audit_cli.format_p_value(2.2e-300) == "2.2e-300"  # the old search floor is now a number like any other
    assert audit_cli.format_p_value(0.0, log_p=-5000.0) == "< 1e-300"


def test_epsilons_print_the_curve(user_folder, capsys):
    rc = cli_main(["audit", "defaultmechs:exact_sum", "--pair", "[0]", "[1]", "--epsilon", "1", "--trials", "20000",
                   "--epsilons", "0.5,30,1000"])
    out = capsys.readouterr().out
    assert rc == 1
    curve = out[out.index("epsilon curve"):].splitlines()
    assert curve[1].split()[:2] == ["epsilon", "0.5"] and curve[1].endswith("refuted")
    assert curve[3].split()[:4] == ["epsilon", "1000", "p-value", "1"] and curve[3].endswith("not refuted")
    assert "the exact crossing is the lower bound" in curve[-1]


def test_plot_draws_the_curve_and_needs_epsilons(user_folder, capsys):
    rc = cli_main(["audit", "defaultmechs:exact_sum", "--pair", "[0]", "[1]", "--epsilon", "1", "--trials", "2000",
                   "--epsilons", "0.5,2", "--plot", "curve.png"])
    assert rc == 1 and "epsilon curve drawn in curve.png" in capsys.readouterr().out
    assert (user_folder / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rc = cli_main(["audit", "defaultmechs:exact_sum", "--pair", "[0]", "[1]", "--epsilon", "1", "--plot", "c.png"])
    assert rc == 2 and "--plot draws the epsilon curve: give the claims with --epsilons" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["a,b", "1,,2", "-1", "nan", "inf"])
def test_bad_epsilons_are_a_usage_error(user_folder, capsys, text):
    with pytest.raises(SystemExit) as ex:
        cli_main(["audit", "defaultmechs:exact_sum", "--pair", "[0]", "[1]", "--epsilon", "1", "--epsilons", text])
    assert ex.value.code == 2
    assert "--epsilons" in capsys.readouterr().err

"""The bound CLI says when a result's alpha / beta is the output learner's and when a size is vacuous."""

from __future__ import annotations

import json

import pytest
from semiprivate.theory.bounds.cli import main


def test_transformed_alpha_is_announced(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["BNS15.Thm4.14.explicit", "vc_dim=1", "alpha=0.05", "beta=0.1", "epsilon=0.5", "delta=1e-6", "n=1000"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "alpha = 0.55 is the output learner's (11 x the input alpha = 0.05)" in out
    assert main([*args, "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("alpha = 0.55" in n for n in notes) and any("beta = 0.2" in n for n in notes)


def test_help_says_the_output_alpha_is_transformed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["BNS15.Thm4.14.explicit", "--help"]) == 0
    assert "11 x the input alpha" in capsys.readouterr().out


def test_vacuous_size_is_announced(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["BNS15.Thm4.14", "vc_dim=1", "alpha=0.05", "beta=0.1", "epsilon=1e-300"]) == 0
    assert "note: vacuous" in capsys.readouterr().out
    assert main(["BNS15.Thm4.14", "vc_dim=1", "alpha=0.05", "beta=0.1", "epsilon=1"]) == 0
    assert "vacuous" not in capsys.readouterr().out

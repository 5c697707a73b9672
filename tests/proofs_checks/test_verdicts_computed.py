"""Verdicts are computed from facts: no verdict literal in a check, and changing a check's facts changes
its verdict."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from semiprivate.proofs_checks import Verdict, get_check
from semiprivate.proofs_checks._framework import CannotDecide
from semiprivate.proofs_checks._modules import MODULES

PKG = Path(str(__import__("semiprivate.proofs_checks", fromlist=["x"]).__file__)).parent


@pytest.mark.parametrize("name", MODULES)
def test_no_verdict_literal_in_a_check(name: str) -> None:
    tree = ast.parse((PKG / f"{name}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):  # a fact's condition= is data; a verdict or counterexample is derived
            assert node.arg not in ("verdict", "counterexample"), f"{name}: {node.arg}= written in a check"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            assert node.value.id != "Verdict", f"{name}: Verdict.{node.attr} written in a check"


def test_removing_a_refutation_changes_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.proofs_checks import hpsy_thm3

    assert get_check("HPSY.Thm3.union-over-A").verdict is Verdict.FAILS
    monkeypatch.setattr(hpsy_thm3, "refute", lambda *a, **k: None)  # the counterexample is no longer established
    assert get_check("HPSY.Thm3.union-over-A").verdict is Verdict.UNPROVED  # loose proved facts prove nothing


def test_a_broken_supporting_step_is_an_error_not_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.proofs_checks import hpsy_thm3

    def fail(*a: object, **k: object) -> None:
        raise CannotDecide("z3 could not prove it")

    monkeypatch.setattr(hpsy_thm3, "z3_prove", fail)
    with pytest.raises(CannotDecide):
        get_check("HPSY.Thm3.chebyshev-arithmetic")


def test_a_broken_chain_step_makes_the_claim_unproved(monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.proofs_checks import hpsy_thm2

    assert get_check("HPSY.Thm2.hoeffding").verdict is Verdict.HOLDS_GIVEN
    real = hpsy_thm2.hoeffding_proof

    def weaker(*a: object, **k: object) -> object:
        P = real(*a, **k)
        P.steps = [s for s in P.steps if s["method"] != "smt"]  # drop the link the monotone step needs
        return P

    monkeypatch.setattr(hpsy_thm2, "hoeffding_proof", weaker)
    assert get_check("HPSY.Thm2.hoeffding").verdict is Verdict.UNPROVED

"""Every registered check runs, returns a well-formed record, and matches the recorded expectation.

A FAILS verdict is a reported result about a paper, not a test failure: the test fails when a
check raises or when its verdict differs from ``semiprivate.proofs_checks.expected.EXPECTED``.
"""

from __future__ import annotations

import pytest
from semiprivate.proofs_checks import EXPECTED, Check, Outcome, Verdict, registry, run_all


def outcomes() -> dict[str, Outcome]:
    """Every check's outcome: the checks run once per process (``run_all`` keeps them), on first use, not while
    the tests are collected (each pytest-xdist worker collects every module)."""
    return {o.id: o for o in run_all()}


def test_every_check_has_an_expectation_and_vice_versa() -> None:
    assert set(registry()) == set(EXPECTED)


@pytest.mark.parametrize("check_id", sorted(EXPECTED))
def test_check_runs_and_matches_expectation(check_id: str) -> None:
    out = outcomes()[check_id]
    assert out.error is None, out.error
    rec = out.check
    assert isinstance(rec, Check)
    assert rec.id == check_id
    assert rec.verdict is EXPECTED[check_id], f"{check_id}: got {rec.verdict.value}, expected {EXPECTED[check_id].value}"
    assert rec.claim and rec.method and rec.details
    if rec.verdict is Verdict.FAILS:
        assert rec.counterexample
    if rec.verdict is Verdict.HOLDS_WITH_CONDITION:
        assert rec.condition
    if rec.verdict is Verdict.HOLDS_GIVEN:
        assert rec.citations


def test_every_paper_item_with_algebra_has_a_check() -> None:
    """At least one check for every SPEC item whose proof has algebra to check."""
    prefixes = ["HPSY.Lem2.", "HPSY.Thm1.", "HPSY.Thm2.", "HPSY.Thm3.", "ABM19.Lem3.3.", "ABM19.Lem4.4.",
                "ABM19.Thm4.1.", "BNS15.Obs3.2.", "BNS15.Cl4.2.", "BNS15.Lem4.1.", "BNS15.Lem4.6.", "BNS15.Cl4.8.",
                "BNS15.Cl4.9.", "BNS15.Cl4.11.", "BNS15.Thm5.6.", "BNS15.Cl5.7.", "BNS15.PropA.1.", "BNS15.Rem4.10.",
                "BNS15.Cor3.4.", "ABM19.Cl4.5.", "PILLAR.Alg2.", "PILLAR.Cor4.", "PILLAR.Thm5."]
    for p in prefixes:
        assert any(k.startswith(p) for k in EXPECTED), p


def test_links_to_theory_bounds_are_present() -> None:
    """semiprivate.theory.bounds has landed: the checks that mirror an implemented statement must have asserted it."""
    pytest.importorskip("semiprivate.theory.bounds.abm19")
    linked = {cid for cid, o in outcomes().items() if o.check is not None and o.check.links}
    for cid in ("ABM19.Lem3.3.manipulation", "ABM19.Lem4.4.confidence", "ABM19.Thm4.1.arithmetic",
                "BNS15.Cl4.2.sauer-chain", "BNS15.Lem4.6.constants", "BNS15.Cl4.9.induction",
                "BNS15.Thm5.6.constants", "BNS15.Cl5.7.statement", "BNS15.PropA.1.utility"):
        assert cid in linked, cid

"""HOLDS means proved: every HOLDS claim is stated formally and closed by a chain of certified steps that the
independent checker re-establishes; changing a constant of the stated theorem, or deleting steps, moves the
verdict to FAILS (with an exactly re-verified counterexample) or UNPROVED, never HOLDS and never an error."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest
import sympy as sp
from semiprivate.proofs_checks import EXPECTED, Outcome, Verdict, get_check, run_all
from semiprivate.proofs_checks._framework import Claim, Proof, perturbed
from semiprivate.proofs_checks.certificate_checker import CertificateError, check_file, check_proof, check_step

HOLDING = (Verdict.HOLDS, Verdict.HOLDS_GIVEN, Verdict.HOLDS_WITH_CONDITION)
MOVED = (Verdict.FAILS, Verdict.UNPROVED)
R = sp.Rational

#: For every claim that holds: changes of the stated theorem's constants that make it false or unproved.
PERTURBATIONS: dict[str, list[dict[str, object]]] = {
    "HPSY.Lem1.karger-algebra": [{"three": 1}, {"two": R(1, 2)}, {"four": 8}],
    "HPSY.Lem2.beta-range": [{"nine": R(9, 2)}, {"five": 1}, {"four": 8}],
    "HPSY.Lem2.quadratic": [{"c9": 3}, {"c4": R(1, 100), "c9": 3}, {"c3": 12}],
    "HPSY.Lem2.karger-condition": [{"c9": 3}, {"c3": 12}, {"k4": 8}],
    "HPSY.Lem2.exact-union-bound": [{"c": 1}, {"c": 3}],
    "HPSY.Thm1.union-bound": [{"two": 1}, {"share": 4}],
    "HPSY.Thm2.hoeffding": [{"c": 2}, {"m": 4}, {"share": 16}],
    "ABM19.Lem4.4.error-scaling": [{"hundred": 10}],
    "ABM19.Thm4.1.arithmetic": [{"level": R(1, 8)}, {"hundred": 50}, {"conf": R(1, 17)}],
    "BNS15.Obs3.2.xor-vc": [{"ten": 5}, {"two": R(3, 2)}],
    "BNS15.Cl4.11.thmB5-sizes": [{"have_c": 10}, {"fourteen": 2}],
    "BNS15.Cl4.9.induction": [{"rate": 10**4}, {"shrink": 10**30}, {"fourteen": 1}, {"size": 200}],
    "BNS15.Cl4.8.geometric-sum": [{"total": 60000}, {"cap": 45000}],
    "BNS15.Cl4.3.subsampling": [{"share": 2}, {"share": R(11, 10)}],
    "ABM19.Lem4.4.loop-beyond-ratio-20": [{"ratio": 9}, {"hundred": 10}, {"slack": R(1, 1000)}],
    "BNS15.Lem4.1.4e-factor": [{"four": 3}, {"three": 2}],
    "BNS15.Lem4.6.constants": [{"bound": 17}, {"keep": 50}, {"base_keep": 200}],
    "BNS15.Rem4.10.capped-step": [{"shrink": 101}, {"cap": 29000}],
    "PILLAR.Alg2.total": [{"run_share": 2}, {"sensitivity": 2}],
    "HPSY.Thm3.chebyshev-arithmetic": [{"four": 1}, {"share": 8}],
    "PILLAR.Thm1.n_lab": [{"scale": 2}],
}


def outcomes() -> dict[str, Outcome]:
    """Every check's outcome: the checks run once per process (``run_all`` keeps them), on first use, not while
    the tests are collected (each pytest-xdist worker collects every module)."""
    return {o.id: o for o in run_all()}


def test_every_holding_claim_has_a_closed_chain_and_perturbations() -> None:
    for cid, want in EXPECTED.items():
        if want in HOLDING:
            rec = outcomes()[cid].check
            assert rec is not None and rec.proof is not None, cid
            assert rec.proof.result()["status"] == "closed", (cid, rec.open_reasons)
            assert cid in PERTURBATIONS, f"{cid} holds but has no perturbation in the table"
    assert set(PERTURBATIONS) <= {c for c, v in EXPECTED.items() if v in HOLDING}


@pytest.mark.parametrize("cid,change", [(c, ch) for c, chs in PERTURBATIONS.items() for ch in chs],
                         ids=[f"{c}-{'-'.join(f'{k}={v}' for k, v in ch.items())}" for c, chs in PERTURBATIONS.items()
                              for ch in chs])
def test_changing_a_constant_of_the_theorem_moves_the_verdict(cid: str, change: dict[str, object]) -> None:
    with perturbed(cid, **change):
        rec = get_check(cid)  # never an error
    assert rec.verdict in MOVED, f"{cid} with {change}: {rec.verdict.value}"
    if rec.verdict is Verdict.FAILS:
        assert rec.counterexample


def test_an_unknown_or_degenerate_constant_is_refused() -> None:
    with perturbed("HPSY.Lem2.exact-union-bound", nine=1), pytest.raises(KeyError, match="no constant"):
        get_check("HPSY.Lem2.exact-union-bound")
    for bad in (0, -1):
        with perturbed("HPSY.Thm2.hoeffding", m=bad), pytest.raises(ValueError, match="positive number"):
            get_check("HPSY.Thm2.hoeffding")


@pytest.mark.parametrize("cid", sorted(PERTURBATIONS))
def test_deleting_every_certified_step_leaves_the_claim_unproved(cid: str) -> None:
    rec = outcomes()[cid].check
    assert rec is not None and rec.proof is not None
    names = [s["name"] for s in rec.proof.steps if s["method"] != "cited"] or [s["name"] for s in rec.proof.steps]
    assert replace(rec, proof=rec.proof.without(names)).verdict is Verdict.UNPROVED


def test_hpsy_lem2_constant_nine_to_one_fails_with_the_exact_counterexample() -> None:
    with perturbed("HPSY.Lem2.exact-union-bound", c=1):
        rec = get_check("HPSY.Lem2.exact-union-bound")
    assert rec.verdict is Verdict.FAILS
    assert rec.counterexample is not None and "d = 400" in rec.counterexample


def test_hpsy_lem2_deleting_any_two_steps_is_unproved() -> None:
    rec = outcomes()["HPSY.Lem2.exact-union-bound"].check
    assert rec is not None and rec.proof is not None and rec.verdict is Verdict.HOLDS_GIVEN
    names = [s["name"] for s in rec.proof.steps]
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            assert replace(rec, proof=rec.proof.without([names[i], names[j]])).verdict is Verdict.UNPROVED, (i, j)


def test_hpsy_thm2_steps_giving_half_of_beta_do_not_prove_a_quarter() -> None:
    """With log(4/beta) in place of log(16/beta) the certified steps give beta/8 * 4 = beta/2, not beta/4."""
    with perturbed("HPSY.Thm2.hoeffding", m=4):
        rec = get_check("HPSY.Thm2.hoeffding")
    assert rec.verdict is Verdict.UNPROVED
    assert any("does not close" in r for r in rec.open_reasons)


def test_a_recorded_verdict_the_document_no_longer_supports_fails_the_recheck(tmp_path: Path) -> None:
    rec = outcomes()["HPSY.Lem2.karger-condition"].check
    assert rec is not None
    doc = rec.certificates_json()
    for tamper in ("constant", "delete"):
        bad = copy.deepcopy(doc)
        if tamper == "constant":  # the theorem's 9 becomes 3 in the stored claim
            bad["proof"]["claim"]["hypotheses"] = [h.replace("Integer(9)", "Integer(3)")
                                                   for h in bad["proof"]["claim"]["hypotheses"]]
        else:
            bad["proof"]["steps"] = bad["proof"]["steps"][:1]
        path = tmp_path / f"{tamper}.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(CertificateError, match="supports"):
            check_file(path)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    assert check_file(good) >= 1


# ----------------------------------------------------------------------------- the checker's own edges

x = sp.Symbol("x", real=True)
t = sp.Symbol("t", nonnegative=True)


def _step(method: str, hyps: list[object], concl: object, **extra: object) -> dict[str, object]:
    return {"name": "s", "method": method, "hypotheses": [sp.srepr(h) for h in hyps],
            "conclusion": sp.srepr(concl), **extra}


def test_an_expression_exactly_zero_on_the_box() -> None:
    check_step(_step("interval", [x >= -1, x <= 1], sp.Ge(x**2, 0, evaluate=False)))
    with pytest.raises(CertificateError):  # x^2 = 0 at x = 0: the strict form must not pass
        check_step(_step("interval", [x >= -1, x <= 1], sp.Gt(x**2, 0, evaluate=False)))
    with pytest.raises(CertificateError):
        check_step(_step("interval", [x >= -1, x <= 1], sp.Gt(x * (1 - x) + 1, 1, evaluate=False)))


def test_strict_against_non_strict() -> None:
    check_step(_step("sign", [], sp.Ge((x - 1) ** 2, 0, evaluate=False)))
    with pytest.raises(CertificateError):
        check_step(_step("sign", [], sp.Gt((x - 1) ** 2, 0, evaluate=False)))
    check_step(_step("smt", [x >= 1], sp.Ge(x, 1, evaluate=False)))
    with pytest.raises(CertificateError):
        check_step(_step("smt", [x >= 1], sp.Gt(x, 1, evaluate=False)))
    check_step(_step("evaluate", [], sp.Le(sp.Integer(1), 1, evaluate=False)))
    with pytest.raises(CertificateError):
        check_step(_step("evaluate", [], sp.Lt(sp.Integer(1), 1, evaluate=False)))


def test_an_empty_or_degenerate_domain() -> None:
    with pytest.raises(CertificateError, match="empty box"):
        check_step(_step("interval", [x >= 2, x <= 1], sp.Ge(x, 0, evaluate=False)))
    check_step(_step("interval", [x >= 1, x <= 1], sp.Ge(x - 1 + x**2, 1, evaluate=False)))  # a single point
    claim = Claim("vacuous", (x,), (x > 1, x < 0), x > 5)
    res = check_proof(json.loads(json.dumps(Proof(claim).as_json())))
    assert res["status"] == "open" and any("vacuous" in f for f in res["failures"])


def test_trivial_steps_are_refused() -> None:
    s = sp.Symbol("s", nonnegative=True)
    v = sp.Symbol("v", positive=True)
    for concl in (sp.Ge(sp.Integer(4), 0, evaluate=False), sp.Ge(s, 0, evaluate=False), sp.Ge(6 * v, 0, evaluate=False)):
        with pytest.raises(CertificateError, match="trivial"):
            check_step(_step("sign", [], concl))
    with pytest.raises(CertificateError, match="trivial"):
        check_step(_step("identity", [], sp.Eq(2 * x, x + x, evaluate=False)))


def test_a_tampered_chain_link() -> None:
    claim = Claim("x >= 1 gives exp(x) > 2", (x,), (x >= 1,), sp.exp(x) > 2, samples={"x": ["1", "2"]})
    P = Proof(claim)
    m = P.monotone("exp is increasing", "exp", sp.Le(1, x))
    e2 = P.evaluate("e > 2", sp.E, ">", 2)
    P.smt("exp(x) >= e > 2", [m, e2], sp.exp(x) > 2)
    assert check_proof(json.loads(json.dumps(P.as_json())))["status"] == "closed"
    doc = json.loads(json.dumps(P.as_json()))
    doc["steps"].reverse()  # the last step now uses conclusions established after it
    res = check_proof(doc)
    assert res["status"] == "open" and any("neither a hypothesis" in f for f in res["failures"])
    doc = json.loads(json.dumps(P.as_json()))
    doc["steps"][1]["conclusion"] = sp.srepr(sp.Gt(sp.E, 3, evaluate=False))  # a link its method does not establish
    assert check_proof(doc)["status"] == "open"
    doc = json.loads(json.dumps(P.as_json()))
    doc["claim"]["conclusion"] = sp.srepr(sp.exp(x) > 3)  # the claim changed: false at x = 1
    res = check_proof(doc)
    assert res["status"] == "refuted" and res["counterexample"] == {"x": "1"}


def test_slack_witness_uses_only_stated_hypotheses() -> None:
    n, n0 = sp.symbols("n n0", positive=True)
    concl = sp.Ge(n**2 - n0**2, 0, evaluate=False)
    w = t * (t + 2 * n0)
    check_step(_step("sign", [n - n0 >= 0], concl, slacks={"t": sp.srepr(n - n0)}, witness=sp.srepr(w)))
    with pytest.raises(CertificateError, match="no hypothesis"):
        check_step(_step("sign", [], concl, slacks={"t": sp.srepr(n - n0)}, witness=sp.srepr(w)))


def test_cli_writes_nothing_into_an_installed_copy_without_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from semiprivate.proofs_checks import report
    from semiprivate.proofs_checks.__main__ import main

    monkeypatch.chdir(tmp_path)
    fake = tmp_path / "lib" / "python3.11" / "site-packages" / "proofs_checks" / "report.py"
    monkeypatch.setattr(report, "__file__", str(fake))
    assert main([]) == 0
    assert list(tmp_path.iterdir()) == []  # nothing written into the current folder
    assert main(["--certificates"]) == 2  # no default folder outside a source checkout
    out = tmp_path / "R.md"
    assert main(["--out", str(out)]) == 0 and out.is_file()


def test_identities_that_need_a_branch_choice_are_refused() -> None:
    m, n = sp.symbols("m n", negative=True)
    with pytest.raises(CertificateError):  # sqrt(mn) = 1 but sqrt(m) sqrt(n) = -1 at m = n = -1
        check_step(_step("identity", [], sp.Eq(sp.sqrt(m * n), sp.sqrt(m) * sp.sqrt(n), evaluate=False)))
    with pytest.raises(CertificateError):
        check_step(_step("identity", [], sp.Eq(sp.log(x**2), 2 * sp.log(x), evaluate=False)))


def test_a_cited_step_may_not_be_the_claim_and_citations_alone_prove_nothing() -> None:
    claim = Claim("x >= 1 gives exp(x) > 2", (x,), (x >= 1,), sp.exp(x) > 2, samples={"x": ["1", "2"]})
    P = Proof(claim)
    P.cite("the paper says so", sp.exp(x) > 2, "the paper under review")
    res = check_proof(json.loads(json.dumps(P.as_json())))
    assert res["status"] == "open" and any("carries (part of) the claim" in f for f in res["failures"])
    assert any("every step is cited" in f for f in res["failures"])


def test_a_claim_without_a_witness_point_or_with_contradictory_hypotheses_is_open() -> None:
    # the written sample and the points derived from the boundary x >= 0 (0 and just above) miss x^2 >= 4
    claim = Claim("x^2 >= 4, x >= 0 gives x >= 2", (x,), (x**2 >= 4, x >= 0), x >= 2, samples={"x": ["1"]})
    P = Proof(claim)
    P.smt("x^2 >= 4 and x >= 0 give x >= 2", [x**2 >= 4, x >= 0], x >= 2)
    res = check_proof(json.loads(json.dumps(P.as_json())))
    assert res["status"] == "open" and any("not shown non-empty" in f for f in res["failures"])
    found = json.loads(json.dumps(P.as_json()))
    found["claim"]["samples"] = [["x", ["3"]]]
    assert check_proof(found)["status"] == "closed"
    vac = Claim("vacuous", (x,), (x > 1, x < 0), x > 5, samples={"x": ["2"]})
    V = Proof(vac)
    V.smt("x > 5", [x > 1, x < 0], x > 5)
    res = check_proof(json.loads(json.dumps(V.as_json())))  # an open verdict, not an exception
    assert res["status"] == "open" and any("vacuous" in f for f in res["failures"])


def test_unused_steps_and_claims_that_need_no_step_are_flagged() -> None:
    claim = Claim("x >= 1 gives x^2 >= 1", (x,), (x >= 1,), x**2 >= 1, samples={"x": ["1"]})
    P = Proof(claim)
    P.evaluate("e > 2", sp.E, ">", 2)
    P.smt("x^2 >= 1", [x >= 1], x**2 >= 1)
    res = check_proof(json.loads(json.dumps(P.as_json())))
    assert res["status"] == "open" and any("decorative" in f for f in res["failures"])
    Q = Proof(claim)
    Q.smt("x^2 >= 1", [x >= 1], x**2 >= 1)
    assert check_proof(json.loads(json.dumps(Q.as_json())))["status"] == "closed"

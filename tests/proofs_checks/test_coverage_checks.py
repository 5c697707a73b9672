"""The checks of BNS15 Thm 3.3, Cl 4.5, Thm 4.16, Cor 4.17/4.18, Thm 5.5 and PILLAR Thm 2: their certificates
re-check, a tampered certificate or a broken fact is caught, and each SPEC id lists its check."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from semiprivate.proofs_checks import EXPECTED, Verdict
from semiprivate.proofs_checks._framework import CannotDecide, Role
from semiprivate.proofs_checks.certificate_checker import CertificateError, check_certificate
from semiprivate.proofs_checks.report import CERTIFICATES_DIR

NEW = {
    "BNS15.Thm3.3.events": Verdict.UNPROVED,  # its chain closes, but on Thm B.6 at sizes BNS15.Thm3.3.proof-sizes refutes
    "BNS15.Thm3.3.proof-sizes": Verdict.FAILS,
    "BNS15.Thm3.3.large-epsilon": Verdict.FAILS,
    "BNS15.Cl4.5.resampling": Verdict.UNPROVED,
    "BNS15.Thm4.16.composition": Verdict.UNPROVED,
    "BNS15.Cor4.17.rectangles": Verdict.UNPROVED,
    "BNS15.Cor4.18.repdim": Verdict.UNPROVED,
    "BNS15.Thm5.5.transcript": Verdict.UNPROVED,
    "PILLAR.Thm2.covariance-shift": Verdict.UNPROVED,
}


def _certs(check_id: str) -> list[dict]:  # type: ignore[type-arg]
    data = json.loads((CERTIFICATES_DIR / f"{check_id}.json").read_text(encoding="utf-8"))
    return [c for f in data["facts"] for c in f["certificates"]]


def _cert(check_id: str, goal_part: str) -> dict:  # type: ignore[type-arg]
    found = [c for c in _certs(check_id) if goal_part in c["goal"]]
    assert found, f"{check_id}: no certificate about {goal_part!r}"
    return dict(found[0])


@pytest.mark.parametrize("check_id", sorted(NEW))
def test_new_check_is_expected_and_its_certificates_recheck(check_id: str) -> None:
    assert EXPECTED[check_id] is NEW[check_id]
    certs = _certs(check_id)
    assert certs
    for c in certs:
        check_certificate(c)


# (check id, part of the certificate's goal, text in the certificate, tampered text)
TAMPER = [
    ("BNS15.Thm3.3.events", "Thm B.6 at (alpha/5, beta/5)", "Integer(1250)", "Integer(1200)"),
    ("BNS15.Thm3.3.events", "E1 and E2", "Rational(4, 5)", "Rational(3, 5)"),
    ("BNS15.Thm3.3.proof-sizes", "600 L * stated m", "Integer(3800)", "Integer(3000)"),
    ("BNS15.Thm3.3.proof-sizes", "alpha = 1/2, eps = 1", "Integer(1000000)", "Integer(100000000)"),
    ("BNS15.Thm3.3.large-epsilon", "VC = 1, alpha = 1/10", "Rational(1, 2)", "Rational(1, 3)"),
    ("BNS15.Cl4.5.resampling", "4 * 2467/247", "Integer(41)", "Integer(39)"),
    ("BNS15.Thm4.16.composition", "triangle inequality", "Integer(11)", "Integer(10)"),
    ("BNS15.Cor4.17.rectangles", "164 eps/(3+e)", "Integer(164)", "Integer(163)"),
    ("BNS15.Cor4.18.repdim", "O_{alpha,beta,eps}(VC)", "Mul(Symbol('K', positive=True), Symbol('VC', positive=True),",
     "Mul(Integer(2), Symbol('K', positive=True), Symbol('VC', positive=True),"),
    ("BNS15.Thm5.5.transcript", "constant L0", "(<= p (+ (* e_eps pp) delta))", "(<= p (+ (* e_eps pp) delta 1.0))"),
    ("PILLAR.Thm2.covariance-shift", "s^2 |a|", "(* (* 2.0 TV) (- E1 E2))", "(* (* 1.0 TV) (- E1 E2))"),
    ("PILLAR.Thm2.covariance-shift", "u = e^(-t)", "Integer(1)", "Integer(-1)"),
    ("BNS15.Obs3.2.xor-vc", "g'(10 + s)", "Integer(10)", "Integer(8)"),
]


@pytest.mark.parametrize(("check_id", "goal", "old", "new"), TAMPER, ids=[f"{t[0]}:{t[2]}" for t in TAMPER])
def test_tampered_certificate_is_caught(check_id: str, goal: str, old: str, new: str) -> None:
    cert = _cert(check_id, goal)
    field = "smt2" if cert["kind"] == "z3" else next(k for k in ("expr", "lhs", "rhs") if old in cert.get(k, ""))
    assert old in cert[field], (check_id, cert[field][:300])
    check_certificate(cert)
    cert[field] = cert[field].replace(old, new, 1)
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_thm33_refutation_is_computed_not_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the stated m the missing VC ln(1/beta)/alpha^2 term: the refutation's certificate no longer holds."""
    from semiprivate.proofs_checks import bns15_thm3_3

    real = bns15_thm3_3._stated_m
    monkeypatch.setattr(bns15_thm3_3, "_stated_m",
                        lambda vc, a, b_log, e: real(vc, a, b_log, e) + 10**4 * vc * b_log / a**2)
    with pytest.raises(CannotDecide):
        bns15_thm3_3.check_proof_sizes()


def test_thm33_events_budget_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget written as 2beta/5 + beta/5 + beta/5 == beta (the tempting misreading) is not certified."""
    from semiprivate.proofs_checks import _framework

    b = sp.Symbol("beta", positive=True)
    with pytest.raises(CannotDecide):
        with sp.evaluate(False):
            budget = 2 * b / 5 + b / 5 + b / 5
        _framework.sympy_zero(budget, b, "budget")


def test_new_verdicts_rest_on_nontrivial_certificates() -> None:
    """Cited steps never count as proofs: each new verdict rests on certified facts, and no sympy identity
    was cancelled to a bare 0 before it was written (the certificate keeps the terms it adds up)."""
    from semiprivate.proofs_checks import registry

    reg = registry()
    for cid in NEW:
        rec = reg[cid]()
        role = Role.REFUTES if rec.verdict is Verdict.FAILS else Role.PROVES
        assert [f for f in rec.facts if f.role is role and f.certificates], cid
        assert rec.verdict is NEW[cid]
        for c in _certs(cid):
            if c["kind"] == "sympy-zero":
                assert "expr" not in c and c["lhs"] not in ("Integer(0)", "0") and c["lhs"] != c["rhs"], (cid, c["goal"])


def test_obs32_derivative_step_is_certified() -> None:
    """g' >= ln 2 - 1/5 for r >= 10 carries a sympy sign certificate (it was a bare comment before)."""
    from semiprivate.proofs_checks import bns15_obs3_2

    rec = bns15_obs3_2.check_obs32()
    goals = [c["goal"] for f in rec.facts if f.role is Role.PROVES for c in f.certificates]
    assert any("g'(10 + s)" in g for g in goals)
    assert any("g'(r) == ln 2 - 2/r" in g for g in goals)


def test_spec_lists_the_new_checks() -> None:
    from semiprivate.theory.spec import build_index

    items = {e.id: e for e in build_index(tests=False, checks=True)}
    for item, check_id in (("BNS15.Thm3.3", "BNS15.Thm3.3.events"), ("BNS15.Cl4.5", "BNS15.Cl4.5.resampling"),
                           ("BNS15.Thm4.16", "BNS15.Thm4.16.composition"), ("BNS15.Cor4.17", "BNS15.Cor4.17.rectangles"),
                           ("BNS15.Cor4.18", "BNS15.Cor4.18.repdim"), ("BNS15.Thm5.5", "BNS15.Thm5.5.transcript"),
                           ("PILLAR.Thm2", "PILLAR.Thm2.covariance-shift")):
        assert check_id in items[item].checks, (item, items[item].checks)

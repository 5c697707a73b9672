"""The certificates: every one written re-checks with the independent checker, the committed files are
current, the checker depends on nothing of the project, and a tampered certificate is caught."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import pytest
from semiprivate.proofs_checks import Verdict, run_all
from semiprivate.proofs_checks._framework import Role
from semiprivate.proofs_checks.certificate_checker import CertificateError, check_certificate, check_file
from semiprivate.proofs_checks.report import CERTIFICATES_DIR, render_certificates

FILES = sorted(CERTIFICATES_DIR.glob("*.json"))


def test_certificate_files_are_current() -> None:
    """proofs_checks/certificates/ equals a fresh rendering (regenerate: python -m semiprivate.proofs_checks --certificates)."""
    fresh = render_certificates(run_all())
    assert {p.name for p in FILES} == set(fresh), "certificate files stale: rerun with --certificates"
    for p in FILES:
        assert p.read_text(encoding="utf-8") == fresh[p.name], f"{p.name} is stale: rerun with --certificates"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_certificate_rechecks(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    want = sum(len(f["certificates"]) for f in data["facts"]) + len((data.get("proof") or {}).get("steps", []))
    assert check_file(path) == want


def test_every_verdict_rests_on_certificates() -> None:
    """0 HOLDS without a closed chain: each HOLDS / HOLDS GIVEN / HOLDS WITH CONDITION has a formal claim whose
    chain the checker closes; each FAILS has a certified refutation or a counterexample in the claim's domain; the
    recorded verdict in the certificate file is the check's."""
    for o in run_all():
        assert o.check is not None, o.error
        c = o.check
        if c.verdict in (Verdict.HOLDS, Verdict.HOLDS_GIVEN, Verdict.HOLDS_WITH_CONDITION):
            assert c.proof is not None and c.proof.result()["status"] == "closed", c.id
        elif c.verdict is Verdict.FAILS:
            refs = [f for f in c.facts if f.role is Role.REFUTES]
            assert (refs and all(f.certificates for f in refs)) or (
                c.proof is not None and c.proof.result()["status"] == "refuted"), c.id
        data = json.loads((CERTIFICATES_DIR / f"{c.id}.json").read_text(encoding="utf-8"))
        assert data["verdict"] == c.verdict.value


def test_checker_is_independent_of_the_project() -> None:
    src = Path(str(__import__("semiprivate.proofs_checks.certificate_checker", fromlist=["x"]).__file__)).read_text()
    mods = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            mods.add((node.module or "").split(".")[0])
    assert mods <= {"__future__", "copy", "hashlib", "re", "json", "collections", "pathlib", "typing", "itertools", "math", "mpmath", "sympy",
                    "z3"}, mods


def _first(kind: str) -> dict:  # type: ignore[type-arg]
    for p in FILES:
        for f in json.loads(p.read_text(encoding="utf-8"))["facts"]:
            for c in f["certificates"]:
                if c["kind"] == kind:
                    return c
    raise LookupError(kind)


def test_tampered_certificates_fail() -> None:
    ev = copy.deepcopy(_first("evaluate"))
    ev["relation"] = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[ev["relation"]]
    with pytest.raises(CertificateError):
        check_certificate(ev)
    z = copy.deepcopy(_first("z3"))
    z["smt2"] = z["smt2"].replace("(check-sat)", "(assert false)\n(check-sat)").replace("(assert\n (not", "(assert\n (and")
    bad_z = {"kind": "z3", "smt2": "(declare-fun a () Real)\n(assert (> a 0.0))\n(check-sat)\n"}
    with pytest.raises(CertificateError):
        check_certificate(bad_z)  # satisfiable: the negated goal has a model
    iv = copy.deepcopy(_first("interval"))
    iv["expr"] = f"Add({iv['expr']}, Integer(-10))"
    with pytest.raises(CertificateError):
        check_certificate(iv)
    no_red = copy.deepcopy(_first("interval"))
    no_red["reduction"] = ""
    with pytest.raises(CertificateError, match="domain"):
        check_certificate(no_red)
    with pytest.raises(CertificateError):
        check_certificate({"kind": "sympy-nonneg", "expr": "Add(Symbol('x', positive=True), Integer(-1))"})
    with pytest.raises(CertificateError):
        check_certificate({"kind": "sympy-zero", "expr": "Add(Symbol('x'), Integer(-1))"})
    with pytest.raises(CertificateError, match="kind"):
        check_certificate({"kind": "grid"})


def test_interval_branch_and_bound_proves_and_refutes() -> None:
    ok = {"kind": "interval", "expr": "Add(Pow(Symbol('x'), Integer(2)), Mul(Integer(-1), Symbol('x')), "
          "Rational(1, 2))", "box": {"x": ["-3", "3"]}, "relation": "> 0", "reduction": "compact by assumption"}
    check_certificate(ok)  # x^2 - x + 1/2 > 0 everywhere
    bad = dict(ok, expr="Add(Pow(Symbol('x'), Integer(2)), Mul(Integer(-1), Symbol('x')))")
    with pytest.raises(CertificateError, match="fails on the box"):  # refuted, not out of boxes
        check_certificate(bad)  # x^2 - x < 0 on (0, 1), and exactly 0 at the zeros 0 and 1

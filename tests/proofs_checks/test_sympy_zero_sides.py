"""``sympy-zero`` certificates store the two sides of the identity the proof step names: none is a
bare 0 left by sympy cancelling the difference, the checker refuses the trivial forms, and a
tampered side of a real identity is caught."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import sympy as sp
from semiprivate.proofs_checks.certificate_checker import CertificateError, check_certificate
from semiprivate.proofs_checks.report import CERTIFICATES_DIR

FILES = sorted(CERTIFICATES_DIR.glob("*.json"))
BARE_ZERO = {"0", "Integer(0)"}


def _zero_certs() -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    out = []
    for p in FILES:
        data = json.loads(Path(p).read_text(encoding="utf-8"))
        for f in data["facts"]:
            out += [(data["id"], c) for c in f["certificates"] if c["kind"] == "sympy-zero"]
    return out


def test_no_sympy_zero_certificate_is_a_bare_zero() -> None:
    """Every sympy-zero certificate has two stored sides; the left one is never a bare 0 and the two differ."""
    certs = _zero_certs()
    assert len(certs) >= 60  # the chains replaced the loose identities of the holding claims
    bad = [(cid, c["goal"]) for cid, c in certs
           if "expr" in c or c.get("lhs") in BARE_ZERO or not c.get("rhs") or c.get("lhs") == c.get("rhs")]
    assert not bad, f"{len(bad)} sympy-zero certificates without two distinct sides: {bad[:5]}"


def _side(e: sp.Expr) -> str:
    return sp.srepr(e, order="none")


def test_checker_refuses_the_trivial_forms() -> None:
    x = sp.Symbol("x", positive=True)
    for cert, reason in [
        ({"kind": "sympy-zero", "expr": "Integer(0)", "goal": "old form"}, "single-field"),
        ({"kind": "sympy-zero", "lhs": "Integer(0)", "rhs": "Integer(0)", "goal": "0 == 0"}, "same expression"),
        ({"kind": "sympy-zero", "lhs": _side(2 * sp.sqrt(x)), "rhs": _side(2 * sp.sqrt(x)), "goal": "cancelled"},
         "same expression"),
        ({"kind": "sympy-zero", "lhs": "Integer(0)", "rhs": _side(x), "goal": "number on the left"}, "bare number"),
        ({"kind": "sympy-zero", "lhs": _side(x), "goal": "one side"}, "single-field"),
    ]:
        with pytest.raises(CertificateError, match=reason):
            check_certificate(cert)


def test_checker_accepts_an_unevaluated_identity() -> None:
    r, b = sp.symbols("R beta", positive=True)
    with sp.evaluate(False):
        lhs = sp.sqrt(4 * r / b)
    check_certificate({"kind": "sympy-zero", "lhs": _side(lhs), "rhs": _side(2 * sp.sqrt(r / b)), "goal": "g"})
    with sp.evaluate(False):
        x_minus_x = r - r
    check_certificate({"kind": "sympy-zero", "lhs": _side(x_minus_x), "rhs": "Integer(0)", "goal": "R - R == 0"})


def _bump_first_integer(text: str) -> str | None:
    """The srepr with its first Integer(k), k not 0 or +-1, replaced by k + 1 (a changed constant)."""
    import re

    for m in re.finditer(r"Integer\((-?\d+)\)", text):
        k = int(m.group(1))
        if k not in (0, 1, -1):
            return text[:m.start()] + f"Integer({k + 1})" + text[m.end():]
    return None


@pytest.mark.parametrize("which", ["lhs", "rhs"])
def test_a_changed_constant_in_one_side_is_refused(which: str) -> None:
    """For real identities of the committed certificates: change one constant of one side, the checker refuses."""
    tampered = 0
    for _cid, c in _zero_certs():
        text = _bump_first_integer(c[which])
        if text is None:
            continue
        bad = copy.deepcopy(c)
        bad[which] = text
        with pytest.raises(CertificateError, match="does not reduce"):
            check_certificate(bad)
        tampered += 1
        if tampered == 4:
            break
    assert tampered == 4


_SEED_SCRIPT = """
import json, sys
from semiprivate.proofs_checks import registry
reg = registry()
print(json.dumps({cid: reg[cid]().certificates_json() for cid in sys.argv[1:]}, sort_keys=True))
"""
# checks whose sympy-zero sides are built unevaluated (Add/Mul argument order as constructed)
_UNEVALUATED = ["BNS15.Thm3.3.events", "BNS15.Thm4.16.composition", "HPSY.Thm3.chebyshev-arithmetic",
                "BNS15.Cl4.9.induction", "BNS15.Cor4.17.rectangles"]


def test_certificates_do_not_depend_on_the_hash_seed() -> None:
    """The unevaluated sides are written in construction order: the JSON is the same under two hash seeds."""
    import os
    import subprocess
    import sys

    from semiprivate.proofs_checks import run_all

    # this process and one child under a fixed hash seed other than this process's
    seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "1"
    env = dict(os.environ, PYTHONHASHSEED=seed)
    res = subprocess.run([sys.executable, "-c", _SEED_SCRIPT, *_UNEVALUATED], env=env, capture_output=True,
                         text=True, check=True, timeout=120)
    here = {o.id: o.check for o in run_all() if o.id in _UNEVALUATED}
    outs = [json.dumps({cid: here[cid].certificates_json() for cid in _UNEVALUATED}, sort_keys=True),  # type: ignore[union-attr]
            res.stdout.strip()]
    assert json.loads(outs[0]) == json.loads(outs[1])

    def zero_certs(doc: dict) -> list[dict]:  # type: ignore[type-arg]
        return [c for f in doc["facts"] for c in f["certificates"] if c["kind"] == "sympy-zero"]

    fresh = json.loads(outs[0])
    for cid in _UNEVALUATED:  # and equal to the committed files (z3's let-names depend on what ran before: not compared)
        committed = json.loads((CERTIFICATES_DIR / f"{cid}.json").read_text(encoding="utf-8"))
        assert zero_certs(fresh[cid]) == zero_certs(committed), cid

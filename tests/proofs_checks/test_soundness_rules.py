"""The rules that keep HOLDS meaning proved, each broken on purpose by changing the stated theorem:
a claim resting on one of the project's checks holds only when that check holds; a cited standard result is
checked against the table of standard results; the counterexample search reaches the hypotheses' boundaries;
``--recheck`` refuses a document whose claim is not the pinned one."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from semiprivate.proofs_checks import Outcome, Verdict, get_check, run_all
from semiprivate.proofs_checks._framework import Claim, Proof, derive_verdict, perturbed
from semiprivate.proofs_checks.certificate_checker import (
    STANDARD_RESULTS,
    CertificateError,
    check_directory,
    check_file,
    check_proof,
    cited_check_ids,
    claim_sha256,
)
from semiprivate.proofs_checks.expected import CLAIM_SHA256
from semiprivate.proofs_checks.report import CERTIFICATES_DIR


def outcomes() -> dict[str, Outcome]:
    """Every check's outcome: the checks run once per process (``run_all`` keeps them), on first use, not while
    the tests are collected (each pytest-xdist worker collects every module)."""
    return {o.id: o for o in run_all()}


x = sp.Symbol("x", real=True)


def _doc(P: Proof) -> dict:  # type: ignore[type-arg]
    return json.loads(json.dumps(P.as_json()))


# ----------------------------------------------------------------------------- a given that names a check

def _resting_on(check_id: str) -> Proof:
    claim = Claim("x >= 1 gives exp(x) > 2", (x,), (x >= 1,), sp.exp(x) > 2, samples={"x": ["1", "2"]},
                  given=((x >= 0, f"x is a size ({check_id})"),))
    P = Proof(claim)
    m = P.monotone("exp is increasing", "exp", sp.Le(1, x))
    e2 = P.evaluate("e > 2", sp.E, ">", 2)
    P.smt("exp(x) >= e > 2", [m, e2], sp.exp(x) > 2)
    return P


def test_a_claim_holds_given_a_check_only_when_that_check_holds() -> None:
    assert derive_verdict([], _resting_on("HPSY.Lem1.karger-algebra"))[0] is Verdict.HOLDS_GIVEN
    for cid in ("BNS15.Cl4.5.resampling", "BNS15.Lem4.12.final-size", "BNS15.Cl9.9.no-such-check"):  # U, F, none
        assert derive_verdict([], _resting_on(cid))[0] is Verdict.UNPROVED, cid


def test_lem46_holds_given_lem41_and_cl43_and_not_once_lem41_fails() -> None:
    """Lem 4.6's induction rests on Lem 4.1's matching inequality and Cl 4.3's sub-sampling: it holds given those
    checks, and no longer when Lem 4.1's factor 4e becomes 3e (then Lem 4.1 FAILS)."""
    rec = outcomes()["BNS15.Lem4.6.constants"].check
    assert rec is not None and rec.proof is not None
    assert {"BNS15.Cl4.3.subsampling", "BNS15.Lem4.1.4e-factor"} <= set(cited_check_ids(rec.proof.as_json()))
    assert rec.verdict is Verdict.HOLDS_GIVEN
    with perturbed("BNS15.Lem4.1.4e-factor", four=3):
        assert get_check("BNS15.Lem4.1.4e-factor").verdict is Verdict.FAILS
        moved = get_check("BNS15.Lem4.6.constants")
        assert moved.verdict is Verdict.UNPROVED
        assert any("reads FAILS" in r for r in moved.open_reasons), moved.open_reasons


def test_cl48_holds_given_cl49_and_not_once_cl49_fails() -> None:
    """Cl 4.8's schedule rests on Cl 4.9's induction: it holds given that check, and no longer when Cl 4.9's
    exponent rate 200 becomes 10^4 (then Cl 4.9 FAILS)."""
    rec = outcomes()["BNS15.Cl4.8.geometric-sum"].check
    assert rec is not None and rec.proof is not None
    assert "BNS15.Cl4.9.induction" in cited_check_ids(rec.proof.as_json())
    assert rec.verdict is Verdict.HOLDS_GIVEN
    with perturbed("BNS15.Cl4.9.induction", rate=10**4):
        assert get_check("BNS15.Cl4.9.induction").verdict is Verdict.FAILS
        moved = get_check("BNS15.Cl4.8.geometric-sum")
        assert moved.verdict is Verdict.UNPROVED
        assert any("reads FAILS" in r for r in moved.open_reasons), moved.open_reasons


def test_breaking_the_cited_check_unproves_the_claim_that_rests_on_it() -> None:
    """ABM19 Thm 4.1 rests on Claim 4.6 (ABM19.Lem4.4.error-scaling); change Claim 4.6's constant 100 to 10 and
    Claim 4.6 FAILS, so Thm 4.1 no longer holds."""
    assert outcomes()["ABM19.Thm4.1.arithmetic"].verdict is Verdict.HOLDS_WITH_CONDITION
    with perturbed("ABM19.Lem4.4.error-scaling", hundred=10):
        assert get_check("ABM19.Lem4.4.error-scaling").verdict is Verdict.FAILS
        assert get_check("ABM19.Thm4.1.arithmetic").verdict is Verdict.UNPROVED


def test_recheck_reads_the_cited_checks_documents(tmp_path: Path) -> None:
    for p in CERTIFICATES_DIR.glob("*.json"):
        shutil.copy(p, tmp_path / p.name)
    lem46 = tmp_path / "BNS15.Lem4.6.constants.json"
    check_file(lem46)
    (tmp_path / "BNS15.Lem4.1.4e-factor.json").unlink()  # the matching inequality it rests on is gone
    with pytest.raises(CertificateError, match="supports UNPROVED"):
        check_file(lem46)
    cl48 = tmp_path / "BNS15.Cl4.8.geometric-sum.json"
    check_file(cl48)
    (tmp_path / "BNS15.Cl4.9.induction.json").unlink()  # the induction it rests on is gone
    with pytest.raises(CertificateError, match="supports UNPROVED"):
        check_file(cl48)
    thm41 = tmp_path / "ABM19.Thm4.1.arithmetic.json"
    check_file(thm41)
    (tmp_path / "ABM19.Lem4.4.error-scaling.json").unlink()  # the check it rests on is gone
    with pytest.raises(CertificateError, match="supports UNPROVED"):
        check_file(thm41)


# ----------------------------------------------------------------------------- cited standard results

def _hoeffding_doc() -> dict:  # type: ignore[type-arg]
    from semiprivate.proofs_checks.hpsy_thm2 import hoeffding_proof

    return _doc(hoeffding_proof())


def _cited(doc: dict) -> dict:  # type: ignore[type-arg]
    return next(s for s in doc["steps"] if s["method"] == "cited")


def test_the_standard_results_in_use_are_instances_of_the_table() -> None:
    used = set()
    for o in outcomes().values():
        if o.check is not None and o.check.proof is not None:
            used |= {s["standard"] for s in o.check.proof.steps if s.get("standard")}
    assert used == set(STANDARD_RESULTS)
    assert check_proof(_hoeffding_doc())["status"] == "closed"


def test_an_amplification_by_subsampling_edited_or_outside_its_hypotheses_is_refused() -> None:
    """BNS15 Cl 4.3 cites amplification by sub-sampling; a stronger epsilon (halved) is not what the result gives,
    and an instance at the fraction 8 q (which may exceed 1) breaks its hypothesis q <= 1."""
    from semiprivate.proofs_checks.bns15_lem4_6 import subsampling_proof

    good = _doc(subsampling_proof())
    assert check_proof(good)["status"] == "closed"
    E, q = sp.Symbol("E", positive=True), sp.Symbol("q", positive=True)
    stronger = copy.deepcopy(good)
    _cited(stronger)["conclusion"] = sp.srepr(sp.Function("SubsampledEps")(E, q) <= sp.log(1 + q * (E - 1)) / 2)
    res = check_proof(stronger)
    assert res["status"] == "open"
    assert any("does not follow from Amplification by sub-sampling" in f for f in res["failures"]), res["failures"]
    outside = copy.deepcopy(good)
    _cited(outside)["instance"]["q"] = sp.srepr(8 * q)  # q <= 1/4 here, so 8 q <= 1 does not follow
    res = check_proof(outside)
    assert res["status"] == "open" and any("hypothesis" in f for f in res["failures"]), res["failures"]


def test_an_edited_binomial_tail_or_stirling_is_refused() -> None:
    """ABM19 Lem 4.4's loop failure beyond ratio 20 cites the binomial tail over k-subsets and Stirling's lower bound;
    each edited to something stronger than the result gives is refused, and the tail is evaluated exactly."""
    from semiprivate.proofs_checks.abm19_lem4_4 import loop_failure_proof
    from semiprivate.proofs_checks.certificate_checker import _binomial_tail

    good = _doc(loop_failure_proof())
    assert check_proof(good)["status"] == "closed"
    npub, m, k = sp.symbols("n_pub m k", integer=True, positive=True)
    tail = sp.Function("BinomialTail")(m, 1 / (100 * npub), k)
    edits = {"Binomial tail over k-subsets": tail <= (m / (100 * npub)) ** k / sp.factorial(k + 1),
             "Stirling lower bound": sp.factorial(k) >= 2 * sp.sqrt(2 * sp.pi * k) * (k / sp.E) ** k}
    for name, stronger in edits.items():
        doc = copy.deepcopy(good)
        step = next(s for s in doc["steps"] if s.get("standard") == name)
        step["conclusion"] = sp.srepr(stronger)
        res = check_proof(doc)
        assert res["status"] == "open" and any(f"does not follow from {name}" in f for f in res["failures"]), name
    got = _binomial_tail(sp.Integer(9), sp.Rational(1, 100), sp.Integer(1))  # P[Bin(9, 1/100) >= 1]
    exact = 1 - sp.Rational(99, 100) ** 9
    assert got.a <= mpmath.mpf(int(exact.p)) / int(exact.q) <= got.b and got.b - got.a < 1e-15
    with pytest.raises(CertificateError, match="BinomialTail"):
        _binomial_tail(sp.Integer(9), sp.Rational(3, 2), sp.Integer(1))


def test_an_edited_chebyshev_or_one_outside_its_domain_is_refused() -> None:
    """HPSY Thm 3's Eq. (10) cites Chebyshev's inequality; a citation stronger than the table's statement, or
    instanced at a threshold that is not positive, is refused."""
    from semiprivate.proofs_checks.hpsy_thm3 import chebyshev_proof

    good = _doc(chebyshev_proof())
    assert check_proof(good)["status"] == "closed"
    V, n, b = sp.symbols("V n beta", positive=True)
    t = 2 / sp.sqrt(b * n)
    stronger = copy.deepcopy(good)
    step = next(s for s in stronger["steps"] if s.get("standard") == "Chebyshev")
    step["conclusion"] = sp.srepr(sp.Function("ChebyshevTail")(V, t) <= V / (2 * t**2))
    res = check_proof(stronger)
    assert res["status"] == "open" and any("does not follow from Chebyshev" in f for f in res["failures"])
    outside = copy.deepcopy(good)
    step = next(s for s in outside["steps"] if s.get("standard") == "Chebyshev")
    step["instance"]["t"] = sp.srepr(sp.Symbol("u", real=True))
    res = check_proof(outside)
    assert res["status"] == "open" and any("Chebyshev needs t" in f for f in res["failures"])
    assert "Chebyshev" in STANDARD_RESULTS


def test_a_hand_edited_hoeffding_is_refused() -> None:
    n = sp.Symbol("n", integer=True, positive=True)
    out = sp.Function("BinomialHalfOutside")(n, sp.Rational(1, 4))
    stronger = _hoeffding_doc()  # the conclusion strengthened: 2 exp(-n) in place of 2 exp(-n/8)
    _cited(stronger)["conclusion"] = sp.srepr(out <= 2 * sp.exp(-n))
    res = check_proof(stronger)
    assert res["status"] == "open" and any("does not follow from Hoeffding" in f for f in res["failures"])
    outside = _hoeffding_doc()  # instantiated outside the hypothesis t <= 1/2
    _cited(outside)["instance"]["t"] = sp.srepr(sp.Integer(1))
    res = check_proof(outside)
    assert any("hypothesis" in f and "Hoeffding" in f for f in res["failures"])
    bare = _hoeffding_doc()  # named, but with no instance: its content cannot be checked
    del _cited(bare)["standard"], _cited(bare)["instance"]
    assert any("without instantiating" in f for f in check_proof(bare)["failures"])


def test_the_weakened_claim_with_an_edited_hoeffding_does_not_hold() -> None:
    """n >= log(16/beta) (the theorem's 8 changed to 1) with "Hoeffding" edited to 2 exp(-n): not HOLDS GIVEN."""
    from semiprivate.proofs_checks.hpsy_thm2 import hoeffding_proof

    n = sp.Symbol("n", integer=True, positive=True)
    doc = _doc(hoeffding_proof(c=1))
    _cited(doc)["conclusion"] = sp.srepr(sp.Function("BinomialHalfOutside")(n, sp.Rational(1, 4)) <= 2 * sp.exp(-n))
    assert check_proof(doc)["status"] != "closed"
    with perturbed("HPSY.Thm2.hoeffding", c=1):
        assert get_check("HPSY.Thm2.hoeffding").verdict is Verdict.FAILS


# ----------------------------------------------------------------------------- boundary sample points

def test_the_search_reaches_the_hypotheses_boundaries() -> None:
    """Hand-picked samples that miss the boundary: x >= 1 gives x^2 >= 3/2 fails at x = 1, found from the
    hypothesis; and a domain the written samples miss is shown non-empty by a point just inside it."""
    claim = Claim("x >= 1 gives x^2 >= 3/2", (x,), (x >= 1,), x**2 >= sp.Rational(3, 2), samples={"x": ["5"]})
    res = check_proof(_doc(Proof(claim)))
    assert res["status"] == "refuted" and res["counterexample"] == {"x": "1"}
    y = sp.Symbol("y", positive=True)
    inside = Claim("0 < y < 1/1000 gives y < 1", (y,), (y < sp.Rational(1, 1000),), y < 1, samples={"y": ["1"]})
    Q = Proof(inside)
    Q.smt("y < 1/1000 < 1", [y < sp.Rational(1, 1000)], y < 1)
    assert check_proof(_doc(Q))["status"] == "closed"  # the written sample is outside; y = 1/1000 - ... is inside


# ----------------------------------------------------------------------------- pinned claims

def test_the_pins_are_the_stated_claims() -> None:
    fresh = {cid: claim_sha256(o.check.certificates_json()) for cid, o in outcomes().items() if o.check is not None}
    changed = sorted(c for c in fresh if CLAIM_SHA256.get(c) != fresh[c])
    assert not changed and set(CLAIM_SHA256) == set(fresh), (
        "a stated claim changed: if deliberate, pin it in proofs_checks/expected.py CLAIM_SHA256: "
        + ", ".join(f'"{c}": "{fresh[c]}"' for c in changed))


def test_recheck_refuses_an_edited_claim(tmp_path: Path) -> None:
    for p in CERTIFICATES_DIR.glob("*.json"):
        shutil.copy(p, tmp_path / p.name)
    assert check_directory(tmp_path, pins=CLAIM_SHA256)
    path = tmp_path / "HPSY.Thm2.hoeffding.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    concl = data["proof"]["claim"]["conclusion"]
    weaker = concl.replace("Mul(Rational(1, 4), Symbol('beta', positive=True))",
                           "Mul(Rational(1, 2), Symbol('beta', positive=True))")
    assert weaker != concl
    data["proof"]["claim"]["conclusion"] = weaker  # beta/4 -> beta/2: still provable, so only the pin catches it
    path.write_text(json.dumps(data), encoding="utf-8")
    check_file(path)  # the document alone still supports its verdict
    with pytest.raises(CertificateError, match="not the pinned one"):
        check_file(path, pins=CLAIM_SHA256)
    with pytest.raises(CertificateError, match="not the pinned one"):
        check_directory(tmp_path, pins=CLAIM_SHA256)


# ----------------------------------------------------------------------------- z3's reading of exp of a fraction

def test_exp_of_a_fraction_is_a_power_of_a_root_of_e_and_nothing_more() -> None:
    """exp(1/2) and exp(-1/2) are read as r and 1/r with r^2 = e (so e^{1/2} e^{1/2} = e is available to a chain);
    e itself stays an opaque positive real: no numeric fact about e slips in."""
    from semiprivate.proofs_checks.certificate_checker import entails

    a, b, c = sp.symbols("a b c", positive=True)
    half = sp.Rational(1, 2)
    prem = [a <= sp.exp(half) * b, b <= sp.exp(half) * c]
    assert entails(prem, a <= sp.E * c, [a, b, c])
    assert not entails(prem, a <= sp.exp(half) * c, [a, b, c])  # one factor short: not provable
    assert entails([a * sp.exp(-half) <= b], a <= sp.exp(half) * b, [a, b])  # e^{-1/2} e^{1/2} = 1 in both orders
    assert not entails([a * sp.exp(-half) <= b], a <= b, [a, b])
    assert not entails([], sp.E * a <= 3 * a, [a])  # the value of e is not assumed

"""The quick run of the proof checks (``quick_outcomes``, the quick report's proofs section): a committed document
whose recorded sources are the files as they are now is re-checked by the independent checker; a changed source, a
perturbed theorem constant, a missing document, or a cited check that runs again makes the check run; a document
that does not re-check is an error, never a verdict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from semiprivate.proofs_checks import Verdict
from semiprivate.proofs_checks._framework import perturbed
from semiprivate.proofs_checks._sources import _path, check_sources, fingerprints, stale_sources
from semiprivate.proofs_checks.expected import EXPECTED
from semiprivate.proofs_checks.report import CERTIFICATES_DIR, quick_outcomes, render_certificates

HOLDING = "PILLAR.Alg2.total"  # HOLDS GIVEN; a doubled run share moves it (tests/proofs_checks/test_chains.py)
CITING = "PILLAR.Cor4.images"  # its chain cites HOLDING
FAILING = "HPSY.Thm2.n_unl"  # FAILS, by a certified refutation


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "certificates"
    shutil.copytree(CERTIFICATES_DIR, folder)
    return folder


def _edit(folder: Path, cid: str, change) -> None:  # type: ignore[no-untyped-def]
    path = folder / f"{cid}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def test_current_documents_are_rechecked_with_the_verdicts_they_support() -> None:
    outs = {o.id: o for o in quick_outcomes(only=[HOLDING, CITING, FAILING])}
    assert set(outs) == {HOLDING, CITING, FAILING}
    for cid, o in outs.items():
        assert o.how == "re-checked" and o.error is None and o.as_expected, (cid, o)
        assert o.verdict is EXPECTED[cid]
    assert outs[FAILING].verdict is Verdict.FAILS and "n_unl" in (outs[FAILING].counterexample or "")
    assert outs[HOLDING].claim.startswith("PILLAR Alg 2") and outs[HOLDING].method


def test_a_changed_source_makes_the_check_and_those_citing_it_run(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    rel = sorted(json.loads((folder / f"{HOLDING}.json").read_text(encoding="utf-8"))["sources"])[0]
    _edit(folder, HOLDING, lambda d: d["sources"].__setitem__(rel, "0" * 64))
    outs = {o.id: o for o in quick_outcomes(folder, only=[HOLDING, CITING, FAILING])}
    assert outs[HOLDING].how == "run" and rel in outs[HOLDING].why
    assert outs[CITING].how == "run" and HOLDING in outs[CITING].why
    assert outs[FAILING].how == "re-checked"
    assert all(o.as_expected for o in outs.values())  # the code did not change: the same verdicts, from a run


def test_a_missing_document_or_sources_record_makes_the_check_run(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / f"{FAILING}.json").unlink()
    _edit(folder, HOLDING, lambda d: d.pop("sources"))
    outs = {o.id: o for o in quick_outcomes(folder, only=[HOLDING, FAILING])}
    assert outs[FAILING].how == "run" and outs[FAILING].why == "no committed document"
    assert outs[HOLDING].how == "run" and "no sources recorded" in outs[HOLDING].why
    assert outs[FAILING].verdict is Verdict.FAILS and outs[HOLDING].verdict is EXPECTED[HOLDING]


def test_a_perturbed_theorem_constant_moves_the_quick_verdict() -> None:
    with perturbed(HOLDING, run_share=2):
        moved = quick_outcomes(only=[HOLDING])[0]
    assert moved.how == "run" and "perturbed" in moved.why
    assert moved.verdict in (Verdict.FAILS, Verdict.UNPROVED) and not moved.as_expected
    assert quick_outcomes(only=[HOLDING])[0].how == "re-checked"  # the perturbation is gone again


@pytest.mark.parametrize("tamper", ["verdict", "certificate", "claim"])
def test_a_document_that_does_not_recheck_is_an_error_not_a_verdict(tmp_path: Path, tamper: str) -> None:
    folder = _copy(tmp_path)
    if tamper == "verdict":  # a FAILS document recorded as HOLDS
        _edit(folder, FAILING, lambda d: d.__setitem__("verdict", "HOLDS"))
    elif tamper == "certificate":  # the refuting comparison turned around
        def flip(d):  # type: ignore[no-untyped-def]
            cert = next(c for f in d["facts"] if f["role"] == "refutes" for c in f["certificates"]
                        if c["kind"] == "evaluate")
            cert["relation"] = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}[cert["relation"]]
        _edit(folder, FAILING, flip)
    else:  # a claim that is not the pinned one
        _edit(folder, FAILING, lambda d: d.__setitem__("claim", d["claim"] + " (edited)"))
    o = quick_outcomes(folder, only=[FAILING])[0]
    assert o.how == "re-checked" and o.verdict is None and not o.as_expected
    assert o.error is not None and "does not re-check" in o.error


def test_only_is_checked() -> None:
    with pytest.raises(ValueError, match="unknown check"):
        quick_outcomes(only=["HPSY.Nope.x"])
    with pytest.raises(TypeError, match="only must be"):
        quick_outcomes(only=HOLDING)  # type: ignore[arg-type]


def test_sources_name_the_module_the_framework_the_checker_and_the_bounds_it_links_to() -> None:
    plain = check_sources("semiprivate.proofs_checks.pillar_alg2")
    assert {"proofs_checks/pillar_alg2.py", "proofs_checks/_framework.py",
            "proofs_checks/certificate_checker.py"} <= set(plain)
    assert not {"proofs_checks/report.py", "proofs_checks/_modules.py", "proofs_checks/__init__.py"} & set(plain)
    linked = check_sources("semiprivate.proofs_checks.bns15_lem4_6")
    assert {"proofs_checks/_links.py", "theory/bounds/privacy.py", "theory/bounds/_core.py"} <= set(linked)
    assert "theory/bounds/privacy.py" not in plain


def test_sources_are_named_as_installed_and_found_in_this_layout() -> None:
    """The top package's own files are named by their place in the installed package (``__init__.py``), in the
    source checkout (the checkout's ``semiprivate/``), the link tree and a wheel alike: a committed record resolves
    to files in every layout, and no recorded file is "missing" here."""
    with_top = check_sources("semiprivate.proofs_checks.bns15_prop_a1")  # ``from semiprivate import kernels``
    assert "__init__.py" in with_top and "kernels/__init__.py" in with_top
    for rel in with_top:
        assert _path(rel).is_file(), rel
    for doc in sorted(CERTIFICATES_DIR.glob("*.json")):
        recorded = json.loads(doc.read_text(encoding="utf-8")).get("sources", {})
        assert all(_path(rel).is_file() for rel in recorded), doc.name


def test_stale_sources_names_the_changed_files() -> None:
    now = fingerprints("semiprivate.proofs_checks.pillar_alg2")
    assert stale_sources(now) == []
    assert stale_sources({**now, "proofs_checks/_framework.py": "0" * 64}) == ["proofs_checks/_framework.py"]
    assert stale_sources({"../outside.py": now["proofs_checks/_framework.py"]}) == ["../outside.py"]
    assert stale_sources({}) == stale_sources([1]) == ["(no sources recorded)"]


def test_documents_record_method_corrected_and_sources() -> None:
    from semiprivate.proofs_checks import get_check
    from semiprivate.proofs_checks.report import Outcome

    doc = json.loads(render_certificates([Outcome(HOLDING, get_check(HOLDING), None)])[f"{HOLDING}.json"])
    assert doc["sources"] == fingerprints("semiprivate.proofs_checks.pillar_alg2")
    assert doc["method"] and "corrected" in doc

"""``python -m semiprivate spec``: the index is generated from the code's ``Implements:`` lines, so a
module written later appears without editing the index, and planned items stay listed."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from semiprivate.theory import spec


def test_every_id_the_code_names_is_listed_with_its_objects() -> None:
    entries = {e.id: e for e in spec.build_index(tests=False, checks=False)}
    assert "semiprivate.theory.covers.build_cover" in entries["ABM19.Alg1.cover"].implemented_by
    assert "semiprivate.theory.learners.asspp.ASSPP" in entries["ABM19.Alg1"].implemented_by
    assert entries["ABM19.Lem3.3"].reference.startswith("ABM19 Lemma 3.3: ")
    # every planned id is listed, implemented or not
    assert set(spec.PLANNED) <= set(entries)
    # nothing from this module's own examples
    assert not any(o.startswith("semiprivate.theory.spec") for e in entries.values() for o in e.implemented_by)


def test_a_module_written_later_appears_and_planned_ids_stay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "theory"
    pkg.mkdir()
    (pkg / "newlearner.py").write_text(textwrap.dedent('''
        """A learner written by someone else.

        Implements: HPSY.Thm3, PILLAR.Alg9 (a made-up item).
        """

        class Shiny:
            """Implements: BNS15.Alg4,
            BNS15.Cl5.7 (continued line)."""
    '''))
    monkeypatch.setattr(spec, "_package_roots", lambda: {"semiprivate.theory": pkg})
    monkeypatch.setitem(spec.PLANNED, "ABM19.Thm9.9", "a planned item nobody implemented")
    entries = {e.id: e for e in spec.build_index(tests=False, checks=False)}
    assert entries["HPSY.Thm3"].implemented_by == ["semiprivate.theory.newlearner"]
    assert entries["PILLAR.Alg9"].implemented_by == ["semiprivate.theory.newlearner"]
    assert entries["BNS15.Cl5.7"].implemented_by == ["semiprivate.theory.newlearner.Shiny"]
    assert entries["ABM19.Thm9.9"].implemented_by == []
    assert entries["ABM19.Thm9.9"].reference == "ABM19 Theorem 9.9: a planned item nobody implemented"


@pytest.mark.slow
def test_tests_and_checks_are_found() -> None:
    entries = {e.id: e for e in spec.build_index()}
    lem = entries["ABM19.Lem3.3"]
    assert any(c.startswith("ABM19.Lem3.3.") for c in lem.checks)
    assert any(t.startswith("tests/") and "::test_" in t for t in lem.tests)
    # an alias: the paper's number of a result filed under another id
    assert entries["BNS15.Obs3.2"].implemented_by and entries["BNS15.Obs3.2"].checks


@pytest.mark.slow
def test_cli_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert spec.main(["--json", "--no-tests"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all(list(e) == ["id", "implemented_by", "reference", "tests", "checks"] for e in data)
    assert {e["id"] for e in data} >= set(spec.PLANNED)
    assert spec.main(["ABM19.Lem3.3", "--no-tests"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ABM19.Lem3.3\n  reference: ABM19 Lemma 3.3") and "implemented by:" in out
    assert spec.main(["NOPE", "--no-tests"]) == 2  # the ids are matched whether tests/ is scanned or not
    assert "no item matches" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "ids"), [
    ("Implements: ABM19.Alg2-4 (all three).", ["ABM19.Alg2", "ABM19.Alg3", "ABM19.Alg4"]),
    ("Implements: AUDIT (DR14 Thm A.1; BW18 Thm 8).", ["AUDIT"]),
    ("Implements: COMB.Projection, COMB.VC (BNS15 App. B; ABM19 Alg 1 step 2).", ["COMB.Projection", "COMB.VC"]),
    ("Implements: the score of EXPMECH in the generic learners (KLNRS.Generic).", ["EXPMECH"]),
    ("no line here", []),
])
def test_parse_implements(text: str, ids: list[str]) -> None:
    assert spec.parse_implements(text) == ids


# --- no shipped file points outside the repository ----------------------------------------------

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ["semiprivate", "theory", "kernels", "proofs_checks"]
TEXT_SUFFIXES = {".py", ".pyx", ".pxd", ".md", ".txt", ".toml"}
#: File names the code WRITES (outputs), not references to files that must exist.
OUTPUT_NAMES = {"report.md", "REPORT.md", "proofs_checks_REPORT.md", "proofs_checks_report.md"}
#: Absolute paths of one machine (a developer's checkout, shared folders), never valid for a user.
MACHINE_PATH = re.compile(r"(?<![\w.:/-])/(?:work|home|Users|root|mnt|tmp|shared)/[\w./-]*")
UP_PATH = re.compile(r"(?<![\w.])(?:\.\./)+[\w./-]*")
MD_FILE = re.compile(r"(?<![\w./-])[\w./-]*\w\.md\b")


def _shipped_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in SHIPPED:
        files += sorted(p for p in (ROOT / top).rglob("*")
                        if p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts and p.is_file())
    return files


def _outside_references(path: Path, text: str | None = None) -> list[str]:
    """References in ``path`` (or in ``text``, read as if it were at ``path``) to paths outside the
    repository, or to .md files it does not hold."""
    if text is None:
        text = path.read_text(encoding="utf-8", errors="replace")
    bad = []
    for lineno, line in enumerate(text.splitlines(), 1):
        where = f"{path.relative_to(ROOT)}:{lineno}"
        for m in MACHINE_PATH.finditer(line):
            bad.append(f"{where}: absolute path {m.group(0)!r}")
        for m in UP_PATH.finditer(line):
            target = (path.parent / m.group(0)).resolve()
            if not target.is_relative_to(ROOT) or not target.exists():
                bad.append(f"{where}: {m.group(0)!r} leaves the repository or does not exist")
        for m in MD_FILE.finditer(line):
            ref = m.group(0)
            if Path(ref).name in OUTPUT_NAMES:
                continue
            if not ((ROOT / ref).is_file() or (path.parent / ref).is_file()):
                bad.append(f"{where}: {ref!r} is not a file of the repository (use `python -m semiprivate spec ID`)")
    return bad


def test_no_shipped_file_references_a_path_outside_the_repository() -> None:
    files = _shipped_files()
    assert len(files) > 50  # the scan really covers the packages
    bad = [b for f in files for b in _outside_references(f)]
    assert not bad, "dangling references:\n" + "\n".join(bad)


@pytest.mark.parametrize("line", [
    "Implements: EXPMECH (SPEC.md section 3): output",
    "see ../shared/SPEC.md for the items",
    "papers in /work/shared/seeds/",
    "See DESIGN.md, \"Conventions\".",
])
def test_the_scan_catches_dangling_references(line: str) -> None:
    """The scan itself can fail: each dangling form is reported (the text is read as
    if it were a module in theory/, so relative paths resolve as for the real files)."""
    assert _outside_references(ROOT / "theory" / "probe.py", f'"""{line}"""\n')


def test_the_scan_accepts_references_inside_the_repository() -> None:
    text = ('"""See README.md, docs/dask.md, ../README.md and proofs_checks/REPORT.md;\n'
            'writes report.md; reads /proc/cpuinfo."""\n')
    assert _outside_references(ROOT / "theory" / "probe.py", text) == []


def test_shipped_tests_column_matches_the_scan() -> None:
    """spec_tests.json (what an installed copy, without tests/, shows) is the scan of this checkout;
    regenerate it with ``semiprivate spec --update-tests-data`` after adding or renaming tests."""
    shipped = json.loads(spec.TESTS_DATA.read_text(encoding="utf-8"))
    assert shipped == spec.scan_tests(), "spec_tests.json is stale: run 'semiprivate spec --update-tests-data'"


def test_an_installed_copy_reads_the_tests_column_from_the_shipped_data(monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    shipped = json.loads(spec.TESTS_DATA.read_text(encoding="utf-8"))
    monkeypatch.setattr(spec, "_tests_root", lambda: None)  # as in site-packages: no tests/ beside the package
    entries = {e.id: e for e in spec.build_index(checks=False)}
    assert entries["ABM19.Lem3.3"].tests == shipped["ABM19.Lem3.3"] != []
    assert spec.main(["ABM19.Lem3.3"]) == 0
    out = capsys.readouterr().out
    assert "  tests: " in out and "tests not listed" not in out

"""The `python -m semiprivate report` section for proofs_checks: the full report runs every check, the quick one
re-checks the committed certificate documents (and says so in its summary line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from semiprivate.proofs_checks import report as proofs_report
from semiprivate.theory.report import ReportContext
from semiprivate.theory.report.sections import proofs


def test_quick_section_rechecks_the_committed_documents_and_says_so(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    real = proofs_report.quick_outcomes
    monkeypatch.setattr(proofs_report, "quick_outcomes",
                        lambda: real(only=["ABM19.Lem4.4.confidence", "PILLAR.Alg2.total"]))
    sec = proofs.build(ReportContext(tmp_path, quick=True))
    assert sec.ok
    assert proofs.ORDER == 60 and sec.title == proofs.TITLE
    assert "| id | claim | method | verdict |" in sec.markdown
    assert "FAILS" in sec.markdown and "ABM19.Lem4.4.confidence" in sec.markdown
    assert sec.summary.startswith("2 checks: 0 HOLDS, 1 HOLDS GIVEN, 0 HOLDS WITH CONDITION, 1 FAILS, 0 UNPROVED")
    assert "(quick: 2 re-checked from the committed certificates by the independent checker, 0 run again)" \
        in sec.summary
    assert sec.files == []


def test_a_check_that_does_not_recheck_fails_the_quick_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = proofs_report.QuickOutcome("ABM19.Lem4.4.confidence", "re-checked", None,
                                     error="the committed document does not re-check: tampered")
    monkeypatch.setattr(proofs_report, "quick_outcomes", lambda: [bad])
    sec = proofs.build(ReportContext(tmp_path, quick=True))
    assert not sec.ok and "1 errors" in sec.summary and "**ERROR**" in sec.markdown


@pytest.mark.slow
def test_quick_and_full_sections_give_the_same_verdicts(tmp_path: Path) -> None:
    full = proofs.build(ReportContext(tmp_path / "full", quick=False))
    quick = proofs.build(ReportContext(tmp_path / "quick", quick=True))
    assert full.ok and quick.ok and all(f.exists() for f in full.files)
    assert quick.summary.startswith(full.summary + " (quick: ")
    assert " 0 run again)" in quick.summary  # every committed document is current

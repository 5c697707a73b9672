"""The `python -m semiprivate report` section for proofs_checks."""

from __future__ import annotations

from pathlib import Path

from semiprivate.theory.report import ReportContext
from semiprivate.theory.report.sections import proofs


def test_section_builds(tmp_path: Path) -> None:
    sec = proofs.build(ReportContext(tmp_path, quick=True))
    assert sec.ok
    assert proofs.ORDER == 60 and sec.title == proofs.TITLE
    assert "| id | claim | method | verdict |" in sec.markdown
    assert "FAILS" in sec.markdown and "ABM19.Lem4.4.confidence" in sec.markdown
    assert all(f.exists() for f in sec.files)

"""The bounds section of ``python -m semiprivate report`` builds, writes its figure and reports findings."""

from __future__ import annotations

from pathlib import Path

from semiprivate.theory.report import ReportContext
from semiprivate.theory.report.sections import bounds as section


def test_bounds_section_builds(tmp_path: Path) -> None:
    s = section.build(ReportContext(out_dir=tmp_path, quick=True))
    assert section.ORDER == 40 and s.title == section.TITLE
    assert s.ok
    assert s.files and all(f.exists() and f.stat().st_size > 500 for f in s.files)
    assert "| ABM19.Lem3.3 |" in s.markdown and "14,815" in s.markdown
    assert "Fewest labels" in s.markdown and "HPSY Lemma 2" in s.markdown
    # every markdown table row has the same number of cells as its header
    for block in s.markdown.split("\n\n"):
        rows = [r for r in block.splitlines() if r.startswith("|")]
        if rows:
            assert len({r.count("|") for r in rows}) == 1, rows

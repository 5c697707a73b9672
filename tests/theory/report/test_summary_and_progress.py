"""report.md starts with a summary (one PASS/FAIL line per section against the papers' claim); a
progress bar over the sections is shown on request (and on a terminal), never under pytest by default;
``--quick`` is the first option of ``semiprivate report --help``."""

from __future__ import annotations

from pathlib import Path

import pytest
from semiprivate.theory.report import CLAIMS, PLANNED, ReportContext, Section, run_report, summary_lines
from semiprivate.theory.report.cli import main


def test_the_summary_comes_first_with_one_verdict_line_per_section(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.theory.report.sections import build as build_section

    good = build_section.build(ReportContext(tmp_path, quick=True))
    assert good.ok
    bad = Section(title=good.title, markdown="", summary="compiled sum check off by 1e-3", ok=False)
    monkeypatch.setattr(build_section, "build", lambda ctx: bad)
    report = run_report(tmp_path, quick=True, only=["build", "bounds"], echo=False)
    lines = report.path.read_text().splitlines()
    start = lines.index("## Summary")
    first_section = next(i for i, line in enumerate(lines) if line.startswith("## ") and i > start)
    assert start < first_section and lines[first_section] == f"## {good.title}"
    summary = [line for line in lines[start:first_section] if line.startswith("- ")]
    assert summary == [
        f"- **FAIL** {good.title} -- claim: {CLAIMS['build']}; result: compiled sum check off by 1e-3",
        f"- **PASS** {PLANNED['bounds'][0]} -- claim: {CLAIMS['bounds']}; result: {report.sections[1].summary}",
    ]
    assert "1 of 2 sections agree with the papers' claims" in "\n".join(lines[start:first_section])


def test_every_planned_section_states_the_claim_it_checks() -> None:
    assert set(CLAIMS) == set(PLANNED)


def test_summary_lines_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="names must be a list"):
        summary_lines("build", [])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="same length"):
        summary_lines(["build"], [])


def test_progress_bar_over_the_sections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_report(tmp_path, quick=True, only=["build"], echo=False, progress=True)
    err = capsys.readouterr().err
    assert "report" in err and "1/1" in err and "section" in err, err
    run_report(tmp_path, quick=True, only=["build"], echo=False)  # default: only on a terminal
    assert "1/1" not in capsys.readouterr().err
    with pytest.raises(TypeError, match="progress must be a bool"):
        run_report(tmp_path, quick=True, only=["build"], echo=False, progress="yes")  # type: ignore[arg-type]


def test_quick_is_the_first_option_of_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    options = [line.split()[0] for line in out.splitlines() if line.startswith("  -")]
    assert options[:2] == ["-h,", "--quick"], options
    assert "First time? Run 'semiprivate report --quick'" in " ".join(out.split())

"""report.md starts with a summary (one SHOWN / NOT SHOWN / FAIL line per claim, with the number measured for
it, and a legend of those words and of the proof verdicts); a
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
        f"- **FAIL** {good.title} -- claim: {CLAIMS['build']}; measured: compiled sum check off by 1e-3",
        f"- **SHOWN** {PLANNED['bounds'][0]} -- claim: {CLAIMS['bounds']}; measured: {report.sections[1].summary}",
    ]
    head = "\n".join(lines[start:first_section])
    assert "Of 2 claims, this run shows 1, does not show 0 and finds 1 failing (1 of them because" in head
    assert "Legend: **SHOWN** = " in head


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


def test_the_bounds_line_measures_its_own_claim(tmp_path: Path) -> None:
    report = run_report(tmp_path, quick=True, only=["bounds"], echo=False)
    sec = report.sections[0]
    assert "41 delta" in CLAIMS["bounds"] and "BNS15 Lem 4.6 replayed" in sec.summary and "<= 41 delta" in sec.summary


@pytest.mark.parametrize(("summary", "verdict"), [
    ("53 checks: 24 HOLDS, 16 with condition, 13 FAILS", "FAIL"),
    ("40 checks: 24 HOLDS, 16 with condition, 0 FAILS", "SHOWN"),
    ("40 checks", "NOT SHOWN"),
])
def test_the_proofs_line_fails_when_a_step_fails(summary: str, verdict: str) -> None:
    line = summary_lines(["proofs"], [Section("Machine-checked proofs", "", summary=summary, ok=True)])[0]
    assert line.startswith(f"- **{verdict}** Machine-checked proofs")


def test_legend_names_every_summary_word_and_proof_verdict() -> None:
    from semiprivate.theory.report import LEGEND, VERDICTS, legend_lines

    words = [w for w, _ in LEGEND]
    assert set(VERDICTS) <= set(words)
    assert {"HOLDS", "HWC", "FAILS", "HOLDS GIVEN", "UNPROVED"} <= set(words)
    assert all(f"**{w}**" in legend_lines()[0] for w in words)


def test_a_paper_claim_can_fail_while_the_section_is_ok() -> None:
    sec = Section("t", "", summary="x", ok=True, verdict="FAIL")
    assert sec.summary_verdict == "FAIL" and sec.ok
    assert Section("t", "", ok=False, verdict="SHOWN").summary_verdict == "FAIL"
    with pytest.raises(ValueError, match="verdict must be one of"):
        _ = Section("t", "", verdict="PASS").summary_verdict


def test_the_build_line_is_not_shown_without_the_compiled_backend(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate import kernels
    from semiprivate.theory.report.sections import build as build_section

    monkeypatch.setattr(kernels, "build_info", lambda: {"backends": ["numpy"], "openmp": False, "threads": 1,
                                                        "simd": "none (NumPy backend)"})
    sec = build_section.build(ReportContext(tmp_path, quick=True))
    assert sec.summary_verdict == "NOT SHOWN" and "nothing compiled to compare" in sec.summary


def test_sections_in_worker_processes_give_the_same_numbers(tmp_path: Path) -> None:
    """Two seeded sections, one after the other here and at once in two worker processes: the same summaries.
    The exponential section's summary carries numbers drawn from ctx.seed at the quick sizes (its smallest G-test
    p-value, its largest privacy ratio): a worker given another seed or mode shows there."""
    one = run_report(tmp_path / "one", quick=True, only=["bounds", "exponential"], echo=False, jobs=1)
    two = run_report(tmp_path / "two", quick=True, only=["bounds", "exponential"], echo=False, jobs=2)
    assert [s.summary.rsplit(" (", 1)[0] for s in one.sections] == [s.summary.rsplit(" (", 1)[0] for s in two.sections]
    assert [s.title for s in one.sections] == [s.title for s in two.sections]
    text = two.path.read_text()
    assert "with 2 section(s) at a time" in text and "s CPU in the sections" in text
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        run_report(tmp_path, quick=True, only=["bounds"], echo=False, jobs=0)


def test_the_quick_summary_has_every_line_and_the_legend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A quick run over every section, built in two worker processes: one line per section in report order with
    its claim and what it measured, the count line and the legend of every word.  The costly sections' builds are
    stood in for (each records that it was asked for quick mode); build and bounds run for real."""
    from semiprivate.theory.report import LEGEND, discover_sections

    asked = tmp_path / "asked"
    asked.mkdir()
    found = discover_sections()
    for _order, name, mod in found:
        if name in ("build", "bounds"):
            continue

        def stand_in(ctx: ReportContext, name: str = name, title: str = str(mod.TITLE)) -> Section:
            (asked / name).write_text(str(ctx.quick))
            return Section(title, f"{name} body", summary=f"{name} measured quickly",
                           verdict="NOT SHOWN" if name == "bns15" else "")

        monkeypatch.setattr(mod, "build", stand_in)
    report = run_report(tmp_path / "out", quick=True, echo=False, jobs=2)
    assert report.ok and report.names == [name for _order, name, _mod in found]
    assert {p.name: p.read_text() for p in asked.iterdir()} == {n: "True" for n in report.names if n not in
                                                                ("build", "bounds")}
    lines = report.path.read_text().splitlines()
    assert "Mode: quick." in lines[2] and "with 2 section(s) at a time" in report.path.read_text()
    start = lines.index("## Summary")
    bullets = [line for line in lines[start:] if line.startswith("- **")]
    assert len(bullets) == len(found) == len(PLANNED)
    for line, name, sec in zip(bullets, report.names, report.sections, strict=True):
        verdict = "NOT SHOWN" if name in ("bns15", "proofs") else "SHOWN"  # proofs: no count of FAILS to read
        assert line == f"- **{verdict}** {sec.title} -- claim: {CLAIMS[name]}; measured: {sec.summary}", line
    assert any(line.startswith(f"Of {len(found)} claims, this run shows {len(found) - 2}, does not show 2 and finds 0")
               for line in lines)
    legend = next(line for line in lines if line.startswith("Legend: "))
    assert all(f"**{word}** = {meaning}" in legend for word, meaning in LEGEND)

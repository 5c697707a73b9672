"""The report framework and the build section."""

from __future__ import annotations

from pathlib import Path

import pytest
from semiprivate.theory.report import PLANNED, discover_sections, run_report
from semiprivate.theory.report.cli import main


def test_sections_are_discovered_and_planned() -> None:
    names = [name for _order, name, _mod in discover_sections()]
    assert "build" in names
    for _order, name, mod in discover_sections():
        assert name in PLANNED, f"section {name} is not listed in PLANNED"
        assert hasattr(mod, "build") and hasattr(mod, "TITLE")


def test_build_section_computes_and_report_lists_missing_sections(tmp_path: Path) -> None:
    report = run_report(tmp_path, quick=True, only=["build"], echo=False)
    assert report.ok
    text = report.path.read_text()
    assert "## Build and backends" in text
    assert "backends available" in text
    present = {name for _o, name, _m in discover_sections()}
    for name, (title, _what) in PLANNED.items():
        if name not in present:
            assert title in text and "not in this version yet" in text


def test_a_failing_section_fails_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.theory.report.sections import build as build_section

    def broken(ctx: object) -> None:
        raise RuntimeError("deliberate")

    monkeypatch.setattr(build_section, "build", broken)
    report = run_report(tmp_path, quick=True, only=["build"], echo=False)
    assert not report.ok
    assert "deliberate" in report.path.read_text()


def test_cli_writes_the_report(tmp_path: Path) -> None:
    assert main(["--quick", "--out", str(tmp_path), "--only", "build"]) == 0
    assert (tmp_path / "report.md").exists()


def test_bns15_privacy_table_shows_every_runs_privacy() -> None:
    """The scaled LabelBoost runs report different privacy_ at different m (the ratios that ran):
    the table shows their range, not the first run's value."""
    from semiprivate.theory.report.sections.bns15 import _privacy_table

    rows = _privacy_table({"LabelBoost (scaled) on THRESH": {(8.497, 2e-4), (5.497, 1e-4)},
                           "LabelBoost (scaled) on RECT": {(5.497, 1e-4)}})
    assert "(5.497, 0.0001) to (8.497, 0.0002)" in rows[-2] and "2 distinct" in rows[-2]
    assert "| (5.497, 0.0001) |" in rows[-1]

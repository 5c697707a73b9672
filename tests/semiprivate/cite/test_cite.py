"""``semiprivate cite``: BibTeX of the software and the four papers, consistent with CITATION.cff."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import semiprivate
import yaml
from semiprivate import cite
from semiprivate.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[3]


def _entries(text: str) -> dict[str, str]:
    return dict(re.findall(r"@\w+\{(\w+),\n(.*?)\n\}", text, flags=re.S))


def test_cite_prints_the_software_and_the_four_papers(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["cite"]) == 0
    entries = _entries(capsys.readouterr().out)
    assert list(entries) == ["semiprivate", "BNS15", "ABM19", "HPSY", "PILLAR"]
    assert f"version = {{{semiprivate.__version__}}}" in entries["semiprivate"]
    assert "Amos Beimel and Kobbi Nissim and Uri Stemmer" in entries["BNS15"]
    assert "eprint = {1910.11519}" in entries["ABM19"]
    assert "Yaxi Hu and Francesco Pinto and Amartya Sanyal and Fanny Yang" in entries["HPSY"]
    assert "Francesco Pinto and Yaxi Hu and Fanny Yang and Amartya Sanyal" in entries["PILLAR"]
    for body in entries.values():  # balanced braces: a BibTeX parser reads every entry
        assert body.count("{") == body.count("}"), body


def test_cite_selects_papers_and_rejects_unknown_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["cite", "ABM19", "--no-software"]) == 0
    assert list(_entries(capsys.readouterr().out)) == ["ABM19"]
    assert cli_main(["cite", "XYZ"]) == 2
    assert "unknown paper(s) ['XYZ']" in capsys.readouterr().err
    with pytest.raises(TypeError, match="keys must be None or a list"):
        cite.bibtex("ABM19")  # type: ignore[arg-type]


def test_citation_cff_agrees_with_the_package() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["version"] == semiprivate.__version__
    assert cff["title"] == cite.SOFTWARE_TITLE
    assert cff["license"] == cite.LICENSE
    titles = {ref["title"].lower() for ref in cff["references"]}
    assert titles == {p.title.lower() for p in cite.PAPERS.values()}
    for ref in cff["references"]:
        paper = next(p for p in cite.PAPERS.values() if p.title.lower() == ref["title"].lower())
        names = [f"{a['given-names']} {a['family-names']}" for a in ref["authors"]]
        assert names == list(paper.authors), paper.key
        if "year" in ref:
            assert paper.fields["year"] == str(ref["year"])


@pytest.mark.parametrize("key", ["BNS15", "ABM19", "PILLAR"])
def test_papers_with_a_public_record_have_year_venue_and_url(key: str) -> None:
    fields = cite.PAPERS[key].fields
    assert fields["year"].isdigit() and fields["url"].startswith("https://arxiv.org/abs/")
    assert fields.get("booktitle") or fields.get("howpublished")
    entry = cite.bibtex([key], software=False)
    assert f"year = {{{fields['year']}}}" in entry and f"url = {{{fields['url']}}}" in entry


def test_hpsy_says_why_it_has_no_year_or_venue() -> None:
    fields = cite.PAPERS["HPSY"].fields
    assert "year" not in fields and "prints no year, venue or identifier" in fields["note"]


def test_citation_cff_has_the_same_urls_and_years() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for ref in cff["references"]:
        paper = next(p for p in cite.PAPERS.values() if p.title.lower() == ref["title"].lower())
        assert ref.get("url") == paper.fields.get("url"), paper.key
        assert str(ref.get("year", "")) == paper.fields.get("year", ""), paper.key

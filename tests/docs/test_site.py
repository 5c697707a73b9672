"""The documentation site: every public name in the API reference, one page per paper from the SPEC
index, the gallery, and the docstring escaping of the docs extension.

The site build (about 20-40 s) is slow-marked; ``bash scripts/docs.sh`` (part of scripts/test.sh)
builds it with warnings as errors and runs its examples.
"""

from __future__ import annotations

import html
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
sphinx = pytest.importorskip("sphinx", reason="the docs extra (pip install '.[docs]') is not installed")
pytest.importorskip("sphinx_gallery", reason="the docs extra (pip install '.[docs]') is not installed")

from semiprivate_docs import _escape_text, escape_plain_math, public_modules, separate_trailing_prose  # noqa: E402

# one worker runs these (under pytest-xdist): without SEMIPRIVATE_DOCS_SITE they build the site themselves
pytestmark = pytest.mark.xdist_group("docs")


def _public_modules() -> dict[str, list[str]]:
    """Every module of semiprivate without a leading underscore that defines __all__ -> __all__
    (the walk of the docs build, semiprivate_docs.public_modules)."""
    return {name: list(importlib.import_module(name).__all__) for name in public_modules()}


def _text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text()))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site: the one scripts/docs.sh just built when SEMIPRIVATE_DOCS_SITE names it
    (scripts/test.sh builds the docs first), else a fresh build here."""
    built = os.environ.get("SEMIPRIVATE_DOCS_SITE")
    if built and (Path(built) / "index.html").is_file():
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          "-d", str(out / "doctrees"), str(ROOT / "docs"), str(out / "html")],
                         capture_output=True, text=True, env=env, check=False, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    return out / "html"


@pytest.mark.slow
def test_every_public_name_is_in_the_api_reference(site: Path) -> None:
    modules = _public_modules()
    assert {"semiprivate.kernels", "semiprivate.theory.audit", "semiprivate.theory.bounds"} <= set(modules)
    missing = []
    for module, names in modules.items():
        page = site / "generated" / "api" / f"{module}.html"
        assert page.exists(), f"no API page for {module}"
        text = _text(page)
        missing += [f"{module}.{name}" for name in names if f"{module}.{name}" not in text]
    assert not missing, f"{len(missing)} public names missing from the API reference: {missing[:20]}"


@pytest.mark.slow
def test_one_page_per_paper_lists_its_spec_ids_with_code_tests_and_checks(site: Path) -> None:
    from semiprivate.theory.spec import build_index

    entries = build_index()
    for key in ("BNS15", "ABM19", "HPSY", "PILLAR"):
        text = _text(site / "generated" / "papers" / f"{key}.html")
        ids = [e for e in entries if e.id.split(".")[0] == key]
        assert ids, key
        for e in ids:
            assert e.id in text, (key, e.id)
            for obj in e.implemented_by[:3] + e.tests[:3] + e.checks[:3]:
                assert obj in text, (key, e.id, obj)


@pytest.mark.slow
def test_the_pages_and_the_gallery_are_built(site: Path) -> None:
    for page in ("index", "getting_started", "auditing", "gallery/index"):
        assert (site / f"{page}.html").exists(), page
    scripts = sorted(p.stem for p in (ROOT / "examples" / "gallery").glob("plot_*.py"))
    assert len(scripts) >= 4
    for stem in scripts:
        text = _text(site / "gallery" / f"{stem}.html")
        assert "Traceback" not in text and "Total running time of the script" in text, stem


def test_plain_text_formulas_are_escaped_and_markup_is_kept() -> None:
    assert _escape_text("|Pi_C(B)| <= (e|B|/d)^d") == r"\|Pi_C(B)\| <= (e\|B\|/d)^d"
    assert _escape_text("sets privacy_ and t* in fit") == r"sets privacy\_ and t\* in fit"
    assert _escape_text("* a *word* and ``|x|`` and :func:`f_` **bold**") == \
        "* a *word* and ``|x|`` and :func:`f_` **bold**"
    lines = [">>> abs(-1) | 0", "1", "", "Example::", "", "    |S| stays", "", "after |S|"]
    escape_plain_math(None, "function", "f", None, None, lines)
    assert lines == [">>> abs(-1) | 0", "1", "", "Example::", "", "    |S| stays", "", r"after \|S\|"]


def test_numpy_sections_napoleon_would_misread_are_normalised() -> None:
    lines = ["Parameters", "----------", "a, b,", "c : float", "    The constants.", "",
             "Accepts ints and floats.", "More remarks."]
    separate_trailing_prose(None, "class", "C", None, None, lines)
    assert lines == ["Parameters", "----------", "a, b, c : float", "    The constants.", "",
                     "Notes", "-----", "", "Accepts ints and floats.", "More remarks."]

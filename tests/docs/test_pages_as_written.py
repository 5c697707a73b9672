"""The guide pages' examples run as a reader pastes them: each ``.. doctest::`` block of docs/*.rst on
its own, in a fresh namespace (no global setup in conf.py injects ``np``); conf.py checks every
cross-reference (nitpicky) and injects nothing; scripts/docs.sh builds with the active Python when it
has the docs extra.  The Sphinx build itself (scripts/docs.sh) runs the same blocks page by page."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FLAGS = doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL | doctest.DONT_ACCEPT_TRUE_FOR_1


def _blocks(page: Path) -> list[tuple[int, str]]:
    """(line, text) of each ``.. doctest::`` block of ``page``, dedented."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith(".. doctest::"):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                body.append(lines[i])
                i += 1
            text = "\n".join(body)
            indent = min((len(s) - len(s.lstrip()) for s in body if s.strip()), default=0)
            out.append((start, "\n".join(s[indent:] for s in body) if text.strip() else ""))
        else:
            i += 1
    return out


#: pages whose examples fit a model (a search over digits): slow-marked, the docs build runs them too
SLOW_PAGES = {"model_selection.rst"}
BLOCKS = [pytest.param(page.name, line, text, id=f"{page.name}:{line}",
                       marks=[pytest.mark.slow] if page.name in SLOW_PAGES else [])
          for page in sorted(DOCS.glob("*.rst")) for line, text in _blocks(page)]


@pytest.mark.parametrize(("page", "line", "text"), BLOCKS)
def test_each_example_block_runs_when_pasted_alone(page: str, line: int, text: str) -> None:
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__pasted__"}, f"{page}:{line}", page, line)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.failures == 0, f"{page}, block at line {line}: {runner.failures} example(s) fail when pasted alone"


def test_conf_injects_nothing_and_checks_every_reference() -> None:
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert "doctest_global_setup" not in conf
    assert re.search(r"^nitpicky = True$", conf, re.M)


def _fake_python(folder: Path, has_docs: bool) -> Path:
    py = folder / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text(f"#!/bin/sh\nexit {0 if has_docs else 1}\n")
    py.chmod(0o755)
    return py


@pytest.mark.parametrize("has_docs", [True, False])
def test_docs_sh_uses_the_active_environment_when_it_has_the_docs_extra(tmp_path: Path, has_docs: bool) -> None:
    py = _fake_python(tmp_path / "venv", has_docs)
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_DOCS"}
    env.update(VIRTUAL_ENV=str(tmp_path / "venv"), SEMIPRIVATE_DOCS_WHICH="1")
    out = subprocess.run(["bash", str(ROOT / "scripts" / "docs.sh")], capture_output=True, text=True, env=env,
                         check=False, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (str(py) if has_docs else "bootstrap")


def test_docs_sh_honours_python_docs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHON_DOCS": sys.executable, "SEMIPRIVATE_DOCS_WHICH": "1"}
    out = subprocess.run(["bash", str(ROOT / "scripts" / "docs.sh")], capture_output=True, text=True, env=env,
                         check=False, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == sys.executable, out.stderr

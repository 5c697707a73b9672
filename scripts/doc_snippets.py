"""Run every code block of the user-facing pages as a reader pastes it, each in a fresh interpreter.

    python scripts/doc_snippets.py [--python PY] [--workdir DIR] [--skip-slow] PAGE...

Blocks: ``.. doctest::`` and ``>>>`` blocks run as a doctest of that block alone (no globals set up);
``python`` blocks with ``python -c``; ``bash``/``sh`` blocks and ``$ ``-transcripts line by line with
``bash -e`` (a transcript's ``$`` lines only; its other lines are the output shown); a block holding a
pytest test file runs with ``PY -m pytest``.  Literal blocks that show output only are listed, not run.
Commands that build from the clone (``pip install .``) or set up a contributor's environment
(``bash scripts/...``) are listed as "not run here" with the reason.  Everything runs in ``--workdir``
(a scratch folder, not the clone), with ``PY``'s folder first on PATH, so ``semiprivate`` and ``python``
are the environment's.  Prints one line per block: page:line, kind, ok / FAILED / not run, and why.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SHELL_START = re.compile(r"^(\$ |pip |python|semiprivate |bash |\.venv/|git |cd |cat > )")
NOT_HERE = [(re.compile(r"pip install (-e )?[\"']?\.(\[|[\"']|\s|$)"), "installs from the clone (the install step)"),
            (re.compile(r"^bash scripts/|^\.venv/bin/python benchmarks/|^\.venv/bin/python -m pytest"),
             "a contributor's command in the clone (creates .venv with the dev extras)"),
            (re.compile(r"^git clone"), "needs the network"),
            (re.compile(r"^dask (scheduler|worker)"), "starts a long-running Dask server on a cluster host")]


def _blocks(page: Path) -> list[tuple[int, str, str]]:
    """(line, kind, text): kind is doctest, python, shell, transcript, pytest or output."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[tuple[int, str, str]] = []
    i = 0
    md = page.suffix == ".md"
    while i < len(lines):
        ln = lines[i]
        if md and ln.lstrip().startswith("```"):
            lang = ln.strip()[3:].strip()
            indent = len(ln) - len(ln.lstrip())
            j = i + 1
            body = []
            while j < len(lines) and not lines[j].strip().startswith("```"):
                body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
                j += 1
            out.append((i + 1, _kind(lang, body), "\n".join(body)))
            i = j + 1
            continue
        if not md and (ln.strip().startswith(".. doctest::") or ln.strip().startswith(".. code-block::")
                       or (ln.rstrip().endswith("::") and not ln.strip().startswith(".."))):
            lang = "doctest" if "doctest" in ln else ln.split("::", 1)[1].strip() if "code-block" in ln else ""
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].strip().startswith(":")):
                j += 1
            body = []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
                body.append(lines[j])
                j += 1
            text = textwrap.dedent("\n".join(body)).strip("\n")
            if text:
                out.append((i + 1, _kind(lang, text.splitlines()), text))
            i = j
            continue
        i += 1
    return out


def _kind(lang: str, body: list[str]) -> str:
    first = next((b.strip() for b in body if b.strip()), "")
    if lang == "doctest" or first.startswith(">>>"):
        return "doctest"
    if "def test_" in "\n".join(body):
        return "pytest"
    if lang in ("python", "py") or first.startswith(("import ", "from ")):
        return "python"
    if lang in ("bash", "sh", "shell", "console") or SHELL_START.match(first):
        return "transcript" if first.startswith("$ ") else "shell"
    return "output"


DOCTEST = """import doctest, sys
text = sys.stdin.read()
flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
test = doctest.DocTestParser().get_doctest(text, {}, "block", "block", 0)
r = doctest.DocTestRunner(optionflags=flags)
r.run(test)
sys.exit(1 if r.failures else 0)
"""


def _commands(kind: str, text: str) -> list[str]:
    cmds = []
    for raw in text.splitlines():
        s = raw.rstrip()  # indentation kept: a here-document's body is code
        if kind == "transcript":
            if not s.startswith("$ "):
                continue
            s = s[2:]
        if s.strip() and not s.lstrip().startswith("#"):
            cmds.append(s)
    return cmds


def run_block(kind: str, text: str, py: str, workdir: Path, env: dict[str, str], timeout: float) -> tuple[str, str]:
    def go(args: list[str], stdin: str | None = None) -> tuple[int, str]:
        p = subprocess.run(args, input=stdin, capture_output=True, text=True, cwd=workdir, env=env, timeout=timeout)
        return p.returncode, (p.stdout + p.stderr)

    if kind == "output":
        return "not run", "shows output only"
    if kind == "doctest":
        rc, out = go([py, "-c", DOCTEST], text)
    elif kind == "python":
        rc, out = go([py, "-c", text])
    elif kind == "pytest":
        (workdir / "test_pasted_block.py").write_text(text + "\n")
        rc, out = go([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_pasted_block.py"])
    else:
        cmds = _commands(kind, text)
        skipped = [(c, why) for c in cmds for rx, why in NOT_HERE if rx.search(c)]
        todo = [c for c in cmds if all(c != s for s, _ in skipped)]
        if not todo:
            return "not run", "; ".join(sorted({why for _c, why in skipped}))
        rc, out = go(["bash", "-c", "\n".join(todo)])
        if skipped:
            out += "\n(not run here: " + "; ".join(f"{c!r}: {why}" for c, why in skipped) + ")"
    tail = " | ".join(line for line in out.strip().splitlines()[-4:])
    if kind == "transcript" and "exit=$?" in text:  # the transcript shows its own failing exit status
        return ("ok" if rc == 0 else "FAILED"), tail
    return ("ok" if rc == 0 else "FAILED"), tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="+", type=Path)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--workdir", type=Path, default=Path("doc_snippets_run"))
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--only-line", type=int, default=None)
    ns = ap.parse_args(argv)
    ns.workdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["PATH"] = str(Path(ns.python).parent) + os.pathsep + env.get("PATH", "")
    for k in ("PYTHONPATH", "PYTHONSAFEPATH", "VIRTUAL_ENV"):
        env.pop(k, None)
    env.setdefault("MPLBACKEND", "Agg")
    failed = 0
    for page in ns.pages:
        for line, kind, text in _blocks(page):
            if ns.only_line is not None and line != ns.only_line:
                continue
            t0 = time.perf_counter()
            try:
                verdict, why = run_block(kind, text, ns.python, ns.workdir, env, ns.timeout)
            except subprocess.TimeoutExpired:
                verdict, why = "FAILED", f"timed out after {ns.timeout:.0f} s"
            failed += verdict == "FAILED"
            print(f"{page}:{line}\t{kind}\t{verdict}\t{time.perf_counter() - t0:.1f} s\t{why[:600]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

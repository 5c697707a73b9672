"""``python -m theory report``: run the experiments and write the report.

Exit status: 0 when every section ran, 1 when a section failed (its traceback is in the
report), 2 for a usage error -- an unknown ``--only`` section, an output folder that cannot be
written -- with a message and without touching an existing report.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import sys
from pathlib import Path

SUMMARY = "run the experiments and write the report (markdown + figures)"

__all__ = ["SUMMARY", "main", "section_names"]


def section_names() -> list[str]:
    """Names accepted by ``--only``: the section modules present (without importing them).

    >>> "covers" in section_names()
    True
    """
    from theory.report import sections as pkg

    return sorted(info.name for info in pkgutil.iter_modules(pkg.__path__) if not info.name.startswith("_"))


def _epilog() -> str:
    from theory.report import PLANNED

    lines = ["sections (for --only):"]
    for name in section_names():
        title = PLANNED.get(name, (name, ""))[0]
        lines.append(f"  {name:<14} {title}")
    return "\n".join(lines)


def _writable_dir(out: str) -> str:
    """'' when ``out`` is (or can be made) a writable folder, else why not."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        return f"--out {out!r} exists and is not a folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--out {out!r}: cannot create the folder ({exc.strerror or exc})"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"--out {out!r}: the folder is not writable"
    probe = path / ".semiprivate-write-test"
    try:
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        return f"--out {out!r}: cannot write into the folder ({exc.strerror or exc})"
    return ""


def main(argv: list[str]) -> int:
    """Entry point of ``python -m theory report`` (returns the exit status)."""
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a list of strings, got {type(argv).__name__}")
    parser = argparse.ArgumentParser(prog="semiprivate report", description=SUMMARY, epilog=_epilog(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="report_out", help="output directory (default: report_out)")
    parser.add_argument("--quick", action="store_true", help="smaller experiments (seconds, not minutes)")
    parser.add_argument("--only", nargs="+", metavar="SECTION",
                        help="run only these sections (names listed below); report.md then holds only them")
    ns = parser.parse_args(argv)  # argparse: usage errors exit 2 with a message, --help exits 0
    if ns.only:
        known = section_names()
        unknown = [n for n in ns.only if n not in known]
        if unknown:
            print(f"semiprivate report: error: unknown section(s) {', '.join(map(repr, unknown))}; "
                  f"known: {', '.join(known)} (nothing was written)", file=sys.stderr)
            return 2
    problem = _writable_dir(ns.out)
    if problem:
        print(f"semiprivate report: error: {problem}", file=sys.stderr)
        return 2
    from theory.report import run_report

    report = run_report(ns.out, quick=ns.quick, only=ns.only)
    return 0 if report.ok else 1

"""``python -m semiprivate report``: run the experiments and write the report.

For a first look run ``semiprivate report --quick`` (about two CPU-minutes, its sections spread over the
cores: smaller experiments, the same sections); the full run takes several minutes.  ``report.md`` starts with a summary, one SHOWN / NOT SHOWN / FAIL
line per section against the papers' claim; a progress bar over the sections runs on a terminal.

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

__all__ = ["SUMMARY", "default_jobs", "main", "section_names"]


def section_names() -> list[str]:
    """Names accepted by ``--only``: the section modules present (without importing them).

    >>> "covers" in section_names()
    True
    """
    from semiprivate.theory.report import sections as pkg

    return sorted(info.name for info in pkgutil.iter_modules(pkg.__path__) if not info.name.startswith("_"))


def default_jobs() -> int:
    """The default of ``--jobs``: the number of CPUs, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


def _epilog() -> str:
    from semiprivate.theory.report import PLANNED

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
    """Entry point of ``python -m semiprivate report`` (returns the exit status)."""
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a list of strings, got {type(argv).__name__}")
    parser = argparse.ArgumentParser(
        prog="semiprivate report", epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"{SUMMARY}.  First time? Run 'semiprivate report --quick' (about two CPU-minutes, spread over "
                    "the cores); report.md "
                    "then starts with a summary, one SHOWN / NOT SHOWN / FAIL line per section against the papers' claim.")
    parser.add_argument("--quick", action="store_true",
                        help="a first look: smaller experiments, every section (about two CPU-minutes, spread "
                             "over the cores; the full run takes several minutes)")
    parser.add_argument("--out", default="report_out", help="output directory (default: report_out)")
    parser.add_argument("--only", nargs="+", metavar="SECTION",
                        help="run only these sections (names listed below); report.md then holds only them")
    parser.add_argument("--jobs", type=int, metavar="N", default=default_jobs(),
                        help="build N sections at once in worker processes (default: the number of CPUs, at most "
                             f"4; here {default_jobs()}); 1 builds them one after the other; the numbers are the same")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N",
                       help="run the seeded simulations on a local Dask cluster of N worker processes "
                            "(needs semiprivate[dask]; same numbers as without)")
    where.add_argument("--dask-scheduler", metavar="ADDRESS",
                       help="run the seeded simulations on the Dask scheduler at ADDRESS, e.g. "
                            "tcp://host:8786 (needs semiprivate[dask]; same numbers as without)")
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
    if ns.jobs < 1:
        print(f"semiprivate report: error: --jobs must be >= 1, got {ns.jobs}", file=sys.stderr)
        return 2
    if ns.workers is not None and ns.workers < 1:
        print(f"semiprivate report: error: --workers must be >= 1, got {ns.workers}", file=sys.stderr)
        return 2
    from semiprivate.theory.report import run_report

    if ns.workers is None and ns.dask_scheduler is None:
        report = run_report(ns.out, quick=ns.quick, only=ns.only, jobs=ns.jobs)
        return 0 if report.ok else 1
    try:
        import distributed
    except ImportError:
        print('semiprivate report: error: --workers/--dask-scheduler need Dask: pip install "semiprivate[dask]"',
              file=sys.stderr)
        return 2
    if ns.workers is not None:
        from semiprivate.theory.distributed import local_cluster

        with local_cluster(ns.workers, threads_per_worker=1) as client:
            print(f"Dask: local cluster of {ns.workers} worker processes, dashboard {client.dashboard_link}",
                  flush=True)
            report = run_report(ns.out, quick=ns.quick, only=ns.only, client=client)
        return 0 if report.ok else 1
    try:
        client = distributed.Client(ns.dask_scheduler, timeout=30)
    except (OSError, TimeoutError, ValueError) as exc:
        print(f"semiprivate report: error: cannot reach the Dask scheduler {ns.dask_scheduler!r} within 30 s "
              f"({type(exc).__name__}: {exc}); start one with 'dask scheduler' or use --workers N", file=sys.stderr)
        return 2
    with client:
        print(f"Dask: scheduler {ns.dask_scheduler}, dashboard {client.dashboard_link}", flush=True)
        report = run_report(ns.out, quick=ns.quick, only=ns.only, client=client)
    return 0 if report.ok else 1

"""``python -m semiprivate.proofs_checks``: print the verdict table and write the markdown report.

Files are written only where asked: the report goes to ``--out PATH`` or, in a source checkout,
to the committed ``proofs_checks/REPORT.md``; an installed copy writes nothing without ``--out``
(never into the current folder or ``site-packages``). Options: ``--no-write`` (print only),
``--out PATH``, ``--only ID [ID ...]`` (run only these checks; the table and the report then hold
only them, so the committed report is written only by a full run: ``--out`` is needed),
``--certificates [DIR]`` (also write every check's claim, proof chain and certificates as JSON; DIR
defaults to ``proofs_checks/certificates/`` in a source checkout and is required otherwise; not
with ``--only``: the folder mirrors every check), ``--recheck [DIR]`` (re-check the written
documents -- with ``--only``, those of the checks named -- with the independent checker, which
imports only sympy, mpmath and z3).
Exit status 0 when every check ran and matched its recorded expectation, 1 otherwise,
2 for a usage error (an unknown ``--only`` id, a report that cannot be written: a message, no traceback).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from semiprivate.proofs_checks._framework import registry
from semiprivate.proofs_checks.report import (
    REPORT_PATH,
    recheck_certificates,
    render_table,
    run_all,
    source_checkout,
    write_certificates,
    write_report,
)


def main(argv: list[str] | None = None) -> int:
    """Run the checks; print the table; write the report."""
    ap = argparse.ArgumentParser(prog="python -m semiprivate.proofs_checks", description=__doc__)
    ap.add_argument("--no-write", action="store_true", help="do not write the report")
    ap.add_argument("--out", type=Path, default=None,
                    help="where to write the report (default: proofs_checks/REPORT.md in a source checkout; "
                         "nothing is written otherwise)")
    ap.add_argument("--certificates", nargs="?", const="", default=None, metavar="DIR",
                    help="also write the certificates (JSON, one file per check) to DIR (default: "
                         "proofs_checks/certificates/ in a source checkout; required otherwise)")
    ap.add_argument("--recheck", nargs="?", const="", default=None, metavar="DIR",
                    help="re-check every certificate file in DIR (default: the committed certificates; with --only, the "
                         "files of those checks) with the independent checker; exit 1 if any fails")
    ap.add_argument("--only", nargs="+", metavar="ID",
                    help="run only these checks (ids as in the table's first column); the table and the report then "
                         "hold only them, and the report is written only with --out")
    args = ap.parse_args(argv)
    if args.only is not None:
        problem = _only_problem(args)
        if problem:
            print(f"python -m semiprivate.proofs_checks: error: {problem}", file=sys.stderr)
            return 2
    if args.out is not None and not args.no_write:  # a bad --out fails now, not after a minute of checks
        existed = args.out.exists()
        try:
            with open(args.out, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            print(f"python -m semiprivate.proofs_checks: error: --out {str(args.out)!r}: cannot write there: {exc}",
                  file=sys.stderr)
            return 2
        if not existed:
            args.out.unlink()
    if args.certificates == "" and not source_checkout():
        print("python -m semiprivate.proofs_checks: error: --certificates needs a folder outside a source checkout",
              file=sys.stderr)
        return 2
    if args.recheck is not None and args.certificates is None:
        return _recheck(args.recheck, args.only)
    outs = run_all() if args.only is None else run_all(only=args.only)
    print(render_table(outs))
    bad = [o for o in outs if not o.as_expected]
    for o in bad:
        got = "ERROR" if o.check is None else o.check.verdict.value
        exp = o.expected.value if o.expected is not None else "no expectation recorded"
        print(f"\nUNEXPECTED {o.id}: got {got}, expected {exp}", file=sys.stderr)
        if o.error:
            print(o.error, file=sys.stderr)
    # the committed report holds every check: a run of some of them writes only where --out says
    target = args.out if args.out is not None else (REPORT_PATH if source_checkout() and args.only is None else None)
    if target is None and not args.no_write:
        print("\n(report not written: pass --out PATH to write it)")
    elif not args.no_write:
        try:
            path = write_report(target, outs)
        except OSError as exc:
            print(f"python -m semiprivate.proofs_checks: error: cannot write the report: {exc}", file=sys.stderr)
            return 2
        print(f"\nwrote {path}")
    if args.certificates is not None:
        try:
            folder = write_certificates(Path(args.certificates) if args.certificates else None)
        except OSError as exc:
            print(f"python -m semiprivate.proofs_checks: error: cannot write the certificates: {exc}", file=sys.stderr)
            return 2
        print(f"wrote the certificates to {folder}")
        if args.recheck is not None:
            rc = _recheck(str(folder))
            if rc:
                return rc
    return 1 if bad else 0


def _only_problem(args: argparse.Namespace) -> str:
    """'' when ``--only`` can run, else why not (an unknown id, or ``--certificates``)."""
    if args.certificates is not None:
        return ("--only cannot be combined with --certificates: the certificates folder holds every check's document "
                "(run without --only to write it)")
    known = registry()
    unknown = [cid for cid in args.only if cid not in known]
    if not unknown:
        return ""
    hints = []
    for cid in unknown:
        close = difflib.get_close_matches(cid, known, n=3, cutoff=0.6)
        hints.append(f"{cid!r}" + (f" (did you mean {', '.join(map(repr, close))}?)" if close else ""))
    return (f"--only: unknown check id(s) {'; '.join(hints)}; the ids are the first column of the table "
            "(python -m semiprivate.proofs_checks --no-write); nothing was run")


def _recheck(folder: str, only: list[str] | None = None) -> int:
    from semiprivate.proofs_checks.certificate_checker import CertificateError

    try:
        counts = recheck_certificates(Path(folder) if folder else None, only=only)
    except CertificateError as exc:
        print(f"python -m semiprivate.proofs_checks: certificate FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"re-checked {sum(counts.values())} certificates in {len(counts)} files: all hold")
    return 0 if counts else 1


if __name__ == "__main__":
    raise SystemExit(main())

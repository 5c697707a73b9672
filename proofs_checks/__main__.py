"""``python -m proofs_checks``: print the verdict table and write ``proofs_checks/REPORT.md``.

Options: ``--no-write`` (print only), ``--out PATH`` (write the report elsewhere).
Exit status 0 when every check ran and matched its recorded expectation, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from proofs_checks.report import render_table, run_all, write_report


def main(argv: list[str] | None = None) -> int:
    """Run the checks; print the table; write the report."""
    ap = argparse.ArgumentParser(prog="python -m proofs_checks", description=__doc__)
    ap.add_argument("--no-write", action="store_true", help="do not write REPORT.md")
    ap.add_argument("--out", type=Path, default=None, help="where to write the report")
    args = ap.parse_args(argv)
    outs = run_all()
    print(render_table(outs))
    bad = [o for o in outs if not o.as_expected]
    for o in bad:
        got = "ERROR" if o.check is None else o.check.verdict.value
        exp = o.expected.value if o.expected is not None else "no expectation recorded"
        print(f"\nUNEXPECTED {o.id}: got {got}, expected {exp}", file=sys.stderr)
        if o.error:
            print(o.error, file=sys.stderr)
    if not args.no_write:
        path = write_report(args.out)
        print(f"\nwrote {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

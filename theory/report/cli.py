"""``python -m theory report``: run the experiments and write the report."""

from __future__ import annotations

import argparse

SUMMARY = "run the experiments and write the report (markdown + figures)"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="semiprivate report", description=SUMMARY)
    parser.add_argument("--out", default="report_out", help="output directory (default: report_out)")
    parser.add_argument("--quick", action="store_true", help="smaller experiments (seconds, not minutes)")
    parser.add_argument("--only", nargs="+", metavar="SECTION", help="run only these section modules")
    ns = parser.parse_args(argv)
    from theory.report import run_report

    report = run_report(ns.out, quick=ns.quick, only=ns.only)
    return 0 if report.ok else 1

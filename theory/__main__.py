"""Command line: ``python -m theory`` (also installed as the ``semiprivate`` console script).

Subcommands
-----------
``bound``   evaluate / solve a bound of the four papers   (module ``theory.bounds.cli``)
``audit``   run the built-in empirical DP audit suite      (module ``theory.audit.cli``)
``report``  run the experiments and write the report       (module ``theory.report.cli``)

Each subcommand lives in its own module exposing ``main(argv: list[str]) -> int`` and a
one-line ``SUMMARY``; a subcommand whose module is not installed says so and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS = {
    "bound": ("theory.bounds.cli", "evaluate, solve or print a bound (ABM19, BNS15, HPSY, PILLAR, classic)"),
    "audit": ("theory.audit.cli", "audit the toolkit's mechanisms for differential privacy, empirically"),
    "report": ("theory.report.cli", "run the experiments and write the report (markdown + figures)"),
}


def _load(module: str):  # type: ignore[no-untyped-def]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        # Only "this subcommand's module is absent" counts as not available;
        # a missing dependency inside it is a real error and propagates.
        if exc.name and module.startswith(exc.name):
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semiprivate",
        description="semiprivate: theory toolkit and kernels for semi-private learning.",
        epilog="Run 'semiprivate SUBCOMMAND --help' for a subcommand's options.",
    )
    parser.add_argument("--version", action="version", version="semiprivate 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND")
    for name, (_module, summary) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=summary, add_help=False)
        p.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        parser.print_help()
        return 2
    ns = parser.parse_args(argv[:1])
    module_name, summary = SUBCOMMANDS[ns.command]
    module = _load(module_name)
    if module is None:
        print(
            f"semiprivate {ns.command}: not available yet in this version "
            f"(module {module_name} is not installed): {summary}.",
            file=sys.stderr,
        )
        return 2
    return int(module.main(argv[1:]))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

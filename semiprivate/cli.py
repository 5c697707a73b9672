"""Command line: ``semiprivate`` (console script) and ``python -m semiprivate``.

Subcommands
-----------
``bound``   evaluate / solve a bound of the four papers   (module ``semiprivate.theory.bounds.cli``)
``audit``   run the built-in empirical DP audit suite      (module ``semiprivate.theory.audit_suite``),
            or, given ``MODULE:FUNCTION``, audit a mechanism of yours (module ``semiprivate.theory.audit.cli``);
            ``semiprivate audit --help`` shows both forms with every option
``report``  run the experiments and write the report       (module ``semiprivate.theory.report.cli``)
``spec``    the index of the paper items the toolkit implements, with their code, tests
            and proof checks                               (module ``semiprivate.theory.spec``)
``proofs``  re-run the machine checks of the papers' proofs (module ``semiprivate.proofs_checks.__main__``)
``cite``    BibTeX for the software and the four papers   (module ``semiprivate.cite``)

``semiprivate --version`` prints the version and the kernel backends available (compiled or NumPy only).

Each subcommand lives in its own module exposing ``main(argv: list[str]) -> int`` and a
one-line ``SUMMARY``; a subcommand whose module is not installed says so and exits 2 (from the root of a
source checkout with nothing installed: what to run, ``semiprivate.SOURCE_CHECKOUT_MESSAGE``).

A user error never prints a traceback: the subcommands answer exit status 2 with a message,
and a ``TypeError`` / ``ValueError`` / ``OSError`` / ``ArithmeticError`` that still escapes one
is printed as ``semiprivate SUBCOMMAND: error: ...`` with exit status 2 (set
``SEMIPRIVATE_DEBUG=1`` to see the traceback instead).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from semiprivate import __version__

SUBCOMMANDS = {
    "bound": ("semiprivate.theory.bounds.cli", "evaluate, solve or print a bound (ABM19, BNS15, HPSY, PILLAR, classic)"),
    "audit": ("semiprivate.theory.audit_suite", "audit the toolkit's mechanisms for differential privacy, "
              "empirically; 'audit MODULE:FUNCTION --pair D1 D2 --epsilon E' audits yours"),
    "report": ("semiprivate.theory.report.cli", "run the experiments and write the report (markdown + figures)"),
    "spec": ("semiprivate.theory.spec", "list the paper items (SPEC ids) implemented, with their code, tests and proof checks"),
    "proofs": ("semiprivate.proofs_checks.__main__", "re-run the machine checks of the papers' proofs and write their report"),
    "cite": ("semiprivate.cite", "print BibTeX for the software and the four papers it implements"),
}

#: ``semiprivate audit MODULE:FUNCTION ...`` audits a user's mechanism instead of running the suite
AUDIT_TARGET_MODULE = "semiprivate.theory.audit.cli"


def _is_audit_target(args: list[str]) -> bool:
    """True when the first argument of ``semiprivate audit`` names a ``module:function``."""
    return bool(args) and not args[0].startswith("-") and ":" in args[0]


def _load(module: str):  # type: ignore[no-untyped-def]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        # Only "this subcommand's module is absent" counts as not available;
        # a missing dependency inside it is a real error and propagates.
        if exc.name and module.startswith(exc.name):
            return None
        raise


def _checkout_message() -> str | None:
    """What to run when this is a source checkout with nothing installed (``semiprivate.SOURCE_CHECKOUT_MESSAGE``)."""
    import semiprivate

    return getattr(semiprivate, "SOURCE_CHECKOUT_MESSAGE", None)


def version_text() -> str:
    """``semiprivate X.Y.Z`` and the kernel backends this installation can use (compiled or NumPy only)."""
    try:
        from semiprivate.kernels._backend import backend_summary
    except ImportError as exc:  # NumPy or the kernels missing: still answer --version
        return f"semiprivate {__version__}\nbackends: unknown ({exc})"
    return f"semiprivate {__version__}\nbackends: {backend_summary()}"


class _VersionAction(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def _audit_help() -> str:
    """``semiprivate audit --help``: both forms, every option of each."""
    from semiprivate.theory.audit import cli as target_cli

    suite = _load(SUBCOMMANDS["audit"][0])
    parts = ["semiprivate audit has two forms.", "",
             "1) Audit a mechanism of yours (give MODULE:FUNCTION first):", "",
             target_cli.build_parser().format_help().rstrip()]
    if suite is not None and hasattr(suite, "build_parser"):
        parts += ["", "2) Without MODULE:FUNCTION: run the toolkit's built-in audit suite:", "",
                  suite.build_parser().format_help().rstrip()]
    return "\n".join(parts) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semiprivate",
        description="semiprivate: theory toolkit and kernels for semi-private learning.",
        epilog="Run 'semiprivate SUBCOMMAND --help' for a subcommand's options.",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the version and the kernel backends available here, and exit")
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
    if ns.command == "audit" and _is_audit_target(argv[1:]):
        module_name = AUDIT_TARGET_MODULE
    elif ns.command == "audit" and argv[1:] and argv[1] in ("-h", "--help"):
        sys.stdout.write(_audit_help())
        raise SystemExit(0)  # as argparse's --help
    module = _load(module_name)
    if module is None and _checkout_message():
        print(f"semiprivate {ns.command}: {_checkout_message()}", file=sys.stderr)
        return 2
    if module is None:
        print(f"semiprivate {ns.command}: module {module_name} is not installed ({summary}).", file=sys.stderr)
        return 2
    if os.environ.get("SEMIPRIVATE_DEBUG"):
        return int(module.main(argv[1:]))
    try:
        return int(module.main(argv[1:]))
    except KeyboardInterrupt:
        print(f"semiprivate {ns.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. head, which closed it: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (TypeError, ValueError, OSError, ArithmeticError) as exc:
        print(f"semiprivate {ns.command}: error: {exc}\n(set SEMIPRIVATE_DEBUG=1 for the traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``semiprivate audit MODULE:FUNCTION --pair DATA NEIGHBOUR ...``: audit your own mechanism from the shell.

``MODULE:FUNCTION`` names an importable callable (``mypkg.mechs:laplace_count``; a module in the
current folder works too).  By default it has the auditor's form ``fn(data, size, rng)`` returning
``size`` outputs; with ``--single`` it is ``fn(data, rng)`` returning one output (wrapped with
:func:`semiprivate.theory.audit.vectorize`).  Each ``--pair`` gives two neighbouring datasets as
Python literals (``--pair "[1, 0, 1]" "[1, 1, 1]"``); several pairs are audited together with a
Bonferroni correction.  Exit status: 0 when no violation is found, 1 when the audit refutes the
claim (the report says why), 2 on a usage error.

Implements: AUDIT (command line for a user's mechanism).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import sys
from typing import Any

from semiprivate.theory.audit.core import audit_pairs, vectorize

__all__ = ["SUMMARY", "build_parser", "load_target", "main"]

SUMMARY = "audit a mechanism MODULE:FUNCTION of yours on neighbouring pairs"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semiprivate audit",
        usage="semiprivate audit MODULE:FUNCTION --pair DATA NEIGHBOUR [--pair ...] --epsilon EPS [options]",
        description="Audit a mechanism's claimed (epsilon, delta) empirically (without MODULE:FUNCTION, "
                    "'semiprivate audit' runs the toolkit's built-in suite).",
    )
    parser.add_argument("target", metavar="MODULE:FUNCTION", help="the mechanism, e.g. mypkg.mechs:laplace_count")
    parser.add_argument("--pair", nargs=2, action="append", required=True, metavar=("DATA", "NEIGHBOUR"),
                        help="two neighbouring datasets as Python literals; repeat for more pairs")
    parser.add_argument("--epsilon", type=float, required=True, help="the claimed epsilon")
    parser.add_argument("--delta", type=float, default=0.0, help="the claimed delta (default 0)")
    parser.add_argument("--trials", type=int, default=None, help="estimation trials per dataset (default 1,000,000)")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence of the lower bound (default 0.95)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the audit (default 0)")
    parser.add_argument("--estimate-on", choices=["all", "best"], default="all",
                        help="'all' (default): every pair's best events estimated on every dataset; 'best': the "
                             "two-stage audit, the best test chosen on a choice batch gets the whole estimation "
                             "budget (see audit_pairs' estimate_on)")
    parser.add_argument("--interval", choices=["clopper-pearson", "poisson-conditional"], default="clopper-pearson",
                        help="each test's bound: two Clopper-Pearson intervals (default), or, for --delta 0, one exact "
                             "conditional test of the probability ratio on Poisson-sized batches (tighter; see "
                             "audit_pairs' interval)")
    parser.add_argument("--single", action="store_true",
                        help="FUNCTION is fn(data, rng) -> one output (default: fn(data, size, rng) -> size outputs)")
    return parser


def load_target(target: str) -> Any:
    """The callable named by ``"module:attribute"`` (dots in the attribute follow attributes).

    The current folder is searched first, as ``python -m`` does.

    Raises
    ------
    ValueError
        ``target`` is not of the form ``module:function``, the module or the attribute does not
        exist, or the attribute is not callable.
    """
    if not isinstance(target, str):
        raise TypeError(f"target must be a str 'module:function', got {type(target).__name__}")
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"target must be MODULE:FUNCTION, got {target!r}")
    added = os.getcwd() not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ValueError(f"target {target!r}: cannot import module {module_name!r} ({exc})") from None
    finally:
        if added:
            sys.path.remove(os.getcwd())
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"target {target!r}: {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"target {target!r} is not callable ({type(obj).__name__})")
    return obj


def _literal(text: str, which: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"--pair {which} must be a Python literal (e.g. [1, 0, 1] or 3.5), got {text!r}") from None


def _usage_error(message: str) -> int:
    print(f"semiprivate audit: error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    """Entry point of ``semiprivate audit MODULE:FUNCTION ...`` (returns the exit status)."""
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a list of strings, got {type(argv).__name__}")
    args = build_parser().parse_args(argv)
    if not 0 < args.confidence < 1:  # NaN-safe
        return _usage_error(f"--confidence must be in (0, 1), got {args.confidence}")
    if args.trials is not None and args.trials < 1:
        return _usage_error(f"--trials must be >= 1, got {args.trials}")
    if args.seed < 0:
        return _usage_error(f"--seed must be an integer >= 0, got {args.seed}")
    if args.interval == "poisson-conditional" and args.delta != 0:
        return _usage_error(f"--interval poisson-conditional needs --delta 0, got {args.delta}: use --interval "
                            "clopper-pearson for a delta > 0")
    try:
        mechanism = load_target(args.target)
        pairs = [(_literal(a, "DATA"), _literal(b, "NEIGHBOUR")) for a, b in args.pair]
    except ValueError as exc:
        return _usage_error(str(exc))
    if args.single:
        mechanism = vectorize(mechanism)
    result = audit_pairs(mechanism, pairs, epsilon=args.epsilon, delta=args.delta, trials=args.trials,
                         confidence=args.confidence, rng=args.seed, estimate_on=args.estimate_on,
                         interval=args.interval)
    print(f"audit of {args.target}:")
    print(result.report())
    return 1 if result.violation else 0

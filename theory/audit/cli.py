"""``semiprivate audit MODULE:FUNCTION --pair DATA NEIGHBOUR ...``: audit your own mechanism from the shell.

``MODULE:FUNCTION`` names an importable callable (``mypkg.mechs:laplace_count``; a module in the
current folder works too).  By default it has the auditor's form ``fn(data, size, rng)`` returning
``size`` outputs; with ``--single`` it is ``fn(data, rng)`` returning one output (wrapped with
:func:`semiprivate.theory.audit.vectorize`).  Each ``--pair`` gives two neighbouring datasets as
Python literals (``--pair "[1, 0, 1]" "[1, 1, 1]"``); several pairs are audited together with a
Bonferroni correction.  Exit status: 0 when no violation is found, 1 when the audit refutes the
claim (the report says why), 2 on a usage error.

Defaults (the same for :func:`semiprivate.theory.audit.assert_private`, the pytest plugin's ``dp_audit``
and the built-in suite, stated once in :mod:`semiprivate.theory.audit.options`): confidence
:data:`DEFAULT_CONFIDENCE` = 0.999 (a correct mechanism is flagged with probability at most 0.001 per call)
and :data:`DEFAULT_TRIALS` = 1,000,000 estimation trials per dataset.  The options are gathered into one
:class:`~semiprivate.theory.audit.options.AuditOptions` and passed whole.  A p-value is computed as its
logarithm below what a double holds (:mod:`semiprivate.theory.audit.pvalues`) and printed as ``< 1e-300``
(:data:`P_VALUE_FLOOR`) only when its logarithm shows it.  ``--epsilons 0.5,1,2`` also prints the p-value of
each of those claims from the same counts (the epsilon curve, :mod:`semiprivate.theory.audit.curves`), and
``--plot FILE`` draws it.

Implements: AUDIT (command line for a user's mechanism).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import math
import os
import sys
from typing import Any

from semiprivate.theory.audit.core import audit_pairs, vectorize
from semiprivate.theory.audit.options import DEFAULT_CONFIDENCE, DEFAULT_TRIALS, AuditOptions
from semiprivate.theory.audit.pvalues import PRINT_FLOOR, format_p_value
from semiprivate.theory.audit.result import AuditResult

__all__ = ["SUMMARY", "DEFAULT_CONFIDENCE", "DEFAULT_TRIALS", "P_VALUE_FLOOR", "build_parser", "format_curve",
           "format_p_value", "load_target", "main"]

SUMMARY = "audit a mechanism MODULE:FUNCTION of yours on neighbouring pairs"

#: p-values below this are printed as ``< 1e-300`` (when their logarithm shows it; see :func:`format_p_value`)
P_VALUE_FLOOR = PRINT_FLOOR


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="semiprivate audit",
        usage="semiprivate audit MODULE:FUNCTION --pair DATA NEIGHBOUR [--pair ...] --epsilon EPS [options]",
        description="Audit a mechanism's claimed (epsilon, delta) empirically (without MODULE:FUNCTION, "
                    "'semiprivate audit' runs the toolkit's built-in suite).",
    )
    parser.add_argument("target", metavar="MODULE:FUNCTION",
                        help="the mechanism, e.g. mypkg.mechs:laplace_count: fn(data, size, rng) returning size "
                             "outputs, or with --single fn(data, rng) returning one")
    parser.add_argument("--pair", nargs=2, action="append", required=True, metavar=("DATA", "NEIGHBOUR"),
                        help="two neighbouring datasets as Python literals; repeat for more pairs")
    parser.add_argument("--epsilon", type=float, required=True, help="the claimed epsilon")
    parser.add_argument("--delta", type=float, default=0.0, help="the claimed delta (default 0)")
    parser.add_argument("--trials", type=int, default=None,
                        help=f"estimation trials per dataset (default {DEFAULT_TRIALS:,})")
    parser.add_argument("--confidence", type=float, default=DEFAULT_CONFIDENCE,
                        help=f"confidence of the lower bound (default {DEFAULT_CONFIDENCE}: a correct mechanism is "
                             f"flagged with probability at most {1 - DEFAULT_CONFIDENCE:.3g})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the audit (default 0)")
    parser.add_argument("--estimate-on", choices=["all", "best"], default="all",
                        help="'all' (default): every pair's best events estimated on every dataset; 'best': the "
                             "two-stage audit, the best test chosen on a choice batch gets the whole estimation "
                             "budget (see audit_pairs' estimate_on)")
    parser.add_argument("--interval", choices=["clopper-pearson", "poisson-conditional"], default="clopper-pearson",
                        help="each test's bound: two Clopper-Pearson intervals (default), or, for --delta 0, one exact "
                             "conditional test of the probability ratio on Poisson-sized batches (tighter; see "
                             "audit_pairs' interval)")
    parser.add_argument("--epsilons", type=_claims, default=None, metavar="E1,E2,...",
                        help="also print the p-value of each of these claimed epsilons, from the same counts (the "
                             "epsilon curve, e.g. 0.5,1,2) and the largest one refuted")
    parser.add_argument("--plot", metavar="FILE", default=None,
                        help="with --epsilons: also draw the curve (log p-value against the claim, the level and the "
                             "bound) into FILE (.png, .pdf or .svg; needs matplotlib)")
    parser.add_argument("--single", action="store_true",
                        help="FUNCTION is fn(data, rng) -> one output (default: fn(data, size, rng) -> size outputs)")
    return parser


def _claims(text: str) -> tuple[float, ...]:
    """``--epsilons``: comma-separated finite claims >= 0 (argparse reports a ValueError as a usage error)."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated numbers such as 0.5,1,2, got {text!r}") from None
    if not all(math.isfinite(v) and v >= 0.0 for v in values):
        raise argparse.ArgumentTypeError(f"must be finite claims >= 0, got {text!r}")
    return values


def format_curve(result: AuditResult) -> str:
    """The epsilon curve of ``result`` (``result.curve``) as lines ``claim  p-value  verdict``."""
    if not isinstance(result, AuditResult) or result.curve is None:
        raise TypeError(f"result must be an AuditResult with a curve (options.epsilons), got {type(result).__name__}")
    curve = result.curve
    lines = [f"epsilon curve (p-value of each claim from the same counts; refuted at p <= {curve.alpha:.3g}):"]
    for e, p, lp in zip(curve.epsilons, curve.p_values, curve.log_p_values):
        lines.append(f"  epsilon {e:<8g} p-value {format_p_value(float(p), float(lp)):<10} "
                     f"{'refuted' if p <= curve.alpha else 'not refuted'}")
    where = ("no claim of the grid is refuted" if curve.refuted_up_to is None else
             f"the claim starts to fail at or below {curve.refuted_up_to:g} on this grid")
    lines.append(f"  {where}; the exact crossing is the lower bound {curve.bound:.4f}")
    return "\n".join(lines)


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
    if args.plot is not None and args.epsilons is None:
        return _usage_error("--plot draws the epsilon curve: give the claims with --epsilons (e.g. 0.5,1,2)")
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
    elif _one_output_form(mechanism):
        return _usage_error(f"{args.target} takes (data, rng): a one-output mechanism; add --single to audit it "
                            "(it is then called once per output)")
    options = AuditOptions(estimate_on=args.estimate_on, interval=args.interval, epsilons=args.epsilons)
    try:
        result = audit_pairs(mechanism, pairs, epsilon=args.epsilon, delta=args.delta, trials=args.trials,
                             confidence=args.confidence, rng=args.seed, options=options)
    except (TypeError, ValueError) as exc:
        if "vectorize(fn)" not in str(exc) or args.single:
            raise
        return _usage_error(f"{args.target} does not return one output per trial ({str(exc).split(' (a one-output')[0]}"
                            "); if it returns one output, add --single")
    print(f"audit of {args.target}:")
    print(result.report())
    if result.curve is not None:
        print(format_curve(result))
    if args.plot is not None:
        import matplotlib.pyplot as plt

        ax = result.curve.plot(claim=args.epsilon)
        ax.set_title(f"epsilon curve of {args.target}")
        ax.figure.savefig(args.plot, bbox_inches="tight")
        plt.close(ax.figure)
        print(f"epsilon curve drawn in {args.plot}")
    return 1 if result.violation else 0


def _one_output_form(fn: Any) -> bool:
    """True when ``fn`` can be called as ``fn(data, rng)`` but not as ``fn(data, size, rng)``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    def binds(*args: Any) -> bool:
        try:
            sig.bind(*args)
        except TypeError:
            return False
        return True
    return binds(None, None) and not binds(None, 1, None)

"""``python -m semiprivate bound``: list, evaluate, solve or print a bound of the four papers.

Usage::

    python -m semiprivate bound --list
    python -m semiprivate bound ID key=value ... [--solve NAME] [--latex] [--json]
    python -m semiprivate bound ID --help          # what the bound needs

Exit status: 0 on success, 2 for a usage error (unknown id, missing / unknown / repeated /
invalid parameter, a value beyond what the float formulas can evaluate: the message lists what
the bound needs), 1 when the theorem's hypotheses do not hold for the given parameters
(ConditionNotMet).  A user error never prints a traceback.

Notes after the value: when a result's alpha / beta is the output learner's (a theorem that maps
an (alpha, beta) learner to an (11 alpha, 2 beta) one, say), and when a sample size is vacuous
(>= 10^30 examples).  ``--json`` puts the same notes under ``"notes"``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

SUMMARY = "evaluate, solve or print a bound (ABM19, BNS15, HPSY, PILLAR, classic)"

__all__ = ["SUMMARY", "VACUOUS_SIZE", "main", "to_jsonable"]

#: A sample size at or above this is reported as vacuous (no sample of that size can be drawn; the
#: float formulas carry 16 significant digits, so a longer integer is mostly noise).
VACUOUS_SIZE = 10**30


def to_jsonable(value: Any) -> Any:
    """Turn a bound's result (numbers, NamedTuples, Checked, lists) into JSON-ready data."""
    from semiprivate.theory.validity import Checked

    if isinstance(value, Checked):
        return {"value": to_jsonable(value.value), "valid": value.valid, "reason": value.reason, "item": value.item}
    if hasattr(value, "_asdict"):
        return {k: to_jsonable(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def _needs(params: Any) -> str:
    lines = []
    for p in params:
        req = "required" if p.required else f"optional, default {p.default!r}"
        lines.append(f"  {p.name}: {p.description} ({p.constraint.describe()}; {req})")
    return "\n".join(lines)


def _parse_value(param: Any, text: str) -> Any:
    from semiprivate.kernels.validation import Options

    if isinstance(param.constraint, Options):
        return text
    if param.integer:
        try:
            return int(text)
        except ValueError:
            try:
                x = float(text)
            except ValueError:
                raise ValueError(f"{param.name} must be an integer, got {text!r}") from None
            if x.is_integer():
                return int(x)
            raise ValueError(f"{param.name} must be an integer, got {text!r}") from None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{param.name} must be a number, got {text!r}") from None


def _print_list(out: Any) -> None:
    from semiprivate.theory.bounds import list_bounds

    bounds = list_bounds()
    width = max(len(b.id) for b in bounds)
    for b in bounds:
        solv = f"  [solve: {', '.join(sorted(b.solvers))}]" if b.solvers else ""
        print(f"{b.id:<{width}}  {b.description}{solv}", file=out)


def _transform_notes(kwargs: dict[str, Any], value: Any) -> list[str]:
    """Say so when a result's accuracy / confidence is not the input's (the theorem transforms it)."""
    notes = []
    for name in ("alpha", "beta"):
        given, got = kwargs.get(name), getattr(value, name, None)
        if isinstance(given, (int, float)) and isinstance(got, (int, float)) and given > 0 and got != given:
            notes.append(f"the result's {name} = {got:g} is the output learner's ({got / given:g} x the input "
                         f"{name} = {given:g}), not the {name} you gave")
    sizes = {"value": value} if isinstance(value, int) and not isinstance(value, bool) else {
        k: v for k, v in (value._asdict().items() if hasattr(value, "_asdict") else ())
        if isinstance(v, int) and not isinstance(v, bool)}
    for name, v in sizes.items():
        if v >= VACUOUS_SIZE:
            notes.append(f"vacuous: {name} = {float(v):.3g} examples is beyond any sample that can be drawn "
                         f"(>= {VACUOUS_SIZE:.0e}); its digits past the 16th are floating-point noise")
    return notes


def _latex(expr: Any) -> Any:
    import sympy

    if isinstance(expr, dict):
        return {k: sympy.latex(v) for k, v in expr.items()}
    return sympy.latex(expr)


def main(argv: list[str]) -> int:
    """Entry point of ``python -m semiprivate bound`` (returns the exit status)."""
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a list of strings, got {type(argv).__name__}")
    parser = argparse.ArgumentParser(prog="semiprivate bound", description=SUMMARY, add_help=False)
    parser.add_argument("--list", action="store_true", help="list every bound id with one line")
    parser.add_argument("--solve", metavar="NAME", help="solve for this parameter instead of evaluating")
    parser.add_argument("--latex", action="store_true", help="also print the sympy form as LaTeX")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("-h", "--help", action="store_true", help="show help (for an ID: its parameters)")
    parser.add_argument("bound_id", nargs="?", metavar="ID")
    parser.add_argument("assignments", nargs="*", metavar="key=value")
    try:
        ns = parser.parse_intermixed_args(argv)
    except SystemExit as exc:  # argparse error: usage already printed
        return int(exc.code or 2)
    if ns.list:
        _print_list(sys.stdout)
        return 0
    if ns.bound_id is None:
        parser.print_help()
        if ns.help:  # like argparse's own -h
            raise SystemExit(0)
        return 2

    from semiprivate.theory.bounds import UnknownBoundError, _call, check_param_names, get_bound
    from semiprivate.theory.bounds._core import RENAMED_PARAMS
    from semiprivate.theory.validity import ConditionNotMet

    try:
        bound = get_bound(ns.bound_id)
    except UnknownBoundError as exc:
        print(f"error: {exc}" + ("" if "--list" in str(exc) else " (see --list)"), file=sys.stderr)
        return 2
    if ns.solve is not None:
        if ns.solve not in bound.solvers:
            print(f"error: {bound.id} cannot be solved for {ns.solve!r}; solvable: "
                  f"{', '.join(sorted(bound.solvers)) or 'none'}", file=sys.stderr)
            return 2
        solver = bound.solvers[ns.solve]
        params, func, what = solver.params, solver.function, f"solve for {ns.solve}: {solver.description}"
    else:
        params, func, what = bound.params, bound.function, bound.output
    if ns.help:
        print(f"{bound.id}: {bound.description}\n{what}\nparameters:\n{_needs(params)}")
        if bound.solvers:
            print(f"solvable for: {', '.join(sorted(bound.solvers))} (--solve NAME)")
            if ns.solve is None:  # what each solver needs (it may need parameters the evaluation does not)
                for sname in sorted(bound.solvers):
                    solver = bound.solvers[sname]
                    print(f"--solve {sname}: {solver.description}\n  parameters:\n"
                          + "\n".join("  " + line for line in _needs(solver.params).splitlines()))
        ex = " ".join(f"{k}={v}" for k, v in bound.example.items())
        print(f"example: python -m semiprivate bound {bound.id} {ex}")
        return 0

    by_name = {p.name: p for p in params}
    kwargs: dict[str, Any] = {}
    for a in ns.assignments:
        if "=" not in a:
            print(f"error: expected key=value, got {a!r}\n{bound.id} needs:\n{_needs(params)}", file=sys.stderr)
            return 2
        key, text = a.split("=", 1)
        if key in RENAMED_PARAMS and key not in by_name and RENAMED_PARAMS[key] in by_name:
            print(f"warning: parameter {key!r} is deprecated, use {RENAMED_PARAMS[key]!r}", file=sys.stderr)
            key = RENAMED_PARAMS[key]
        try:
            check_param_names(bound.id, params, [key])
        except TypeError as exc:
            print(f"error: {exc}\n{bound.id} needs:\n{_needs(params)}", file=sys.stderr)
            return 2
        if key in kwargs:
            print(f"error: {key} given twice ({key}={kwargs[key]!r} and {a!r}); give each parameter once",
                  file=sys.stderr)
            return 2
        try:
            kwargs[key] = _parse_value(by_name[key], text)
        except ValueError as exc:
            print(f"error: invalid value for {key}: {exc}\n{bound.id} needs:\n{_needs(params)}", file=sys.stderr)
            return 2
    missing = [p.name for p in params if p.required and p.name not in kwargs]
    if missing:
        print(f"error: missing parameter(s) {', '.join(missing)}\n{bound.id} needs:\n{_needs(params)}",
              file=sys.stderr)
        return 2
    try:
        value = _call(bound.id, params, func, kwargs)
    except ConditionNotMet as exc:
        if ns.json:
            print(json.dumps({"id": bound.id, "params": kwargs, "valid": False, "reason": str(exc)}))
        else:
            print(f"hypothesis not met: {exc}", file=sys.stderr)
        return 1
    except (TypeError, ValueError, ArithmeticError) as exc:  # BoundOverflowError is a ValueError
        print(f"error: {exc}\n{bound.id} needs:\n{_needs(params)}", file=sys.stderr)
        return 2
    latex = None
    if ns.latex:
        latex = _latex(bound.expr()) if bound.expr is not None else None
    form = kwargs.get("form", next((p.default for p in params if p.name == "form"), None))
    notes = _transform_notes(kwargs, value)
    if ns.json:
        out: dict[str, Any] = {"id": bound.id, "params": kwargs, "value": to_jsonable(value)}
        if form is not None:
            out["form"] = form
        if notes:
            out["notes"] = notes
        if ns.solve:
            out["solved_for"] = ns.solve
        if ns.latex:
            out["latex"] = latex
        print(json.dumps(out))
        return 0
    label = ns.solve if ns.solve else "value"
    print(f"{bound.id}: {label} = {to_jsonable(value)}" + (f"  [form: {form}]" if form is not None else ""))
    for note in notes:
        print(f"note: {note}")
    if ns.latex:
        if latex is None:
            print("(no sympy form for this bound)")
        elif isinstance(latex, dict):
            for k, v in latex.items():
                print(f"{k} = {v}")
        else:
            print(latex)
    return 0

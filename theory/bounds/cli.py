"""``python -m semiprivate bound``: list, evaluate, solve or print a bound of the four papers.

Usage::

    python -m semiprivate bound --list
    python -m semiprivate bound ID key=value ... [--solve NAME] [--latex] [--json]
    python -m semiprivate bound ID --help          # what the bound needs

Exit status: 0 on success, 2 for a usage error (unknown id, missing / unknown / repeated /
invalid parameter, a value beyond what the float formulas can evaluate: the message lists what
the bound needs), 1 when the theorem's hypotheses do not hold for the given parameters
(ConditionNotMet).  A user error never prints a traceback.

Notes after the value, read from the result itself: when its alpha / beta is the output learner's
(a theorem that maps an (alpha, beta) learner to an (11 alpha, 2 beta) one says so in the result's
``alpha_factor`` / ``beta_factor``), and when it is vacuous (a sample size >= 10^30 examples, an
error or failure probability bound >= 1: the result's ``vacuous`` / ``reason``).  ``--json`` puts
the same notes under ``"notes"`` and ``"vacuous": true`` at the top level.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from semiprivate.theory.bounds._core import VACUOUS_SIZE, short_int  # VACUOUS_SIZE re-exported: the notes' threshold

SUMMARY = "evaluate, solve or print a bound (ABM19, BNS15, HPSY, PILLAR, classic)"

__all__ = ["SUMMARY", "VACUOUS_SIZE", "main", "to_jsonable"]


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
    from semiprivate.validation import Options

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


def _transform_notes(value: Any) -> list[str]:
    """The result's own word on what it is: an accuracy / confidence the theorem transforms
    (``alpha_factor`` / ``beta_factor`` of a learner it builds) and vacuity (``vacuous`` / ``reason``
    of its sizes and probability bounds, :func:`~semiprivate.theory.bounds._core.vacuity`)."""
    from semiprivate.theory.bounds._core import vacuity

    notes = []
    inner = getattr(value, "value", value) if hasattr(value, "valid") else value  # a Checked
    for name in ("alpha", "beta"):
        factor, got = getattr(inner, f"{name}_factor", 1.0), getattr(inner, name, None)
        if isinstance(factor, (int, float)) and factor != 1.0 and isinstance(got, (int, float)):
            notes.append(f"the result's {name} = {got:g} is the output learner's ({factor:g} x the input "
                         f"{name} = {got / factor:g}), not the {name} you gave")
    vacuous, reason = vacuity(value)
    if vacuous:
        notes.append(f"vacuous: {reason}")
    return notes


def _short_vacuous(data: Any) -> Any:
    """JSON-ready data with each vacuous sample size written short (``about 6.9e+302 (vacuous)``): its
    digits past the 16th are noise (``--json`` keeps them all)."""
    if isinstance(data, int) and not isinstance(data, bool) and getattr(data, "vacuous", False):
        return f"{short_int(data)} (vacuous)"
    if isinstance(data, dict):
        return {k: _short_vacuous(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_short_vacuous(v) for v in data]
    return data


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
    from semiprivate.theory.bounds._core import renamed_to
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
        new = renamed_to(key, by_name)
        if new is not None:
            print(f"warning: parameter {key!r} is deprecated, use {new!r}", file=sys.stderr)
            key = new
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
    notes = _transform_notes(value)
    if ns.json:
        out: dict[str, Any] = {"id": bound.id, "params": kwargs, "value": to_jsonable(value)}
        if form is not None:
            out["form"] = form
        if notes:
            out["notes"] = notes
        if any(n.startswith("vacuous:") for n in notes):
            out["vacuous"] = True
        if ns.solve:
            out["solved_for"] = ns.solve
        if ns.latex:
            out["latex"] = latex
        print(json.dumps(out))
        return 0
    label = ns.solve if ns.solve else "value"
    shown = _short_vacuous(to_jsonable(value))
    print(f"{bound.id}: {label} = {shown}" + (f"  [form: {form}]" if form is not None else ""))
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

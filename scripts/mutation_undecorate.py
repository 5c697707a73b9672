"""Rewrite decorated functions as plain definitions followed by the decoration, for mutation testing.

mutmut 3 leaves decorated functions unmutated (``@validate_params``, ``@property``, ...; only a lone
``@staticmethod`` / ``@classmethod`` is mutated).  ``scripts/mutation.sh`` runs this on the module
under test in its ``git archive`` export (never on the working tree), turning::

    @a(x)
    @b
    def f(...):
        ...

into the same definition without decorators, followed by ``f = a(x)(b(f))``, at module level and in
class bodies (``@property`` becomes ``f = property(f)``).  mutmut then wraps the body in its
trampoline and the decorators wrap the trampoline, so the validated bodies are mutated while every
call still goes through the decorators.

The semantics are those of the decorated definition except for when the decorator expressions are
evaluated (after the ``def`` instead of before it), which matters only for a decorator expression
that reads the function's own name.  Such definitions (``@p.setter def p``) are left decorated, as
are ``@overload`` stubs, lone ``@staticmethod`` / ``@classmethod`` (mutmut handles them) and
functions nested inside functions (mutmut mutates them as part of the enclosing function).

Usage: python scripts/mutation_undecorate.py FILE.py ...   (rewrites each file in place, prints the count)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import libcst as cst

_MUTMUT_HANDLES = ("staticmethod", "classmethod")


def _names(expr: cst.BaseExpression) -> set[str]:
    """Every plain name read by a decorator expression."""
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    expr.visit(_Collect())
    return found


def _is_overload(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value == "overload"
    return isinstance(expr, cst.Attribute) and expr.attr.value == "overload"


def _keep_decorated(func: cst.FunctionDef) -> bool:
    decs = func.decorators
    if not decs:
        return True
    if len(decs) == 1 and isinstance(decs[0].decorator, cst.Name) and decs[0].decorator.value in _MUTMUT_HANDLES:
        return True
    name = func.name.value
    return any(_is_overload(d.decorator) or name in _names(d.decorator) for d in decs)


def _undecorate(func: cst.FunctionDef) -> list[cst.BaseStatement]:
    """``def f`` without decorators, then ``f = outer(...(inner(f)))``."""
    name = func.name.value
    value: cst.BaseExpression = cst.Name(name)
    for dec in reversed(func.decorators):  # the innermost decorator is applied first
        value = cst.Call(func=dec.decorator, args=[cst.Arg(value)])
    assign = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=value)])
    # the decorators' leading comments and blank lines stay in front of the definition
    lead = list(func.leading_lines)
    for dec in func.decorators:
        lead.extend(dec.leading_lines)
    return [func.with_changes(decorators=[], leading_lines=lead), assign]


def _rewrite_body(body: Sequence[cst.BaseStatement]) -> tuple[list[cst.BaseStatement], int]:
    out: list[cst.BaseStatement] = []
    count = 0
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and not _keep_decorated(stmt):
            out.extend(_undecorate(stmt))
            count += 1
        elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            inner, n = _rewrite_body(stmt.body.body)
            out.append(stmt.with_changes(body=stmt.body.with_changes(body=inner)))
            count += n
        else:
            out.append(stmt)
    return out, count


def undecorate_source(source: str) -> tuple[str, int]:
    """The rewritten source and the number of definitions rewritten."""
    module = cst.parse_module(source)
    body, count = _rewrite_body(module.body)
    return module.with_changes(body=body).code, count


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for arg in argv:
        path = Path(arg)
        code, count = undecorate_source(path.read_text())
        path.write_text(code)
        print(f"{arg}: {count} decorated definitions rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

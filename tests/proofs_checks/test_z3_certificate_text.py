"""z3 certificates print a problem the same way whatever z3 ran before in the process.

z3 names let-bound subterms after its internal AST ids (``?x7``, ``$x44``), which depend on every term
created earlier in the process; the certificate text renames them by first appearance.
"""

from __future__ import annotations

import re

import z3
from semiprivate.proofs_checks._framework import _canonical_smt2


def _problem_text() -> str:
    x, y = z3.Reals("x y")
    shared = (x + y) * (x + y)  # a shared subterm: z3 prints it through let-bound names
    s = z3.Solver()
    s.add(x > 0, y > 0, shared + shared > 1)
    s.add(z3.Not(shared * shared + shared > 0))
    return s.to_smt2()


def test_let_bound_names_are_numbered_from_zero_by_first_appearance() -> None:
    for _ in range(3):
        z3.Real("unrelated") * 7 > 2  # noqa: B015  (other z3 work moves z3's ids on)
        raw = _problem_text()
        assert re.search(r"\?x\d+", raw)  # the problem does print let-bound names
        names = list(dict.fromkeys(re.findall(r"[$?]x\d+", _canonical_smt2(raw))))
        assert names == [f"?x{i}" for i in range(len(names))]


def test_renumbering_keeps_distinct_names_distinct() -> None:
    text = "(let (($x44 (f ?x12)) ($x7 (g ?x12 ?x3))) (and $x44 $x7 $x44))"
    assert _canonical_smt2(text) == "(let (($x0 (f ?x0)) ($x1 (g ?x0 ?x1))) (and $x0 $x1 $x0))"

"""z3 certificates print the same problem the same way, whatever z3 ran before in the process."""

from __future__ import annotations

import z3
from semiprivate.proofs_checks._framework import _canonical_smt2


def _problem_text() -> str:
    x, y = z3.Reals("x y")
    shared = (x + y) * (x + y)  # a shared subterm: z3 prints it through let-bound names
    s = z3.Solver()
    s.add(x > 0, y > 0, shared + shared > 1)
    s.add(z3.Not(shared * shared + shared > 0))
    return s.to_smt2()


def _other_z3_work() -> None:
    for i in range(20):
        a = z3.Real(f"a{i}")
        t = (a + i) * (a + i)
        s = z3.Solver()
        s.add(t + t > i)
        s.to_smt2()


def test_let_bound_names_are_renumbered_by_first_appearance() -> None:
    first = _problem_text()
    _other_z3_work()
    second = _problem_text()
    assert first != second  # z3's own names moved on (the case the certificates must survive)
    assert _canonical_smt2(first) == _canonical_smt2(second)
    assert "$x0" in _canonical_smt2(first) or "?x0" in _canonical_smt2(first)


def test_renumbering_keeps_distinct_names_distinct() -> None:
    text = "(let (($x44 (f ?x12)) ($x7 (g ?x12 ?x3))) (and $x44 $x7 $x44))"
    assert _canonical_smt2(text) == "(let (($x0 (f ?x0)) ($x1 (g ?x0 ?x1))) (and $x0 $x1 $x0))"

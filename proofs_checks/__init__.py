"""Machine checks of the algebra and probability steps of the four seed papers.

Each module re-derives the steps of one SPEC item (HPSY Lem 2 / Thm 1-3, ABM19 Lem 3.3 / Lem 4.4 /
Thm 4.1, BNS15 Obs 3.2, Cl 4.2, Lem 4.1, Lem 4.6 (Cl 4.3/4.5), Cl 4.8, Cl 4.9, Cl 4.11, Thm 5.6,
Cl 5.7, Prop A.1) and returns :class:`Check` records with a :class:`Verdict`: HOLDS, HOLDS WITH
CONDITION (the condition is stated) or FAILS (with a concrete counterexample and, where one
could be derived, a corrected statement). ``python -m semiprivate.proofs_checks`` prints the table and
writes ``proofs_checks/REPORT.md``.

Implements: the ``proofs_checks`` part of every SPEC item with algebra to check.

Examples
--------
>>> from semiprivate.proofs_checks import get_check
>>> get_check("ABM19.Lem4.4.confidence").verdict.value
'FAILS'
"""

from __future__ import annotations

from semiprivate.proofs_checks._framework import CannotDecide, Check, Verdict, registry
from semiprivate.proofs_checks.expected import EXPECTED
from semiprivate.proofs_checks.report import Outcome, render_markdown, render_table, run_all, write_report

__all__ = ["Check", "Verdict", "CannotDecide", "EXPECTED", "Outcome", "registry", "run_all", "get_check",
           "render_table", "render_markdown", "write_report"]


def get_check(check_id: str) -> Check:
    """Run one registered check by id and return its record.

    Parameters
    ----------
    check_id : str
        A registered id such as ``"HPSY.Lem2.quadratic"``.

    Returns
    -------
    Check

    Raises
    ------
    KeyError
        If no check has that id.
    """
    reg = registry()
    if check_id not in reg:
        raise KeyError(f"no check with id {check_id!r}")
    return reg[check_id]()

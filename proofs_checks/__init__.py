"""Machine checks of the algebra and probability steps of the four seed papers.

Each module re-derives the steps of one SPEC item (HPSY Lem 1, Lem 2, Thm 1-3; ABM19 Lem 3.3, Lem 4.4,
Thm 4.1, Thm 4.2; BNS15 Obs 3.2, Cl 4.2, Cl 4.3, Lem 4.1, Lem 4.6, Cl 4.8, Cl 4.9, Cl 4.11, Lem 4.12,
Thm 4.13, Thm 4.14, Thm 5.6, Cl 5.7, Thm 5.8, Prop A.1). A check returns the :class:`Fact` records
it established -- proofs and counterexamples with certificates (sympy identities and signs, z3
proofs, interval branch-and-bound, exact or interval evaluations), citations, and observations
(grids, hypothesis searches, simulations, which never count towards HOLDS) -- and its
:class:`Verdict` is derived from them by :func:`derive_verdict`: HOLDS, HOLDS WITH CONDITION (the
condition of the proving facts is stated) or FAILS (a certified counterexample, with a corrected
statement where one could be derived). ``python -m semiprivate.proofs_checks`` prints the table and
writes ``proofs_checks/REPORT.md``; ``--certificates`` writes every certificate as JSON under
``proofs_checks/certificates/``, which :mod:`semiprivate.proofs_checks.certificate_checker`
re-checks independently (``--recheck``).

Implements: the ``proofs_checks`` part of every SPEC item with algebra to check.

Examples
--------
>>> from semiprivate.proofs_checks import get_check
>>> get_check("ABM19.Lem4.4.confidence").verdict.value
'FAILS'
"""

from __future__ import annotations

from semiprivate.proofs_checks._framework import CannotDecide, Check, Fact, Role, Verdict, derive_verdict, registry
from semiprivate.proofs_checks.expected import EXPECTED
from semiprivate.proofs_checks.report import Outcome, render_markdown, render_table, run_all, write_report

__all__ = ["Check", "Fact", "Role", "Verdict", "derive_verdict", "CannotDecide", "EXPECTED", "Outcome", "registry", "run_all", "get_check",
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

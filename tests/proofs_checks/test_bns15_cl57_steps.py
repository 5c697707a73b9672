"""BNS15 Cl 5.7: the statement needs t >= (n/eps)(3 + e^{2eps*}), and the single-entry mechanism is rebuilt by a
linear programme."""

from __future__ import annotations

import math

import pytest
from semiprivate.proofs_checks import run_all


def test_cl57_statement_needs_t_at_least_n() -> None:
    from semiprivate.proofs_checks import bns15_cl5_7

    rec = {o.id: o.check for o in run_all()}["BNS15.Cl5.7.statement"]
    assert rec is not None
    assert bns15_cl5_7.STATEMENT_CONDITION is not None and "3 + e^{2eps*}" in bns15_cl5_7.STATEMENT_CONDITION
    assert any(f.condition == bns15_cl5_7.STATEMENT_CONDITION for f in rec.facts)


def test_cl57_mechanism_is_rebuilt_by_a_linear_programme() -> None:
    from semiprivate.proofs_checks.bns15_cl5_7 import single_entry_lp_ratio

    ratio, where = single_entry_lp_ratio()
    assert 1 + (2 / 3) * (math.e - 1) < ratio <= 1 + (2 / 3) * (math.e**2 - 1)
    assert ratio == pytest.approx(2.3541, abs=1e-3) and "D =" in where

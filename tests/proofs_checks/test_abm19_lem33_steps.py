"""ABM19 Lem 3.3: the small-n counterexample asserts the exact probability it reports."""

from __future__ import annotations

import pytest
from semiprivate.proofs_checks import get_check


def test_small_n_asserts_its_probability(monkeypatch: pytest.MonkeyPatch) -> None:
    from fractions import Fraction

    from semiprivate.proofs_checks import abm19_lem3_3

    assert abm19_lem3_3.prob_not_cover_all_functions(10, 0.05) == 1
    monkeypatch.setattr(abm19_lem3_3, "prob_not_cover_all_functions", lambda d, a: Fraction(1, 2))
    with pytest.raises(RuntimeError, match="P\\[H~ not an alpha-cover\\] = 1"):
        get_check("ABM19.Lem3.3.small-n")

"""HPSY Thm 3's corrected unlabelled size: Markov at alpha/2 (proofs_checks HPSY.Thm3.n_unl)."""

from __future__ import annotations

import pytest
from semiprivate.theory.bounds.hpsy import hpsy_thm3_unlabeled


def test_corrected_size_uses_alpha() -> None:
    # 64 c1^2 k d/(beta alpha^2 gamma^4) at k = 5, d = 100, beta = 0.1, gamma = 0.5, alpha = 0.01
    assert hpsy_thm3_unlabeled(5, 100, 0.1, 0.5, alpha=0.01, form="corrected") == 51_200_000_000
    assert hpsy_thm3_unlabeled(5, 100, 0.1, 0.5, alpha=0.02, form="corrected") == 12_800_000_000
    assert hpsy_thm3_unlabeled(5, 100, 0.1, 0.5) == 20_000  # the paper's form stays the default (not refuted)


@pytest.mark.parametrize("alpha", [None, 0.0, 1.0, -0.1, True, "0.1"])
def test_corrected_size_needs_alpha_in_0_1(alpha: object) -> None:
    with pytest.raises(ValueError, match="alpha"):
        hpsy_thm3_unlabeled(5, 100, 0.1, 0.5, alpha=alpha, form="corrected")  # type: ignore[arg-type]

"""The referee's items on the HPSY Thm 3, ABM19 Lem 3.3 and BNS15 Cl 5.7 checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.proofs_checks import Verdict, get_check


def test_chebyshev_step_is_unproved_while_its_citations_carry_its_conjuncts() -> None:
    """Each conjunct of (9)-(10) is the conclusion of a cited step (Markov, the Frobenius/Chebyshev argument):
    nothing of it is certified, so it is not HOLDS GIVEN."""
    rec = get_check("HPSY.Thm3.chebyshev-arithmetic")
    assert rec.verdict is Verdict.UNPROVED
    assert any("carries (part of) the claim" in r for r in rec.open_reasons)


def test_union_over_a_corrected_bound_is_sqrt_d_minus_k() -> None:
    from semiprivate.proofs_checks.hpsy_thm3 import unit_ball_frobenius_example

    rec = get_check("HPSY.Thm3.union-over-A")
    assert rec.corrected is not None and "sqrt(d-k)" in rec.corrected and "k ||Sigma_hat" not in rec.corrected
    ex = unit_ball_frobenius_example()
    assert ex["dev"] ** 2 > ex["k"] ** 2 * ex["k_frob_sq"]  # k ||E||_F fails on the unit ball
    assert ex["dev"] ** 2 <= ex["sqrt_dmk_frob_sq"]


def test_sqrt_d_minus_k_frobenius_bounds_the_deviation_on_the_unit_ball() -> None:
    """sup_A |R(A) - R_hat(A)| = max |sum of d-k extreme eigenvalues of Sigma - Sigma_hat| <= sqrt(d-k)||.||_F,
    while k ||.||_F is exceeded in a sizeable fraction of seeded unit-ball samples (deterministic: fixed seed)."""
    rng = np.random.default_rng(3)
    exceed_k = 0
    for _ in range(300):
        d, k, n = 6, 1, 5
        pop = rng.standard_normal((40, d)) * rng.uniform(0, 1, (40, 1))
        pop /= np.maximum(1.0, np.linalg.norm(pop, axis=1, keepdims=True))
        sigma = pop.T @ pop / len(pop)
        x = pop[rng.integers(0, len(pop), n)]
        e = sigma - x.T @ x / n
        ev = np.sort(np.linalg.eigvalsh(e))
        sup = max(abs(ev[: d - k].sum()), abs(ev[k:].sum()))  # sup over rank-(d-k) projections of tr(P E)
        frob = float(np.linalg.norm(e))
        assert sup <= math.sqrt(d - k) * frob + 1e-12
        exceed_k += int(sup > k * frob)
    assert exceed_k >= 30


@pytest.mark.slow
def test_cl57_statement_needs_t_at_least_n() -> None:
    from semiprivate.proofs_checks import bns15_cl5_7

    rec = get_check("BNS15.Cl5.7.statement")
    assert bns15_cl5_7.STATEMENT_CONDITION is not None and "3 + e^{2eps*}" in bns15_cl5_7.STATEMENT_CONDITION
    assert any(f.condition == bns15_cl5_7.STATEMENT_CONDITION for f in rec.facts)


def test_cl57_mechanism_is_rebuilt_by_a_linear_programme() -> None:
    from semiprivate.proofs_checks.bns15_cl5_7 import single_entry_lp_ratio

    ratio, where = single_entry_lp_ratio()
    assert 1 + (2 / 3) * (math.e - 1) < ratio <= 1 + (2 / 3) * (math.e**2 - 1)
    assert ratio == pytest.approx(2.3541, abs=1e-3) and "D =" in where


def test_small_n_asserts_its_probability(monkeypatch: pytest.MonkeyPatch) -> None:
    from fractions import Fraction

    from semiprivate.proofs_checks import abm19_lem3_3

    assert abm19_lem3_3.prob_not_cover_all_functions(10, 0.05) == 1
    monkeypatch.setattr(abm19_lem3_3, "prob_not_cover_all_functions", lambda d, a: Fraction(1, 2))
    with pytest.raises(RuntimeError, match="P\\[H~ not an alpha-cover\\] = 1"):
        get_check("ABM19.Lem3.3.small-n")


def test_centring_asserts_its_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.proofs_checks import hpsy_thm3

    monkeypatch.setattr(hpsy_thm3, "clopper_pearson", lambda k, n, c: (0.0, 1.0))
    with pytest.raises(RuntimeError, match="centring counterexample"):
        get_check("HPSY.Thm3.centring")

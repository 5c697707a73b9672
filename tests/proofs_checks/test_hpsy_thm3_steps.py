"""The HPSY Thm 3 steps: the chebyshev step rests on citations, the union over A needs sqrt(d-k) (not k), and the
centring counterexample is asserted from its simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.proofs_checks import Verdict, get_check


def test_chebyshev_step_holds_given_its_citations_and_leaves_markov_out() -> None:
    """Eq. (10) is a chain: one certified step and three citations, none of which carries the claim alone (Chebyshev
    is an instance of the table's entry); Markov's Eq. (9), carried by its citation alone, is not in the formal
    claim."""
    rec = get_check("HPSY.Thm3.chebyshev-arithmetic")
    assert rec.verdict is Verdict.HOLDS_GIVEN, rec.open_reasons
    assert rec.proof is not None and "P_xi1" not in str(rec.proof.claim.conclusion)
    assert any(s.get("standard") == "Chebyshev" for s in rec.proof.steps)
    assert rec.steps == (4, 1, 3)


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


def test_centring_asserts_its_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.proofs_checks import hpsy_thm3

    monkeypatch.setattr(hpsy_thm3, "clopper_pearson", lambda k, n, c: (0.0, 1.0))
    with pytest.raises(RuntimeError, match="centring counterexample"):
        get_check("HPSY.Thm3.centring")

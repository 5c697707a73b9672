"""Paper-specific checks of semiprivate.theory.bounds: constants, hypotheses (validity rule), transformers.

All deterministic.  Numbers that appear here are recomputed by hand from the papers'
statements (comments give the arithmetic), so a changed constant fails a test.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from semiprivate.theory.bounds import abm19, bns15, classic, hpsy, pillar, privacy
from semiprivate.theory.bounds.compare import compare_halfspace_labelled, halfspace_labelled_curves
from semiprivate.theory.validity import Checked, ConditionNotMet

# --------------------------------------------------------------------------- ABM19


def test_abm19_lemma_3_3_value_by_hand() -> None:
    n, d, a = 5000, 3, 0.1
    by_hand = 2 * (2 * math.e * n / d) ** (2 * d) * math.exp(-a * n / 4)
    assert math.isclose(abm19.abm19_cover_failure_probability(n, d, a), by_hand, rel_tol=1e-12)


def test_abm19_lemma_3_3_hypothesis_and_strict_false() -> None:
    with pytest.raises(ConditionNotMet, match="ABM19.Lem3.3"):
        abm19.abm19_cover_failure_probability(2, 10, 0.1)
    c = abm19.abm19_cover_failure_probability(2, 10, 0.1, strict=False)
    assert isinstance(c, Checked) and not c.valid and "2*n_pub >= vc_dim" in c.reason
    ok = abm19.abm19_cover_failure_probability(100, 10, 0.1, strict=False)
    assert ok.valid and ok.unwrap() == abm19.abm19_cover_failure_probability(100, 10, 0.1)


def test_abm19_overflow_is_inf_with_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match="overflows"):
        assert abm19.abm19_cover_failure_probability(10**6, 1000, 0.001) == math.inf


def test_abm19_exact_public_size_vs_o_form() -> None:
    # the exact solve is much larger than the O-form with constant 1 (the constant is ~ 20 here)
    exact = abm19.abm19_public_sample_size(10, 0.05, 0.01)
    oform = abm19.abm19_public_sample_size_oform(10, 0.05, 0.01)
    assert exact == 14815 and oform == 692


def test_abm19_lemma_4_4_and_lower_bound() -> None:
    r = abm19.abm19_public_data_reduction(0.001, 5000, 2, 1.0, 1e-6)
    assert (r.alpha, r.beta, r.n, r.delta) == (pytest.approx(0.2), 1 / 16, 250, 1e-6)
    with pytest.raises(ConditionNotMet, match="alpha <= 1/100"):
        abm19.abm19_public_data_reduction(0.02, 5000, 2, 1.0)
    # n_pub > 1/(1600 alpha): alpha = 1/16000 -> 1/(1600 alpha) = 10 -> smallest n_pub is 11 (strict)
    assert abm19.abm19_public_lower_bound(1 / 16000) == 11
    assert abm19.abm19_public_lower_bound(0.5) == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, None])
def test_invalid_integer_inputs_raise_naming_the_parameter(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="d"):
        abm19.abm19_public_sample_size(bad, 0.1, 0.1)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, math.nan, "0.1"])
def test_invalid_probabilities_raise(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="alpha"):
        abm19.abm19_private_sample_size(10, bad, 0.1, 1.0)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- BNS15


def test_claim_4_9_base_case_equals_the_initial_size() -> None:
    # alpha_1 = alpha/20, beta_1 = beta/8: 4800/alpha_1 log(14/(alpha_1 beta_1)) = 96000/alpha log(2240/(alpha beta))
    for vc, a, b in [(1, 0.1, 0.1), (5, 0.01, 0.3), (20, 0.3, 1e-4)]:
        assert bns15.bns15_labelboost_iteration_size(vc, a, b, 1) == bns15.bns15_labelboost_labeled_size(vc, a, b)


def test_claim_4_11_sums() -> None:
    for i in (1, 2, 5, 30):
        err, fail = bns15.bns15_labelboost_error_after(0.2, 0.1, i)
        assert err == pytest.approx(0.2 * (1 - 2.0**-i)) and fail == pytest.approx(0.05 * (1 - 2.0**-i))
        assert err < 0.2 and fail < 0.05  # Lemma 4.12 uses 10 sum alpha_i <= alpha, 2 sum beta_i <= beta/2


def test_claim_4_2_condition() -> None:
    with pytest.raises(ConditionNotMet, match="BNS15.Cl4.2"):
        bns15.bns15_labelboost_max_unlabeled(10, 5, 0.1, 0.1)
    assert bns15.bns15_labelboost_min_labeled(0, 1, 0.5, 0.5) >= 1


def test_labelboost_schedule_uses_at_most_90000n() -> None:
    m = bns15.bns15_labelboost_labeled_size(1, 0.1, 0.1)
    its = bns15.bns15_labelboost_schedule(10**6, m, 1, 0.1, 0.1)
    assert sum(it.v for it in its) <= bns15.bns15_labelboost_unlabeled_size(10**6)
    assert its[-1].s_after >= 300 * 10**6
    stalled = bns15.bns15_labelboost_schedule(10**6, 10, 1, 0.1, 0.1, strict=False)
    assert not stalled.valid and "progress" in stalled.reason


def test_theorem_5_6_explicit_constant() -> None:
    # delta = 0: m >= e^{-2 eps} (1 - 25 beta/9) / (9 alpha)
    a, b, e = 0.001, 0.1, 0.1
    assert bns15.bns15_tpal_threshold_lower_bound(a, b, e) == math.ceil(math.exp(-0.2) * (1 - 25 * b / 9) / (9 * a))
    with pytest.raises(ConditionNotMet, match="alpha <= 1/9"):
        bns15.bns15_tpal_threshold_lower_bound(0.2, 0.1, 0.1)
    with pytest.raises(ConditionNotMet, match="beta <= 1/4"):
        bns15.bns15_tpal_threshold_lower_bound(0.1, 0.3, 0.1)
    with pytest.raises(ConditionNotMet, match="n > 0"):
        bns15.bns15_tpal_threshold_lower_bound(0.1, 0.1, 0.1, 1e-6)
    assert bns15.bns15_tpal_threshold_lower_bound(0.001, 0.1, 0.1, 1e-3, 10**6) == 0  # delta term dominates


def test_theorem_4_13_and_4_14_explicit() -> None:
    r = bns15.bns15_thm4_13(1, 0.01, 0.1, 1e-6, 1000)
    assert r.epsilon == 1.0 and r.delta == pytest.approx(41e-6) and r.alpha == pytest.approx(0.11)
    x = bns15.bns15_thm4_14_explicit(1, 0.01, 0.1, 0.5, 1e-6, 1000)
    assert x.epsilon == 0.5 and x.delta == pytest.approx(4 * 0.5 / (3 + math.e) * 41e-6)
    with pytest.raises(ConditionNotMet, match="epsilon <= 1"):
        bns15.bns15_thm4_14_explicit(1, 0.01, 0.1, 2.0, 1e-6, 1000)


def test_log_star_and_rectangles() -> None:
    assert [bns15.log_star(x) for x in (1, 2, 3, 4, 5, 16, 17, 65536, 2**64)] == [0, 1, 2, 2, 3, 3, 4, 4, 5]
    unl, lab = bns15.bns15_rectangles(3, 2**16, 0.1, 0.1, 1.0)
    assert unl == 27 * 8 ** bns15.log_star(2**16)
    assert lab == bns15.bns15_thm4_14_labeled(6, 0.1, 0.1, 1.0)


# --------------------------------------------------------------------------- privacy transformers


def test_subsampling_claim_4_3() -> None:
    r = privacy.subsampling_privacy(100, 4.0, 1e-6, 1.0)
    assert r.t == math.ceil(100 * (3 + math.exp(4)))
    assert r.delta == pytest.approx(4 / (3 + math.exp(4)) * 1e-6)
    with pytest.raises(ConditionNotMet, match="epsilon <= 1"):
        privacy.subsampling_privacy(100, 4.0, 1e-6, 1.5)


def test_lemma_4_6_chain_within_41_delta_and_paper_steps() -> None:
    r = privacy.labelboost_privacy(1e-6, iterations=20)
    assert r.holds and r.epsilon == 1.0 and r.claimed_delta == pytest.approx(41e-6)
    assert max(r.steps) <= 41e-6
    # the paper's own arithmetic: 4e * 41 delta <= 446 delta, and 4/(3+e^4) * 446 delta <= 41 delta
    lb = privacy.label_boost_procedure_privacy(1.0, 41e-6)
    assert lb.epsilon == 4.0 and lb.delta <= 446e-6
    assert privacy.subsampling_privacy(1, 4.0, 446e-6, 1.0).delta <= 41e-6
    # base step: Cl 4.5 then Cl 4.3 with eps* = ln 244
    base = privacy.iid_resampling_privacy(1.0, 1e-6)
    assert privacy.subsampling_privacy(1, base.epsilon, base.delta, 1.0).delta == pytest.approx(r.steps[0])


def test_lemma_4_6_fails_when_the_subsampling_ratio_is_too_small() -> None:
    assert not privacy.labelboost_privacy(1e-6, 2, base_ratio=200).holds  # needs 300 >= 247
    assert not privacy.labelboost_privacy(1e-6, 2, iteration_ratio=50).holds  # needs 100 >= 57.6


def test_claim_4_5_and_lemma_4_1_constants() -> None:
    assert privacy.iid_resampling_privacy(0.5, 1e-6) == (pytest.approx(math.log(244)), pytest.approx(2467e-6))
    assert privacy.label_boost_procedure_privacy(0.5, 1e-6) == (3.5, pytest.approx(4 * math.e * 1e-6))
    # Lemma 4.6 base step by hand: 4/(3 + 244) * 2467 = 39.951...
    assert privacy.labelboost_privacy(1e-6).steps[0] == pytest.approx(4 * 2467 / 247 * 1e-6)


def test_claim_5_7_and_4_5_conditions() -> None:
    r = privacy.active_subsampling_privacy(10, 1.0, 1e-6, 0.5)
    assert r.delta == pytest.approx((7 + math.e) / (3 + math.e**2) * 0.5 * 1e-6)
    assert r.t == math.ceil(10 / 0.5 * (3 + math.e**2))
    with pytest.raises(ConditionNotMet, match="BNS15.Cl4.5"):
        privacy.iid_resampling_privacy(2.0, 1e-6)


@given(st.floats(1e-3, 1.0), st.floats(0.0, 1e-3), st.floats(0.01, 8.0))
def test_subsampling_never_increases_delta_for_eps_le_1(eps: float, delta: float, eps_star: float) -> None:
    # 4 eps / (3 + e^{eps*}) <= 1 whenever eps <= 1
    assert privacy.subsampling_privacy(10, eps_star, delta, eps).delta <= delta * (1 + 1e-12)


# --------------------------------------------------------------------------- HPSY


def test_lemma_2_interval_is_empty_just_above_35() -> None:
    for d in (36, 37):
        lo, hi = hpsy.hpsy_lem2_beta_interval(d)
        assert lo >= hi
        with pytest.raises(ConditionNotMet):
            hpsy.hpsy_connectivity_threshold(d, (lo + hi) / 2)
    lo, hi = hpsy.hpsy_lem2_beta_interval(38)
    assert lo < hi
    assert hpsy.hpsy_lem2_min_dimension() == 38


def test_lemma_2_forms_and_hypotheses() -> None:
    st_ = hpsy.hpsy_connectivity_threshold(1000, 0.003)
    pr = hpsy.hpsy_connectivity_threshold(1000, 0.003, form="proof")
    assert st_ == pytest.approx(9 * (math.log(4 / 0.003) + 4) / 999)
    assert pr == pytest.approx((9 * math.log(4 / 0.003) + 4) / 999) and pr < st_
    with pytest.raises(ConditionNotMet, match="d > 35"):
        hpsy.hpsy_connectivity_threshold(30, 0.1)
    c = hpsy.hpsy_connectivity_threshold(1000, 0.5, strict=False)
    assert not c.valid and "beta in" in c.reason


def test_theorem_2_statement_vs_proof() -> None:
    # the proof needs the max over k-1 and d-k-1, which exceeds the statement's d-1 term
    s = hpsy.hpsy_thm2_unlabeled(1000, 500, 0.003, 0.001)
    p = hpsy.hpsy_thm2_unlabeled(1000, 500, 0.003, 0.001, form="proof")
    assert p > s
    c = hpsy.hpsy_thm2_unlabeled(1000, 500, 0.003, 0.001, form="corrected")
    assert c >= 4 * (p - 1)  # the first term is multiplied by 4 (n^+ >= n/4)
    with pytest.raises(ConditionNotMet, match="k, d > 35"):
        hpsy.hpsy_thm2_unlabeled(1000, 10, 0.003, 0.001)


@pytest.mark.parametrize("form", ["proof", "corrected"])
@pytest.mark.parametrize("k,side", [(40, "G+"), (960, "G-"), (990, "G-")])
def test_theorem_2_proof_forms_check_lemma_2_on_both_sides(form: str, k: int, side: str) -> None:
    """The proof applies Lemma 2 to G+ (k vertices) and G- (d - k) at confidence beta/4: its
    hypotheses are checked there and named when they fail (raise, or Checked with strict=False)."""
    with pytest.raises(ConditionNotMet, match=f"Lemma 2 on {side}"):
        hpsy.hpsy_thm2_unlabeled(1000, k, 0.003, 0.001, form=form)
    c = hpsy.hpsy_thm2_unlabeled(1000, k, 0.003, 0.001, form=form, strict=False)
    assert isinstance(c, Checked) and not c.valid and f"Lemma 2 on {side}" in c.reason
    assert c.details["vertices"] == (k if side == "G+" else 1000 - k)
    # the statement form does not involve G+ / G-
    assert "Lemma 2" not in (hpsy.hpsy_thm2_unlabeled(1000, k, 0.003, 0.001, strict=False).reason or "")


@given(st.integers(36, 5000), st.floats(0.01, 0.99), st.floats(1e-6, 1.0))
def test_theorem_2_lemma_2_conditions_follow_from_the_others(d: int, kfrac: float, bfrac: float) -> None:
    """Documented: 9 log(16/beta) + 4 < min(k-1, d-k-1) and beta < 4/d imply Lemma 2's
    hypotheses on G+ and G- at beta/4, so the added checks change no verdict, only the reason."""
    k = max(1, min(d - 1, int(kfrac * d)))
    beta = bfrac * 4 / d * (1 - 1e-9)
    r = hpsy.hpsy_thm2_unlabeled(d, k, beta, 0.001, form="proof", strict=False)
    c = 9 * math.log(16 / beta) + 4
    old_ok = k > 35 and hpsy.hpsy_lem2_beta_interval(d)[0] < beta and c < d - 1 and c < k - 1 and c < d - k - 1
    if old_ok:
        assert r.valid, r.reason


def test_theorem_1_unlabelled_satisfies_equation_4() -> None:
    d, b, p = 50, 0.01, 0.02
    n = hpsy.hpsy_thm1_unlabeled(d, b, p)
    assert (1 - p) ** n <= b / (2 * d**2) < (1 - p) ** (n - 1)


def test_karger_and_theorem_3_conditions() -> None:
    k = hpsy.karger_cut_bound(100, 2.0, 1000.0)
    assert k.failure_probability == pytest.approx(4 / (2 * 100**2))
    with pytest.raises(ConditionNotMet, match="HPSY.Lem1"):
        hpsy.karger_cut_bound(100, 2.0, 1.0)
    with pytest.raises(ConditionNotMet, match="gamma > sqrt"):
        hpsy.hpsy_thm3_labeled(5, 0.1, 0.01, 1.0, 0.1, 0.001)  # sqrt(0.001/0.01) = 0.316 > 0.1
    with pytest.raises(ConditionNotMet, match="k <= d"):
        hpsy.hpsy_thm3_unlabeled(50, 10, 0.1, 0.5)


# --------------------------------------------------------------------------- classic, PILLAR, comparison


def test_classic_constants_by_hand() -> None:
    assert classic.realizable_sample_size(2, 0.1, 0.05) == math.ceil(80 * (2 * math.log(160) + math.log(40)))
    assert classic.pairwise_sample_size(2, 0.1, 0.05) == math.ceil(480 * (20 * math.log(480 * math.e) + math.log(100)))
    assert classic.agnostic_sample_size(2, 0.1, 0.05) == math.ceil(10000 * math.log(200))
    assert classic.vc_lower_bound(17, 0.01, 0.1) == 100
    with pytest.raises(ConditionNotMet, match="beta < 1/2"):
        classic.vc_lower_bound(17, 0.01, 0.6)
    assert classic.sauer_bound(10, 2) == pytest.approx((math.e * 5) ** 2)
    with pytest.raises(ConditionNotMet, match="VC"):
        classic.sauer_bound(2, 2)


def test_bst14_noise_and_excess() -> None:
    s = pillar.bst14_noise_scale(100, 2.0, 0.5, 1e-6)
    assert s**2 == pytest.approx(32 * 4 * 100**2 * math.log(1e8) * math.log(1e6) / 0.25)
    # the explicit (reconstructed) bound is O(the BST14 rate): ratio bounded over a range of n
    ratios = [pillar.bst14_excess_risk_explicit(n, 10, 1.0, 1.0, 1.0, 1e-6)
              / pillar.bst14_excess_risk(n, 10, 1.0, 1.0, 1.0, 1e-6) for n in (10, 10**3, 10**5, 10**7)]
    assert max(ratios) / min(ratios) < 3
    assert pillar.pillar_cor6_labeled(0.1, 1.0, 0.5) == pillar.pillar_labeled(2, 0.1, 1.0, 0.5)


def test_comparison_table() -> None:
    t = compare_halfspace_labelled(1000, 5, 0.3, 1e-4, 0.1, 0.1, 1.0, 1e-5)
    assert [r.n_lab for r in t.rows] == [
        math.ceil(math.sqrt(5) / (0.1 * (0.3 - math.sqrt(1e-3)))),
        math.ceil(math.sqrt(1000) / 0.1), 10000, math.ceil(1 / (0.1 * 0.09))]
    assert t.best().bound_id == "HPSY.Thm3.n_lab"
    assert "| HPSY Thm 3" in t.to_markdown() and len(t.to_dicts()) == 4
    bad = compare_halfspace_labelled(1000, 5, 0.05, 1e-2, 0.1, 0.1, 1.0)
    assert not bad.rows[0].valid and bad.rows[0].n_lab is None and bad.best().bound_id != "HPSY.Thm3.n_lab"
    curves = halfspace_labelled_curves([10, 1000], 5, 0.3, 1e-4, 0.1, 0.1, 1.0)
    assert curves["ABM19 (generic)"] == [100, 10000]

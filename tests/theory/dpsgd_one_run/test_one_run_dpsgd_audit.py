"""DP-SGD audited in one training run ([SNJ23]): the correct trainer passes; skipped clipping and halved noise are
flagged in one run.

Stated false-failure rate: every audit runs at confidence 0.95 (beta = 0.05), so a correct DP-SGD is flagged with
probability at most 0.05 per run (the one-run theorem); the tests use fixed seeds.  The claims are DP-SGD's own
reports (``DPSGDResult.epsilon``) of the configured noise, never constants.  Power: measured flag rates over seeds
are in benchmarks/RESULTS.md (noise halved at m = 1e6: every seed flagged).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ks_2samp
from semiprivate.theory.dpsgd_one_run import (
    audit_delta,
    claim_covers_replacement,
    compare_with_many_runs,
    one_run_dpsgd,
)
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier
from semiprivate.theory.privacy.dpsgd import dp_sgd

DELTA = 1e-5


def _sigma(eps: float) -> float:
    return float(calibrate_noise_multiplier(eps, DELTA, 1.0, 1, relation="add_or_remove_one"))


def _report(sigma: float, delta: float) -> float:
    """DP-SGD's own add/remove-one report for one full-batch step at this noise (the claim the audit must use)."""
    return dp_sgd(np.ones((1, 1)), [1], noise_multiplier=sigma, sampling_rate=1.0, steps=1,
                  rng=0).epsilon(delta, relation="add_or_remove_one")


def test_correct_dpsgd_passes_and_its_claim_is_dpsgds_report() -> None:
    sigma = _sigma(2.0)
    res = one_run_dpsgd(2000, noise_multiplier=sigma, steps=1, delta=DELTA, rng=0)
    assert res.claimed_epsilon == pytest.approx(_report(sigma, DELTA), rel=1e-12)
    assert not res.violation and 0 <= res.epsilon_lower_bound < res.claimed_epsilon
    assert 900 < res.included < 1100 and res.scores.shape == (2000,) and res.membership.sum() == res.included


@pytest.mark.parametrize("variant", ["correct", "noise_halved", "clipping_skipped"])
def test_one_run_with_a_million_canaries_flags_exactly_the_broken_trainers(variant: str) -> None:
    """m = 1e6 Dirac canaries (one weight each, the factorized layout), noise calibrated to eps 2 at delta 1e-5,
    audit at delta 0.01 / m = 1e-8 against DP-SGD's report there.  Halving the noise doubles each canary's shift
    (true eps about twice the claim): flagged.  Canary gradients of norm 20 C unclipped: flagged."""
    sigma = _sigma(2.0)
    res = one_run_dpsgd(1_000_000, noise_multiplier=sigma, steps=1, variant=variant,
                        canary_norm=20.0 if variant == "clipping_skipped" else 2.0, rng=11)
    assert res.delta == audit_delta(1_000_000)
    assert res.claimed_epsilon == pytest.approx(_report(sigma, res.delta), rel=1e-12)
    assert res.violation == (variant != "correct"), res.describe()


def test_clipping_skipped_with_canaries_inside_the_clip_changes_nothing() -> None:
    """A canary whose gradient norm is below C is never clipped: the variant is then the correct trainer."""
    a = one_run_dpsgd(1000, noise_multiplier=_sigma(2.0), steps=1, delta=DELTA, canary_norm=0.5, rng=2)
    b = one_run_dpsgd(1000, noise_multiplier=_sigma(2.0), steps=1, delta=DELTA, canary_norm=0.5,
                      variant="clipping_skipped", rng=2)
    assert a.epsilon_lower_bound == pytest.approx(b.epsilon_lower_bound, abs=1e-9)


def test_joint_and_factorized_layouts_give_the_same_law() -> None:
    """The factorized canary block (one-weight runs) against the dense joint run, with several Poisson-sampled
    steps and a learning rate at which the hinge switches off after a canary's first step (the non-Gaussian
    case): two-sample KS on the included and on the absent canaries' scores, each at level 1e-3 (false-failure
    rate <= 2e-3)."""
    kw = dict(noise_multiplier=1.0, steps=3, sampling_rate=0.5, learning_rate=2000.0, delta=DELTA)
    a = one_run_dpsgd(3000, layout="joint", rng=5, **kw)
    b = one_run_dpsgd(3000, layout="factorized", rng=6, **kw)
    for side in (True, False):
        assert ks_2samp(a.scores[a.membership == side], b.scores[b.membership == side]).pvalue > 1e-3


def test_the_canary_design_follows_what_the_claim_covers() -> None:
    """A flipped canary (a replacement) is used only when the claim bounds a replacement's privacy loss."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant
    from semiprivate.theory.privacy.accounting import dpsgd_event

    sigma = _sigma(2.0)
    eps = {rel: PLDAccountant(neighboring_relation=rel).compose(dpsgd_event(sigma, 1.0, 1)).get_epsilon(DELTA)
           for rel in dp_accounting.NeighboringRelation}
    assert claim_covers_replacement(eps[dp_accounting.NeighboringRelation.REPLACE_ONE], sigma, 1.0, 1, DELTA)
    assert not claim_covers_replacement(eps[dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE], sigma, 1.0, 1, DELTA)
    covers = claim_covers_replacement(_report(sigma, DELTA), sigma, 1.0, 1, DELTA)
    res = one_run_dpsgd(1000, noise_multiplier=sigma, steps=1, delta=DELTA, rng=0)
    assert res.canary == ("flipped" if covers else "zero")
    if not covers:
        with pytest.raises(ValueError, match="canary='flipped'"):
            one_run_dpsgd(1000, noise_multiplier=sigma, steps=1, delta=DELTA, canary="flipped", rng=0)


def test_many_runs_vs_one_run_are_both_valid_and_cost_what_they_say() -> None:
    cmp = compare_with_many_runs(_sigma(2.0), m=1000, trials=2000, rng=4)
    assert cmp.one_run_runs == 1 and cmp.many_run_runs > 2 * 2000
    assert cmp.one_run_bound <= cmp.claimed_epsilon and cmp.many_run_bound <= cmp.claimed_epsilon


def test_the_claim_is_dpsgds_add_or_remove_epsilon():
    """The audited claim is DP-SGD's add/remove-one epsilon of the configured run (a canary is inserted or
    not), not the larger replace-one one, which no canary design here could reach."""
    from semiprivate.theory.privacy.accounting import dpsgd_epsilon

    r = one_run_dpsgd(200, noise_multiplier=2.0, steps=1, rng=0)
    assert r.claimed_epsilon == dpsgd_epsilon(2.0, 1.0, 1, r.delta, relation="add_or_remove_one")
    assert r.claimed_epsilon < dpsgd_epsilon(2.0, 1.0, 1, r.delta)


@pytest.mark.parametrize(("canary", "relation"), [("zero", "add/remove-one and replace-one"),
                                                   ("flipped", "replace-one")])
def test_a_violation_names_the_neighbours_it_refutes(canary: str, relation: str) -> None:
    """Flipped canaries test replaced rows only: their violation refutes the claim under replace-one, not
    add/remove-one (a zero canary, a row added or removed, tests both)."""
    from semiprivate.theory.audit.one_run import OneRunAudit
    from semiprivate.theory.dpsgd_one_run import OneRunDPSGD

    audit = OneRunAudit(3.0, 1000, 200, 190, 100, 100, 1e-5, 0.95, 1)
    res = OneRunDPSGD("noise_halved", 2.0, 1e-5, audit, 1000, 500, 1.0, 1, 1.0, 0.1, canary=canary)
    assert res.violation and res.refuted == relation
    assert res.describe().endswith(f"VIOLATION ({relation} neighbours)")
    quiet = OneRunDPSGD("correct", 4.0, 1e-5, audit, 1000, 500, 1.0, 1, 1.0, 0.1, canary=canary)
    assert not quiet.violation and quiet.describe().endswith("no violation")


@pytest.mark.parametrize(("sigma", "steps"), [(2.0, 4), (3.0, 16)])
def test_claim_covers_replacement_answers_as_the_replace_one_pld(sigma: float, steps: int) -> None:
    """At sampling rate 1 a Gaussian shortcut answers before the PLD where it can (noise sigma / sqrt(steps),
    sensitivity 2): its answer must be the PLD's on each side of the replace-one epsilon, for several steps (one
    step alone cannot tell sigma / sqrt(steps) from sigma / steps)."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant
    from semiprivate.theory.privacy.accounting import dpsgd_event

    acc = PLDAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    eps = acc.compose(dpsgd_event(sigma, 1.0, steps)).get_epsilon(DELTA)
    assert claim_covers_replacement(eps * (1 + 1e-5), sigma, 1.0, steps, DELTA)
    assert claim_covers_replacement(eps, sigma, 1.0, steps, DELTA)
    assert not claim_covers_replacement(eps * (1 - 1e-5), sigma, 1.0, steps, DELTA)
    assert not claim_covers_replacement(0.5 * eps, sigma, 1.0, steps, DELTA)


def test_claim_covers_replacement_below_rate_one_is_the_replace_one_pld_not_add_or_remove() -> None:
    """Below sampling rate 1 (no Gaussian shortcut) the PLD decides: a claim between the add/remove and the
    replace-one epsilon of the same event does not cover a replacement, the replace-one epsilon does."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant
    from semiprivate.theory.privacy.accounting import dpsgd_event

    sigma, q, steps = 8.0, 0.5, 1  # large noise: a cheap PLD grid
    rel = dp_accounting.NeighboringRelation
    rep, ar = (PLDAccountant(neighboring_relation=r).compose(dpsgd_event(sigma, q, steps)).get_epsilon(DELTA)
               for r in (rel.REPLACE_ONE, rel.ADD_OR_REMOVE_ONE))
    assert ar < rep
    assert claim_covers_replacement(rep, sigma, q, steps, DELTA)
    assert not claim_covers_replacement((ar + rep) / 2, sigma, q, steps, DELTA)

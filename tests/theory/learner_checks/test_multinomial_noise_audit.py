"""SemiPrivateMultinomial's DP-GD noise is audited end to end under replace-one, with the power to refute.

``multinomial_noise_audit`` fits the learner on 4 labelled points and on the neighbour with one label
flipped (one full-batch step from W = 0, clipping binding: the clipped sums differ by 2 clip, the
sensitivity the accountant assumes): the score margin on the replaced point is exactly Gaussian, the
Gaussian mechanism at mu = 2 / sigma with the declared noise multiplier sigma; its exact delta at the
claimed epsilon is computed and its drawn values (200 fits per dataset) tested against the declared mu (a
non-central t test at level 1e-4: a correct learner fails with probability <= 1e-4; the seed is fixed).
Power: the same check refutes the learner when ``privacy_`` reports a quarter of the epsilon that ran (the
exact part: with certainty), and when the trainer draws a quarter of its noise while reporting (and
``privacy_`` accounting) the calibrated noise multiplier (drawn mu four times the declared one: refuted
with probability 1 - 1e-15, computed from the non-central t law).
"""

from __future__ import annotations

import dataclasses

import pytest
from semiprivate.theory.learner_checks import MULTINOMIAL_AUDIT_EPSILON, REGISTRY, multinomial_noise_audit
from semiprivate.theory.learners import multinomial
from semiprivate.theory.learners._base import LABELLED
from semiprivate.theory.privacy.multinomial_dpgd import MultinomialDPGDResult


def test_registry_checks_the_multinomial_learner_remainder_and_noise_under_replace_one():
    c = REGISTRY["SemiPrivateMultinomial"]
    assert c.relation == LABELLED and c.method == "remainder + statistical" and c.slow


@pytest.mark.slow
def test_noise_audit_refutes_a_quartered_claim_and_quartered_noise(monkeypatch):
    real_epsilon = MultinomialDPGDResult.epsilon
    with monkeypatch.context() as m:
        m.setattr(MultinomialDPGDResult, "epsilon", lambda self, delta: real_epsilon(self, delta) / 4)
        bad = multinomial_noise_audit()
    assert bad.claimed[0] <= MULTINOMIAL_AUDIT_EPSILON / 4
    assert not bad.holds and bad.epsilon > bad.claimed[0]

    real_gd = multinomial.multinomial_dp_gd

    def quartered(*args, **kwargs):  # draws a quarter of the noise, reports the noise multiplier it was given
        res = real_gd(*args, **{**kwargs, "noise_multiplier": kwargs["noise_multiplier"] / 4})
        return dataclasses.replace(res, noise_multiplier=kwargs["noise_multiplier"])

    with monkeypatch.context() as m:
        m.setattr(multinomial, "multinomial_dp_gd", quartered)
        bad = multinomial_noise_audit()
    assert 0.99 * MULTINOMIAL_AUDIT_EPSILON < bad.claimed[0] <= MULTINOMIAL_AUDIT_EPSILON  # still the calibrated claim
    assert not bad.holds and bad.epsilon > bad.claimed[0]

"""The private halfspace learners' DP-SGD noise is audited end to end under replace-one.

``halfspace_noise_audit`` fits the learner on 4 labelled points and on the neighbour with one label
flipped (the replaced example's clipped gradient flips: the worst case of replace-one), one full-batch
step from w = 0, so the fitted weights are exactly Gaussian: the Gaussian mechanism at mu = 2 / sigma with
the declared noise multiplier sigma, whose exact delta at the claimed epsilon is computed, and whose drawn
states (200 fits per dataset) are tested against the declared mu (a non-central t test at level 1e-4, so a
correct learner fails with probability <= 1e-4; the seed is fixed).  Power: the same check flags the
learner when its DP-SGD runs with the noise multiplier divided by 4 while ``privacy_`` still claims the
calibrated epsilon (drawn mu four times the declared one: refuted with probability 0.99996, computed from the
non-central t law; the check before this one looked at the coin-free state only and passed it), and when
``privacy_`` reports a quarter of the epsilon that ran (the exact part: refuted with certainty).
That the correct learners pass this audit is asserted where it runs, in the registry's end-to-end check of
each learner (``test_learner_registry.py``: the same call with the same seed, not run twice).
"""

from __future__ import annotations

import pytest
from semiprivate.theory import learner_checks
from semiprivate.theory.learner_checks import REGISTRY, halfspace_noise_audit
from semiprivate.theory.learners import halfspaces


def _quartered_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    real = halfspaces.dp_sgd

    def broken(*args, **kwargs):
        return real(*args, **{**kwargs, "noise_multiplier": kwargs["noise_multiplier"] / 4})

    monkeypatch.setattr(halfspaces, "dp_sgd", broken)


def test_full_dimension_noise_audit_flags_quartered_noise(monkeypatch):
    with monkeypatch.context() as m:
        _quartered_noise(m)
        bad = halfspace_noise_audit("FullDimensionHalfspace")
    assert 0.99 < bad.claimed[0] <= 1.0  # the broken run still claims the calibrated epsilon
    assert not bad.holds and bad.epsilon > bad.claimed[0]
    # the exact part: a claim of a quarter of the epsilon that ran is refuted whatever the draws
    real = halfspaces._accounted
    monkeypatch.setattr(halfspaces, "_accounted", lambda *a: real(*a) / 4)
    bad = halfspace_noise_audit("FullDimensionHalfspace", fits=20)
    assert bad.claimed[0] <= 0.25 and not bad.holds and bad.delta > 1e-5 and bad.epsilon > 0.99


def test_gaussian_epsilon_inverts_the_analytic_gaussian_calibration():
    from semiprivate.theory.learner_checks import _gaussian_epsilon
    from semiprivate.theory.privacy.mechanisms import gaussian_sigma

    for eps, delta in ((0.5, 1e-5), (1.0, 1e-6), (4.0, 1e-5)):
        sigma = gaussian_sigma(eps, delta)  # the smallest sigma with delta(eps) <= delta (rounded up)
        assert abs(_gaussian_epsilon(1.0 / sigma, delta) - eps) < 1e-9 * eps
    assert _gaussian_epsilon(1e-6, 1e-5) == 0.0  # delta(0) = 2 Phi(mu / 2) - 1 below delta: no loss to pay


def test_bad_fits_are_refused():
    with pytest.raises(ValueError, match="fits"):
        halfspace_noise_audit("FullDimensionHalfspace", fits=10)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["SemiPrivateHalfspace", "RandomProjectionHalfspace"])
def test_projected_learners_noise_audit_flags_quartered_noise(name, monkeypatch):
    # the correct learners' audit (the same call, the same seed) is the registry's check of them:
    # tests/theory/learner_checks/test_learner_registry.py::test_check_holds_on_the_tiny_case
    _quartered_noise(monkeypatch)
    bad = halfspace_noise_audit(name)
    assert not bad.holds and bad.epsilon > bad.claimed[0]


def test_registry_audits_the_noise_of_the_private_halfspace_learners():
    for name in ("SemiPrivateHalfspace", "RandomProjectionHalfspace", "FullDimensionHalfspace"):
        assert REGISTRY[name].method == "remainder + statistical", name
    assert REGISTRY["NonPrivateHalfspace"].method == "remainder"
    with pytest.raises(ValueError, match="NonPrivateHalfspace"):
        learner_checks.halfspace_noise_audit("NonPrivateHalfspace")

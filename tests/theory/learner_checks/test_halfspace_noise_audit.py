"""The private halfspace learners' DP-SGD noise is audited end to end under replace-one.

``halfspace_noise_audit`` fits the learner on 4 labelled points and on the neighbour with one label
flipped (the replaced example's clipped gradient flips: the worst case of replace-one), and audits
the fitted ``coef_`` with the project's auditor (Clopper-Pearson lower bound at 95% confidence, so a
correct learner fails with probability <= 5%; the seed is fixed).  Power: the same check flags the
learner when its DP-SGD runs with the noise multiplier divided by 4 while ``privacy_`` still claims
the calibrated epsilon (the check before this one looked at the coin-free state only and passed it).
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
    _quartered_noise(monkeypatch)
    bad = halfspace_noise_audit("FullDimensionHalfspace")
    assert 0.99 < bad.claimed[0] <= 1.0  # the broken run still claims the calibrated epsilon
    assert not bad.holds and bad.epsilon > bad.claimed[0]


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

"""The DP-SGD audit cases (SPEC AUDIT for DPSGD) state the delta their claimed epsilon is computed at: 1e-5,
for the calibrated run and for its broken half-noise variant alike."""

from __future__ import annotations

from semiprivate.theory.privacy.sgd_audits import audit_cases


def test_dpsgd_cases_claim_their_epsilon_at_delta_1e_5():
    cases = {c["name"]: c for c in audit_cases()}
    dpsgd = [c for name, c in cases.items() if "dp_sgd" in name]
    assert len(dpsgd) == 2
    for case in dpsgd:
        assert case["delta"] == 1e-5

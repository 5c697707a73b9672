"""A mechanism's privacy claim and noise scale are derived from its parameters when it is built: reassigning a
parameter afterwards (which would leave ``privacy`` describing the old value while a call reads the new one) is
refused, for every mechanism of the module."""

from __future__ import annotations

import pytest
from semiprivate.theory.privacy import mechanisms

BUILT = {
    "LaplaceMechanism": lambda: mechanisms.LaplaceMechanism(1.0),
    "GaussianMechanism": lambda: mechanisms.GaussianMechanism(1.0, 1e-5),
    "GeometricMechanism": lambda: mechanisms.GeometricMechanism(1.0),
    "RandomizedResponse": lambda: mechanisms.RandomizedResponse(1.0, n_categories=3),
    "ReportNoisyMax": lambda: mechanisms.ReportNoisyMax(1.0),
}


def test_every_mechanism_class_is_covered():
    classes = {n for n in mechanisms.__all__ if n[0].isupper()}
    assert classes == set(BUILT)


@pytest.mark.parametrize("name", sorted(BUILT))
def test_reassigning_a_parameter_is_refused_and_the_claim_stays_true(name):
    m = BUILT[name]()
    claim = m.privacy
    for attr in [a for a in vars(m) if not a.startswith("_")]:
        with pytest.raises(AttributeError, match=f"^{name}.{attr} is fixed at construction"):
            setattr(m, attr, getattr(m, attr))
        with pytest.raises(AttributeError, match=f"^{name}.{attr} is fixed at construction"):
            delattr(m, attr)
    assert m.privacy == claim and m.epsilon == 1.0


def test_the_claim_follows_what_a_call_reads():
    m = mechanisms.GeometricMechanism(1.0)
    with pytest.raises(AttributeError):
        m.epsilon = 50.0  # the run would read 50 while privacy said (1, 0)
    out = m([0], 4000, 0)
    assert 0.3 < (out == 0).mean() < 0.65  # P[0] = (1 - e^-1) / (1 + e^-1) = 0.462 at epsilon 1, not ~1

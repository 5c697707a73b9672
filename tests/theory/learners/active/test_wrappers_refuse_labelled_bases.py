"""Wrappers whose theorem needs a base private in all its inputs refuse one private in its labelled sample only; ASSPP
is indeed not private in its public sample (the reason)."""

from __future__ import annotations

import math

import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.active import PSSLAsTPAL, SubSampling
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner

C2 = Thresholds(2)


# -- wrappers refuse a base private only in its labelled sample -------------------------
@pytest.mark.parametrize("base", [ASSPP(0.5, concept_class=C2), ComponentDisjunctionLearner(0.5)])
def test_wrappers_refuse_a_labelled_base(base):
    with pytest.raises(ValueError, match="privacy model 'all inputs'.*'labelled'"):
        PSSLAsTPAL(base, m=2)
    with pytest.raises(ValueError, match="privacy model 'all inputs'.*'labelled'"):
        SubSampling(base, n=2, m=1, epsilon=1.0)


def test_asspp_is_not_private_in_its_public_sample():
    # why the refusal: exact enumeration over one public point changing
    from semiprivate.theory.learner_checks import asspp_all_inputs  # layer 6; imported here for the old-code run

    r = asspp_all_inputs()
    assert r.epsilon == math.inf and not r.holds

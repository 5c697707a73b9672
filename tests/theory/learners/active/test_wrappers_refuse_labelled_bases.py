"""Wrappers whose theorem needs a base private in all its inputs refuse one private in its labelled sample only; ASSPP
is indeed not private in its public sample (the reason)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.active import LabelOracle, PSSLAsTPAL, SubSampling
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.exponential import GenericPrivateLearner

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


@pytest.mark.parametrize("wrap", [lambda b: PSSLAsTPAL(b, m=2), lambda b: SubSampling(b, 2, 1, 2.0)])
def test_a_base_swapped_in_after_construction_is_checked_at_fit(wrap):
    w = wrap(GenericPrivateLearner(0.1, concept_class=C2))
    w.learner = ASSPP(0.1, concept_class=C2)  # private in its labelled sample only
    pool = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    with pytest.raises(ValueError, match="labelled"):
        w.fit(pool, LabelOracle((pool < 2).astype(int)))

"""semiprivate.theory.learners.asspp (ABM19 Alg 1): constructor checks and attributes, privacy / privacy_, the cover
and error counts fit uses, and that fit samples from output_distribution (chi-square, p-value threshold 1e-4, fixed
seed: false-failure rate 1e-4).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.covers import build_cover
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.privacy.exponential import output_distribution

C = Thresholds(4)
XP, YP, XPUB = [1, 2, 12, 14, 7], [1, 1, 0, 0, 1], [0, 3, 5, 8, 11, 13, 15]


def test_constructor_attributes_and_checks() -> None:
    L = ASSPP(0.7, 0.25, random_state=3, concept_class=C)
    assert (L.epsilon, L.delta, L.random_state, L.concept_class) == (0.7, 0.25, 3, C)
    assert type(L.epsilon) is float and type(L.delta) is float
    assert L.privacy == (0.7, 0.0) and all(type(v) is float for v in L.privacy)
    assert ASSPP(2, concept_class=C).delta == 0.0
    with pytest.raises(TypeError, match="^concept_class must be a ConceptClass, got list$"):
        ASSPP(1.0, concept_class=[0, 1])
    r = repr(L)
    assert r == f"ASSPP(epsilon=0.7, delta=0.25, concept_class={C!r}, rng=None, random_state=3)"


def test_privacy_is_read_from_current_parameters_and_fit() -> None:
    L = ASSPP(1.0, random_state=0, concept_class=C)
    L.epsilon = 0.3
    assert L.privacy == (0.3, 0.0)
    L.fit(XP, YP, XPUB)
    assert L.privacy_ == (0.3, 0.0) and all(type(v) is float for v in L.privacy_)


def test_fit_uses_the_cover_of_the_public_points() -> None:
    L = ASSPP(1.0, random_state=0, concept_class=C).fit(XP, YP, XPUB)
    cover = build_cover(C, XPUB)
    assert list(L.cover_.hypotheses) == list(cover.hypotheses)
    assert not hasattr(L, "errors_")  # no count of errors on the private sample is kept
    assert type(L.index_) is int and L.hypothesis_ == cover.hypotheses[L.index_]
    hyps, p = L.output_distribution(XP, YP, XPUB)
    assert list(hyps) == list(cover.hypotheses)
    assert np.allclose(p, output_distribution(C.error_counts(cover.hypotheses, XP, YP), 1.0))
    with pytest.raises(ValueError, match="^X_public must hold at least one point"):
        ASSPP(1.0, random_state=0, concept_class=C).fit(XP, YP, [])
    with pytest.raises(TypeError, match="^X_public is required"):
        ASSPP(1.0, concept_class=C).fit(XP, YP, None)
    with pytest.raises(ValueError, match=r"^X_public must lie in X_d"):
        ASSPP(1.0, concept_class=C).fit(XP, YP, [99])


def test_fit_samples_the_output_distribution_and_uses_its_rng() -> None:
    eps = 1.5
    _, p = ASSPP(eps, concept_class=C).output_distribution(XP, YP, XPUB)
    g = np.random.default_rng(17)
    L = ASSPP(eps, random_state=g, concept_class=C)
    idx = np.array([L.fit(XP, YP, XPUB).index_ for _ in range(2000)])
    counts = np.bincount(idx, minlength=len(p))
    assert chisquare(counts, p * counts.sum()).pvalue > 1e-4
    a = [ASSPP(eps, random_state=5, concept_class=C).fit(XP, YP, XPUB).index_ for _ in range(3)]
    assert len(set(a)) == 1  # a seed gives one run

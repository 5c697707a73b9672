"""semiprivate.theory.learners.exponential (KLNRS generic learner): the exponential mechanism draws from the learner's
seeded generator, so a seeded fit is reproducible (the audit and the tests replay runs by seed).
"""

from __future__ import annotations

import numpy as np
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.exponential import GenericPrivateLearner

X, Y = [3, 40], [1, 0]  # every threshold in (3, 40] fits: ~37 of 65 hypotheses tie at 0 errors


def _indices(seeds: range) -> list[int]:
    return [GenericPrivateLearner(0.5, random_state=s, concept_class=Thresholds(6)).fit(X, Y).index_ for s in seeds]


def test_seeded_fit_is_reproducible() -> None:
    first, second = _indices(range(20)), _indices(range(20))
    assert first == second
    assert len(set(first)) > 5  # the draw really is random across seeds
    # a Generator passed as rng seeds the run (a child stream of it) and is not kept on the fitted object (its
    # state would replay the coins): equal generators give equal runs, and the fitted rng is None
    runs = []
    for _ in range(2):
        L = GenericPrivateLearner(0.5, random_state=np.random.default_rng(9), concept_class=Thresholds(6)).fit(X, Y)
        runs.append(L.index_)
        assert L.rng is None
    assert runs[0] == runs[1]

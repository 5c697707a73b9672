"""ASSPP refuses an empty public sample: its cover H~ is built from T_pub (ABM19 Alg 1 steps 1-5)."""

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.asspp import ASSPP

C = Thresholds(4)
XP, YP = np.array([1, 5, 9, 12], np.uint64), np.array([1, 1, 0, 0])


@pytest.mark.parametrize("empty", [[], np.array([], np.uint64)], ids=["list", "array"])
def test_empty_x_public_is_refused_naming_it(empty) -> None:
    for call in (lambda L: L.fit(XP, YP, empty), lambda L: L.output_distribution(XP, YP, empty)):
        with pytest.raises(ValueError, match=r"^X_public must hold at least one point: .*got shape \(0,\)$"):
            call(ASSPP(1.0, concept_class=C, random_state=0))


def test_one_public_point_is_enough() -> None:
    L = ASSPP(1.0, concept_class=C, random_state=0).fit(XP, YP, [7])
    assert L.privacy_ == (1.0, 0.0)

"""disagreement_matrix's bad-input messages name the argument at fault (hyps_a, hyps_b, X)."""

from __future__ import annotations

import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.covers import disagreement_matrix


@pytest.mark.parametrize("position, name", [(1, "hyps_a"), (2, "hyps_b")])
def test_a_hypothesis_list_that_is_not_a_list_is_refused_by_its_name(position: int, name: str) -> None:
    args: list[object] = [Thresholds(4), [1, 2], [3], [0, 5, 9]]
    args[position] = "not hypotheses"
    with pytest.raises(TypeError, match=rf"^{name} must be a list of hypotheses, got str$"):
        disagreement_matrix(*args)


def test_points_outside_the_domain_are_refused_naming_X() -> None:
    with pytest.raises(ValueError, match=r"^X must lie in X_d"):
        disagreement_matrix(Thresholds(4), [1], [2], [99])

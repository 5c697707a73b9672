"""Disagreeing column counts of X_public and X_private: the message names both arguments with their shapes."""

import numpy as np
import pytest
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner

XP = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
YP = np.array([1, -1, 1, 1])


@pytest.mark.parametrize("public_cols", [2, 4])
def test_mismatched_public_width_names_x_public_and_x_private(public_cols: int) -> None:
    """A too-narrow (or too-wide) X_public once raised "X_private must have d = ... columns" (X_private: the older name of X): the message
    now says the two disagree and shows both shapes (no entries of either)."""
    Xu = np.eye(5, public_cols, dtype=int)
    for call in (lambda L: L.fit(XP, YP, Xu), lambda L: L.log_output_distribution(XP, YP, Xu)):
        with pytest.raises(ValueError) as e:
            call(ComponentDisjunctionLearner(1.0, random_state=0))
        msg = str(e.value)
        assert msg == ("X and X_public must have the same number of columns (the d variables): "
                       f"X has shape (4, 3), X_public has shape (5, {public_cols})")


def test_matching_widths_still_fit() -> None:
    L = ComponentDisjunctionLearner(1.0, random_state=0).fit(XP, YP, np.eye(5, 3, dtype=int))
    assert L.n_features_in_ == 3

"""Error messages about labels never echo the private label values."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner, to_pm1_labels


# -- messages never echo private labels -----------------------------------------------
def test_label_messages_do_not_echo_values():
    with pytest.raises(ValueError) as e:
        to_pm1_labels([1, -1, 7])
    assert "7" not in str(e.value)
    with pytest.raises(ValueError) as e:
        ComponentDisjunctionLearner(1.0).fit(np.eye(2, dtype=int), [1, 7], np.eye(2, dtype=int))
    assert "7" not in str(e.value) and "classes" in str(e.value)

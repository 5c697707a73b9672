"""binary_points' messages name the argument given as ``name`` and show the value's shape, never its data."""

import numpy as np
import pytest
from semiprivate.theory.graphs import binary_points


def test_wrong_column_count_names_the_argument_and_its_shape() -> None:
    X = np.array([[1, 0, 1], [0, 1, 1]])
    with pytest.raises(ValueError) as e:
        binary_points(X, "X_public", d=2)
    assert str(e.value) == "X_public must have d = 2 columns, got shape (2, 3)"
    assert "[1, 0, 1]" not in str(e.value)

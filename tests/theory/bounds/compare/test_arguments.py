"""compare_halfspace_labelled / halfspace_labelled_curves refuse a projection dimension above the ambient one."""

from __future__ import annotations

import pytest
from semiprivate.theory.bounds.compare import compare_halfspace_labelled, halfspace_labelled_curves


def test_k_above_d_is_refused_naming_k():
    with pytest.raises(ValueError, match=r"^k must be <= dim .* dim = 3\), got k=5$"):
        compare_halfspace_labelled(3, 5, 0.3, 1e-4, 0.1, 0.1, 1.0)
    assert compare_halfspace_labelled(5, 5, 0.3, 1e-4, 0.1, 0.1, 1.0).rows[0].valid  # k = d is a projection


def test_curves_name_the_dimension_below_k():
    with pytest.raises(ValueError, match=r"^ds\[1\] must be >= k = 5"):
        halfspace_labelled_curves([10, 4, 100], 5, 0.3, 1e-4, 0.1, 0.1, 1.0)

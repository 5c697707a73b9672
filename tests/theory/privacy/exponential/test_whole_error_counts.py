"""The exponential mechanism over error counts takes whole counts only; real-valued scores go to the kernels."""

import numpy as np
import pytest
from semiprivate.theory.privacy import exponential as tex

FRACTIONAL = r"^errors must be whole numbers \(numbers of mistakes\); some entry is fractional"


@pytest.mark.parametrize("fn", [lambda e: tex.sample(e, 1.0, rng=0), lambda e: tex.log_output_distribution(e, 1.0),
                                lambda e: tex.output_distribution(e, 1.0)],
                         ids=["sample", "log_output_distribution", "output_distribution"])
def test_fractional_error_counts_are_refused_naming_errors(fn) -> None:
    """2.5 mistakes is not a count: ValueError naming ``errors``, without the entry's position or value."""
    for bad in ([0, 2.5, 3], np.array([1.0, 0.25]), [1e-9]):
        with pytest.raises(ValueError, match=FRACTIONAL) as ex:
            fn(bad)
        assert "2.5" not in str(ex.value) and "0.25" not in str(ex.value)


def test_whole_counts_in_any_numeric_dtype_are_accepted(seed_reuse_allowed) -> None:
    # the same seed on three dtypes: a functional check, not three releases
    for ok in ([0, 2, 3], np.array([1.0, 0.0, 4.0]), np.array([7, 1], dtype=np.uint8)):
        p = tex.output_distribution(ok, 1.0)
        e = np.asarray(ok, dtype=float)
        w = np.exp(-0.5 * e)
        assert np.allclose(p, w / w.sum(), rtol=1e-12)
        assert 0 <= tex.sample(ok, 1.0, rng=1) < len(e)

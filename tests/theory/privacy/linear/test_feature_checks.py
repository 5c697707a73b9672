"""DP-SGD's feature check (``_features_and_norms``): which bad entry an error names, and that features of any
numeric dtype run as their float64 copy.

* NaN in one row and +-inf in another: the NaN is named, as ``check_array`` names it elsewhere.
* float32 arithmetic on float64 features: an entry beyond float32's range is named with its position even
  when another row holds a NaN (the conversion is checked before the row norms).
* int, uint, bool and float16 features are converted to float64 once: the iterates are those of the
  float64 copy, bit for bit (both the one-run and the R-run loop).
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy.dpsgd import dp_sgd

_Y = np.array([1.0, -1.0, 1.0])


def _run(Z, **kw):
    return dp_sgd(Z, _Y[: len(Z)], noise_multiplier=1.0, sampling_rate=0.5, steps=3, rng=0, **kw)


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_nan_is_named_before_inf(precision):
    with pytest.raises(ValueError, match=r"^Z must not contain NaN$"):
        _run(np.array([[0.1, np.inf], [np.nan, 0.0], [0.2, 0.3]]), precision=precision)


def test_float32_range_is_named_before_a_nan_elsewhere():
    with pytest.raises(ValueError, match=r"^Z\[2, 1\] = 4e\+38 is beyond float32's range"):
        _run(np.array([[0.1, 0.2], [np.nan, 0.0], [0.3, 4e38]]), precision="float32")


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float16"])
@pytest.mark.parametrize("runs", [None, 2])
def test_features_of_any_numeric_dtype_run_as_their_float64_copy(dtype, runs):
    g = np.random.default_rng(5)
    Z = (g.normal(size=(60, 7)) * 2).astype(dtype) if dtype != "uint8" else g.integers(0, 4, size=(60, 7)).astype(dtype)
    y = np.where(g.random(60) < 0.5, -1.0, 1.0)
    kw = dict(noise_multiplier=0.7, sampling_rate=0.3, steps=20, n_runs=runs, loss="logistic", rng=1)
    got = dp_sgd(Z, y, **kw).weights
    want = dp_sgd(Z.astype(np.float64), y, **kw).weights
    assert np.array_equal(got, want)

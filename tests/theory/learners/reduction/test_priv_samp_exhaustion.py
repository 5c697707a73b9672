"""PrivSamp's probability of exhausting its pool is what its docstring says."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.learners.reduction import priv_samp


def test_priv_samp_exhaustion_probability_is_what_the_docstring_says():
    assert "< 0.01" not in priv_samp.__doc__
    # |S~| = 1, n_priv = 10, p = 1/100: exhausted = S~ used before the last position, P = 1 - 0.99^9 = 0.0865;
    # 4000 seeded runs: sd 0.0044, the band [0.06, 0.115] is 6 sd wide on each side (false failure < 1e-8);
    # the old docstring's "< 0.01" is 17 sd below
    g = np.random.default_rng(5)

    class D0:
        def sample(self, n, rng):
            return rng.integers(0, 2, n), rng.integers(0, 2, n)

    hits = np.mean([priv_samp([1], [1], D0(), 0.01, 10, rng=g)["exhausted"] for _ in range(4000)])
    assert 0.06 < hits < 0.115

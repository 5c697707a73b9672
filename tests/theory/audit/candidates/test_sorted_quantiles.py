"""``sorted_quantiles`` is ``np.quantile`` (method "linear") on sorted data without its partition: equal
values on ties, infinities, extremes, NaN and every size (the sign of a zero may differ: the thresholds
are read through ``selection.unique``, which maps -0.0 to +0.0)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit import selection
from semiprivate.theory.audit.candidates import sorted_quantiles, threshold_candidates


def _sample(g: np.random.Generator, n: int) -> np.ndarray:
    x = g.laplace(0.0, 10.0, n)
    r = g.random()
    if r < 0.3:
        x = np.round(x)
    if r < 0.1:
        x = np.round(x / 10)
    k = int(g.integers(0, 4))
    if k:
        x[g.integers(0, n, k)] = g.choice([np.inf, -np.inf, -0.0, 0.0, 1e308, -1e308, 5e-324], k)
    if g.random() < 0.05:
        x[g.integers(0, n)] = np.nan
    return x


@pytest.mark.parametrize("seed", range(4))
def test_equals_numpy_quantile(seed: int) -> None:
    g = np.random.default_rng(seed)
    for trial in range(600):
        x = _sample(g, int(g.integers(1, 60)) if trial % 3 else int(g.integers(1, 3000)))
        q = np.linspace(0.0, 1.0, int(g.choice([1, 2, 3, 7, 64, 101])))
        with np.errstate(all="ignore"):
            want, got = np.quantile(x, q), sorted_quantiles(np.sort(x), q)
        np.testing.assert_array_equal(got, want)  # NaN where NaN, equal values elsewhere


def test_interpolation_takes_numpys_side_for_each_weight() -> None:
    """NumPy interpolates from the lower neighbour below weight 1/2 and from the upper one from 1/2 on;
    in floats the two differ, and both sides are exercised here."""
    a = np.array([0.1, 0.7, 1e16, 1e16 + 2.0, 3.3])
    a.sort()
    q = np.linspace(0.0, 1.0, 1001)
    np.testing.assert_array_equal(sorted_quantiles(a, q), np.quantile(a, q))


def test_thresholds_and_counts_as_before() -> None:
    """threshold_candidates with the merge and ``sorted_quantiles`` against the same computation with
    ``np.quantile`` on the concatenation (the code before)."""
    g = np.random.default_rng(9)
    for _ in range(200):
        xs, ys = _sample(g, int(g.integers(1, 400))), _sample(g, int(g.integers(1, 400)))
        xs, ys = xs[~np.isnan(xs)], ys[~np.isnan(ys)]
        if not (xs.size and ys.size):
            continue
        k = int(g.choice([2, 16, 64]))
        with np.errstate(all="ignore"):
            t, cx, cy = threshold_candidates(xs, ys, k)
            sx, sy = np.sort(xs), np.sort(ys)
            qs = np.quantile(np.concatenate([sx, sy]), np.linspace(0.0, 1.0, k))
            ext = [sx[0], sy[0], sx[-1], sy[-1], np.nextafter(sx[0], -np.inf), np.nextafter(sy[0], -np.inf)]
            want = selection.unique(np.concatenate([qs, np.asarray(ext)]))
        want = want[np.isfinite(want)]
        np.testing.assert_array_equal(t, want)
        np.testing.assert_array_equal(cx, xs.size - np.searchsorted(sx, want, side="right"))
        np.testing.assert_array_equal(cy, ys.size - np.searchsorted(sy, want, side="right"))

"""The whitened-sign score: close to the likelihood-ratio statistic of independent Laplace noise,
including noise seen through a linear map (prefix sums)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit.examples import LaplaceParallel, PrefixSum
from semiprivate.theory.audit.selection import SignScore, sign_score
from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound


def _best_threshold_bound(score, x_fit, y_fit, x_new, y_new):  # noqa: ANN001, ANN202
    """Best bound over thresholds at the selection quantiles of ``score``, counted on fresh outputs."""
    sx, sy = score(x_fit), score(y_fit)
    ts = np.quantile(np.r_[sx, sy], np.linspace(0.02, 0.98, 49))
    nx, ny = score(x_new), score(y_new)
    n = nx.size
    best = 0.0
    for t in ts:
        for kx, ky in (((nx > t).sum(), (ny > t).sum()), ((nx <= t).sum(), (ny <= t).sum())):
            best = max(best, float(epsilon_bound(cp_lower(kx, n, 0.025), cp_upper(ky, n, 0.025), 0.0)),
                       float(epsilon_bound(cp_lower(ky, n, 0.025), cp_upper(kx, n, 0.025), 0.0)))
    return best


@pytest.mark.parametrize("mech, a, b, lo", [
    (LaplaceParallel(eps=0.05), np.array([1.0]), np.array([0.0]), 0.385),  # true eps 20 x 0.05 = 1
    (PrefixSum(eps=0.5), np.ones(6), np.r_[np.zeros(3), np.ones(3)], 1.16),  # true eps 3 x 0.5 = 1.5
])
def test_sign_score_reaches_most_of_the_privacy_loss(mech, a, b, lo) -> None:  # noqa: ANN001
    """Fitted on 20,000 outputs a side, the score's best threshold bound on 200,000 fresh outputs a
    side is above ``lo`` (the true epsilons are 1 and 1.5: the score reads 0.45 and 1.31 at these
    seeds); the mean-difference projection of the raw outputs stays below it (0.32 and 1.02: heavy
    tails; for prefix sums, dependent coordinates).  ``lo`` is midway, about three standard errors
    (bounds of this size move by about 0.02 between seeds) from each side, so the false-failure rate
    over seeds is about 1e-3 per row; a score without whitening fails the prefix-sum row."""
    g = np.random.default_rng(0)
    xf, yf = mech(a, 20_000, g), mech(b, 20_000, g)
    xn, yn = mech(a, 200_000, g), mech(b, 200_000, g)
    sc = sign_score(xf, yf)
    assert isinstance(sc, SignScore)
    ours = _best_threshold_bound(sc, xf, yf, xn, yn)
    diff = xf.mean(axis=0) - yf.mean(axis=0)
    linear = _best_threshold_bound(lambda z: z @ diff, xf, yf, xn, yn)
    assert ours > lo > linear, (ours, linear)


def test_sign_score_whitens_prefix_sums_back_to_their_increments() -> None:
    g = np.random.default_rng(1)
    x = PrefixSum(eps=1.0)(np.zeros(5), 50_000, g)
    y = PrefixSum(eps=1.0)(np.r_[1.0, np.zeros(4)], 50_000, g)
    sc = sign_score(x, y)
    assert sc is not None
    w = (x - sc.mean) @ sc.whiten
    np.testing.assert_allclose(np.cov(w, rowvar=False), np.eye(5), atol=0.03)
    # only the first increment differs between the datasets: it carries the weight
    assert abs(sc.weights[0]) > 10 * np.max(np.abs(sc.weights[1:]))


def test_sign_score_declines_what_it_cannot_fit() -> None:
    g = np.random.default_rng(2)
    assert sign_score(g.normal(size=(100, 1)), g.normal(size=(100, 1))) is None  # one column: a threshold
    assert sign_score(np.ones((100, 3)), np.ones((100, 3))) is None  # no sign differs
    bad = g.normal(size=(100, 3))
    bad[0, 0] = np.inf
    assert sign_score(bad, g.normal(size=(100, 3))) is None
    with pytest.raises(ValueError, match="same number of columns"):
        sign_score(g.normal(size=(10, 3)), g.normal(size=(10, 2)))
    with pytest.raises(ValueError, match="whiten must be 3 x 3"):
        SignScore(np.zeros(3), np.eye(2), np.zeros(3), np.ones(3))

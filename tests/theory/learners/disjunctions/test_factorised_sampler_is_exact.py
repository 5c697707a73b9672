"""The factorised path of ComponentDisjunctionLearner (more components than ``max_enumerate``) draws its union
with exact coins: the law is the fractional score's exponential mechanism (HPSY Appendix B.1), and every union
with a finite score has a positive probability, however small (a float coin gives exp(-745.5) probability 0 and
exp(-745) probability 2^-53: pure DP fails between two neighbours there)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare
from semiprivate.theory.learners import disjunctions
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner

P_MIN = 1e-4  # each goodness-of-fit test fails below this p-value: false-failure rate 1e-4


def _law_and_draws(Xp, y, Xu, eps, n, seed):
    L = ComponentDisjunctionLearner(eps, method="factorised")
    law = np.exp(L.log_output_distribution(Xp, y, Xu))
    Z, _, T, yy, _ = L._prepare(Xp, y, Xu)
    t = [eps / 2 * d for d in L._exact_shares(T, yy)]
    counts = np.zeros(law.size)
    g = np.random.default_rng(seed)
    for _ in range(n):
        counts[sum(1 << int(c) for c in ComponentDisjunctionLearner._sample_exact(t, g)) - 1] += 1
    return law, counts


@pytest.mark.parametrize(("Xp", "y", "branch"), [
    # mixed labels, rows touching two components: S = sum_c p_c >= 1 (every coin drawn, empty unions redrawn)
    (np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 1, 0]]), [1, -1, 1, -1, 1], "S >= 1"),
    # every label negative: S < 1 (a first member drawn by the exact mechanism, accepted with 1/|U|)
    (np.repeat(np.eye(3, dtype=int), 3, axis=0), [-1] * 9, "S < 1"),
])
def test_the_factorised_sampler_draws_the_fractional_score_law(Xp, y, branch):
    from fractions import Fraction

    Xu = np.eye(Xp.shape[1], dtype=int)
    law, counts = _law_and_draws(Xp, y, Xu, Fraction(1), 3000 if branch == "S >= 1" else 1500, 11)
    keep = law * counts.sum() >= 1  # cells expected at least once; the rest pooled
    observed = np.append(counts[keep], counts[~keep].sum())
    expected = np.append(law[keep], law[~keep].sum()) * counts.sum()
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    # a doubled epsilon moves these cells by > 10% of the draws: the test has the power to see it
    assert chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > P_MIN, branch


def _straddling(n_on_x1: int) -> tuple[np.ndarray, np.ndarray]:
    """Two components {x0}, {x1}; 20 positives on x0; negatives on x1: n_on_x1 of them (1491 puts the
    log-probability of including x1 at -745.5, below the smallest double's exponent)."""
    X = [[1, 0]] * 20 + [[0, 1]] * n_on_x1 + [[1, 0]] * (1500 - n_on_x1)
    y = [1] * 20 + [-1] * n_on_x1 + [-1] * (1500 - n_on_x1)
    return np.array(X), np.array(y)


def test_a_union_whose_weight_underflows_a_double_is_still_drawn(monkeypatch):
    # The coin Bernoulli(exp(-745.5)) is exact, so its rare outcome is possible; forcing that outcome (as a
    # stream of small words would) must let fit return {0, 1} on D.  A float coin g.random() < exp(-745.5)
    # = 0.0 never can, whatever the stream: the union would have probability 0 on D and 2^-53 on D'.
    Xu = np.array([[1, 0], [0, 1]] * 4)
    X, y = _straddling(1491)
    monkeypatch.setattr(disjunctions, "bernoulli_exp", lambda gamma, size=None, rng=None: True)
    unions = {ComponentDisjunctionLearner(1.0, method="factorised", random_state=seed).fit(X, y, Xu).union_
              for seed in np.random.SeedSequence(3).spawn(12)}
    assert (0, 1) in unions


def test_the_factorised_path_reports_pure_dp_from_what_ran():
    Xu = np.array([[1, 0], [0, 1]] * 4)
    L = ComponentDisjunctionLearner(0.75, method="factorised").fit(*_straddling(1491), Xu)
    assert L.privacy_ == (0.75, 0.0) and L.method_ == "factorised"

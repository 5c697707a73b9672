"""PILLAR Alg 2 (SPEC PILLAR.Alg2): the R Noisy SGD runs it starts, with its defaults and the arguments it forwards.

Step 2 of Alg 2 runs BST14 Noisy SGD R = ``repeats`` times on S1 at (eps/R, delta/R), with the caller's
margin (L = 1/margin) and constraint radius, drawing from the caller's generator right after the
permutation that split S1 from S2.  Defaults: R = 3, margin 1, radius 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.bounds.pillar import bst14_noise_scale, bst14_step_size
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd
from semiprivate.theory.privacy.pillar_selection import pillar_alg2


def test_defaults_are_three_runs_margin_one_radius_one(half_ball_rows: Any, seed_reuse_allowed: Any):
    # one seed, the defaults then the same values written out: the seed record fingerprints the arguments as
    # given, so it would read the second call as another release
    Z, y = half_ball_rows(20, 2, 1)
    res = pillar_alg2(Z, y, 1.2, 1e-3, n_steps=30, rng=4)
    assert res.candidates.shape == (3, 2) and res.budget["repeats"] == 3
    n_train = res.budget["n_train"]
    assert res.runs.lipschitz == 1.0
    assert res.runs.sigma == bst14_noise_scale(n_train, 1.0, 1.2 / 3, 1e-3 / 3)
    assert res.runs.step_size == bst14_step_size(1, n_train, 2, 1.0, 2.0, 1.2 / 3, 1e-3 / 3)
    explicit = pillar_alg2(Z, y, 1.2, 1e-3, repeats=3, margin=1.0, radius=1.0, n_steps=30, rng=4)
    assert np.array_equal(res.candidates, explicit.candidates) and res.index == explicit.index


def test_margin_and_radius_reach_the_runs(half_ball_rows: Any):
    Z, y = half_ball_rows(20, 2, 2)
    res = pillar_alg2(Z, y, 1.2, 1e-3, repeats=2, margin=0.5, radius=0.25, n_steps=30, rng=5)
    n_train = res.budget["n_train"]
    assert res.runs.lipschitz == 2.0
    assert res.runs.sigma == bst14_noise_scale(n_train, 2.0, 0.6, 5e-4)
    assert res.runs.step_size == bst14_step_size(1, n_train, 2, 2.0, 0.5, 0.6, 5e-4)  # ||C|| = 2 radius
    assert np.all(np.linalg.norm(res.candidates, axis=1) <= 0.25 * (1 + 1e-12))


def test_runs_draw_from_the_given_generator_after_the_split(half_ball_rows: Any, seed_reuse_allowed: None):
    # replays the release's own noise on purpose (one seed, two releases): the seed record is set aside
    Z, y = half_ball_rows(20, 2, 3)
    res = pillar_alg2(Z, y, 1.2, 1e-3, repeats=2, n_steps=30, rng=9)
    g = np.random.default_rng(9)
    perm = g.permutation(20)
    tr = perm[4:]  # n_hold = round(0.2 * 20) = 4
    want = noisy_sgd(Z[tr], y[tr], 0.6, 5e-4, n_steps=30, n_runs=2, rng=g)
    assert np.array_equal(res.candidates, want.weights)
    again = pillar_alg2(Z, y, 1.2, 1e-3, repeats=2, n_steps=30, rng=9)
    assert np.array_equal(again.weights, res.weights) and again.index == res.index

"""DP-SGD's R-run loop, first step by hand (SPEC DPSGD, Abadi et al. 2016 Alg 1): each run r takes its own
Poisson batch (Bernoulli(q) mask row r), clips each example's hinge gradient ``c_i z_i`` to norm C, sums,
adds its own N(0, sigma^2 C^2 I) noise and steps by ``-lr (G_r + noise_r) / (q n)``."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.dpsgd import dp_sgd


def test_first_step_of_each_run_is_its_clipped_sum_plus_its_noise():
    n, p, R, q, C, lr, m, sigma = 10, 2, 2, 0.5, 0.3, 0.7, 0.5, 1.3
    g = np.random.default_rng(6)
    Z = g.normal(size=(n, p))
    Z *= 0.9 / np.linalg.norm(Z, axis=1, keepdims=True)
    y = np.where(g.random(n) < 0.5, -1.0, 1.0)
    res = dp_sgd(Z, y, noise_multiplier=sigma, sampling_rate=q, steps=1, clip=C, learning_rate=lr, margin=m,
                 n_runs=R, rng=11)
    draws = np.random.default_rng(11)
    mask = draws.random((R, n)) < q
    noise = draws.standard_normal((R, p)) * (sigma * C)
    want = np.empty((R, p))
    for r in range(R):
        G = np.zeros(p)
        for i in np.flatnonzero(mask[r]):
            grad = (y[i] * -1.0 / m) * Z[i]  # w = 0: every example is inside the hinge, phi' = -1
            G += grad * min(1.0, C / np.linalg.norm(grad))
        want[r] = -(lr / (q * n)) * (G + noise[r])
    assert mask.sum(axis=1).min() > 0 and res.batch_sizes.tolist() == [int(mask[0].sum())]
    assert np.allclose(res.weights, want, rtol=1e-12, atol=1e-15)

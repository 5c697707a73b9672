"""Canary audits of DP-SGD and BST14 Noisy SGD for the built-in audit suite (``python -m semiprivate audit``).

Implements: AUDIT for DPSGD and BST14.NoisySGD: worst-case neighbouring pairs, the claims read from
runs, and deliberately broken variants (documented here, never reachable from the trainers) that the
suite must flag.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from semiprivate.theory.bounds.pillar import bst14_noise_scale, bst14_step_size
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier
from semiprivate.theory.privacy.dpsgd import dp_sgd
from semiprivate.theory.privacy.linear import _dphi, _project
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd
from semiprivate.validation import (
    Boolean,
    as_generator,
    validate_params,
)

__all__ = [
    "audit_cases",
]

def _noisy_sgd_noise_divided(Z: np.ndarray, y: np.ndarray, epsilon: float, delta: float, divisor: float, runs: int,
                             rng: Any) -> np.ndarray:
    """BROKEN on purpose (the audit suite's canary): BST14 Noisy SGD as :func:`noisy_sgd` runs it (sigma and
    step size from BST14's formulas at (epsilon, delta), n^2 steps, scaled hinge with margin 1, unit ball,
    theta_1 = 0), with the noise divided by ``divisor``; ``runs`` runs, weights (runs, p)."""
    n, p = Z.shape
    sigma = float(bst14_noise_scale(n, 1.0, epsilon, delta)) / divisor
    eta1 = float(bst14_step_size(1, n, p, 1.0, 2.0, epsilon, delta))
    g = as_generator(rng)
    W = np.zeros((runs, p))
    for t in range(1, n * n + 1):
        idx = g.integers(0, n, size=runs)
        zi, yi = Z[idx], y[idx]
        coef = yi * _dphi(yi * np.einsum("rp,rp->r", W, zi), "hinge")
        W -= (eta1 / math.sqrt(t)) * ((n * coef)[:, None] * zi + sigma * g.standard_normal((runs, p)))
        _project(W, 1.0)
    return W


@validate_params(include_broken=Boolean())
def audit_cases(include_broken: bool = True) -> list[dict[str, Any]]:
    """Canary / worst-case neighbouring pairs for DP-SGD and BST14 Noisy SGD, as fields of
    :class:`semiprivate.theory.audit_suite.AuditCase` (``python -m semiprivate audit`` runs them).

    Implements: AUDIT for DPSGD and BST14.NoisySGD.  Each mechanism is the trainer itself with
    ``n_runs`` = the number of audit trials (one output row per run); each claim is read from a
    run's result (``DPSGDResult.epsilon``, ``NoisySGDResult.privacy``), not copied.

    * DP-SGD, add/remove-one: D0 = {(0, +1)} (a zero row: gradient 0) and D1 = D0 + the canary
      ((1, 0), +1), whose hinge gradient at w = 0 is -(1, 0) (norm 1 = C, unclipped): with q = 1,
      T = 1 the output is -lr/normalizer (canary's gradient + N(0, sigma^2 I)), a Gaussian shift of
      exactly the sensitivity, the worst case.  sigma calibrated (RDP) to epsilon 1 at delta
      1e-5; ``true_epsilon`` is the PLD accountant's (tight for one Gaussian step).
    * BROKEN DP-SGD: the same run with half the noise multiplier, still claiming the calibrated
      epsilon (its true epsilon, PLD, is about 1.97 > 1): the suite must flag it.
    * Noisy SGD, replace-one: B0 = three zero rows, B1 = the first replaced by (1, 0); theorem
      claim (eps, delta) = (1, 1e-5) at n = 3, T = n^2 = 9.  The theorem's constants are loose
      (the accountant's epsilon of the run is 0.21), so halving the noise keeps the claim true
      (accountant 0.41 <= 1); the broken variant the suite must flag is therefore noise / 100
      (accountant epsilon about 74).
    """
    out: list[dict[str, Any]] = []
    delta = 1e-5
    D0 = (np.zeros((1, 2)), np.array([1.0]))
    D1 = (np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([1.0, 1.0]))
    sigma = calibrate_noise_multiplier(1.0, delta, 1.0, 1, relation="add_or_remove_one")  # canary added

    def dpsgd_mech(noise: float) -> Any:
        def mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
            return dp_sgd(data[0], data[1], noise_multiplier=noise, sampling_rate=1.0, steps=1, normalizer=1.0,
                          n_runs=int(size), rng=rng).weights
        return mech

    # the runs below are read for their accountants only (their weights are unused): fresh entropy, no seed that
    # three different releases would share (the seed record refuses that)
    ran = dp_sgd(*D1, noise_multiplier=sigma, sampling_rate=1.0, steps=1, normalizer=1.0, rng=None)
    claim = ran.epsilon(delta, relation="add_or_remove_one")
    out.append(dict(name="semiprivate.theory.privacy.dpsgd.dp_sgd (DPSGD, canary added, q=1, T=1)", mechanism=dpsgd_mech(sigma),
                    pairs=[(D0, D1)], epsilon=claim, delta=delta, private=True,
                    true_epsilon=ran.epsilon(delta, accountant="pld", relation="add_or_remove_one"),
                    claim="Abadi et al.: (eps, delta) by dp-accounting RDP, add/remove-one", trials_scale=1.0))
    B0 = (np.zeros((3, 2)), np.ones(3))
    B1 = (np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]), np.ones(3))

    def bst_mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return noisy_sgd(data[0], data[1], 1.0, delta, n_runs=int(size), rng=rng).weights

    bst = noisy_sgd(*B1, 1.0, delta, rng=None)
    out.append(dict(name="semiprivate.theory.privacy.noisy_sgd.noisy_sgd (BST14, canary replaced, n=3, T=9)", mechanism=bst_mech,
                    pairs=[(B0, B1)], epsilon=bst.privacy[0], delta=bst.privacy[1], private=True, true_epsilon=None,
                    claim="BST14 Thm 2.1 as SPEC states it (replace-one)", trials_scale=0.2))
    if include_broken:
        half = dp_sgd(*D1, noise_multiplier=sigma / 2, sampling_rate=1.0, steps=1, normalizer=1.0, rng=None)
        # 5x the suite's trials: at 2e5 trials the bound (about 1.2 at 1e6) may stay below the claim
        out.append(dict(name="BROKEN dp_sgd, noise multiplier / 2", mechanism=dpsgd_mech(sigma / 2),
                        pairs=[(D0, D1)], epsilon=claim, delta=delta, private=False,
                        true_epsilon=half.epsilon(delta, accountant="pld", relation="add_or_remove_one"), claim="claims the calibrated epsilon",
                        trials_scale=5.0))

        def bst_broken(data: Any, size: int, rng: Any = None) -> np.ndarray:
            return _noisy_sgd_noise_divided(data[0], data[1], 1.0, delta, 100.0, int(size), rng)

        out.append(dict(name="BROKEN noisy_sgd with noise / 100", mechanism=bst_broken, pairs=[(B0, B1)],
                        epsilon=bst.privacy[0], delta=delta, private=False,
                        true_epsilon=None, claim="claims BST14 Thm 2.1", trials_scale=0.2))
    return out

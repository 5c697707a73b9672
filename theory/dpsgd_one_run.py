"""DP-SGD audited in one training run: gradient canaries, each included with probability 1/2.

Implements: AUDIT for DPSGD, the white-box experiment of Steinke, Nasr, Jagielski, "Privacy auditing
with one (1) training run" (NeurIPS 2023, arXiv 2305.08846; its white-box DP-SGD audit with "Dirac" gradient
canaries), on
:func:`semiprivate.theory.privacy.dpsgd.dp_sgd`.

The experiment (:func:`one_run_dpsgd`).  The model is linear, ``p = d + m`` weights: ``d`` for the real
data (``n_real`` rows in the first ``d`` coordinates, labels of a fixed halfspace) and one coordinate per
canary.  Canary ``i`` is the row ``a e_{d+i}`` with label +1 (``a`` = ``canary_norm``): its hinge
gradient ``-a e_{d+i}`` has norm ``a`` and lies on its own coordinate, which no other row touches (a
Dirac gradient canary, the paper's white-box canary, here given through the data).  Each canary is put
in the training set independently with probability 1/2; DP-SGD runs **once**; canary ``i``'s score is
the trained weight ``w[d + i]`` (it drifts up by ``lr min(a, C) / normalizer`` whenever canary ``i`` is
in the batch and its hinge is active, and is pure Gaussian noise otherwise).  The scores and the true
memberships go to :func:`semiprivate.theory.audit.one_run.one_run_audit`, which returns the paper's
lower bound on epsilon (its main theorem, computed exactly) at the claimed delta.

The claim is the run's own accountant epsilon (:meth:`DPSGDResult.epsilon`, RDP, add/remove-one:
adding or removing one canary is a neighbouring dataset).  ``variant`` runs deliberately broken
trainers under the *same* claim (the claim of the correct configuration):

* ``"noise_halved"``: ``noise_multiplier / 2``;
* ``"clipping_skipped"``: no clipping (``clip`` so large that no gradient is clipped) with the noise
  of the correct run (``noise_multiplier * clip`` in absolute terms), so a canary gradient of norm
  ``a > clip`` enters unclipped.

Cost: one DP-SGD run; the many-run canary audit of :mod:`semiprivate.theory.audit_suite` needs one run
per trial (``2 (trials + selection)`` runs).  :func:`compare_with_many_runs` measures both.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.kernels.validation import (
    DELTA,
    POSITIVE_REAL,
    RNG,
    Integer,
    Options,
    Real,
    as_generator,
    validate_params,
)
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.one_run import OneRunAudit, one_run_audit
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier, dpsgd_epsilon
from semiprivate.theory.privacy.dpsgd import dp_sgd

__all__ = ["VARIANTS", "OneRunDPSGD", "Comparison", "one_run_dpsgd", "dp_sgd_claim", "compare_with_many_runs", "sweep"]

VARIANTS = ("correct", "noise_halved", "clipping_skipped")
#: the clipping norm that stands for "no clipping" in the clipping_skipped variant (no gradient reaches it)
_NO_CLIP = 1e9


@dataclass
class OneRunDPSGD:
    """One training run with ``m`` canaries: the claim, the audit and what ran."""

    variant: str
    claimed_epsilon: float
    delta: float
    audit: OneRunAudit
    m: int
    included: int
    noise_multiplier: float  # of the claim (the correct configuration)
    steps: int
    sampling_rate: float
    seconds: float

    @property
    def epsilon_lower_bound(self) -> float:
        return self.audit.epsilon_lower_bound

    @property
    def violation(self) -> bool:
        return self.audit.epsilon_lower_bound > self.claimed_epsilon

    def describe(self) -> str:
        return (f"DP-SGD ({self.variant}), {self.m} canaries ({self.included} in), sigma {self.noise_multiplier:g}, "
                f"q {self.sampling_rate:g}, T {self.steps}: claim eps {self.claimed_epsilon:.3f} at delta {self.delta:g}; "
                f"{self.audit.describe()}; {'VIOLATION' if self.violation else 'no violation'}")


@validate_params(m=Integer(2), noise_multiplier=POSITIVE_REAL, steps=Integer(1),
                 sampling_rate=Real(0.0, 1.0, closed="right"), delta=DELTA, clip=POSITIVE_REAL,
                 canary_norm=POSITIVE_REAL, learning_rate=POSITIVE_REAL, n_real=Integer(0), d=Integer(1),
                 variant=Options(*VARIANTS), confidence=Real(0.0, 1.0, closed="neither"), rng=RNG)
def one_run_dpsgd(m: int, *, noise_multiplier: float, steps: int, sampling_rate: float = 1.0, delta: float = 1e-5,
                  clip: float = 1.0, canary_norm: float = 2.0, learning_rate: float = 0.1, n_real: int = 200,
                  d: int = 10, variant: str = "correct", confidence: float = 0.95, rng: Any = None) -> OneRunDPSGD:
    """Train DP-SGD once with ``m`` gradient canaries (each in with probability 1/2) and audit the run.

    Implements: AUDIT for DPSGD ([SNJ23] white-box Dirac canaries; see the module docstring).

    Parameters
    ----------
    m : int
        Number of canaries.
    noise_multiplier, steps, sampling_rate, clip, learning_rate
        DP-SGD's parameters (of the claimed, correct configuration).
    delta : float
        The claim's delta; the audit's delta too.  Must be well below ``1 / (2 m)`` for a useful bound.
    canary_norm : float
        Norm ``a`` of each canary row (and of its hinge gradient): ``> clip`` so that clipping matters.
    n_real, d : int
        Real training rows (Gaussian, unit norm, labels of a fixed halfspace) and their dimension.
    variant : {"correct", "noise_halved", "clipping_skipped"}
    confidence : float
        The bound holds with this probability (over the run and the canaries' coins).
    rng : None, int or Generator

    Examples
    --------
    >>> res = one_run_dpsgd(1000, noise_multiplier=2.5, steps=1, rng=0)  # claims eps 1.69 at delta 1e-5
    >>> res.violation, round(res.claimed_epsilon, 2)
    (False, 1.69)
    >>> one_run_dpsgd(1000, noise_multiplier=2.5, steps=1, variant="clipping_skipped", canary_norm=20.0,
    ...               rng=0).violation
    True
    """
    t0 = time.perf_counter()
    g = as_generator(rng)
    real = g.standard_normal((n_real, d))
    real /= np.maximum(np.linalg.norm(real, axis=1, keepdims=True), 1e-12)
    u = g.standard_normal(d)
    y_real = np.where(real @ u >= 0, 1.0, -1.0)
    included = g.random(m) < 0.5
    idx = np.nonzero(included)[0]
    Z = np.zeros((n_real + idx.size, d + m))
    Z[:n_real, :d] = real
    Z[n_real + np.arange(idx.size), d + idx] = float(canary_norm)
    y = np.r_[y_real, np.ones(idx.size)]
    sigma, C = float(noise_multiplier), float(clip)
    run_sigma, run_clip = sigma, C
    if variant == "noise_halved":
        run_sigma = sigma / 2
    elif variant == "clipping_skipped":
        run_clip, run_sigma = _NO_CLIP, sigma * C / _NO_CLIP  # the same absolute noise sigma C, no clipping
    # the expected batch of the correct configuration: the same normaliser for every variant
    normalizer = float(sampling_rate) * (n_real + m / 2)
    res = dp_sgd(Z, y, noise_multiplier=run_sigma, sampling_rate=sampling_rate, steps=steps, clip=run_clip,
                 learning_rate=learning_rate, normalizer=normalizer, rng=g)
    claim = dp_sgd_claim(sigma, sampling_rate, steps, delta)
    audit = one_run_audit(res.weights[d:], included, delta=float(delta), confidence=confidence)
    return OneRunDPSGD(variant, claim, float(delta), audit, int(m), int(idx.size), sigma, int(steps),
                       float(sampling_rate), time.perf_counter() - t0)


def dp_sgd_claim(noise_multiplier: float, sampling_rate: float, steps: int, delta: float) -> float:
    """The accountant's epsilon (RDP, add/remove-one: canaries are inserted or not) of the correct configuration."""
    return float(dpsgd_epsilon(noise_multiplier, sampling_rate, steps, delta, relation="add_or_remove_one"))


@dataclass
class Comparison:
    """Bound per unit of compute: one run with m canaries against the many-run canary audit."""

    one_run_bound: float
    one_run_runs: int
    one_run_seconds: float
    many_run_bound: float
    many_run_runs: int
    many_run_seconds: float
    claimed_epsilon: float


@validate_params(noise_multiplier=POSITIVE_REAL, m=Integer(2), trials=Integer(1000), delta=DELTA, rng=RNG)
def compare_with_many_runs(noise_multiplier: float, *, m: int = 2000, trials: int = 20_000, delta: float = 1e-5,
                           rng: Any = None) -> Comparison:
    """One-run audit (``m`` canaries, one run) vs the many-run canary audit (one DP-SGD run per trial).

    Both audit DP-SGD with ``sampling_rate = 1``, one step, at confidence 0.95: the one-run experiment of
    :func:`one_run_dpsgd`, and :func:`semiprivate.theory.audit.audit_pairs` on the worst-case canary pair of
    :mod:`semiprivate.theory.audit_suite` (an empty dataset against one canary whose gradient has norm
    ``clip``), ``trials`` runs per dataset plus the selection batch."""
    g = as_generator(rng)
    one = one_run_dpsgd(m, noise_multiplier=noise_multiplier, steps=1, delta=delta, rng=g)
    D0 = (np.zeros((1, 2)), np.array([1.0]))
    D1 = (np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([1.0, 1.0]))

    def mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return dp_sgd(data[0], data[1], noise_multiplier=noise_multiplier, sampling_rate=1.0, steps=1,
                      normalizer=1.0, n_runs=int(size), rng=rng).weights

    t0 = time.perf_counter()
    many = audit_pairs(mech, [(D0, D1)], epsilon=one.claimed_epsilon, delta=delta, trials=trials, confidence=0.95,
                       rng=g)
    return Comparison(one.epsilon_lower_bound, 1, one.seconds, many.epsilon_lower_bound, many.trials_used,
                      time.perf_counter() - t0, one.claimed_epsilon)


def _sigma_for(epsilon: float, delta: float, steps: int, sampling_rate: float) -> float:
    """Noise multiplier whose accountant epsilon is ``epsilon`` (for the report's sweep)."""
    return float(calibrate_noise_multiplier(epsilon, delta, sampling_rate, steps, relation="add_or_remove_one"))


@validate_params(steps=Integer(1), delta=Real(0.0, 1.0, closed="neither"), seed=Integer(0))
def sweep(epsilons: list[float], ms: list[int], *, steps: int = 1, delta: float = 1e-5, seed: int = 0
          ) -> list[dict[str, Any]]:
    """The reproduction sweep: for each claimed epsilon (noise calibrated to it) and number of canaries,
    one run's bound (the shape of the paper's white-box figure)."""
    for name, vals, kind in (("epsilons", epsilons, (int, float)), ("ms", ms, (int,))):
        if not isinstance(vals, (list, tuple)) or not vals or not all(
                isinstance(v, kind) and not isinstance(v, bool) for v in vals):
            raise TypeError(f"{name} must be a non-empty list of numbers, got {vals!r:.60}")
        if not all(math.isfinite(v) and v > 0 for v in vals):
            raise ValueError(f"{name} must hold finite positive numbers, got {vals!r:.60}")
    rows = []
    for i, eps in enumerate(epsilons):
        sigma = _sigma_for(eps, delta, steps, 1.0)
        for j, m in enumerate(ms):
            r = one_run_dpsgd(m, noise_multiplier=sigma, steps=steps, delta=delta, rng=seed + 100 * i + j)
            rows.append(dict(claim=r.claimed_epsilon, m=m, bound=r.epsilon_lower_bound, sigma=sigma,
                             seconds=r.seconds, correct=r.audit.correct, guesses=r.audit.guesses))
    return rows

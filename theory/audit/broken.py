"""Deliberately broken mechanisms: the audit must catch every one of them.

Each class *claims* ``(epsilon, delta)`` (attribute ``claimed``) but is implemented with a
typical bug; ``true_epsilon(pair)`` gives the exact epsilon of the broken mechanism on the
neighbouring pair the suite audits it on (``inf`` where no finite epsilon holds), so the
tests can state how close the audit's lower bound comes.  :class:`ReplayFirstBatch` breaks the
audit instead of the mechanism (estimation on the selection batch), for the calibration tests'
power side.  Nothing here is meant for use;
it is the power side of the audit's tests and of ``python -m semiprivate audit --broken``.

Implements: AUDIT (power checks: "shown to catch deliberately broken mechanisms").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from semiprivate.theory.audit.exact import exact_privacy_loss
from semiprivate.validation import (
    EPSILON,
    POSITIVE_REAL,
    CallableConstraint,
    Integer,
    Options,
    as_generator,
    validate_params,
)

__all__ = [
    "LaplaceWrongScale",
    "NoiseOnWrongQuantity",
    "NoisyMaxValue",
    "BranchWithoutNoise",
    "BinaryFormulaRR",
    "ExponentialMechanismNoHalf",
    "ReplayFirstBatch",
]


class LaplaceWrongScale:
    """Bug: Laplace noise ``factor * sensitivity / epsilon`` (``factor < 1``: too little noise).

    True epsilon on answers at distance ``sensitivity``: ``epsilon / factor``.
    """

    @validate_params(epsilon=EPSILON, factor=POSITIVE_REAL)
    def __init__(self, epsilon: float, factor: float = 0.5) -> None:
        self.claimed = (float(epsilon), 0.0)
        self.scale = factor / float(epsilon)
        self.factor = factor

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        a = np.asarray(data, dtype=np.float64)
        return a + as_generator(rng).laplace(0.0, self.scale, size=(int(size), *a.shape))

    def true_epsilon(self, pair: tuple[Any, Any]) -> float:
        return float(np.sum(np.abs(np.asarray(pair[0], float) - np.asarray(pair[1], float)))) / self.scale


class NoiseOnWrongQuantity:
    """Bug: releases the mean of ``n`` values in ``[0, 1]``; the noise is calibrated to the
    mean's sensitivity ``1/n`` but added to the *sum*, which is then divided by ``n``.

    Output ``mean + Lap(1/(n^2 epsilon))``: true epsilon ``n * epsilon`` on replace-one
    neighbours that move one value from 0 to 1.
    """

    @validate_params(epsilon=EPSILON)
    def __init__(self, epsilon: float) -> None:
        self.claimed = (float(epsilon), 0.0)
        self.epsilon = float(epsilon)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        x = np.asarray(data, dtype=np.float64)
        n = x.size
        noisy_sum = x.sum() + as_generator(rng).laplace(0.0, 1.0 / (n * self.epsilon), size=int(size))
        return noisy_sum / n

    def true_epsilon(self, pair: tuple[Any, Any]) -> float:
        x, y = (np.asarray(p, dtype=np.float64) for p in pair)
        return float(abs(x.mean() - y.mean())) * x.size * x.size * self.epsilon


class NoisyMaxValue:
    """Bug: report-noisy-max with the correct noise ``Lap(2/epsilon)`` that releases the noisy
    maximum *value* instead of its index.

    On score vectors shifted by 1 in all ``k`` coordinates, ``P[max <= t] = F(t)^k`` with
    ``F(t) = e^(epsilon t/2)/2`` for ``t <= 0``: true epsilon ``k * epsilon / 2``.
    """

    @validate_params(epsilon=EPSILON)
    def __init__(self, epsilon: float) -> None:
        self.claimed = (float(epsilon), 0.0)
        self.scale = 2.0 / float(epsilon)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        s = np.asarray(data, dtype=np.float64)
        z = s + as_generator(rng).laplace(0.0, self.scale, size=(int(size), s.size))
        return z.max(axis=1)

    def true_epsilon(self, pair: tuple[Any, Any]) -> float:
        a, b = (np.asarray(p, dtype=np.float64) for p in pair)
        if not np.allclose(np.abs(a - b), 1.0):
            raise ValueError("true epsilon is derived for pairs shifted by exactly 1 in every coordinate")
        return a.size / self.scale


class BranchWithoutNoise:
    """Bug: a Laplace mechanism with a shortcut ``if answer <= 0: return answer`` (no noise).

    An exact 0 is output under answer 0 and never under answer 1: no finite epsilon
    (``true_epsilon = inf``); the audit sees a support mismatch.
    """

    @validate_params(epsilon=EPSILON)
    def __init__(self, epsilon: float) -> None:
        self.claimed = (float(epsilon), 0.0)
        self.scale = 1.0 / float(epsilon)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        a = float(data)
        if a <= 0:
            return np.full(int(size), a)
        return a + as_generator(rng).laplace(0.0, self.scale, size=int(size))

    def true_epsilon(self, pair: tuple[Any, Any]) -> float:
        return math.inf if (float(pair[0]) <= 0) != (float(pair[1]) <= 0) else 1.0 / self.scale


class BinaryFormulaRR:
    """Bug: k-ary randomized response keeping the truth with the *binary* probability
    ``e^eps / (1 + e^eps)``.

    True epsilon: ``log(p_truth (k - 1) / (1 - p_truth)) = epsilon + log(k - 1)``.
    """

    @validate_params(epsilon=EPSILON, n_categories=Integer(2))
    def __init__(self, epsilon: float, n_categories: int = 4) -> None:
        self.claimed = (float(epsilon), 0.0)
        self.k = int(n_categories)
        self.p_truth = 1.0 / (1.0 + math.exp(-float(epsilon)))

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        g = as_generator(rng)
        a = int(data)
        keep = g.random(int(size)) < self.p_truth
        other = (a + g.integers(1, self.k, size=int(size))) % self.k
        return np.where(keep, a, other)

    def log_probabilities(self, data: Any) -> np.ndarray:
        out = np.full(self.k, math.log((1 - self.p_truth) / (self.k - 1)))
        out[int(data)] = math.log(self.p_truth)
        return out

    def true_epsilon(self, pair: tuple[Any, Any]) -> float:
        return exact_privacy_loss(self.log_probabilities(pair[0]), self.log_probabilities(pair[1]), log=True).epsilon


class ExponentialMechanismNoHalf:
    """Bug: the exponential mechanism sampling ``P(i) ∝ exp(epsilon q_i)`` (the factor 1/2 of
    ``exp(epsilon q_i / (2 sensitivity))`` forgotten), via ``semiprivate.kernels.exponential_mechanism``
    called with ``2 * epsilon``.  True epsilon on a pair: exact, from the softmax.
    """

    @validate_params(epsilon=EPSILON, backend=Options("numpy", "cython", "cupy", "auto"))
    def __init__(self, epsilon: float, backend: str = "numpy") -> None:
        self.claimed = (float(epsilon), 0.0)
        self.epsilon = float(epsilon)
        self.backend = backend

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        from semiprivate import kernels

        return np.asarray(kernels.exponential_mechanism(np.asarray(data, dtype=np.float64), 2 * self.epsilon,
                                                        size=int(size), rng=rng, backend=self.backend))

    def true_epsilon(self, pair: tuple[Any, Any]) -> float:
        from semiprivate import kernels

        lp = kernels.exponential_log_probabilities(np.asarray(pair[0], dtype=np.float64), 2 * self.epsilon)
        lq = kernels.exponential_log_probabilities(np.asarray(pair[1], dtype=np.float64), 2 * self.epsilon)
        return exact_privacy_loss(lp, lq, log=True).epsilon


class ReplayFirstBatch:
    """Bug in the *audit*, not the mechanism: estimation on the selection batch.

    Wraps a correct ``mechanism(data, size, rng)``: the first call per dataset (the auditor's
    selection batch) is drawn and recorded, and every later call on that dataset returns the
    recorded outputs again, in order and cyclically.  Auditing the wrapper is auditing with the
    choice and estimation counts taken on the outputs that built and chose the events, which the
    audit's calibration tests must catch (their flag rate exceeds the stated level).  Datasets are
    told apart by ``np.asarray(data).tobytes()``; use one wrapper per audit.
    """

    @validate_params(mechanism=CallableConstraint())
    def __init__(self, mechanism: Any) -> None:
        self.mechanism = mechanism
        self.recorded: dict[bytes, tuple[np.ndarray, int]] = {}

    def __call__(self, data: Any, size: int, rng: Any) -> np.ndarray:
        key = np.asarray(data).tobytes()
        if key not in self.recorded:
            out = np.asarray(self.mechanism(data, size, rng))
            self.recorded[key] = (out, 0)
            return out
        out, pos = self.recorded[key]
        self.recorded[key] = (out, pos + size)
        return out[(pos + np.arange(size)) % len(out)]


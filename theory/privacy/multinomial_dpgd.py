"""Full-batch DP gradient descent for the multinomial (softmax) linear classifier, one run for C classes.

Implements: DPSGD (Abadi et al. 2016 with sampling rate 1: every step uses all n labelled rows,
per-example clipping, Gaussian noise), the practical trainer of PILLAR.Alg1 / PILLAR Sec 4 (one
multinomial linear classifier on the projected features, as PILLAR's experiments train it), accounted
with dp-accounting's PLD accountant under replace-one neighbours (the ``"labelled"`` privacy model of
:mod:`semiprivate.theory.learners._base`).

One step, features ``z~ = (z, 1)`` (the intercept is a feature, so it is clipped with the rest),
weights ``W`` of shape ``(p + 1, C)``, softmax probabilities ``p_i = softmax(W^T z~_i)``:

* per-example gradient ``g_i = z~_i (p_i - e_{y_i})^T``, Frobenius norm ``||z~_i|| ||p_i - e_{y_i}||``;
* clipped ``g_i min(1, clip / ||g_i||)``; sum ``G = sum_i`` of the clipped terms;
* ``W <- W - lr (G + N(0, sigma^2 clip^2 I)) / n``.

The output is the mean of the iterates of the last ``average`` share of the steps (post-processing).

Privacy: replacing one labelled row moves ``G`` by at most ``2 clip`` in Frobenius norm, so each
step is a Gaussian mechanism of sensitivity ``2 clip`` and noise ``sigma clip``; T adaptive steps
compose to exactly the Gaussian mechanism with ``mu = 2 sqrt(T) / sigma`` (Dong, Roth, Su 2022,
Gaussian DP; Balle-Wang 2018 Thm 8 gives its (epsilon, delta)).  :func:`full_batch_noise_multiplier`
calibrates sigma with that closed form (:func:`semiprivate.theory.privacy.mechanisms.gaussian_sigma`
at sensitivity ``2 sqrt(T)``) and then checks it with dp-accounting's PLD accountant
(:func:`semiprivate.theory.privacy.accounting.dpsgd_epsilon` at sampling rate 1, REPLACE_ONE), raising
sigma until the accountant certifies the target; :func:`full_batch_epsilon` is that accountant's
epsilon of what ran.  ``n``, the number of labelled rows, is treated as public (replace-one keeps it).

The noise is float Gaussian noise from NumPy's generator: DP-SGD's release is a float vector by
nature, and the guarantee is that of the Gaussian mechanism in exact arithmetic (as in every
floating-point DP-SGD, the rounding of the sum and of the sampler is not accounted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.kernels._memo import MemoTable, memo_table
from semiprivate.theory.privacy._release import released_function
from semiprivate.theory.privacy.accounting import MIN_NOISE_MULTIPLIER, dpsgd_epsilon
from semiprivate.theory.privacy.dpsgd import _blas_single_thread
from semiprivate.theory.privacy.mechanisms import gaussian_sigma
from semiprivate.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    Real,
    as_generator,
    validate_params,
)

__all__ = [
    "MultinomialDPGDResult",
    "full_batch_epsilon",
    "full_batch_noise_multiplier",
    "multinomial_dp_gd",
]

_OPEN_DELTA = Real(0.0, 1.0, closed="neither")
_AVERAGE = Real(0.0, 1.0, closed="right")


#: Memos of the accountant (public parameters in, a number out): registered tables with no hit counter (an
#: ``lru_cache``'s ``cache_info()`` counts its calls, one per fit: a wrapper's hidden number of runs), at most
#: ``_MEMO_MAX`` entries each, oldest dropped first; a search that hides its number of runs puts them back
#: afterwards (:func:`semiprivate.kernels._memo.tables_kept`).
_MEMO_MAX = 1024
_PLD_MEMO = memo_table(f"{__name__}._PLD_MEMO", maxsize=_MEMO_MAX)
_CALIBRATED_MEMO = memo_table(f"{__name__}._CALIBRATED_MEMO", maxsize=_MEMO_MAX)


def _memo(table: MemoTable, key: Any, compute: Any) -> float:
    return float(table.lookup(key, compute))


def _pld_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    return _memo(_PLD_MEMO, (noise_multiplier, steps, delta),
                 lambda: float(dpsgd_epsilon(noise_multiplier, 1.0, steps, delta, accountant="pld")))


@validate_params(noise_multiplier=POSITIVE_REAL, steps=POSITIVE_INT, delta=_OPEN_DELTA)
def full_batch_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """Epsilon at ``delta`` of ``steps`` full-batch DP-GD steps with noise multiplier sigma (replace-one).

    Implements: DPSGD (accounting at sampling rate 1): dp-accounting's PLD accountant
    (:func:`semiprivate.theory.privacy.accounting.dpsgd_epsilon`, ``sampling_rate=1``, REPLACE_ONE: a
    replaced example moves the clipped sum by ``2 clip``).

    >>> round(full_batch_epsilon(20.0, 200, 1e-5), 3)
    6.573
    """
    return _pld_epsilon(float(noise_multiplier), int(steps), float(delta))


def _calibrated(epsilon: float, delta: float, steps: int) -> float:
    return _memo(_CALIBRATED_MEMO, (epsilon, delta, steps), lambda: _calibrate(epsilon, delta, steps))


def _calibrate(epsilon: float, delta: float, steps: int) -> float:
    # not below the PLD accountant's floor (its cost grows like 1/sigma^2: accounting.MIN_NOISE_MULTIPLIER);
    # a budget the floor already meets is spent there and the run reports the smaller epsilon it meets
    floor = MIN_NOISE_MULTIPLIER["pld"]
    sigma = float(gaussian_sigma(epsilon, delta, sensitivity=2.0 * math.sqrt(steps)))
    if sigma <= floor:
        # the exact composed Gaussian needs less noise than the floor: one evaluation there decides. Where the
        # accountant's pessimistic discretisation does not certify epsilon at the floor (delta near 1: at 100
        # steps it reads epsilon > 600 at sigma 1/2 for every delta), no search is run: each evaluation at such
        # noise costs seconds and the ladder below would need thousands of them
        if _pld_epsilon(floor, steps, delta) <= epsilon:
            return floor
        raise ValueError(f"delta={delta:g} with epsilon={epsilon:g} over {steps} steps asks for a noise multiplier "
                         f"below the PLD accountant's floor {floor:g}, where the accountant does not certify "
                         f"epsilon={epsilon:g}: use a delta well below 1 (e.g. below 1/n) or fewer steps")
    # the PLD accountant's discretisation is pessimistic: the answer is the first point of the ladder
    # sigma, sigma (1 + 1e-4), sigma (1 + 1e-4)^2, ... (each the previous times 1 + 1e-4) where the accountant
    # agrees. Its epsilon falls as sigma grows, so the first point is found by galloping (k = 1, 2, 4, ...) then
    # bisecting on k: the same point as a walk up the ladder, in O(log k) evaluations (near delta = 1 the
    # accountant needs ~1,000 rungs and each evaluation takes seconds)
    ladder = [sigma]

    def rung(k: int) -> float:
        while len(ladder) <= k:
            ladder.append(ladder[-1] * (1.0 + 1e-4))
        return ladder[k]

    def meets(k: int) -> bool:
        return _pld_epsilon(rung(k), steps, delta) <= epsilon

    if meets(0):
        return sigma
    bad, good = 0, 1
    while not meets(good):
        bad, good = good, 2 * good
        if good > _MAX_RUNG:
            raise ValueError(f"epsilon={epsilon:g}: the PLD accountant does not certify a noise multiplier up to "
                             f"{rung(_MAX_RUNG):.4g} ({_MAX_RUNG} rungs of 1e-4 above the closed form's "
                             f"{sigma:.4g}) for {steps} steps at delta={delta:g}")
    while good - bad > 1:
        mid = (bad + good) // 2
        if meets(mid):
            good = mid
        else:
            bad = mid
    return rung(good)


#: the highest rung of :func:`_calibrate`'s ladder (a factor (1 + 1e-4)^16384 = 5.1 above the closed form)
_MAX_RUNG = 2**14


@validate_params(epsilon=EPSILON, delta=_OPEN_DELTA, steps=POSITIVE_INT)
def full_batch_noise_multiplier(epsilon: float, delta: float, steps: int) -> float:
    """Noise multiplier sigma for which ``steps`` full-batch DP-GD steps are (epsilon, delta)-DP (replace-one).

    Implements: DPSGD (noise calibration at sampling rate 1): the closed form of the composed
    Gaussian mechanism (``mu = 2 sqrt(T) / sigma``; BW18 Thm 8 through
    :func:`semiprivate.theory.privacy.mechanisms.gaussian_sigma`), at least the PLD accountant's floor
    (:data:`semiprivate.theory.privacy.accounting.MIN_NOISE_MULTIPLIER`), raised by steps of 1e-4 relative
    until :func:`full_batch_epsilon` (the PLD accountant) is <= ``epsilon`` (the first such step, found by
    galloping and bisection).

    >>> s = full_batch_noise_multiplier(1.0, 1e-5, 100)
    >>> full_batch_epsilon(s, 100, 1e-5) <= 1.0 < full_batch_epsilon(s * 0.99, 100, 1e-5)
    True
    """
    return _calibrated(float(epsilon), float(delta), int(steps))


@dataclass(frozen=True)
class MultinomialDPGDResult:
    """Output of :func:`multinomial_dp_gd` and what ran.

    Attributes
    ----------
    weights : (p + 1, C) array
        The averaged iterate; the last row is the intercept.
    noise_multiplier, clip, learning_rate, normalizer, average : float
    steps : int
    """

    weights: np.ndarray
    noise_multiplier: float
    steps: int
    clip: float
    learning_rate: float
    normalizer: float
    average: float

    def epsilon(self, delta: float) -> float:
        """Epsilon at ``delta`` of this run (:func:`full_batch_epsilon`; ``inf`` if noiseless)."""
        if self.noise_multiplier == 0.0:
            return math.inf
        return full_batch_epsilon(self.noise_multiplier, self.steps, delta)


def _softmax(S: np.ndarray) -> np.ndarray:
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return np.asarray(E / E.sum(axis=1, keepdims=True))


def _first_averaged(steps: int, average: float) -> int:
    """Index of the first step whose iterate enters the average (the last ``ceil(average T)`` ones)."""
    return int(steps) - max(1, int(math.ceil(float(average) * int(steps))))


def _check(Z: Any, y: Any, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    Zc = np.asarray(Z, dtype=np.float64)
    if Zc.ndim != 2 or Zc.shape[0] == 0 or not np.all(np.isfinite(Zc)):
        raise ValueError(f"Z must be a non-empty finite 2-d array, got shape {Zc.shape}")
    yc = np.asarray(y)
    if yc.shape != (Zc.shape[0],) or not np.issubdtype(yc.dtype, np.integer):
        raise ValueError(f"y must be an integer array of length {Zc.shape[0]} (class indices)")
    if yc.size and (yc.min() < 0 or yc.max() >= n_classes):  # which label: private, not shown
        raise ValueError(f"y must hold class indices in [0, n_classes={n_classes})")
    return np.hstack([Zc, np.ones((Zc.shape[0], 1))]), yc.astype(np.int64)


def _multinomial_dp_gd_reference(Z: Any, y: Any, n_classes: int, *, noise_multiplier: float, steps: int,
                                 clip: float, learning_rate: float, average: float,
                                 rng: np.random.Generator) -> np.ndarray:
    """The plain form (the specification :func:`multinomial_dp_gd` is checked against): one example at a time."""
    Zb, yc = _check(Z, y, n_classes)
    n, p1 = Zb.shape
    W = np.zeros((p1, n_classes))
    acc = np.zeros_like(W)
    start = _first_averaged(steps, average)
    for t in range(int(steps)):
        G = np.zeros_like(W)
        for i in range(n):
            s = Zb[i] @ W
            pr = np.exp(s - s.max())
            pr /= pr.sum()
            pr[yc[i]] -= 1.0
            g = np.outer(Zb[i], pr)
            norm = float(np.sqrt(np.sum(g * g)))
            G += g * (min(1.0, clip / norm) if norm > 0.0 else 1.0)
        G += rng.standard_normal(W.shape) * (noise_multiplier * clip)
        W = W - (learning_rate / n) * G
        if t >= start:
            acc += W
    return acc / (int(steps) - start)


@released_function
@validate_params(n_classes=Real(2, math.inf, closed="left"), noise_multiplier=Real(0.0, math.inf, closed="left"),
                 steps=POSITIVE_INT, clip=POSITIVE_REAL, learning_rate=POSITIVE_REAL, average=_AVERAGE)
def multinomial_dp_gd(Z: Any, y: Any, n_classes: int, *, noise_multiplier: float, steps: int, clip: float = 1.0,
                      learning_rate: float = 2.0, average: float = 0.5,
                      rng: np.random.Generator | None) -> MultinomialDPGDResult:
    """Full-batch DP-GD of the softmax cross-entropy over ``n_classes`` classes (see the module docstring).

    Implements: DPSGD (sampling rate 1), the multinomial trainer of PILLAR.Alg1.

    Parameters
    ----------
    Z : (n, p) array
        Features (any norm: per-example clipping bounds the sensitivity).
    y : (n,) int array
        Class indices in ``[0, n_classes)``.
    n_classes : int
    noise_multiplier : float >= 0
        sigma (0: a non-private reference run, epsilon infinite).
    steps : int
    clip : float
        Per-example clipping norm (Frobenius norm of the (p + 1, C) gradient).
    learning_rate : float
    average : float in (0, 1]
        Share of the last iterates averaged into the output.
    rng : numpy.random.Generator or None
        The noise stream (the caller spawns a fresh one per run); None draws fresh OS entropy (the only
        choice in secure mode, :func:`semiprivate.theory.privacy.seeds.set_secure_mode`).  A public call is a
        release (``@released_function``): one stream given to two different calls is refused by the seed
        record.

    Returns
    -------
    MultinomialDPGDResult
    """
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (a fresh child stream) or None, "
                        f"got {type(rng).__name__}")
    rng = as_generator(rng)  # through the coin source: the seed record and secure mode see this stream
    C = int(n_classes)
    Zb, yc = _check(Z, y, C)
    n, p1 = Zb.shape
    Y = np.zeros((n, C))
    Y[np.arange(n), yc] = 1.0
    znorm = np.sqrt(np.einsum("ij,ij->i", Zb, Zb))
    W = np.zeros((p1, C))
    acc = np.zeros_like(W)
    noise = np.empty_like(W)
    sig, cl, lr = float(noise_multiplier), float(clip), float(learning_rate)
    start = _first_averaged(steps, average)
    with _blas_single_thread(float(n) * p1):  # small products: one BLAS thread (see semiprivate.theory.privacy.dpsgd)
        for t in range(int(steps)):
            R = _softmax(Zb @ W)
            R -= Y
            norms = znorm * np.sqrt(np.einsum("ij,ij->i", R, R))
            f = np.ones(n)
            big = norms > cl
            f[big] = cl / norms[big]
            G = Zb.T @ (R * f[:, None])
            rng.standard_normal(out=noise)
            G += noise * (sig * cl)
            W = W - (lr / n) * G
            if t >= start:
                acc += W
    return MultinomialDPGDResult(weights=acc / (int(steps) - start), noise_multiplier=sig, steps=int(steps), clip=cl,
                                 learning_rate=lr, normalizer=float(n), average=float(average))

"""DP-SGD audited in one training run: canaries each included with probability 1/2, one run, one bound.

Implements: AUDIT for DPSGD, the experiments of Steinke, Nasr, Jagielski, "Privacy auditing with one (1)
training run" (NeurIPS 2023, arXiv 2305.08846, [SNJ23]) on
:func:`semiprivate.theory.privacy.dpsgd.dp_sgd`: its white-box audit with "Dirac" gradient canaries
(:func:`one_run_dpsgd`) and its black-box audit with input-space canaries scored by the final model's
loss (:func:`one_run_input_canaries`).  The scores and the true memberships go to
:func:`semiprivate.theory.audit.one_run.one_run_audit` (the paper's main theorem, computed exactly).

**Gradient canaries** (:func:`one_run_dpsgd`).  The model is linear, ``p = d + m`` weights: ``d`` for the
real data (``n_real`` rows in the first ``d`` coordinates, labels of a fixed halfspace) and one
coordinate per canary.  Canary ``i`` is the row ``a e_{d+i}`` with label +1 (``a`` = ``canary_norm``):
its hinge gradient ``-a e_{d+i}`` has norm ``a`` and lies on its own coordinate, which no other row
touches.  The score of canary ``i`` is the trained weight ``w[d + i]``.

Two layouts give the same law of the trained weights.  ``"joint"`` trains the dense ``(n, d + m)``
design in one :func:`dp_sgd` call: O(n (d + m)) = O(m^2) per step, so m of a few thousand at most.
``"factorized"`` (the default) uses that DP-SGD's update is coordinate-separable on this design: Poisson
sampling includes every row independently, the noise is independent per coordinate, clipping is per
row, and canary ``i``'s gradient depends on ``w[d + i]`` only, so coordinate ``d + i`` evolves as a
one-weight DP-SGD run on canary ``i`` alone with the same normaliser, independently of every other
block; the canary block is then :func:`dp_sgd` with ``n_runs`` = number of canaries on a one-row
dataset (O(m) per step: the noise on the m canary weights), and the real block a ``d``-weight run.
Without projection (none here) the joint and the factorized weights are equal in law (a test compares
them).

**What an absent canary is** (``canary``).  ``"zero"``: a zero row (gradient 0: the same law as the
row left out, the normaliser being fixed), so in/out are neighbours under add/remove-one *and*
replace-one.  ``"flipped"``: the canary with the opposite label (gradient ``+a e_{d+i}``): a
replace-one neighbour at twice the distance, valid only against a replace-one claim.  ``"auto"``
takes ``"flipped"`` exactly when the claim is at least dp-accounting's PLD epsilon of the same DP-SGD
event under ``REPLACE_ONE`` (the claim then covers a replacement), and ``"zero"`` otherwise;
``"flipped"`` against a claim that does not cover replacement is refused.

**The claim** is DP-SGD's own report: :meth:`DPSGDResult.epsilon` at the audit's ``delta`` of a run of
this training, under add/remove-one (``relation="add_or_remove_one"``: the classic DP-SGD claim, which
the insertion of a canary tests; the replace-one claim of the "labelled" learners is at least as large).  ``variant`` runs deliberately broken trainers under the claim of the correct one (the
report of the same result with the configured noise multiplier put back):

* ``"noise_halved"``: ``noise_multiplier / 2``;
* ``"clipping_skipped"``: no clipping (``clip`` so large that no gradient is clipped) with the noise
  of the correct run (``noise_multiplier * clip`` in absolute terms), so a canary gradient of norm
  ``a > clip`` enters unclipped.

**The audit's delta and guesses** are fixed before the run: ``delta`` defaults to ``0.01 / m``
(:func:`audit_delta`), so the theorem's delta term ``2 m delta`` is 0.02; the guesses are the top ``k``
(and the top and bottom ``k``) scores for ``k`` on a geometric grid from 10 to ``m / 2``
(:func:`default_choices`), Bonferroni over the grid.

Cost: one DP-SGD run; the many-run canary audit of :mod:`semiprivate.theory.audit_suite` needs one run
per trial.  :func:`compare_with_many_runs` measures both.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.one_run import OneRunAudit, one_run_audit
from semiprivate.theory.privacy.accounting import (
    ADD_OR_REMOVE_ONE,
    REPLACE_ONE,
    calibrate_noise_multiplier,
    dpsgd_epsilon,
)
from semiprivate.theory.privacy.dpsgd import DPSGDResult, dp_sgd
from semiprivate.theory.privacy.linear import loss_values
from semiprivate.validation import (
    POSITIVE_REAL,
    RNG,
    ArrayLike,
    Integer,
    Optional,
    Options,
    Real,
    as_generator,
    experiment_coins,
    validate_params,
)

__all__ = ["VARIANTS", "CANARIES", "LAYOUTS", "OneRunDPSGD", "Comparison", "one_run_dpsgd", "one_run_input_canaries",
           "audit_delta", "default_choices", "claim_covers_replacement", "compare_with_many_runs", "sweep"]

VARIANTS = ("correct", "noise_halved", "clipping_skipped")
CANARIES = ("auto", "zero", "flipped")
LAYOUTS = ("factorized", "joint")
#: the clipping norm that stands for "no clipping" in the clipping_skipped variant (no gradient reaches it)
_NO_CLIP = 1e9


@validate_params(m=Integer(1))
def audit_delta(m: int) -> float:
    """The audit's delta when none is given: ``0.01 / m`` (the theorem's delta term ``2 m delta`` is 0.02)."""
    return 0.01 / int(m)


@validate_params(m=Integer(2))
def default_choices(m: int) -> list[tuple[int, int]]:
    """Guess counts fixed before the run: ``(k, 0)`` and ``(k, k)`` for ``k`` on a geometric grid of 12
    points from 10 to ``m / 2`` (the distinct integers; ``2 k <= m`` for the two-sided ones)."""
    ks = sorted({int(round(k)) for k in np.geomspace(min(10, m // 2), max(1, m // 2), 12)} - {0})
    return [(k, 0) for k in ks] + [(k, k) for k in ks if 2 * k <= m]


@validate_params(claimed_epsilon=Real(0.0, math.inf, allow_inf=True), noise_multiplier=POSITIVE_REAL,
                 sampling_rate=Real(0.0, 1.0, closed="right"), steps=Integer(1),
                 delta=Real(0.0, 1.0, closed="neither"))
def claim_covers_replacement(claimed_epsilon: float, noise_multiplier: float, sampling_rate: float, steps: int,
                             delta: float) -> bool:
    """Whether the claim is at least dp-accounting's PLD epsilon at ``delta`` of the same DP-SGD event under
    ``REPLACE_ONE`` neighbours: then it bounds the privacy loss of a replacement, and a flipped canary
    (a replace-one neighbour) is a valid experiment.

    At ``sampling_rate == 1`` a cheaper test answers first when it can: the replace-one event is then exactly the
    Gaussian mechanism with L2 sensitivity 2 (in units of the clip) and noise ``noise_multiplier / sqrt(steps)``;
    where its exact delta at the claim (Balle and Wang 2018, Thm 8: :func:`~semiprivate.theory.privacy.mechanisms.gaussian_delta`)
    is above ``delta``, its exact epsilon is above the claim, and dp-accounting's pessimistic PLD epsilon is at
    least the exact one, so the answer is False without building the PLD (seconds at small noise).  Every other
    case is decided by the PLD accountant, as before: the same answer either way."""
    from semiprivate.theory.privacy.mechanisms import gaussian_delta

    claim = float(claimed_epsilon)
    if float(sampling_rate) == 1.0 and math.isfinite(claim) and claim >= 0.0:
        # 1e-9: room for the rounding of log_ndtr; within it the PLD decides
        if gaussian_delta(claim, float(noise_multiplier) / math.sqrt(steps), 2.0) > float(delta) * (1.0 + 1e-9):
            return False

    # dpsgd_epsilon's PLD route is PLDAccountant(REPLACE_ONE) on dpsgd_event, read off its composition of that
    # event when it has one (the audit asks again for the same run: the same epsilon, composed once)
    return claim >= dpsgd_epsilon(noise_multiplier, sampling_rate, steps, delta, accountant="pld",
                                  relation=REPLACE_ONE)


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
    canary: str = "zero"
    layout: str = "factorized"
    scores: np.ndarray = dataclasses.field(default_factory=lambda: np.empty(0), repr=False)  # one per canary
    membership: np.ndarray = dataclasses.field(default_factory=lambda: np.empty(0, bool), repr=False)  # S_i = +1

    @property
    def epsilon_lower_bound(self) -> float:
        return self.audit.epsilon_lower_bound

    @property
    def violation(self) -> bool:
        """``epsilon_lower_bound > claimed_epsilon``: the trainer is not (claimed_epsilon, delta)-DP for the
        neighbours the canaries test, add/remove-one (and replace-one) with ``canary="zero"``, replace-one only
        with ``"flipped"`` (:attr:`refuted`)."""
        return self.audit.epsilon_lower_bound > self.claimed_epsilon

    @property
    def refuted(self) -> str:
        """The neighbour relation under which a violation refutes the claim: ``"add/remove-one and replace-one"``
        for zero canaries (in and out differ by an added or removed row, the same law as a zero row),
        ``"replace-one"`` for flipped ones (in and out differ by a replaced row)."""
        return "replace-one" if self.canary == "flipped" else "add/remove-one and replace-one"

    def describe(self) -> str:
        return (f"DP-SGD ({self.variant}), {self.m} {self.canary} canaries ({self.included} in, {self.layout}), "
                f"sigma {self.noise_multiplier:g}, q {self.sampling_rate:g}, T {self.steps}: claim eps "
                f"{self.claimed_epsilon:.3f} at delta {self.delta:g}; {self.audit.describe()}; "
                f"{f'VIOLATION ({self.refuted} neighbours)' if self.violation else 'no violation'}")


def _run_params(variant: str, sigma: float, clip: float) -> tuple[float, float]:
    """(noise multiplier, clip) that the ``variant`` trainer actually runs with."""
    if variant == "noise_halved":
        return sigma / 2, clip
    if variant == "clipping_skipped":
        return sigma * clip / _NO_CLIP, _NO_CLIP  # the same absolute noise sigma C, no clipping
    return sigma, clip


def _claim(res: DPSGDResult, sigma: float, clip: float, delta: float) -> float:
    """DP-SGD's own report of a run of this training, with the configured (claimed) noise and clip put back,
    under add/remove-one (the classic DP-SGD claim: a canary is inserted or not)."""
    return float(dataclasses.replace(res, noise_multiplier=sigma, clip=clip).epsilon(delta,
                                                                                     relation=ADD_OR_REMOVE_ONE))


def _pick_canary(canary: str, claim: float, sigma: float, q: float, steps: int, delta: float) -> str:
    covers = claim_covers_replacement(claim, sigma, q, steps, delta)
    if canary == "auto":
        return "flipped" if covers else "zero"
    if canary == "flipped" and not covers:
        raise ValueError(f"canary='flipped' needs a claim that covers a replacement: the claim {claim:.4g} at delta "
                         f"{delta:g} is below the replace-one epsilon of the same DP-SGD; use canary='zero' or 'auto'")
    return canary


def _real_data(g: np.random.Generator, n_real: int, d: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    """``n_real`` unit-norm Gaussian rows in the first ``d`` of ``p`` coordinates, labels of a random halfspace."""
    real = g.standard_normal((n_real, d))
    real /= np.maximum(np.linalg.norm(real, axis=1, keepdims=True), 1e-12)
    u = g.standard_normal(d)
    Z = np.zeros((n_real, p))
    Z[:, :d] = real
    return Z, np.where(real @ u >= 0, 1.0, -1.0)


@validate_params(m=Integer(2), noise_multiplier=POSITIVE_REAL, steps=Integer(1),
                 sampling_rate=Real(0.0, 1.0, closed="right"), delta=Optional(Real(0.0, 1.0, closed="neither")),
                 clip=POSITIVE_REAL, canary_norm=POSITIVE_REAL, learning_rate=POSITIVE_REAL, n_real=Integer(1),
                 d=Integer(1), variant=Options(*VARIANTS), canary=Options(*CANARIES), layout=Options(*LAYOUTS),
                 confidence=Real(0.0, 1.0, closed="neither"), choices=Optional(ArrayLike(ndim=2, dtype_kinds="iu")),
                 rng=RNG)
def one_run_dpsgd(m: int, *, noise_multiplier: float, steps: int, sampling_rate: float = 1.0,
                  delta: float | None = None, clip: float = 1.0, canary_norm: float = 2.0, learning_rate: float = 0.1,
                  n_real: int = 200, d: int = 10, variant: str = "correct", canary: str = "auto",
                  layout: str = "factorized", confidence: float = 0.95,
                  choices: Any = None, rng: Any = None) -> OneRunDPSGD:
    """Train DP-SGD once with ``m`` gradient canaries (each in with probability 1/2) and audit the run.

    Implements: AUDIT for DPSGD ([SNJ23] white-box Dirac canaries; see the module docstring).

    Parameters
    ----------
    m : int
        Number of canaries.
    noise_multiplier, steps, sampling_rate, clip, learning_rate
        DP-SGD's parameters (of the claimed, correct configuration).
    delta : float, optional
        The claim's delta and the audit's (default :func:`audit_delta`: ``0.01 / m``).
    canary_norm : float
        Norm ``a`` of each canary row (and of its hinge gradient): ``> clip`` so that clipping matters.
    n_real, d : int
        Real training rows (Gaussian, unit norm, labels of a fixed halfspace) and their dimension.
    variant : {"correct", "noise_halved", "clipping_skipped"}
    canary : {"auto", "zero", "flipped"}
        What an absent canary is (module docstring).
    layout : {"factorized", "joint"}
        One dense run, or the equal-in-law separable form (module docstring).
    confidence : float
        The bound holds with this probability (over the run and the canaries' coins).
    choices : array-like of (k_plus, k_minus) rows, optional
        Guess counts (default :func:`default_choices`), Bonferroni over them.
    rng : None, int or Generator

    Examples
    --------
    >>> res = one_run_dpsgd(1000, noise_multiplier=2.5, steps=1, delta=1e-5, rng=0)  # the claim: DP-SGD's report
    >>> res.violation, 0 <= res.epsilon_lower_bound < res.claimed_epsilon
    (False, True)
    >>> one_run_dpsgd(1000, noise_multiplier=2.5, steps=1, variant="clipping_skipped", canary_norm=20.0,
    ...               rng=0).violation
    True
    """
    choices = None if choices is None else np.asarray(choices)
    if choices is not None and (choices.shape[1] != 2 or (choices < 0).any() or (choices.sum(axis=1) > m).any()):
        raise ValueError(f"choices must be (k_plus, k_minus) pairs of non-negative counts with k_plus + k_minus <= m "
                         f"= {m}, got an array of shape {choices.shape}")
    t0 = time.perf_counter()
    g = as_generator(rng)
    dl = audit_delta(m) if delta is None else float(delta)
    sigma, C, q, T = float(noise_multiplier), float(clip), float(sampling_rate), int(steps)
    run_sigma, run_clip = _run_params(variant, sigma, C)
    included = g.random(m) < 0.5
    n_in = int(np.count_nonzero(included))
    # the expected batch of the correct configuration: the same normaliser for every variant and layout
    normalizer = q * (n_real + m / 2)
    kw: dict[str, Any] = dict(noise_multiplier=run_sigma, sampling_rate=q, steps=T, clip=run_clip, learning_rate=learning_rate,
              normalizer=normalizer)
    a = float(canary_norm)
    # an audit on synthetic data, as the auditor's own runs are: the trainings are not releases of anyone's data, and
    # the variants an audit compares may share a seed (the seed record keeps the releases of user data apart)
    with experiment_coins():
        if layout == "joint":
            Z, y = _real_data(g, n_real, d, d + m)
            pre = dp_sgd(Z[:1, :d], y[:1], **kw, rng=g)  # a run of this configuration: its report picks the canary
            kind = _pick_canary(canary, _claim(pre, sigma, C, dl), sigma, q, T, dl)
            rows = np.nonzero(included)[0] if kind == "zero" else np.arange(m)
            Zc = np.zeros((rows.size, d + m))
            Zc[np.arange(rows.size), d + rows] = a
            yc = np.where(included[rows], 1.0, -1.0)
            res = dp_sgd(np.vstack([Z, Zc]), np.r_[y, yc], **kw, rng=g)
            claim = _claim(res, sigma, C, dl)
            scores = res.weights[d:]
        else:
            Z, y = _real_data(g, n_real, d, d)
            res = dp_sgd(Z, y, **kw, rng=g)  # the real block
            claim = _claim(res, sigma, C, dl)
            kind = _pick_canary(canary, claim, sigma, q, T, dl)
            scores = np.empty(m)
            scores[included] = dp_sgd(np.array([[a]]), np.array([1.0]), **kw, n_runs=max(1, n_in),
                                      rng=g).weights[:n_in, 0]
            out_row, out_label = (np.zeros((1, 1)), 1.0) if kind == "zero" else (np.array([[a]]), -1.0)
            scores[~included] = dp_sgd(out_row, np.array([out_label]), **kw, n_runs=max(1, m - n_in),
                                       rng=g).weights[:m - n_in, 0]
    audit = one_run_audit(scores, included, delta=dl, confidence=confidence,
                          choices=default_choices(m) if choices is None else [tuple(c) for c in choices.tolist()])
    return OneRunDPSGD(variant, claim, dl, audit, int(m), n_in, sigma, T, q, time.perf_counter() - t0, kind, layout,
                       scores, included)


@validate_params(m=Integer(2), noise_multiplier=POSITIVE_REAL, steps=Integer(1),
                 sampling_rate=Real(0.0, 1.0, closed="right"), delta=Optional(Real(0.0, 1.0, closed="neither")),
                 clip=POSITIVE_REAL, canary_norm=POSITIVE_REAL, learning_rate=POSITIVE_REAL, n_real=Integer(1),
                 d=Integer(1), dim=Optional(Integer(2)), variant=Options(*VARIANTS), canary=Options(*CANARIES),
                 confidence=Real(0.0, 1.0, closed="neither"), rng=RNG)
def one_run_input_canaries(m: int, *, noise_multiplier: float, steps: int, sampling_rate: float = 1.0,
                           delta: float | None = None, clip: float = 1.0, canary_norm: float = 1.0,
                           learning_rate: float = 1.0, n_real: int = 500, d: int = 10, dim: int | None = None,
                           variant: str = "correct", canary: str = "auto", confidence: float = 0.95,
                           rng: Any = None) -> OneRunDPSGD:
    """Black-box one-run audit of DP-SGD logistic regression with ``m`` input-space canaries.

    Implements: AUDIT for DPSGD ([SNJ23] black-box setting: canaries are training examples, the score
    is the final model's loss on each).  The model is logistic regression on ``dim`` features (default
    ``4 m``); the real data are ``n_real`` unit rows in the first ``d`` features with labels of a random
    halfspace.  Canary ``i`` is an out-of-distribution point: a random direction in the other
    ``dim - d`` features (orthogonal to every real row), scaled to ``canary_norm``, with a random label
    (no relation to the data).  Each canary is in the training set with probability 1/2 (absent:
    left out, or, for ``canary="flipped"``, present with the opposite label; ``"auto"`` as in
    :func:`one_run_dpsgd`).  DP-SGD (the ``variant`` trainer; the claim of the correct one) trains once
    on the dense design; canary ``i``'s score is minus the final model's logistic loss on it, so low
    loss reads "included".  Random directions in ``dim >= 4 m`` features are nearly orthogonal, so each
    canary's own gradient dominates its score (the cross terms have variance about ``m / (2 dim)``
    of one canary's contribution).  The audit is that of :func:`one_run_dpsgd`.

    Examples
    --------
    >>> one_run_input_canaries(400, noise_multiplier=1.0, steps=1, rng=0).violation
    False
    """
    t0 = time.perf_counter()
    g = as_generator(rng)
    dl = audit_delta(m) if delta is None else float(delta)
    p = 4 * m if dim is None else int(dim)
    if p <= d:
        raise ValueError(f"dim must exceed d={d} (the canaries live in the other features), got {p}")
    sigma, C, q, T = float(noise_multiplier), float(clip), float(sampling_rate), int(steps)
    run_sigma, run_clip = _run_params(variant, sigma, C)
    Zr, yr = _real_data(g, n_real, d, p)
    X = np.zeros((m, p))
    X[:, d:] = g.standard_normal((m, p - d))
    X *= float(canary_norm) / np.linalg.norm(X, axis=1, keepdims=True)
    yx = np.where(g.random(m) < 0.5, 1.0, -1.0)
    included = g.random(m) < 0.5
    with experiment_coins():  # an audit on synthetic data (see one_run_dpsgd)
        pre = dp_sgd(Zr[:1, :d], yr[:1], noise_multiplier=sigma, sampling_rate=q, steps=T, clip=C, rng=g)
        kind = _pick_canary(canary, _claim(pre, sigma, C, dl), sigma, q, T, dl)  # a run's report picks the canary
        rows = np.nonzero(included)[0] if kind == "zero" else np.arange(m)
        yc = np.where(included[rows], yx[rows], -yx[rows])
        res = dp_sgd(np.vstack([Zr, X[rows]]), np.r_[yr, yc], noise_multiplier=run_sigma, sampling_rate=q, steps=T,
                     clip=run_clip, learning_rate=learning_rate, loss="logistic", normalizer=q * (n_real + m / 2), rng=g)
    claim = _claim(res, sigma, C, dl)
    scores = -loss_values(res.weights, X, yx, loss="logistic")
    audit = one_run_audit(scores, included, delta=dl, confidence=confidence, choices=default_choices(m))
    return OneRunDPSGD(variant, claim, dl, audit, int(m), int(included.sum()), sigma, T, q, time.perf_counter() - t0,
                       kind, "input-space", scores, included)


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
    m: int
    delta: float


@validate_params(noise_multiplier=POSITIVE_REAL, m=Integer(2), trials=Integer(1000),
                 delta=Optional(Real(0.0, 1.0, closed="neither")), rng=RNG)
def compare_with_many_runs(noise_multiplier: float, *, m: int = 100_000, trials: int = 20_000,
                           delta: float | None = None, rng: Any = None) -> Comparison:
    """One-run audit (``m`` canaries, one run) vs the many-run canary audit (one DP-SGD run per trial).

    Both audit the same claim (DP-SGD with ``sampling_rate = 1``, one step, at the one-run audit's delta,
    default :func:`audit_delta`) at confidence 0.95: the one-run experiment of :func:`one_run_dpsgd`, and
    :func:`semiprivate.theory.audit.audit_pairs` on the worst-case canary pair of
    :mod:`semiprivate.theory.audit_suite` (two zero rows against a zero row and one canary whose gradient
    has norm ``clip``: add/remove-one and replace-one neighbours alike), ``trials`` runs per dataset plus
    the selection batch."""
    g = as_generator(rng)
    one = one_run_dpsgd(m, noise_multiplier=noise_multiplier, steps=1, delta=delta, canary="zero", rng=g)
    D0 = (np.zeros((2, 2)), np.array([1.0, 1.0]))
    D1 = (np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([1.0, 1.0]))

    def mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return dp_sgd(data[0], data[1], noise_multiplier=noise_multiplier, sampling_rate=1.0, steps=1,
                      normalizer=1.0, n_runs=int(size), rng=rng).weights

    t0 = time.perf_counter()
    many = audit_pairs(mech, [(D0, D1)], epsilon=one.claimed_epsilon, delta=one.delta, trials=trials,
                       confidence=0.95, rng=g)
    return Comparison(one.epsilon_lower_bound, 1, one.seconds, many.epsilon_lower_bound, many.trials_used,
                      time.perf_counter() - t0, one.claimed_epsilon, int(m), one.delta)


@validate_params(steps=Integer(1), delta=Optional(Real(0.0, 1.0, closed="neither")), seed=Integer(0))
def sweep(epsilons: list[float], ms: list[int], *, steps: int = 1, delta: float | None = None, seed: int = 0
          ) -> list[dict[str, Any]]:
    """The reproduction sweep: for each claimed epsilon and number of canaries, one run's bound (the shape of
    the paper's white-box figure).  The noise is calibrated to the claim at ``delta`` (default
    :func:`audit_delta` of the largest ``m``, one delta for every cell) and the audit runs at that delta."""
    for name, vals, kind in (("epsilons", epsilons, (int, float)), ("ms", ms, (int,))):
        if not isinstance(vals, (list, tuple)) or not vals or not all(
                isinstance(v, kind) and not isinstance(v, bool) for v in vals):
            raise TypeError(f"{name} must be a non-empty list of numbers, got {vals!r:.60}")
        if not all(math.isfinite(v) and v > 0 for v in vals):
            raise ValueError(f"{name} must hold finite positive numbers, got {vals!r:.60}")
    dl = audit_delta(max(ms)) if delta is None else float(delta)
    rows = []
    for i, eps in enumerate(epsilons):
        sigma = float(calibrate_noise_multiplier(eps, dl, 1.0, steps, relation=ADD_OR_REMOVE_ONE))
        for j, m in enumerate(ms):
            r = one_run_dpsgd(m, noise_multiplier=sigma, steps=steps, delta=dl, rng=seed + 100 * i + j)
            rows.append(dict(claim=r.claimed_epsilon, m=m, bound=r.epsilon_lower_bound, sigma=sigma, delta=dl,
                             seconds=r.seconds, correct=r.audit.correct, guesses=r.audit.guesses, canary=r.canary))
    return rows

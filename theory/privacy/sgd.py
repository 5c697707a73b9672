"""Private convex optimisation for linear classifiers: BST14 Noisy SGD, PILLAR Alg 2, DP-SGD.

Implements: BST14.NoisySGD (Noisy SGD, Bassily–Smith–Thakurta 2014, Algorithm 1 as item BST14.NoisySGD states
it: ``python -m semiprivate spec BST14.NoisySGD``), PILLAR.Alg2 (R runs + exponential-mechanism selection, PILLAR App. A.1), DPSGD (Abadi et
al. 2016: per-example clipping, Poisson subsampling, Gaussian noise, accounted with the
``dp-accounting`` package's RDP and PLD accountants).

Loss (SPEC Sec 7, the documented reconstruction of PILLAR Eq. 1, lost in extraction): the
*scaled hinge loss* ``l(w; (z, y)) = max(0, 1 - y <w, z> / margin)``, (1/margin)-Lipschitz in
``w`` on the unit ball ``||z|| <= 1`` (``margin`` is the paper's gamma').  ``loss="logistic"``
(``log(1 + exp(-y <w, z> / margin))``, same Lipschitz constant) is offered for DP-SGD.
Labels are ``-1``/``+1``.

Per-example gradients of a linear model are rank one, ``g_i = c_i z_i`` with
``c_i = y_i phi'(y_i <w, z_i> / margin) / margin``, so ``||g_i|| = |c_i| ||z_i||``: clipping and
summing a batch cost two matrix-vector products, with no Python loop over examples and no
(batch x d) gradient matrix.

Randomness and runs.  Every trainer takes ``n_runs``: ``None`` (one run, weights of shape
``(p,)``) or an integer R (R independent runs advanced together, weights ``(R, p)``), so that
audits and Monte Carlo draw many outputs at NumPy speed through the same code that ``fit`` runs.

Privacy, as it is reported
--------------------------
* BST14: SPEC's statement of BST14 Thm 2.1 -- with ``sigma^2 = 32 L^2 n^2 log(n/delta)
  log(1/delta) / eps^2``, ``n^2`` steps of Noisy SGD are (eps, delta)-DP (replace-one
  neighbours).  The epsilon reported is derived from the sigma that ran:
  ``eps = sqrt(32 L^2 n^2 log(n/delta) log(1/delta)) / sigma``.  Fewer steps keep the
  guarantee: the theorem's proof bounds the privacy of the whole sequence of iterates
  ``theta_1, ..., theta_{n^2}`` (advanced composition over the n^2 steps), and the output of a
  shorter run is a function of a prefix of that sequence (post-processing).  More than ``n^2``
  steps are refused.  :meth:`NoisySGDResult.accountant_epsilon` gives, for comparison, the
  epsilon dp-accounting's RDP accountant computes for what ran (T steps of a Gaussian
  mechanism of L2 sensitivity 2 n L -- the change of ``n grad l`` when the sampled example is
  replaced -- on one example sampled uniformly, i.e. sampled without replacement with sample
  size 1, REPLACE_ONE): far below the theorem's epsilon, whose constants are loose.
* DP-SGD: add/remove-one neighbours (``NeighboringRelation.ADD_OR_REMOVE_ONE``).  Each step
  is a Poisson-subsampled Gaussian mechanism with sampling rate q and noise multiplier sigma
  on the sum of per-example gradients clipped to L2 norm C (sensitivity C under add/remove);
  ``steps`` of them compose: ``SelfComposedDpEvent(PoissonSampledDpEvent(q,
  GaussianDpEvent(sigma)), steps)``, evaluated by ``dp_accounting.rdp.RdpAccountant`` or
  ``dp_accounting.pld.PLDAccountant``.  The update divides by a fixed ``normalizer`` (default
  the expected batch size q n, treating n as public, as Opacus does); pass it explicitly to
  make the mechanism independent of n.
* PILLAR.Alg2: the R runs share S1 (each run at (eps/R, delta/R), basic composition: (eps,
  delta) on S1), the selection is the exponential mechanism (score = -#errors on S2,
  sensitivity 1, (eps, 0)) on a held-out part S2 disjoint from S1; the partition is a random
  permutation independent of the data, so parallel composition gives (max(eps_S1, eps_S2),
  delta_S1) = (eps, delta).

Examples
--------
>>> import numpy as np
>>> g = np.random.default_rng(0)
>>> Z = g.normal(size=(200, 3)); Z /= 2 * np.linalg.norm(Z, axis=1, keepdims=True)
>>> y = np.where(Z[:, 0] > 0, 1, -1)
>>> res = dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.1, steps=100, rng=0)
>>> res.weights.shape, round(res.epsilon(1e-5), 2) > 0
((3,), True)
>>> res.epsilon(1e-5) == dpsgd_epsilon(1.0, 0.1, 100, 1e-5)
True
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from semiprivate.kernels.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    RNG,
    Boolean,
    Integer,
    Optional,
    Options,
    Real,
    as_generator,
    check_array,
    validate_params,
)
from semiprivate.theory.bounds import pillar as _pillar_bounds
from semiprivate.theory.bounds.pillar import bst14_noise_scale, bst14_step_size
from semiprivate.theory.progress import progress_bar

__all__ = [
    "LOSSES",
    "check_signed_labels",
    "loss_values",
    "per_example_gradients",
    "clip_factors",
    "NoisySGDResult",
    "noisy_sgd",
    "bst14_epsilon_from_sigma",
    "noisy_sgd_accountant_epsilon",
    "DPSGDResult",
    "dp_sgd",
    "dpsgd_event",
    "dpsgd_epsilon",
    "calibrate_noise_multiplier",
    "zero_one_errors",
    "alg2_selection_log_probabilities",
    "Alg2Result",
    "pillar_alg2",
    "audit_cases",
]

LOSSES = ("hinge", "logistic")
_ACCOUNTANTS = Options("rdp", "pld")
_MAX_NOISE_MULTIPLIER = 2.0**30
# Per-step BLAS calls of DP-SGD on at most this many batch entries (rows x columns x runs) run on one
# thread: a (256 x 2048) GEMV takes ~0.07 ms on one core, and splitting it makes the call wait for a
# helper thread that a loaded machine may not schedule for a whole time slice (measured 6.5 ms per
# GEMV with 2 OpenBLAS threads on a 2-core machine at load 3.8, 0.1 ms with one thread).
_SINGLE_THREAD_BLAS_MAX = 1 << 22
_BLAS_CONTROLLER: Any = None
_NOISY_SGD_EPSILONS: dict[tuple[int, float, int, float], float] = {}


def _blas_single_thread(work: float) -> Any:
    """Context limiting BLAS to one thread when ``work`` (entries per step) is small (see above)."""
    global _BLAS_CONTROLLER
    if work > _SINGLE_THREAD_BLAS_MAX:
        return contextlib.nullcontext()
    if _BLAS_CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")


# ---------------------------------------------------------------------------
# inputs, losses, per-example gradients
# ---------------------------------------------------------------------------


@validate_params(length=Optional(Integer(0)))
def check_signed_labels(y: Any, name: str = "y", length: int | None = None) -> np.ndarray:
    """Labels as float64 in {-1, +1} (1-D, finite, the given length).

    Implements: BST14.NoisySGD / DPSGD input convention (halfspace labels are -1/+1, SPEC conventions).

    >>> check_signed_labels([1, -1, 1]).tolist()
    [1.0, -1.0, 1.0]
    >>> check_signed_labels([0, 1])
    Traceback (most recent call last):
    ...
    ValueError: y must contain only -1 and +1 (halfspace labels), got values [0, 1]
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name used in messages), got {type(name).__name__}")
    arr = check_array(y, name, ndim=1, dtype_kinds="biuf")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have {length} entries (one per row), got {arr.shape[0]}")
    vals = np.unique(arr)
    if not np.all(np.isin(vals, (-1, 1))):
        shown = [v.item() for v in vals[:6]]
        raise ValueError(f"{name} must contain only -1 and +1 (halfspace labels), got values {shown}")
    return arr.astype(np.float64)


def _check_features(Z: Any, name: str = "Z") -> np.ndarray:
    arr = check_array(Z, name, ndim=2, dtype_kinds="biuf")  # min_size=1: no row and no column is an error here
    return np.ascontiguousarray(arr, dtype=np.float64) if arr.dtype != np.float32 else np.ascontiguousarray(arr)


def _features_and_norms(Z: Any, name: str = "Z", float32: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Checked features and their row norms in one pass over Z: a NaN/inf entry makes its row's
    norm non-finite, and only then are the offending rows examined (for the error message).
    ``float32``: the features are converted to float32 first, and the norms (float64) are those of
    the float32 rows that the steps will use."""
    arr = check_array(Z, name, ndim=2, dtype_kinds="biuf", allow_nan=True, allow_inf=True)  # min_size=1
    if float32 or arr.dtype == np.float32:
        converted = arr.dtype != np.float32
        with np.errstate(over="ignore"):
            arr32 = np.ascontiguousarray(arr, dtype=np.float32)
        if converted and not np.isfinite(arr32).all():
            big = np.isfinite(arr) & ~np.isfinite(arr32)
            if big.any():
                i, j = np.argwhere(big)[0]
                raise ValueError(f"{name}[{i}, {j}] = {arr[i, j]:g} is beyond float32's range (|x| <= 3.4e38): "
                                 "use precision='float64' or rescale the features")
        arr = arr32
    else:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    norms = np.empty(arr.shape[0])
    step = max(1, (1 << 21) // arr.shape[1])  # float64 chunks of about 16 MiB
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(0, arr.shape[0], step):
            blk = np.asarray(arr[s:s + step], dtype=np.float64)
            norms[s:s + step] = np.sqrt(np.einsum("ij,ij->i", blk, blk))
    bad = ~np.isfinite(norms)
    if bad.any():
        rows = arr[bad]
        if np.isnan(rows).any():
            raise ValueError(f"{name} must not contain NaN")
        if np.isinf(rows).any():
            raise ValueError(f"{name} must not contain +-inf")
        norms[bad] = np.inf  # finite rows whose squared norm overflows: clipped to zero contribution
    return arr, norms


def _dphi(s: np.ndarray, loss: str) -> np.ndarray:
    """phi'(s) for the margin losses phi(s) = max(0, 1 - s) (hinge) and log(1 + e^-s) (logistic)."""
    if loss == "hinge":
        return np.where(s < 1.0, -1.0, 0.0)
    return -0.5 * (1.0 - np.tanh(0.5 * s))  # -1/(1 + e^s) = -expit(-s), overflow-free


@validate_params(loss=Options(*LOSSES), margin=POSITIVE_REAL)
def loss_values(w: Any, Z: Any, y: Any, *, loss: str = "hinge", margin: float = 1.0) -> np.ndarray:
    """Per-example losses ``phi(y <w, z> / margin)`` (scaled hinge or logistic).

    Implements: PILLAR.Alg1 (scaled hinge loss, SPEC Sec 7 reconstruction of PILLAR Eq. 1).

    >>> loss_values([1.0, 0.0], [[0.5, 0.0], [2.0, 0.0]], [1, 1], margin=1.0).tolist()
    [0.5, 0.0]
    """
    Zc = _check_features(Z)
    yc = check_signed_labels(y, length=Zc.shape[0])
    wv = check_array(w, "w", ndim=1, shape=(Zc.shape[1],))
    s = yc * (Zc @ wv) / float(margin)
    if loss == "hinge":
        return np.asarray(np.maximum(0.0, 1.0 - s))
    return np.asarray(np.logaddexp(0.0, -s))


@validate_params(loss=Options(*LOSSES), margin=POSITIVE_REAL)
def per_example_gradients(w: Any, Z: Any, y: Any, *, loss: str = "hinge", margin: float = 1.0) -> np.ndarray:
    """All per-example gradients ``g_i = c_i z_i`` as an (n, p) matrix (reference / tests).

    Implements: DPSGD (per-example gradients of a linear model).  The trainers never build this
    matrix: they use ``c`` and ``||z_i||`` directly (see the module docstring).

    >>> per_example_gradients([0.0, 0.0], [[0.5, 0.0]], [1], margin=0.5).tolist()
    [[-1.0, -0.0]]
    """
    Zc = _check_features(Z)
    yc = check_signed_labels(y, length=Zc.shape[0])
    wv = check_array(w, "w", ndim=1, shape=(Zc.shape[1],))
    m = float(margin)
    c = yc * _dphi(yc * (Zc @ wv) / m, loss) / m
    return np.asarray(c[:, None] * Zc)


def clip_factors(norms: np.ndarray, clip: float) -> np.ndarray:
    """``min(1, clip / ||g_i||)`` (1 where the norm is 0): the per-example clipping factors.

    Implements: DPSGD (per-example clipping, Abadi et al. 2016, Alg 1 line "clip gradient").

    >>> clip_factors(np.array([0.0, 0.5, 4.0]), 1.0).tolist()
    [1.0, 1.0, 0.25]
    """
    if not isinstance(norms, np.ndarray) or norms.dtype.kind != "f":
        norms = check_array(norms, "norms", ndim=1, dtype_kinds="iuf", min_size=0).astype(np.float64)
    POSITIVE_REAL.validate("clip", clip)
    out = np.ones_like(norms)
    big = norms > clip
    out[big] = clip / norms[big]
    return out


def _project(W: np.ndarray, radius: float | None) -> None:
    """In place: rows of W onto the L2 ball of the given radius (None: no projection)."""
    if radius is None:
        return
    nrm = np.sqrt(np.einsum("...p,...p->...", W, W))
    big = nrm > radius
    if np.any(big):
        if W.ndim == 1:
            W *= radius / nrm
        else:
            W[big] *= (radius / nrm[big])[:, None]


def _check_unit_ball(Z: np.ndarray, name: str, tol: float = 1e-9) -> float:
    # in float64 also for float32 rows: float32 arithmetic rounds ||z||^2 = 1 + 6e-8 down to 1, which
    # let rows of norm up to about 1 + 3e-8 > 1 + tol through (sensitivity above the calibrated one)
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z, dtype=np.float64))
    worst = float(norms.max()) if norms.size else 0.0
    if worst > 1.0 + tol:
        i = int(np.argmax(norms))
        raise ValueError(
            f"{name} rows must lie in the unit ball (||z|| <= 1; the Lipschitz constant and so the privacy "
            f"calibration assume it): row {i} has norm {worst:.10g}; normalise the rows first"
        )
    return worst


def _init_weights(w0: Any, p: int, runs: int | None) -> np.ndarray:
    if w0 is None:
        return np.zeros(p) if runs is None else np.zeros((runs, p))
    w = check_array(w0, "w0", ndim=1, shape=(p,)).astype(np.float64)
    return w.copy() if runs is None else np.tile(w, (runs, 1))


# ---------------------------------------------------------------------------
# BST14 Noisy SGD
# ---------------------------------------------------------------------------


@validate_params(n=POSITIVE_INT, lipschitz=POSITIVE_REAL, sigma=POSITIVE_REAL, delta=Real(0.0, 1.0, closed="neither"))
def bst14_epsilon_from_sigma(n: int, lipschitz: float, sigma: float, delta: float) -> float:
    """The epsilon for which BST14's noise formula gives ``sigma``: ``sigma_BST14(n, L, 1, delta) / sigma``.

    Implements: BST14.NoisySGD (privacy of Noisy SGD, SPEC Sec 7): inverts
    ``sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / eps^2`` (via
    :func:`semiprivate.theory.bounds.pillar.bst14_noise_scale` at eps = 1, so the formula has one home).

    >>> round(bst14_epsilon_from_sigma(1000, 1.0, bst14_noise_scale(1000, 1.0, 0.5, 1e-5), 1e-5), 12)
    0.5
    """
    # the module attribute, not this module's name for it: the noise noisy_sgd draws and the
    # privacy it reports are computed independently (a changed noise scale shows in privacy)
    return float(_pillar_bounds.bst14_noise_scale(n, lipschitz, 1.0, delta) / float(sigma))


@dataclass(frozen=True)
class NoisySGDResult:
    """Output of :func:`noisy_sgd` and what ran.

    Attributes
    ----------
    weights : (p,) or (R, p) array
        The last iterate theta_T (one row per run).
    sigma : float
        Noise standard deviation that was added to ``n grad l``.
    step_size : float
        eta(1); eta(t) = eta(1) / sqrt(t).
    steps, n : int
        Number of updates and of examples.
    lipschitz : float
        L = 1 / margin (rows in the unit ball).
    privacy : (epsilon, delta)
        The guarantee of what ran: BST14's epsilon derived from ``sigma``
        (:func:`bst14_epsilon_from_sigma`) where the accountant confirms it, else the accountant's
        (see :func:`noisy_sgd`).
    theorem_epsilon : float
        BST14's epsilon for ``sigma`` (the theorem's claim, whether or not it holds here).
    """

    weights: np.ndarray
    sigma: float
    step_size: float
    steps: int
    n: int
    lipschitz: float
    privacy: tuple[float, float]
    theorem_epsilon: float = math.nan

    def accountant_epsilon(self, delta: float | None = None) -> float:
        """RDP epsilon (dp-accounting) of what ran at ``delta`` (default: the run's delta)."""
        d = self.privacy[1] if delta is None else delta
        return noisy_sgd_accountant_epsilon(self.n, self.sigma / (2.0 * self.n * self.lipschitz), self.steps, d)


@validate_params(n=POSITIVE_INT, noise_multiplier=POSITIVE_REAL, steps=POSITIVE_INT,
                 delta=Real(0.0, 1.0, closed="neither"))
def noisy_sgd_accountant_epsilon(n: int, noise_multiplier: float, steps: int, delta: float) -> float:
    """dp-accounting RDP epsilon of ``steps`` Gaussian steps on one uniformly sampled example of n.

    Implements: BST14.NoisySGD (privacy of what ran, accounted by ``dp_accounting.rdp.RdpAccountant``
    with ``SampledWithoutReplacementDpEvent(n, 1, GaussianDpEvent(noise_multiplier))`` composed
    ``steps`` times under REPLACE_ONE; ``noise_multiplier = sigma / (2 n L)``).

    >>> noisy_sgd_accountant_epsilon(100, 50.0, 10_000, 1e-5) < 1.0
    True
    """
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    key = (int(n), float(noise_multiplier), int(steps), float(delta))
    if key not in _NOISY_SGD_EPSILONS:  # a pure function of its arguments: every Noisy SGD run asks for it
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(int(n), 1,
                                                           dp_accounting.GaussianDpEvent(float(noise_multiplier))),
            int(steps))
        acc = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        with _quiet_rdp_orders():
            if len(_NOISY_SGD_EPSILONS) >= 4096:
                _NOISY_SGD_EPSILONS.clear()
            _NOISY_SGD_EPSILONS[key] = float(acc.compose(event).get_epsilon(float(delta)))
    return _NOISY_SGD_EPSILONS[key]


def _noisy_sgd_block(w: np.ndarray, Z: np.ndarray, y: np.ndarray, idx: list[int], noise: np.ndarray, t: int, n: int,
                     m: float, sigma: float, eta1: float, radius: float) -> int:
    """Steps t+1..t+len(idx) of one Noisy SGD run, in place on w (the R-run loop of
    :func:`noisy_sgd` with R = 1, written on 1-d arrays; tests check both give the same iterates)."""
    r2 = radius * radius
    for s, i in enumerate(idx):
        t += 1
        z = Z[i]
        yi = float(y[i])
        eta = eta1 / math.sqrt(t)
        if yi * float(z @ w) / m < 1.0:  # hinge active: grad l = -(y/m) z
            w -= eta * ((-n * yi / m) * z + sigma * noise[s])
        else:
            w -= (eta * sigma) * noise[s]
        nrm2 = float(w @ w)
        if nrm2 > r2:
            w *= radius / math.sqrt(nrm2)
    return t


@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), margin=POSITIVE_REAL,
                 radius=POSITIVE_REAL, n_steps=Optional(POSITIVE_INT), n_runs=Optional(POSITIVE_INT), rng=RNG)
def noisy_sgd(Z: Any, y: Any, epsilon: float, delta: float, *, margin: float = 1.0, radius: float = 1.0,
              n_steps: int | None = None, n_runs: int | None = None, w0: Any = None, rng: Any = None,
              progress: bool | None = None, desc: str = "Noisy SGD") -> NoisySGDResult:
    r"""BST14 Noisy SGD on the scaled hinge loss over the ball of radius ``radius``.

    Implements: BST14.NoisySGD (Bassily, Smith, Thakurta 2014, Algorithm 1 A_Noise-SGD, as item BST14.NoisySGD
    states it, ``python -m semiprivate spec BST14.NoisySGD``; PILLAR App. A.1's base procedure).

    Statement (SPEC): for an L-Lipschitz convex loss on a convex set C,
    ``theta_{t+1} = Proj_C(theta_t - eta(t) (n grad l(theta_t; d_t) + b_t))`` with d_t uniform
    from the n examples, ``b_t ~ N(0, sigma^2 I_p)``,
    ``sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / eps^2``,
    ``eta(t) = ||C|| / sqrt(t (n^2 L^2 + p sigma^2))``, ``T = n^2`` steps, output theta_T.
    (eps, delta)-DP; expected excess (summed) risk ``O(L ||C|| log^{3/2}(n/delta)
    sqrt(p log(1/delta)) / eps)`` (:func:`semiprivate.theory.bounds.pillar.bst14_excess_risk`).

    Constants used: C = ball of radius ``radius`` (``||C||`` = its diameter, ``2 radius``),
    theta_1 = 0 (or ``w0``), L = 1/margin (scaled hinge, rows in the unit ball -- checked),
    sigma and eta(1) from :func:`semiprivate.theory.bounds.pillar.bst14_noise_scale` /
    :func:`~semiprivate.theory.bounds.pillar.bst14_step_size`; natural logs.

    Parameters
    ----------
    Z : (n, p) array
        Features, rows in the unit ball (a ValueError otherwise).
    y : (n,) array of -1/+1
    epsilon, delta : float
        Privacy target; ``0 < delta < 1`` (the Gaussian noise needs delta > 0).
    margin : float
        gamma' of the scaled hinge loss.
    radius : float
        Radius of the constraint ball C.
    n_steps : int, optional
        T (default n^2); at most n^2 (see the module docstring for why fewer steps keep the
        guarantee).
    n_runs : int, optional
        Independent runs advanced together (weights of shape (R, p)).
    w0 : (p,) array, optional
        theta_1 (default 0); must lie in C.
    rng : None, int or Generator
    progress : bool, optional
        A tqdm bar over the T steps on stderr (default: when stderr is a terminal and T >= 10^5,
        e.g. the default n^2 steps from n = 317).
    desc : str
        The progress bar's label.

    Returns
    -------
    NoisySGDResult

    Privacy (``privacy``): BST14's epsilon for the sigma that ran where dp-accounting's RDP
    accountant of what ran (T Gaussian steps of sensitivity 2 n L on one example sampled of n,
    replace-one; :func:`noisy_sgd_accountant_epsilon`) confirms it, i.e. ``max(theorem,
    accountant)``.  Outside the theorem's range the accountant's epsilon is reported: e.g. with
    one example (no amplification by sampling) the theorem's sigma gives the exact Gaussian
    mechanism of sensitivity 2L, whose delta at the claimed epsilon exceeds the claimed delta at
    (eps, delta) = (10, 0.5), (100, 0.1), (300, 0.01).

    Examples
    --------
    >>> Z = np.array([[0.6, 0.0], [-0.6, 0.1], [0.5, -0.2]]); y = np.array([1, -1, 1])
    >>> r = noisy_sgd(Z, y, 1.0, 1e-3, rng=0)
    >>> r.steps, r.weights.shape, r.privacy
    (9, (2,), (1.0, 0.001))
    """
    Zc = _check_features(Z)
    n, p = Zc.shape
    yc = check_signed_labels(y, length=n)
    _check_unit_ball(Zc, "Z")
    T = n * n if n_steps is None else int(n_steps)
    if T > n * n:
        raise ValueError(f"n_steps must be <= n^2 = {n * n} (BST14's privacy theorem covers n^2 steps), got {T}")
    m = float(margin)
    L = 1.0 / m
    diameter = 2.0 * float(radius)
    sigma = float(bst14_noise_scale(n, L, float(epsilon), float(delta)))
    eta1 = float(bst14_step_size(1, n, p, L, diameter, float(epsilon), float(delta)))
    g = as_generator(rng)
    W = _init_weights(w0, p, n_runs)
    if float(np.max(np.linalg.norm(np.atleast_2d(W), axis=1))) > float(radius) * (1 + 1e-12):
        raise ValueError(f"w0 must lie in the constraint ball of radius {radius}")
    R = 1 if n_runs is None else int(n_runs)
    W2 = W.reshape(R, p)
    block = max(1, min(T, (1 << 20) // max(1, R * p)))
    t = 0
    bar = progress_bar(progress, T, threshold=100_000, desc=desc, unit="step")
    while t < T:
        b = min(block, T - t)
        idx = g.integers(0, n, size=(b, R))
        noise = g.standard_normal((b, R, p))
        if n_runs is None:  # one run: the same update on 1-d arrays (same random draws, ~4x fewer NumPy calls)
            t = _noisy_sgd_block(W2[0], Zc, yc, idx[:, 0].tolist(), noise[:, 0, :], t, n, m, sigma, eta1,
                                 float(radius))
            bar.update(b)
            continue
        for s in range(b):
            t += 1
            zi = Zc[idx[s]]                       # (R, p): d_t, one example per run
            yi = yc[idx[s]]
            marg = yi * np.einsum("rp,rp->r", W2, zi) / m
            coef = yi * _dphi(marg, "hinge") / m  # grad l = coef * z
            grad = (n * coef)[:, None] * zi + sigma * noise[s]
            W2 -= (eta1 / math.sqrt(t)) * grad
            _project(W2, float(radius))
        bar.update(b)
    bar.close()
    eps_claim = bst14_epsilon_from_sigma(n, L, sigma, float(delta))
    eps_acc = noisy_sgd_accountant_epsilon(n, sigma / (2.0 * n * L), T, float(delta))
    out = W2[0].copy() if n_runs is None else W2
    return NoisySGDResult(weights=out, sigma=sigma, step_size=eta1, steps=T, n=n, lipschitz=L,
                          privacy=(max(eps_claim, eps_acc), float(delta)), theorem_epsilon=eps_claim)


# ---------------------------------------------------------------------------
# DP-SGD and its accounting (dp-accounting)
# ---------------------------------------------------------------------------


@contextlib.contextmanager
def _quiet_rdp_orders() -> Iterator[None]:
    """Silence dp-accounting's absl warning that an RDP order failed to converge.

    ``RdpAccountant`` then drops that order from the minimum over orders, which can only raise
    the epsilon it returns (still a valid bound); the warning is noise for a user (it fires for
    the low fractional orders at large sampling rates while the noise multiplier is calibrated).
    """
    log = logging.getLogger("absl")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _accountant(kind: str) -> Any:
    if kind == "rdp":
        from dp_accounting.rdp import RdpAccountant

        return RdpAccountant()
    from dp_accounting.pld import PLDAccountant

    return PLDAccountant()


@validate_params(noise_multiplier=POSITIVE_REAL, sampling_rate=Real(0.0, 1.0, closed="right"), steps=POSITIVE_INT,
                 compositions=POSITIVE_INT)
def dpsgd_event(noise_multiplier: float, sampling_rate: float, steps: int, compositions: int = 1) -> Any:
    """The ``dp_accounting`` event of DP-SGD: ``steps * compositions`` Poisson-subsampled Gaussian steps.

    Implements: DPSGD (accounting).  ``compositions`` runs of the same (q, sigma, steps) -- e.g.
    one-vs-rest over several classes on the same data -- compose into one self-composed event.

    >>> dpsgd_event(1.0, 0.01, 10).count
    10
    """
    import dp_accounting

    step = dp_accounting.PoissonSampledDpEvent(float(sampling_rate), dp_accounting.GaussianDpEvent(float(noise_multiplier)))
    return dp_accounting.SelfComposedDpEvent(step, int(steps) * int(compositions))


@validate_params(noise_multiplier=POSITIVE_REAL, sampling_rate=Real(0.0, 1.0, closed="right"), steps=POSITIVE_INT,
                 delta=Real(0.0, 1.0, closed="neither"), accountant=_ACCOUNTANTS, compositions=POSITIVE_INT)
def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float, *,
                  accountant: str = "rdp", compositions: int = 1) -> float:
    """Epsilon at ``delta`` of DP-SGD, by ``dp_accounting`` (RDP or PLD accountant).

    Implements: DPSGD (accounting; add/remove-one neighbours).  Nothing is re-derived here: the
    event of :func:`dpsgd_event` goes to ``RdpAccountant`` / ``PLDAccountant`` and their
    ``get_epsilon(delta)`` is returned.

    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5), 4)
    2.1014
    """
    acc = _accountant(accountant)
    with _quiet_rdp_orders():
        acc.compose(dpsgd_event(noise_multiplier, sampling_rate, steps, compositions))
        eps = float(acc.get_epsilon(float(delta)))
    if accountant == "rdp" and eps <= 0.0:
        # RDP's conversion clips to 0 where no order certifies a positive epsilon; an epsilon of 0 is
        # never reported: the PLD accountant's (pessimistic) epsilon of the same event is
        return dpsgd_epsilon(noise_multiplier, sampling_rate, steps, delta, accountant="pld",
                             compositions=compositions)
    return eps


@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), sampling_rate=Real(0.0, 1.0, closed="right"),
                 steps=POSITIVE_INT, accountant=_ACCOUNTANTS, compositions=POSITIVE_INT)
def calibrate_noise_multiplier(epsilon: float, delta: float, sampling_rate: float, steps: int, *,
                               accountant: str = "rdp", compositions: int = 1) -> float:
    """Smallest noise multiplier (to 1e-6 relative) whose DP-SGD epsilon at ``delta`` is <= ``epsilon``.

    Implements: DPSGD (noise calibration) with ``dp_accounting.calibrate_dp_mechanism`` (Brent's
    method on the accountant's epsilon) inside a bracket [hi/2, hi] found by doubling from 1 (or
    halving, when 1/2 already meets ``epsilon``), with tolerance 1e-7 hi <= 2e-7 sigma*.
    ``calibrate_dp_mechanism`` returns a point whose epsilon is <= the target (it steps Brent's root
    by the tolerance to the private side, or bisects), so the result always meets ``epsilon`` with
    the same accountant.  RDP's conversion to (epsilon, delta) cannot certify small epsilons (below
    about ``log(1/delta) / alpha_max``): it returns values above the target and then 0 from some
    noise multiplier on; a target only met by that 0 is refused (use the PLD accountant).  Noise below 2^-10 is not searched: when 2^-10 already meets ``epsilon``,
    2^-10 is returned.

    Raises
    ------
    ValueError
        Naming ``epsilon`` when no noise multiplier up to 2^30 reaches it (epsilon too small for
        this many steps / this budget split), or when the RDP accountant meets it only by rounding
        to 0.

    Examples
    --------
    >>> s = calibrate_noise_multiplier(1.0, 1e-5, 0.01, 1000)
    >>> dpsgd_epsilon(s, 0.01, 1000, 1e-5) <= 1.0 < dpsgd_epsilon(s * 0.999, 0.01, 1000, 1e-5)
    True
    """
    import dp_accounting

    eps, dl, q, T, c = float(epsilon), float(delta), float(sampling_rate), int(steps), int(compositions)

    def eps_of(s: float) -> float:  # the accountant's own epsilon (RDP's 0 included: refused below)
        acc = _accountant(accountant)
        with _quiet_rdp_orders():
            return float(acc.compose(dpsgd_event(s, q, T, c)).get_epsilon(dl))

    hi = 1.0
    while eps_of(hi) > eps:
        hi *= 2.0
        if hi > _MAX_NOISE_MULTIPLIER:
            raise ValueError(
                f"epsilon={eps:g} is too small for this budget split: no noise multiplier <= 2^30 reaches it at "
                f"delta={dl:g} with sampling rate {q:g}, {T} steps and {c} composition(s); raise epsilon or lower "
                "the number of steps / classes")
    lo = hi / 2.0
    while lo > 1e-3 and eps_of(lo) <= eps:
        hi, lo = lo, lo / 2.0
    if eps_of(lo) <= eps:  # even tiny noise meets the target
        return lo
    with _quiet_rdp_orders():
        sigma = float(dp_accounting.calibrate_dp_mechanism(
            lambda: _accountant(accountant),
            lambda s: dpsgd_event(float(s), q, T, c),
            eps, dl, bracket_interval=dp_accounting.ExplicitBracketInterval(lo, hi), tol=1e-7 * hi))
    if accountant == "rdp":
        acc = _accountant("rdp")
        with _quiet_rdp_orders():
            raw = float(acc.compose(dpsgd_event(sigma, q, T, c)).get_epsilon(dl))
        if raw <= 0.0:
            raise ValueError(
                f"epsilon={eps:g} is below what the RDP accountant certifies here: its conversion jumps to 0 at "
                f"noise multiplier {sigma:.6g} without passing epsilon={eps:g} (a far noisier run than needed); use "
                "accountant='pld'")
    return sigma


@dataclass(frozen=True)
class DPSGDResult:
    """Output of :func:`dp_sgd` and what ran (the accountant's input).

    Attributes
    ----------
    weights : (p,) or (R, p) array
    noise_multiplier, sampling_rate, clip, learning_rate, normalizer : float
    steps : int
    batch_sizes : (steps,) array of int (run 0's Poisson batch sizes)
    """

    weights: np.ndarray
    noise_multiplier: float
    sampling_rate: float
    steps: int
    clip: float
    learning_rate: float
    normalizer: float
    batch_sizes: np.ndarray = field(repr=False)

    def event(self, compositions: int = 1) -> Any:
        """The dp_accounting event of this run (see :func:`dpsgd_event`)."""
        return dpsgd_event(self.noise_multiplier, self.sampling_rate, self.steps, compositions)

    def epsilon(self, delta: float, accountant: str = "rdp") -> float:
        """Epsilon at ``delta`` of what ran (:func:`dpsgd_epsilon`; ``inf`` for a noiseless run)."""
        if self.noise_multiplier == 0.0:
            return math.inf
        return dpsgd_epsilon(self.noise_multiplier, self.sampling_rate, self.steps, delta, accountant=accountant)


def _dp_sgd_reference(Z: np.ndarray, y: np.ndarray, *, noise_multiplier: float, sampling_rate: float, steps: int,
                      clip: float = 1.0, learning_rate: float = 1.0, loss: str = "hinge", margin: float = 1.0,
                      radius: float | None = None, normalizer: float | None = None, lr_schedule: str = "constant",
                      w0: Any = None, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The plain form of one DP-SGD run (the specification :func:`dp_sgd`'s fast loop is checked against).

    Implements: DPSGD (Abadi et al. 2016, Alg 1) for a linear model, step by step with fresh arrays:
    Poisson batch (Binomial(n, q) size, uniform subset), ``c_i = y_i phi'(y_i <w, z_i>/m)/m``,
    clip factors ``min(1, C / (|c_i| ||z_i||))``, ``G = Z_b^T (c * f)``, ``w <- Proj(w - lr_t (G +
    N(0, sigma^2 C^2 I)) / normalizer)``.  Inputs are taken as they are (float64, checked by the
    caller).  Returns (weights, batch sizes).
    """
    Zc = np.asarray(Z, dtype=np.float64)
    yc = np.asarray(y, dtype=np.float64)
    n, p = Zc.shape
    q, C, m = float(sampling_rate), float(clip), float(margin)
    norm = q * n if normalizer is None else float(normalizer)
    znorm = np.sqrt(np.einsum("ij,ij->i", Zc, Zc))
    g = as_generator(rng)
    W = np.zeros(p) if w0 is None else np.array(w0, dtype=np.float64)
    sizes = np.empty(int(steps), dtype=np.int64)
    for t in range(int(steps)):
        k = int(g.binomial(n, q))
        idx = g.choice(n, size=k, replace=False) if k < n else np.arange(n)
        sizes[t] = k
        zb, yb = Zc[idx], yc[idx]
        coef = yb * _dphi(yb * (zb @ W) / m, loss) / m
        coef *= clip_factors(np.abs(coef) * znorm[idx], C)
        G = zb.T @ coef
        noise = g.standard_normal(W.shape) * (float(noise_multiplier) * C)
        lr_t = float(learning_rate) if lr_schedule == "constant" else float(learning_rate) / math.sqrt(t + 1)
        W -= (lr_t / norm) * (G + noise)
        _project(W, radius)
    return W, sizes


def _dp_sgd_one_run(w: np.ndarray, Zc: np.ndarray, yc: np.ndarray, znorm: np.ndarray, g: np.random.Generator,
                    sizes: np.ndarray, q: float, C: float, lr: float, m: float, sig: float, norm: float, loss: str,
                    radius: float | None, lr_schedule: str, f32: bool, bar: Any) -> None:
    """The steps of one DP-SGD run, in place on ``w`` (shape (p,)).

    Per step: the Poisson batch is gathered once into a preallocated (batch x p) buffer (no fresh
    allocation, so no page faults per step); ``s = Z_b w`` (one GEMV); the clipped per-example
    coefficients ``c_i min(1, C / (|c_i| ||z_i||))`` on the batch (length-B vectors); the clipped
    sum ``Z_b^T c`` (one GEMV).  The (batch x p) per-example gradient matrix is never formed.  The
    random draws (binomial size, subset, noise) and every floating-point operation are those of
    :func:`_dp_sgd_reference` (the plain per-step form; tests check the two agree bit for bit).
    With ``f32`` (``precision="float32"``) the two GEMVs run in float32 on float32 features and
    the iterate stays float64; the clipping bound is then C (1 - 2^-21), so that every example's
    term of the float32 sum has norm <= C after the float32 roundings of its coefficient and products.
    """
    n, p = Zc.shape
    T = sizes.shape[0]
    # float32: clip to C (1 - 2^-21) so that each example's term as computed, fl32(fl32(c_i) z_ij),
    # has norm <= C (the cast and the product each round by <= 2^-24 relative; measured without the
    # margin: up to C (1 + 7.9e-8))
    C32 = C * (1.0 - 2.0**-21)
    cap = min(n, int(q * n + 8.0 * math.sqrt(q * n) + 16))
    buf = np.empty((cap, p), dtype=Zc.dtype)
    everyone = np.arange(n)
    noise = np.empty(p)
    for t in range(T):
        k = int(g.binomial(n, q))
        idx = g.choice(n, size=k, replace=False) if k < n else everyone
        sizes[t] = k
        if k > buf.shape[0]:
            buf = np.empty((k, p), dtype=Zc.dtype)
        zb = np.take(Zc, idx, axis=0, out=buf[:k], mode="clip")  # idx < n: clip never acts
        yb = yc[idx]
        if f32:
            s = (zb @ w.astype(np.float32)).astype(np.float64)
        else:
            s = zb @ w
        coef = yb * _dphi(yb * s / m, loss) / m
        coef *= clip_factors(np.abs(coef) * znorm[idx], C32 if f32 else C)
        G = (zb.T @ coef.astype(np.float32)).astype(np.float64) if f32 else zb.T @ coef
        g.standard_normal(out=noise)
        noise *= sig * C
        lr_t = lr if lr_schedule == "constant" else lr / math.sqrt(t + 1)
        G += noise
        G *= lr_t / norm
        w -= G
        _project(w, radius)
        if (t + 1) % 64 == 0 or t + 1 == T:
            bar.update(t + 1 - bar.n)


@validate_params(noise_multiplier=Real(0.0, math.inf, closed="left"), sampling_rate=Real(0.0, 1.0, closed="right"),
                 steps=POSITIVE_INT, clip=POSITIVE_REAL, learning_rate=POSITIVE_REAL, loss=Options(*LOSSES),
                 margin=POSITIVE_REAL, radius=Optional(POSITIVE_REAL), normalizer=Optional(POSITIVE_REAL),
                 lr_schedule=Options("constant", "inv_sqrt"), n_runs=Optional(POSITIVE_INT), rng=RNG,
                 precision=Options("float64", "float32"))
def dp_sgd(Z: Any, y: Any, *, noise_multiplier: float, sampling_rate: float, steps: int, clip: float = 1.0,
           learning_rate: float = 1.0, loss: str = "hinge", margin: float = 1.0, radius: float | None = None,
           normalizer: float | None = None, lr_schedule: str = "constant", n_runs: int | None = None,
           w0: Any = None, rng: Any = None, precision: str = "float64", progress: bool | None = None) -> DPSGDResult:
    r"""DP-SGD (Abadi et al. 2016) for a linear classifier, per-example gradients vectorised.

    Implements: DPSGD.  Each step: a Poisson sample B (every example independently with
    probability q = ``sampling_rate``); per-example gradients ``g_i`` of the margin loss
    clipped to ``clip`` (``g_i min(1, C/||g_i||)``); ``w <- Proj(w - lr (sum_i g_i clipped +
    N(0, sigma^2 C^2 I)) / normalizer)`` with sigma = ``noise_multiplier`` and ``Proj`` the
    projection on the ball of radius ``radius`` (none by default).  Privacy: see
    :func:`dpsgd_epsilon` (add/remove-one; the rows need not lie in the unit ball: clipping
    bounds the sensitivity).

    Parameters
    ----------
    Z : (n, p) array; y : (n,) array of -1/+1
    noise_multiplier : float >= 0
        sigma (0 only for non-private reference runs: infinite epsilon).
    sampling_rate : float in (0, 1]
    steps : int
    clip : float
        C, the per-example L2 clipping norm.
    learning_rate : float
    loss : {"hinge", "logistic"}; margin : float
        The scaled margin loss (see the module docstring).
    radius : float, optional
        Project the iterates on this ball (the BST14/PILLAR constraint set); None: no projection.
    normalizer : float, optional
        Divide the noisy sum by this (default ``q n``, the expected batch size).
    lr_schedule : {"constant", "inv_sqrt"}
        Step t uses ``learning_rate`` or ``learning_rate / sqrt(t)`` (data-independent: no
        effect on privacy).
    n_runs : int, optional
        R independent runs together (weights (R, p)); sampling by a Bernoulli mask per run
        (one run: a Binomial(n, q) batch size and a uniform subset of that size -- the same
        Poisson-sampling law, O(batch) per step).
    w0 : (p,) array, optional
    rng : None, int or Generator
    precision : {"float64", "float32"}
        Arithmetic of the per-step products ``Z_b w`` and ``Z_b^T c`` (the iterate, clipping
        factors and noise stay float64).  "float64" (default) is exact to the reference
        (:func:`_dp_sgd_reference`); "float32" converts Z once (free when it is float32 already)
        and halves the memory traffic, with float32 rounding in the two products.  Clipping is
        computed in float64 from the float32 rows, to C (1 - 2^-21) so that each example's term of
        the float32 sum, as rounded, still has norm <= C: the sensitivity the accountant assumes.
        As in every floating-point DP-SGD (float64 here included), the accounting is for the sum
        in exact arithmetic: the summation's own rounding, at most about B u ||sum|_1 for a batch
        of B (u = 2^-24 in float32, 2^-53 in float64), is not accounted.
    progress : bool, optional
        A tqdm bar over the steps on stderr (default: when stderr is a terminal and steps >= 2000).

    Returns
    -------
    DPSGDResult
    """
    f32 = precision == "float32"
    Zc, znorm = _features_and_norms(Z, float32=f32)
    n, p = Zc.shape
    yc = check_signed_labels(y, length=n)
    q, C, lr, m = float(sampling_rate), float(clip), float(learning_rate), float(margin)
    sig = float(noise_multiplier)
    norm = q * n if normalizer is None else float(normalizer)
    g = as_generator(rng)
    W = _init_weights(w0, p, n_runs)
    T = int(steps)
    sizes = np.empty(T, dtype=np.int64)
    R = 1 if n_runs is None else int(n_runs)
    bar = progress_bar(progress, T, threshold=2000, desc="DP-SGD", unit="step")
    with bar, _blas_single_thread(R * p * max(1.0, q * n)):
        if n_runs is None:
            _dp_sgd_one_run(W, Zc, yc, znorm, g, sizes, q, C, lr, m, sig, norm, loss, radius, lr_schedule, f32, bar)
        else:
            for t in range(T):
                mask = g.random((R, n)) < q
                rows, cols = np.nonzero(mask)
                sizes[t] = int(np.count_nonzero(rows == 0))
                zb, yb = Zc[cols], yc[cols]
                coef = yb * _dphi(yb * np.einsum("ip,ip->i", W[rows], zb) / m, loss) / m
                coef *= clip_factors(np.abs(coef) * znorm[cols], C)
                G = np.zeros((R, p))
                for j in range(p):
                    G[:, j] = np.bincount(rows, weights=coef * zb[:, j], minlength=R)
                noise = g.standard_normal(W.shape) * (sig * C)
                lr_t = lr if lr_schedule == "constant" else lr / math.sqrt(t + 1)
                W -= (lr_t / norm) * (G + noise)
                _project(W, radius)
                if (t + 1) % 64 == 0 or t + 1 == T:
                    bar.update(t + 1 - bar.n)
    return DPSGDResult(weights=W, noise_multiplier=sig, sampling_rate=q, steps=int(steps), clip=C,
                       learning_rate=lr, normalizer=norm, batch_sizes=sizes)


# ---------------------------------------------------------------------------
# PILLAR Algorithm 2: R runs + exponential-mechanism selection
# ---------------------------------------------------------------------------


def zero_one_errors(W: Any, Z: Any, y: Any) -> np.ndarray:
    """#errors of each row of W on (Z, y), predicting +1 iff <w, z> > 0 (so sign(0) = -1).

    Implements: PILLAR.Alg2 (the selection score is -#errors, sensitivity 1).

    >>> zero_one_errors([[1.0, 0.0], [-1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [1, -1]).tolist()
    [0, 2]
    """
    Wc = np.atleast_2d(check_array(W, "W", ndim=(1, 2), dtype_kinds="iuf")).astype(np.float64)
    Zc = _check_features(Z)
    if Wc.shape[1] != Zc.shape[1]:
        raise ValueError(f"W must have {Zc.shape[1]} columns (as Z), got shape {Wc.shape}")
    yc = check_signed_labels(y, length=Zc.shape[0])
    pred = np.where(Zc @ Wc.T > 0, 1.0, -1.0)  # (n, R)
    return np.asarray(np.count_nonzero(pred != yc[:, None], axis=0), dtype=np.int64)


@validate_params(epsilon=EPSILON)
def alg2_selection_log_probabilities(candidates: Any, Z_holdout: Any, y_holdout: Any, epsilon: float) -> np.ndarray:
    """Exact log-probabilities of PILLAR Alg 2's selection among the R candidates.

    Implements: PILLAR.Alg2 (selection step): ``P[r] ∝ exp(-eps errors_r / 2)``, the
    exponential mechanism with score -#errors on the held-out data (sensitivity 1), from
    :func:`semiprivate.kernels.exponential_log_probabilities`.

    >>> lp = alg2_selection_log_probabilities([[1.0, 0.0], [-1.0, 0.0]], [[1.0, 0.0]], [1], 2.0)
    >>> round(float(np.exp(lp[0] - lp[1])), 6) == round(math.e, 6)
    True
    """
    from semiprivate import kernels

    errs = zero_one_errors(candidates, Z_holdout, y_holdout)
    return np.asarray(kernels.exponential_log_probabilities(-errs.astype(np.float64), float(epsilon), sensitivity=1.0))


@dataclass(frozen=True)
class Alg2Result:
    """Output of :func:`pillar_alg2`.

    Attributes
    ----------
    weights : (p,) array, the selected candidate
    candidates : (R, p) array
    holdout_errors : (R,) int array
    index : int, the selected run
    runs : NoisySGDResult (all R runs, weights (R, p))
    budget : dict
        ``per_run`` (eps, delta) of each run, ``runs_total`` (basic composition over R runs on
        S1), ``selection`` (eps, 0) on S2, ``total`` (parallel composition over S1, S2),
        ``n_train``, ``n_holdout``, ``repeats``.
    privacy : (epsilon, delta), = budget["total"]
    """

    weights: np.ndarray
    candidates: np.ndarray
    holdout_errors: np.ndarray
    index: int
    runs: NoisySGDResult
    budget: dict[str, Any]
    privacy: tuple[float, float]


@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), repeats=POSITIVE_INT,
                 holdout_fraction=PROBABILITY, margin=POSITIVE_REAL, radius=POSITIVE_REAL,
                 n_steps=Optional(POSITIVE_INT), rng=RNG)
def pillar_alg2(Z: Any, y: Any, epsilon: float, delta: float, *, repeats: int = 3, holdout_fraction: float = 0.2,
                margin: float = 1.0, radius: float = 1.0, n_steps: int | None = None, rng: Any = None,
                progress: bool | None = None) -> Alg2Result:
    r"""PILLAR Algorithm 2: R runs of BST14 Noisy SGD, then the exponential mechanism on held-out data.

    Implements: PILLAR.Alg2 (PILLAR App. A.1, Alg 2; BST14 App. D's confidence boosting).  The
    text of Alg 2 was lost in extraction; reconstructed from its description ("applies a base
    procedure on S for R times ... then applies the exponential mechanism to output one final
    result", R ~ log(1/beta)) as follows:

    1. Split the n examples by a data-independent random permutation into S1
       (``n - n_hold``) and S2 (``n_hold = max(1, round(holdout_fraction n))``).
    2. Run :func:`noisy_sgd` R = ``repeats`` times on S1, each at (eps/R, delta/R).
    3. Select run r with probability ∝ exp(-eps errors_r(S2) / 2)
       (:func:`semiprivate.kernels.exponential_mechanism`, score -#errors, sensitivity 1).

    Budget (computed from what ran, in ``budget``): the runs compose to (sum eps_r, sum delta_r)
    on S1 (basic composition); the selection is (eps_sel, 0) on S2; S1, S2 are disjoint, so the
    total is (max(sum eps_r, eps_sel), sum delta_r) = (eps, delta).

    ``n_steps`` (per run; default |S1|^2) as in :func:`noisy_sgd`.  ``progress``: a tqdm bar over the
    steps of the R runs (advanced together) on stderr; default as in :func:`noisy_sgd`.

    Examples
    --------
    >>> g = np.random.default_rng(1)
    >>> Z = g.normal(size=(20, 2)); Z /= 2 * np.linalg.norm(Z, axis=1, keepdims=True)
    >>> y = np.where(Z[:, 0] > 0, 1, -1)
    >>> res = pillar_alg2(Z, y, 1.0, 1e-3, repeats=3, n_steps=50, rng=0)
    >>> res.candidates.shape, res.privacy
    ((3, 2), (1.0, 0.001))
    """
    from semiprivate import kernels

    Zc = _check_features(Z)
    n = Zc.shape[0]
    yc = check_signed_labels(y, length=n)
    n_hold = max(1, int(round(float(holdout_fraction) * n)))
    if n - n_hold < 1:
        raise ValueError(f"holdout_fraction={holdout_fraction} leaves no training example out of n={n}")
    g = as_generator(rng)
    perm = g.permutation(n)
    tr, ho = perm[n_hold:], perm[:n_hold]
    R = int(repeats)
    e_run, d_run = float(epsilon) / R, float(delta) / R
    runs = noisy_sgd(Zc[tr], yc[tr], e_run, d_run, margin=margin, radius=radius, n_steps=n_steps, n_runs=R, rng=g,
                     progress=progress, desc=f"PILLAR Alg 2 ({R} runs)")
    errs = zero_one_errors(runs.weights, Zc[ho], yc[ho])
    eps_sel = float(epsilon)
    index = int(kernels.exponential_mechanism(-errs.astype(np.float64), eps_sel, sensitivity=1.0, rng=g))
    per_run = runs.privacy
    runs_total = (R * per_run[0], R * per_run[1])
    total = (max(runs_total[0], eps_sel), runs_total[1])
    budget = {"per_run": per_run, "runs_total": runs_total, "selection": (eps_sel, 0.0), "total": total,
              "n_train": int(len(tr)), "n_holdout": int(n_hold), "repeats": R}
    return Alg2Result(weights=runs.weights[index].copy(), candidates=runs.weights, holdout_errors=errs, index=index,
                      runs=runs, budget=budget, privacy=total)


# ---------------------------------------------------------------------------
# canary audits for the built-in suite (semiprivate.theory.audit_suite)
# ---------------------------------------------------------------------------


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
    sigma = calibrate_noise_multiplier(1.0, delta, 1.0, 1)

    def dpsgd_mech(noise: float) -> Any:
        def mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
            return dp_sgd(data[0], data[1], noise_multiplier=noise, sampling_rate=1.0, steps=1, normalizer=1.0,
                          n_runs=int(size), rng=rng).weights
        return mech

    ran = dp_sgd(*D1, noise_multiplier=sigma, sampling_rate=1.0, steps=1, normalizer=1.0, rng=0)
    claim = ran.epsilon(delta)
    out.append(dict(name="semiprivate.theory.privacy.sgd.dp_sgd (DPSGD, canary added, q=1, T=1)", mechanism=dpsgd_mech(sigma),
                    pairs=[(D0, D1)], epsilon=claim, delta=delta, private=True,
                    true_epsilon=ran.epsilon(delta, accountant="pld"),
                    claim="Abadi et al.: (eps, delta) by dp-accounting RDP, add/remove-one", trials_scale=1.0))
    B0 = (np.zeros((3, 2)), np.ones(3))
    B1 = (np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]), np.ones(3))

    def bst_mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return noisy_sgd(data[0], data[1], 1.0, delta, n_runs=int(size), rng=rng).weights

    bst = noisy_sgd(*B1, 1.0, delta, rng=0)
    out.append(dict(name="semiprivate.theory.privacy.sgd.noisy_sgd (BST14, canary replaced, n=3, T=9)", mechanism=bst_mech,
                    pairs=[(B0, B1)], epsilon=bst.privacy[0], delta=bst.privacy[1], private=True, true_epsilon=None,
                    claim="BST14 Thm 2.1 as SPEC states it (replace-one)", trials_scale=0.2))
    if include_broken:
        half = dp_sgd(*D1, noise_multiplier=sigma / 2, sampling_rate=1.0, steps=1, normalizer=1.0, rng=0)
        # 5x the suite's trials: at 2e5 trials the bound (about 1.2 at 1e6) may stay below the claim
        out.append(dict(name="BROKEN dp_sgd, noise multiplier / 2", mechanism=dpsgd_mech(sigma / 2),
                        pairs=[(D0, D1)], epsilon=claim, delta=delta, private=False,
                        true_epsilon=half.epsilon(delta, accountant="pld"), claim="claims the calibrated epsilon",
                        trials_scale=5.0))

        def bst_broken(data: Any, size: int, rng: Any = None) -> np.ndarray:
            return _noisy_sgd_noise_divided(data[0], data[1], 1.0, delta, 100.0, int(size), rng)

        out.append(dict(name="BROKEN noisy_sgd with noise / 100", mechanism=bst_broken, pairs=[(B0, B1)],
                        epsilon=bst.privacy[0], delta=delta, private=False,
                        true_epsilon=None, claim="claims BST14 Thm 2.1", trials_scale=0.2))
    return out


"""DP-SGD (Abadi et al. 2016) for linear classifiers, per-example gradients vectorised.

Implements: DPSGD (per-example clipping, Poisson subsampling, Gaussian noise; accounted by
:mod:`semiprivate.theory.privacy.accounting` with dp-accounting's RDP or PLD accountant,
replace-one neighbours by default: one example replaced by another, the ``"labelled"`` privacy
model of :mod:`semiprivate.theory.learners._base`).  The update divides by a fixed ``normalizer`` (default the expected batch
size q n, treating n as public, as Opacus does); pass it explicitly to make the mechanism independent
of n.  Per-example gradients are rank one (:mod:`semiprivate.theory.privacy.linear`): a step costs two
matrix-vector products.

Randomness and runs: ``n_runs`` ``None`` (one run, weights ``(p,)``) or R (R independent runs advanced
together, weights ``(R, p)``).

Examples
--------
>>> import numpy as np
>>> from semiprivate.theory.privacy.accounting import dpsgd_epsilon
>>> g = np.random.default_rng(0)
>>> Z = g.normal(size=(200, 3)); Z /= 2 * np.linalg.norm(Z, axis=1, keepdims=True)
>>> y = np.where(Z[:, 0] > 0, 1, -1)
>>> res = dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.1, steps=100, rng=0)
>>> res.weights.shape, round(res.epsilon(1e-5), 2) > 0
((3,), True)
>>> res.epsilon(1e-5, "pld") == dpsgd_epsilon(1.0, 0.1, 100, 1e-5, accountant="pld")
True
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from semiprivate.kernels.threads import blas_controller
from semiprivate.theory.privacy._release import released_function
from semiprivate.theory.privacy.accounting import REPLACE_ONE, dpsgd_epsilon, dpsgd_event
from semiprivate.theory.privacy.linear import (
    LOSSES,
    RADIUS,
    _dphi,
    _features_and_norms,
    _init_weights,
    _project,
    check_signed_labels,
    clip_factors,
)
from semiprivate.theory.progress import progress_bar
from semiprivate.validation import (
    POSITIVE_INT,
    POSITIVE_REAL,
    RNG,
    Optional,
    Options,
    Real,
    as_generator,
    validate_params,
)

__all__ = [
    "DPSGDResult",
    "dp_sgd",
]

# Per-step BLAS calls of DP-SGD on at most this many batch entries (rows x columns x runs) run on one
# thread: a (256 x 2048) GEMV takes ~0.07 ms on one core, and splitting it makes the call wait for a
# helper thread that a loaded machine may not schedule for a whole time slice (measured 6.5 ms per
# GEMV with 2 OpenBLAS threads on a 2-core machine at load 3.8, 0.1 ms with one thread).
_SINGLE_THREAD_BLAS_MAX = 1 << 22


def _blas_single_thread(work: float) -> Any:
    """Context limiting BLAS to one thread when ``work`` (entries per step) is small (see above)."""
    if work > _SINGLE_THREAD_BLAS_MAX:
        return contextlib.nullcontext()
    return blas_controller().limit(limits=1, user_api="blas")


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

    def epsilon(self, delta: float, accountant: str = "rdp", relation: str = REPLACE_ONE) -> float:
        """Epsilon at ``delta`` of what ran (:func:`dpsgd_epsilon`, replace-one by default; ``inf`` if noiseless)."""
        if self.noise_multiplier == 0.0:
            return math.inf
        return dpsgd_epsilon(self.noise_multiplier, self.sampling_rate, self.steps, delta, accountant=accountant,
                             relation=relation)


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


@released_function
@validate_params(noise_multiplier=Real(0.0, math.inf, closed="left"), sampling_rate=Real(0.0, 1.0, closed="right"),
                 steps=POSITIVE_INT, clip=POSITIVE_REAL, learning_rate=POSITIVE_REAL, loss=Options(*LOSSES),
                 margin=POSITIVE_REAL, radius=Optional(RADIUS), normalizer=Optional(POSITIVE_REAL),
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
    :func:`dpsgd_epsilon` (replace-one by default: a replaced example's clipped term moves
    the sum by at most 2C; the rows need not lie in the unit ball: clipping bounds the sensitivity).

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
        Project the iterates on this ball (the BST14/PILLAR constraint set), radius in [1e-150, 1e150]
        (outside, the projection's squared norms under- or overflow in float64); None: no projection.
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

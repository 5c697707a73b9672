"""BST14 Noisy SGD for linear classifiers (scaled hinge loss, unit ball).

Implements: BST14.NoisySGD (Noisy SGD, Bassily–Smith–Thakurta 2014, Algorithm 1 as item
BST14.NoisySGD states it: ``python -m semiprivate spec BST14.NoisySGD``; PILLAR App. A.1's base
procedure).

Privacy, as it is reported: BST14's epsilon derived from the sigma that ran,
``eps = sqrt(32 L^2 n^2 log(n/delta) log(1/delta)) / sigma`` (:func:`~semiprivate.theory.privacy.accounting.bst14_epsilon_from_sigma`),
where dp-accounting's RDP accountant of what ran confirms it, else the accountant's epsilon
(``max`` of the two: the theorem is applied only inside the range where it holds; see
:func:`noisy_sgd`).  Fewer than ``n^2`` steps keep the guarantee: the theorem's proof bounds the
privacy of the whole sequence of iterates ``theta_1, ..., theta_{n^2}`` (advanced composition over
the n^2 steps), and the output of a shorter run is a function of a prefix of that sequence
(post-processing).  More than ``n^2`` steps are refused.

Randomness and runs: ``n_runs`` ``None`` (one run, weights of shape ``(p,)``) or an integer R (R
independent runs advanced together, weights ``(R, p)``), so that audits and Monte Carlo draw many
outputs at NumPy speed through the same code that ``fit`` runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.bounds.pillar import bst14_noise_scale, bst14_step_size
from semiprivate.theory.privacy._release import released_function
from semiprivate.theory.privacy.accounting import bst14_epsilon_from_sigma, noisy_sgd_accountant_epsilon
from semiprivate.theory.privacy.linear import (
    RADIUS,
    _check_features,
    _check_unit_ball,
    _dphi,
    _init_weights,
    _project,
    check_signed_labels,
)
from semiprivate.theory.progress import progress_bar
from semiprivate.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    RNG,
    Optional,
    Real,
    as_generator,
    validate_params,
)

__all__ = [
    "NoisySGDResult",
    "noisy_sgd",
]

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


@released_function
@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), margin=POSITIVE_REAL,
                 radius=RADIUS, n_steps=Optional(POSITIVE_INT), n_runs=Optional(POSITIVE_INT), rng=RNG)
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
        Radius of the constraint ball C, in [1e-150, 1e150] (outside, the projection's squared norms
        under- or overflow in float64; rescale the features instead).
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

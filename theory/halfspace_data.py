"""Data for the halfspace learners: PILLAR's large-margin low-rank distributions, large-margin
Gaussian mixtures, TV-shifted public data, and the bundled digits data split into public /
private / test parts.

Implements: PILLAR.Def3 ((gamma, k, eta)-large-margin low-rank distribution; also the
distribution family of HPSY.Thm3), PILLAR.Ex1 (large-margin Gaussian mixture), PILLAR.Def4 /
PILLAR.Thm2 (public marginal at a stated TV distance from the private one).

The displayed formulas of PILLAR (seed 002) were lost in extraction; what is used here is
reconstructed from the surviving text and stated in each docstring:

* PILLAR.Def3: D over B^d x {-1, +1} is (gamma, k, eta)-large-margin low-rank if some w* in
  B^d has ``y <w*, x> >= gamma`` almost surely (large margin) and
  ``||w* - A_k A_k^T w*|| <= eta`` (low-rank separability), A_k the top-k eigenvectors of
  ``Sigma_X = E[x x^T]`` (the text: "a large margin linear classifier that contains a
  significant projection on the top principal components"; "every distribution with a
  positive margin satisfies low-rank separability for every k with some eta"; the proof
  bounds ``||A_hat A_hat^T w* - w*||`` by eta plus the PCA error).  HPSY Thm 3 measures
  low rank differently, by the tail mass ``sum_{i>k} lambda_i(Sigma_X) <= eta``: the
  generator reports both (``eta`` and ``tail_mass``), exactly.
* PILLAR.Ex1: ``x | y ~ N(y mu + c, s^2 I_d)``, y uniform, with ``c ⊥ mu`` (two spiked
  second-moment directions, k = 2, as App. A.5's "first two eigenvectors"), truncated so that
  the margin holds with probability one, and scaled into the unit ball.
* PILLAR.Def4 / Thm2: the public marginal is ``(1 - tau) D_X + tau Q`` with Q singular to D_X,
  so ``TV = tau`` exactly.

Labels are -1/+1 (SPEC conventions for halfspaces).

Examples
--------
>>> D = LargeMarginLowRank(20, 3, 0.2, eta=0.1, tail=0.05, rng=0)
>>> X, y = D.sample(1000, rng=1)
>>> bool(np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)), bool(np.all(y * (X @ D.w_star) >= D.gamma - 1e-12))
(True, True)
>>> round(D.eta, 12), round(D.tail_mass, 12)
(0.1, 0.05)
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from semiprivate.kernels._reference_pca import subspace_distance as projection_distance
from semiprivate.validation import (
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    RNG,
    Integer,
    Real,
    as_generator,
    check_array,
    validate_params,
)

__all__ = [
    "LargeMarginLowRank",
    "GaussianMixtureHalfspace",
    "TVShiftedPublic",
    "DigitsSplit",
    "digits_split",
    "normalize_rows",
    "projected_margins",
    "subspace_distance",
]


def _haar_orthogonal(d: int, g: np.random.Generator) -> np.ndarray:
    """A Haar-random d x d orthogonal matrix (QR of a Gaussian matrix, signs fixed by diag(R) > 0)."""
    Q, Rm = np.linalg.qr(g.standard_normal((d, d)))
    return np.asarray(Q * np.sign(np.diag(Rm))[None, :])


def _check_n(n: Any) -> int:
    return int(POSITIVE_INT.validate("n", n))


class LargeMarginLowRank:
    r"""A (gamma, k, eta)-large-margin low-rank distribution with a planted halfspace.

    Implements: PILLAR.Def3 (reconstructed, see the module docstring) -- also a member of HPSY
    Thm 3's family with tail mass ``tail_mass``.

    Construction (in an orthonormal basis b_1..b_d, Haar-random from ``rng``): y uniform in
    {-1, +1}; coordinate 1 is ``y a`` with ``a ~ U[a_min, a_min + spread]`` (the signal);
    coordinate j >= 2 is ``s_j r_j`` with r_j independent Rademacher signs.  So
    ``E[x x^T] = B diag(v) B^T`` exactly, ``v_1 = E[a^2]``, ``v_j = s_j^2``:

    * head (the k largest, in eigen order): ``lambda_i = v_1 decay^(signal_rank - i)``,
      i = 1..k; the signal direction b_1 sits at rank ``signal_rank``;
    * tail (d - k directions): equal variances ``tail / (d - k)``, so
      ``sum_{i>k} lambda_i = tail`` (HPSY's eta) exactly;
    * ``w* = sqrt(1 - eta^2) b_1 + eta b_m`` with b_m a tail direction:
      ``||w* - A_k A_k^T w*|| = eta`` (PILLAR's eta) exactly, and
      ``y <w*, x> = sqrt(1 - eta^2) a + eta y s_m r_m >= sqrt(1 - eta^2) a_min - eta s_m = gamma``
      (a_min is solved from this; the infimum is the exact margin);
    * ``||x||^2 = a^2 + sum_{j>=2} s_j^2 <= 1`` is checked (a ValueError names the
      parameters when the requested structure does not fit in the unit ball).

    Parameters
    ----------
    d, k : int
        Dimension and rank, ``1 <= k <= d`` (``k < d`` when ``eta > 0`` or ``tail > 0``).
    gamma : float in (0, 1)
        The margin of w*.
    eta : float in [0, 1)
        Low-rank separability ||w* - A_k A_k^T w*|| (PILLAR).
    tail : float >= 0
        Tail mass sum_{i>k} lambda_i (HPSY).
    signal_rank : int in [1, k]
        Eigen rank of the signal direction.
    decay : float > 1
        Ratio of consecutive head eigenvalues.
    spread : float >= 0
        Width of the law of a.
    rng : None, int or Generator
        Randomness of the basis (the distribution itself is fixed after construction).

    Attributes
    ----------
    w_star : (d,) unit vector; gamma, eta, tail_mass : float
    second_moment : (d, d) exact E[x x^T]; eigenvalues : (d,) descending; components : (d, k)
        exact top-k eigenvectors A_k; eigengap : lambda_k - lambda_{k+1}.
    """

    @validate_params(d=POSITIVE_INT, k=POSITIVE_INT, gamma=PROBABILITY, eta=Real(0.0, 1.0, closed="left"),
                     tail=Real(0.0, 1.0, closed="left"), signal_rank=POSITIVE_INT,
                     decay=Real(1.0, math.inf, closed="neither"), spread=Real(0.0, 1.0), rng=RNG)
    def __init__(self, d: int, k: int, gamma: float, *, eta: float = 0.0, tail: float = 0.05, signal_rank: int = 1,
                 decay: float = 1.5, spread: float = 0.05, rng: Any = 0) -> None:
        d, k = int(d), int(k)
        if k > d:
            raise ValueError(f"k must be <= d = {d}, got k={k}")
        if signal_rank > k:
            raise ValueError(f"signal_rank must be <= k = {k}, got signal_rank={signal_rank}")
        if k == d and (eta > 0 or tail > 0):
            raise ValueError(f"eta and tail must be 0 when k == d (no tail direction), got eta={eta}, tail={tail}")
        self.d, self.k, self.signal_rank = d, k, int(signal_rank)
        self.eta = float(eta)
        s_tail2 = float(tail) / (d - k) if d > k else 0.0
        ce = math.sqrt(1.0 - self.eta**2)
        a_min = (float(gamma) + self.eta * math.sqrt(s_tail2)) / ce
        a_max = a_min + float(spread)
        v1 = (a_min**2 + a_min * a_max + a_max**2) / 3.0
        head = np.array([v1 * float(decay) ** (self.signal_rank - i) for i in range(1, k + 1)])
        if d > k and not head[-1] > s_tail2:
            raise ValueError(
                f"tail={tail} is too large for the head spectrum (lambda_k = {head[-1]:.4g} must exceed each tail "
                f"eigenvalue tail/(d-k) = {s_tail2:.4g}); lower tail or decay, or raise gamma")
        norm2 = a_max**2 + float(head.sum() - v1) + float(tail)
        if norm2 > 1.0 + 1e-12:
            raise ValueError(
                f"gamma={gamma}, k={k}, decay={decay}, signal_rank={signal_rank}, tail={tail}, spread={spread} do not "
                f"fit in the unit ball (max ||x||^2 = {norm2:.4g} > 1); lower gamma, k, decay, signal_rank or tail")
        g = as_generator(rng)
        B = _haar_orthogonal(d, g)
        # basis order: b_1 = signal, b_2..b_k = the other head directions, b_{k+1}.. = tail
        others = [float(v) for i, v in enumerate(head) if i != self.signal_rank - 1]
        var = np.array([v1, *others, *([s_tail2] * (d - k))])
        self.basis = B
        self.variances = var
        self.a_min, self.a_max = a_min, a_max
        self._scale = np.sqrt(var[1:])
        self.w_star = ce * B[:, 0] + (self.eta * B[:, k] if d > k else 0.0)
        self.gamma = ce * a_min - self.eta * math.sqrt(s_tail2)
        self.tail_mass = float(s_tail2 * (d - k))
        self.second_moment = (B * var[None, :]) @ B.T
        order = np.argsort(-var, kind="stable")
        self.eigenvalues = var[order]
        self.components = B[:, order[:k]]
        self.eigengap = float(self.eigenvalues[k - 1] - (self.eigenvalues[k] if d > k else 0.0))
        self.max_norm = math.sqrt(norm2)

    def __repr__(self) -> str:
        return (f"LargeMarginLowRank(d={self.d}, k={self.k}, gamma={self.gamma:.4g}, eta={self.eta:.4g}, "
                f"tail={self.tail_mass:.4g}, signal_rank={self.signal_rank})")

    def _coords(self, n: int, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        y = np.where(g.random(n) < 0.5, -1.0, 1.0)
        C = np.empty((n, self.d))
        C[:, 0] = y * g.uniform(self.a_min, self.a_max, size=n)
        C[:, 1:] = np.where(g.random((n, self.d - 1)) < 0.5, -1.0, 1.0) * self._scale[None, :]
        return C, y

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """n labelled examples (X of shape (n, d), y in {-1, +1})."""
        C, y = self._coords(_check_n(n), as_generator(rng))
        return C @ self.basis.T, y

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        """n unlabelled points from D_X."""
        return self.sample(n, rng)[0]


class GaussianMixtureHalfspace:
    r"""A large-margin Gaussian mixture, truncated and scaled into the unit ball.

    Implements: PILLAR.Ex1 (reconstructed; App. A.5): ``x | y ~ N(y mu + c, s^2 I_d)``,
    y uniform in {-1, +1}, ``c ⊥ mu`` (``||mu|| = mu_norm``, ``||c|| = offset``, random
    directions from ``rng``), conditioned on ``|<u, g>| <= t s`` and ``||g|| <= s (sqrt(d) +
    t)`` for the noise ``g = x - (y mu + c)`` and ``u = mu/||mu||``, with
    ``t = sqrt(2 log(2/truncation))`` (each event has probability >= 1 - truncation/2:
    Gaussian tail and PILLAR's Lemma 7, ``||g|| <= s (sqrt(d) + t)`` w.p. >= 1 - exp(-t^2/2)),
    then divided by ``R = sqrt(mu_norm^2 + offset^2) + s (sqrt(d) + t)``.

    Then ``w* = u`` has margin ``gamma = (mu_norm - t s) / R`` with probability one (needs
    mu_norm > t s), every point is in the unit ball, and the second moment has two spiked
    directions (span{mu, c}), so PILLAR.Def3 holds with k = 2, eta = 0 (before truncation
    the tail mass is ``(d - 2) s^2 / R^2``; reported as ``tail_mass``, approximately).
    """

    @validate_params(d=Integer(2), mu_norm=POSITIVE_REAL, sigma=POSITIVE_REAL, offset=Real(0.0, math.inf),
                     truncation=PROBABILITY, rng=RNG)
    def __init__(self, d: int, mu_norm: float, sigma: float, *, offset: float = 0.0, truncation: float = 1e-3,
                 rng: Any = 0) -> None:
        g = as_generator(rng)
        B = _haar_orthogonal(int(d), g)
        self.d = int(d)
        self.sigma = float(sigma)
        self.t = math.sqrt(2.0 * math.log(2.0 / float(truncation)))
        if not float(mu_norm) > self.t * self.sigma:
            raise ValueError(f"mu_norm must exceed t*sigma = {self.t * self.sigma:.4g} for a positive margin, "
                             f"got mu_norm={mu_norm}")
        self.u = B[:, 0]
        self.mu = float(mu_norm) * B[:, 0]
        self.c = float(offset) * B[:, 1]
        self.r = self.sigma * (math.sqrt(self.d) + self.t)
        self.R = math.hypot(float(mu_norm), float(offset)) + self.r
        self.w_star = self.u.copy()
        self.gamma = (float(mu_norm) - self.t * self.sigma) / self.R
        self.eta = 0.0
        self.k = 2
        self.tail_mass = (self.d - 2) * self.sigma**2 / self.R**2

    def __repr__(self) -> str:
        return (f"GaussianMixtureHalfspace(d={self.d}, mu_norm={np.linalg.norm(self.mu):.4g}, sigma={self.sigma:.4g}, "
                f"gamma={self.gamma:.4g})")

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """n labelled examples (rejection sampling of the truncated noise)."""
        n = _check_n(n)
        g = as_generator(rng)
        noise = np.empty((0, self.d))
        while noise.shape[0] < n:
            z = g.standard_normal((2 * (n - noise.shape[0]) + 8, self.d)) * self.sigma
            ok = (np.abs(z @ self.u) <= self.t * self.sigma) & (np.linalg.norm(z, axis=1) <= self.r)
            noise = np.vstack([noise, z[ok]])
        y = np.where(g.random(n) < 0.5, -1.0, 1.0)
        X = (y[:, None] * self.mu[None, :] + self.c[None, :] + noise[:n]) / self.R
        return X, y

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        """n unlabelled points."""
        return self.sample(n, rng)[0]


class TVShiftedPublic:
    r"""Public marginal ``(1 - tau) D_X + tau Q`` at TV distance exactly ``tau`` from D_X.

    Implements: PILLAR.Def4 / PILLAR.Thm2 (TV-bounded shift between public and private
    marginals; the formal definitions were lost in extraction: "D_X^pub and D_X have
    tau-bounded TV distance").  Q is uniform on the segment ``{t u : |t| <= scale}`` for a unit
    vector u (default: a tail direction of ``base`` when it has one, the adversarial choice
    that competes with the signal for the top principal components; else random).  A segment
    has measure zero under D_X (absolutely continuous, or, for
    :class:`LargeMarginLowRank`, supported on segments parallel to b_1 that do not pass
    through 0), so Q ⊥ D_X and ``TV((1 - tau) D_X + tau Q, D_X) = tau`` exactly.
    """

    @validate_params(tau=Real(0.0, 1.0), scale=Real(0.0, 1.0, closed="right"), rng=RNG)
    def __init__(self, base: Any, tau: float, *, direction: Any = None, scale: float = 1.0, rng: Any = 0) -> None:
        if not hasattr(base, "sample_X"):
            raise TypeError(f"base must be a distribution with sample_X(n, rng), got {type(base).__name__}")
        self.base = base
        self.tau = float(tau)
        self.scale = float(scale)
        d = int(base.d)
        if direction is None:
            if isinstance(base, LargeMarginLowRank) and base.d > base.k:
                u = base.basis[:, -1].copy()
            else:
                u = as_generator(rng).standard_normal(d)
        else:
            u = check_array(direction, "direction", ndim=1, shape=(d,)).astype(np.float64)
        nrm = float(np.linalg.norm(u))
        if not nrm > 0:
            raise ValueError("direction must be a non-zero vector")
        self.direction = u / nrm
        self.d = d
        self.tv = self.tau

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        """n public points."""
        n = _check_n(n)
        g = as_generator(rng)
        X = np.asarray(self.base.sample_X(n, g), dtype=np.float64)
        swap = g.random(n) < self.tau
        m = int(swap.sum())
        if m:
            X[swap] = g.uniform(-self.scale, self.scale, size=m)[:, None] * self.direction[None, :]
        return X


def normalize_rows(X: Any, name: str = "X") -> np.ndarray:
    """Each row divided by its L2 norm (onto the unit sphere; zero rows stay zero).

    Implements: HPSY.Thm3 footnote 2 ("normalise every example to the unit ball"); a per-row
    map, so it changes no privacy guarantee.

    >>> normalize_rows([[3.0, 4.0], [0.0, 0.0]]).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name used in messages), got {type(name).__name__}")
    A = check_array(X, name, ndim=2, dtype_kinds="biuf").astype(np.float64)
    nrm = np.linalg.norm(A, axis=1, keepdims=True)
    return np.asarray(np.divide(A, nrm, out=np.zeros_like(A), where=nrm > 0))


class DigitsSplit(NamedTuple):
    """scikit-learn's bundled digits (1797 x 64, 10 classes) split three ways, rows on the unit sphere."""

    X_public: np.ndarray
    X_private: np.ndarray
    y_private: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


@validate_params(n_public=POSITIVE_INT, n_test=POSITIVE_INT, rng=RNG)
def digits_split(n_public: int = 600, n_test: int = 397, rng: Any = 0) -> DigitsSplit:
    """The digits data (``sklearn.datasets.load_digits``, shipped with scikit-learn: no download)
    as public unlabelled / private labelled / test parts, each row normalised to the unit sphere.

    Implements: the real-data setting of PILLAR.Alg1 / HPSY.Thm3 experiments (public unlabelled
    split + private labelled split + test split).  A seeded random permutation assigns the first
    ``n_public`` rows (labels dropped) to the public part, the next ``n_test`` to the test part,
    the rest (1797 - n_public - n_test) to the private part.  Row normalisation is per row
    (:func:`normalize_rows`), so no statistic of the private data enters the public features.

    >>> s = digits_split(rng=0)
    >>> s.X_public.shape, s.X_private.shape, s.X_test.shape, sorted(set(s.y_private.tolist())) == list(range(10))
    ((600, 64), (800, 64), (397, 64), True)
    """
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    n = X.shape[0]
    if n_public + n_test >= n:
        raise ValueError(f"n_public + n_test must be < {n} (rows of digits), got n_public={n_public}, n_test={n_test}")
    perm = as_generator(rng).permutation(n)
    Xn = normalize_rows(X)
    pub, te, pr = perm[:n_public], perm[n_public:n_public + n_test], perm[n_public + n_test:]
    return DigitsSplit(Xn[pub], Xn[pr], y[pr].astype(np.int64), Xn[te], y[te].astype(np.int64))


def projected_margins(components: Any, w: Any, X: Any, y: Any) -> np.ndarray:
    """Normalised margins after projection: ``y <A^T w, A^T x> / ||A^T w||`` for each row.

    Implements: HPSY.Thm3 / PILLAR.Thm1 proof quantity (the margin of the target halfspace in the
    projected space; the theorem needs it positive).  ``-inf`` rows when ``A^T w = 0``.

    >>> A = np.eye(3)[:, :2]
    >>> projected_margins(A, [0.6, 0.0, 0.8], [[1.0, 0.0, 0.0]], [1]).tolist()
    [1.0]
    """
    Am = check_array(components, "components", ndim=2).astype(np.float64)
    wv = check_array(w, "w", ndim=1, shape=(Am.shape[0],)).astype(np.float64)
    Xm = check_array(X, "X", ndim=2, shape=(None, Am.shape[0])).astype(np.float64)
    yv = check_array(y, "y", ndim=1, shape=(Xm.shape[0],)).astype(np.float64)
    v = Am.T @ wv
    nv = float(np.linalg.norm(v))
    if nv == 0.0:
        return np.full(Xm.shape[0], -np.inf)
    return np.asarray(yv * ((Xm @ Am) @ v) / nv)


def subspace_distance(A: Any, B: Any) -> float:
    """Operator norm ``||A A^T - B B^T||`` of the difference of two orthogonal projections
    (``A``, ``B`` with orthonormal columns; checked arrays of the same number of rows).

    Implements: PILLAR.Thm1 proof quantity (the PCA error ``||A_hat A_hat^T - A_k A_k^T||``,
    bounded in the paper by Zwald–Blanchard's Thm 4); computed by
    :func:`semiprivate.kernels._reference_pca.subspace_distance`.

    >>> round(subspace_distance(np.eye(2)[:, :1], np.eye(2)[:, 1:]), 12)
    1.0
    """
    Am = check_array(A, "A", ndim=2).astype(np.float64)
    Bm = check_array(B, "B", ndim=2, shape=(Am.shape[0], None)).astype(np.float64)
    return projection_distance(Am, Bm)

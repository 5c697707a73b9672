"""Event selection for :func:`theory.audit.audit_pairs` (Implements: AUDIT, selection stage).

The audit splits its samples: a *selection* batch of ``s`` outputs per dataset ranks candidate
(pair, event, direction) tuples, the best ``K`` are kept, and a fresh *estimation* batch of ``n``
outputs per dataset tests them with Clopper–Pearson intervals at level ``alpha / (2K)`` each
(Bonferroni over the ``2K`` one-sided intervals of the tests finally run; ``K`` is fixed before the
estimation batch is drawn, so the correction is valid whatever the selection did).

Two rules keep the selection from wasting the ``K`` slots:

* :func:`anticipated_bound` scores an event by the bound the estimation batch would give if the
  true frequencies were at the *pessimistic* end of the selection batch's own Clopper–Pearson
  intervals (level ``a``, the planned per-test level): ``p = cp_lower(kx, s, a)``,
  ``q = cp_upper(ky, s, a)``, then ``epsilon_bound(cp_lower(p n, n, a), cp_upper(q n, n, a), delta)``.
  An event seen ``3`` vs ``0`` times (a sample extreme) gets ``p ~ 0.8/s``, ``q ~ 3.7/s``: a bound
  of 0, where plugging the raw frequencies ``3/s`` vs ``0`` in gave a large score that collapsed on
  the fresh batch.
* :func:`rank_columns` keeps, for vector outputs with more than :data:`MAX_COORDS` coordinates, the
  :data:`MAX_COORDS` coordinates with the largest two-sample Kolmogorov–Smirnov statistic between the
  two datasets' selection outputs (on at most 4096 rows per side), so per-coordinate thresholds and
  joint events cost ``O(MAX_COORDS)`` families per pair whatever the dimension.  The ranking uses
  the selection batch only.
* :func:`pick` gives every pair a slot (its best event, pairs ordered by that score) before it fills
  the remaining slots by diversity groups and score; :func:`planned_tests` makes ``K`` at least the
  number of pairs (up to :data:`MAX_PAIR_SLOTS`) so every pair is examined.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.validation import DELTA, RNG, Integer, Real, as_generator, check_array, validate_params
from theory.audit.stats import cp_lower, cp_upper, epsilon_bound

__all__ = ["MAX_PAIR_SLOTS", "MAX_COORDS", "LogisticScore", "MLPScore", "anticipated_bound", "learned_score",
           "mlp_score", "pick", "planned_tests", "rank_columns"]

#: pairs beyond this many do not each get a reserved slot (the Bonferroni factor would grow with them)
MAX_PAIR_SLOTS = 32
#: per-coordinate thresholds (and joint events) on at most this many coordinates per pair: the ones
#: whose selection-batch distributions differ most (two-sample Kolmogorov-Smirnov statistic)
MAX_COORDS = 16


@validate_params(s=Integer(1), n=Integer(1), a=Real(0.0, 1.0, closed="neither"), delta=DELTA)
def anticipated_bound(kx: Any, ky: Any, s: int, n: int, a: float, delta: float) -> np.ndarray:
    """Pessimistic anticipated epsilon bound of events counted ``kx`` vs ``ky`` in ``s`` selection draws.

    Examples
    --------
    >>> import numpy as np
    >>> b = anticipated_bound(np.array([3.0, 3000.0]), np.array([0.0, 1000.0]), 10_000, 100_000, 0.01, 0.0)
    >>> bool(b[0] <= 0), round(float(b[1]), 2)  # 3 vs 0 wins nothing; 3000 vs 1000 keeps ~log 3
    (True, 0.96)
    """
    kx = np.asarray(check_array(kx, "kx", dtype_kinds="biuf", min_size=0), dtype=np.float64)
    ky = np.asarray(check_array(ky, "ky", dtype_kinds="biuf", min_size=0), dtype=np.float64)
    if kx.shape != ky.shape:
        raise ValueError(f"kx and ky must have the same shape, got {kx.shape} and {ky.shape}")
    if kx.size and (kx.min() < 0 or ky.min() < 0 or kx.max() > s or ky.max() > s):
        raise ValueError(f"kx and ky must be counts in [0, s={s}]")
    p = cp_lower(kx, s, a)
    q = cp_upper(ky, s, a)
    return epsilon_bound(cp_lower(p * n, n, a), cp_upper(q * n, n, a), delta)


@validate_params(max_events=Integer(1), n_pairs=Integer(1))
def planned_tests(max_events: int, n_pairs: int) -> int:
    """Number of tests ``K`` planned: ``max(max_events, min(n_pairs, MAX_PAIR_SLOTS))``."""
    return max(int(max_events), min(int(n_pairs), MAX_PAIR_SLOTS))


@validate_params(k=Integer(0))
def pick(cands: list[Any], k: int) -> list[Any]:
    """Keep ``k`` candidates (objects with ``score``, ``pair``, ``group``): each pair's best first,
    then the best of each group, then the rest by score; returned by decreasing score."""
    if isinstance(cands, (str, bytes)) or not isinstance(cands, (list, tuple)):
        raise TypeError(f"cands must be a list of candidates (with score, pair, group), got {type(cands).__name__}")
    if not all(hasattr(c, "score") and hasattr(c, "pair") and hasattr(c, "group") for c in cands):
        raise TypeError("cands must be a list of candidates with attributes score, pair and group")
    cands = sorted(cands, key=lambda c: -c.score)
    chosen: list[Any] = []
    taken: set[int] = set()

    def take(c: Any) -> None:
        chosen.append(c)
        taken.add(id(c))

    seen_pairs: set[Any] = set()
    for c in cands:  # one slot per pair
        if len(chosen) >= k:
            break
        if c.pair not in seen_pairs:
            seen_pairs.add(c.pair)
            take(c)
    seen_groups = {c.group for c in chosen}
    for c in cands:  # then diversity over groups
        if len(chosen) >= k:
            break
        if c.group not in seen_groups and id(c) not in taken:
            seen_groups.add(c.group)
            take(c)
    for c in cands:
        if len(chosen) >= k:
            break
        if id(c) not in taken:
            take(c)
    chosen.sort(key=lambda c: -c.score)
    return chosen


class LogisticScore:
    """Learned event score (the DP-Sniper idea, Bichsel et al. 2021, written here): a logistic
    regression telling the two datasets' selection-batch outputs apart, on standardised
    coordinates ``z`` and their squares ``z**2`` (so two-sided events are reachable).

    The audit thresholds ``score(x)`` like a projection; the score and its thresholds are fitted
    on the selection batch only, so the estimation batch tests fixed events and the bounds stay
    valid.  Stores plain arrays (picklable for executors).
    """

    @validate_params(intercept=Real(-np.inf, np.inf, closed="neither"))
    def __init__(self, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray, intercept: float) -> None:
        mean = np.asarray(check_array(mean, "mean", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        scale = np.asarray(check_array(scale, "scale", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        coef = np.asarray(check_array(coef, "coef", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        if scale.shape != mean.shape or np.any(scale <= 0):
            raise ValueError(f"scale must be positive with the shape of mean {mean.shape}, got shape {scale.shape}")
        if coef.shape != (self.n_features(mean.size),):
            raise ValueError(f"coef must have {self.n_features(mean.size)} entries for {mean.size} coordinates, "
                             f"got shape {coef.shape}")
        self.mean, self.scale, self.coef, self.intercept = mean, scale, coef, float(intercept)

    @staticmethod
    def n_features(d: int) -> int:
        """Number of features of ``d`` coordinates: ``z`` and ``z**2``."""
        return 2 * d

    @staticmethod
    def features(z: np.ndarray) -> np.ndarray:
        return np.concatenate([z, z * z], axis=1)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        return self.features(z) @ self.coef + self.intercept


@validate_params(rng=RNG, max_rows=Integer(2))
def learned_score(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, max_rows: int = 20_000) -> LogisticScore | None:
    """Fit :class:`LogisticScore` on (at most ``max_rows`` per side of) the selection outputs
    ``x`` (label 1) and ``y`` (label 0); ``None`` when the outputs do not allow a fit.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> x, y = g.normal(0, 1, (4000, 3)), g.normal(0, 1, (4000, 3)) + [0, 0, 1]
    >>> sc = learned_score(x, y, g)
    >>> bool(sc(x).mean() > sc(y).mean())
    True
    """
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(check_array(x, "x", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)
    y = np.asarray(check_array(y, "y", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
    rng = as_generator(rng)
    if x.shape[1] == 0 or x.shape[0] < 2 or y.shape[0] < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return None
    if x.shape[0] > max_rows:
        x = x[rng.choice(x.shape[0], max_rows, replace=False)]
    if y.shape[0] > max_rows:
        y = y[rng.choice(y.shape[0], max_rows, replace=False)]
    both = np.concatenate([x, y])
    mean = both.mean(axis=0)
    scale = both.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    feats = LogisticScore.features((both - mean) / scale)
    labels = np.r_[np.ones(x.shape[0]), np.zeros(y.shape[0])]
    model = LogisticRegression(C=1.0, max_iter=300)
    try:
        model.fit(feats, labels)
    except ValueError:
        return None
    coef = np.asarray(model.coef_, dtype=np.float64).ravel()
    if not np.all(np.isfinite(coef)) or not np.any(coef):
        return None
    return LogisticScore(mean, scale, coef, float(model.intercept_[0]))


@validate_params(k=Integer(1), max_rows=Integer(2))
def rank_columns(x: np.ndarray, y: np.ndarray, k: int, max_rows: int = 4096) -> np.ndarray:
    """Indices of the ``k`` columns of ``x`` and ``y`` (selection outputs of the two datasets, 2-D)
    whose two-sample Kolmogorov–Smirnov statistics are largest, best first (ties by index).

    The statistic is evaluated at the end of each run of tied values, so discrete columns with
    equal distributions score 0 rather than the artefact of the stacking order.  NaN sorts last
    (its run is the missing-leaf mass).  At most ``max_rows`` evenly spaced rows per side are used.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> x = g.normal(size=(2000, 30)); y = g.normal(size=(2000, 30)); y[:, 17] += 1
    >>> int(rank_columns(x, y, 3)[0])
    17
    """
    x = np.asarray(check_array(x, "x", ndim=2, min_size=0, allow_nan=True, allow_inf=True), dtype=np.float64)
    y = np.asarray(check_array(y, "y", ndim=2, min_size=0, allow_nan=True, allow_inf=True), dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
    if x.shape[0] == 0 or y.shape[0] == 0:
        return np.arange(min(k, x.shape[1]))
    if x.shape[0] > max_rows:
        x = x[np.linspace(0, x.shape[0] - 1, max_rows).astype(np.int64)]
    if y.shape[0] > max_rows:
        y = y[np.linspace(0, y.shape[0] - 1, max_rows).astype(np.int64)]
    z = np.concatenate([x, y])
    w = np.r_[np.full(x.shape[0], 1.0 / x.shape[0]), np.full(y.shape[0], -1.0 / y.shape[0])]
    order = np.argsort(z, axis=0, kind="stable")
    zs = np.take_along_axis(z, order, axis=0)
    c = np.cumsum(w[order], axis=0)
    end = np.ones_like(zs, dtype=bool)
    same = (zs[1:] == zs[:-1]) | (np.isnan(zs[1:]) & np.isnan(zs[:-1]))
    end[:-1] = ~same
    ks = np.where(end, np.abs(c), 0.0).max(axis=0)
    return np.argsort(-ks, kind="stable")[: min(k, ks.size)]


class MLPScore:
    """Learned event score by a small neural network (DP-Sniper's second classifier, Bichsel et al.
    2021, written here): scikit-learn's ``MLPClassifier`` (one hidden ReLU layer) fitted on the
    standardised selection-batch outputs of the two datasets; the score is the network's logit.
    Like :class:`LogisticScore` it is fitted on the selection batch only and stores plain arrays
    (the forward pass is NumPy, picklable for executors)."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, weights: list[np.ndarray], biases: list[np.ndarray]) -> None:
        mean = np.asarray(check_array(mean, "mean", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        scale = np.asarray(check_array(scale, "scale", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        if scale.shape != mean.shape or np.any(scale <= 0):
            raise ValueError(f"scale must be positive with the shape of mean {mean.shape}, got shape {scale.shape}")
        if not isinstance(weights, (list, tuple)) or not isinstance(biases, (list, tuple)) or \
                len(weights) != len(biases) or not weights:
            raise TypeError("weights and biases must be lists of arrays of equal length (one per layer)")
        self.weights = [np.asarray(check_array(w, "weights", ndim=2), dtype=np.float64) for w in weights]
        self.biases = [np.asarray(check_array(b, "biases", ndim=1), dtype=np.float64) for b in biases]
        self.mean, self.scale = mean, scale

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            h = np.maximum(h @ w + b, 0.0)
        return (h @ self.weights[-1] + self.biases[-1])[:, 0]


@validate_params(rng=RNG, max_rows=Integer(2), hidden=Integer(1))
def mlp_score(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, max_rows: int = 20_000,
              hidden: int = 32) -> MLPScore | None:
    """Fit :class:`MLPScore` (``hidden`` ReLU units) on at most ``max_rows`` selection outputs per
    side, ``x`` labelled 1 and ``y`` 0; ``None`` when the outputs do not allow a fit.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> x = g.normal(0, 1, (3000, 2)); y = g.normal(0, 1, (3000, 2))
    >>> x[:, 1] = np.abs(x[:, 1]) * np.sign(x[:, 0])  # same marginals, x0 * x1 > 0 on one side only
    >>> y[:, 1] = -np.abs(y[:, 1]) * np.sign(y[:, 0])
    >>> sc = mlp_score(x, y, g)
    >>> bool(np.mean(sc(x) > 0) > 0.8 and np.mean(sc(y) > 0) < 0.2)
    True
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    x = np.asarray(check_array(x, "x", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)
    y = np.asarray(check_array(y, "y", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
    rng = as_generator(rng)
    if x.shape[1] == 0 or x.shape[0] < 2 or y.shape[0] < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return None
    if x.shape[0] > max_rows:
        x = x[rng.choice(x.shape[0], max_rows, replace=False)]
    if y.shape[0] > max_rows:
        y = y[rng.choice(y.shape[0], max_rows, replace=False)]
    both = np.concatenate([x, y])
    mean = both.mean(axis=0)
    scale = both.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    labels = np.r_[np.ones(x.shape[0]), np.zeros(y.shape[0])]
    model = MLPClassifier(hidden_layer_sizes=(int(hidden),), max_iter=60, batch_size=512, learning_rate_init=3e-3,
                          random_state=int(rng.integers(2**31 - 1)))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            model.fit((both - mean) / scale, labels)
        except ValueError:
            return None
    ws = [np.asarray(w, dtype=np.float64) for w in model.coefs_]
    bs = [np.asarray(b, dtype=np.float64) for b in model.intercepts_]
    if not all(np.all(np.isfinite(w)) for w in ws):
        return None
    return MLPScore(mean, scale, ws, bs)

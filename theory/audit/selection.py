"""Event selection for :func:`semiprivate.theory.audit.audit_pairs` (Implements: AUDIT, selection stage).

The audit splits its samples: a *selection* batch of ``s`` outputs per dataset ranks candidate
(pair, event, direction) tuples, the best ``K`` are kept, and a fresh *estimation* batch of ``n``
outputs per dataset tests them with Clopper–Pearson intervals at level ``alpha / (2K)`` each
(Bonferroni over the ``2K`` one-sided intervals of the tests finally run; ``K`` is fixed before the
estimation batch is drawn, so the correction is valid whatever the selection did).

Two rules keep the selection from wasting the ``K`` slots:

* :func:`anticipated_bound` scores an event by the bound the estimation batch would give if the
  true frequencies were at the *pessimistic* end of the selection batch's own Clopper–Pearson
  intervals (level :data:`SELECTION_LEVEL` = 0.16, about one standard error):
  ``p = beta_lower(kx, s, 0.16)``, ``q = beta_upper(ky, s, 0.16)``, then
  ``epsilon_bound(beta_lower(p n, n, a), beta_upper(q n, n, a), delta)`` at the planned per-test level
  ``a``.  An event seen ``3`` vs ``0`` times (a sample extreme) scores about ``-2.5``, where plugging
  the raw frequencies ``3/s`` vs ``0`` in gave a large score that collapsed on the fresh batch.
* :func:`honest_sets` scores likelihood-ratio-ordered sets of many small cells (whole-row patterns,
  :class:`RowPatterns`) on selection rows that did not order them (cross-fitting).
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

import math
from typing import Any

import numpy as np
from semiprivate.kernels.sparse_vector import row_pattern_codes, row_pattern_keys
from semiprivate.theory.audit.stats import (
    _beta_lower_checked,
    _beta_upper_checked,
    _epsilon_bound_checked,
)
from semiprivate.validation import (
    DELTA,
    RNG,
    Boolean,
    Integer,
    Real,
    as_generator,
    check_array,
    validate_params,
)

__all__ = ["MAX_PAIR_SLOTS", "MAX_COORDS", "LogisticScore", "MLPScore", "PatternEvent", "RowPatterns",
           "CountScores", "SignScore", "anticipated_bound", "anticipated_hockey_stick", "anticipated_ratio_bound", "atom_blocks", "honest_sets", "learned_score", "mlp_score", "pick",
           "planned_tests", "rank_columns", "sign_score", "unique"]

#: one-sided level of the selection-batch intervals in :func:`anticipated_bound`: about one standard
#: error, the winner's-curse allowance.  Pessimism at the planned test level instead would rank small
#: but real effects (events of mass ~2%) below 0 and leave each pair's slot to wide, nearly null
#: projections (benchmarks/RESULTS.md, "selection level"); 3 vs 0 scores about -2.5, 10 vs 0 about -0.06.
SELECTION_LEVEL = 0.16
#: pairs beyond this many do not each get a reserved slot (the Bonferroni factor would grow with them)
MAX_PAIR_SLOTS = 32
#: per-coordinate thresholds (and joint events) on at most this many coordinates per pair: the ones
#: whose selection-batch distributions differ most (two-sample Kolmogorov-Smirnov statistic)
MAX_COORDS = 16


def unique(values: Any, **kwargs: Any) -> Any:
    """``np.unique`` with ``-0.0`` read as ``+0.0`` (same keyword arguments and results otherwise).

    The two zeros compare equal, so ``np.unique`` keeps whichever its sort puts first, and the
    order of equal elements differs between NumPy's SIMD sorts (AVX-512 vs AVX2): the value
    events' labels ("x == -0.0" / "x == 0.0") and hence the audit's report differed between
    machines for the same seed.  Adding ``0.0`` turns ``-0.0`` into ``+0.0`` and leaves every
    other float (NaN included) as it is; non-float keys are passed through.

    >>> unique(np.array([-0.0, 1.0, -0.0])).tolist()
    [0.0, 1.0]
    """
    a = np.asarray(values)
    if a.dtype.kind == "f":
        a = a + 0.0
    return np.unique(a, **kwargs)


def _pessimistic_frequencies(kx: Any, ky: Any, s: int) -> tuple[np.ndarray, np.ndarray]:
    """The validated counts ``kx``, ``ky`` of ``s`` selection draws turned into the pessimistic ends
    of their intervals at :data:`SELECTION_LEVEL`: ``beta_lower(kx, s)`` and ``beta_upper(ky, s)``."""
    kx = np.asarray(check_array(kx, "kx", dtype_kinds="biuf", min_size=0), dtype=np.float64)
    ky = np.asarray(check_array(ky, "ky", dtype_kinds="biuf", min_size=0), dtype=np.float64)
    if kx.shape != ky.shape:
        raise ValueError(f"kx and ky must have the same shape, got {kx.shape} and {ky.shape}")
    if kx.size and (kx.min() < 0 or ky.min() < 0 or kx.max() > s or ky.max() > s):
        raise ValueError(f"kx and ky must be counts in [0, s={s}]")
    return _beta_lower_checked(kx, s, SELECTION_LEVEL), _beta_upper_checked(ky, s, SELECTION_LEVEL)


@validate_params(s=Integer(1), n=Integer(1), a=Real(0.0, 1.0, closed="neither"), delta=DELTA)
def anticipated_bound(kx: Any, ky: Any, s: int, n: int, a: float, delta: float) -> np.ndarray:
    """Pessimistic anticipated epsilon bound of events counted ``kx`` vs ``ky`` in ``s`` selection draws.

    Examples
    --------
    >>> import numpy as np
    >>> b = anticipated_bound(np.array([3.0, 3000.0]), np.array([0.0, 1000.0]), 10_000, 100_000, 0.01, 0.0)
    >>> bool(b[0] <= 0), round(float(b[1]), 2)  # 3 vs 0 wins nothing; 3000 vs 1000 keeps ~log 3
    (True, 1.02)
    """
    p, q = _pessimistic_frequencies(kx, ky, s)
    return _epsilon_bound_checked(_beta_lower_checked(p * n, n, a), _beta_upper_checked(q * n, n, a), float(delta))


#: :class:`CountScores` tabulates counts ``0..s`` only up to this ``s`` (two float64 tables of ``s + 1``)
MAX_TABULATED = 1 << 22


class CountScores:
    """:func:`anticipated_bound` at fixed ``(s, n, a, delta)``, its two per-count factors tabulated.

    The bound of an event counted ``kx`` vs ``ky`` is ``epsilon_bound(lo(kx), up(ky), delta)`` with
    ``lo(k) = beta_lower(beta_lower(k, s, SELECTION_LEVEL) n, n, a)`` and ``up(k)`` alike: each factor
    depends on one count only.  The audit scores every pair's thousands of threshold events at one
    ``(s, n, a, delta)``, and their counts are whole numbers in ``[0, s]``, so each factor is computed
    once per distinct count (on first use) and read from a table of ``s + 1`` entries afterwards: the
    same float operations on the same inputs, so the scores are bit for bit those of
    :func:`anticipated_bound` (checked in the tests).  Counts that are not whole numbers in ``[0, s]``
    (the learned randomised events' expected counts) go to :func:`anticipated_bound` itself.  The tables
    live as long as the object: one audit's selection stage.

    >>> sc = CountScores(10_000, 100_000, 0.01, 0.0)
    >>> kx, ky = np.array([3.0, 3000.0]), np.array([0.0, 1000.0])
    >>> bool(np.array_equal(sc(kx, ky), anticipated_bound(kx, ky, 10_000, 100_000, 0.01, 0.0)))
    True
    """

    @validate_params(s=Integer(1), n=Integer(1), a=Real(0.0, 1.0, closed="neither"), delta=DELTA)
    def __init__(self, s: int, n: int, a: float, delta: float) -> None:
        self.s, self.n, self.a, self.delta = int(s), int(n), float(a), float(delta)
        size = self.s + 1 if self.s <= MAX_TABULATED else 0
        self._lo = np.full(size, np.nan)
        self._up = np.full(size, np.nan)

    def _fill(self, idx: np.ndarray) -> None:
        """Compute ``lo`` and ``up`` at the counts ``idx`` not yet in the tables."""
        need = idx[np.isnan(self._lo[idx])]
        if need.size:
            need = np.unique(need)
            k = need.astype(np.float64)
            s, n, a = self.s, self.n, self.a
            self._lo[need] = _beta_lower_checked(_beta_lower_checked(k, s, SELECTION_LEVEL) * n, n, a)
            self._up[need] = _beta_upper_checked(_beta_upper_checked(k, s, SELECTION_LEVEL) * n, n, a)

    def __call__(self, kx: Any, ky: Any) -> np.ndarray:
        """The anticipated bounds of the events counted ``kx`` (numerator) vs ``ky`` out of ``s``."""
        x, y = np.asarray(kx), np.asarray(ky)
        if (self._lo.size and x.shape == y.shape and x.dtype.kind in "iuf" and y.dtype.kind in "iuf"
                and x.size and self._whole(x) and self._whole(y)):
            ix, iy = x.astype(np.intp), y.astype(np.intp)
            self._fill(np.concatenate([ix.ravel(), iy.ravel()]))
            return _epsilon_bound_checked(self._lo[ix], self._up[iy], self.delta)
        return anticipated_bound(kx, ky, self.s, self.n, self.a, self.delta)

    def _whole(self, k: np.ndarray) -> bool:
        return bool(np.all((k >= 0) & (k <= self.s) & (k == np.floor(k))))


@validate_params(s=Integer(1), n=Integer(1), a=Real(0.0, 1.0, closed="neither"))
def anticipated_ratio_bound(kx: Any, ky: Any, s: int, n: int, a: float) -> np.ndarray:
    """:func:`anticipated_bound` for the conditional test of ``interval="poisson-conditional"``
    (:mod:`semiprivate.theory.audit.conditional`, ``delta = 0``): the same pessimistic frequencies
    ``p``, ``q``, and the conditional bound ``log(r / (1 - r))`` with ``r = beta_lower(p n, (p + q) n, a)``
    at the expected counts of ``n`` outputs per side.

    >>> b = anticipated_ratio_bound(np.array([3.0, 3000.0]), np.array([0.0, 1000.0]), 10_000, 100_000, 0.01)
    >>> bool(b[0] <= 0), round(float(b[1]), 2)  # 3 vs 0 wins nothing; 3000 vs 1000 keeps more than the rectangle
    (True, 1.03)
    """
    p, q = _pessimistic_frequencies(kx, ky, s)
    total = np.maximum((p + q) * n, 1.0)
    r = _beta_lower_checked(np.minimum(p * n, total), total, float(a))
    with np.errstate(divide="ignore"):
        out = np.log(r) - np.log1p(-r)
    return np.where(p > 0, out, -np.inf)


@validate_params(s=Integer(1), n=Integer(1), a=Real(0.0, 1.0, closed="neither"),
                 gamma=Real(1.0, math.inf, closed="left"))
def anticipated_hockey_stick(kx: Any, ky: Any, s: int, n: int, a: float, gamma: float) -> np.ndarray:
    """Pessimistic anticipated hockey-stick bound ``P_lo - gamma Q_hi`` of events counted ``kx`` vs ``ky`` in ``s``
    selection draws, at ``n`` test outputs per side and level ``a`` per interval (the same pessimistic
    frequencies as :func:`anticipated_bound`); the score of :mod:`semiprivate.theory.audit.hockey`.

    >>> b = anticipated_hockey_stick(np.array([3.0, 3000.0]), np.array([0.0, 1000.0]), 10_000, 100_000, 0.01, 2.0)
    >>> bool(b[0] < 0.001), round(float(b[1]), 3)  # 3 vs 0 is worth nothing; 0.3 - 2 x 0.1 keeps 0.08
    (True, 0.081)
    """
    p, q = _pessimistic_frequencies(kx, ky, s)
    return _beta_lower_checked(p * n, n, float(a)) - float(gamma) * _beta_upper_checked(q * n, n, float(a))


@validate_params(max_events=Integer(1), n_pairs=Integer(1))
def planned_tests(max_events: int, n_pairs: int) -> int:
    """Number of tests ``K`` planned: ``max(max_events, min(n_pairs, MAX_PAIR_SLOTS))``."""
    return max(int(max_events), min(int(n_pairs), MAX_PAIR_SLOTS))


@validate_params(k=Integer(0), per_pair=Boolean())
def pick(cands: list[Any], k: int, per_pair: bool = True) -> list[Any]:
    """Keep ``k`` candidates (objects with ``score``, ``pair``, ``group``): each pair's best first
    (``per_pair=True``; with ``False`` the best candidate overall), then the best of each group, then
    the rest by score; returned by decreasing score.

    >>> from types import SimpleNamespace as C
    >>> cs = [C(score=0.3, pair=0, group="a"), C(score=0.2, pair=0, group="b"), C(score=0.1, pair=1, group="c")]
    >>> [c.score for c in pick(cs, 2)], [c.score for c in pick(cs, 2, per_pair=False)]
    ([0.3, 0.1], [0.3, 0.2])
    """
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
    for c in cands:  # one slot per pair (the best candidate only, without per_pair)
        if len(chosen) >= k or (not per_pair and chosen):
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


def _standardised_sides(x: Any, y: Any, rng: np.random.Generator,
                        max_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The two sides of a learned score's fit (validated 2-D float arrays, the same columns), each
    subsampled to at most ``max_rows`` rows (``x`` first, then ``y``, from ``rng``), their rows
    stacked (``both``) and the pooled column ``mean`` and ``scale`` (standard deviation, 1 where 0);
    ``None`` when no fit is possible (no columns, fewer than 2 rows a side, non-finite values)."""
    x = np.asarray(check_array(x, "x", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)
    y = np.asarray(check_array(y, "y", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
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
    return x, y, both, mean, scale


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

    rng = as_generator(rng)
    sides = _standardised_sides(x, y, rng, max_rows)
    if sides is None:
        return None
    x, y, both, mean, scale = sides
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


class SignScore:
    """Event score for vectors with heavy-tailed or dependent coordinates: the signs of the whitened
    coordinates about their pooled medians, weighted by how much more often each sign is ``+``
    under the first dataset than under the second.

    ``score(x) = sum_j w_j [((x - mean) W)_j > median_j]``.  ``W`` whitens the pooled within-dataset
    covariance (Cholesky), so coordinates built from independent noise (prefix sums, for one) are
    taken back to it.  For independent Laplace coordinates the privacy loss is a sum of per-coordinate
    steps at the midpoints of the two inputs, so the count of coordinates above their medians is
    close to the likelihood-ratio statistic, which a linear projection of heavy-tailed coordinates is
    not (one large draw moves it).  Fitted on the selection batch only, like :class:`LogisticScore`.
    """

    def __init__(self, mean: np.ndarray, whiten: np.ndarray, median: np.ndarray, weights: np.ndarray) -> None:
        mean = np.asarray(check_array(mean, "mean", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        whiten = np.asarray(check_array(whiten, "whiten", ndim=2, dtype_kinds="iuf"), dtype=np.float64)
        median = np.asarray(check_array(median, "median", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        weights = np.asarray(check_array(weights, "weights", ndim=1, dtype_kinds="iuf"), dtype=np.float64)
        d = mean.size
        if whiten.shape != (d, d) or median.shape != (d,) or weights.shape != (d,):
            raise ValueError(f"whiten must be {d} x {d} and median, weights of length {d} (the length of mean); "
                             f"got {whiten.shape}, {median.shape}, {weights.shape}")
        self.mean, self.whiten, self.median, self.weights = mean, whiten, median, weights

    def __call__(self, x: np.ndarray) -> np.ndarray:
        w = (np.asarray(x, dtype=np.float64) - self.mean) @ self.whiten
        return (w > self.median).astype(np.float64) @ self.weights


@validate_params(max_rows=Integer(2))
def sign_score(x: np.ndarray, y: np.ndarray, max_rows: int = 500_000) -> SignScore | None:
    """Fit :class:`SignScore` on the selection outputs ``x`` and ``y`` (2-D, the same columns; the
    first ``max_rows`` rows of each); ``None`` when the outputs do not allow it (fewer than 2
    columns or 2 rows a side, non-finite values, a singular covariance, or no sign that differs).

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> x, y = g.laplace(1.0, 5.0, (20_000, 8)), g.laplace(0.0, 5.0, (20_000, 8))
    >>> sc = sign_score(x, y)
    >>> bool(sc(x).mean() > sc(y).mean())
    True
    """
    x = np.asarray(check_array(x, "x", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)[:max_rows]
    y = np.asarray(check_array(y, "y", ndim=2, dtype_kinds="biuf", min_size=0, allow_nan=True, allow_inf=True),
                   dtype=np.float64)[:max_rows]
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
    d = x.shape[1]
    if d < 2 or x.shape[0] < 2 or y.shape[0] < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return None
    mean = 0.5 * (x.mean(axis=0) + y.mean(axis=0))
    cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False))
    try:
        low = np.linalg.cholesky(cov + 1e-9 * (np.trace(cov) / d + 1e-300) * np.eye(d))
        whiten = np.linalg.inv(low).T
    except np.linalg.LinAlgError:
        return None
    wx, wy = (x - mean) @ whiten, (y - mean) @ whiten
    median = np.median(np.concatenate([wx, wy]), axis=0)
    weights = (wx > median).mean(axis=0) - (wy > median).mean(axis=0)
    if not np.all(np.isfinite(whiten)) or not np.any(weights):
        return None
    return SignScore(mean, whiten, median, weights)


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

    rng = as_generator(rng)
    sides = _standardised_sides(x, y, rng, max_rows)
    if sides is None:
        return None
    x, y, both, mean, scale = sides
    labels = np.r_[np.ones(x.shape[0]), np.zeros(y.shape[0])]
    # batches of 512 rows, or all rows when fewer (what scikit-learn would clip to, with a warning)
    model = MLPClassifier(hidden_layer_sizes=(int(hidden),), max_iter=60, batch_size=min(512, labels.size), learning_rate_init=3e-3,
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


#: a value seen at least this many times in a column's selection outputs (both datasets) is an *atom*
#: of that column (a code such as "below" / "aborted"; continuous values do not repeat)
MIN_ATOM_COUNT = 3
#: a column with more atoms than this is not a coded column (its pattern would not be categorical)
MAX_ATOMS = 16
#: quantile bins of the first non-atom value of a block (joint pattern-and-value cells)
PATTERN_BINS = 16


class RowPatterns:
    """Whole-row *patterns* of a block of coded columns of float vector outputs (Implements: AUDIT,
    automatic categorical encoding of mixed outputs).

    Many mechanisms write codes into float vectors: sparse-vector variants (Lyu, Su, Li, PVLDB 2017,
    Algs. 1-6) output ``1`` / ``0`` / ``-1`` ("above", "below", "aborted") per query, Alg. 3 the noisy
    query value when above and the codes ``-1000`` / ``-2000`` otherwise.  Each column then mixes
    *atoms* (values repeated in the selection batch, at most :data:`MAX_ATOMS`) with continuous
    values.  Columns with the same atom set form a *block* (one sub-mechanism's output); a row's
    pattern in the block is the tuple ``(atom index, or "value")`` of its columns -- for SVT Alg. 4
    the index of the first query above -- and, when the block has non-atom values, the pattern is
    refined by the quantile bin (``bins`` bins, edges fixed on the selection batch) of the row's
    first non-atom value in the block -- for SVT Alg. 3, "first above at ``k`` and its value in
    ``(t1, t2]``".  The key is an int64; events are sets of keys (likelihood-ratio-ordered by the
    auditor).  Everything is fixed on the selection batch, and the key is a deterministic function of
    the output, so every event on it is an output event and the bounds stay valid.
    """

    def __init__(self, cols: np.ndarray, atoms: np.ndarray, edges: np.ndarray) -> None:
        self.cols = np.asarray(check_array(cols, "cols", ndim=1, dtype_kinds="iu"), dtype=np.int64)
        self.atoms = np.sort(np.asarray(check_array(atoms, "atoms", ndim=1, dtype_kinds="iuf"), dtype=np.float64))
        self.edges = np.asarray(check_array(edges, "edges", ndim=1, dtype_kinds="iuf", min_size=0), dtype=np.float64)
        if self.atoms.size < 1 or self.atoms.size > MAX_ATOMS:
            raise ValueError(f"atoms must have 1 to {MAX_ATOMS} values, got {self.atoms.size}")
        self.radix = self.atoms.size + 1
        self.n_bins = self.edges.size + 1 if self.edges.size else 0
        if self.cols.size * math.log2(self.radix) + math.log2(self.n_bins + 1) > 62:
            raise ValueError(f"cols: {self.cols.size} columns with {self.atoms.size} atoms do not fit an int64 key")

    def codes(self, x: np.ndarray) -> np.ndarray:
        """Per column: the atom's index, or ``len(atoms)`` for a non-atom value
        (:func:`semiprivate.kernels.sparse_vector.row_pattern_codes`: one compiled pass per row, its
        NumPy reference where the extension is not built)."""
        return row_pattern_codes(x, self.cols, self.atoms)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The int64 key of each row (:func:`semiprivate.kernels.sparse_vector.row_pattern_keys`: one
        compiled pass per row, its NumPy reference where the extension is not built)."""
        return row_pattern_keys(x, self.cols, self.atoms, self.edges)

    def describe(self, key: Any) -> str:
        """Readable pattern of a key: ``x[10:20] = (0, 0, 1, -1, ...)``, ``v`` for a value."""
        key = int(key)
        rng_txt = ""
        if self.n_bins:
            key, b = divmod(key, self.n_bins + 1)
            if b < self.n_bins:
                lo = "-inf" if b == 0 else f"{self.edges[b - 1]:.4g}"
                hi = "inf" if b == self.n_bins - 1 else f"{self.edges[b]:.4g}"
                rng_txt = f", first v in ({lo}, {hi}]"
        items = []
        for _ in range(self.cols.size):
            key, d = divmod(key, self.radix)
            items.append("v" if d == self.atoms.size else f"{self.atoms[d]:g}")
        c = self.cols
        where = f"x[{c[0]}:{c[-1] + 1}]" if np.array_equal(c, np.arange(c[0], c[-1] + 1)) else f"x[{c.tolist()}]"
        return f"{where} = ({', '.join(items)}){rng_txt}"


class PatternEvent:
    """``{RowPatterns(x) in S}`` as a picklable callable on the raw vector outputs (wrapped by the
    auditor as a user-style event); fixed on the selection batch."""

    def __init__(self, patterns: RowPatterns, values: np.ndarray, description: str) -> None:
        if not isinstance(patterns, RowPatterns):
            raise TypeError(f"patterns must be a RowPatterns, got {type(patterns).__name__}")
        self.patterns = patterns
        self.values = np.sort(np.asarray(values, dtype=np.int64))
        self.description = str(description)

    def __call__(self, raw: Any) -> np.ndarray:
        keys = self.patterns(np.asarray(raw, dtype=np.float64))
        if self.values.size == 0:
            return np.zeros(keys.shape, dtype=bool)
        # membership in the sorted values by binary search (np.isin sorts the keys too)
        idx = np.minimum(np.searchsorted(self.values, keys), self.values.size - 1)
        return self.values[idx] == keys


@validate_params(s=Integer(2), n=Integer(1), a=Real(0.0, 1.0, closed="neither"), delta=DELTA, max_values=Integer(1),
                 top=Integer(1))
def honest_sets(kx_keys: np.ndarray, ky_keys: np.ndarray, s: int, n: int, a: float, delta: float,
                max_values: int = 2048, top: int = 8) -> tuple[list[tuple[float, bool, np.ndarray]], int]:
    """Likelihood-ratio-ordered sets of keys scored without the winner's curse (cross-fitting).

    ``kx_keys``, ``ky_keys``: the keys of the two datasets' ``s`` selection outputs.  The keys seen
    at least :data:`MIN_ATOM_COUNT` times (the ``max_values`` most frequent) are ordered by the
    ratio ``(c1 + 0.5) / (c0 + 0.5)`` of their counts on the *even* rows, and again on the *odd*
    rows; the prefix set of length ``m`` is scored by :func:`anticipated_bound` on the counts of the
    odd rows in the even-ordered prefix plus the even rows in the odd-ordered one (every row is
    counted by a set it did not help order: cross-fitting, out of all ``s`` rows); the returned
    event is the prefix of length ``m`` of the order on all rows.  Scoring
    sets on the rows that ordered them rewards the noise of hundreds of small cells (a set of 40
    patterns seen 120 vs 60 times looked like ``0.4`` and measured ``-0.1`` on fresh outputs);
    here the score of each set is an honest estimate of the bound it will give.  Returns the
    ``top`` best ``(score, forward, keys)`` per direction (forward: ``x`` is the numerator) and
    the number of sets scored.  Single keys are not included (score them on all rows).
    """
    kx_keys = np.asarray(kx_keys)
    ky_keys = np.asarray(ky_keys)
    if kx_keys.ndim != 1 or ky_keys.ndim != 1:
        raise ValueError("kx_keys and ky_keys must be 1-D arrays of keys")
    keys = np.concatenate([kx_keys, ky_keys])
    uniq, inv, counts = unique(keys, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    keep = np.nonzero(counts >= MIN_ATOM_COUNT)[0]
    keep = keep[np.argsort(-counts[keep], kind="stable")[:max_values]]
    if keep.size < 2:
        return [], 0
    pos = np.full(uniq.size, -1)
    pos[keep] = np.arange(keep.size)
    nx = kx_keys.size
    half_x, half_y = np.arange(nx) % 2, np.arange(ky_keys.size) % 2
    ix, iy = pos[inv[:nx]], pos[inv[nx:]]

    def cnt(idx: np.ndarray, sel: np.ndarray) -> np.ndarray:
        idx = idx[sel & (idx >= 0)]
        return np.bincount(idx, minlength=keep.size).astype(np.float64)

    ax, ay = cnt(ix, half_x == 0), cnt(iy, half_y == 0)
    bx, by = cnt(ix, half_x == 1), cnt(iy, half_y == 1)
    out: list[tuple[float, bool, np.ndarray]] = []
    scored = 0
    for forward, (na, da, nb, db) in ((True, (ax, ay, bx, by)), (False, (ay, ax, by, bx))):
        order_a = np.argsort(-(na + 0.5) / (da + 0.5), kind="stable")
        order_b = np.argsort(-(nb + 0.5) / (db + 0.5), kind="stable")
        order = np.argsort(-(na + nb + 0.5) / (da + db + 0.5), kind="stable")  # the events: all rows
        m = min(order.size - 1, 512)
        # each row counted by the set ordered on the other half: honest counts out of all s rows
        kn = np.cumsum(nb[order_a])[1:m + 1] + np.cumsum(na[order_b])[1:m + 1]
        kd = np.cumsum(db[order_a])[1:m + 1] + np.cumsum(da[order_b])[1:m + 1]
        sc = anticipated_bound(np.minimum(kn, s), np.minimum(kd, s), s, n, a, delta)
        scored += m
        for i in np.argsort(-sc, kind="stable")[:top]:
            out.append((float(sc[i]), forward, uniq[keep[order[: int(i) + 2]]]))
    return out, scored


@validate_params(bins=Integer(0))
def atom_blocks(x: np.ndarray, y: np.ndarray, bins: int = PATTERN_BINS) -> list[RowPatterns]:
    """Blocks of coded columns of the selection outputs ``x``, ``y`` (2-D float, the two datasets),
    see :class:`RowPatterns`: a column's atoms are its values seen :data:`MIN_ATOM_COUNT` times or
    more (pooled), at most :data:`MAX_ATOMS`, and they must cover at least 1% of its rows (else the
    column is continuous); columns with the same atoms form a block, in column order.  ``bins``
    quantile bins of the first non-atom value refine the pattern when the block has such values.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> x = np.where(g.random((500, 3)) < 0.5, -1.0, g.normal(size=(500, 3)))
    >>> y = g.normal(size=(500, 3)) + 5
    >>> [(b.cols.tolist(), b.atoms.tolist()) for b in atom_blocks(x, y)]
    [([0, 1, 2], [-1.0])]
    """
    x = np.asarray(check_array(x, "x", ndim=2, min_size=0, allow_nan=True, allow_inf=True), dtype=np.float64)
    y = np.asarray(check_array(y, "y", ndim=2, min_size=0, allow_nan=True, allow_inf=True), dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
    z = np.concatenate([x, y])
    if z.shape[0] == 0:
        return []
    groups: list[tuple[set[float], list[int]]] = []  # columns sharing an atom are one block
    for j in range(z.shape[1]):
        col = z[:, j]
        col = col[np.isfinite(col)]
        vals, counts = unique(col, return_counts=True)
        atoms = vals[counts >= MIN_ATOM_COUNT]
        if atoms.size == 0 or atoms.size > MAX_ATOMS or counts[counts >= MIN_ATOM_COUNT].sum() < 0.01 * z.shape[0]:
            continue
        mine = set(atoms.tolist())
        hit = [g for g in groups if g[0] & mine]
        merged = (mine.union(*(g[0] for g in hit)), sorted([j] + [c for g in hit for c in g[1]]))
        groups = [g for g in groups if not g[0] & mine] + [merged]
    out = []
    for atoms_set, cols in sorted(groups, key=lambda g: g[1][0]):
        if len(atoms_set) > MAX_ATOMS:
            continue
        atoms = np.asarray(sorted(atoms_set))
        radix_bits = math.log2(atoms.size + 1)
        cols = cols[: max(1, int((62 - math.log2(bins + 2)) // radix_bits))]  # the key must fit an int64
        probe = RowPatterns(np.asarray(cols), atoms, np.empty(0))
        c = probe.codes(z)
        free = c == atoms.size
        edges = np.empty(0)
        if bins >= 2 and free.any():
            first = np.argmax(free, axis=1)
            v = z[np.arange(z.shape[0]), np.asarray(cols)[first]][free.any(axis=1)]
            v = v[np.isfinite(v)]
            if v.size:
                edges = unique(np.quantile(v, np.linspace(0, 1, bins + 1)[1:-1]))
        out.append(RowPatterns(np.asarray(cols), atoms, edges))
    return out

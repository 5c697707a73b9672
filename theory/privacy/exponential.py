"""The exponential mechanism over a finite class, and its structured form for thresholds/intervals.

Implements: EXPMECH (McSherry–Talwar; BNS15 Prop A.1; HPSY/ABM19 use it with
q(S, h) = -#errors of h on S, sensitivity 1), Structured EXPMECH (thresholds and intervals over
X_d with d <= 64, exact, O(m log m)).

Output probability: P[h] proportional to exp(epsilon * q(S, h) / (2 * sensitivity)) with
q = -#errors and sensitivity 1, i.e. exp(-epsilon * errors / 2).  This is epsilon-DP: changing
one example changes every error count by at most 1.  Utility (BNS15 Prop A.1):
P[error_S(h) > e_min + Delta] <= |H| exp(-epsilon Delta m / 2), with error_S the error rate.

Sampling, for every release (:func:`sample`, the structured mechanisms), is exact: the public
:func:`semiprivate.kernels.exponential_mechanism` with ``exact=True`` (scores = -errors, integers;
epsilon the exact rational of the float given): rigorous interval bounds on ``exp`` and lazily drawn
uniform bits decide every output, so no hypothesis with a finite score ever gets probability 0 (the
compiled float sampler sets every weight below ``exp(-708)`` to 0, which breaks pure DP: Mironov 2012's
class of failure).  :func:`sample_log_weights` (float log-weights, the fast compiled sampler) is for
uses whose output is not a release of private data, or whose weights are not of the form
``n exp(-c k)``; it is documented where it is used.  The exact output distribution is computed in
log space.

Examples
--------
>>> import numpy as np
>>> P = np.array([[0, 0, 1], [1, 1, 1]], dtype=bool)   # two hypotheses on 3 points
>>> errors = error_counts_of(P, [0, 0, 1])
>>> errors.tolist()
[0, 2]
>>> p = output_distribution(errors, 1.0)
>>> bool(np.isclose(p[0] / p[1], np.exp(1.0)))
True
>>> int(sample(errors, 1.0, rng=0)) in (0, 1)
True
>>> structured_threshold_mechanism([3, 9], [1, 0], 1.0, 64, rng=1) <= 2**64
True
"""

from __future__ import annotations

import bisect
import math
from typing import Any

import numpy as np
from scipy.special import logsumexp
from semiprivate import kernels
from semiprivate.theory.classes.base import (
    error_counts_of,  # counting errors belongs with the classes; re-exported here
)
from semiprivate.theory.classes.integer import uniform_int, validate_integer_points
from semiprivate.theory.privacy._release import released_function
from semiprivate.validation import (
    EPSILON,
    RNG,
    ArrayLike,
    Integer,
    Optional,
    as_generator,
    check_binary,
    validate_params,
)

__all__ = [
    "error_counts_of",
    "log_output_distribution",
    "output_distribution",
    "sample",
    "sample_log_weights",
    "threshold_cells",
    "structured_threshold_mechanism",
    "structured_threshold_log_probability",
    "interval_log_normalizer",
    "structured_interval_mechanism",
    "structured_interval_log_probability",
]


def _errors(errors: Any) -> np.ndarray:
    """``errors`` (already a finite 1-d numeric array) as float64, or ValueError naming ``errors``
    when an entry is negative or not a whole number (which entry, and its value, are not shown:
    error counts are statistics of private data).  Real-valued scores of sensitivity 1 (e.g. the
    BLR sanitizer's ``|D|`` times a query gap) go to :func:`semiprivate.kernels.exponential_mechanism`
    and :func:`semiprivate.kernels.exponential_log_probabilities`, which take any real scores."""
    e = np.asarray(errors, dtype=np.float64)
    if (e < 0).any():
        raise ValueError("errors must be non-negative (numbers of mistakes); some entry is negative")
    if (e != np.floor(e)).any():
        raise ValueError("errors must be whole numbers (numbers of mistakes); some entry is fractional "
                         "(for real-valued scores use semiprivate.kernels.exponential_mechanism)")
    return e


@validate_params(errors=ArrayLike(ndim=1, dtype_kinds="iuf"), epsilon=EPSILON)
def log_output_distribution(errors: Any, epsilon: float) -> np.ndarray:
    """Exact log-probabilities of the exponential mechanism with q = -errors, sensitivity 1.

    Implements: EXPMECH (exact output distribution): log P[i] = -eps errors[i]/2 - logZ.

    ``errors`` are counts of mistakes: non-negative, finite whole numbers (any numeric dtype;
    a ValueError otherwise).  Real-valued scores of sensitivity 1 go to
    :func:`semiprivate.kernels.exponential_log_probabilities` instead.

    Examples
    --------
    >>> np.exp(log_output_distribution([0, 0], 1.0)).tolist()
    [0.5, 0.5]
    >>> log_output_distribution([-1, 0], 1.0)
    Traceback (most recent call last):
    ...
    ValueError: errors must be non-negative (numbers of mistakes); some entry is negative
    >>> log_output_distribution([2.5, 0], 1.0)
    Traceback (most recent call last):
    ...
    ValueError: errors must be whole numbers (numbers of mistakes); some entry is fractional (for real-valued scores use semiprivate.kernels.exponential_mechanism)
    """
    e = _errors(errors)
    a = -0.5 * float(epsilon) * e
    return np.asarray(a - logsumexp(a))


@validate_params(errors=ArrayLike(ndim=1, dtype_kinds="iuf"), epsilon=EPSILON)
def output_distribution(errors: Any, epsilon: float) -> np.ndarray:
    """Exact output probabilities (``exp`` of :func:`log_output_distribution`).

    Implements: EXPMECH.
    """
    return np.exp(log_output_distribution(errors, epsilon))


@released_function
@validate_params(errors=ArrayLike(ndim=1, dtype_kinds="iuf"), epsilon=EPSILON, size=Optional(Integer(1)), rng=RNG)
def sample(errors: Any, epsilon: float, *, size: int | None = None, rng: Any = None) -> Any:
    """Sample indices from the exponential mechanism with q = -errors (sensitivity 1), exactly.

    Implements: EXPMECH (sampling), through :func:`semiprivate.kernels.exponential_mechanism` with
    ``exact=True``: the output law is exactly :func:`output_distribution` (epsilon taken as the exact
    rational value of the float), every finite error count has positive probability.
    ``errors``: non-negative finite whole numbers, as in :func:`log_output_distribution`
    (real-valued scores: :func:`semiprivate.kernels.exponential_mechanism`).

    Returns
    -------
    int or ndarray of int64
        One index (``size=None``) or ``size`` indices: *positions* ``0 .. len(errors) - 1``,
        also when ``errors`` is a pandas Series (``errors.index[i]`` gives its label), as for
        :func:`semiprivate.kernels.exponential_mechanism`.
    """
    scores = -(_errors(errors).astype(np.int64))
    return kernels.exponential_mechanism(scores, float(epsilon), sensitivity=1, size=size, rng=as_generator(rng),
                                         exact=True)


def _kernel_sample(scores: np.ndarray, epsilon: float, size: int | None, gen: np.random.Generator) -> Any:
    return kernels.exponential_mechanism(scores, epsilon, sensitivity=1.0, size=size, rng=gen)


@released_function
def sample_log_weights(log_weights: Any, *, size: int | None = None, rng: Any = None) -> Any:
    """Sample an index with probability proportional to ``exp(log_weights)`` (floating point).

    Goes through :func:`semiprivate.kernels.exponential_mechanism` with scores = log-weights,
    epsilon = 2 and sensitivity 1 (so exp(eps q / 2) = exp(q)).  ``-inf`` entries have
    probability 0, and so does every weight below ``exp(-708)`` of the largest (the float caveat
    of :func:`semiprivate.kernels.sampler_error_bounds`): not for releases whose pure DP rests on
    every finite weight being positive (use :func:`sample` or the exact structured mechanisms).
    """
    lw = np.asarray(log_weights, dtype=np.float64)
    finite = np.isfinite(lw)
    if not finite.any():
        raise ValueError("log_weights has no finite entry")
    idx = np.flatnonzero(finite)
    got = _kernel_sample(lw[idx], 2.0, size, as_generator(rng))
    return int(idx[got]) if size is None else idx[np.asarray(got)]


# ---------------------------------------------------------------------------------------
# Structured mechanism: thresholds c_t(x) = 1 iff x < t, t in {0, ..., 2^d}
# ---------------------------------------------------------------------------------------


def _grouped(X: Any, y: Any, d: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    Xv = validate_integer_points(X, d, "X")
    yv = check_binary(y, "y", length=len(Xv), as_bool=True)
    order = np.argsort(Xv, kind="stable")
    xs_sorted = Xv[order]
    ys_sorted = yv[order]
    uniq, start = np.unique(xs_sorted, return_index=True)
    n1 = np.add.reduceat(ys_sorted.astype(np.int64), start)
    cnt = np.diff(np.append(start, len(xs_sorted)))
    n0 = cnt - n1
    return [int(u) for u in uniq], n0.astype(np.int64), n1.astype(np.int64)


@validate_params(epsilon=EPSILON, d=Integer(1, 64))
def threshold_cells(X: Any, y: Any, epsilon: float, d: int) -> dict[str, Any]:
    """The cells of the structured threshold mechanism and their log-weights.

    Implements: Structured EXPMECH (thresholds).  With distinct sorted sample values
    u_1 < ... < u_k, every t in cell i (t in [0, u_1] for i = 0, t in (u_i, u_{i+1}] for
    0 < i < k, t in (u_k, 2^d] for i = k) labels exactly the points <= u_i with 1, so all
    t in a cell have the same number of errors err_i.  Cell weight = size_i exp(-eps err_i/2).

    Returns
    -------
    dict
        ``lo``, ``hi`` (lists of Python ints: cell i is {lo_i, ..., hi_i}), ``size`` (ints),
        ``errors`` (int64 array), ``log_weight`` (float64 array).
    """
    u, n0, n1 = _grouped(X, y, d)
    k = len(u)
    # errors of cell i: zeros labelled 1 among the first i values + ones labelled 0 after them
    c0 = np.concatenate([[0], np.cumsum(n0)])
    c1 = np.concatenate([[0], np.cumsum(n1)])
    errors = c0 + (c1[-1] - c1)
    lo = [0] + [v + 1 for v in u]
    hi = [u[0]] + [u[i + 1] for i in range(k - 1)] + [2**d]
    size = [h - lo_ + 1 for lo_, h in zip(lo, hi)]
    logw = np.array([math.log(s) for s in size]) - 0.5 * float(epsilon) * errors
    return {"lo": lo, "hi": hi, "size": size, "errors": errors.astype(np.int64), "log_weight": logw}


@released_function
@validate_params(epsilon=EPSILON, d=Integer(1, 64), rng=RNG)
def structured_threshold_mechanism(X: Any, y: Any, epsilon: float, d: int, *, rng: Any = None) -> int:
    """Exponential mechanism over all 2^d + 1 thresholds, exactly, in O(m log m).

    Implements: Structured EXPMECH (thresholds over X_d, d <= 64).  Samples a cell of
    :func:`threshold_cells` with probability proportional to size * exp(-eps err / 2)
    (the exact weighted sampler of :mod:`semiprivate.kernels._reference`: integer errors, cell sizes as
    Python ints, no floating point in the decision), then a uniform member of it (exact rejection
    sampling on Python ints).  The output distribution equals the exponential
    mechanism over THRESH_d with q = -#errors, sensitivity 1: epsilon-DP.

    Parameters
    ----------
    X : array of int
        Private sample points in X_d (any order, repeats allowed).
    y : array of 0/1
        Labels.
    epsilon : float
        Privacy parameter.
    d : int
        Bit length, 1 <= d <= 64.
    rng : None, int or Generator

    Returns
    -------
    int
        A threshold t in {0, ..., 2^d} (c_t(x) = 1 iff x < t).
    """
    gen = as_generator(rng)
    cells = threshold_cells(X, y, epsilon, d)
    i = _exact_weighted(-cells["errors"], cells["size"], epsilon, gen)
    return int(cells["lo"][i] + uniform_int(gen, cells["size"][i]))


def _exact_weighted(scores: Any, multiplicities: list[int], epsilon: float, gen: np.random.Generator) -> int:
    """Index i with probability ∝ multiplicities[i] exp(epsilon scores[i] / 2), exactly (integer scores)."""
    from fractions import Fraction

    from semiprivate.kernels._reference import reference_exact_weighted_sample

    return reference_exact_weighted_sample(np.asarray(scores, dtype=np.int64), list(multiplicities),
                                           Fraction(float(epsilon)), Fraction(1), gen)


@validate_params(epsilon=EPSILON, d=Integer(1, 64))
def structured_threshold_log_probability(t: int, X: Any, y: Any, epsilon: float, d: int) -> float:
    """log P[output = t] of :func:`structured_threshold_mechanism` (for exactness tests)."""
    cells = threshold_cells(X, y, epsilon, d)
    if not 0 <= int(t) <= 2**d:
        raise ValueError(f"t must be in [0, 2^{d}], got {t}")
    logZ = float(logsumexp(cells["log_weight"]))
    i = bisect.bisect_left(cells["hi"], int(t))
    return float(cells["log_weight"][i] - math.log(cells["size"][i]) - logZ)


# ---------------------------------------------------------------------------------------
# Structured mechanism: intervals [a, b] (0 <= a <= b < 2^d) and the empty interval
# ---------------------------------------------------------------------------------------


def _interval_parts(X: Any, y: Any, epsilon: float, d: int) -> dict[str, Any]:
    u, n0, n1 = _grouped(X, y, d)
    k = len(u)
    eps = float(epsilon)
    E0 = int(n1.sum())  # errors of any interval that contains no sample value
    s = n0 - n1  # change in errors when value t is inside
    P = np.concatenate([[0], np.cumsum(s)])  # P[j] = s_1 + ... + s_j
    ext = [-1] + u + [2**d]
    Lsize = [ext[i] - ext[i - 1] for i in range(1, k + 1)]  # choices of a for a run starting at i
    Rsize = [ext[j + 1] - ext[j] for j in range(1, k + 1)]  # choices of b for a run ending at j
    logA = np.array([math.log(v) for v in Lsize]) + 0.5 * eps * P[:-1]
    logB = np.array([math.log(v) for v in Rsize]) - 0.5 * eps * P[1:]
    cumA = np.logaddexp.accumulate(logA)
    log_end = logB + cumA - 0.5 * eps * E0  # total weight of runs ending at j
    # empty interval + non-empty intervals inside the k+1 gaps between sample values
    gaps = [ext[i + 1] - ext[i] - 1 for i in range(k + 1)]
    n_empty = 1 + sum(g * (g + 1) // 2 for g in gaps)
    log_none = math.log(n_empty) - 0.5 * eps * E0
    return {
        "u": u, "ext": ext, "gaps": gaps, "n_empty": n_empty, "E0": E0, "P": P,
        "logA": logA, "log_end": log_end, "log_none": log_none,
    }


@validate_params(epsilon=EPSILON, d=Integer(1, 64))
def interval_log_normalizer(X: Any, y: Any, epsilon: float, d: int) -> float:
    """log of sum over all intervals h (and the empty one) of exp(-eps err_S(h) / 2).

    Implements: Structured EXPMECH (intervals): the sum over runs i <= j of sample values
    factorises as L_i e^{eps P_{i-1}/2} R_j e^{-eps P_j/2} e^{-eps E0/2}, so it is a
    prefix log-sum-exp: O(m log m) including the sort.
    """
    parts = _interval_parts(X, y, epsilon, d)
    return float(logsumexp(np.append(parts["log_end"], parts["log_none"])))


def _interval_errors(h: Any, X: Any, y: Any, d: int) -> int:
    Xv = validate_integer_points(X, d, "X")
    yv = check_binary(y, "y", length=len(Xv), as_bool=True)
    if h is None:
        pred = np.zeros(len(Xv), dtype=bool)
    else:
        a, b = int(h[0]), int(h[1])
        if not 0 <= a <= b < 2**d:
            raise ValueError(f"interval must satisfy 0 <= a <= b < 2^{d}, got {h!r}")
        pred = (Xv >= np.uint64(a)) & (Xv <= np.uint64(b))
    return int(np.count_nonzero(pred != yv))


@validate_params(epsilon=EPSILON, d=Integer(1, 64))
def structured_interval_log_probability(h: Any, X: Any, y: Any, epsilon: float, d: int) -> float:
    """log P[output = h] of :func:`structured_interval_mechanism` (h = (a, b) or None)."""
    return -0.5 * float(epsilon) * _interval_errors(h, X, y, d) - interval_log_normalizer(X, y, epsilon, d)


@released_function
@validate_params(epsilon=EPSILON, d=Integer(1, 64), rng=RNG)
def structured_interval_mechanism(X: Any, y: Any, epsilon: float, d: int, *, rng: Any = None) -> tuple[int, int] | None:
    """Exponential mechanism over all intervals of X_d (plus the empty one), exactly.

    Implements: Structured EXPMECH (intervals over X_d, d <= 64).  Cells: (i) intervals
    containing no sample value (weight n_empty exp(-eps E0/2); the member is uniform among
    the empty interval and the g(g+1)/2 intervals inside each gap of g free values);
    (ii) intervals whose sample values are the run u_i..u_j (a in (u_{i-1}, u_i],
    b in [u_j, u_{j+1})).  First the end j of the run is sampled (prefix log-sum-exp), then
    its start i <= j, then a and b uniformly: O(m log m), exact.  epsilon-DP.

    Returns
    -------
    tuple of int or None
        ``(a, b)`` with 0 <= a <= b < 2^d, or ``None`` for the empty interval.

    The cell is drawn exactly (integer errors, multiplicities as Python ints) over the k(k+1)/2 runs
    and the empty cell: O(k^2) in the number k of distinct sample values.
    """
    gen = as_generator(rng)
    parts = _interval_parts(X, y, epsilon, d)
    k = len(parts["u"])
    ext = parts["ext"]
    # every run (i, j) of sample values with its multiplicity (choices of a) x (choices of b) and its integer
    # error E0 + P_{j+1} - P_i, and the cell of intervals holding no sample value: one exact draw (O(k^2) cells)
    P = [int(v) for v in parts["P"]]
    runs = [(i, j) for j in range(k) for i in range(j + 1)]
    errs = [parts["E0"] + P[j + 1] - P[i] for i, j in runs] + [parts["E0"]]
    mult = [(ext[i + 1] - ext[i]) * (ext[j + 2] - ext[j + 1]) for i, j in runs] + [parts["n_empty"]]
    pick = _exact_weighted(-np.asarray(errs, dtype=np.int64), mult, epsilon, gen)
    choice = k if pick == len(runs) else runs[pick][1]
    if choice == k:
        r = uniform_int(gen, parts["n_empty"])
        if r == 0:
            return None
        r -= 1
        for gi, g in enumerate(parts["gaps"]):
            cnt = g * (g + 1) // 2
            if r < cnt:
                base = ext[gi] + 1  # free values base .. base + g - 1
                # r-th pair (a <= b) among g values: pick by rejection on a g x g grid
                while True:
                    a_off, b_off = uniform_int(gen, g), uniform_int(gen, g)
                    if a_off <= b_off:
                        return (base + a_off, base + b_off)
            r -= cnt
        raise RuntimeError("unreachable: gap index out of range")  # pragma: no cover
    i, j = runs[pick]  # the run u_i..u_j (0-based value indices)
    a = ext[i] + 1 + uniform_int(gen, ext[i + 1] - ext[i])  # a in (u_{i-1}, u_i]
    b = ext[j + 1] + uniform_int(gen, ext[j + 2] - ext[j + 1])  # b in [u_j, u_{j+1})
    return (a, b)

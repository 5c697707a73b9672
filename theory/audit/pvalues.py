"""The audit's p-values, computed in log space below what a double can hold.

Implements: AUDIT (dual p-value of the Clopper–Pearson tests; log-space binomial tails).

The Clopper–Pearson audit refutes a claim ``(eps, delta)`` at level ``alpha`` when some kept test's bound
``log((p_lo - delta) / q_hi)`` exceeds ``eps`` with both one-sided intervals at level ``a = alpha / (2K)``.
Its p-value is the smallest such ``alpha``.  :func:`cp_p_value` finds it by bisection on ``log alpha`` over
``[-690, 0]`` with the intervals themselves (SciPy's beta quantiles, which stop near the smallest double).
Below ``e^-690`` the level itself is not a double, so :func:`log_cp_p_value` works with the binomial tails
instead: ``p_lo(a) = x`` solves ``P_x[K >= k] = I_x(k, n - k + 1) = a`` and ``q_hi(a) = y`` solves
``P_y[K <= k'] = I_{1-y}(n - k', k' + 1) = a``, so the test crosses at the ``y*`` where
``log I_{delta + e^eps y}(k, n - k + 1) = log I_{1-y}(n - k', k' + 1)`` (the left side increases in ``y``,
the right side decreases) and ``log a* `` is their common value; ``log p = min(0, log(2K) + min_t log a*_t)``.
The regularised incomplete beta ``I_x(a, b)`` is taken in log space (:func:`log_betainc`): SciPy's value
where it is a normal double well above the underflow, else its continued fraction (Lentz's method, as in
Numerical Recipes' ``betacf``) times ``x^a (1 - x)^b / (a B(a, b))``, all logs.  So a p-value like
``1e-400`` is computed as its logarithm (``-921.0``), and a report can say ``< 1e-300`` only when that is
established (:func:`format_p_value`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betainc, betaln
from semiprivate.theory.audit.stats import (
    _beta_lower_checked,
    _beta_upper_checked,
    _epsilon_bound_checked,
    cp_lower,
    cp_upper,
    epsilon_bound,
)
from semiprivate.validation import DELTA, Integer, Real, validate_params

__all__ = ["LOG_SEARCH_FLOOR", "PRINT_FLOOR", "bounds_at", "cp_p_value", "cp_p_value_and_log", "format_p_value",
           "log_betainc", "log_cp_p_value"]

#: the lowest ``log alpha`` the bisection of :func:`cp_p_value` tries (``e^-690 ~ 2.2e-300``)
LOG_SEARCH_FLOOR = -690.0
#: p-values below this are printed as ``< 1e-300`` (when their logarithm shows it)
PRINT_FLOOR = 1e-300
#: SciPy's ``betainc`` is used in log space above this value (well inside the normal doubles)
_SCIPY_SAFE = 1e-280


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (modified Lentz), for ``x < (a + 1) / (a + b + 2)``."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 200_000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            return h
    raise ArithmeticError(f"the continued fraction of I_x(a, b) did not converge (a={a}, b={b}, x={x})")


@validate_params(a=Real(0.0, math.inf, closed="neither"), b=Real(0.0, math.inf, closed="neither"),
                 x=Real(0.0, 1.0, closed="both"))
def log_betainc(a: float, b: float, x: float) -> float:
    """``log I_x(a, b)``, the log of the regularised incomplete beta function, finite far below 1e-308.

    >>> round(log_betainc(2.0, 3.0, 0.5), 12) == round(math.log(0.6875), 12)
    True
    >>> round(log_betainc(1000.0, 1001.0, 0.01) / math.log(10))  # I is about 10^-1404 (mpmath: -1404.049)
    -1404
    """
    if x <= 0.0:
        return -math.inf
    if x >= 1.0:
        return 0.0
    v = float(betainc(a, b, x))
    if v > _SCIPY_SAFE:
        return math.log(v)
    if x >= (a + 1.0) / (a + b + 2.0):  # the bulk: I_x is not tiny there, 1 - I_{1-x}(b, a)
        return math.log1p(-math.exp(log_betainc(b, a, 1.0 - x)))
    front = a * math.log(x) + b * math.log1p(-x) - math.log(a) - float(betaln(a, b))
    return front + math.log(_betacf(a, b, x))


#: the rules of the p-value functions' arguments (the counts are checked by :func:`_counts`)
_TEST_RULES = dict(n=Integer(1), k=Integer(1), epsilon=Real(0.0, math.inf, closed="left"), delta=DELTA)


def _counts(kn: np.ndarray, ko: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``kn``, ``ko`` as float arrays of the same length of counts in ``[0, n]``, or an error naming them."""
    out = []
    for name, v in (("kn", kn), ("ko", ko)):
        try:
            arr = np.asarray(v, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an array of event counts, got {type(v).__name__}") from None
        if arr.size == 0 or not np.all((arr >= 0) & (arr <= n) & (arr == np.round(arr))):
            raise ValueError(f"{name} must be a non-empty array of whole counts in [0, n={n}], got {v!r:.60}")
        out.append(arr)
    if out[0].size != out[1].size:
        raise ValueError(f"kn and ko must have one count per test each, got {out[0].size} and {out[1].size}")
    return out[0], out[1]


def bounds_at(kn: np.ndarray, ko: np.ndarray, n: int, a: float, delta: float) -> np.ndarray:
    """Every test's Clopper–Pearson bound ``log((p_lo - delta) / q_hi)`` with both intervals at level ``a``."""
    return epsilon_bound(cp_lower(kn, n, a), cp_upper(ko, n, a), delta)


@validate_params(**_TEST_RULES)
def cp_p_value(kn: np.ndarray, ko: np.ndarray, n: int, k: int, epsilon: float, delta: float) -> float:
    """The Clopper–Pearson audit's p-value (module docstring), by bisection on ``log alpha`` over
    ``[LOG_SEARCH_FLOOR, 0]``; ``e^LOG_SEARCH_FLOOR`` when the claim is refuted even there (see
    :func:`log_cp_p_value` for the value below)."""
    kn, ko = _counts(kn, ko, n)
    nf, dl = np.asarray(n, dtype=np.float64), float(delta)

    def crosses(log_alpha: float) -> bool:
        a = math.exp(log_alpha) / (2 * k)  # in (0, 1/2] for every k below ~1e23 (LOG_SEARCH_FLOOR)
        # :func:`bounds_at` on the counts validated once above: the same operations, without the checks
        # that the bisection's 60 evaluations would repeat
        bounds = _epsilon_bound_checked(_beta_lower_checked(kn, nf, a), _beta_upper_checked(ko, nf, a), dl)
        return bool(np.max(bounds) > epsilon)

    if not crosses(0.0):
        return 1.0
    lo, hi = LOG_SEARCH_FLOOR, 0.0
    if crosses(lo):
        return math.exp(lo)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if crosses(mid):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def _log_crossing(kn: int, ko: int, n: int, epsilon: float, delta: float) -> float:
    """``log a*``: the per-interval level at which one test's bound reaches ``epsilon`` (module docstring)."""
    if kn <= 0 or ko >= n:  # p_lo = 0, or q_hi = 1: the bound never exceeds epsilon
        return 0.0
    y_max = min(1.0, (1.0 - delta) * math.exp(-epsilon))
    if y_max <= 0.0:  # e^-epsilon below the doubles: q_hi can never be that small
        return 0.0

    def gap(y: float) -> tuple[float, float]:  # (f(y), g(y)): numerator's side, other side
        x = delta + (math.exp(math.log(y) + epsilon) if y > 0.0 else 0.0)
        f = 0.0 if x >= 1.0 else log_betainc(kn, n - kn + 1.0, x)
        return f, log_betainc(n - ko, ko + 1.0, 1.0 - y)

    lo, hi = 0.0, y_max
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        f, g = gap(mid)
        if f < g:
            lo = mid
        else:
            hi = mid
    return min(0.0, max(gap(hi)[1], gap(lo)[0]))


@validate_params(**_TEST_RULES)
def log_cp_p_value(kn: np.ndarray, ko: np.ndarray, n: int, k: int, epsilon: float, delta: float) -> float:
    """``log`` of the Clopper–Pearson audit's p-value, computed from log binomial tails (module docstring),
    so that it stays finite and exact far below ``1e-300``.

    >>> import numpy as np
    >>> lp = log_cp_p_value(np.array([100_000]), np.array([0]), 100_000, 1, 0.1, 0.0)
    >>> round(lp, 2), round(math.log(2) + 100_000 * math.log(math.exp(0.1) / (1 + math.exp(0.1))), 2)
    (-64438.97, -64438.97)
    """
    kn, ko = _counts(kn, ko, n)
    logs = [_log_crossing(int(a), int(b), int(n), float(epsilon), float(delta)) for a, b in zip(kn, ko)]
    return min(0.0, math.log(2 * k) + min(logs))


@validate_params(**_TEST_RULES)
def cp_p_value_and_log(kn: np.ndarray, ko: np.ndarray, n: int, k: int, epsilon: float,
                       delta: float) -> tuple[float, float]:
    """The Clopper–Pearson audit's p-value and its logarithm: :func:`cp_p_value` where it resolves the value,
    :func:`log_cp_p_value` below its floor (the p-value is then ``exp`` of that log, 0.0 when it underflows)."""
    p = cp_p_value(kn, ko, n, k, epsilon, delta)
    if p > math.exp(LOG_SEARCH_FLOOR):
        return p, math.log(p)
    log_p = log_cp_p_value(kn, ko, n, k, epsilon, delta)
    return math.exp(log_p), log_p


def format_p_value(p: float, log_p: float | None = None) -> str:
    """``p`` to 3 significant digits, or ``< 1e-300`` when ``log_p`` (its natural log; default ``log p``)
    shows it is below :data:`PRINT_FLOOR`.

    >>> format_p_value(0.0123), format_p_value(2.5e-300), format_p_value(0.0, log_p=-921.03)
    ('0.0123', '2.5e-300', '< 1e-300')
    """
    if isinstance(p, bool) or not isinstance(p, (int, float)):  # numpy floats are floats
        raise TypeError(f"p must be a number in [0, 1], got {type(p).__name__}")
    if not 0.0 <= float(p) <= 1.0:  # NaN fails too
        raise ValueError(f"p must be a p-value in [0, 1], got {p!r}")
    if log_p is None:
        if p == 0.0:
            return "0"
        log_p = math.log(p)
    elif isinstance(log_p, bool) or not isinstance(log_p, (int, float)) or not log_p <= 0.0:
        raise ValueError(f"log_p must be a number <= 0, got {log_p!r}")
    return f"< {PRINT_FLOOR:.0e}" if log_p < math.log(PRINT_FLOOR) else f"{p:.3g}"

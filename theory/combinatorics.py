"""Combinatorics of concept classes: growth function, Sauer–Shelah bounds, the class C_xor.

Implements: COMB.Sauer (BNS15 Thm B.2; Sauer 1972), COMB.XorClass (BNS15 Def 3.1, Obs 3.2).

Examples
--------
>>> sauer_sum(10, 2)
56
>>> round(sauer_exponential_bound(10, 2), 3)
184.726
>>> xor_vc_bound(1)
9
>>> round(xor_vc_constant(), 4)
9.3288
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.optimize import brentq
from semiprivate.theory.classes.constraint import CONCEPT_CLASS
from semiprivate.validation import NONNEGATIVE_INT, POSITIVE_INT, Options, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from semiprivate.theory.classes.base import ConceptClass

__all__ = [
    "sauer_sum",
    "sauer_exponential_bound",
    "log_sauer_exponential_bound",
    "sauer_bounds",
    "growth_function",
    "xor_dichotomies",
    "xor_vc_bound",
    "xor_vc_constant",
]


@validate_params(m=NONNEGATIVE_INT, d=NONNEGATIVE_INT)
def sauer_sum(m: int, d: int) -> int:
    r"""Sauer–Shelah bound :math:`\sum_{i=0}^{d} \binom{m}{i}`, exact integer.

    Implements: COMB.Sauer (BNS15 Thm B.2, first inequality).  For a class C with VC(C) = d
    and any B with |B| = m, :math:`|\Pi_C(B)| \le \sum_{i \le d} \binom{m}{i}`.

    Parameters
    ----------
    m : int
        Number of points, ``m >= 0``.
    d : int
        VC dimension, ``d >= 0``.

    Returns
    -------
    int
        The exact sum (equal to ``2**m`` when ``d >= m``).

    Raises
    ------
    TypeError, ValueError
        For a non-integer or negative argument.

    References
    ----------
    BNS15 Theorem B.2; N. Sauer, J. Comb. Theory A 13 (1972).

    Examples
    --------
    >>> sauer_sum(5, 1), sauer_sum(3, 5)
    (6, 8)
    """
    if d >= m:
        return 1 << m
    total = 0
    c = 1
    for i in range(d + 1):
        total += c
        c = c * (m - i) // (i + 1)
    return total


@validate_params(m=NONNEGATIVE_INT, d=POSITIVE_INT)
def log_sauer_exponential_bound(m: int, d: int) -> float:
    r"""Natural log of :math:`(e m / d)^d` (``d >= 1``, ``m >= 0``); ``-inf`` when ``m == 0``.

    Implements: COMB.Sauer (log form, overflow-free).

    >>> round(log_sauer_exponential_bound(10, 2), 6)
    5.218876
    """
    m, d = int(m), int(d)
    if m == 0:
        return -math.inf
    return d * (1.0 + math.log(m) - math.log(d))


@validate_params(m=NONNEGATIVE_INT, d=POSITIVE_INT)
def sauer_exponential_bound(m: int, d: int) -> float:
    r"""Sauer–Shelah exponential bound :math:`(e m / d)^d`.

    Implements: COMB.Sauer (BNS15 Thm B.2, second inequality): for ``m >= d >= 1``,
    :math:`\sum_{i\le d}\binom{m}{i} \le (e m/d)^d`.  (For ``m < d`` the value is still
    returned but it is not a bound on :math:`|\Pi_C(B)|`; use :func:`sauer_sum` there.)

    Parameters
    ----------
    m : int
        Number of points (>= 0).
    d : int
        VC dimension (>= 1).

    Returns
    -------
    float
        ``(e*m/d)**d``, computed in log space; ``inf`` with a :class:`RuntimeWarning` when it
        overflows a float (use :func:`log_sauer_exponential_bound` instead).

    Examples
    --------
    >>> sauer_exponential_bound(6, 1) == math.e * 6
    True
    """
    log_value = log_sauer_exponential_bound(m, d)
    if log_value > 709.0:
        warnings.warn(
            f"(e*m/d)^d overflows a float for m={m}, d={d}; returning inf "
            "(use log_sauer_exponential_bound)",
            RuntimeWarning,
            stacklevel=2,
        )
        return math.inf
    return math.exp(log_value)


@validate_params(m=NONNEGATIVE_INT, d=POSITIVE_INT)
def sauer_bounds(m: int, d: int) -> dict[str, Any]:
    """Both Sauer–Shelah bounds and which is tighter.

    Implements: COMB.Sauer.  The sum bound is always at most the exponential one when
    ``m >= d`` (BNS15 Thm B.2), so ``tighter`` is ``"sum"`` unless they coincide.

    Returns
    -------
    dict
        ``{"sum": int, "exponential": float, "tighter": "sum" | "equal", "valid_exponential": bool}``;
        ``valid_exponential`` is False for ``m < d`` (the exponential form is not a bound there).

    Examples
    --------
    >>> sauer_bounds(10, 2)["tighter"]
    'sum'
    """
    s = sauer_sum(m, d)
    e = sauer_exponential_bound(m, d)
    tighter = "equal" if math.isclose(float(s), e) else ("sum" if s < e else "exponential")
    return {"sum": s, "exponential": e, "tighter": tighter, "valid_exponential": m >= d}


@validate_params(concept_class=CONCEPT_CLASS, m=NONNEGATIVE_INT, method=Options("auto", "closed_form", "brute_force"))
def growth_function(concept_class: ConceptClass, m: int, *, method: str = "auto") -> int:
    r"""Growth function :math:`G_C(m) = \max_{|B| = m} |\Pi_C(B)|`.

    Implements: COMB.Sauer (exact growth function where computable).

    Parameters
    ----------
    concept_class : ConceptClass
        A class from :mod:`semiprivate.theory.classes`.
    m : int
        Number of (distinct) points.
    method : {"auto", "closed_form", "brute_force"}
        ``closed_form`` uses the class's known formula (thresholds m+1, intervals
        C(m+1,2)+1, points m+1, ...); ``brute_force`` maximises |Pi_C(B)| over all m-subsets
        of a finite domain (exponential; small domains only).  ``auto`` prefers the closed form.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        ``m`` larger than the domain, or no method applies.

    Examples
    --------
    >>> from semiprivate.theory.classes import Thresholds
    >>> growth_function(Thresholds(3), 4), growth_function(Thresholds(3), 4, method="brute_force")
    (5, 5)
    """
    size = concept_class.domain_size
    if size is not None and m > size:
        raise ValueError(f"m must be at most the domain size {size}, got m={m}")
    if method in ("auto", "closed_form"):
        value = concept_class.growth_function_closed_form(m)
        if value is not None:
            return value
        if method == "closed_form":
            raise ValueError(f"{type(concept_class).__name__} has no closed-form growth function")
    points_all = concept_class.domain_points()
    if points_all is None:
        raise ValueError(f"{type(concept_class).__name__} has an infinite or unenumerable domain")
    n = len(points_all)
    if math.comb(n, m) > 200_000:
        raise ValueError(f"brute force over C({n},{m}) subsets is too large")
    best = 0
    for idx in itertools.combinations(range(n), m):
        best = max(best, concept_class.count_dichotomies(points_all[list(idx)]))
    return best


def xor_dichotomies(patterns: np.ndarray) -> np.ndarray:
    r""":math:`\Pi_{C^\oplus}(B) = \Pi_C(B) \oplus \Pi_C(B)` from the patterns of :math:`\Pi_C(B)`.

    Implements: COMB.XorClass (BNS15 Obs 3.2, the identity in its proof).

    Parameters
    ----------
    patterns : ndarray of bool, shape (k, l)
        The distinct dichotomies of C on B.

    Returns
    -------
    ndarray of bool, shape (k', l)
        The distinct dichotomies of :math:`C^\oplus = \{h \oplus f\}` on B (k' <= k^2).

    Examples
    --------
    >>> p = np.array([[0, 0], [1, 0], [1, 1]], dtype=bool)   # thresholds on 2 points
    >>> xor_dichotomies(p).shape[0]
    4
    """
    if patterns is None or isinstance(patterns, (str, bytes)):
        raise TypeError(f"patterns must be a 2-d bool array, got {type(patterns).__name__}")
    try:
        raw = np.asarray(patterns)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"patterns must be a 2-d bool array, got {type(patterns).__name__}: {exc}") from None
    if raw.dtype.kind not in "biu":
        raise TypeError(f"patterns must be a 2-d bool (or 0/1) array, got dtype {raw.dtype}")
    if raw.size and not np.isin(raw, (0, 1)).all():
        raise ValueError("patterns must contain only 0/1 (bool) entries")
    p = raw.astype(bool)
    if p.ndim != 2:
        raise ValueError(f"patterns must be 2-d, got shape {p.shape}")
    x = (p[:, None, :] ^ p[None, :, :]).reshape(-1, p.shape[1])
    return np.unique(x, axis=0)


@validate_params(d=POSITIVE_INT, method=Options("exponential", "sum"))
def xor_vc_bound(d: int, method: str = "exponential") -> int:
    r"""The VC bound for :math:`C^\oplus` that the argument of BNS15 Obs 3.2 gives, for VC(C)=d.

    Implements: COMB.XorClass.  The argument: if :math:`C^\oplus` shatters l points then
    :math:`2^l \le |\Pi_C(B)|^2 \le F(l)^2`, where ``F`` is the Sauer bound
    (``"exponential"``: :math:`(e l/d)^d`, used in the paper, valid for l >= d;
    ``"sum"``: :math:`\sum_{i\le d}\binom{l}{i}`).  Returned: the largest l for which that
    inequality holds, hence :math:`VC(C^\oplus) \le` the returned value.  The paper rounds
    this up to 10 d.

    Examples
    --------
    >>> [xor_vc_bound(d) for d in (1, 2, 5)]
    [9, 18, 46]
    >>> [xor_vc_bound(d, "sum") for d in (1, 2, 5)]
    [5, 13, 38]
    """
    log2 = math.log(2.0)
    best = 0
    for l_ in range(1, 10 * d + 11):  # c* < 10, so nothing above 10 d + 10 satisfies it
        if method == "exponential":
            # |Pi_C(B)| <= (e l/d)^d for l >= d; for l < d only the trivial 2^l applies
            log_pi = d * (1 + math.log(l_) - math.log(d)) if l_ >= d else l_ * log2
            ok = 2.0 * log_pi >= l_ * log2
        else:
            ok = sauer_sum(l_, d) ** 2 >= (1 << l_)
        if ok:
            best = l_
    return best


def xor_vc_constant() -> float:
    r"""Smallest c such that :math:`(e c)^{2} < 2^{c}` for all larger c: the constant of BNS15 Obs 3.2.

    Implements: COMB.XorClass.  With l = c d, the shattering condition
    :math:`(e l/d)^{2d} \ge 2^l` becomes :math:`2(1 + \ln c) \ge c \ln 2`, which fails
    exactly for c above the larger root c* = 9.3288... of :math:`2(1+\ln c) = c\ln 2`.  So the
    argument supports :math:`VC(C^\oplus) < c^* VC(C)` for every d (the paper states 10).

    Returns
    -------
    float
        c* (to double precision).
    """
    return float(brentq(lambda c: 2.0 * (1.0 + math.log(c)) - c * math.log(2.0), 3.0, 20.0, xtol=1e-14))

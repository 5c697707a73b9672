"""BNS15 Section 5: private active learners (Theorems 5.5, 5.6, 5.8).

Implements: BNS15.Thm5.5, BNS15.Thm5.6, BNS15.Thm5.8.  Claim 5.7's privacy is in
:mod:`semiprivate.theory.bounds.privacy`.
"""

from __future__ import annotations

import math
from typing import Any

from semiprivate.theory.bounds._core import (
    MATH,
    Bound,
    Param,
    broadcasts,
    ceil_int,
    check_conditions,
    make_expr,
    register,
    renamed_params,
)
from semiprivate.theory.bounds.bns15._params import _ALPHA, _BETA, _CONST, _DELTA, _EPS, _NBASE, _VC
from semiprivate.theory.bounds.bns15.labelboost import LearnerParams
from semiprivate.validation import (
    DELTA,
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Boolean,
    Integer,
    validate_params,
)

__all__ = [
    "bns15_pssl_to_tpal",
    "bns15_tpal_threshold_lower_bound",
    "bns15_tpal_threshold_lower_bound_expr",
    "bns15_thm5_8",
]


# ---------------------------------------------------------------------------
# Section 5: active learners
# ---------------------------------------------------------------------------


@broadcasts
@validate_params(alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, delta=DELTA, n=POSITIVE_INT,
                 m=POSITIVE_INT)
def bns15_pssl_to_tpal(alpha: float, beta: float, epsilon: float, delta: float, n: int, m: int) -> LearnerParams:
    """BNS15 Thm 5.5: an (alpha, beta, eps, delta, n, m)-PSSL is an (alpha, beta, eps, delta, n, m)-TPAL.

    Implements: BNS15.Thm5.5 (the parameters are unchanged).

    >>> bns15_pssl_to_tpal(0.1, 0.1, 1.0, 0.0, 100, 10).m
    10
    """
    return LearnerParams(alpha, beta, epsilon, delta, n, m)


def _thm56(ns: Any, alpha: Any, beta: Any, epsilon: Any, delta: Any = 0, n: Any = 0) -> Any:
    return ns.exp(-2 * epsilon) * (1 - ns.frac(25, 9) * beta) / (9 * alpha) - n * delta * (1 + ns.exp(-epsilon))


@broadcasts
@validate_params(alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, delta=DELTA, n=Integer(0), strict=Boolean())
def bns15_tpal_threshold_lower_bound(alpha: float, beta: float, epsilon: float, delta: float = 0.0,
                                     n: int = 0, *, strict: bool = True) -> Any:
    r"""BNS15 Thm 5.6 with the proof's constant: every TPAL for THRESH_d has m >= e^{-2eps}(1 - 25b/9)/(9a) - n delta (1 + e^{-eps}).

    Implements: BNS15.Thm5.6.  The proof ends with
    :math:`m/n \ge e^{-2\epsilon}\frac{1-\frac{25}{9}\beta}{9\alpha n} - \delta(1+e^{-\epsilon})`;
    multiplying by n gives the bound returned here (rounded up, at least 0).  With
    delta = 0 it is Omega(1/alpha) with constant e^{-2 eps}(1 - 25 beta/9)/9.

    Parameters
    ----------
    alpha, beta : float
        The theorem needs alpha <= 1/9 and beta <= 1/4.
    epsilon, delta : float
        Privacy of the TPAL.
    n : int
        Its unlabelled sample size (only matters when delta > 0; required then).

    Raises
    ------
    ConditionNotMet
        If alpha > 1/9, beta > 1/4, or delta > 0 with n = 0.

    Examples
    --------
    >>> bns15_tpal_threshold_lower_bound(0.001, 0.1, 0.1)
    66
    """
    conds = [(alpha <= 1 / 9, "alpha <= 1/9", {"alpha": alpha}), (beta <= 0.25, "beta <= 1/4", {"beta": beta}),
             (delta == 0 or n > 0, "n > 0 when delta > 0", {"delta": delta, "n": n})]
    return check_conditions(strict, "BNS15.Thm5.6", conds,
                            lambda: max(0, ceil_int(_thm56(MATH, alpha, beta, epsilon, delta, n))))


def bns15_tpal_threshold_lower_bound_expr() -> Any:
    """Sympy form of the BNS15 Thm 5.6 lower bound (before rounding).

    Implements: BNS15.Thm5.6.

    >>> bns15_tpal_threshold_lower_bound_expr()
    -delta*n*(1 + exp(-epsilon)) + (1 - 25*beta/9)*exp(-2*epsilon)/(9*alpha)
    """
    return make_expr(_thm56, ("alpha", "beta", "epsilon", "delta", "n"), integer=("n",))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, n=POSITIVE_INT,
                 constant=POSITIVE_REAL)
def bns15_thm5_8(vc_dim: int, alpha: float, beta: float, epsilon: float, n: int, *,
                 constant: float = 1.0) -> tuple[int, int]:
    r"""BNS15 Thm 5.8: PAL with unlabelled O(n/eps) and labelled m = O(VC/alpha log(1/(alpha beta))) (no eps!).

    Implements: BNS15.Thm5.8 (O-form, ``constant`` defaults to 1).  Returns
    ``(ceil(constant * n / eps), ceil(constant * VC/alpha * log(1/(alpha beta))))``.

    Examples
    --------
    >>> bns15_thm5_8(2, 0.1, 0.05, 0.5, 1000)
    (2000, 106)
    """
    return (ceil_int(constant * n / epsilon), ceil_int(constant * vc_dim / alpha * math.log(1 / (alpha * beta))))


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

register(Bound("BNS15.Thm5.5", "a PSSL is a TPAL with the same parameters",
               (_ALPHA, _BETA, _EPS, Param("delta", DELTA, "delta", typical=(0.0, 1e-3)), _NBASE,
                Param("m", POSITIVE_INT, "labelled size", integer=True, typical=(1, 1000))),
               bns15_pssl_to_tpal, None, None, "LearnerParams",
               example={"alpha": 0.1, "beta": 0.1, "epsilon": 1.0, "delta": 0.0, "n": 100, "m": 10}))
register(Bound("BNS15.Thm5.6", "TPAL for THRESH_d needs m >= e^(-2eps)(1-25b/9)/(9a) - n delta(1+e^-eps)",
               (Param("alpha", PROBABILITY, "accuracy (<= 1/9)", typical=(1e-4, 0.11)),
                Param("beta", PROBABILITY, "confidence (<= 1/4)", typical=(1e-3, 0.25)), _EPS, _DELTA,
                Param("n", Integer(0), "unlabelled size (needed when delta > 0)", integer=True, typical=(0, 10**6),
                      default=0, required=False)),
               bns15_tpal_threshold_lower_bound, bns15_tpal_threshold_lower_bound_expr, _thm56, "m lower bound (int)",
               monotone={"alpha": -1, "beta": -1, "epsilon": -1, "delta": -1},
               example={"alpha": 0.001, "beta": 0.1, "epsilon": 0.1}, integer_output=True))
register(Bound("BNS15.Thm5.8", "PAL: unlabelled O(n/eps), labelled O(VC/a log(1/(a b))) independent of eps",
               (_VC, _ALPHA, _BETA, _EPS, _NBASE, _CONST), bns15_thm5_8, None, None, "(unlabelled, labelled)",
               example={"vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 0.5, "n": 1000}))

"""Classic learning-theory bounds used by the papers, and the HPSY Sec 3.3 baselines.

Implements: BNS15.ThmB.2 (Sauer, through :mod:`semiprivate.theory.combinatorics`), BNS15.ThmB.3,
BNS15.ThmB.4, BNS15.ThmB.5, BNS15.ThmB.6, BNS15.ThmA.3 (BLR sanitizer), KLNRS.Generic, and
the HPSY Sec 3.3 labelled sample complexities of BST14 (O(sqrt(d)/(alpha eps))), ABM19
(O(d/(alpha eps))) and JL / Nguyen-Ullman-Zakynthinou (O(1/(alpha eps gamma^2))).

"log" is natural (BNS15 App. B writes both ln and log; Thm B.5 is read with ln).
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
from semiprivate.validation import EPSILON, POSITIVE_INT, POSITIVE_REAL, PROBABILITY, Boolean, validate_params

__all__ = [
    "sauer_bound",
    "vc_lower_bound",
    "vc_lower_bound_expr",
    "realizable_sample_size",
    "realizable_sample_size_expr",
    "pairwise_sample_size",
    "pairwise_sample_size_expr",
    "agnostic_sample_size",
    "agnostic_sample_size_expr",
    "blr_sanitizer_size",
    "blr_sanitizer_size_expr",
    "blr_sanitized_output_size",
    "klnrs_sample_size",
    "klnrs_sample_size_expr",
    "bst14_labeled",
    "bst14_labeled_expr",
    "abm19_halfspace_labeled",
    "abm19_halfspace_labeled_expr",
    "jl_labeled",
    "jl_labeled_expr",
]


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(m=POSITIVE_INT, vc_dim=POSITIVE_INT, strict=Boolean())
def sauer_bound(m: int, vc_dim: int, *, strict: bool = True) -> Any:
    r"""BNS15 Thm B.2 (Sauer): |Pi_C(B)| <= (e |B| / VC)^VC for |B| > VC.

    Implements: BNS15.ThmB.2.  Delegates to :func:`semiprivate.theory.combinatorics.sauer_exponential_bound`
    (one copy of the formula in the toolkit) and checks the hypothesis |B| > VC; the exact
    sum bound is :func:`semiprivate.theory.combinatorics.sauer_sum`.

    Raises
    ------
    ConditionNotMet
        If m <= vc_dim.

    Examples
    --------
    >>> round(sauer_bound(10, 2), 4)
    184.7264
    """
    from semiprivate.theory.combinatorics import sauer_exponential_bound

    return check_conditions(strict, "BNS15.ThmB.2", [(m > vc_dim, "|B| > VC(C)", {"m": m, "vc_dim": vc_dim})],
                            lambda: float(sauer_exponential_bound(m, vc_dim)))


def _b3(ns: Any, vc_dim: Any, alpha: Any) -> Any:
    return (vc_dim - 1) / (16 * alpha)


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, strict=Boolean())
def vc_lower_bound(vc_dim: int, alpha: float, beta: float, *, strict: bool = True) -> Any:
    r"""BNS15 Thm B.3: every (alpha, beta < 1/2, n, m)-SSL needs m >= (VC - 1)/(16 alpha).

    Implements: BNS15.ThmB.3 (Ehrenfeucht et al.).  Returns the smallest integer m allowed.

    Raises
    ------
    ConditionNotMet
        If beta >= 1/2.

    Examples
    --------
    >>> vc_lower_bound(11, 0.01, 0.1)
    63
    """
    return check_conditions(strict, "BNS15.ThmB.3", [(beta < 0.5, "beta < 1/2", {"beta": beta})],
                            lambda: ceil_int(_b3(MATH, vc_dim, alpha)))


def vc_lower_bound_expr() -> Any:
    """Sympy form of BNS15 Thm B.3.

    Implements: BNS15.ThmB.3.

    >>> vc_lower_bound_expr()
    (vc_dim - 1)/(16*alpha)
    """
    return make_expr(_b3, ("vc_dim", "alpha"), integer=("vc_dim",))


def _b4(ns: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    return 8 / alpha * (vc_dim * ns.log(16 / alpha) + ns.log(2 / beta))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY)
def realizable_sample_size(vc_dim: int, alpha: float, beta: float) -> int:
    r"""BNS15 Thm B.4: m >= (8/alpha)(VC ln(16/alpha) + ln(2/beta)) consistent examples suffice.

    Implements: BNS15.ThmB.4 (Vapnik; Blumer et al.).

    Examples
    --------
    >>> realizable_sample_size(1, 0.1, 0.05)
    702
    """
    return ceil_int(_b4(MATH, vc_dim, alpha, beta))


def realizable_sample_size_expr() -> Any:
    """Sympy form of BNS15 Thm B.4.

    Implements: BNS15.ThmB.4.

    >>> realizable_sample_size_expr()
    8*(vc_dim*log(16/alpha) + log(2/beta))/alpha
    """
    return make_expr(_b4, ("vc_dim", "alpha", "beta"), integer=("vc_dim",))


def _b5(ns: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    return 48 / alpha * (10 * vc_dim * ns.log(48 * ns.e / alpha) + ns.log(5 / beta))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY)
def pairwise_sample_size(vc_dim: int, alpha: float, beta: float) -> int:
    r"""BNS15 Thm B.5: m >= (48/alpha)(10 VC log(48e/alpha) + log(5/beta)) for all pairs c, h.

    Implements: BNS15.ThmB.5 (error_mu(c,h) >= alpha and error_S(c,h) <= alpha/10 has
    probability <= beta).

    Examples
    --------
    >>> pairwise_sample_size(1, 0.1, 0.05)
    36645
    """
    return ceil_int(_b5(MATH, vc_dim, alpha, beta))


def pairwise_sample_size_expr() -> Any:
    """Sympy form of BNS15 Thm B.5.

    Implements: BNS15.ThmB.5.

    >>> pairwise_sample_size_expr()
    48*(10*vc_dim*log(48*E/alpha) + log(5/beta))/alpha
    """
    return make_expr(_b5, ("vc_dim", "alpha", "beta"), integer=("vc_dim",))


def _b6(ns: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    return 50 * vc_dim / alpha**2 * ns.log(1 / (alpha * beta))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY)
def agnostic_sample_size(vc_dim: int, alpha: float, beta: float) -> int:
    r"""BNS15 Thm B.6: m >= (50 VC/alpha^2) ln(1/(alpha beta)) gives uniform convergence within alpha.

    Implements: BNS15.ThmB.6 (Anthony-Bartlett; Anthony-Shawe-Taylor).

    Examples
    --------
    >>> agnostic_sample_size(1, 0.1, 0.05)
    26492
    """
    return ceil_int(_b6(MATH, vc_dim, alpha, beta))


def agnostic_sample_size_expr() -> Any:
    """Sympy form of BNS15 Thm B.6.

    Implements: BNS15.ThmB.6.

    >>> agnostic_sample_size_expr()
    50*vc_dim*log(1/(alpha*beta))/alpha**2
    """
    return make_expr(_b6, ("vc_dim", "alpha", "beta"), integer=("vc_dim",))


def _a3(ns: Any, log_domain_size: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * (log_domain_size * vc_dim * ns.log(1 / alpha) / (alpha**3 * epsilon)
                       + ns.log(1 / beta) / (epsilon * alpha))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(log_domain_size=POSITIVE_REAL, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY,
                 epsilon=EPSILON, constant=POSITIVE_REAL)
def blr_sanitizer_size(log_domain_size: float, vc_dim: int, alpha: float, beta: float, epsilon: float, *,
                       constant: float = 1.0) -> int:
    r"""BNS15 Thm A.3 (Blum-Ligett-Roth): input size O(log|X| VC log(1/a)/(a^3 eps) + log(1/b)/(eps a)).

    Implements: BNS15.ThmA.3.  O-form; ``constant`` defaults to 1; ``log_domain_size`` is
    ln|X| (d ln 2 for X = {0,1}^d).

    Examples
    --------
    >>> blr_sanitizer_size(10 * math.log(2), 2, 0.1, 0.05, 1.0)
    31951
    """
    return ceil_int(_a3(MATH, log_domain_size, vc_dim, alpha, beta, epsilon, constant))


def blr_sanitizer_size_expr() -> Any:
    """Sympy form of BNS15 Thm A.3.

    Implements: BNS15.ThmA.3.

    >>> blr_sanitizer_size_expr()
    constant*(log(1/beta)/(alpha*epsilon) + log_domain_size*vc_dim*log(1/alpha)/(alpha**3*epsilon))
    """
    return make_expr(_a3, ("log_domain_size", "vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("vc_dim",))


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, constant=POSITIVE_REAL)
def blr_sanitized_output_size(vc_dim: int, alpha: float, *, constant: float = 1.0) -> int:
    """BNS15 Thm A.3: the sanitized database has O(VC/alpha^2 log(1/alpha)) elements.

    Implements: BNS15.ThmA.3 (output size; ``constant`` defaults to 1).

    >>> blr_sanitized_output_size(2, 0.1)
    461
    """
    return ceil_int(constant * vc_dim / alpha**2 * math.log(1 / alpha))


def _klnrs(ns: Any, n_hypotheses: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * (ns.log(n_hypotheses) + ns.log(1 / beta)) / (alpha * epsilon)


@broadcasts
@renamed_params(h_size="n_hypotheses")
@validate_params(n_hypotheses=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def klnrs_sample_size(n_hypotheses: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""KLNRS generic private learner: m = O((ln|H| + ln(1/beta))/(alpha eps)).

    Implements: KLNRS.Generic (O-form, ``constant`` defaults to 1; the realizable exponential
    mechanism of BNS15 Prop A.1 gives constant 2 for its empirical part).

    Examples
    --------
    >>> klnrs_sample_size(1024, 0.1, 0.05, 1.0)
    100
    """
    return ceil_int(_klnrs(MATH, n_hypotheses, alpha, beta, epsilon, constant))


def klnrs_sample_size_expr() -> Any:
    """Sympy form of the KLNRS generic bound.

    Implements: KLNRS.Generic.

    >>> klnrs_sample_size_expr()
    constant*(log(1/beta) + log(n_hypotheses))/(alpha*epsilon)
    """
    return make_expr(_klnrs, ("n_hypotheses", "alpha", "beta", "epsilon", "constant"), integer=("n_hypotheses",))


def _bst(ns: Any, dim: Any, alpha: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * ns.sqrt(dim) / (alpha * epsilon)


def _abm(ns: Any, dim: Any, alpha: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * dim / (alpha * epsilon)


def _jl(ns: Any, alpha: Any, epsilon: Any, gamma: Any, constant: Any = 1) -> Any:
    return constant / (alpha * epsilon * gamma**2)


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=POSITIVE_INT, alpha=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def bst14_labeled(dim: int, alpha: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""HPSY Sec 3.3: private SGD (BST14) in the full space needs n_lab = O(sqrt(d)/(alpha eps)).

    Implements: HPSY.Sec3.3.BST14 (O-form; ``constant`` defaults to 1).

    >>> bst14_labeled(100, 0.1, 1.0)
    100
    """
    return ceil_int(_bst(MATH, dim, alpha, epsilon, constant))


def bst14_labeled_expr() -> Any:
    """Sympy form of :func:`bst14_labeled`.

    Implements: HPSY.Sec3.3.BST14.

    >>> bst14_labeled_expr()
    constant*sqrt(dim)/(alpha*epsilon)
    """
    return make_expr(_bst, ("dim", "alpha", "epsilon", "constant"), integer=("dim",))


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=POSITIVE_INT, alpha=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def abm19_halfspace_labeled(dim: int, alpha: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""HPSY Sec 3.3: the ABM19 generic semi-private learner on halfspaces needs n_lab = O(d/(alpha eps)).

    Implements: HPSY.Sec3.3.ABM19 (O-form as HPSY quotes it; (eps, 0)-DP).

    >>> abm19_halfspace_labeled(100, 0.1, 1.0)
    1000
    """
    return ceil_int(_abm(MATH, dim, alpha, epsilon, constant))


def abm19_halfspace_labeled_expr() -> Any:
    """Sympy form of :func:`abm19_halfspace_labeled`.

    Implements: HPSY.Sec3.3.ABM19.

    >>> abm19_halfspace_labeled_expr()
    constant*dim/(alpha*epsilon)
    """
    return make_expr(_abm, ("dim", "alpha", "epsilon", "constant"), integer=("dim",))


@broadcasts
@validate_params(alpha=PROBABILITY, epsilon=EPSILON, gamma=PROBABILITY, constant=POSITIVE_REAL)
def jl_labeled(alpha: float, epsilon: float, gamma: float, *, constant: float = 1.0) -> int:
    r"""HPSY Sec 3.3: JL projection to O(1/gamma^2) dims then private learning: n_lab = O(1/(alpha eps gamma^2)).

    Implements: HPSY.Sec3.3.JL (Nguyen-Ullman-Zakynthinou 2020; O-form).

    >>> jl_labeled(0.1, 1.0, 0.1)
    1000
    """
    return ceil_int(_jl(MATH, alpha, epsilon, gamma, constant))


def jl_labeled_expr() -> Any:
    """Sympy form of :func:`jl_labeled`.

    Implements: HPSY.Sec3.3.JL.

    >>> jl_labeled_expr()
    constant/(alpha*epsilon*gamma**2)
    """
    return make_expr(_jl, ("alpha", "epsilon", "gamma", "constant"))


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

_VC = Param("vc_dim", POSITIVE_INT, "VC dimension", integer=True, typical=(1, 30))
_ALPHA = Param("alpha", PROBABILITY, "accuracy in (0, 1)", typical=(0.01, 0.5))
_BETA = Param("beta", PROBABILITY, "confidence in (0, 1)", typical=(0.001, 0.45))
_EPS = Param("epsilon", EPSILON, "privacy parameter epsilon > 0", typical=(0.05, 5.0))
_CONST = Param("constant", POSITIVE_REAL, "hidden constant of the O(.) (default 1)", typical=(0.5, 5.0),
               default=1.0, required=False)
_DIM = Param("dim", POSITIVE_INT, "ambient dimension", integer=True, typical=(1, 10000))

register(Bound("BNS15.ThmB.2", "Sauer: |Pi_C(B)| <= (e|B|/VC)^VC for |B| > VC",
               (Param("m", POSITIVE_INT, "|B|", integer=True, typical=(2, 10000)), _VC), sauer_bound, None,
               lambda ns, m, vc_dim: (ns.e * m / vc_dim) ** vc_dim, "bound (float)", monotone={"m": +1},
               example={"m": 10, "vc_dim": 2}))
register(Bound("BNS15.ThmB.3", "every SSL (beta < 1/2) needs m >= (VC - 1)/(16 alpha)", (_VC, _ALPHA, _BETA),
               vc_lower_bound, vc_lower_bound_expr, lambda ns, vc_dim, alpha, beta: _b3(ns, vc_dim, alpha), "m (int)",
               monotone={"vc_dim": +1, "alpha": -1}, example={"vc_dim": 11, "alpha": 0.01, "beta": 0.1}, integer_output=True))
register(Bound("BNS15.ThmB.4", "realizable: m >= (8/a)(VC ln(16/a) + ln(2/b))", (_VC, _ALPHA, _BETA),
               realizable_sample_size, realizable_sample_size_expr, _b4, "m (int)",
               monotone={"vc_dim": +1, "alpha": -1, "beta": -1}, example={"vc_dim": 1, "alpha": 0.1, "beta": 0.05},
               integer_output=True))
register(Bound("BNS15.ThmB.5", "all pairs: m >= (48/a)(10 VC log(48e/a) + log(5/b))", (_VC, _ALPHA, _BETA),
               pairwise_sample_size, pairwise_sample_size_expr, _b5, "m (int)",
               monotone={"vc_dim": +1, "alpha": -1, "beta": -1}, example={"vc_dim": 1, "alpha": 0.1, "beta": 0.05},
               integer_output=True))
register(Bound("BNS15.ThmB.6", "agnostic: m >= (50 VC/a^2) ln(1/(a b))", (_VC, _ALPHA, _BETA),
               agnostic_sample_size, agnostic_sample_size_expr, _b6, "m (int)",
               monotone={"vc_dim": +1, "alpha": -1, "beta": -1}, example={"vc_dim": 1, "alpha": 0.1, "beta": 0.05},
               integer_output=True))
register(Bound("BNS15.ThmA.3", "BLR sanitizer input size O(log|X| VC log(1/a)/(a^3 eps) + log(1/b)/(eps a))",
               (Param("log_domain_size", POSITIVE_REAL, "ln|X|", typical=(0.5, 50.0)), _VC, _ALPHA, _BETA, _EPS,
                _CONST), blr_sanitizer_size, blr_sanitizer_size_expr, _a3, "m (int)",
               monotone={"log_domain_size": +1, "vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"log_domain_size": 6.931, "vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0},
               integer_output=True))
register(Bound("KLNRS.Generic", "generic private learner m = O((ln|H| + ln(1/b))/(a eps))",
               (Param("n_hypotheses", POSITIVE_INT, "|H|", integer=True, typical=(1, 10**9)), _ALPHA, _BETA, _EPS, _CONST),
               klnrs_sample_size, klnrs_sample_size_expr, _klnrs, "m (int)",
               monotone={"n_hypotheses": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"n_hypotheses": 1024, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("HPSY.Sec3.3.BST14", "private SGD in R^d: n_lab = O(sqrt(d)/(alpha eps))", (_DIM, _ALPHA, _EPS, _CONST),
               bst14_labeled, bst14_labeled_expr, _bst, "n_lab (int)",
               monotone={"dim": +1, "alpha": -1, "epsilon": -1, "constant": +1},
               example={"dim": 100, "alpha": 0.1, "epsilon": 1.0}, integer_output=True))
register(Bound("HPSY.Sec3.3.ABM19", "ABM19 generic SP learner on halfspaces: n_lab = O(d/(alpha eps))",
               (_DIM, _ALPHA, _EPS, _CONST), abm19_halfspace_labeled, abm19_halfspace_labeled_expr, _abm,
               "n_lab (int)", monotone={"dim": +1, "alpha": -1, "epsilon": -1, "constant": +1},
               example={"dim": 100, "alpha": 0.1, "epsilon": 1.0}, integer_output=True))
register(Bound("HPSY.Sec3.3.JL", "JL projection + private learning: n_lab = O(1/(alpha eps gamma^2))",
               (_ALPHA, _EPS, Param("gamma", PROBABILITY, "margin in (0, 1)", typical=(0.05, 0.95)), _CONST),
               jl_labeled, jl_labeled_expr, _jl, "n_lab (int)",
               monotone={"alpha": -1, "epsilon": -1, "gamma": -1, "constant": +1},
               example={"alpha": 0.1, "epsilon": 1.0, "gamma": 0.1}, integer_output=True))

"""BNS15 Section 3 and Appendix A: the GenericLearner's sample sizes (Thm 3.3) and the exponential
mechanism's utility (Prop A.1) that it runs.

Implements: BNS15.Thm3.3, BNS15.PropA.1.  "log" is natural throughout.
"""

from __future__ import annotations

import math
from typing import Any

from semiprivate.theory.bounds._core import (
    FORM_PAPER_OR_CORRECTED,
    MATH,
    Bound,
    Param,
    ProbabilityBound,
    Solver,
    broadcasts,
    ceil_int,
    make_expr,
    register,
    renamed_params,
    safe_exp,
    smallest_integer,
)
from semiprivate.theory.bounds.bns15._params import _ALPHA, _BETA, _CONST, _EPS, _VC
from semiprivate.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Options,
    validate_params,
)

__all__ = [
    "bns15_thm3_3",
    "bns15_generic_labeled",
    "bns15_generic_labeled_expr",
    "bns15_generic_unlabeled",
    "bns15_generic_unlabeled_expr",
    "bns15_generic_uniform_convergence_size",
    "expmech_log_failure_probability",
    "expmech_failure_probability",
    "expmech_failure_probability_expr",
    "expmech_sample_size",
]


# ---------------------------------------------------------------------------
# Theorem 3.3 (GenericLearner)
# ---------------------------------------------------------------------------


def _eps_used(ns: Any, epsilon: Any, form: str) -> Any:
    # proofs_checks BNS15.Thm3.3.large-epsilon: the statement fails for large eps (below one label);
    # running the eps = 1 learner for every eps >= 1 repairs it, i.e. eps -> min(eps, 1).
    return ns.min(epsilon, 1) if form == "corrected" else epsilon


def _thm33_m(ns: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1,
             form: str = "corrected") -> Any:
    e = _eps_used(ns, epsilon, form)
    return constant * (vc_dim / (alpha**3 * e) * ns.log(1 / alpha) + ns.log(1 / beta) / (alpha * e))


def _thm33_n(ns: Any, bits: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1,
             form: str = "corrected") -> Any:
    e = _eps_used(ns, epsilon, form)
    return constant * (bits * vc_dim / (alpha**3 * e) * ns.log(1 / alpha) + ns.log(1 / beta) / (alpha * e))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL,
                 form=Options("paper", "corrected"))
def bns15_generic_labeled(vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0,
                          form: str = "corrected") -> int:
    r"""BNS15 Thm 3.3 labelled sample size m = O(VC/(a^3 eps) log(1/a) + log(1/b)/(a eps)).

    Implements: BNS15.Thm3.3 (m).  O-form only; ``constant`` (default 1) is the hidden constant.
    The proof also needs m >= 1250 VC/a^2 ln(25/(a b)): see
    :func:`bns15_generic_uniform_convergence_size`.

    ``form="corrected"`` (default, since proofs_checks BNS15.Thm3.3.large-epsilon refutes the
    statement for large eps: the stated size falls below one label while every learner needs
    Omega(log(1/b)/a) of them) uses min(eps, 1) for eps, the same as the paper's form for eps <= 1;
    ``form="paper"`` gives the stated size.

    Examples
    --------
    >>> bns15_generic_labeled(2, 0.1, 0.05, 1.0)
    4636
    >>> bns15_generic_labeled(2, 0.1, 0.05, 1e4), bns15_generic_labeled(2, 0.1, 0.05, 1e4, form="paper")
    (4636, 1)
    """
    return ceil_int(_thm33_m(MATH, vc_dim, alpha, beta, epsilon, constant, form))


def _form_checked(form: str) -> str:
    if form not in ("paper", "corrected"):
        raise ValueError(f"form must be 'paper' or 'corrected', got {form!r}")
    return form


def bns15_generic_labeled_expr(form: str = "corrected") -> Any:
    """Sympy form of :func:`bns15_generic_labeled` (``form="corrected"``, the default; ``"paper"``: eps for min(eps, 1)).

    Implements: BNS15.Thm3.3 (m).

    >>> bns15_generic_labeled_expr("paper")
    constant*(log(1/beta)/(alpha*epsilon) + vc_dim*log(1/alpha)/(alpha**3*epsilon))
    """
    return make_expr(_thm33_m, ("vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("vc_dim",),
                     form=_form_checked(form))


@broadcasts
@renamed_params(vc="vc_dim", d="bits")
@validate_params(bits=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 constant=POSITIVE_REAL, form=Options("paper", "corrected"))
def bns15_generic_unlabeled(bits: int, vc_dim: int, alpha: float, beta: float, epsilon: float, *,
                            constant: float = 1.0, form: str = "corrected") -> int:
    r"""BNS15 Thm 3.3 total sample size n = O(d VC/(a^3 eps) log(1/a) + log(1/b)/(a eps)) over X_d = {0,1}^d.

    Implements: BNS15.Thm3.3 (n).  O-form only; ``constant`` defaults to 1.  ``form`` as in
    :func:`bns15_generic_labeled` (default ``"corrected"``: min(eps, 1) for eps).

    Examples
    --------
    >>> bns15_generic_unlabeled(10, 2, 0.1, 0.05, 1.0)
    46082
    """
    return ceil_int(_thm33_n(MATH, bits, vc_dim, alpha, beta, epsilon, constant, form))


def bns15_generic_unlabeled_expr(form: str = "corrected") -> Any:
    """Sympy form of :func:`bns15_generic_unlabeled` (``form`` as in :func:`bns15_generic_labeled_expr`).

    Implements: BNS15.Thm3.3 (n).

    >>> bns15_generic_unlabeled_expr("paper")
    constant*(log(1/beta)/(alpha*epsilon) + bits*vc_dim*log(1/alpha)/(alpha**3*epsilon))
    """
    return make_expr(_thm33_n, ("bits", "vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("bits", "vc_dim"),
                     form=_form_checked(form))


def _thm33_uc(ns: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    return 1250 / alpha**2 * vc_dim * ns.log(25 / (alpha * beta))


@broadcasts
@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY)
def bns15_generic_uniform_convergence_size(vc_dim: int, alpha: float, beta: float) -> int:
    r"""The explicit floor of the proof of BNS15 Thm 3.3: n, m >= (1250/a^2) VC ln(25/(a b)).

    Implements: BNS15.Thm3.3 (explicit part of the proof, via Thm B.6 with alpha/5, 2 beta/5).

    Examples
    --------
    >>> bns15_generic_uniform_convergence_size(1, 0.1, 0.1)
    978006
    """
    return ceil_int(_thm33_uc(MATH, vc_dim, alpha, beta))


@broadcasts
@renamed_params(vc="vc_dim", d="bits")
@validate_params(bits=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 constant=POSITIVE_REAL, form=Options("paper", "corrected"))
def bns15_thm3_3(bits: int, vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0,
                 form: str = "corrected") -> tuple[int, int]:
    """BNS15 Theorem 3.3 (GenericLearner, (eps, 0)-DP): ``(n, m)`` = total and labelled sizes, O-forms.

    Implements: BNS15.Thm3.3.  ``form`` as in :func:`bns15_generic_labeled` (default ``"corrected"``).

    >>> bns15_thm3_3(10, 2, 0.1, 0.05, 1.0)
    (46082, 4636)
    """
    return (bns15_generic_unlabeled(bits, vc_dim, alpha, beta, epsilon, constant=constant, form=form),
            bns15_generic_labeled(vc_dim, alpha, beta, epsilon, constant=constant, form=form))



# ---------------------------------------------------------------------------
# Proposition A.1 (exponential mechanism utility)
# ---------------------------------------------------------------------------


def _propa1_log(ns: Any, n_hypotheses: Any, epsilon: Any, gap: Any, m: Any) -> Any:
    return ns.log(n_hypotheses) - epsilon * gap * m / 2


@renamed_params(h_size="n_hypotheses")
@validate_params(n_hypotheses=POSITIVE_INT, epsilon=EPSILON, gap=PROBABILITY, m=POSITIVE_INT)
def expmech_log_failure_probability(n_hypotheses: int, epsilon: float, gap: float, m: int) -> float:
    r"""Log of the BNS15 Prop A.1 bound log(|H| exp(-eps Delta m / 2)).

    Implements: BNS15.PropA.1 (log form).

    >>> round(expmech_log_failure_probability(1000, 1.0, 0.1, 200), 4)
    -3.0922
    """
    return float(_propa1_log(MATH, n_hypotheses, epsilon, gap, m))


@broadcasts
@renamed_params(h_size="n_hypotheses")
@validate_params(n_hypotheses=POSITIVE_INT, epsilon=EPSILON, gap=PROBABILITY, m=POSITIVE_INT)
def expmech_failure_probability(n_hypotheses: int, epsilon: float, gap: float, m: int) -> float:
    r"""BNS15 Prop A.1: P[error_S(h) > e_min + Delta] <= |H| exp(-eps Delta m / 2).

    Implements: BNS15.PropA.1 (EXPMECH utility; score q = -#errors, sensitivity 1).

    Parameters
    ----------
    n_hypotheses : int
        |H|.
    epsilon : float
        Privacy parameter of the exponential mechanism.
    gap : float
        Delta, in (0, 1).
    m : int
        |S|.

    Returns
    -------
    ProbabilityBound
        The bound, a float (may exceed 1: then its ``vacuous`` is True).

    Examples
    --------
    >>> round(expmech_failure_probability(1000, 1.0, 0.1, 200), 6)
    0.0454
    """
    return ProbabilityBound(safe_exp(float(_propa1_log(MATH, n_hypotheses, epsilon, gap, m)), "BNS15.PropA.1 bound"))


def expmech_failure_probability_expr() -> Any:
    """Sympy form of BNS15 Prop A.1.

    Implements: BNS15.PropA.1.

    >>> expmech_failure_probability_expr()
    n_hypotheses*exp(-epsilon*gap*m/2)
    """
    import sympy

    return sympy.expand_log(sympy.exp(make_expr(_propa1_log, ("n_hypotheses", "epsilon", "gap", "m"),
                                                integer=("n_hypotheses", "m"))), force=True)


@broadcasts
@renamed_params(h_size="n_hypotheses")
@validate_params(n_hypotheses=POSITIVE_INT, epsilon=EPSILON, gap=PROBABILITY, beta=PROBABILITY)
def expmech_sample_size(n_hypotheses: int, epsilon: float, gap: float, beta: float) -> int:
    r"""Smallest m with |H| exp(-eps Delta m/2) <= beta (BNS15 Prop A.1 solved exactly).

    Implements: BNS15.PropA.1 (solver); equals ceil(2 (ln|H| + ln(1/beta))/(eps Delta)).

    Examples
    --------
    >>> expmech_sample_size(1000, 1.0, 0.1, 0.05)
    199
    """
    lb = math.log(beta)
    return smallest_integer(lambda m: _propa1_log(MATH, n_hypotheses, epsilon, gap, m) <= lb, 1)


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

register(Bound("BNS15.Thm3.3", "GenericLearner (n, m): O(d VC/(a^3 eps) log(1/a) + ...), O(VC/(a^3 eps) log(1/a) + ...)",
               (Param("bits", POSITIVE_INT, "bits per domain point (X_d = {0,1}^d)", integer=True, typical=(1, 64)),
                _VC, _ALPHA, _BETA, _EPS, _CONST, FORM_PAPER_OR_CORRECTED), bns15_thm3_3, None, None, "(n, m)",
               monotone={"bits": +1, "vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"bits": 10, "vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}))
register(Bound("BNS15.Thm3.3.m", "GenericLearner labelled size O(VC/(a^3 eps) log(1/a) + log(1/b)/(a eps))",
               (_VC, _ALPHA, _BETA, _EPS, _CONST, FORM_PAPER_OR_CORRECTED), bns15_generic_labeled,
               bns15_generic_labeled_expr, _thm33_m,
               "m (int)", monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("BNS15.Thm3.3.n", "GenericLearner total size O(d VC/(a^3 eps) log(1/a) + log(1/b)/(a eps))",
               (Param("bits", POSITIVE_INT, "bits per domain point (X_d = {0,1}^d)", integer=True, typical=(1, 64)),
                _VC, _ALPHA, _BETA, _EPS, _CONST, FORM_PAPER_OR_CORRECTED), bns15_generic_unlabeled,
               bns15_generic_unlabeled_expr, _thm33_n,
               "n (int)", monotone={"bits": +1, "vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"bits": 10, "vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("BNS15.Thm3.3.uc", "explicit floor of the Thm 3.3 proof: (1250/a^2) VC ln(25/(a b))",
               (_VC, _ALPHA, _BETA), bns15_generic_uniform_convergence_size, None, _thm33_uc, "n, m floor (int)",
               monotone={"vc_dim": +1, "alpha": -1, "beta": -1}, example={"vc_dim": 1, "alpha": 0.1, "beta": 0.1},
               integer_output=True))
register(Bound("BNS15.PropA.1", "exponential mechanism: P[err_S(h) > e_min + Delta] <= |H| exp(-eps Delta m/2)",
               (Param("n_hypotheses", POSITIVE_INT, "|H|", integer=True, typical=(1, 10**6)), _EPS,
                Param("gap", PROBABILITY, "Delta in (0, 1)", typical=(0.01, 0.5)),
                Param("m", POSITIVE_INT, "|S|", integer=True, typical=(1, 10**5))),
               expmech_failure_probability, expmech_failure_probability_expr,
               lambda ns, n_hypotheses, epsilon, gap, m: ns.exp(_propa1_log(ns, n_hypotheses, epsilon, gap, m)),
               "failure probability bound (float)",
               solvers={"m": Solver("m", expmech_sample_size,
                                    (Param("n_hypotheses", POSITIVE_INT, "|H|", integer=True, typical=(1, 10**6)), _EPS,
                                     Param("gap", PROBABILITY, "Delta in (0, 1)", typical=(0.01, 0.5)), _BETA),
                                    "smallest m with bound <= beta")},
               monotone={"n_hypotheses": +1, "epsilon": -1, "gap": -1, "m": -1},
               example={"n_hypotheses": 1000, "epsilon": 1.0, "gap": 0.1, "m": 200}))

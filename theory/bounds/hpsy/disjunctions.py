"""HPSY Section 2: disjunctions and the graphs behind them (Theorem 1, Karger's Lemma 1, Lemma 2,
Theorem 2).

Implements: HPSY.Thm1, HPSY.Lem1 (Karger), HPSY.Lem2, HPSY.Thm2.  "log" is natural.  The notes on
the text (Lemma 2's two forms and its beta interval, Theorem 2's d - 1 term) are in
:mod:`semiprivate.theory.bounds.hpsy`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

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
from semiprivate.theory.bounds.hpsy._params import (
    _ALPHA,
    _BETA,
    _CONST,
    _EPS,
    _FORM,
    _FORM3,
    _FORM_CP,
    SemiPrivateSampleSizes,
)
from semiprivate.validation import (
    DELTA,
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Boolean,
    Integer,
    Options,
    Real,
    validate_params,
)

__all__ = [
    "hpsy_thm1",
    "hpsy_thm2",
    "hpsy_thm1_unlabeled",
    "hpsy_thm1_unlabeled_expr",
    "hpsy_thm1_labeled",
    "hpsy_thm1_labeled_expr",
    "KargerBound",
    "karger_cut_bound",
    "karger_epsilon_expr",
    "hpsy_lem2_beta_interval",
    "hpsy_lem2_min_dimension",
    "hpsy_connectivity_threshold",
    "hpsy_connectivity_threshold_expr",
    "hpsy_thm2_unlabeled",
    "hpsy_thm2_unlabeled_expr",
    "hpsy_thm2_labeled",
]


# ---------------------------------------------------------------------------
# Theorem 1
# ---------------------------------------------------------------------------


def _thm1_unl(ns: Any, dim: Any, beta: Any, p_min: Any) -> Any:
    return ns.log(2 * dim**2 / beta) / (-ns.log(1 - p_min))


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=POSITIVE_INT, beta=PROBABILITY, p_min=PROBABILITY)
def hpsy_thm1_unlabeled(dim: int, beta: float, p_min: float) -> int:
    r"""HPSY Thm 1 unlabelled size, with the proof's constant: n_unl >= log(2 d^2/beta) / (-log(1 - p_min)).

    Implements: HPSY.Thm1 (n_unl).  Eq. (4) of the proof needs (1 - p_min)^n <= beta/(2 d^2),
    which is exactly this (the theorem writes O(.) around it; the constant is 1).

    Parameters
    ----------
    dim : int
        Number of boolean variables.
    beta : float
        Failure probability.
    p_min : float
        Minimum positive edge probability of the component graph.

    Examples
    --------
    >>> hpsy_thm1_unlabeled(100, 0.05, 0.01)
    1284
    """
    return ceil_int(_thm1_unl(MATH, dim, beta, p_min))


def hpsy_thm1_unlabeled_expr() -> Any:
    """Sympy form of :func:`hpsy_thm1_unlabeled` (before rounding).

    Implements: HPSY.Thm1.

    >>> hpsy_thm1_unlabeled_expr()
    -log(2*dim**2/beta)/log(1 - p_min)
    """
    return make_expr(_thm1_unl, ("dim", "beta", "p_min"), integer=("dim",))


def _thm1_lab(ns: Any, z_max: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1, form: str = "corrected") -> Any:
    if form == "corrected":  # proofs_checks HPSY.Thm1.n_lab-large-epsilon: the 1/alpha term, eps -> min(eps, 1)
        return constant / (alpha * ns.min(epsilon, 1)) * (z_max + ns.log(1 / beta))
    return constant / (alpha * epsilon) * (z_max + ns.log(1 / beta))


@broadcasts
@validate_params(z_max=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL,
                 form=Options("paper", "corrected"))
def hpsy_thm1_labeled(z_max: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0,
                      form: str = "corrected") -> int:
    r"""HPSY Thm 1 labelled size O((Z_max + polylog(1/beta, 1/delta))/(alpha eps)).

    Implements: HPSY.Thm1 (n_lab).  The learner is the exponential mechanism over the
    2^{Z_max} unions of components (pure eps-DP, so delta plays no role); the paper leaves the
    polylog unspecified.  We use the KLNRS form log|H| + log(1/beta) with log|H| <= Z_max
    (dropping ln 2), i.e. ``constant * (Z_max + ln(1/beta))/(alpha eps)``.

    ``form="corrected"`` (default, since proofs_checks HPSY.Thm1.n_lab-large-epsilon refutes the
    statement for large eps: every learner fails with that many labels, the non-private 1/alpha
    term is missing): ``constant * (Z_max + ln(1/beta))/(alpha min(eps, 1))``, the same as the
    paper's form for eps <= 1. ``form="paper"``: the stated size (the sympy form shows it).

    Examples
    --------
    >>> hpsy_thm1_labeled(2, 0.1, 0.05, 1.0)
    50
    """
    return ceil_int(_thm1_lab(MATH, z_max, alpha, beta, epsilon, constant, form))


def hpsy_thm1_labeled_expr(form: str = "corrected") -> Any:
    """Sympy form of :func:`hpsy_thm1_labeled` (``form="corrected"``, the default; ``"paper"``: eps for min(eps, 1)).

    Implements: HPSY.Thm1.

    >>> hpsy_thm1_labeled_expr()
    constant*(z_max + log(1/beta))/(alpha*Min(1, epsilon))
    >>> hpsy_thm1_labeled_expr("paper")
    constant*(z_max + log(1/beta))/(alpha*epsilon)
    """
    if form not in ("paper", "corrected"):
        raise ValueError(f"form must be 'paper' or 'corrected', got {form!r}")
    return make_expr(_thm1_lab, ("z_max", "alpha", "beta", "epsilon", "constant"), integer=("z_max",), form=form)


# ---------------------------------------------------------------------------
# Lemma 1 (Karger)
# ---------------------------------------------------------------------------


class KargerBound(NamedTuple):
    """Karger's cut-concentration bound: the band (1 +- epsilon) and its failure probability."""

    epsilon: float
    failure_probability: float


def _karger_eps(ns: Any, dim: Any, ell: Any, c_hat: Any) -> Any:
    return ns.sqrt(3 * (ell + 2) * ns.log(dim) / c_hat)


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=Integer(2), ell=Real(1.0, math.inf), c_hat=POSITIVE_REAL, strict=Boolean())
def karger_cut_bound(dim: int, ell: float, c_hat: float, *, strict: bool = True) -> Any:
    r"""HPSY Lemma 1 (Karger): every cut of G(p) is within (1 +- eps) of its mean w.p. >= 1 - 4/(ell d^ell).

    Implements: HPSY.Lem1.  eps = sqrt(3 (ell + 2) log d / c_hat), c_hat the minimum expected
    cut; the lemma needs ell >= 1 and eps <= 1.

    Parameters
    ----------
    dim : int
        Number of vertices (>= 2).
    ell : float
        >= 1.
    c_hat : float
        Minimum expected cut value of G(p) (= p (d - 1) for G(d, p)).
    strict : bool
        Raise (default) or return a Checked when eps > 1.

    Returns
    -------
    KargerBound
        ``(epsilon, 4/(ell d^ell))``.

    Raises
    ------
    ConditionNotMet
        If eps > 1.

    Examples
    --------
    >>> karger_cut_bound(100, 1.0, 500.0)
    KargerBound(epsilon=0.2879115547312849, failure_probability=0.04)
    """
    eps = float(_karger_eps(MATH, dim, ell, c_hat))
    return check_conditions(strict, "HPSY.Lem1", [(eps <= 1, "epsilon = sqrt(3(l+2) log d / c_hat) <= 1",
                                                   {"epsilon": eps})],
                            lambda: KargerBound(eps, 4.0 / (ell * float(dim) ** ell)))


def karger_epsilon_expr() -> Any:
    """Sympy form of Karger's epsilon.

    Implements: HPSY.Lem1.

    >>> karger_epsilon_expr()
    sqrt(3*ell + 6)*sqrt(log(dim))/sqrt(c_hat)
    """
    return make_expr(_karger_eps, ("dim", "ell", "c_hat"), integer=("dim",))


# ---------------------------------------------------------------------------
# Lemma 2 (connectivity of G(d, p))
# ---------------------------------------------------------------------------


@renamed_params(d="dim")
@validate_params(dim=Integer(2), form=Options("statement", "proof"))
def hpsy_lem2_beta_interval(dim: int, form: str = "statement") -> tuple[float, float]:
    r"""The admissible beta interval of HPSY Lemma 2 (open), possibly empty.

    Implements: HPSY.Lem2 (hypothesis).  ``"statement"``: (4 exp(-(d-5)/9), 4/d);
    ``"proof"``: (4 exp(4 - (d-1)/3), 4/d).  Empty when the left end is >= the right end.

    Examples
    --------
    >>> lo, hi = hpsy_lem2_beta_interval(36)
    >>> lo > hi  # empty: the statement's interval is empty for 35 < d <= 37
    True
    """
    lo = 4 * math.exp(-(dim - 5) / 9) if form == "statement" else 4 * math.exp(4 - (dim - 1) / 3)
    return (lo, 4 / dim)


@validate_params(form=Options("statement", "proof"))
def hpsy_lem2_min_dimension(form: str = "statement") -> int:
    """Smallest d > 35 for which the beta interval of HPSY Lemma 2 is non-empty.

    Implements: HPSY.Lem2 (hypothesis check).

    >>> hpsy_lem2_min_dimension(), hpsy_lem2_min_dimension("proof")
    (38, 36)
    """
    dim = 36
    while True:
        lo, hi = hpsy_lem2_beta_interval(dim, form)
        if lo < hi:
            return dim
        dim += 1


def _lem2_threshold(ns: Any, dim: Any, beta: Any, form: str = "statement") -> Any:
    if form == "statement":
        return 9 * (ns.log(4 / beta) + 4) / (dim - 1)
    return (9 * ns.log(4 / beta) + 4) / (dim - 1)


def _lem2_conditions(dim: int, beta: float, form: str) -> list[tuple[bool, str, dict[str, Any]]]:
    lo, hi = hpsy_lem2_beta_interval(dim, "statement")
    plo, _ = hpsy_lem2_beta_interval(dim, "proof")
    conds: list[tuple[bool, str, dict[str, Any]]] = [
        (dim > 35, "d > 35", {"dim": dim}),
        (lo < beta < hi, "beta in (4 exp(-(d-5)/9), 4/d)", {"beta": beta, "interval": (lo, hi)})]
    if form == "proof":
        conds.append((plo < beta < hi, "beta in (4 exp(4-(d-1)/3), 4/d) (used in the proof)",
                      {"beta": beta, "interval": (plo, hi)}))
    return conds


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=Integer(2), beta=PROBABILITY, form=Options("statement", "proof"), strict=Boolean())
def hpsy_connectivity_threshold(dim: int, beta: float, *, form: str = "statement", strict: bool = True) -> Any:
    r"""HPSY Lemma 2: G(d, p) is connected w.p. >= 1 - beta if p >= 9(log(4/beta) + 4)/(d - 1).

    Implements: HPSY.Lem2.  ``form="statement"`` gives the lemma's 9(log(4/beta)+4)/(d-1);
    ``form="proof"`` the (9 log(4/beta) + 4)/(d-1) the proof ends with.

    Parameters
    ----------
    dim : int
        Number of vertices; the lemma needs d > 35.
    beta : float
        Must lie in (4 exp(-(d-5)/9), 4/d) (see :func:`hpsy_lem2_beta_interval`).
    form : {"statement", "proof"}
    strict : bool
        Raise (default) or return a Checked when a hypothesis fails.

    Returns
    -------
    float
        The threshold on p (a value >= 1 means no p in (0, 1) is covered by the lemma).

    Raises
    ------
    ConditionNotMet
        d <= 35 or beta outside the interval.

    Examples
    --------
    >>> round(hpsy_connectivity_threshold(1000, 0.003), 6)
    0.10086
    >>> round(hpsy_connectivity_threshold(1000, 0.003, form="proof"), 6)
    0.068828
    """
    return check_conditions(strict, "HPSY.Lem2", _lem2_conditions(dim, beta, form),
                            lambda: float(_lem2_threshold(MATH, dim, beta, form)))


@validate_params(form=Options("statement", "proof"))
def hpsy_connectivity_threshold_expr(form: str = "statement") -> Any:
    """Sympy form of the HPSY Lemma 2 threshold.

    Implements: HPSY.Lem2.

    >>> hpsy_connectivity_threshold_expr()
    (9*log(4/beta) + 36)/(dim - 1)
    """
    return make_expr(_lem2_threshold, ("dim", "beta"), integer=("dim",), form=form)


# ---------------------------------------------------------------------------
# Theorem 2
# ---------------------------------------------------------------------------


def _thm2_first(ns: Any, m: Any, beta: Any, p: Any) -> Any:
    # log(1 - (9 log(16/beta) + 4)/m) / log(1 - p)
    return ns.log(1 - (9 * ns.log(16 / beta) + 4) / m) / ns.log(1 - p)


def _thm2_unl(ns: Any, dim: Any, beta: Any, p: Any) -> Any:
    return ns.max(_thm2_first(ns, dim - 1, beta, p), 8 * ns.log(16 / beta))


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=Integer(2), k=Integer(1), beta=PROBABILITY, p=PROBABILITY,
                 form=Options("statement", "proof", "corrected"), strict=Boolean())
def hpsy_thm2_unlabeled(dim: int, k: int, beta: float, p: float, *, form: str = "statement",
                        strict: bool = True) -> Any:
    r"""HPSY Thm 2: n_unl >= max{ log(1 - (9 log(16/b) + 4)/(d-1)) / log(1-p), 8 log(16/b) }.

    Implements: HPSY.Thm2 (n_unl).  ``form="proof"`` replaces the first term by the maximum
    of the k - 1 and d - k - 1 versions, which is what the proof needs (and is larger).
    ``form="corrected"`` also restores the factor the proof drops: it conditions on
    n_unl^+, n_unl^- >= n_unl/4 (Eq. 8), so each side's requirement applies to n_unl/4 and the
    first term is multiplied by 4.

    Parameters
    ----------
    dim, k : int
        Variables and |V+(f)|; the theorem needs k, d > 35 (and k < d - 1 for ``"proof"``).
    beta : float
        In (4 exp(-(d-5)/9), 4/d).  For ``"proof"`` and ``"corrected"`` also: the proof applies
        Lemma 2 to G+ (k vertices) and to G- (d - k vertices) at confidence beta/4, so
        Lemma 2's hypotheses must hold there: k > 35, d - k > 35, and beta/4 in
        (4 exp(-(k-5)/9), 4/k) and in (4 exp(-(d-k-5)/9), 4/(d-k))
        (:func:`hpsy_lem2_beta_interval`, statement form).
    p : float
        Edge probability of D_{f,p}.
    form : {"statement", "proof", "corrected"}
    strict : bool
        Raise (default) or return a Checked when a hypothesis fails.

    Returns
    -------
    int

    Raises
    ------
    ConditionNotMet
        If k or d <= 35, beta is outside its interval, or (9 log(16/beta)+4) >= d - 1 (then
        the logarithm is undefined: no n_unl makes the argument work); for ``"proof"`` and
        ``"corrected"`` also when Lemma 2's hypotheses fail on G+ or G- (d - k <= 35, or
        beta/4 outside Lemma 2's interval for k or for d - k vertices).  With
        ``strict=False`` a Checked with ``valid=False`` and the failed condition is returned.

    Examples
    --------
    >>> hpsy_thm2_unlabeled(1000, 500, 0.003, 0.001)
    85
    >>> hpsy_thm2_unlabeled(1000, 500, 0.003, 0.001, form="proof")  # what the proof needs
    178
    >>> hpsy_thm2_unlabeled(1000, 500, 0.003, 0.001, form="corrected")  # with n^+ >= n/4
    711
    >>> r = hpsy_thm2_unlabeled(1000, 40, 0.003, 0.001, form="proof", strict=False)
    >>> r.valid, r.reason.split("; ")[0]  # Lemma 2 fails on G+ (40 vertices) at beta/4
    (False, 'Lemma 2 on G+: beta/4 in (4 exp(-(40-5)/9), 4/40)')

    Notes
    -----
    The Lemma 2 conditions on G+ and G- are implied by the others (so they change no
    verdict, they name the hypothesis that fails): with L = log(16/beta),
    ``9 L + 4 < m - 1`` gives ``(m - 5)/9 > L``, i.e. ``beta/4 > 4 exp(-(m-5)/9)``, and, as
    ``beta < 4/d`` makes ``L > log 144``, also ``m > 49 > 35``; ``beta < 4/d`` gives
    ``beta/4 < 4/m`` for every ``m <= d``.
    """
    lo, hi = hpsy_lem2_beta_interval(dim, "statement")
    c = 9 * math.log(16 / beta) + 4
    conds: list[tuple[bool, str, dict[str, Any]]] = [
        (k > 35 and dim > 35, "k, d > 35", {"k": k, "dim": dim}),
             (lo < beta < hi, "beta in (4 exp(-(d-5)/9), 4/d)", {"beta": beta, "interval": (lo, hi)}),
             (c < dim - 1, "9 log(16/beta) + 4 < d - 1", {"dim": dim, "beta": beta})]
    if form in ("proof", "corrected"):
        # the proof applies Lemma 2 to G+ (k vertices) and G- (d - k vertices) at confidence beta/4
        for side, m in (("G+", k), ("G-", dim - k)):
            m_lo, m_hi = hpsy_lem2_beta_interval(m, "statement") if m >= 2 else (math.inf, -math.inf)
            conds.append((m > 35, f"Lemma 2 on {side}: {m} vertices > 35", {"vertices": m, "k": k, "dim": dim}))
            conds.append((m_lo < beta / 4 < m_hi,
                          f"Lemma 2 on {side}: beta/4 in (4 exp(-({m}-5)/9), 4/{m})",
                          {"beta/4": beta / 4, "vertices": m, "interval": (m_lo, m_hi)}))
        conds.append((c < k - 1 and c < dim - k - 1, "9 log(16/beta) + 4 < min(k - 1, d - k - 1)",
                      {"k": k, "dim": dim, "beta": beta}))

    def compute() -> int:
        if form == "statement":
            return ceil_int(float(_thm2_unl(MATH, dim, beta, p)))
        first = max(_thm2_first(MATH, k - 1, beta, p), _thm2_first(MATH, dim - k - 1, beta, p))
        if form == "corrected":
            first *= 4
        return ceil_int(max(first, 8 * math.log(16 / beta)))

    return check_conditions(strict, "HPSY.Thm2", conds, compute)


def hpsy_thm2_unlabeled_expr() -> Any:
    """Sympy form of the HPSY Thm 2 n_unl (statement form, before rounding).

    Implements: HPSY.Thm2.

    >>> print(hpsy_thm2_unlabeled_expr())
    Max(log(1 - (9*log(16/beta) + 4)/(dim - 1))/log(1 - p), 8*log(16/beta))
    """
    return make_expr(_thm2_unl, ("dim", "beta", "p"), integer=("dim",))


@broadcasts
@validate_params(alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, delta=DELTA, constant=POSITIVE_REAL)
def hpsy_thm2_labeled(alpha: float, beta: float, epsilon: float, delta: float = 0.0, *,
                      constant: float = 1.0) -> int:
    r"""HPSY Thm 2 labelled size O((1 + polylog(1/beta, 1/delta))/(alpha eps)).

    Implements: HPSY.Thm2 (n_lab).  Two components, so two hypotheses: the exponential
    mechanism over |H| = 2 gives (log 2 + log(1/beta)); the paper's polylog is unspecified,
    we use ``constant * (1 + log(1/beta))/(alpha eps)`` (delta unused: the learner is pure DP).

    Examples
    --------
    >>> hpsy_thm2_labeled(0.1, 0.05, 1.0)
    40
    """
    return ceil_int(constant * (1 + math.log(1 / beta)) / (alpha * epsilon))


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=POSITIVE_INT, z_max=POSITIVE_INT, p_min=PROBABILITY, alpha=PROBABILITY, beta=PROBABILITY,
                 epsilon=EPSILON, constant=POSITIVE_REAL)
def hpsy_thm1(dim: int, z_max: int, p_min: float, alpha: float, beta: float, epsilon: float, *,
              constant: float = 1.0) -> SemiPrivateSampleSizes:
    """HPSY Theorem 1: (n_unl, n_lab) = (:func:`hpsy_thm1_unlabeled`, :func:`hpsy_thm1_labeled`).

    Implements: HPSY.Thm1.

    >>> hpsy_thm1(100, 2, 0.01, 0.1, 0.05, 1.0)
    SemiPrivateSampleSizes(n_unl=1284, n_lab=50)
    """
    return SemiPrivateSampleSizes(hpsy_thm1_unlabeled(dim, beta, p_min),
                                  hpsy_thm1_labeled(z_max, alpha, beta, epsilon, constant=constant))


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=Integer(2), k=Integer(1), p=PROBABILITY, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 delta=DELTA, form=Options("statement", "proof", "corrected"), constant=POSITIVE_REAL,
                 strict=Boolean())
def hpsy_thm2(dim: int, k: int, p: float, alpha: float, beta: float, epsilon: float, delta: float = 0.0, *,
              form: str = "statement", constant: float = 1.0, strict: bool = True) -> Any:
    """HPSY Theorem 2: (n_unl, n_lab) = (:func:`hpsy_thm2_unlabeled`, :func:`hpsy_thm2_labeled`).

    Implements: HPSY.Thm2.  Hypotheses as in :func:`hpsy_thm2_unlabeled`.

    >>> hpsy_thm2(1000, 500, 0.001, 0.1, 0.003, 1.0)
    SemiPrivateSampleSizes(n_unl=85, n_lab=69)
    """
    from semiprivate.theory.validity import Checked

    unl = hpsy_thm2_unlabeled(dim, k, beta, p, form=form, strict=strict)
    lab = hpsy_thm2_labeled(alpha, beta, epsilon, delta, constant=constant)
    if isinstance(unl, Checked):
        value = SemiPrivateSampleSizes(unl.value, lab) if unl.value is not None else None
        return Checked(value, unl.valid, unl.reason, "HPSY.Thm2", unl.details)
    return SemiPrivateSampleSizes(unl, lab)


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

register(Bound("HPSY.Thm1", "disjunctions: (n_unl, n_lab) of Theorem 1",
               (Param("dim", POSITIVE_INT, "number of variables", integer=True, typical=(2, 1000)),
                Param("z_max", POSITIVE_INT, "max number of components", integer=True, typical=(1, 100)),
                Param("p_min", PROBABILITY, "minimum positive edge probability", typical=(0.001, 0.5)),
                _ALPHA, _BETA, _EPS, _CONST), hpsy_thm1, None, None, "SemiPrivateSampleSizes(n_unl, n_lab)",
               monotone={"dim": +1, "z_max": +1, "p_min": -1, "alpha": -1, "beta": -1, "epsilon": -1},
               example={"dim": 100, "z_max": 2, "p_min": 0.01, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}))
register(Bound("HPSY.Thm2", "D_{f,p}: (n_unl, n_lab) of Theorem 2 (hypotheses checked)",
               (Param("dim", Integer(2), "number of variables (> 35)", integer=True, typical=(40, 5000)),
                Param("k", Integer(1), "|V+(f)| (> 35)", integer=True, typical=(36, 2000)),
                Param("p", PROBABILITY, "edge probability", typical=(0.001, 0.5)), _ALPHA,
                Param("beta", PROBABILITY, "failure probability in (4exp(-(d-5)/9), 4/d)", typical=(1e-4, 0.1)),
                _EPS, Param("delta", DELTA, "delta (unused: pure DP)", typical=(0.0, 1e-3), default=0.0,
                            required=False), _FORM3, _CONST),
               hpsy_thm2, None, None, "SemiPrivateSampleSizes(n_unl, n_lab)",
               example={"dim": 1000, "k": 500, "p": 0.001, "alpha": 0.1, "beta": 0.003, "epsilon": 1.0}))
register(Bound("HPSY.Thm1.n_unl", "disjunctions: n_unl >= log(2d^2/beta)/(-log(1-p_min)) (proof constant)",
               (Param("dim", POSITIVE_INT, "number of variables", integer=True, typical=(2, 1000)), _BETA,
                Param("p_min", PROBABILITY, "minimum positive edge probability", typical=(0.001, 0.5))),
               hpsy_thm1_unlabeled, hpsy_thm1_unlabeled_expr, _thm1_unl, "n_unl (int)",
               monotone={"dim": +1, "beta": -1, "p_min": -1}, example={"dim": 100, "beta": 0.05, "p_min": 0.01},
               integer_output=True))
register(Bound("HPSY.Thm1.n_lab", "disjunctions: n_lab = O((Z_max + log(1/beta))/(alpha eps))",
               (Param("z_max", POSITIVE_INT, "max number of components", integer=True, typical=(1, 100)), _ALPHA,
                _BETA, _EPS, _CONST, _FORM_CP), hpsy_thm1_labeled, hpsy_thm1_labeled_expr, _thm1_lab, "n_lab (int)",
               monotone={"z_max": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"z_max": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("HPSY.Lem1", "Karger: cuts of G(p) within (1 +- eps), eps = sqrt(3(l+2) log d / c_hat), w.p. 1-4/(l d^l)",
               (Param("dim", Integer(2), "number of vertices", integer=True, typical=(2, 1000)),
                Param("ell", Real(1.0, math.inf), "l >= 1", typical=(1.0, 5.0)),
                Param("c_hat", POSITIVE_REAL, "minimum expected cut", typical=(50.0, 5000.0))),
               karger_cut_bound, karger_epsilon_expr,
               lambda ns, dim, ell, c_hat: _karger_eps(ns, dim, ell, c_hat), "KargerBound(epsilon, failure_probability)",
               example={"dim": 100, "ell": 1.0, "c_hat": 500.0}))
register(Bound("HPSY.Lem2", "G(d,p) connected w.p. >= 1-beta if p >= 9(log(4/beta)+4)/(d-1) (d > 35, beta interval)",
               (Param("dim", Integer(2), "number of vertices (> 35)", integer=True, typical=(40, 5000)),
                Param("beta", PROBABILITY, "failure probability in (4exp(-(d-5)/9), 4/d)", typical=(1e-4, 0.1)),
                _FORM),
               hpsy_connectivity_threshold, hpsy_connectivity_threshold_expr, _lem2_threshold, "threshold on p (float)",
               monotone={"dim": -1, "beta": -1}, example={"dim": 1000, "beta": 0.003}))
register(Bound("HPSY.Thm2.n_unl", "D_{f,p}: n_unl >= max{log(1-(9log(16/b)+4)/(d-1))/log(1-p), 8 log(16/b)}",
               (Param("dim", Integer(2), "number of variables (> 35)", integer=True, typical=(40, 5000)),
                Param("k", Integer(1), "|V+(f)| (> 35)", integer=True, typical=(36, 2000)),
                Param("beta", PROBABILITY, "failure probability in (4exp(-(d-5)/9), 4/d)", typical=(1e-4, 0.1)),
                Param("p", PROBABILITY, "edge probability", typical=(0.001, 0.5)), _FORM3),
               hpsy_thm2_unlabeled, hpsy_thm2_unlabeled_expr,
               lambda ns, dim, k, beta, p, form="statement": _thm2_unl(ns, dim, beta, p), "n_unl (int)",
               monotone={"p": -1}, example={"dim": 1000, "k": 500, "beta": 0.003, "p": 0.01}, integer_output=True))
register(Bound("HPSY.Thm2.n_lab", "D_{f,p}: n_lab = O((1 + log(1/beta))/(alpha eps))",
               (_ALPHA, _BETA, _EPS, Param("delta", DELTA, "delta (unused: pure DP)", typical=(0.0, 1e-3), default=0.0,
                                           required=False), _CONST),
               hpsy_thm2_labeled, None, None, "n_lab (int)",
               monotone={"alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))

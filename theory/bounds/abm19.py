"""Bounds of ABM19 (Alon, Bassily, Moran, "Limits of private learning with access to public data").

Implements: ABM19.Lem3.3, ABM19.Thm3.1, ABM19.Lem4.4, ABM19.Thm4.1, ABM19.Thm4.2.

Logs are natural.  Sample sizes are ints, rounded up.  Where the paper states only O(.), the
function takes ``constant`` (default 1) and evaluates ``constant * expression``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from semiprivate.theory.bounds._core import (
    MATH,
    Bound,
    Param,
    ProbabilityBound,
    Solver,
    broadcasts,
    ceil_int,
    check_conditions,
    make_expr,
    near_integer,
    register,
    renamed_params,
    safe_exp,
    smallest_integer,
)
from semiprivate.validation import (
    DELTA,
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Boolean,
    Options,
    validate_params,
)

__all__ = [
    "abm19_cover_log_failure_probability",
    "abm19_cover_failure_probability",
    "abm19_cover_failure_probability_expr",
    "abm19_public_sample_size",
    "abm19_public_sample_size_oform",
    "abm19_public_sample_size_oform_expr",
    "abm19_private_sample_size",
    "abm19_private_sample_size_expr",
    "SampleComplexity",
    "abm19_sample_complexity",
    "PublicDataReduction",
    "abm19_public_data_reduction",
    "abm19_public_lower_bound",
    "abm19_public_lower_bound_expr",
]


# ---------------------------------------------------------------------------
# Lemma 3.3: probability that the cover built from T_pub is not an alpha-cover
# ---------------------------------------------------------------------------


def _lem33_log(ns: Any, n_pub: Any, vc_dim: Any, alpha: Any) -> Any:
    # log of 2 (2 e n_pub / d)^(2d) exp(-alpha n_pub / 4)
    return ns.log(2) + 2 * vc_dim * ns.log(2 * ns.e * n_pub / vc_dim) - alpha * n_pub / 4


def _lem33_conditions(n_pub: int, vc_dim: int) -> list[tuple[bool, str, dict[str, Any]]]:
    return [(2 * n_pub >= vc_dim, "2*n_pub >= vc_dim (Sauer's (e m/d)^d bound on the 2*n_pub-point double sample)",
             {"n_pub": n_pub, "vc_dim": vc_dim})]


@renamed_params(d="vc_dim")
@validate_params(n_pub=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, strict=Boolean())
def abm19_cover_log_failure_probability(n_pub: int, vc_dim: int, alpha: float, *, strict: bool = True) -> Any:
    r"""Natural log of the ABM19 Lemma 3.3 failure bound.

    Implements: ABM19.Lem3.3 (log form).
    :math:`\log\big(2 (2e\,n_{pub}/d)^{2d} e^{-\alpha n_{pub}/4}\big)
    = \log 2 + 2d\log(2e\,n_{pub}/d) - \alpha n_{pub}/4`.

    Parameters
    ----------
    n_pub : int
        Number of public unlabelled points (>= 1).
    vc_dim : int
        VC dimension of H (>= 1).
    alpha : float
        Cover radius, in (0, 1).
    strict : bool
        Raise on a failed hypothesis (default) or return a :class:`~semiprivate.theory.validity.Checked`.

    Returns
    -------
    float
        The log bound (may be positive: the bound can exceed 1).

    Raises
    ------
    ConditionNotMet
        If ``2 * n_pub < vc_dim`` (Sauer's polynomial bound is used on the 2 n_pub-point double
        sample and needs at least d points).

    Examples
    --------
    >>> round(abm19_cover_log_failure_probability(20000, 10, 0.05), 3)
    -63.426
    """
    return check_conditions(strict, "ABM19.Lem3.3", _lem33_conditions(n_pub, vc_dim),
                            lambda: float(_lem33_log(MATH, n_pub, vc_dim, alpha)))


@broadcasts
@renamed_params(d="vc_dim")
@validate_params(n_pub=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, strict=Boolean())
def abm19_cover_failure_probability(n_pub: int, vc_dim: int, alpha: float, *, strict: bool = True) -> Any:
    r"""ABM19 Lemma 3.3: P[the ASSPP class is not an alpha-cover] <= 2 (2e n/d)^{2d} exp(-alpha n/4).

    Implements: ABM19.Lem3.3.  Exact constants of the paper (proof of Lemma 3.3, the
    double-sample argument): :math:`2\,(2e\,n_{pub}/d)^{2d}\,\exp(-\alpha n_{pub}/4)`.

    Parameters
    ----------
    n_pub : int
        Number of public unlabelled points.
    vc_dim : int
        VC dimension of H.
    alpha : float
        Cover radius in (0, 1).
    strict : bool
        See :func:`abm19_cover_log_failure_probability`.

    Returns
    -------
    ProbabilityBound
        The bound, a float (computed in log space; it can exceed 1, where it says nothing and
        its ``vacuous`` is True; ``inf`` with a RuntimeWarning if it overflows).

    Raises
    ------
    ConditionNotMet
        If ``2 * n_pub < vc_dim``.

    References
    ----------
    ABM19, Lemma 3.3 and its proof.

    Examples
    --------
    >>> abm19_cover_failure_probability(20000, 10, 0.05) < 1e-20
    True
    """
    return check_conditions(strict, "ABM19.Lem3.3", _lem33_conditions(n_pub, vc_dim),
                            lambda: ProbabilityBound(safe_exp(float(_lem33_log(MATH, n_pub, vc_dim, alpha)),
                                                              "ABM19.Lem3.3 bound")))


def abm19_cover_failure_probability_expr() -> Any:
    """Sympy form of the ABM19 Lemma 3.3 bound (symbols ``n_pub, vc_dim, alpha``), from the same formula.

    Implements: ABM19.Lem3.3.

    >>> abm19_cover_failure_probability_expr()
    2*exp(-alpha*n_pub/4 + 2*vc_dim*(log(n_pub) - log(vc_dim) + log(2) + 1))
    """
    import sympy

    return sympy.powsimp(sympy.expand_log(sympy.exp(make_expr(_lem33_log, ("n_pub", "vc_dim", "alpha"),
                                                                  integer=("n_pub", "vc_dim"))), force=True))


@broadcasts
@renamed_params(d="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY)
def abm19_public_sample_size(vc_dim: int, alpha: float, beta: float) -> int:
    r"""Smallest n_pub with 2 (2e n/d)^{2d} exp(-alpha n/4) <= beta (ABM19 Lemma 3.3, solved exactly).

    Implements: ABM19.Lem3.3 (solver).  Exact monotone integer search on the stated
    inequality, in log space.  On ``n >= d/2`` the log bound increases up to ``n = 8d/alpha``
    (where the bound is above 2) and decreases after, so the search starts at
    ``max(ceil(d/2), floor(8d/alpha))`` and the answer ``n`` is the smallest integer
    ``>= d/2`` satisfying the inequality (``n - 1`` does not).

    Parameters
    ----------
    vc_dim : int
        VC dimension.
    alpha : float
        Cover radius in (0, 1).
    beta : float
        Failure probability in (0, 1).

    Returns
    -------
    int
        The number of public unlabelled points.

    Examples
    --------
    >>> abm19_public_sample_size(10, 0.05, 0.01)
    14815
    >>> abm19_public_sample_size_oform(10, 0.05, 0.01)  # the O-form with constant 1
    692
    """
    log_beta = math.log(beta)
    lo = max((vc_dim + 1) // 2, int(8 * vc_dim / alpha))
    return smallest_integer(lambda n: _lem33_log(MATH, n, vc_dim, alpha) <= log_beta, lo)


def _pub_oform(ns: Any, vc_dim: Any, alpha: Any, beta: Any, constant: Any = 1) -> Any:
    return constant * (vc_dim * ns.log(1 / alpha) + ns.log(1 / beta)) / alpha


@broadcasts
@renamed_params(d="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, constant=POSITIVE_REAL)
def abm19_public_sample_size_oform(vc_dim: int, alpha: float, beta: float, *, constant: float = 1.0) -> int:
    r"""ABM19 Thm 3.1 / Lem 3.3 public sample size, O-form: constant * (d log(1/alpha) + log(1/beta)) / alpha.

    Implements: ABM19.Thm3.1 (n_pub).  The paper states only O(.); ``constant`` (default 1)
    is the hidden constant.  For the exact sample size from the Lemma 3.3 inequality use
    :func:`abm19_public_sample_size`.

    Returns
    -------
    int
        ``ceil(constant * (d log(1/alpha) + log(1/beta)) / alpha)``.

    Examples
    --------
    >>> abm19_public_sample_size_oform(1, 0.5, 0.5)
    3
    """
    return ceil_int(_pub_oform(MATH, vc_dim, alpha, beta, constant))


def abm19_public_sample_size_oform_expr() -> Any:
    """Sympy form of :func:`abm19_public_sample_size_oform` (before rounding up).

    Implements: ABM19.Thm3.1 (n_pub).

    >>> abm19_public_sample_size_oform_expr()
    constant*(vc_dim*log(1/alpha) + log(1/beta))/alpha
    """
    return make_expr(_pub_oform, ("vc_dim", "alpha", "beta", "constant"), integer=("vc_dim",))


def _priv(ns: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    # max(1/alpha^2, 1/(eps alpha)) written as max(1/alpha, 1/eps)/alpha: alpha**2 underflows to 0 for
    # alpha < 1e-162 (a ZeroDivisionError), the division by alpha overflows to inf (vacuous, reported)
    return constant * (vc_dim * ns.log(1 / alpha) + ns.log(1 / beta)) * ns.max(1 / alpha, 1 / epsilon) / alpha


@broadcasts
@renamed_params(d="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def abm19_private_sample_size(vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""ABM19 Thm 3.1 private sample size: constant * (d log(1/a) + log(1/b)) * max(1/a^2, 1/(eps a)).

    Implements: ABM19.Thm3.1 (n_priv).  O-form only in the paper; ``constant`` defaults to 1.

    Parameters
    ----------
    vc_dim : int
        VC dimension.
    alpha, beta : float
        Excess error and failure probability in (0, 1).
    epsilon : float
        Privacy parameter (> 0); ASSPP is (epsilon, 0)-DP.
    constant : float
        Hidden constant of the O(.).

    Returns
    -------
    int

    Examples
    --------
    >>> abm19_private_sample_size(10, 0.1, 0.05, 1.0)
    2603
    """
    return ceil_int(_priv(MATH, vc_dim, alpha, beta, epsilon, constant))


def abm19_private_sample_size_expr() -> Any:
    """Sympy form of :func:`abm19_private_sample_size` (before rounding up).

    Implements: ABM19.Thm3.1 (n_priv).

    >>> print(abm19_private_sample_size_expr())
    constant*(vc_dim*log(1/alpha) + log(1/beta))*Max(1/alpha, 1/epsilon)/alpha
    """
    return make_expr(_priv, ("vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("vc_dim",))


class SampleComplexity(NamedTuple):
    """Private (labelled) and public (unlabelled) sample sizes of a theorem."""

    n_priv: int
    n_pub: int


@broadcasts
@renamed_params(d="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def abm19_sample_complexity(vc_dim: int, alpha: float, beta: float, epsilon: float, *,
                            constant: float = 1.0) -> SampleComplexity:
    r"""ABM19 Theorem 3.1 (ASSPP, agnostic, (eps, 0)-DP): both sample sizes, O-forms with one ``constant``.

    Implements: ABM19.Thm3.1.  ``(abm19_private_sample_size(...), abm19_public_sample_size_oform(...))``;
    for the exact public size from Lemma 3.3 use :func:`abm19_public_sample_size`.

    Examples
    --------
    >>> abm19_sample_complexity(10, 0.1, 0.05, 1.0)
    SampleComplexity(n_priv=2603, n_pub=261)
    """
    return SampleComplexity(abm19_private_sample_size(vc_dim, alpha, beta, epsilon, constant=constant),
                            abm19_public_sample_size_oform(vc_dim, alpha, beta, constant=constant))


# ---------------------------------------------------------------------------
# Lemma 4.4 and Theorems 4.1 / 4.2 (lower bounds)
# ---------------------------------------------------------------------------


class PublicDataReduction(NamedTuple):
    """The private learner B of ABM19 Lemma 4.4: (alpha, beta, epsilon, delta) and sample size."""

    alpha: float
    beta: float
    epsilon: float
    delta: float
    n: int
    p: float


@broadcasts
@validate_params(alpha=PROBABILITY, n_priv=POSITIVE_INT, n_pub=POSITIVE_INT, epsilon=EPSILON, delta=DELTA,
                 strict=Boolean(), form=Options("paper", "corrected"))
def abm19_public_data_reduction(alpha: float, n_priv: int, n_pub: int, epsilon: float, delta: float = 0.0,
                                *, strict: bool = True, form: str = "paper") -> Any:
    r"""ABM19 Lemma 4.4: an (alpha, 1/18, eps, delta) semi-private learner gives a private learner.

    Implements: ABM19.Lem4.4.  From an agnostic (alpha, 1/18, epsilon, delta) semi-private
    learner with sample sizes n_priv, n_pub, Algorithm 2 (p = 1/(100 n_pub)) is a
    (100 n_pub alpha, 1/16, epsilon, delta)-private learner (realizable case) with private
    sample size ceil(n_priv / (10 n_pub)).

    Parameters
    ----------
    alpha : float
        Excess error of the semi-private learner; the lemma needs ``0 < alpha <= 1/100``.
    n_priv, n_pub : int
        Its private and public sample sizes.
    epsilon, delta : float
        Its privacy parameters (kept by B).
    strict : bool
        Raise (default) or return a Checked on a failed hypothesis.
    form : {"paper", "corrected"}
        ``"paper"`` (default): beta = 1/16 as stated.  proofs_checks (ABM19.Lem4.4.confidence) shows
        the paper's proof does not give it (1/18 + 0.01 > 1/17, and the stopping Alg 3 fails its loop
        w.p. up to 0.095 below n_priv = 20 n_pub), but 1/16 *is* established for Alg 3 repaired to
        fill the slots after S~ runs out with D0 draws -- the Alg 3 that
        :func:`semiprivate.theory.learners.reduction.priv_samp` runs -- at every n_priv, n_pub, hence the default.
        ``"corrected"``: the verified confidence of that repaired reduction for a 1/18-learner,
        beta = (1/18)/(1 - p)^{n_pub} + P[Bin(n_priv, p) >= n + 1] (<= 0.0608 < 1/16).

    Returns
    -------
    PublicDataReduction
        ``(alpha=100*n_pub*alpha, beta, epsilon, delta, n=ceil(n_priv/(10 n_pub)), p=1/(100 n_pub))``.

    Raises
    ------
    ConditionNotMet
        If ``alpha > 1/100``.

    Examples
    --------
    >>> abm19_public_data_reduction(0.001, 5000, 2, 1.0)
    PublicDataReduction(alpha=0.2, beta=0.0625, epsilon=1.0, delta=0.0, n=250, p=0.005)
    """
    def compute() -> PublicDataReduction:
        n, p = -(-n_priv // (10 * n_pub)), 1 / (100 * n_pub)
        beta = 1 / 16
        if form == "corrected":
            from scipy.stats import binom

            beta = (1 / 18) / (1 - p) ** n_pub + float(binom.sf(n, n_priv, p))
        return PublicDataReduction(alpha=100 * n_pub * alpha, beta=beta, epsilon=float(epsilon),
                                   delta=float(delta), n=n, p=p)

    return check_conditions(strict, "ABM19.Lem4.4", [(alpha <= 0.01, "alpha <= 1/100", {"alpha": alpha})], compute)


def _pub_lower(ns: Any, alpha: Any) -> Any:
    return 1 / (1600 * alpha)


@broadcasts
@validate_params(alpha=PROBABILITY)
def abm19_public_lower_bound(alpha: float) -> int:
    r"""ABM19 Thm 4.1 / 4.2: every (approximate / pure) semi-private learner needs n_pub > 1/(1600 alpha).

    Implements: ABM19.Thm4.1 (classes of infinite Littlestone dimension, e.g. thresholds
    over R; approximate DP with delta = 1/(100 n^2 log n)) and ABM19.Thm4.2 (pure DP, any
    class not learnable by a pure private learner).  Both proofs end with
    ``100 n_pub alpha > 1/16``, i.e. ``n_pub > 1/(1600 alpha)``; this returns the smallest
    integer that satisfies the strict inequality, ``floor(1/(1600 alpha)) + 1`` (a value within
    float noise of an integer counts as that integer).

    Examples
    --------
    >>> abm19_public_lower_bound(0.0001), abm19_public_lower_bound(0.01)
    (7, 1)
    """
    x = float(_pub_lower(MATH, alpha))
    r = near_integer(x)
    if r is not None:  # x is an integer up to float noise: n_pub must exceed it
        return r + 1
    return math.floor(x) + 1


def abm19_public_lower_bound_expr() -> Any:
    """Sympy form of the threshold 1/(1600 alpha) of ABM19 Thm 4.1/4.2 (n_pub must exceed it).

    Implements: ABM19.Thm4.1, ABM19.Thm4.2.

    >>> abm19_public_lower_bound_expr()
    1/(1600*alpha)
    """
    return make_expr(_pub_lower, ("alpha",))


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

_D = Param("vc_dim", POSITIVE_INT, "VC dimension of the hypothesis class", integer=True, typical=(1, 50))
_ALPHA = Param("alpha", PROBABILITY, "accuracy (excess error / cover radius), in (0, 1)", typical=(0.005, 0.5))
_BETA = Param("beta", PROBABILITY, "failure probability, in (0, 1)", typical=(0.001, 0.5))
_EPS = Param("epsilon", EPSILON, "privacy parameter epsilon > 0", typical=(0.05, 5.0))
_DELTA = Param("delta", DELTA, "privacy parameter delta in [0, 1)", typical=(0.0, 1e-3), default=0.0, required=False)
_CONST = Param("constant", POSITIVE_REAL, "hidden constant of the O(.) (default 1)", typical=(0.5, 5.0),
               default=1.0, required=False)
_NPUB = Param("n_pub", POSITIVE_INT, "number of public (unlabelled) examples", integer=True, typical=(1, 10**6))

register(Bound(
    id="ABM19.Lem3.3",
    description="P[ASSPP's class is not an alpha-cover] <= 2(2e n_pub/d)^(2d) exp(-alpha n_pub/4)",
    params=(_NPUB, _D, _ALPHA),
    function=abm19_cover_failure_probability,
    expr=abm19_cover_failure_probability_expr,
    formula=lambda ns, n_pub, vc_dim, alpha: ns.exp(_lem33_log(ns, n_pub, vc_dim, alpha)),
    output="failure probability bound (float; may exceed 1)",
    solvers={"n_pub": Solver("n_pub", abm19_public_sample_size, (_D, _ALPHA, _BETA),
                             "smallest n_pub with bound <= beta (exact integer search)")},
    monotone={"vc_dim": +1},
    example={"n_pub": 20000, "vc_dim": 10, "alpha": 0.05},
))
register(Bound(
    id="ABM19.Thm3.1.n_pub",
    description="ASSPP public sample size O((d log(1/alpha) + log(1/beta))/alpha), constant exposed",
    params=(_D, _ALPHA, _BETA, _CONST),
    function=abm19_public_sample_size_oform,
    expr=abm19_public_sample_size_oform_expr,
    formula=_pub_oform,
    output="n_pub (int)",
    monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "constant": +1},
    example={"vc_dim": 10, "alpha": 0.05, "beta": 0.01},
    integer_output=True,
))
register(Bound(
    id="ABM19.Thm3.1.n_priv",
    description="ASSPP private sample size O((d log(1/a) + log(1/b)) max(1/a^2, 1/(eps a))), constant exposed",
    params=(_D, _ALPHA, _BETA, _EPS, _CONST),
    function=abm19_private_sample_size,
    expr=abm19_private_sample_size_expr,
    formula=_priv,
    output="n_priv (int)",
    monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
    example={"vc_dim": 10, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0},
    integer_output=True,
))
register(Bound(
    id="ABM19.Thm3.1",
    description="ASSPP: (n_priv, n_pub) O-forms of Theorem 3.1 with one constant",
    params=(_D, _ALPHA, _BETA, _EPS, _CONST),
    function=abm19_sample_complexity,
    expr=lambda: {"n_priv": abm19_private_sample_size_expr(), "n_pub": abm19_public_sample_size_oform_expr()},
    formula=lambda ns, vc_dim, alpha, beta, epsilon, constant=1: {
        "n_priv": _priv(ns, vc_dim, alpha, beta, epsilon, constant), "n_pub": _pub_oform(ns, vc_dim, alpha, beta, constant)},
    output="SampleComplexity(n_priv, n_pub)",
    monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "constant": +1},
    example={"vc_dim": 10, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0},
))
register(Bound(
    id="ABM19.Lem4.4",
    description="public-data reduction: (alpha,1/18,eps,delta) SP learner -> (100 n_pub alpha,1/16,eps,delta) private",
    params=(Param("alpha", PROBABILITY, "excess error of the semi-private learner (<= 1/100)", typical=(1e-4, 0.01)),
            Param("n_priv", POSITIVE_INT, "private sample size", integer=True, typical=(1, 10**6)),
            _NPUB, _EPS, _DELTA,
            Param("form", Options("paper", "corrected"), "'paper' (beta = 1/16, default) or 'corrected' (verified "
                  "beta of the fill-with-D0 reduction)", default="paper", required=False)),
    function=abm19_public_data_reduction,
    output="PublicDataReduction(alpha, beta, epsilon, delta, n, p) of the private learner B: its alpha is "
           "100 n_pub x the input alpha",
    example={"alpha": 0.001, "n_priv": 5000, "n_pub": 2, "epsilon": 1.0},
))
for _id, _what in (("ABM19.Thm4.1", "approximate DP, infinite Littlestone dimension"),
                   ("ABM19.Thm4.2", "pure DP, classes not pure-privately learnable")):
    register(Bound(
        id=_id,
        description=f"lower bound n_pub > 1/(1600 alpha) ({_what}); returns the smallest such integer",
        params=(_ALPHA,),
        function=abm19_public_lower_bound,
        expr=abm19_public_lower_bound_expr,
        formula=_pub_lower,
        output="smallest n_pub allowed (int)",
        monotone={"alpha": -1},
        example={"alpha": 0.0001},
        integer_output=True,
    ))

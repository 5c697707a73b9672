"""Bounds of BNS15 (Beimel, Nissim, Stemmer, "Learning privately with labeled and unlabeled examples").

Implements: BNS15.Thm3.3, BNS15.Cl4.2, BNS15.Cl4.8, BNS15.Cl4.9, BNS15.Rem4.10, BNS15.Cl4.11,
BNS15.Lem4.12, BNS15.Thm4.13, BNS15.Thm4.14, BNS15.Thm4.16, BNS15.Cor4.17, BNS15.Cor4.18,
BNS15.Thm5.5, BNS15.Thm5.6, BNS15.Thm5.8, BNS15.PropA.1.  The privacy transformers (Lem 4.1,
Cl 4.3, Cl 4.5, Lem 4.6, Cl 5.7) are in :mod:`semiprivate.theory.bounds.privacy`; the classic VC bounds
of App. B and Thm A.3 in :mod:`semiprivate.theory.bounds.classic`.

"log" is natural throughout (the paper mixes ln and log; we read every log as ln, as its
proofs do when they exponentiate).  The LabelBoost constants (90000, 30000, 300, 96000,
2240, ...) are the paper's, used as written.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from semiprivate.kernels.validation import (
    DELTA,
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Boolean,
    Integer,
    Options,
    validate_params,
)
from semiprivate.theory.bounds._core import (
    MATH,
    Bound,
    Param,
    ProbabilityBound,
    SampleSize,
    Solver,
    ceil_int,
    check_conditions,
    make_expr,
    register,
    renamed_params,
    safe_exp,
    smallest_integer,
)
from semiprivate.theory.bounds.privacy import labelboost_privacy, subsampling_privacy

__all__ = [
    "bns15_thm3_3",
    "bns15_generic_labeled",
    "bns15_generic_labeled_expr",
    "bns15_generic_unlabeled",
    "bns15_generic_unlabeled_expr",
    "bns15_generic_uniform_convergence_size",
    "bns15_labelboost_max_unlabeled",
    "bns15_labelboost_min_labeled",
    "bns15_labelboost_unlabeled_size",
    "bns15_labelboost_labeled_size",
    "bns15_labelboost_labeled_size_expr",
    "bns15_labelboost_iteration_size",
    "LabelBoostIteration",
    "bns15_labelboost_schedule",
    "bns15_labelboost_error_after",
    "LearnerParams",
    "bns15_lem4_12",
    "bns15_thm4_13",
    "bns15_thm4_14_explicit",
    "bns15_thm4_14_labeled",
    "bns15_thm4_14_labeled_expr",
    "bns15_thm4_16_labeled",
    "bns15_thm4_16_labeled_expr",
    "bns15_rectangles",
    "log_star",
    "bns15_cor4_18",
    "bns15_pssl_to_tpal",
    "bns15_tpal_threshold_lower_bound",
    "bns15_tpal_threshold_lower_bound_expr",
    "bns15_thm5_8",
    "expmech_log_failure_probability",
    "expmech_failure_probability",
    "expmech_failure_probability_expr",
    "expmech_sample_size",
]


# ---------------------------------------------------------------------------
# Theorem 3.3 (GenericLearner)
# ---------------------------------------------------------------------------


def _thm33_m(ns: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * (vc_dim / (alpha**3 * epsilon) * ns.log(1 / alpha) + ns.log(1 / beta) / (alpha * epsilon))


def _thm33_n(ns: Any, bits: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * (bits * vc_dim / (alpha**3 * epsilon) * ns.log(1 / alpha) + ns.log(1 / beta) / (alpha * epsilon))


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def bns15_generic_labeled(vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""BNS15 Thm 3.3 labelled sample size m = O(VC/(a^3 eps) log(1/a) + log(1/b)/(a eps)).

    Implements: BNS15.Thm3.3 (m).  O-form only; ``constant`` (default 1) is the hidden constant.
    The proof also needs m >= 1250 VC/a^2 ln(25/(a b)): see
    :func:`bns15_generic_uniform_convergence_size`.

    Examples
    --------
    >>> bns15_generic_labeled(2, 0.1, 0.05, 1.0)
    4636
    """
    return ceil_int(_thm33_m(MATH, vc_dim, alpha, beta, epsilon, constant))


def bns15_generic_labeled_expr() -> Any:
    """Sympy form of :func:`bns15_generic_labeled` (before rounding).

    Implements: BNS15.Thm3.3 (m).

    >>> bns15_generic_labeled_expr()
    constant*(log(1/beta)/(alpha*epsilon) + vc_dim*log(1/alpha)/(alpha**3*epsilon))
    """
    return make_expr(_thm33_m, ("vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("vc_dim",))


@renamed_params(vc="vc_dim", d="bits")
@validate_params(bits=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 constant=POSITIVE_REAL)
def bns15_generic_unlabeled(bits: int, vc_dim: int, alpha: float, beta: float, epsilon: float, *,
                            constant: float = 1.0) -> int:
    r"""BNS15 Thm 3.3 total sample size n = O(d VC/(a^3 eps) log(1/a) + log(1/b)/(a eps)) over X_d = {0,1}^d.

    Implements: BNS15.Thm3.3 (n).  O-form only; ``constant`` defaults to 1.

    Examples
    --------
    >>> bns15_generic_unlabeled(10, 2, 0.1, 0.05, 1.0)
    46082
    """
    return ceil_int(_thm33_n(MATH, bits, vc_dim, alpha, beta, epsilon, constant))


def bns15_generic_unlabeled_expr() -> Any:
    """Sympy form of :func:`bns15_generic_unlabeled` (before rounding).

    Implements: BNS15.Thm3.3 (n).

    >>> bns15_generic_unlabeled_expr()
    constant*(log(1/beta)/(alpha*epsilon) + bits*vc_dim*log(1/alpha)/(alpha**3*epsilon))
    """
    return make_expr(_thm33_n, ("bits", "vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("bits", "vc_dim"))


def _thm33_uc(ns: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    return 1250 / alpha**2 * vc_dim * ns.log(25 / (alpha * beta))


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


@renamed_params(vc="vc_dim", d="bits")
@validate_params(bits=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 constant=POSITIVE_REAL)
def bns15_thm3_3(bits: int, vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0) -> tuple[int, int]:
    """BNS15 Theorem 3.3 (GenericLearner, (eps, 0)-DP): ``(n, m)`` = total and labelled sizes, O-forms.

    Implements: BNS15.Thm3.3.

    >>> bns15_thm3_3(10, 2, 0.1, 0.05, 1.0)
    (46082, 4636)
    """
    return (bns15_generic_unlabeled(bits, vc_dim, alpha, beta, epsilon, constant=constant),
            bns15_generic_labeled(vc_dim, alpha, beta, epsilon, constant=constant))


# ---------------------------------------------------------------------------
# Claim 4.2 (LabelBoostProcedure utility)
# ---------------------------------------------------------------------------


def _cl42_log_rhs(ns: Any, s: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    # log of (beta/e) VC exp(alpha s / (2 VC))
    return ns.log(beta) - 1 + ns.log(vc_dim) + alpha * s / (2 * vc_dim)


@renamed_params(vc="vc_dim")
@validate_params(s=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, strict=Boolean(),
                 form=Options("paper", "corrected"))
def bns15_labelboost_max_unlabeled(s: int, vc_dim: int, alpha: float, beta: float, *, strict: bool = True,
                                   form: str = "corrected") -> Any:
    r"""BNS15 Claim 4.2: largest |T| with |T| <= (beta/e) VC exp(alpha|S|/(2 VC)) - |S|.

    Implements: BNS15.Cl4.2.  When it holds, LabelBoostProcedure's hypothesis has
    error_S(h) <= alpha with probability >= 1 - beta.

    ``form="corrected"`` (default): proofs_checks BNS15.Cl4.2.sauer-chain refutes the claim when
    |S| + |T| < VC (Sauer's polynomial bound needs VC points), so the corrected form also requires
    (beta/e) VC exp(alpha|S|/(2 VC)) >= VC, i.e. beta exp(alpha|S|/(2 VC)) >= e, which makes
    |Pi_C(P)| <= (e max(|P|, VC)/VC)^VC <= beta exp(alpha|S|/2) hold.  ``form="paper"``: the claim's
    own condition only.

    Parameters
    ----------
    s : int
        |S|, the number of labelled examples.
    vc_dim : int
        VC(C).
    alpha, beta : float
        In (0, 1).
    strict : bool
        Raise (default) or return a Checked when no |T| >= 0 satisfies the claim's condition.

    Returns
    -------
    int
        ``floor((beta/e) VC exp(alpha s/(2 VC)) - s)`` (huge ints are exact up to float
        precision of the exponent).

    Raises
    ------
    ConditionNotMet
        If even |T| = 0 violates the condition.
    OverflowError
        If the bound exceeds the float range (use :func:`bns15_labelboost_min_labeled`).

    Examples
    --------
    >>> t = bns15_labelboost_max_unlabeled(685, 2, 0.1, 0.05)
    >>> t, bns15_labelboost_min_labeled(t, 2, 0.1, 0.05)
    (1006243, 685)
    """
    log_rhs = float(_cl42_log_rhs(MATH, s, vc_dim, alpha, beta))

    def compute() -> int:
        rhs = safe_exp(log_rhs, "BNS15.Cl4.2 bound")
        if not math.isfinite(rhs):
            raise OverflowError("BNS15.Cl4.2 bound overflows a float")
        return math.floor(rhs - s)

    ok = log_rhs >= math.log(s)
    conds: list[Any] = [(ok, "(beta/e) VC exp(alpha |S|/(2 VC)) >= |S| (some |T| >= 0 allowed)",
                         {"s": s, "vc_dim": vc_dim, "alpha": alpha, "beta": beta})]
    if form == "corrected":
        conds.append((log_rhs >= math.log(vc_dim), "(beta/e) VC exp(alpha |S|/(2 VC)) >= VC (Sauer needs |S| + |T| >= VC; "
                      "corrected form, see proofs_checks BNS15.Cl4.2.sauer-chain)",
                      {"s": s, "vc_dim": vc_dim, "alpha": alpha, "beta": beta}))
    return check_conditions(strict, "BNS15.Cl4.2", conds, compute)


@renamed_params(vc="vc_dim")
@validate_params(t=Integer(0), vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY,
                 form=Options("paper", "corrected"))
def bns15_labelboost_min_labeled(t: int, vc_dim: int, alpha: float, beta: float, *, form: str = "corrected") -> int:
    r"""Smallest |S| >= 1 with |T| <= (beta/e) VC exp(alpha|S|/(2VC)) - |S| (BNS15 Claim 4.2, solved).

    Implements: BNS15.Cl4.2 (solver).  The right side minus |T| is convex in |S|, decreasing
    up to s0 = (2VC/alpha) ln(2e/(alpha beta)) and increasing after; the search checks
    |S| = 1 and otherwise runs the exact monotone search from floor(s0), in log space.
    ``form="corrected"`` (default, as :func:`bns15_labelboost_max_unlabeled`) also needs
    (beta/e) VC exp(alpha|S|/(2VC)) >= VC, which holds from s_vc = (2VC/alpha) ln(e/beta) on.

    Examples
    --------
    >>> bns15_labelboost_min_labeled(10**6, 2, 0.1, 0.05)
    685
    """
    def first(s: int) -> bool:
        return bool(_cl42_log_rhs(MATH, s, vc_dim, alpha, beta) >= math.log(t + s))

    def pred(s: int) -> bool:
        return first(s) and (form == "paper" or bool(_cl42_log_rhs(MATH, s, vc_dim, alpha, beta) >= math.log(vc_dim)))

    s_vc = 1 if form == "paper" else smallest_integer(
        lambda s: bool(_cl42_log_rhs(MATH, s, vc_dim, alpha, beta) >= math.log(vc_dim)), 1)
    if pred(s_vc):
        return s_vc  # the first condition holds at s_vc, and below it the second fails (or s_vc = 1)
    s0 = max(s_vc, int(2 * vc_dim / alpha * math.log(2 * math.e / (alpha * beta))))
    return smallest_integer(pred, s0)


# ---------------------------------------------------------------------------
# LabelBoost: Claims 4.8, 4.9, 4.11, Remark 4.10, Lemma 4.12, Theorems 4.13/4.14/4.16
# ---------------------------------------------------------------------------


@validate_params(n=POSITIVE_INT)
def bns15_labelboost_unlabeled_size(n: int) -> int:
    """BNS15 Claim 4.8: |D| >= 90000 n unlabelled points make LabelBoost never fail on Step 2b.

    Implements: BNS15.Cl4.8 (constant 90000 = 30000 + 30000 * sum 2^-i).

    >>> bns15_labelboost_unlabeled_size(100)
    9000000
    """
    return 90000 * n


def _cl49(ns: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    return 96000 / alpha * vc_dim * ns.log(2240 / (alpha * beta))


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY)
def bns15_labelboost_labeled_size(vc_dim: int, alpha: float, beta: float) -> int:
    r"""BNS15 Claims 4.9/4.11, Lemma 4.12: labelled size |S| >= (96000/alpha) VC log(2240/(alpha beta)).

    Implements: BNS15.Cl4.9 (initial |S|; also the m of Lem 4.12 / Thm 4.13 with explicit
    constants).

    Examples
    --------
    >>> bns15_labelboost_labeled_size(2, 0.1, 0.05)
    24984094
    """
    return ceil_int(_cl49(MATH, vc_dim, alpha, beta))


def bns15_labelboost_labeled_size_expr() -> Any:
    """Sympy form of :func:`bns15_labelboost_labeled_size` (before rounding).

    Implements: BNS15.Cl4.9.

    >>> bns15_labelboost_labeled_size_expr()
    96000*vc_dim*log(2240/(alpha*beta))/alpha
    """
    return make_expr(_cl49, ("vc_dim", "alpha", "beta"), integer=("vc_dim",))


def _alpha_i(alpha: float, i: int) -> float:
    return alpha / (10 * 2**i)


def _beta_i(beta: float, i: int) -> float:
    return beta / (4 * 2**i)


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, i=POSITIVE_INT)
def bns15_labelboost_iteration_size(vc_dim: int, alpha: float, beta: float, i: int) -> int:
    r"""BNS15 Claim 4.9: in iteration i, |S_i^b| >= (4800/alpha_i) VC log(14/(alpha_i beta_i)).

    Implements: BNS15.Cl4.9, with alpha_i = alpha/(10 2^i), beta_i = beta/(4 2^i).

    Examples
    --------
    >>> bns15_labelboost_iteration_size(2, 0.1, 0.05, 1)
    24984094
    """
    a, b = _alpha_i(alpha, i), _beta_i(beta, i)
    return ceil_int(4800 / a * vc_dim * math.log(14 / (a * b)))


class LabelBoostIteration(NamedTuple):
    """One iteration of LabelBoost (Algorithm 3): sizes after steps 2b and 2c/2e."""

    i: int
    alpha_i: float
    beta_i: float
    s_before: int
    v: int
    s_after: int


@renamed_params(vc="vc_dim")
@validate_params(n=POSITIVE_INT, m=POSITIVE_INT, vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY,
                 strict=Boolean())
def bns15_labelboost_schedule(n: int, m: int, vc_dim: int, alpha: float, beta: float, *, strict: bool = True) -> Any:
    r"""The size schedule of LabelBoost (BNS15 Algorithm 3) and its number of iterations (Remark 4.10).

    Implements: BNS15.Rem4.10 (number of iterations, O(log* n)) and BNS15.Cl4.8 (total T used).
    Iteration i: v = min(30000 n, beta_i VC exp(alpha_i |S|/(200 VC)) - |S|) (floored);
    then 99/100 of S and of T are deleted (we keep ceil(|X|/100) entries) and S <- S u T;
    the loop runs while |S| < 300 n.

    Parameters
    ----------
    n : int
        Sample complexity of the base learner A.
    m : int
        Initial number of labelled examples |S|.
    vc_dim : int
        VC(C).
    alpha, beta : float
        Target accuracy and confidence.
    strict : bool
        Raise (default) or return a Checked when the schedule stalls (v <= 0 or |S| does not
        grow) or uses more than 90000 n unlabelled points.

    Returns
    -------
    list of LabelBoostIteration

    Examples
    --------
    >>> m = bns15_labelboost_labeled_size(1, 0.1, 0.1)
    >>> [(it.i, it.v, it.s_after) for it in bns15_labelboost_schedule(10**6, m, 1, 0.1, 0.1)]
    [(1, 30000000000, 300118267)]
    """
    its: list[LabelBoostIteration] = []
    s = m
    used = 0
    problem = ""
    i = 1
    while s < 300 * n:
        a, b = _alpha_i(alpha, i), _beta_i(beta, i)
        log_rhs = math.log(b * vc_dim) + a * s / (200 * vc_dim)
        cap = 30000 * n
        v = cap if log_rhs > math.log(cap + s) else math.floor(math.exp(log_rhs) - s)
        if v <= 0:
            problem = f"iteration {i}: v = {v} <= 0 (|S| = {s} too small for alpha_i = {a:.3g})"
            break
        used += v
        s_new = -(-s // 100) + -(-v // 100)
        its.append(LabelBoostIteration(i, a, b, s, v, s_new))
        if s_new <= s and s_new < 300 * n:
            problem = f"iteration {i}: |S| stopped growing ({s} -> {s_new})"
            break
        s = s_new
        i += 1
        if i > 10_000:
            problem = "more than 10000 iterations"
            break
    conds = [(not problem, "LabelBoost makes progress: " + (problem or "ok"), {"n": n, "m": m}),
             (used <= 90000 * n, "total |T| <= 90000 n (Claim 4.8)", {"used": used, "n": n})]
    return check_conditions(strict, "BNS15.Rem4.10", conds, lambda: its)


@validate_params(alpha=PROBABILITY, beta=PROBABILITY, i=POSITIVE_INT)
def bns15_labelboost_error_after(alpha: float, beta: float, i: int) -> tuple[float, float]:
    r"""BNS15 Claim 4.11: after i iterations, error_mu(c, h_i) <= 10 sum alpha_j w.p. >= 1 - 2 sum beta_j.

    Implements: BNS15.Cl4.11.  With alpha_j = alpha/(10 2^j), beta_j = beta/(4 2^j):
    10 sum_{j<=i} alpha_j = alpha (1 - 2^-i) and 2 sum_{j<=i} beta_j = (beta/2)(1 - 2^-i).

    Returns
    -------
    (error, failure_probability)

    Examples
    --------
    >>> bns15_labelboost_error_after(0.1, 0.1, 1)
    (0.05, 0.025)
    """
    err = 10 * sum(_alpha_i(alpha, j) for j in range(1, i + 1))
    fail = 2 * sum(_beta_i(beta, j) for j in range(1, i + 1))
    return (err, fail)


class LearnerParams(NamedTuple):
    """Parameters (alpha, beta, epsilon, delta, n, m) of a learner produced by a theorem.

    ``alpha`` and ``beta`` are the *output* learner's accuracy and confidence.  A theorem that
    transforms them (LabelBoost turns an (alpha, beta) learner into an (11 alpha, 2 beta) one)
    says so in ``alpha_factor`` and ``beta_factor``: the result's ``alpha`` is ``alpha_factor``
    times the alpha given (1.0: unchanged).  ``vacuous`` is True when the guarantee says nothing
    (an error or failure probability >= 1, or a sample size >= 10^30), with ``reason``.
    """

    alpha: float
    beta: float
    epsilon: float | None
    delta: float | None
    n: int
    m: int
    alpha_factor: float = 1.0
    beta_factor: float = 1.0

    @property
    def vacuous(self) -> bool:
        """True when alpha or beta is >= 1 or a size is at least ``VACUOUS_SIZE``."""
        return bool(self.reason)

    @property
    def reason(self) -> str:
        """Why the guarantee is vacuous, or ``""``."""
        for name in ("alpha", "beta"):
            bound = ProbabilityBound(getattr(self, name))
            if bound.vacuous:
                return f"{name} = {float(bound):g}: {bound.reason}"
        for name in ("n", "m"):
            size = SampleSize(getattr(self, name))
            if size.vacuous:
                return f"{name}: {size.reason}"
        return ""


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, n=POSITIVE_INT)
def bns15_lem4_12(vc_dim: int, alpha: float, beta: float, n: int) -> LearnerParams:
    r"""BNS15 Lemma 4.12: LabelBoost on an (alpha, beta, n, n)-SSL is an (11 alpha, 2 beta, 90000n + m, m)-SSL.

    Implements: BNS15.Lem4.12 with the explicit constants of its proof:
    m = (96000/alpha) VC log(2240/(alpha beta)), |D| = 90000 n (so n_total = 90000 n + m).

    Examples
    --------
    >>> bns15_lem4_12(1, 0.01, 0.1, 1000)
    LearnerParams(alpha=0.11, beta=0.2, epsilon=None, delta=None, n=230371070, m=140371070, alpha_factor=11.0, beta_factor=2.0)
    """
    m = bns15_labelboost_labeled_size(vc_dim, alpha, beta)
    return LearnerParams(11 * alpha, 2 * beta, None, None, SampleSize(90000 * n + m), m, alpha_factor=11.0,
                         beta_factor=2.0)


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, delta=DELTA, n=POSITIVE_INT)
def bns15_thm4_13(vc_dim: int, alpha: float, beta: float, delta: float, n: int) -> LearnerParams:
    r"""BNS15 Theorem 4.13: LabelBoost on an (alpha, beta, 1, delta, n, n)-PSSL -> (11a, 2b, 1, 41 delta, O(n), m)-PSSL.

    Implements: BNS15.Thm4.13 = Lem 4.12 (utility, explicit constants) + Lem 4.6 (privacy).

    Examples
    --------
    >>> bns15_thm4_13(1, 0.01, 0.1, 1e-6, 1000).delta
    4.1e-05
    """
    r = bns15_lem4_12(vc_dim, alpha, beta, n)
    return r._replace(epsilon=1.0, delta=labelboost_privacy(delta).claimed_delta)


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, delta=DELTA,
                 n=POSITIVE_INT, strict=Boolean())
def bns15_thm4_14_explicit(vc_dim: int, alpha: float, beta: float, epsilon: float, delta: float, n: int,
                           *, strict: bool = True) -> Any:
    r"""BNS15 Theorem 4.14 made explicit: Thm 4.13 followed by sub-sampling (Claim 4.3) from eps* = 1 to eps.

    Implements: BNS15.Thm4.14 (explicit composition).  The (11a, 2b, 1, 41 delta, N, m)-PSSL
    of Thm 4.13 (N = 90000 n + m) is run on a random N-subset of t = (N/eps)(3 + e) points;
    the labelled part scales the same way (m' = ceil(m (3+e)/eps)).  Result:
    (lambda alpha, lambda beta, eps, 4 eps/(3+e) * 41 delta, t, m') with lambda = 11 for
    alpha and 2 for beta.  Note: the privacy delta is 164 eps/(3+e) delta ~ 28.7 eps delta,
    so the theorem's "(eps, delta)" holds after rescaling the base learner's delta.

    Raises
    ------
    ConditionNotMet
        If ``epsilon > 1`` (Claim 4.3).

    Examples
    --------
    >>> r = bns15_thm4_14_explicit(1, 0.01, 0.1, 0.5, 1e-6, 1000)
    >>> r.alpha, r.beta, r.m, round(r.delta / 1e-6, 3)
    (0.11, 0.2, 1605362678, 14.34)
    """
    base = bns15_thm4_13(vc_dim, alpha, beta, delta, n)

    def compute() -> LearnerParams:
        sub = subsampling_privacy(base.n, 1.0, base.delta or 0.0, epsilon)
        m = ceil_int(base.m * (3 + math.e) / epsilon)
        return base._replace(epsilon=sub.epsilon, delta=sub.delta, n=sub.t, m=m)

    return check_conditions(strict, "BNS15.Thm4.14", [(epsilon <= 1, "epsilon <= 1 (Claim 4.3)",
                                                       {"epsilon": epsilon})], compute)


def _thm414(ns: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * vc_dim / (alpha * epsilon) * ns.log(1 / (alpha * beta))


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def bns15_thm4_14_labeled(vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""BNS15 Thm 4.14 labelled size m = O(VC/(alpha eps) log(1/(alpha beta))).

    Implements: BNS15.Thm4.14 (O-form; ``constant`` defaults to 1; see
    :func:`bns15_thm4_14_explicit` for the constants the proof gives).

    Examples
    --------
    >>> bns15_thm4_14_labeled(2, 0.1, 0.05, 1.0)
    106
    """
    return ceil_int(_thm414(MATH, vc_dim, alpha, beta, epsilon, constant))


def bns15_thm4_14_labeled_expr() -> Any:
    """Sympy form of :func:`bns15_thm4_14_labeled`.

    Implements: BNS15.Thm4.14.

    >>> bns15_thm4_14_labeled_expr()
    constant*vc_dim*log(1/(alpha*beta))/(alpha*epsilon)
    """
    return make_expr(_thm414, ("vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("vc_dim",))


def _thm416(ns: Any, vc_dim: Any, alpha: Any, beta: Any, epsilon: Any, constant: Any = 1) -> Any:
    return constant * vc_dim / (alpha**2 * epsilon) * ns.log(1 / (alpha * beta))


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, constant=POSITIVE_REAL)
def bns15_thm4_16_labeled(vc_dim: int, alpha: float, beta: float, epsilon: float, *, constant: float = 1.0) -> int:
    r"""BNS15 Thm 4.16 (agnostic) labelled size m = O(VC(F)/(alpha^2 eps) log(1/(alpha beta))).

    Implements: BNS15.Thm4.16 (O-form, ``constant`` defaults to 1).

    Examples
    --------
    >>> bns15_thm4_16_labeled(2, 0.1, 0.05, 1.0)
    1060
    """
    return ceil_int(_thm416(MATH, vc_dim, alpha, beta, epsilon, constant))


def bns15_thm4_16_labeled_expr() -> Any:
    """Sympy form of :func:`bns15_thm4_16_labeled`.

    Implements: BNS15.Thm4.16.

    >>> bns15_thm4_16_labeled_expr()
    constant*vc_dim*log(1/(alpha*beta))/(alpha**2*epsilon)
    """
    return make_expr(_thm416, ("vc_dim", "alpha", "beta", "epsilon", "constant"), integer=("vc_dim",))


@validate_params(x=Integer(1))
def log_star(x: int) -> int:
    """Iterated base-2 logarithm: how many times log2 must be applied to get <= 1.

    >>> log_star(1), log_star(2), log_star(16), log_star(65536), log_star(65537)
    (0, 1, 3, 4, 5)
    """
    k = 0
    v = float(x)
    while v > 1.0:
        v = math.log2(v)
        k += 1
    return k


@renamed_params(d="bits")
@validate_params(ell=POSITIVE_INT, bits=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 constant=POSITIVE_REAL)
def bns15_rectangles(ell: int, bits: int, alpha: float, beta: float, epsilon: float, *,
                     constant: float = 1.0) -> tuple[int, int]:
    r"""BNS15 Cor 4.17: RECTANGLE_d^ell: unlabelled O~(ell^3 8^{log* d}), labelled O_{a,b,eps}(ell).

    Implements: BNS15.Cor4.17.  The paper hides the (alpha, beta, epsilon, delta) dependence;
    we return ``(ceil(constant * ell^3 * 8^{log* d}), bns15_thm4_14_labeled(2 ell, ...))``:
    the unlabelled size with the tilde and the parameters absorbed in ``constant``, the
    labelled size from Thm 4.14 with VC = 2 ell.

    Examples
    --------
    >>> bns15_rectangles(2, 64, 0.1, 0.05, 1.0)
    (32768, 212)
    """
    unl = ceil_int(constant * ell**3 * 8.0 ** log_star(bits))
    return (unl, bns15_thm4_14_labeled(2 * ell, alpha, beta, epsilon, constant=constant))


@renamed_params(vc="vc_dim")
@validate_params(vc_dim=POSITIVE_INT, repdim=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 constant=POSITIVE_REAL)
def bns15_cor4_18(vc_dim: int, repdim: int, alpha: float, beta: float, epsilon: float, *,
                  constant: float = 1.0) -> tuple[int, int]:
    r"""BNS15 Cor 4.18: pure-private improper SSL with labelled O(VC(C)) and unlabelled O(RepDim(C)).

    Implements: BNS15.Cor4.18.  Returns ``(unlabelled, labelled)`` =
    ``(ceil(constant * RepDim/(alpha eps) log(1/(alpha beta))), bns15_thm4_14_labeled(VC, ...))``:
    the paper hides the alpha, beta, epsilon dependence of the RepDim learner; we use the
    Thm 4.14 form with RepDim in place of VC (documented choice, scaled by ``constant``).

    Examples
    --------
    >>> bns15_cor4_18(1, 3, 0.1, 0.05, 1.0)
    (159, 53)
    """
    unl = ceil_int(constant * repdim / (alpha * epsilon) * math.log(1 / (alpha * beta)))
    return (unl, bns15_thm4_14_labeled(vc_dim, alpha, beta, epsilon, constant=constant))


# ---------------------------------------------------------------------------
# Section 5: active learners
# ---------------------------------------------------------------------------


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

_VC = Param("vc_dim", POSITIVE_INT, "VC dimension of the concept class", integer=True, typical=(1, 20))
_ALPHA = Param("alpha", PROBABILITY, "accuracy parameter in (0, 1)", typical=(0.01, 0.5))
_BETA = Param("beta", PROBABILITY, "confidence parameter in (0, 1)", typical=(0.001, 0.5))
_EPS = Param("epsilon", EPSILON, "privacy parameter epsilon > 0", typical=(0.05, 5.0))
_DELTA = Param("delta", DELTA, "privacy parameter delta in [0, 1)", typical=(0.0, 1e-3), default=0.0,
               required=False)
_CONST = Param("constant", POSITIVE_REAL, "hidden constant of the O(.) (default 1)", typical=(0.5, 5.0),
               default=1.0, required=False)
_NBASE = Param("n", POSITIVE_INT, "sample complexity of the base learner", integer=True, typical=(1, 10**6))

register(Bound("BNS15.Thm3.3", "GenericLearner (n, m): O(d VC/(a^3 eps) log(1/a) + ...), O(VC/(a^3 eps) log(1/a) + ...)",
               (Param("bits", POSITIVE_INT, "bits per domain point (X_d = {0,1}^d)", integer=True, typical=(1, 64)),
                _VC, _ALPHA, _BETA, _EPS, _CONST), bns15_thm3_3, None, None, "(n, m)",
               monotone={"bits": +1, "vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"bits": 10, "vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}))
register(Bound("BNS15.Thm3.3.m", "GenericLearner labelled size O(VC/(a^3 eps) log(1/a) + log(1/b)/(a eps))",
               (_VC, _ALPHA, _BETA, _EPS, _CONST), bns15_generic_labeled, bns15_generic_labeled_expr, _thm33_m,
               "m (int)", monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("BNS15.Thm3.3.n", "GenericLearner total size O(d VC/(a^3 eps) log(1/a) + log(1/b)/(a eps))",
               (Param("bits", POSITIVE_INT, "bits per domain point (X_d = {0,1}^d)", integer=True, typical=(1, 64)),
                _VC, _ALPHA, _BETA, _EPS, _CONST), bns15_generic_unlabeled, bns15_generic_unlabeled_expr, _thm33_n,
               "n (int)", monotone={"bits": +1, "vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"bits": 10, "vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("BNS15.Thm3.3.uc", "explicit floor of the Thm 3.3 proof: (1250/a^2) VC ln(25/(a b))",
               (_VC, _ALPHA, _BETA), bns15_generic_uniform_convergence_size, None, _thm33_uc, "n, m floor (int)",
               monotone={"vc_dim": +1, "alpha": -1, "beta": -1}, example={"vc_dim": 1, "alpha": 0.1, "beta": 0.1},
               integer_output=True))
register(Bound("BNS15.Cl4.2", "LabelBoostProcedure: |T| <= (b/e) VC exp(a|S|/(2VC)) - |S| gives error_S <= a w.p. 1-b",
               (Param("s", POSITIVE_INT, "|S|, labelled examples", integer=True, typical=(1, 5000)), _VC, _ALPHA,
                _BETA, Param("form", Options("paper", "corrected"), "'corrected' (default: also needs (b/e) VC "
                             "exp(a|S|/(2VC)) >= VC, the claim being refuted below it) or 'paper'",
                             default="corrected", required=False)), bns15_labelboost_max_unlabeled, None,
               lambda ns, s, vc_dim, alpha, beta, form="corrected": ns.exp(_cl42_log_rhs(ns, s, vc_dim, alpha, beta)) - s,
               "largest |T| (int)",
               solvers={"s": Solver("s", bns15_labelboost_min_labeled,
                                    (Param("t", Integer(0), "|T|, unlabelled examples to label", integer=True,
                                           typical=(0, 10**7)), _VC, _ALPHA, _BETA),
                                    "smallest |S| allowing the given |T|")},
               monotone={"beta": +1}, example={"s": 2000, "vc_dim": 2, "alpha": 0.1, "beta": 0.05}))
register(Bound("BNS15.Cl4.8", "LabelBoost never fails on step 2b if |D| >= 90000 n", (_NBASE,),
               bns15_labelboost_unlabeled_size, None, None, "|D| (int)", monotone={"n": +1}, example={"n": 100},
               integer_output=True))
register(Bound("BNS15.Cl4.9", "LabelBoost labelled size |S| >= (96000/a) VC log(2240/(a b))", (_VC, _ALPHA, _BETA),
               bns15_labelboost_labeled_size, bns15_labelboost_labeled_size_expr, _cl49, "|S| (int)",
               monotone={"vc_dim": +1, "alpha": -1, "beta": -1}, example={"vc_dim": 2, "alpha": 0.1, "beta": 0.05},
               integer_output=True))
register(Bound("BNS15.Rem4.10", "LabelBoost iteration schedule (number of iterations O(log* n))",
               (_NBASE, Param("m", POSITIVE_INT, "initial labelled size", integer=True, typical=(1, 10**8)), _VC,
                _ALPHA, _BETA), bns15_labelboost_schedule, None, None, "list of LabelBoostIteration",
               example={"n": 10**8, "m": 30131869, "vc_dim": 1, "alpha": 0.1, "beta": 0.1}))
register(Bound("BNS15.Cl4.11", "after i iterations error <= a(1-2^-i) w.p. >= 1-(b/2)(1-2^-i)",
               (_ALPHA, _BETA, Param("i", POSITIVE_INT, "iteration", integer=True, typical=(1, 30))),
               bns15_labelboost_error_after, None, None, "(error, failure probability)",
               example={"alpha": 0.1, "beta": 0.1, "i": 1}))
register(Bound("BNS15.Lem4.12", "LabelBoost: (a,b,n,n)-SSL -> (11a, 2b, 90000n+m, m)-SSL, m=(96000/a)VC log(2240/(ab))",
               (_VC, _ALPHA, _BETA, _NBASE), bns15_lem4_12, None, None, "LearnerParams of the OUTPUT learner: its alpha is 11 x the input alpha, its beta 2 x the input beta "
               "(the result says so: alpha_factor = 11, beta_factor = 2; vacuous when alpha or beta >= 1)",
               example={"vc_dim": 1, "alpha": 0.1, "beta": 0.1, "n": 1000}))
register(Bound("BNS15.Thm4.13", "LabelBoost on (a,b,1,delta,n,n)-PSSL -> (11a, 2b, 1, 41 delta, O(n), m)-PSSL",
               (_VC, _ALPHA, _BETA, Param("delta", DELTA, "delta of the base learner", typical=(0.0, 1e-3)), _NBASE),
               bns15_thm4_13, None, None, "LearnerParams of the OUTPUT learner: its alpha is 11 x the input alpha, its beta 2 x the input beta "
               "(the result says so: alpha_factor = 11, beta_factor = 2; vacuous when alpha or beta >= 1)",
               example={"vc_dim": 1, "alpha": 0.1, "beta": 0.1, "delta": 1e-6, "n": 1000}))
register(Bound("BNS15.Thm4.14", "labelled m = O(VC/(a eps) log(1/(a b))) for any eps (LabelBoost + sub-sampling)",
               (_VC, _ALPHA, _BETA, _EPS, _CONST), bns15_thm4_14_labeled, bns15_thm4_14_labeled_expr, _thm414,
               "m (int)", monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("BNS15.Thm4.14.explicit", "Thm 4.13 + Claim 4.3 with every constant (eps <= 1)",
               (_VC, _ALPHA, _BETA, Param("epsilon", EPSILON, "target epsilon (<= 1)", typical=(0.05, 1.0)),
                Param("delta", DELTA, "delta of the base learner", typical=(0.0, 1e-3)), _NBASE),
               bns15_thm4_14_explicit, None, None, "LearnerParams of the OUTPUT learner: its alpha is 11 x the input alpha, its beta 2 x the input beta "
               "(the result says so: alpha_factor = 11, beta_factor = 2; vacuous when alpha or beta >= 1)",
               example={"vc_dim": 1, "alpha": 0.1, "beta": 0.1, "epsilon": 0.5, "delta": 1e-6, "n": 1000}))
register(Bound("BNS15.Thm4.16", "agnostic labelled m = O(VC/(a^2 eps) log(1/(a b)))",
               (_VC, _ALPHA, _BETA, _EPS, _CONST), bns15_thm4_16_labeled, bns15_thm4_16_labeled_expr, _thm416,
               "m (int)", monotone={"vc_dim": +1, "alpha": -1, "beta": -1, "epsilon": -1, "constant": +1},
               example={"vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}, integer_output=True))
register(Bound("BNS15.Cor4.17", "RECTANGLE_d^ell: unlabelled O~(ell^3 8^(log* d)), labelled O(ell)",
               (Param("ell", POSITIVE_INT, "dimension ell", integer=True, typical=(1, 10)),
                Param("bits", POSITIVE_INT, "bits per axis", integer=True, typical=(1, 64)), _ALPHA, _BETA, _EPS, _CONST),
               bns15_rectangles, None, None, "(unlabelled, labelled)",
               example={"ell": 2, "bits": 64, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}))
register(Bound("BNS15.Cor4.18", "pure-private improper SSL: labelled O(VC), unlabelled O(RepDim)",
               (_VC, Param("repdim", POSITIVE_INT, "representation dimension", integer=True, typical=(1, 50)), _ALPHA,
                _BETA, _EPS, _CONST), bns15_cor4_18, None, None, "(unlabelled, labelled)",
               example={"vc_dim": 1, "repdim": 3, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}))
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

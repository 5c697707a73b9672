"""BNS15 Section 4: LabelBoost's sample sizes and accuracy (Claims 4.2, 4.8, 4.9, 4.11, Remark 4.10,
Lemma 4.12, Theorems 4.13, 4.14, 4.16, Corollaries 4.17, 4.18).

Implements: BNS15.Cl4.2, BNS15.Cl4.8, BNS15.Cl4.9, BNS15.Rem4.10, BNS15.Cl4.11, BNS15.Lem4.12,
BNS15.Thm4.13, BNS15.Thm4.14, BNS15.Thm4.16, BNS15.Cor4.17, BNS15.Cor4.18.  "log" is natural
throughout; the LabelBoost constants (90000, 30000, 300, 96000, 2240, ...) are the paper's, used
as written.  The privacy side (Lem 4.1, Cl 4.3, Cl 4.5, Lem 4.6) is in
:mod:`semiprivate.theory.bounds.privacy`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from semiprivate.theory.bounds._core import (
    MATH,
    Bound,
    Param,
    ProbabilityBound,
    SampleSize,
    Solver,
    broadcasts,
    ceil_int,
    check_conditions,
    make_expr,
    register,
    renamed_params,
    safe_exp,
    smallest_integer,
)
from semiprivate.theory.bounds.bns15._params import _ALPHA, _BETA, _CONST, _EPS, _NBASE, _VC
from semiprivate.theory.bounds.privacy import labelboost_privacy, subsampling_privacy
from semiprivate.validation import (
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

__all__ = [
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
]


# ---------------------------------------------------------------------------
# Claim 4.2 (LabelBoostProcedure utility)
# ---------------------------------------------------------------------------


def _cl42_log_rhs(ns: Any, s: Any, vc_dim: Any, alpha: Any, beta: Any) -> Any:
    # log of (beta/e) VC exp(alpha s / (2 VC))
    return ns.log(beta) - 1 + ns.log(vc_dim) + alpha * s / (2 * vc_dim)


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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


@broadcasts
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
# registry
# ---------------------------------------------------------------------------

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

"""HPSY Section 3: halfspaces via PCA (Theorem 3).

Implements: HPSY.Thm3.  "log" is natural.  The Sec 3.3 comparison baselines (BST14, ABM19, JL) are
in :mod:`semiprivate.theory.bounds.classic`, the comparison table in
:mod:`semiprivate.theory.bounds.compare`.
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
from semiprivate.theory.bounds.hpsy._params import (
    _ALPHA,
    _BETA,
    _CONST,
    _EPS,
    _FORM_PC,
    SemiPrivateSampleSizes,
)
from semiprivate.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    Boolean,
    Options,
    Real,
    validate_params,
)

__all__ = [
    "hpsy_thm3",
    "hpsy_thm3_unlabeled",
    "hpsy_thm3_unlabeled_expr",
    "hpsy_thm3_labeled",
    "hpsy_thm3_labeled_expr",
]


# ---------------------------------------------------------------------------
# Theorem 3 (halfspaces via PCA)
# ---------------------------------------------------------------------------


def _thm3_unl(ns: Any, k: Any, dim: Any, beta: Any, gamma: Any, constant: Any = 1, form: str = "paper",
              alpha: Any = None) -> Any:
    if form == "corrected":  # proofs_checks HPSY.Thm3.n_unl: Markov at alpha/2 (constant = c1^2)
        return constant * 64 * k * dim / (beta * alpha**2 * gamma**4)
    return constant * k * dim / (beta * gamma**2)


def _thm3_lab(ns: Any, k: Any, alpha: Any, beta: Any, epsilon: Any, gamma: Any, eta: Any, constant: Any = 1) -> Any:
    return constant * ns.sqrt(k) / (alpha * epsilon * (gamma - ns.sqrt(eta / beta)))


def _thm3_conditions(k: int, dim: int | None, gamma: float, eta: float | None, beta: float) -> list[Any]:
    conds: list[Any] = [(gamma < 1, "gamma in (0, 1)", {"gamma": gamma})]
    if dim is not None:
        conds.append((k <= dim, "k <= d", {"k": k, "dim": dim}))
    if eta is not None:
        conds.append((gamma > math.sqrt(eta / beta), "gamma > sqrt(eta/beta) (the projected margin is positive)",
                      {"gamma": gamma, "eta": eta, "beta": beta}))
    return conds


@broadcasts
@renamed_params(d="dim")
@validate_params(k=POSITIVE_INT, dim=POSITIVE_INT, beta=PROBABILITY, gamma=POSITIVE_REAL, constant=POSITIVE_REAL,
                 strict=Boolean(), form=Options("paper", "corrected"))
def hpsy_thm3_unlabeled(k: int, dim: int, beta: float, gamma: float, *, alpha: float | None = None,
                        constant: float = 1.0, strict: bool = True, form: str = "paper") -> Any:
    r"""HPSY Thm 3 unlabelled size n_unl = O(k d/(beta gamma^2)).

    Implements: HPSY.Thm3 (n_unl).  O-form; ``constant`` defaults to 1.

    ``form="paper"`` (default, the stated size used by the registry and tables) is not
    established by the paper's proof (proofs_checks HPSY.Thm3.n_unl: at C kd/(beta gamma^2) the
    proof's margin loss exceeds gamma for small beta gamma); it is not refuted as a statement
    either (with eta = 0 the data span k dimensions), so it stays the default.
    ``form="corrected"`` (needs ``alpha``): what the proof's steps give once the per-point
    Markov step is taken at level alpha/2 (its mass charged to the error, proofs_checks
    HPSY.Thm3.per-point-margin), ``constant * 64 k d/(beta alpha^2 gamma^4)`` (``constant`` =
    c1^2 of Eq. (10)): then c1 sqrt(dk/(beta n)) <= alpha gamma^2/8 and the projected margin is
    >= gamma/2 - sqrt(2 eta/alpha) outside a set of mass alpha/2.

    Raises
    ------
    ConditionNotMet
        If k > d or gamma >= 1.
    ValueError
        If ``form="corrected"`` and ``alpha`` is not in (0, 1).

    Examples
    --------
    >>> hpsy_thm3_unlabeled(5, 100, 0.1, 0.5)
    20000
    >>> hpsy_thm3_unlabeled(5, 100, 0.1, 0.5, alpha=0.01, form="corrected")
    51200000000
    """
    if form == "corrected":
        if alpha is None or isinstance(alpha, bool) or not isinstance(alpha, (int, float)) \
                or not 0.0 < float(alpha) < 1.0:
            raise ValueError(f"alpha must be in (0, 1) for form='corrected', got {alpha!r}")
    return check_conditions(strict, "HPSY.Thm3", _thm3_conditions(k, dim, gamma, None, beta),
                            lambda: ceil_int(_thm3_unl(MATH, k, dim, beta, gamma, constant, form, alpha)))


def hpsy_thm3_unlabeled_expr() -> Any:
    """Sympy form of :func:`hpsy_thm3_unlabeled`.

    Implements: HPSY.Thm3.

    >>> hpsy_thm3_unlabeled_expr()
    constant*dim*k/(beta*gamma**2)
    """
    return make_expr(_thm3_unl, ("k", "dim", "beta", "gamma", "constant"), integer=("k", "dim"))


#: Eq. (10)'s deviation constant c1: sup_A |R(A) - R_hat(A)| < 4 sqrt(kd/(beta n)) w.p. >= 1 - beta/4, as the
#: certified chain of proofs_checks HPSY.Thm3.chebyshev-arithmetic gives it (Chebyshev at 2/sqrt(beta n), times
#: sqrt(d-k) <= 2 sqrt(kd)); the paper leaves it unnamed.
THM3_C1 = 4.0


def _thm3_lab_corrected(k: float, alpha: float, beta: float, epsilon: float, gamma: float, eta: float,
                        dim: float, n_unl: float, constant: float, c1: float) -> tuple[float, float]:
    """(n_lab, projected margin) of the corrected Thm 3: Markov at level alpha/2 (mass charged to the error)."""
    margin = gamma - math.sqrt(2.0 * (c1 * math.sqrt(dim * k / (beta * n_unl)) + eta) / alpha)
    if margin <= 0.0:
        return math.inf, margin
    return constant * math.sqrt(k) / (alpha * epsilon * margin), margin


@broadcasts
@validate_params(k=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON, gamma=POSITIVE_REAL,
                 eta=Real(0.0, math.inf), constant=POSITIVE_REAL, strict=Boolean(), form=Options("paper", "corrected"),
                 c1=POSITIVE_REAL)
def hpsy_thm3_labeled(k: int, alpha: float, beta: float, epsilon: float, gamma: float, eta: float, *,
                      constant: float = 1.0, strict: bool = True, form: str = "paper", dim: int | None = None,
                      n_unl: int | None = None, c1: float = THM3_C1) -> Any:
    r"""HPSY Thm 3 labelled size n_lab = O(sqrt(k)/(alpha eps (gamma - sqrt(eta/beta)))).

    Implements: HPSY.Thm3 (n_lab).  O-form; ``constant`` defaults to 1.  Independent of d.

    ``form="paper"`` (default): the stated size, margin gamma - sqrt(eta/beta). The paper's proof does not
    give that margin at its n_unl (proofs_checks HPSY.Thm3.n_unl, HPSY.Thm3.per-point-margin).
    ``form="corrected"`` (needs ``dim`` and ``n_unl``): what the proof's certified steps give once the
    per-point Markov step is taken at level alpha/2, its mass charged to the error: the projected margin
    is gamma' = gamma - sqrt(2 (c1 sqrt(dim k/(beta n_unl)) + eta)/alpha) and n_lab = ``constant`` sqrt(k)/
    (alpha eps gamma'), with c1 = 4 from Eq. (10) (:data:`THM3_C1`). With c1 = 1 -- the value the O-forms
    implicitly use -- the unlabelled size that makes c1 sqrt(dk/(beta n)) <= alpha gamma^2/8 comes out
    c1^2 = 16 times too small: at ``hpsy_thm3_unlabeled(form="corrected")``'s default ``constant = 1``
    pass ``constant = 16`` (= c1^2) to get the size the certified steps support.

    Parameters
    ----------
    k : int
        Projection dimension.
    alpha, beta : float
        Accuracy and confidence.
    epsilon : float
        Privacy (the learner is (eps, delta)-DP through noisy SGD; delta enters only via logs
        hidden in the O).
    gamma : float
        Margin in (0, 1).
    eta : float
        Tail eigenvalue mass sum_{i>k} lambda_i(Sigma_X) >= 0.
    constant : float
        Hidden constant.
    strict : bool
        Raise (default) or return a Checked when a hypothesis fails.
    form : {"paper", "corrected"}
        Which statement.
    dim, n_unl : int, optional
        Ambient dimension and unlabelled sample size (``form="corrected"`` only).
    c1 : float
        Eq. (10)'s deviation constant (``form="corrected"`` only), default 4.

    Raises
    ------
    ConditionNotMet
        If gamma <= sqrt(eta/beta) (no margin left after projection), gamma >= 1, or, in the corrected
        form, the projected margin gamma' is not positive.
    ValueError
        If ``form="corrected"`` and ``dim`` or ``n_unl`` is not a positive integer.

    Examples
    --------
    >>> hpsy_thm3_labeled(5, 0.1, 0.1, 1.0, 0.5, 0.001)
    56
    >>> hpsy_thm3_labeled(5, 0.1, 0.1, 1.0, 0.5, 0.0, form="corrected", dim=100, n_unl=10**9)
    291
    """
    if form == "corrected":
        for name, val in (("dim", dim), ("n_unl", n_unl)):
            if isinstance(val, bool) or not isinstance(val, int) or val < 1:
                raise ValueError(f"{name} must be a positive integer for form='corrected', got {val!r}")
        assert dim is not None and n_unl is not None
        n_lab, margin = _thm3_lab_corrected(k, alpha, beta, epsilon, gamma, eta, dim, n_unl, constant, c1)
        conds = _thm3_conditions(k, dim, gamma, None, beta) + [
            (margin > 0, "projected margin gamma - sqrt(2 (c1 sqrt(dim k/(beta n_unl)) + eta)/alpha) > 0",
             {"gamma": gamma, "eta": eta, "alpha": alpha, "n_unl": n_unl})]
        return check_conditions(strict, "HPSY.Thm3", conds, lambda: ceil_int(n_lab))
    return check_conditions(strict, "HPSY.Thm3", _thm3_conditions(k, None, gamma, eta, beta),
                            lambda: ceil_int(_thm3_lab(MATH, k, alpha, beta, epsilon, gamma, eta, constant)))


def hpsy_thm3_labeled_expr() -> Any:
    """Sympy form of :func:`hpsy_thm3_labeled`.

    Implements: HPSY.Thm3.

    >>> hpsy_thm3_labeled_expr()
    constant*sqrt(k)/(alpha*epsilon*(gamma - sqrt(eta)/sqrt(beta)))
    """
    return make_expr(_thm3_lab, ("k", "alpha", "beta", "epsilon", "gamma", "eta", "constant"), integer=("k",))


@broadcasts
@renamed_params(d="dim")
@validate_params(dim=POSITIVE_INT, k=POSITIVE_INT, alpha=PROBABILITY, beta=PROBABILITY, epsilon=EPSILON,
                 gamma=POSITIVE_REAL, eta=Real(0.0, math.inf), constant=POSITIVE_REAL, strict=Boolean())
def hpsy_thm3(dim: int, k: int, alpha: float, beta: float, epsilon: float, gamma: float, eta: float, *,
              constant: float = 1.0, strict: bool = True) -> Any:
    """HPSY Theorem 3: (n_unl, n_lab) = (:func:`hpsy_thm3_unlabeled`, :func:`hpsy_thm3_labeled`).

    Implements: HPSY.Thm3.  Hypotheses: k <= d, gamma < 1, gamma > sqrt(eta/beta).

    >>> hpsy_thm3(100, 5, 0.1, 0.1, 1.0, 0.5, 0.001)
    SemiPrivateSampleSizes(n_unl=20000, n_lab=56)
    """
    conds = _thm3_conditions(k, dim, gamma, eta, beta)
    return check_conditions(strict, "HPSY.Thm3", conds, lambda: SemiPrivateSampleSizes(
        ceil_int(_thm3_unl(MATH, k, dim, beta, gamma, constant)),
        ceil_int(_thm3_lab(MATH, k, alpha, beta, epsilon, gamma, eta, constant))))


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

register(Bound("HPSY.Thm3", "halfspaces via PCA: (n_unl, n_lab) of Theorem 3 (hypotheses checked)",
               (Param("dim", POSITIVE_INT, "ambient dimension", integer=True, typical=(20, 5000)),
                Param("k", POSITIVE_INT, "projection dimension", integer=True, typical=(1, 20)), _ALPHA, _BETA, _EPS,
                Param("gamma", POSITIVE_REAL, "margin, > 0 (the theorem's hypothesis gamma < 1 is checked)", typical=(0.3, 0.95)),
                Param("eta", Real(0.0, math.inf), "tail eigenvalue mass", typical=(0.0, 1e-3)), _CONST),
               hpsy_thm3, None, None, "SemiPrivateSampleSizes(n_unl, n_lab)",
               monotone={"dim": +1, "k": +1, "alpha": -1, "beta": -1, "epsilon": -1, "gamma": -1, "eta": +1},
               example={"dim": 100, "k": 5, "alpha": 0.1, "beta": 0.1, "epsilon": 1.0, "gamma": 0.5, "eta": 0.001}))
register(Bound("HPSY.Thm3.n_unl", "halfspaces via PCA: n_unl = O(k d/(beta gamma^2))",
               (Param("k", POSITIVE_INT, "projection dimension", integer=True, typical=(1, 20)),
                Param("dim", POSITIVE_INT, "ambient dimension", integer=True, typical=(20, 5000)), _BETA,
                Param("gamma", POSITIVE_REAL, "margin, > 0 (the theorem's hypothesis gamma < 1 is checked)", typical=(0.05, 0.95)), _CONST, _FORM_PC,
                Param("alpha", PROBABILITY, "accuracy in (0, 1), used by form='corrected' only (Markov at alpha/2)",
                      typical=(0.01, 0.5), default=None, required=False)),
               hpsy_thm3_unlabeled, hpsy_thm3_unlabeled_expr, _thm3_unl, "n_unl (int)",
               monotone={"k": +1, "dim": +1, "beta": -1, "gamma": -1, "constant": +1},
               example={"k": 5, "dim": 100, "beta": 0.1, "gamma": 0.5}, integer_output=True))
register(Bound("HPSY.Thm3.n_lab", "halfspaces via PCA: n_lab = O(sqrt(k)/(alpha eps (gamma - sqrt(eta/beta))))",
               (Param("k", POSITIVE_INT, "projection dimension", integer=True, typical=(1, 20)), _ALPHA, _BETA, _EPS,
                Param("gamma", POSITIVE_REAL, "margin, > 0 (the theorem's hypothesis gamma < 1 is checked)", typical=(0.3, 0.95)),
                Param("eta", Real(0.0, math.inf), "tail eigenvalue mass sum_{i>k} lambda_i", typical=(0.0, 1e-3)),
                _CONST),
               hpsy_thm3_labeled, hpsy_thm3_labeled_expr, _thm3_lab, "n_lab (int)",
               monotone={"k": +1, "alpha": -1, "beta": -1, "epsilon": -1, "gamma": -1, "eta": +1, "constant": +1},
               example={"k": 5, "alpha": 0.1, "beta": 0.1, "epsilon": 1.0, "gamma": 0.5, "eta": 0.001},
               integer_output=True))

"""Noisy SGD (BST14) and PILLAR bounds.

Implements: BST14.NoisySGD (noise scale, step size, excess risk: O-form and an explicit
reconstruction, labelled sample size), PILLAR.Lem1 (high-probability excess risk, Markov
form), PILLAR.Thm1 (labelled sample complexity, O-form), PILLAR.Cor6 (large-margin Gaussian
mixtures, reconstructed).

What was reconstructed, and from what
-------------------------------------
The PILLAR text in ``seeds/002`` lost every displayed formula in extraction.  What it still
says: Lemma 1 is "a corollary of Theorem 2.4 in Bassily et al. [2014a]" (the expected excess
risk of noisy SGD), made high-probability "from Markov inequality and the post-processing
property"; the scaled hinge loss is (1/gamma')-Lipschitz; Theorem 1's labelled sample
complexity is dimension independent; Corollary 6 is Theorem 1 applied to large-margin
Gaussian mixtures whose normalised covariance has two spiked eigenvalues (k = 2).  So:

* Noise scale and step size are BST14's Algorithm 1 as item BST14.NoisySGD states it
  (``python -m semiprivate spec BST14.NoisySGD``):
  sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / eps^2,
  eta(t) = ||C|| / sqrt(t (n^2 L^2 + p sigma^2)), T = n^2 steps.
* Excess risk (BST14 Thm 2.4): O(L ||C|| log^{3/2}(n/delta) sqrt(p log(1/delta)) / eps) for the
  summed loss.  The explicit version is the Shamir-Zhang (2013, Thm 2) last-iterate SGD bound
  that BST14's proof invokes, with step c/(G sqrt(t)), c = ||C||:
  E[F(theta_T)] - F* <= (||C||^2/c + c) G (2 + log T)/sqrt(T) = 2 ||C|| G (2 + log T)/sqrt(T),
  G^2 = n^2 L^2 + p sigma^2 bounding E||n grad + b||^2.  (Our reconstruction; BST14's text was
  not available to check the constant 2.)
* PILLAR Lemma 1 (Markov): with probability >= 1 - beta the excess risk is at most
  (expected bound) / beta.  The R-repetition + exponential-mechanism boosting of PILLAR's
  Algorithm 2 changes only log factors; its constants are lost and are not reproduced.
* PILLAR Theorem 1 / Corollary 6: n_lab = O(sqrt(k)/(alpha eps gamma_k)) with gamma_k the
  margin after projection (the HPSY Thm 3 form, log factors dropped), Cor 6 with k = 2.
"""

from __future__ import annotations

import math
from typing import Any

from semiprivate.theory.bounds._core import (
    MATH,
    Bound,
    Param,
    Solver,
    broadcasts,
    ceil_int,
    make_expr,
    register,
    smallest_integer,
)
from semiprivate.validation import EPSILON, POSITIVE_INT, POSITIVE_REAL, PROBABILITY, validate_params

__all__ = [
    "bst14_noise_scale",
    "bst14_noise_scale_expr",
    "bst14_step_size",
    "bst14_excess_risk",
    "bst14_excess_risk_expr",
    "bst14_excess_risk_explicit",
    "bst14_excess_risk_explicit_expr",
    "bst14_sample_size",
    "pillar_excess_risk_high_probability",
    "pillar_labeled",
    "pillar_labeled_expr",
    "pillar_cor6_labeled",
]


def _sigma(ns: Any, n: Any, lipschitz: Any, epsilon: Any, delta: Any) -> Any:
    return ns.sqrt(32 * lipschitz**2 * n**2 * ns.log(n / delta) * ns.log(1 / delta)) / epsilon


@broadcasts
@validate_params(n=POSITIVE_INT, lipschitz=POSITIVE_REAL, epsilon=EPSILON, delta=PROBABILITY)
def bst14_noise_scale(n: int, lipschitz: float, epsilon: float, delta: float) -> float:
    r"""BST14 noisy SGD noise standard deviation: sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / eps^2.

    Implements: BST14.NoisySGD (noise scale; PILLAR App. A.1 Alg 2).  The gradient oracle is
    n * grad l(theta; d_t) + b_t with b_t ~ N(0, sigma^2 I_p), for n^2 steps.

    Parameters
    ----------
    n : int
        Number of labelled examples.
    lipschitz : float
        L, the Lipschitz constant of the loss.
    epsilon : float
        Privacy parameter.
    delta : float
        In (0, 1) (the formula needs log(1/delta) > 0).

    Returns
    -------
    float
        sigma.

    Examples
    --------
    >>> round(bst14_noise_scale(1000, 1.0, 1.0, 1e-5), 1)
    82379.8
    """
    return float(_sigma(MATH, n, lipschitz, epsilon, delta))


def bst14_noise_scale_expr() -> Any:
    """Sympy form of the BST14 noise scale sigma.

    Implements: BST14.NoisySGD.

    >>> bst14_noise_scale_expr()
    4*sqrt(2)*lipschitz*n*sqrt(log(1/delta)*log(n/delta))/epsilon
    """
    return make_expr(_sigma, ("n", "lipschitz", "epsilon", "delta"), integer=("n",))


@validate_params(t=POSITIVE_INT, n=POSITIVE_INT, p=POSITIVE_INT, lipschitz=POSITIVE_REAL, diameter=POSITIVE_REAL,
                 epsilon=EPSILON, delta=PROBABILITY)
def bst14_step_size(t: int, n: int, p: int, lipschitz: float, diameter: float, epsilon: float, delta: float) -> float:
    r"""BST14 step size eta(t) = ||C|| / sqrt(t (n^2 L^2 + p sigma^2)).

    Implements: BST14.NoisySGD (step size).

    Examples
    --------
    >>> bst14_step_size(1, 1000, 10, 1.0, 2.0, 1.0, 1e-5) < 1e-5
    True
    """
    s = bst14_noise_scale(n, lipschitz, epsilon, delta)
    return diameter / math.sqrt(t * (n**2 * lipschitz**2 + p * s**2))


def _excess_o(ns: Any, n: Any, p: Any, lipschitz: Any, diameter: Any, epsilon: Any, delta: Any,
              constant: Any = 1) -> Any:
    return constant * lipschitz * diameter * ns.log(n / delta) ** ns.frac(3, 2) * ns.sqrt(p * ns.log(1 / delta)) / epsilon


@broadcasts
@validate_params(n=POSITIVE_INT, p=POSITIVE_INT, lipschitz=POSITIVE_REAL, diameter=POSITIVE_REAL, epsilon=EPSILON,
                 delta=PROBABILITY, constant=POSITIVE_REAL)
def bst14_excess_risk(n: int, p: int, lipschitz: float, diameter: float, epsilon: float, delta: float, *,
                      constant: float = 1.0) -> float:
    r"""BST14 Thm 2.4: expected excess (summed) risk O(L ||C|| log^{3/2}(n/delta) sqrt(p log(1/delta)) / eps).

    Implements: BST14.NoisySGD (excess risk, O-form; ``constant`` defaults to 1).  Divide by n
    for the average loss.

    Examples
    --------
    >>> round(bst14_excess_risk(1000, 10, 1.0, 2.0, 1.0, 1e-5), 2)
    1696.61
    """
    return float(_excess_o(MATH, n, p, lipschitz, diameter, epsilon, delta, constant))


def bst14_excess_risk_expr() -> Any:
    """Sympy form of :func:`bst14_excess_risk`.

    Implements: BST14.NoisySGD.

    >>> bst14_excess_risk_expr()
    constant*diameter*lipschitz*sqrt(p)*sqrt(log(1/delta))*log(n/delta)**(3/2)/epsilon
    """
    return make_expr(_excess_o, ("n", "p", "lipschitz", "diameter", "epsilon", "delta", "constant"),
                     integer=("n", "p"))


def _excess_x(ns: Any, n: Any, p: Any, lipschitz: Any, diameter: Any, epsilon: Any, delta: Any) -> Any:
    sigma2 = 32 * lipschitz**2 * n**2 * ns.log(n / delta) * ns.log(1 / delta) / epsilon**2
    g = ns.sqrt(n**2 * lipschitz**2 + p * sigma2)
    return 2 * diameter * g * (2 + ns.log(n**2)) / n


@broadcasts
@validate_params(n=POSITIVE_INT, p=POSITIVE_INT, lipschitz=POSITIVE_REAL, diameter=POSITIVE_REAL, epsilon=EPSILON,
                 delta=PROBABILITY)
def bst14_excess_risk_explicit(n: int, p: int, lipschitz: float, diameter: float, epsilon: float,
                               delta: float) -> float:
    r"""Explicit expected excess (summed) risk of BST14 noisy SGD: 2 ||C|| G (2 + log T)/sqrt(T), T = n^2.

    Implements: BST14.NoisySGD (excess risk, explicit reconstruction; see the module
    docstring): G = sqrt(n^2 L^2 + p sigma^2), sigma from :func:`bst14_noise_scale`.

    Examples
    --------
    >>> round(bst14_excess_risk_explicit(1000, 10, 1.0, 2.0, 1.0, 1e-5), 1)
    16480.4
    """
    return float(_excess_x(MATH, n, p, lipschitz, diameter, epsilon, delta))


def bst14_excess_risk_explicit_expr() -> Any:
    """Sympy form of :func:`bst14_excess_risk_explicit`.

    Implements: BST14.NoisySGD.
    """
    return make_expr(_excess_x, ("n", "p", "lipschitz", "diameter", "epsilon", "delta"), integer=("n", "p"))


@broadcasts
@validate_params(p=POSITIVE_INT, lipschitz=POSITIVE_REAL, diameter=POSITIVE_REAL, epsilon=EPSILON,
                 delta=PROBABILITY, alpha=POSITIVE_REAL)
def bst14_sample_size(p: int, lipschitz: float, diameter: float, epsilon: float, delta: float, alpha: float) -> int:
    r"""Smallest n with (explicit expected excess risk)/n <= alpha for BST14 noisy SGD.

    Implements: BST14.NoisySGD (solver).  The average excess risk decreases in n for n >= 3
    (checked in the tests), so n = 1, 2 are tried and then the exact monotone search runs from 3.

    Examples
    --------
    >>> n = bst14_sample_size(10, 1.0, 2.0, 1.0, 1e-5, 1.0)
    >>> bst14_excess_risk_explicit(n, 10, 1.0, 2.0, 1.0, 1e-5) / n <= 1.0
    True
    """
    def pred(n: int) -> bool:
        return bool(_excess_x(MATH, n, p, lipschitz, diameter, epsilon, delta) <= alpha * n)

    for n in (1, 2):
        if pred(n):
            return n
    return smallest_integer(pred, 3)


@broadcasts
@validate_params(n=POSITIVE_INT, p=POSITIVE_INT, lipschitz=POSITIVE_REAL, diameter=POSITIVE_REAL, epsilon=EPSILON,
                 delta=PROBABILITY, beta=PROBABILITY)
def pillar_excess_risk_high_probability(n: int, p: int, lipschitz: float, diameter: float, epsilon: float,
                                        delta: float, beta: float) -> float:
    r"""PILLAR Lemma 1 (Markov form): w.p. >= 1 - beta, excess (summed) risk <= explicit expected bound / beta.

    Implements: PILLAR.Lem1 (reconstructed; see the module docstring).

    Examples
    --------
    >>> round(pillar_excess_risk_high_probability(1000, 10, 1.0, 2.0, 1.0, 1e-5, 0.5), 1)
    32960.7
    """
    return bst14_excess_risk_explicit(n, p, lipschitz, diameter, epsilon, delta) / beta


def _pillar(ns: Any, k: Any, alpha: Any, epsilon: Any, gamma: Any, constant: Any = 1) -> Any:
    return constant * ns.sqrt(k) / (alpha * epsilon * gamma)


@broadcasts
@validate_params(k=POSITIVE_INT, alpha=PROBABILITY, epsilon=EPSILON, gamma=PROBABILITY, constant=POSITIVE_REAL)
def pillar_labeled(k: int, alpha: float, epsilon: float, gamma: float, *, constant: float = 1.0) -> int:
    r"""PILLAR Thm 1 labelled size (reconstructed O-form): n_lab = O(sqrt(k)/(alpha eps gamma_k)).

    Implements: PILLAR.Thm1 (O-form with log factors dropped; gamma is the margin after the
    rank-k projection; ``constant`` defaults to 1).

    Examples
    --------
    >>> pillar_labeled(4, 0.1, 1.0, 0.5)
    40
    """
    return ceil_int(_pillar(MATH, k, alpha, epsilon, gamma, constant))


def pillar_labeled_expr() -> Any:
    """Sympy form of :func:`pillar_labeled`.

    Implements: PILLAR.Thm1.

    >>> pillar_labeled_expr()
    constant*sqrt(k)/(alpha*epsilon*gamma)
    """
    return make_expr(_pillar, ("k", "alpha", "epsilon", "gamma", "constant"), integer=("k",))


@broadcasts
@validate_params(alpha=PROBABILITY, epsilon=EPSILON, gamma=PROBABILITY, constant=POSITIVE_REAL)
def pillar_cor6_labeled(alpha: float, epsilon: float, gamma: float, *, constant: float = 1.0) -> int:
    r"""PILLAR Cor 6 (reconstructed): large-margin Gaussian mixtures, k = 2 spiked directions.

    Implements: PILLAR.Cor6 as far as the text allows: :func:`pillar_labeled` with k = 2
    (the corollary's displayed formula, Eq. 23, was lost in extraction).

    >>> pillar_cor6_labeled(0.1, 1.0, 0.5)
    29
    """
    return pillar_labeled(2, alpha, epsilon, gamma, constant=constant)


_N = Param("n", POSITIVE_INT, "number of labelled examples", integer=True, typical=(3, 10**5))
_P = Param("p", POSITIVE_INT, "parameter dimension", integer=True, typical=(1, 1000))
_L = Param("lipschitz", POSITIVE_REAL, "Lipschitz constant L of the loss", typical=(0.1, 10.0))
_C = Param("diameter", POSITIVE_REAL, "||C||, diameter of the constraint set", typical=(0.1, 10.0))
_EPS = Param("epsilon", EPSILON, "privacy parameter epsilon > 0", typical=(0.05, 5.0))
_DLT = Param("delta", PROBABILITY, "privacy parameter delta in (0, 1)", typical=(1e-9, 0.01))
_CONST = Param("constant", POSITIVE_REAL, "hidden constant of the O(.) (default 1)", typical=(0.5, 5.0),
               default=1.0, required=False)

register(Bound("BST14.NoisySGD.sigma", "noise sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta)/eps^2",
               (_N, _L, _EPS, _DLT), bst14_noise_scale, bst14_noise_scale_expr, _sigma, "sigma (float)",
               monotone={"n": +1, "lipschitz": +1, "epsilon": -1, "delta": -1},
               example={"n": 1000, "lipschitz": 1.0, "epsilon": 1.0, "delta": 1e-5}))
register(Bound("BST14.NoisySGD.excess", "expected excess summed risk O(L||C|| log^1.5(n/delta) sqrt(p log(1/delta))/eps)",
               (_N, _P, _L, _C, _EPS, _DLT, _CONST), bst14_excess_risk, bst14_excess_risk_expr, _excess_o,
               "excess risk (float)",
               monotone={"n": +1, "p": +1, "lipschitz": +1, "diameter": +1, "epsilon": -1, "delta": -1,
                         "constant": +1},
               example={"n": 1000, "p": 10, "lipschitz": 1.0, "diameter": 2.0, "epsilon": 1.0, "delta": 1e-5}))
register(Bound("BST14.NoisySGD.explicit", "explicit (reconstructed) 2||C|| G (2 + log n^2)/n, G^2 = n^2L^2 + p sigma^2",
               (_N, _P, _L, _C, _EPS, _DLT), bst14_excess_risk_explicit, bst14_excess_risk_explicit_expr, _excess_x,
               "excess risk (float)",
               solvers={"n": Solver("n", bst14_sample_size,
                                    (_P, _L, _C, _EPS, _DLT,
                                     Param("alpha", POSITIVE_REAL, "target average excess risk", typical=(0.05, 5.0))),
                                    "smallest n with average excess risk <= alpha")},
               monotone={"p": +1, "lipschitz": +1, "diameter": +1, "epsilon": -1, "delta": -1},
               example={"n": 1000, "p": 10, "lipschitz": 1.0, "diameter": 2.0, "epsilon": 1.0, "delta": 1e-5}))
register(Bound("PILLAR.Lem1", "w.p. >= 1-beta excess risk <= expected bound / beta (Markov; reconstructed)",
               (_N, _P, _L, _C, _EPS, _DLT, Param("beta", PROBABILITY, "failure probability", typical=(0.01, 0.5))),
               pillar_excess_risk_high_probability, None, None, "excess risk (float)",
               monotone={"beta": -1, "epsilon": -1},
               example={"n": 1000, "p": 10, "lipschitz": 1.0, "diameter": 2.0, "epsilon": 1.0, "delta": 1e-5,
                        "beta": 0.5}))
register(Bound("PILLAR.Thm1", "labelled size O(sqrt(k)/(alpha eps gamma_k)) (reconstructed, logs dropped)",
               (Param("k", POSITIVE_INT, "projection dimension", integer=True, typical=(1, 100)),
                Param("alpha", PROBABILITY, "accuracy", typical=(0.01, 0.5)), _EPS,
                Param("gamma", PROBABILITY, "margin after projection", typical=(0.05, 0.95)), _CONST),
               pillar_labeled, pillar_labeled_expr, _pillar, "n_lab (int)",
               monotone={"k": +1, "alpha": -1, "epsilon": -1, "gamma": -1, "constant": +1},
               example={"k": 4, "alpha": 0.1, "epsilon": 1.0, "gamma": 0.5}, integer_output=True))
register(Bound("PILLAR.Cor6", "Gaussian mixtures: PILLAR.Thm1 with k = 2 (reconstructed)",
               (Param("alpha", PROBABILITY, "accuracy", typical=(0.01, 0.5)), _EPS,
                Param("gamma", PROBABILITY, "margin after projection", typical=(0.05, 0.95)), _CONST),
               pillar_cor6_labeled, None, lambda ns, alpha, epsilon, gamma, constant=1:
               _pillar(ns, 2, alpha, epsilon, gamma, constant), "n_lab (int)",
               monotone={"alpha": -1, "epsilon": -1, "gamma": -1, "constant": +1},
               example={"alpha": 0.1, "epsilon": 1.0, "gamma": 0.5}, integer_output=True))

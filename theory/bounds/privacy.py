"""Privacy transformers of BNS15: (epsilon, delta, sizes) -> (epsilon', delta').

Implements: BNS15.Cl4.3 (sub-sampling), BNS15.Cl4.5 (i.i.d. resampling), BNS15.Lem4.1
(LabelBoostProcedure), BNS15.Lem4.6 (LabelBoost, with the induction of its proof replayed
step by step), BNS15.Cl5.7 (SubSampling for active learners).

Each function returns exactly the parameters the paper states, and raises
:class:`~semiprivate.theory.validity.ConditionNotMet` (or returns a ``Checked`` with ``strict=False``)
when the claim's hypothesis (e.g. ``epsilon <= 1``) fails.
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
)
from semiprivate.validation import (
    DELTA,
    EPSILON,
    NONNEGATIVE_INT,
    POSITIVE_INT,
    Boolean,
    validate_params,
)

__all__ = [
    "PrivacyGuarantee",
    "Subsampled",
    "subsampling_privacy",
    "subsampling_privacy_expr",
    "iid_resampling_privacy",
    "label_boost_procedure_privacy",
    "label_boost_procedure_privacy_expr",
    "LabelBoostPrivacy",
    "labelboost_privacy",
    "active_subsampling_privacy",
    "active_subsampling_privacy_expr",
    "IID_RESAMPLING_EPSILON",
    "IID_RESAMPLING_DELTA_FACTOR",
]

#: BNS15 Claim 4.5 constants: (ln 244, 2467 delta).
IID_RESAMPLING_EPSILON = math.log(244)
IID_RESAMPLING_DELTA_FACTOR = 2467


class PrivacyGuarantee(NamedTuple):
    """An (epsilon, delta) differential-privacy guarantee."""

    epsilon: float
    delta: float


class Subsampled(NamedTuple):
    """Result of a sub-sampling transformer: the guarantee and the database size t it needs."""

    epsilon: float
    delta: float
    t: int


def _cl43(ns: Any, n: Any, epsilon_star: Any, delta: Any, epsilon: Any) -> dict[str, Any]:
    return {"epsilon": epsilon,
            "delta": 4 * epsilon / (3 + ns.exp(epsilon_star)) * delta,
            "t": n / epsilon * (3 + ns.exp(epsilon_star))}


@broadcasts
@validate_params(n=POSITIVE_INT, epsilon_star=EPSILON, delta=DELTA, epsilon=EPSILON, strict=Boolean())
def subsampling_privacy(n: int, epsilon_star: float, delta: float, epsilon: float, *, strict: bool = True) -> Any:
    r"""BNS15 Claim 4.3 (sub-sampling): (eps*, delta) on n points -> (eps, 4 eps/(3+e^{eps*}) delta) on t.

    Implements: BNS15.Cl4.3.  If A is (epsilon*, delta)-DP on databases of size n and
    ``epsilon <= 1``, running A on a uniformly random size-n subset of a database of size
    :math:`t = \frac{n}{\epsilon}(3 + e^{\epsilon^*})` is
    :math:`(\epsilon, \frac{4\epsilon}{3+e^{\epsilon^*}}\delta)`-DP.

    Parameters
    ----------
    n : int
        Database size of the base algorithm.
    epsilon_star, delta : float
        Base guarantee.
    epsilon : float
        Target epsilon; the claim needs ``epsilon <= 1``.
    strict : bool
        Raise (default) or return a Checked when ``epsilon > 1``.

    Returns
    -------
    Subsampled
        ``(epsilon, delta', t)`` with ``t`` rounded up.

    Raises
    ------
    ConditionNotMet
        If ``epsilon > 1``.

    Examples
    --------
    >>> r = subsampling_privacy(100, math.log(244), 1e-6, 1.0)
    >>> r.t, round(r.delta / 1e-6, 6)
    (24700, 0.016194)
    """
    def compute() -> Subsampled:
        f = _cl43(MATH, n, epsilon_star, delta, epsilon)
        return Subsampled(float(epsilon), float(f["delta"]), ceil_int(f["t"]))

    return check_conditions(strict, "BNS15.Cl4.3", [(epsilon <= 1, "epsilon <= 1", {"epsilon": epsilon})], compute)


def subsampling_privacy_expr() -> dict[str, Any]:
    """Sympy forms (``epsilon``, ``delta``, ``t``) of BNS15 Claim 4.3.

    Implements: BNS15.Cl4.3.

    >>> subsampling_privacy_expr()["delta"]
    4*delta*epsilon/(exp(epsilon_star) + 3)
    """
    return make_expr(_cl43, ("n", "epsilon_star", "delta", "epsilon"), integer=("n",))


@broadcasts
@validate_params(epsilon=EPSILON, delta=DELTA, strict=Boolean())
def iid_resampling_privacy(epsilon: float, delta: float, *, strict: bool = True) -> Any:
    r"""BNS15 Claim 4.5: running an (eps, delta)-DP A on n i.i.d. draws from the n-point input is (ln 244, 2467 delta)-DP.

    Implements: BNS15.Cl4.5 (from Bun, Nissim, Stemmer, Vadhan 2015).  Needs ``epsilon <= 1``.

    Returns
    -------
    PrivacyGuarantee
        ``(ln 244, 2467 * delta)``.

    Raises
    ------
    ConditionNotMet
        If ``epsilon > 1``.

    Examples
    --------
    >>> iid_resampling_privacy(1.0, 1e-6)
    PrivacyGuarantee(epsilon=5.497168225293202, delta=0.002467)
    """
    return check_conditions(strict, "BNS15.Cl4.5", [(epsilon <= 1, "epsilon <= 1", {"epsilon": epsilon})],
                            lambda: PrivacyGuarantee(IID_RESAMPLING_EPSILON, IID_RESAMPLING_DELTA_FACTOR * delta))


def _lem41(ns: Any, epsilon: Any, delta: Any) -> dict[str, Any]:
    return {"epsilon": epsilon + 3, "delta": 4 * ns.e * delta}


@broadcasts
@validate_params(epsilon=EPSILON, delta=DELTA)
def label_boost_procedure_privacy(epsilon: float, delta: float) -> PrivacyGuarantee:
    r"""BNS15 Lemma 4.1: A after LabelBoostProcedure is (eps + 3, 4 e delta)-DP.

    Implements: BNS15.Lem4.1.  A is (epsilon, delta)-DP on partially labelled databases;
    LabelBoostProcedure runs the exponential mechanism with epsilon = 1 to relabel.

    Examples
    --------
    >>> label_boost_procedure_privacy(1.0, 41e-6)
    PrivacyGuarantee(epsilon=4.0, delta=0.0004457982198672834)
    """
    f = _lem41(MATH, epsilon, delta)
    return PrivacyGuarantee(float(f["epsilon"]), float(f["delta"]))


def label_boost_procedure_privacy_expr() -> dict[str, Any]:
    """Sympy forms of BNS15 Lemma 4.1.

    Implements: BNS15.Lem4.1.

    >>> label_boost_procedure_privacy_expr()
    {'epsilon': epsilon + 3, 'delta': 4*E*delta}
    """
    return make_expr(_lem41, ("epsilon", "delta"))


class LabelBoostPrivacy(NamedTuple):
    """BNS15 Lemma 4.6 replayed: the claimed guarantee, the per-step deltas and whether the claim holds."""

    epsilon: float
    delta: float
    claimed_delta: float
    steps: tuple[float, ...]
    holds: bool


@broadcasts
@validate_params(delta=DELTA, iterations=NONNEGATIVE_INT, base_ratio=POSITIVE_INT, iteration_ratio=POSITIVE_INT)
def labelboost_privacy(delta: float, iterations: int = 0, *, base_ratio: int = 300,
                       iteration_ratio: int = 100) -> LabelBoostPrivacy:
    r"""BNS15 Lemma 4.6: LabelBoost on a (1, delta)-DP base learner is (1, 41 delta)-DP.

    Implements: BNS15.Lem4.6.  Replays the induction of the proof with the exact transformer
    constants: L_0 = sub-sampling (Cl 4.3, eps = 1, eps* = ln 244) of i.i.d. resampling
    (Cl 4.5) of A, so delta_0 = 4/(3+244) * 2467 delta; L_t = sub-sampling (Cl 4.3, eps = 1,
    eps* = 4) of LabelBoostProcedure (Lem 4.1) of L_{t-1}, so
    delta_t = 4/(3+e^4) * 4e * delta_{t-1}.  Each sub-sampling step needs the kept fraction
    to be at most eps/(3 + e^{eps*}): LabelBoost keeps 1/300 in step 3 (``base_ratio``;
    needs 300 >= 247) and 1/100 in step 2c (``iteration_ratio``; needs 100 >= 3 + e^4 = 57.6).

    Parameters
    ----------
    delta : float
        delta of the (1, delta)-DP base learner.
    iterations : int
        Number of while-loop iterations N.
    base_ratio, iteration_ratio : int
        t/n of the two sub-sampling steps (300 and 100 in Algorithm 3).

    Returns
    -------
    LabelBoostPrivacy
        ``epsilon = 1``, ``delta`` = the delta the replayed proof gives for every entry:
        max(delta_1, ..., delta_N) (delta_0 when N = 0; an unlabelled entry first used at
        iteration i is protected by delta_{N-i+1} only), ``claimed_delta = 41 delta``,
        ``steps`` = (delta_0, ..., delta_N), ``holds`` = every step within 41 delta and every
        ratio large enough.

    Examples
    --------
    >>> r = labelboost_privacy(1e-6, iterations=3)
    >>> r.holds, round(r.steps[0] / 1e-6, 4), round(r.delta / 1e-6, 4)
    (True, 39.9514, 30.1674)
    """
    ratio_ok = base_ratio >= 3 + 244 and iteration_ratio >= 3 + math.exp(4)
    d = 4.0 / (3.0 + 244.0) * IID_RESAMPLING_DELTA_FACTOR * delta
    steps = [d]
    for _ in range(iterations):
        d = 4.0 / (3.0 + math.exp(4.0)) * (4.0 * math.e * d)
        steps.append(d)
    claimed = 41.0 * delta
    holds = ratio_ok and all(s <= claimed * (1 + 1e-12) for s in steps)
    # an entry of D entering S at iteration i is protected by the stage starting there (not by the
    # sub-sampling of the iterations before it): the guarantee is the worst entry stage
    owed = max(steps[1:]) if iterations else steps[0]
    return LabelBoostPrivacy(1.0, owed, claimed, tuple(steps), holds)


def _cl57(ns: Any, n: Any, epsilon_star: Any, delta: Any, epsilon: Any) -> dict[str, Any]:
    return {"epsilon": epsilon,
            "delta": (7 + ns.exp(epsilon_star)) / (3 + ns.exp(2 * epsilon_star)) * epsilon * delta,
            "t": n / epsilon * (3 + ns.exp(2 * epsilon_star))}


@broadcasts
@validate_params(n=POSITIVE_INT, epsilon_star=EPSILON, delta=DELTA, epsilon=EPSILON)
def active_subsampling_privacy(n: int, epsilon_star: float, delta: float, epsilon: float) -> Subsampled:
    r"""BNS15 Claim 5.7 (SubSampling): PSSL (eps*, delta) -> PAL (eps, (7+e^{eps*})/(3+e^{2eps*}) eps delta).

    Implements: BNS15.Cl5.7.  The active learner draws ``t = (n/eps)(3 + exp(2 eps*))``
    unlabelled points, keeps a random n-subset and queries the labels of its m smallest indices.

    The claim draws an n-subset of the t-point pool, so it needs t >= n, i.e.
    ``epsilon <= 3 + e^{2 eps*}``; outside it raises.

    Returns
    -------
    Subsampled
        ``(epsilon, delta', t)`` with ``t`` rounded up.

    Raises
    ------
    ConditionNotMet
        (a ValueError) if t = (n/eps)(3 + e^{2 eps*}) < n.

    Examples
    --------
    >>> r = active_subsampling_privacy(100, 1.0, 1e-6, 0.5)
    >>> r.t, round(r.delta / 1e-6, 6)
    (2078, 0.467717)
    """
    def compute() -> Subsampled:
        f = _cl57(MATH, n, epsilon_star, delta, epsilon)
        return Subsampled(float(epsilon), float(f["delta"]), ceil_int(f["t"]))

    bound = 3.0 + math.exp(min(2.0 * epsilon_star, 700.0))
    return check_conditions(True, "BNS15.Cl5.7", [(epsilon <= bound, "t >= n, i.e. epsilon <= 3 + e^(2 epsilon_star)",
                                                    {"epsilon": epsilon, "epsilon_star": epsilon_star})], compute)


def active_subsampling_privacy_expr() -> dict[str, Any]:
    """Sympy forms of BNS15 Claim 5.7.

    Implements: BNS15.Cl5.7.

    >>> active_subsampling_privacy_expr()["t"]
    n*(exp(2*epsilon_star) + 3)/epsilon
    """
    return make_expr(_cl57, ("n", "epsilon_star", "delta", "epsilon"), integer=("n",))


_N = Param("n", POSITIVE_INT, "database size of the base algorithm", integer=True, typical=(1, 10**5))
_ESTAR = Param("epsilon_star", EPSILON, "epsilon of the base algorithm", typical=(0.05, 6.0))
_DLT = Param("delta", DELTA, "delta of the base algorithm", typical=(0.0, 1e-3))
_EPS1 = Param("epsilon", EPSILON, "target epsilon (<= 1 for Cl 4.3)", typical=(0.05, 1.0))

register(Bound(
    id="BNS15.Cl4.3", description="sub-sampling: (eps*,delta) on n -> (eps, 4eps/(3+e^eps*) delta) on t=(n/eps)(3+e^eps*)",
    params=(_N, _ESTAR, _DLT, _EPS1), function=subsampling_privacy, expr=subsampling_privacy_expr, formula=_cl43,
    output="Subsampled(epsilon, delta, t)", monotone={"n": +1},
    example={"n": 100, "epsilon_star": 5.497, "delta": 1e-6, "epsilon": 1.0},
))
register(Bound(
    id="BNS15.Cl4.5", description="i.i.d. resampling: (eps<=1, delta) -> (ln 244, 2467 delta)",
    params=(Param("epsilon", EPSILON, "epsilon of the base algorithm (<= 1)", typical=(0.05, 1.0)), _DLT),
    function=iid_resampling_privacy, output="PrivacyGuarantee(epsilon, delta)", monotone={"delta": +1},
    example={"epsilon": 1.0, "delta": 1e-6},
))
register(Bound(
    id="BNS15.Lem4.1", description="A after LabelBoostProcedure: (eps, delta) -> (eps+3, 4e delta)",
    params=(Param("epsilon", EPSILON, "epsilon of A", typical=(0.05, 5.0)), _DLT),
    function=label_boost_procedure_privacy, expr=label_boost_procedure_privacy_expr, formula=_lem41,
    output="PrivacyGuarantee(epsilon, delta)", monotone={"epsilon": +1, "delta": +1},
    example={"epsilon": 1.0, "delta": 1e-6},
))
register(Bound(
    id="BNS15.Lem4.6", description="LabelBoost on a (1,delta)-DP learner is (1, 41 delta)-DP (proof replayed)",
    params=(_DLT, Param("iterations", NONNEGATIVE_INT, "number of LabelBoost iterations", integer=True,
                        typical=(0, 10), default=0, required=False)),
    function=labelboost_privacy, output="LabelBoostPrivacy(epsilon, delta, claimed_delta, steps, holds)",
    example={"delta": 1e-6, "iterations": 3},
))
register(Bound(
    id="BNS15.Cl5.7", description="SubSampling: PSSL (eps*,delta) -> PAL (eps, (7+e^eps*)/(3+e^2eps*) eps delta)",
    params=(_N, _ESTAR, _DLT, Param("epsilon", EPSILON, "target epsilon", typical=(0.05, 5.0))),
    function=active_subsampling_privacy, expr=active_subsampling_privacy_expr, formula=_cl57,
    output="Subsampled(epsilon, delta, t)", monotone={"n": +1},
    example={"n": 100, "epsilon_star": 1.0, "delta": 1e-6, "epsilon": 0.5},
))

"""Private hyper-parameter tuning by random stopping: run a private training-and-scoring base
mechanism a random number of times and output the best run.

Implements (not SPEC items; the papers are cited by theorem):

* **LT19** -- Jingcheng Liu, Kunal Talwar, *Private selection from private candidates*, STOC 2019
  (arXiv:1811.07971), Sec. 3, random stopping with an unknown threshold ("output the best"): after
  each run of the base mechanism Q, stop with probability ``gamma``; the number of runs K is
  Geometric(gamma), E[K] = 1/gamma.  Thm 3.4: if Q is (eps, 0)-DP, the selection is (3 eps, 0)-DP
  (also PS22 Cor. 3 at eta = 1).
* **PS22** -- Nicolas Papernot, Thomas Steinke, *Hyperparameter tuning with Renyi differential
  privacy*, ICLR 2022 (arXiv:2110.03620).  K follows the truncated negative binomial D_{eta, gamma}
  (Def. 1; eta = 1 is the geometric, eta = 0 the logarithmic distribution):
  ``P[K = k] = (1 - gamma)^k / (gamma^-eta - 1) * prod_{l<k} (l + eta) / (l + 1)`` (eta > 0),
  ``(1 - gamma)^k / (k log(1/gamma))`` (eta = 0), with
  ``E[K] = eta (1 - gamma) / (gamma (1 - gamma^eta))`` (``(1/gamma - 1) / log(1/gamma)`` at eta = 0).
  Thm 2: if Q is (lambda, eps(lambda))-RDP at every order, the selection is (lambda, eps'(lambda))-RDP
  with ``eps'(lambda) = eps(lambda) + (1 + eta) min_{lhat >= 1} [(1 - 1/lhat) eps(lhat) +
  log(1/gamma) / lhat] + log(E[K]) / (lambda - 1)``; (eps, delta) by the RDP conversion of Canonne,
  Kamath, Steinke 2020 (Prop. 12), as ``dp_accounting.rdp.compute_epsilon`` evaluates it.  A pure
  eps-DP training step has the RDP curve ``min(eps, lambda eps^2 / 2)`` (Bun-Steinke 2016 Prop. 3.3
  and the order-infinity bound); a training step given as a dp-accounting ``DpEvent`` (e.g. DP-SGD's
  ``PoissonSampledDpEvent``) is accounted by dp-accounting's own implementation of Thm 2
  (``RepeatAndSelectDpEvent``) under the search's replace-one neighbours: its RDP accountant with
  ``REPLACE_ONE`` where it supports the event, else its add/remove curve converted by group privacy
  of two (:func:`semiprivate.theory.privacy.accounting.group_of_two_epsilon`; the Poisson-subsampled
  Gaussian of DP-SGD takes this route).

The base mechanism Q (one run): draw a candidate uniformly from ``param_grid`` (coins independent of
the data), fit it on the public rows + the training part S1 of the labelled rows, and score it on the
held-out part S2 by the number of correct predictions plus *discrete* Laplace noise,
``P(z) ∝ exp(-epsilon_score |z|)`` on the integers, drawn exactly
(:func:`semiprivate.kernels.noise.discrete_laplace`, CKS20 Alg 2; sensitivity 1: one replaced held-out
row changes the count by at most 1, so the score is (epsilon_score, 0)-DP; float Laplace noise on a
released score is not private as computed, Mironov 2012).  Its RDP curve is that of binary randomized
response at epsilon_score (:func:`discrete_laplace_rdp`: the privacy loss of a unit shift takes the
two values +-epsilon_score, with the probabilities of randomized response).  Q
outputs (model, noisy score): every score that the selection compares is private.  S1 and S2 come
from one uniformly random permutation of the labelled rows (a held-out subset of fixed size
``round(holdout_fraction * n)``, as :class:`~semiprivate.theory.privacy.model_selection.PrivateSearchCV`).

An (eps, delta)-DP base (delta > 0; e.g. DP-SGD) is reduced to the pure case (derived here, not a
theorem of the papers): for neighbours D, D' with output densities p, q of Q, let P ~ min(p, e^eps q)
and P' ~ min(q, e^eps p), normalised.  Their normalisers are >= 1 - delta (the hockey-stick
divergence is <= delta), so TV(Q(D), P) <= delta, TV(Q(D'), P') <= delta, and P, P' are
eps'-indistinguishable with ``eps' = eps + log(1/(1 - delta))``.  Coupling run by run, the best of
K runs moves by at most K delta in TV, E[K] delta over K.  The pure-DP theorem applies to (P, P'):
an (eps_A, delta_A) guarantee for them gives ``(eps_A, delta_A + (1 + e^eps_A) E[K] delta)`` for Q.
For LT19: ``(3 eps', (1 + e^{3 eps'}) delta / gamma)``.

Neighbouring data sets (the candidates' own ``privacy_`` must hold for this relation): the same
number n of labelled rows (n is public, as the learners treat it), one labelled row changed, public
rows fixed.  Couple the permutations: the changed row sits in S1 in both data sets or in S2 in both,
so Q is (max(eps_train, eps_score), delta_train)-DP (parallel composition), and its RDP curve is the
pointwise max of the training and Laplace curves (the sum, an upper bound, when dp-accounting
composes a ``DpEvent``).

``privacy_`` is the theorem's bound for the random K: a function of the parameters only, the same for
every run whatever K the coins gave.  K itself is **not** exposed (no ``n_fits_``): the guarantee is
for the output marginalised over K; given K = k the best of k runs is only (k eps)-DP in general
(k runs of eps-randomized response: P[some run says 1] changes by up to e^{k eps}), so nothing a process can
read after the search depends on K, other than the released values:

* neither the number of fits nor the losing runs' models or scores are kept;
* the runs' printed text, bytes on descriptors 1 and 2, warnings and log records are held back, the selected
  run's emitted afterwards (:func:`~semiprivate.theory.privacy._release.captured_runs`);
* every process-wide memo table of the package (:func:`semiprivate.kernels._memo.memo_table`, every
  :func:`~semiprivate.kernels._memo.memo`'s results: the halfspace learners' calibrations, the accounting module's
  epsilons and PLD compositions, multinomial DP-GD's, the exact samplers' tables, the exponential-mechanism
  kernel's score tables) is put back as it was before the search
  (:func:`~semiprivate.kernels._memo.tables_kept`): their keys, functions of the candidates' parameters, would
  show which candidates ran.  A memo is pure: a later call computes a dropped entry again, the same value;
* no entry the runs made stays in the public-rows record
  (:func:`~semiprivate.theory.privacy._release.sentinel_rows_kept`): no run's fitted step stays in it, a nested
  search's included, and none of the caller's entries is pushed out;
* a root-logger handler a run binds to the captured streams (a library's ``logging.basicConfig()``) is removed,
  every module's ``__warningregistry__`` (a losing run's warning) is put back, and the warnings-filter version does
  not move (``captured_runs``);
* with two searches open in two threads, the one that returns first has put the tables back all the same.
* the seed record (:mod:`semiprivate.theory.privacy.seeds`) keeps the search's release only: nested runs draw
  child streams of the search's own streams, recorded through the search's top streams, so its content (not only
  its size) is the same whatever K (``tests/theory/privacy/release/test_random_stopping_leaves_no_trace_of_k.py``).

Not covered (the guarantee assumes a base whose effect on them does not depend on K, PS22's setting): the running
time, which grows with K; files and sockets a base writes; module state of a user's base outside the registry;
modules a candidate's run imports first (``sys.modules``); and the caches of other libraries.  Measured with this
package's learners as the base (scikit-learn 1.9.1): dp-accounting, SciPy, NumPy and scikit-learn kept no
module-level container that changed (dp-accounting's absl logging state is put back: ``accounting._quiet_rdp_orders``
filters instead of setting a level, and removes a root handler absl's ``basicConfig`` added), but scikit-learn's input validation reaches narwhals'
``plugins._discover_entrypoints``, a ``functools.lru_cache`` whose ``cache_info()`` counts every call: a search
with ``SemiPrivateHalfspace`` as the base adds 4 + 8 K to it (12 with K = 1, 60 with K = 7; narwhals 2.29.0), so
code in the process that reads it learns K.

scikit-learn's ``GridSearchCV`` on private data is **not private** (it compares exact private scores
and refits the winner; the winner's ``privacy_`` covers one fit).

Examples
--------
>>> liu_talwar_privacy(0.5, 0.0, 0.1)
(1.5, 0.0)
>>> round(truncated_negative_binomial_mean(1.0, 0.25), 12), round(truncated_negative_binomial_mean(0.0, 0.5), 6)
(4.0, 1.442695)
"""

from __future__ import annotations

import math
from typing import Any

import dp_accounting
import numpy as np
from dp_accounting import dp_event
from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS, compute_epsilon
from scipy import special
from semiprivate.kernels._memo import tables_kept
from semiprivate.kernels.noise import discrete_laplace
from semiprivate.theory.privacy import _held_out_search as search
from semiprivate.theory.privacy._release import (
    Released,
    SideOutputs,
    base_streams,
    captured_runs,
    child_streams,
    quiet,
    sentinel_rows_kept,
)
from semiprivate.theory.privacy.accounting import group_of_two_epsilon
from semiprivate.theory.privacy.budget import laplace_scale
from semiprivate.validation import (
    DELTA,
    EPSILON,
    RNG,
    Options,
    Real,
    as_generator,
    validate_params,
)
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone

__all__ = [
    "RandomStoppingSearchCV",
    "search_privacy",
    "liu_talwar_privacy",
    "truncated_negative_binomial_pmf",
    "truncated_negative_binomial_mean",
    "sample_runs",
    "papernot_steinke_rdp",
    "pure_dp_rdp",
    "laplace_rdp",
    "discrete_laplace_rdp",
    "RDP_ORDERS",
]

#: Renyi orders used for the RDP accounting (dp-accounting's default orders, all > 1).
RDP_ORDERS: tuple[float, ...] = tuple(float(a) for a in DEFAULT_RDP_ORDERS)

_GAMMA = Real(0.0, 1.0, closed="right")
#: :class:`RandomStoppingSearchCV` refuses a (gamma, eta) whose expected number of fits E[K] exceeds this
MAX_EXPECTED_RUNS = 1e6
_ETA = Real(0.0, math.inf, closed="left")
_OPEN_DELTA = Real(0.0, 1.0, closed="neither")
_METHODS = Options("liu_talwar", "renyi")


def _pure_part(epsilon: float, delta: float) -> float:
    """eps' of the eps'-indistinguishable pair nearest to an (epsilon, delta)-DP pair (module docstring)."""
    return float(epsilon) - math.log1p(-float(delta)) if delta > 0.0 else float(epsilon)


def _approx_delta(eps_a: float, delta_a: float, delta: float, mean_runs: float) -> float:
    """delta_A + (1 + e^eps_A) E[K] delta: the pure-DP guarantee (eps_A, delta_A) moved back to Q (module docstring)."""
    if delta == 0.0:
        return float(delta_a)
    total = float(delta_a) + (1.0 + math.exp(eps_a)) * float(mean_runs) * float(delta)
    if not total < 1.0:
        raise ValueError(f"delta: a base delta of {delta!r} gives a total delta of {total:.3g} >= 1 (no guarantee); "
                         "use a smaller base delta or a larger gamma")
    return total


@validate_params(epsilon=EPSILON, delta=DELTA, gamma=_GAMMA)
def liu_talwar_privacy(epsilon: float, delta: float, gamma: float) -> tuple[float, float]:
    """(eps, delta) of LT19's random stopping (K ~ Geometric(gamma), output the best) around an
    (epsilon, delta)-DP base.

    Reference: LT19 Thm 3.4, ``(3 epsilon, 0)`` for ``delta == 0``; for ``delta > 0`` the reduction of
    the module docstring: ``(3 eps', (1 + e^{3 eps'}) delta / gamma)``, ``eps' = epsilon + log(1/(1 - delta))``.
    A total delta >= 1 is refused.
    """
    e = 3.0 * _pure_part(epsilon, delta)
    return (e, _approx_delta(e, 0.0, float(delta), 1.0 / float(gamma)))


def _tnb_first(eta: float, gamma: float) -> float:
    """P[K = 1] of D_{eta, gamma}."""
    if gamma == 1.0:
        return 1.0
    if eta == 0.0:
        return (1.0 - gamma) / math.log(1.0 / gamma)
    return (1.0 - gamma) * eta / math.expm1(-eta * math.log(gamma))


@validate_params(eta=_ETA, gamma=_GAMMA)
def truncated_negative_binomial_pmf(k: Any, eta: float, gamma: float) -> np.ndarray:
    """P[K = k] of PS22's truncated negative binomial D_{eta, gamma} (Def. 1) at integers k >= 1, in
    closed form through log-gamma functions (module docstring)."""
    kk = np.asarray(k)
    if kk.size == 0 or not np.issubdtype(kk.dtype, np.integer) or int(kk.min()) < 1:
        raise ValueError("k must be integers >= 1")
    e, g = float(eta), float(gamma)
    kf = kk.astype(float)
    if g == 1.0:
        return (kk == 1).astype(float)
    if e == 0.0:
        logp = kf * math.log1p(-g) - np.log(kf) - math.log(math.log(1.0 / g))
    else:
        logp = (kf * math.log1p(-g) + special.gammaln(kf + e) - special.gammaln(e) - special.gammaln(kf + 1.0)
                - math.log(math.expm1(-e * math.log(g))))
    return np.exp(logp)


@validate_params(eta=_ETA, gamma=_GAMMA)
def truncated_negative_binomial_mean(eta: float, gamma: float) -> float:
    """E[K] of D_{eta, gamma} (PS22 Def. 1; 1/gamma at eta = 1)."""
    e, g = float(eta), float(gamma)
    if g == 1.0:
        return 1.0
    if e == 0.0:
        return (1.0 / g - 1.0) / math.log(1.0 / g)
    return e * (1.0 - g) / (g * -math.expm1(e * math.log(g)))


#: above this E[K], :func:`sample_runs` inverts the CDF through the regularised incomplete beta function
#: (a bisection over k) instead of walking the pmf one k at a time
_WALK_MAX_MEAN = 1e5


def _tnb_survival(k: float, eta: float, gamma: float) -> float:
    """P[K > k] of D_{eta, gamma} for eta > 0: P[NB > k] / P[NB >= 1] with NB ~ NegBin(eta, gamma)
    (K is NB conditioned on NB >= 1), ``P[NB > k] = I_{1 - gamma}(k + 1, eta)``."""
    return float(special.betainc(k + 1.0, eta, 1.0 - gamma)) / -math.expm1(eta * math.log(gamma))


def _walk(u: float, eta: float, gamma: float) -> int:
    """The smallest k with P[K <= k] > u, walking the pmf by its ratio P[k+1]/P[k] = (1 - gamma)(k + eta)/(k + 1)
    in vectorised blocks (sequential cumprod/cumsum: the same floating-point values as one step at a time)."""
    p = _tnb_first(eta, gamma)
    cdf, k = p, 1
    if cdf > u or p <= 0.0:
        return 1
    block = 256
    while True:
        j = np.arange(k, k + block, dtype=float)
        ps = np.cumprod(np.concatenate(([p], (1.0 - gamma) * (j + eta) / (j + 1.0))))[1:]
        cdfs = np.cumsum(np.concatenate(([cdf], ps)))[1:]
        stop = np.flatnonzero((cdfs > u) | (ps <= 0.0))
        if stop.size:
            return k + 1 + int(stop[0])
        p, cdf, k = float(ps[-1]), float(cdfs[-1]), k + block
        block = min(2 * block, 1 << 20)


@validate_params(eta=_ETA, gamma=_GAMMA, rng=RNG)
def sample_runs(eta: float, gamma: float, rng: Any = None) -> int:
    """One draw of the number of runs K ~ D_{eta, gamma} (PS22 Def. 1; eta = 1: LT19's Geometric(gamma)),
    by inversion of its CDF with one uniform u: the smallest k with ``P[K <= k] > u``.

    The CDF is inverted in closed form for the geometric (eta = 1: ``k = floor(log(1-u) / log(1-gamma)) + 1``),
    by walking the pmf where E[K] <= 1e5, and otherwise by bisection over k on the survival function
    ``P[K > k] = I_{1-gamma}(k + 1, eta) / (1 - gamma^eta)`` (scipy's regularised incomplete beta), so a
    small gamma costs O(log(1/gamma)) work, not E[K] steps.  eta = 0 (the logarithmic law) with E[K] > 1e5
    has no closed-form CDF here and is refused (ValueError naming gamma).
    """
    g = as_generator(rng)
    u = float(g.random())
    eta_f, gm = float(eta), float(gamma)
    if gm == 1.0:
        return 1
    if eta_f == 1.0:
        return int(math.floor(math.log1p(-u) / math.log1p(-gm))) + 1
    if truncated_negative_binomial_mean(eta_f, gm) <= _WALK_MAX_MEAN:
        return _walk(u, eta_f, gm)
    if eta_f == 0.0:
        raise ValueError(f"gamma: eta = 0 with gamma = {gm!r} gives E[K] = "
                         f"{truncated_negative_binomial_mean(eta_f, gm):.3g} runs, more than {_WALK_MAX_MEAN:.0e}; "
                         "use a larger gamma or eta > 0")
    target = 1.0 - u  # P[K > k] < 1 - u  <=>  P[K <= k] > u
    lo, hi = 0, 1  # invariant: P[K > lo] >= target (P[K > 0] = 1), P[K > hi] < target once found
    while _tnb_survival(hi, eta_f, gm) >= target:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _tnb_survival(mid, eta_f, gm) >= target:
            lo = mid
        else:
            hi = mid
    return hi


def _orders(orders: Any) -> np.ndarray:
    try:
        a = np.asarray(orders, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"orders must be a non-empty 1-d array of finite Renyi orders > 1, got {orders!r}") from None
    if a.ndim != 1 or a.size == 0 or not np.all(a > 1.0) or not np.all(np.isfinite(a)):
        raise ValueError("orders must be a non-empty 1-d array of finite Renyi orders > 1")
    return a


@validate_params(epsilon=EPSILON)
def pure_dp_rdp(epsilon: float, orders: Any = RDP_ORDERS) -> np.ndarray:
    """RDP curve of any pure epsilon-DP mechanism: ``min(epsilon, lambda epsilon^2 / 2)`` (Bun-Steinke
    2016 Prop. 3.3: eps-DP implies eps^2/2-zCDP; and D_lambda <= D_inf = eps)."""
    a = _orders(orders)
    e = float(epsilon)
    return np.minimum(e, a * e * e / 2.0)


@validate_params(epsilon=EPSILON)
def laplace_rdp(epsilon: float, orders: Any = RDP_ORDERS) -> np.ndarray:
    """RDP curve of the Laplace mechanism with scale sensitivity/epsilon (Mironov 2017 Prop. 6, exact):
    ``eps + log(1 + (lambda - 1)(exp((1 - 2 lambda) eps) - 1) / (2 lambda - 1)) / (lambda - 1)``, lambda > 1."""
    a = _orders(orders)
    e = float(epsilon)
    return e + np.log1p((a - 1.0) * np.expm1((1.0 - 2.0 * a) * e) / (2.0 * a - 1.0)) / (a - 1.0)


@validate_params(epsilon=EPSILON)
def discrete_laplace_rdp(epsilon: float, orders: Any = RDP_ORDERS) -> np.ndarray:
    """RDP curve of the discrete Laplace ``P(z) ∝ exp(-epsilon |z|)`` on a sensitivity-1 integer query, exact.

    For the shift by one the privacy loss ``log P(z)/P(z - 1)`` is ``+epsilon`` for z <= 0 and
    ``-epsilon`` for z >= 1, with ``P[z <= 0] = p = 1/(1 + e^-epsilon)``: the loss distribution of binary
    randomized response, so ``D_lambda = log(p e^{(lambda-1) eps} + (1-p) e^{-(lambda-1) eps}) / (lambda - 1)``
    (both directions alike).  dp-accounting's ``RandomizedResponseDpEvent(2/(1 + e^eps), 2)`` under
    ``REPLACE_ONE`` has the same curve.
    """
    a = _orders(orders)
    e = float(epsilon)
    log_p = -np.logaddexp(0.0, -e)
    log_q = -np.logaddexp(0.0, e)
    return np.logaddexp(log_p + (a - 1.0) * e, log_q - (a - 1.0) * e) / (a - 1.0)


def _score_event(epsilon_score: float, replace_one: bool) -> Any:
    """The discrete Laplace score as a dp-accounting event: binary randomized response with the same loss
    distribution under REPLACE_ONE; eps^2/2-zCDP (Bun-Steinke 2016 Prop 1.4, any eps-DP mechanism) for the
    add/remove accountant, which has no randomized response."""
    e = float(epsilon_score)
    if replace_one:
        return dp_event.RandomizedResponseDpEvent(2.0 / (1.0 + math.exp(e)), 2)
    return dp_event.ZCDpEvent(e * e / 2.0)


def papernot_steinke_rdp(rdp: Any, eta: float, gamma: float, orders: Any = RDP_ORDERS) -> np.ndarray:
    """PS22 Thm 2: the RDP curve of the best of K ~ D_{eta, gamma} runs of a base with curve ``rdp``.

    ``eps'(lambda) = rdp(lambda) + (1 + eta) min_j [(1 - 1/lambda_j) rdp_j + log(1/gamma)/lambda_j]
    + log(E[K]) / (lambda - 1)``, the minimum over the given orders (lambda-hat); then made monotone
    in lambda (an RDP curve is non-decreasing, so a bound at a larger order holds at a smaller one)."""
    a = _orders(orders)
    r = np.asarray(rdp, dtype=float)
    if a.shape != r.shape or np.any(np.isnan(r)) or np.any(r < 0.0):
        raise ValueError("rdp must hold one non-negative RDP value per order")
    mean = truncated_negative_binomial_mean(eta, gamma)
    c = (1.0 + float(eta)) * float(np.min((1.0 - 1.0 / a) * r + math.log(1.0 / float(gamma)) / a))
    out = r + c + math.log(mean) / (a - 1.0)
    return np.minimum.accumulate(out[::-1])[::-1] if np.all(np.diff(a) > 0) else out


def search_privacy(method: str, base_privacy: tuple[float, float], epsilon_score: float, gamma: float, *,
                   eta: float = 1.0, delta: float = 1e-6,
                   base_event: Any = None) -> tuple[tuple[float, float], dict[str, Any]]:
    """(epsilon, delta) of :class:`RandomStoppingSearchCV` from its parameters alone (never from K), and
    the budget's details: LT19 Thm 3.4 (``"liu_talwar"``) or PS22 Thm 2 (``"renyi"``) around the base
    run Q = (training with ``base_privacy``, Laplace score with ``epsilon_score``), with the reduction
    of the module docstring for a training delta > 0."""
    _METHODS.validate("method", method)
    _GAMMA.validate("gamma", gamma)
    _ETA.validate("eta", eta)
    EPSILON.validate("epsilon_score", epsilon_score)
    _OPEN_DELTA.validate("delta", delta)
    bp = base_privacy
    if not (isinstance(bp, tuple | list) and len(bp) == 2):
        raise TypeError(f"base_privacy must be a pair (epsilon, delta), got {type(bp).__name__}")
    eps_t = float(EPSILON.validate("base_privacy[0]", bp[0]))
    dlt_t = float(DELTA.validate("base_privacy[1]", bp[1]))
    eps_s, gamma = float(epsilon_score), float(gamma)
    info: dict[str, Any] = {"training": (eps_t, dlt_t), "score": (eps_s, 0.0), "method": method}
    # the changed row is in S1 (training differs: (eps_t, delta_t), reduced to the pure eps_p at TV
    # cost delta_t) or in S2 (the Laplace score differs: pure eps_s); module docstring
    eps_p = _pure_part(eps_t, dlt_t)
    if method == "liu_talwar":
        if base_event is not None:
            raise ValueError("base_event: used by method='renyi' only (liu_talwar reads base_privacy)")
        e = 3.0 * max(eps_p, eps_s)
        mean = truncated_negative_binomial_mean(1.0, gamma)
        total = (e, _approx_delta(e, 0.0, dlt_t, mean))
        info.update(base_run=(max(eps_t, eps_s), dlt_t), eta=1.0, theorem="LT19 Thm 3.4", expected_runs=mean)
        return total, info
    eta = float(eta)
    mean = truncated_negative_binomial_mean(eta, gamma)
    info.update(eta=eta, theorem="PS22 Thm 2", expected_runs=mean)
    if base_event is not None:
        if not isinstance(base_event, dp_event.DpEvent):
            raise TypeError(f"base_event must be a dp_accounting.DpEvent, got {type(base_event).__name__}")
        # the search's neighbours replace one labelled row (module docstring): dp-accounting's RDP
        # accountant under REPLACE_ONE where it supports the event, else its add/remove curve with
        # group privacy of two (a replacement is a removal and an addition), as DP-SGD's accounting
        replace = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS),
                                                  neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        event = dp_event.RepeatAndSelectDpEvent(
            dp_event.ComposedDpEvent([base_event, _score_event(eps_s, True)]), mean, eta)
        if replace.supports(event):
            eps = float(replace.compose(event).get_epsilon(float(delta)))
            how = "REPLACE_ONE"
        else:
            event = dp_event.RepeatAndSelectDpEvent(
                dp_event.ComposedDpEvent([base_event, _score_event(eps_s, False)]), mean, eta)
            acc = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS))
            if not acc.supports(event):
                raise ValueError("base_event: dp-accounting's RDP accountant cannot account this event")
            acc.compose(event)
            eps = float(group_of_two_epsilon(acc.get_epsilon, float(delta)))
            how = "add/remove curve, group privacy of two"
        info.update(accounting=f"dp-accounting RepeatAndSelectDpEvent (training and score composed), {how}")
        return (eps, float(delta)), info
    orders = np.asarray(RDP_ORDERS)
    base_rdp = np.maximum(pure_dp_rdp(eps_p, orders), discrete_laplace_rdp(eps_s, orders))
    rdp = papernot_steinke_rdp(base_rdp, eta, gamma, orders)
    eps, order = compute_epsilon(orders, rdp, float(delta))
    total = (float(eps), _approx_delta(float(eps), float(delta), dlt_t, mean))
    info.update(accounting="PS22 Thm 2 on max(pure-DP curve, discrete Laplace curve); CKS20 conversion",
                order=float(order))
    return total, info


def _event_epsilon(event: Any, delta: float) -> float:
    """epsilon at ``delta`` of one run of ``event`` under the search's replace-one neighbours (dp-accounting's
    RDP accountant; the add/remove curve with group privacy of two where REPLACE_ONE is not supported)."""
    replace = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS),
                                              neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    if replace.supports(event):
        return float(replace.compose(event).get_epsilon(float(delta)))
    acc = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS))
    if not acc.supports(event):
        raise ValueError("base_event: dp-accounting's RDP accountant cannot account this event")
    acc.compose(event)
    return float(group_of_two_epsilon(acc.get_epsilon, float(delta)))


class RandomStoppingSearchCV(Released, search.SelectedEstimatorMixin, MetaEstimatorMixin, ClassifierMixin,
                             BaseEstimator):
    """Private hyper-parameter search by random stopping (LT19 / PS22; module docstring for the proofs).

    Parameters
    ----------
    estimator : classifier with ``privacy_`` after fit
        E.g. ``Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(...))])``.
    param_grid : dict or list of dicts
        Candidates (``ParameterGrid``); each run draws one uniformly.
    method : {"liu_talwar", "renyi"}
        ``"liu_talwar"``: K ~ Geometric(gamma) (LT19 Thm 3.4); ``"renyi"``: K ~ D_{eta, gamma} (PS22 Thm 2).
    gamma : float in (0, 1]
        Stopping probability (E[K] = 1/gamma for the geometric).
    eta : float >= 0
        Shape of the truncated negative binomial (``method="renyi"``; 1 = geometric, 0 = logarithmic).
    base_privacy : (epsilon, delta)
        The guarantee every candidate's training meets (e.g. the learner's ``epsilon``, ``delta``
        parameters, the largest over the grid); each fit's ``privacy_`` is checked against it.
    base_event : dp_accounting.DpEvent or None
        ``method="renyi"`` only: the training's event (e.g. DP-SGD's), accounted by dp-accounting
        instead of the curve derived from ``base_privacy``, under replace-one neighbours (group
        privacy of two over the add/remove curve where dp-accounting has no REPLACE_ONE RDP).  It
        must be each fit's own event (its ``privacy_event_``, e.g. the DP-SGD halfspace learners'):
        an (eps, delta) guarantee implies no RDP curve, so an event that merely dominates a fit's
        ``privacy_`` at one point is refused.
    epsilon_score : float
        Epsilon of the Laplace noise on each run's held-out correct count.
    delta : float in (0, 1)
        ``"renyi"``: the delta at which the RDP curve is converted (the reported delta adds the
        reduction's term for an approximate-DP training, module docstring); unused by ``"liu_talwar"``.
    holdout_fraction, unlabeled_label, rng
        As :class:`~semiprivate.theory.privacy.model_selection.PrivateSearchCV`.

    Attributes
    ----------
    best_estimator_, best_index_ (into ``candidates_``), best_params_, best_score_ (the selected run's
    noisy held-out count), candidates_, privacy_ (epsilon, delta) of the whole search, budget_ (dict),
    expected_runs_ (E[K]), classes_, n_features_in_.  No ``n_fits_``: K is not released (module docstring).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.pipeline import Pipeline
    >>> from sklearn.preprocessing import Normalizer
    >>> from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
    >>> X, y = load_digits(return_X_y=True)
    >>> y = y.copy(); y[:600] = -1
    >>> pipe = Pipeline([("norm", Normalizer()), ("clf", SemiPrivateHalfspace(
    ...     1.0, delta=1e-12, k=8, epochs=1, classes=range(10), unlabeled_label=-1))])
    >>> s = RandomStoppingSearchCV(pipe, {"clf__k": [4, 8]}, gamma=0.5, base_privacy=(1.0, 1e-12),
    ...                            epsilon_score=1.0, unlabeled_label=-1, rng=0).fit(X, y)
    >>> round(s.privacy_[0], 4), s.best_params_["clf__k"] in (4, 8)
    (3.0, True)
    """

    _releases = frozenset({"best_estimator_", "best_index_", "best_params_", "best_score_", "classes_",
                           "n_features_in_"})
    _public = frozenset({"candidates_", "privacy_", "expected_runs_", "budget_"})

    @validate_params(method=_METHODS, gamma=_GAMMA, eta=_ETA, epsilon_score=EPSILON, delta=_OPEN_DELTA,
                     holdout_fraction=search.HOLDOUT, rng=RNG)
    def __init__(self, estimator: Any, param_grid: Any, *, method: str = "liu_talwar", gamma: float = 0.2,
                 eta: float = 1.0, base_privacy: Any = (1.0, 0.0), base_event: Any = None,
                 epsilon_score: float = 1.0, delta: float = 1e-6, holdout_fraction: float = 0.2,
                 unlabeled_label: Any = None, rng: Any = None) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.method = method
        self.gamma = gamma
        self.eta = eta
        self.base_privacy = base_privacy
        self.base_event = base_event
        self.epsilon_score = epsilon_score
        self.delta = delta
        self.holdout_fraction = holdout_fraction
        self.unlabeled_label = unlabeled_label
        self.rng = rng

    def _account(self) -> tuple[tuple[float, float], dict[str, Any]]:
        return search_privacy(self.method, self.base_privacy, self.epsilon_score, self.gamma, eta=self.eta,
                              delta=self.delta, base_event=self.base_event)

    def _check_fit(self, est: Any) -> None:
        eps, dlt = search.privacy_of(est)  # refuses a fit without a finite guarantee
        if self.base_event is not None and self.method == "renyi":
            # the declared event must be the fit's own: the event of what ran (privacy_event_, e.g. DP-SGD's
            # composed Poisson-subsampled Gaussian), not an event that merely dominates the fit's (eps, delta) at
            # one point (an (eps, delta) guarantee implies no RDP curve: a delta-probability catastrophe has none)
            own = getattr(est, "privacy_event_", None)
            if own is None and hasattr(est, "steps"):
                own = getattr(est.steps[-1][1], "privacy_event_", None)
            if own is None or own != self.base_event:
                raise ValueError("base_event: a candidate's fit reports " + ("no privacy_event_ (the DpEvent of what "
                                 "ran)" if own is None else f"the event {own!r}, not the declared one") + "; a declared "
                                 "event must be the fit's own: declare that event, or use base_privacy (which pays "
                                 "for the fit's delta)")
            # and it claims no more than the fit itself guarantees.
            # Approximate fit (eps, delta > 0): the event's epsilon at that delta is at least eps.  Pure fit
            # (eps, 0): at the search's delta, the event's epsilon is at least what the pure-DP RDP curve
            # gives there (an event below it claims more than the fit)
            at = dlt if dlt > 0.0 else float(self.delta)
            need = eps if dlt > 0.0 else float(compute_epsilon(np.asarray(RDP_ORDERS),
                                                               pure_dp_rdp(eps, RDP_ORDERS), at)[0])
            got = _event_epsilon(self.base_event, at)
            if got < need * (1.0 - 1e-9):
                raise ValueError(f"base_event: a candidate's fit reports privacy_ ({eps:.6g}, {dlt:.3g}), but the "
                                 f"declared event gives epsilon {got:.6g} at delta {at:.3g}, a stronger claim than "
                                 f"the fit's ({need:.6g}); declare the training's own event (e.g. its DP-SGD "
                                 "PoissonSampledDpEvent)")
            return
        eps_b, dlt_b = float(self.base_privacy[0]), float(self.base_privacy[1])  # validated by _account
        if eps > eps_b * (1.0 + 1e-9) or dlt > dlt_b * (1.0 + 1e-9):
            raise ValueError(f"base_privacy: a candidate's fit reports privacy_ ({eps:.6g}, {dlt:.3g}), more than "
                             f"base_privacy ({eps_b:.6g}, {dlt_b:.3g}); declare the largest over param_grid")

    def fit(self, X: Any, y: Any, **fit_params: Any) -> RandomStoppingSearchCV:
        """Run the random-stopping search (module docstring); ``fit_params`` go to every fit."""
        _METHODS.validate("method", self.method)
        _GAMMA.validate("gamma", self.gamma)
        _ETA.validate("eta", self.eta)
        EPSILON.validate("epsilon_score", self.epsilon_score)
        _OPEN_DELTA.validate("delta", self.delta)
        search.HOLDOUT.validate("holdout_fraction", self.holdout_fraction)
        RNG.validate("rng", self.rng)
        search.check_base(self.estimator, self.unlabeled_label, "RandomStoppingSearchCV")
        total, info = self._account()
        if float(info["expected_runs"]) > MAX_EXPECTED_RUNS:  # each run is a full fit: refuse before any
            raise ValueError(f"gamma: gamma={self.gamma!r} (eta={info['eta']!r}) means {info['expected_runs']:.3g} "
                             f"fits on average, more than {MAX_EXPECTED_RUNS:.0e}; use a larger gamma")
        candidates = search.candidates_of(self.param_grid)
        configured = search.checked_candidates(self.estimator, candidates, self.unlabeled_label,
                                               "RandomStoppingSearchCV")
        # the process's memo tables are put back after the runs, whatever they computed (their keys would show which
        # candidates ran: how many runs there were), and no run's fitted step stays in the public-rows record
        with tables_kept(), sentinel_rows_kept():
            split = search.split_held_out(X, y, unlabeled_label=self.unlabeled_label,
                                          holdout_fraction=self.holdout_fraction, rng=self.rng)
            count_stream, run_streams = child_streams(split.rng, 2)
            runs = sample_runs(info["eta"], float(self.gamma), rng=count_stream)
            # the score's noise: discrete Laplace of scale 1/epsilon_score, the exact rational of the float given.
            # Every candidate choice and every score's noise is drawn here, in one call each, before the runs: no
            # sampler, cache or counter is called once per run (its state would count the hidden K)
            scale = laplace_scale(1, self.epsilon_score, "epsilon_score")
            choice_stream, noise_stream, fits = child_streams(run_streams, 3)
            choices = choice_stream.integers(len(candidates), size=runs)
            noises = np.asarray(discrete_laplace(scale, size=runs, rng=noise_stream), dtype=np.int64)
            best: tuple[int, int, Any, SideOutputs] | None = None
            # one capture around the whole loop (the interpreter's state changes once, whatever K): each run's
            # side output (printed text, descriptor writes, warnings, log records) is held in its own buffer, the
            # selected run's emitted afterwards, the others dropped
            with captured_runs() as capture:
                for r in range(runs):
                    index = int(choices[r])
                    est = clone(configured[index])
                    with capture.run() as side:
                        # its own child stream for the fit; no progress bar per run
                        with base_streams(est, child_streams(fits, 1)[0]), quiet(est):
                            est.fit(split.X_train, split.y_train, **fit_params)
                        self._check_fit(est)
                        correct = search.held_out_correct(est, split)  # predict's outputs are the run's too
                    score = correct + int(noises[r])
                    if best is None or score > best[0]:
                        best = (score, index, est, side)
        if best is None:  # sample_runs returns K >= 1
            raise RuntimeError("no run")
        score, index, est, side = best
        side.replay()  # the selected run's output only: the losing runs (and their number) stay hidden
        self.candidates_ = candidates
        self.best_index_ = index
        self.best_params_ = candidates[index]
        self.best_score_ = score
        self.privacy_ = total
        self.expected_runs_ = float(info["expected_runs"])
        self.budget_ = {**info, "total": total}
        self._keep_selected(est)
        return self

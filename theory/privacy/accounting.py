"""Privacy accounting of private SGD: dp-accounting events, epsilons and noise calibration.

Implements: DPSGD (accounting, Abadi et al. 2016, with the ``dp-accounting`` package's RDP and PLD
accountants) and BST14.NoisySGD (the theorem's epsilon for a noise scale, and the accountant's
epsilon of what ran).

* DP-SGD: replace-one neighbours by default (``relation="replace_one"``,
  ``NeighboringRelation.REPLACE_ONE``): one example of the same number n is replaced by any other,
  the relation of the ``"labelled"`` privacy model (:mod:`semiprivate.theory.learners._base`) and
  of Noisy SGD and PILLAR Alg 2.  Each step is a Poisson-subsampled Gaussian mechanism with
  sampling rate q and noise multiplier sigma on the sum of per-example gradients clipped to L2 norm
  C; ``steps`` of them compose: ``SelfComposedDpEvent(PoissonSampledDpEvent(q,
  GaussianDpEvent(sigma)), steps)``.  Under replace-one the slot of the replaced example is
  sampled with probability q in both datasets and carries g or g' (``||g||, ||g'|| <= C``), so a
  step's outputs are ``(1-q) N(0, s^2) + q N(-C, s^2)`` against ``(1-q) N(0, s^2) + q N(C, s^2)``
  (s = sigma C) in the worst, antipodal case (at q = 1: sensitivity 2C, so replace-one at noise
  multiplier 2 sigma is add/remove at sigma): the pair dp-accounting's ``PLDAccountant(REPLACE_ONE)``
  composes (``PrivacyLossDistribution.from_gaussian_mechanism(..., sampling_prob=q,
  neighboring_relation=REPLACE_ONE)``, ``AdjacencyType.REPLACE``; Zhu, Dong & Wang, AISTATS 2022,
  Sec 5; Lebeda, Regehr, Kamath & Steinke 2024, Sec 4).  ``RdpAccountant`` does not support the
  Poisson-subsampled Gaussian under REPLACE_ONE; ``accountant="rdp"`` therefore converts its
  add/remove-one epsilon by group privacy of size 2 (replace = remove, then add; Dwork & Roth
  2014, Thm 2.2 and its (epsilon, delta) form, Vadhan 2017 Lem 2.2): an (e, d) add/remove
  guarantee gives (2 e, (1 + e^e) d) under replace-one, with d <= delta / (1 + e^e) found by a
  fixed-point iteration on the RDP accountant's e(d) (looser than the PLD accountant, which is
  the default of the halfspace learners).  ``relation="add_or_remove_one"`` gives the accountants'
  own add/remove epsilon (canary insertion, as in the one-run audit).  An epsilon of 0 from RDP's
  conversion (it clips at 0 where no order certifies a positive epsilon) is never reported: the
  PLD accountant's epsilon of the same event and relation is.
* BST14: SPEC's statement of BST14 Thm 2.1 -- with ``sigma^2 = 32 L^2 n^2 log(n/delta)
  log(1/delta) / eps^2``, ``n^2`` steps of Noisy SGD are (eps, delta)-DP (replace-one neighbours);
  :func:`bst14_epsilon_from_sigma` inverts it.  :func:`noisy_sgd_accountant_epsilon` is
  dp-accounting's RDP epsilon of T Gaussian steps of L2 sensitivity 2 n L (the change of ``n grad l``
  when the sampled example is replaced) on one example sampled of n (REPLACE_ONE).

Examples
--------
>>> s = calibrate_noise_multiplier(1.0, 1e-5, 0.01, 1000, accountant="pld")
>>> dpsgd_epsilon(s, 0.01, 1000, 1e-5, accountant="pld") <= 1.0
True
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import optimize
from semiprivate.kernels._memo import memo_table
from semiprivate.theory.bounds import pillar as _pillar_bounds
from semiprivate.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    CallableConstraint,
    Options,
    Real,
    validate_params,
)

__all__ = [
    "compose_up",
    "bst14_epsilon_from_sigma",
    "noisy_sgd_accountant_epsilon",
    "dpsgd_event",
    "dpsgd_epsilon",
    "calibrate_noise_multiplier",
    "REPLACE_ONE",
    "ADD_OR_REMOVE_ONE",
    "group_of_two_epsilon",
    "MIN_NOISE_MULTIPLIER",
]

_ACCOUNTANTS = Options("rdp", "pld")

#: Neighbour relations DP-SGD can be accounted under (the default, replace-one, is the
#: ``"labelled"`` privacy model's: one labelled example replaced by another).
REPLACE_ONE = "replace_one"
ADD_OR_REMOVE_ONE = "add_or_remove_one"
_RELATIONS = Options(REPLACE_ONE, ADD_OR_REMOVE_ONE)


_MAX_NOISE_MULTIPLIER = 2.0**30

#: The smallest noise multiplier the calibration searches, by accountant.  RDP's epsilon costs the same at
#: any noise.  The PLD accountant's does not: one Gaussian step's privacy loss ``L(x)`` with sensitivity
#: ``2`` (replace-one, in units of the clip) and noise ``sigma`` spans ``[-m - t w, m + t w]`` with mean
#: ``m = 2 / sigma^2`` and spread ``w = 2 / sigma`` (``t`` ~ 7 standard deviations of truncation),
#: discretised at 1e-4 and then composed over the steps, so its grid grows like ``1 / sigma^2``: about
#: 4e5 points at sigma = 1/2, 2e10 at 2^-10 (hours), 5e15 at the sigma of epsilon = 1e308 (35 PiB).  At
#: 1/2 one PLD epsilon takes about 3 s of CPU on a 2-core Xeon; a target that sigma = 1/2 already meets
#: (epsilon above about 15 at 1000 steps of rate 0.01, delta 1e-5; or delta near 1) is spent at 1/2, and
#: the run reports the smaller epsilon it meets.
MIN_NOISE_MULTIPLIER = {"rdp": 2.0**-10, "pld": 0.5}


#: Noisy SGD's accountant epsilons by (n, noise multiplier, steps, delta): a registered memo table
#: (:func:`semiprivate.kernels._memo.memo_table`: no hit counter; put back after a search that hides its number of
#: runs), at most 4096 entries, oldest dropped first.
_NOISY_SGD_EPSILONS = memo_table(f"{__name__}._NOISY_SGD_EPSILONS", maxsize=4096)


@validate_params(n=POSITIVE_INT, lipschitz=POSITIVE_REAL, sigma=POSITIVE_REAL, delta=Real(0.0, 1.0, closed="neither"))
def bst14_epsilon_from_sigma(n: int, lipschitz: float, sigma: float, delta: float) -> float:
    """The epsilon for which BST14's noise formula gives ``sigma``: ``sigma_BST14(n, L, 1, delta) / sigma``.

    Implements: BST14.NoisySGD (privacy of Noisy SGD, SPEC Sec 7): inverts
    ``sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta) / eps^2`` (via
    :func:`semiprivate.theory.bounds.pillar.bst14_noise_scale` at eps = 1, so the formula has one home).

    >>> round(bst14_epsilon_from_sigma(1000, 1.0, _pillar_bounds.bst14_noise_scale(1000, 1.0, 0.5, 1e-5), 1e-5), 12)
    0.5
    """
    # the module attribute, not this module's name for it: the noise noisy_sgd draws and the
    # privacy it reports are computed independently (a changed noise scale shows in privacy)
    return float(_pillar_bounds.bst14_noise_scale(n, lipschitz, 1.0, delta) / float(sigma))


@validate_params(n=POSITIVE_INT, noise_multiplier=POSITIVE_REAL, steps=POSITIVE_INT,
                 delta=Real(0.0, 1.0, closed="neither"))
def noisy_sgd_accountant_epsilon(n: int, noise_multiplier: float, steps: int, delta: float) -> float:
    """dp-accounting RDP epsilon of ``steps`` Gaussian steps on one uniformly sampled example of n.

    Implements: BST14.NoisySGD (privacy of what ran, accounted by ``dp_accounting.rdp.RdpAccountant``
    with ``SampledWithoutReplacementDpEvent(n, 1, GaussianDpEvent(noise_multiplier))`` composed
    ``steps`` times under REPLACE_ONE; ``noise_multiplier = sigma / (2 n L)``).

    >>> noisy_sgd_accountant_epsilon(100, 50.0, 10_000, 1e-5) < 1.0
    True
    """
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    key = (int(n), float(noise_multiplier), int(steps), float(delta))

    def compute() -> float:  # a pure function of its arguments: every Noisy SGD run asks for it
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(int(n), 1,
                                                           dp_accounting.GaussianDpEvent(float(noise_multiplier))),
            int(steps))
        acc = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        with _quiet_rdp_orders():
            return float(acc.compose(event).get_epsilon(float(delta)))

    return float(_NOISY_SGD_EPSILONS.lookup(key, compute))


@contextlib.contextmanager
def _quiet_rdp_orders() -> Iterator[None]:
    """Silence dp-accounting's absl warning that an RDP order failed to converge.

    ``RdpAccountant`` then drops that order from the minimum over orders, which can only raise
    the epsilon it returns (still a valid bound); the warning is noise for a user (it fires for
    the low fractional orders at large sampling rates while the noise multiplier is calibrated).

    A filter on absl's logger, not ``setLevel`` (which empties every logger's level cache in the process: state
    that a search hiding its number of runs would leave behind).  absl's module-level ``logging.warning`` calls
    ``logging.basicConfig()`` when the root logger has no handler, whatever the level; a root handler added that way
    while the block runs is removed afterwards (it would bind the root logger to whatever ``sys.stderr`` was then,
    e.g. a search's capture buffer, and a user's later ``basicConfig`` would do nothing).
    """
    log = logging.getLogger("absl")
    root_before = list(logging.root.handlers)
    stderr_before = sys.stderr

    def quiet(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    log.addFilter(quiet)
    try:
        yield
    finally:
        log.removeFilter(quiet)
        if not root_before and logging.root.handlers:
            for handler in list(logging.root.handlers):
                # what absl's basicConfig() adds: a new plain StreamHandler on the sys.stderr of the block (a handler
                # another thread configured meanwhile, on another stream, stays)
                if type(handler) is logging.StreamHandler and getattr(handler, "stream", None) is stderr_before:
                    logging.root.removeHandler(handler)


def _accountant(kind: str, relation: str = ADD_OR_REMOVE_ONE) -> Any:
    """A fresh dp-accounting accountant (``"rdp"`` only under add/remove: see the module docstring)."""
    import dp_accounting

    rel = (dp_accounting.NeighboringRelation.REPLACE_ONE if relation == REPLACE_ONE
           else dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)
    if kind == "rdp":
        from dp_accounting.rdp import RdpAccountant

        if relation == REPLACE_ONE:
            raise ValueError("RdpAccountant does not support the Poisson-subsampled Gaussian under REPLACE_ONE")
        return RdpAccountant()
    from dp_accounting.pld import PLDAccountant

    return PLDAccountant(neighboring_relation=rel)


def _eps_at_value(eps_at: Any, d: float) -> float:
    """``eps_at(d)`` as a float, refusing what is not an epsilon (naming ``eps_at``)."""
    raw = eps_at(d)
    if isinstance(raw, bool) or not isinstance(raw, (int, float, np.integer, np.floating)) \
            and not (isinstance(raw, np.ndarray) and raw.shape == () and raw.dtype.kind in "iuf"):
        raise TypeError(f"eps_at must return a real number (an epsilon), got {type(raw).__name__} at delta={d:.3g}")
    e = float(raw)
    if math.isnan(e) or e < 0.0:
        raise ValueError(f"eps_at must return an epsilon >= 0 (or inf), got {e!r} at delta={d:.3g}")
    return e


@validate_params(eps_at=CallableConstraint(), delta=Real(0.0, 1.0, closed="neither"))
def group_of_two_epsilon(eps_at: Any, delta: float) -> float:
    """Replace-one epsilon at ``delta`` from an add/remove-one curve ``eps_at(d)`` by group privacy of size 2.

    (e, d) under add/remove gives (2 e, (1 + e^e) d) under replace-one (remove, then add).  The
    split d is the fixed point of ``d = delta / (1 + e^{eps_at(d)})``, approached from above with
    a 1e-9 relative margin; the returned 2 e is for a d that meets ``d (1 + e^e) <= delta``.
    Returns 0 when ``eps_at`` gives 0 (RDP's clipped conversion: the caller handles it).
    """
    log_delta = math.log(delta)
    d = delta / 2.0
    for _ in range(200):
        e = _eps_at_value(eps_at, d)
        if e <= 0.0:
            return 0.0
        log_factor = e + math.log1p(math.exp(-e))  # log(1 + e^e), without overflow
        if math.log(d) + log_factor <= log_delta:
            return 2.0 * e
        d = math.exp(log_delta - log_factor) * (1.0 - 1e-9)
        if d <= 0.0:  # e so large that no positive split is representable: no finite guarantee
            break
    return math.inf  # no split found (not reached for finite accountant epsilons)


def _raw_epsilon(noise_multiplier: float, q: float, steps: int, delta: float, accountant: str, relation: str,
                 compositions: int) -> float:
    """The accountant's epsilon of the DP-SGD event under ``relation`` (RDP's clipped 0 included)."""
    event = dpsgd_event(noise_multiplier, q, steps, compositions)
    if accountant == "rdp" and relation == REPLACE_ONE:
        curve = _accountant("rdp")  # composed once; the split search reads its epsilon at several deltas
        with _quiet_rdp_orders():
            curve.compose(event)

        def at(d: float) -> float:
            with _quiet_rdp_orders():
                return float(curve.get_epsilon(d))

        return group_of_two_epsilon(at, delta)
    if accountant == "pld":
        return float(_composed_pld(event, float(noise_multiplier), float(q), int(steps) * int(compositions),
                                   relation).get_epsilon(delta))
    acc = _accountant(accountant, relation)
    with _quiet_rdp_orders():
        return float(acc.compose(event).get_epsilon(delta))


#: Composed PLD accountants of DP-SGD events, by (relation, noise multiplier, sampling rate, total steps): public
#: parameters in, a composition out (the first events a process asks for; see ``_keep_composed`` for why it is never
#: emptied).  The composition is the PLD accountant's whole
#: cost (seconds at small noise: MIN_NOISE_MULTIPLIER) and does not depend on delta, so an event already composed
#: -- the calibrated noise a run then reports, another delta, c compositions of T steps as c T steps -- is read
#: off the same composition: the same epsilon as a fresh accountant's, to the bit.  At most
#: ``_PLD_COMPOSED_MAX`` entries (one at the PLD floor holds ~10 MB).  A registered table
#: (:func:`semiprivate.kernels._memo.memo_table`, ``when_full="keep"``): a search that hides its number of runs puts
#: it back afterwards.
_PLD_COMPOSED_MAX = 8
_PLD_COMPOSED = memo_table(f"{__name__}._PLD_COMPOSED", maxsize=_PLD_COMPOSED_MAX, when_full="keep")


def _composed_pld(event: Any, noise_multiplier: float, q: float, total_steps: int, relation: str, *,
                  keep: bool = True) -> Any:
    key = (relation, noise_multiplier, q, total_steps)
    acc = _PLD_COMPOSED.get(key)
    if acc is None:
        acc = _accountant("pld", relation)
        with _quiet_rdp_orders():
            acc.compose(event)
        if keep:
            _keep_composed(key, acc)
    return acc


def _keep_composed(key: tuple[str, float, float, int], acc: Any) -> None:
    """Store one composition: at most one new key per public call, and none once the table is full (it is never
    emptied or evicted), so the table is the first ``_PLD_COMPOSED_MAX`` distinct events a process asked for.
    Repeating any sequence of calls leaves it as the first pass left it: it shows which public events were asked
    for, never how often (a table emptied when full cycles with the number of calls -- a run count, such as
    random stopping's K, would be readable from the process's state)."""
    _PLD_COMPOSED.store(key, acc)


@validate_params(noise_multiplier=POSITIVE_REAL, sampling_rate=Real(0.0, 1.0, closed="right"), steps=POSITIVE_INT,
                 compositions=POSITIVE_INT)
def dpsgd_event(noise_multiplier: float, sampling_rate: float, steps: int, compositions: int = 1) -> Any:
    """The ``dp_accounting`` event of DP-SGD: ``steps * compositions`` Poisson-subsampled Gaussian steps.

    Implements: DPSGD (accounting).  ``compositions`` runs of the same (q, sigma, steps) -- e.g.
    one-vs-rest over several classes on the same data -- compose into one self-composed event.

    >>> dpsgd_event(1.0, 0.01, 10).count
    10
    """
    import dp_accounting

    if int(steps) * int(compositions) > sys.maxsize:  # dp-accounting counts compositions in a C ssize_t
        raise ValueError(f"steps: steps * compositions = {int(steps) * int(compositions):.3g} is more than "
                         f"{sys.maxsize} (2^63 - 1) compositions, which dp-accounting cannot count")
    step = dp_accounting.PoissonSampledDpEvent(float(sampling_rate), dp_accounting.GaussianDpEvent(float(noise_multiplier)))
    return dp_accounting.SelfComposedDpEvent(step, int(steps) * int(compositions))


@validate_params(noise_multiplier=POSITIVE_REAL, sampling_rate=Real(0.0, 1.0, closed="right"), steps=POSITIVE_INT,
                 delta=Real(0.0, 1.0, closed="neither"), accountant=_ACCOUNTANTS, compositions=POSITIVE_INT,
                 relation=_RELATIONS)
def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float, *,
                  accountant: str = "rdp", compositions: int = 1, relation: str = REPLACE_ONE) -> float:
    """Epsilon at ``delta`` of DP-SGD, by ``dp_accounting`` (RDP or PLD accountant), under ``relation``.

    Implements: DPSGD (accounting).  ``relation="replace_one"`` (default; the ``"labelled"``
    model's): ``PLDAccountant(REPLACE_ONE)``'s epsilon of :func:`dpsgd_event`, or for
    ``accountant="rdp"`` the RDP accountant's add/remove epsilon converted by group privacy of
    size 2 (see the module docstring).  ``relation="add_or_remove_one"``: the accountants' own
    add/remove epsilon.  Nothing else is re-derived here.

    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5, accountant="pld"), 4)
    2.8434
    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5, accountant="pld", relation="add_or_remove_one"), 4)
    1.8282
    """
    eps = _raw_epsilon(float(noise_multiplier), float(sampling_rate), int(steps), float(delta), accountant, relation,
                       int(compositions))
    if accountant == "rdp" and (eps <= 0.0 or math.isinf(eps)):
        # RDP's conversion clips to 0 where no order certifies a positive epsilon, and the replace-one
        # split of delta underflows (inf) where the add/remove epsilon passes ~745; neither is reported:
        # the PLD accountant's (pessimistic) epsilon of the same event is, where its grid is bounded (noise at
        # least its floor, MIN_NOISE_MULTIPLIER); below it no finite epsilon is reported (inf: no claim)
        if float(noise_multiplier) < MIN_NOISE_MULTIPLIER["pld"]:
            return math.inf
        return dpsgd_epsilon(noise_multiplier, sampling_rate, steps, delta, accountant="pld",
                             compositions=compositions, relation=relation)
    return eps


@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), sampling_rate=Real(0.0, 1.0, closed="right"),
                 steps=POSITIVE_INT, accountant=_ACCOUNTANTS, compositions=POSITIVE_INT, relation=_RELATIONS)
def calibrate_noise_multiplier(epsilon: float, delta: float, sampling_rate: float, steps: int, *,
                               accountant: str = "rdp", compositions: int = 1, relation: str = REPLACE_ONE) -> float:
    """Smallest noise multiplier (to 1e-6 relative) whose DP-SGD epsilon at ``delta`` is <= ``epsilon``.

    Implements: DPSGD (noise calibration), under the same ``relation`` and accountant as
    :func:`dpsgd_epsilon` (default replace-one, the ``"labelled"`` model's).  A bracket [hi/2, hi]
    is found by doubling from 1 (or halving, when 1/2 already meets ``epsilon``; for PLD the walk starts
    at the power of two where the cheaper RDP accountant first meets ``epsilon`` and ends on the same
    bracket); inside it
    ``dp_accounting.calibrate_dp_mechanism``'s search (Brent's method on the accountant's epsilon, which
    returns a point meeting the target; run here on the walk's own evaluations, same result) where dp-accounting has the accountant (PLD under either
    relation, RDP under add/remove), and bisection on the group-of-two epsilon for RDP under
    replace-one; tolerance 1e-7 hi <= 2e-7 sigma*.  The result always meets ``epsilon`` with the
    same accountant and relation.  Noise below :data:`MIN_NOISE_MULTIPLIER` is not searched (2^-10 for
    RDP, 1/2 for PLD, whose cost grows like 1/sigma^2: see there): when the floor already meets ``epsilon``
    (a very large epsilon, or delta near 1), the floor is returned.  RDP's conversion to (epsilon, delta) cannot certify small
    epsilons (below about ``log(1/delta) / alpha_max``): it returns values above the target and
    then 0 from some noise multiplier on; a target only met by that 0 is refused (use the PLD
    accountant).

    Raises
    ------
    ValueError
        Naming ``epsilon`` when no noise multiplier up to 2^30 reaches it (epsilon too small for
        this many steps / this budget split), or when the RDP accountant meets it only by rounding
        to 0.

    Examples
    --------
    >>> s = calibrate_noise_multiplier(1.0, 1e-5, 0.01, 1000, accountant="pld")
    >>> e = lambda x: dpsgd_epsilon(x, 0.01, 1000, 1e-5, accountant="pld")
    >>> e(s) <= 1.0 < e(s * 0.999)
    True
    """
    eps, dl, q, T, c = float(epsilon), float(delta), float(sampling_rate), int(steps), int(compositions)

    seen: dict[float, float] = {}  # this call's evaluations (walk and Brent share them): local, no hit counter
    composed: dict[float, Any] = {}  # this call's PLD compositions: only the result's is kept in _PLD_COMPOSED

    def result(s: float) -> float:
        if s in composed:
            _keep_composed((relation, float(s), q, T * c), composed[s])
        return s

    def eps_of(s: float) -> float:  # the accountant's own epsilon (RDP's 0 included: refused below)
        if s not in seen:
            if accountant == "pld":  # read the table, keep this call's compositions local (see _keep_composed)
                composed[s] = _composed_pld(dpsgd_event(s, q, T, c), s, q, T * c, relation, keep=False)
                seen[s] = float(composed[s].get_epsilon(dl))
            else:
                seen[s] = _raw_epsilon(s, q, T, dl, accountant, relation, c)
        return seen[s]

    hi = 1.0
    if accountant == "pld":
        # where the walk starts: the power of two at which the RDP accountant (cheap, and looser) first meets
        # epsilon.  The PLD accountant's cost grows like 1/sigma^2, so its walk below starts there instead of at
        # 1 and steps down; it ends on the same bracket (the power-of-two interval where the PLD epsilon, which
        # decreases in the noise, crosses epsilon), so the result is the one the walk from 1 gives
        while hi < _MAX_NOISE_MULTIPLIER and _raw_epsilon(hi, q, T, dl, "rdp", relation, c) > eps:
            hi *= 2.0
    while eps_of(hi) > eps:
        hi *= 2.0
        if hi > _MAX_NOISE_MULTIPLIER:
            raise ValueError(
                f"epsilon={eps:g} is too small for this budget split: no noise multiplier <= 2^30 reaches it at "
                f"delta={dl:g} with sampling rate {q:g}, {T} steps and {c} composition(s); raise epsilon or lower "
                "the number of steps / classes")
    lo = hi / 2.0
    floor = MIN_NOISE_MULTIPLIER[accountant]
    while lo > floor and eps_of(lo) <= eps:
        hi, lo = lo, lo / 2.0
    if eps_of(lo) <= eps:  # even tiny noise meets the target
        return result(lo)
    if accountant == "rdp" and relation == REPLACE_ONE:
        sigma = _bisection_read_ahead(eps_of, eps, lo, hi, 1e-7 * hi, seen)
    else:
        sigma = _calibrate_on_bracket(lambda s: eps_of(float(s)) - eps, lo, hi, 1e-7 * hi)
    if accountant == "rdp" and eps_of(sigma) <= 0.0:
        raise ValueError(
            f"epsilon={eps:g} is below what the RDP accountant certifies here: its conversion jumps to 0 at "
            f"noise multiplier {sigma:.6g} without passing epsilon={eps:g} (a far noisier run than needed); use "
            "accountant='pld'")
    return result(sigma)


def _bisection_read_ahead(eps_of: Any, eps: float, lo: float, hi: float, tol: float, seen: dict[float, float]) -> float:
    """The bisection ``while hi - lo > tol: mid = (lo + hi) / 2; hi = mid if eps_of(mid) <= eps else lo = mid``
    (invariant ``eps_of(lo) > eps >= eps_of(hi)``; returns ``hi``), with most midpoints read off.

    The bisection's path depends only on which side of the crossing each midpoint lies.  Brent's method on
    ``eps_of(s) - eps`` first evaluates a few points that close in on the crossing from both sides (``seen``
    holds every evaluation); then the bisection runs as written, except that a midpoint at or above the
    smallest point seen to meet ``eps`` is taken to meet it, and one at or below the largest point seen not to
    meet it is taken not to (the epsilon decreases in the noise: the bisection's own premise).  Only the
    midpoints between those two are evaluated (one or two).  If the points seen contradict that order, or an
    epsilon is not finite, every midpoint is evaluated, as before.  So the result is the bisection's, in about 10
    accountant runs instead of about 27.  The end returned is always evaluated: if a read-off end does not meet
    ``eps`` (the accountant not monotone between the points seen), the plain bisection runs from the start, so
    the result meets ``eps`` as the plain bisection's does.
    """
    def gap(s: float) -> float:
        return eps_of(float(s)) - eps

    if math.isfinite(gap(lo)) and math.isfinite(gap(hi)):
        try:
            optimize.brentq(gap, lo, hi, xtol=tol / 8)
        except (ValueError, RuntimeError):  # a non-finite value, or no convergence: evaluate every midpoint
            pass
    meets = [s for s, e in seen.items() if e <= eps]
    misses = [s for s, e in seen.items() if e > eps]
    meet_min, miss_max = min(meets, default=math.inf), max(misses, default=-math.inf)
    ordered = miss_max < meet_min and all(math.isfinite(e) for e in seen.values())
    start = (lo, hi)
    while hi - lo > tol:  # invariant: eps_of(lo) > eps >= eps_of(hi)
        mid = 0.5 * (lo + hi)
        if ordered and mid >= meet_min:
            hi = mid
        elif ordered and mid <= miss_max:
            lo = mid
        elif eps_of(mid) <= eps:
            hi = mid
            meet_min = min(meet_min, mid)
        else:
            lo = mid
            miss_max = max(miss_max, mid)
    if eps_of(hi) <= eps:  # a read-off end is checked (the caller reads this evaluation again): it meets epsilon
        return hi
    lo, hi = start  # the accountant is not monotone here after all: every midpoint evaluated, as before
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if eps_of(mid) <= eps:
            hi = mid
        else:
            lo = mid
    return hi


def _calibrate_on_bracket(gap: Any, lo: float, hi: float, tol: float) -> float:
    """``dp_accounting.calibrate_dp_mechanism``'s search on the explicit bracket ``[lo, hi]``, step for step.

    ``gap(s)`` is the accountant's epsilon at noise ``s`` minus the target, read from the calling
    calibration's own evaluations: Brent's method (``scipy.optimize.brentq``, ``xtol=tol``) starts from
    the two bracket ends the walk has already evaluated, and its final check re-reads the root it
    evaluated last, so neither is recomputed (each is a full PLD accountant run, the dearest at the
    low end).  Then, as there: the root if its gap is <= 0, else ``root + tol`` or ``root - tol`` if its
    gap is < 0, else bisection keeping a point of non-positive gap.  Same points, same arithmetic, so
    the same noise multiplier to the last bit (tested against ``calibrate_dp_mechanism`` itself).
    """
    root, result = optimize.brentq(gap, lo, hi, xtol=tol, full_output=True)
    if result.converged:
        if gap(root) <= 0:
            return float(root)
        if gap(root + tol) < 0:
            return float(root + tol)
        if gap(root - tol) < 0:
            return float(root - tol)
    lower, upper = lo, hi  # dp-accounting's fallback: bisection to a point of non-positive gap
    lower_value, upper_value = gap(lower), gap(upper)
    while True:
        if lower_value == 0:
            return float(lower)
        if upper_value == 0:
            return float(upper)
        if upper - lower <= tol:
            return float(lower if lower_value < 0 else upper)
        middle = (lower + upper) / 2
        middle_value = gap(middle)
        if middle_value == 0:
            return float(middle)
        if lower_value * middle_value < 0:
            upper, upper_value = middle, middle_value
        else:
            lower, lower_value = middle, middle_value


def compose_up(*values: float) -> float:
    """The basic composition of ``values`` (epsilons, or deltas) rounded UP to a float: the smallest float at
    or above their exact sum.

    Implements: DR14 Thm 3.16 (basic composition: the parameters add).  The exact mechanisms of the toolkit
    spend each epsilon as the exact rational of its float, so the reported total must not fall below the
    exact rational sum (``math.fsum(0.1, 0.7) = 0.7999999999999999`` is below ``Fraction(0.1) +
    Fraction(0.7)``: a claim of pure DP at it would be false).

    >>> compose_up(0.1, 0.7) >= 0.8
    True
    >>> Fraction(compose_up(0.1, 0.7)) >= Fraction(0.1) + Fraction(0.7)
    True
    """
    exact = sum((Fraction(float(v)) for v in values), Fraction(0))
    out = float(exact)
    if Fraction(out) < exact:
        out = math.nextafter(out, math.inf)
    return out


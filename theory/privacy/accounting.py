"""Privacy accounting of private SGD: dp-accounting events, epsilons and noise calibration.

Implements: DPSGD (accounting, Abadi et al. 2016, with the ``dp-accounting`` package's RDP and PLD
accountants) and BST14.NoisySGD (the theorem's epsilon for a noise scale, and the accountant's
epsilon of what ran).

* DP-SGD: add/remove-one neighbours (``NeighboringRelation.ADD_OR_REMOVE_ONE``).  Each step is a
  Poisson-subsampled Gaussian mechanism with sampling rate q and noise multiplier sigma on the sum
  of per-example gradients clipped to L2 norm C (sensitivity C under add/remove); ``steps`` of them
  compose: ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), steps)``,
  evaluated by ``dp_accounting.rdp.RdpAccountant`` or ``dp_accounting.pld.PLDAccountant``.  An
  epsilon of 0 from RDP's conversion (it clips at 0 where no order certifies a positive epsilon) is
  never reported: the PLD accountant's epsilon of the same event is.
* BST14: SPEC's statement of BST14 Thm 2.1 -- with ``sigma^2 = 32 L^2 n^2 log(n/delta)
  log(1/delta) / eps^2``, ``n^2`` steps of Noisy SGD are (eps, delta)-DP (replace-one neighbours);
  :func:`bst14_epsilon_from_sigma` inverts it.  :func:`noisy_sgd_accountant_epsilon` is
  dp-accounting's RDP epsilon of T Gaussian steps of L2 sensitivity 2 n L (the change of ``n grad l``
  when the sampled example is replaced) on one example sampled of n (REPLACE_ONE).

Examples
--------
>>> s = calibrate_noise_multiplier(1.0, 1e-5, 0.01, 1000)
>>> dpsgd_epsilon(s, 0.01, 1000, 1e-5) <= 1.0
True
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from semiprivate.kernels.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    Options,
    Real,
    validate_params,
)
from semiprivate.theory.bounds import pillar as _pillar_bounds

__all__ = [
    "bst14_epsilon_from_sigma",
    "noisy_sgd_accountant_epsilon",
    "dpsgd_event",
    "dpsgd_epsilon",
    "calibrate_noise_multiplier",
]

_ACCOUNTANTS = Options("rdp", "pld")


_MAX_NOISE_MULTIPLIER = 2.0**30


_NOISY_SGD_EPSILONS: dict[tuple[int, float, int, float], float] = {}


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
    if key not in _NOISY_SGD_EPSILONS:  # a pure function of its arguments: every Noisy SGD run asks for it
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.SampledWithoutReplacementDpEvent(int(n), 1,
                                                           dp_accounting.GaussianDpEvent(float(noise_multiplier))),
            int(steps))
        acc = RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        with _quiet_rdp_orders():
            if len(_NOISY_SGD_EPSILONS) >= 4096:
                _NOISY_SGD_EPSILONS.clear()
            _NOISY_SGD_EPSILONS[key] = float(acc.compose(event).get_epsilon(float(delta)))
    return _NOISY_SGD_EPSILONS[key]


@contextlib.contextmanager
def _quiet_rdp_orders() -> Iterator[None]:
    """Silence dp-accounting's absl warning that an RDP order failed to converge.

    ``RdpAccountant`` then drops that order from the minimum over orders, which can only raise
    the epsilon it returns (still a valid bound); the warning is noise for a user (it fires for
    the low fractional orders at large sampling rates while the noise multiplier is calibrated).
    """
    log = logging.getLogger("absl")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _accountant(kind: str) -> Any:
    if kind == "rdp":
        from dp_accounting.rdp import RdpAccountant

        return RdpAccountant()
    from dp_accounting.pld import PLDAccountant

    return PLDAccountant()


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

    step = dp_accounting.PoissonSampledDpEvent(float(sampling_rate), dp_accounting.GaussianDpEvent(float(noise_multiplier)))
    return dp_accounting.SelfComposedDpEvent(step, int(steps) * int(compositions))


@validate_params(noise_multiplier=POSITIVE_REAL, sampling_rate=Real(0.0, 1.0, closed="right"), steps=POSITIVE_INT,
                 delta=Real(0.0, 1.0, closed="neither"), accountant=_ACCOUNTANTS, compositions=POSITIVE_INT)
def dpsgd_epsilon(noise_multiplier: float, sampling_rate: float, steps: int, delta: float, *,
                  accountant: str = "rdp", compositions: int = 1) -> float:
    """Epsilon at ``delta`` of DP-SGD, by ``dp_accounting`` (RDP or PLD accountant).

    Implements: DPSGD (accounting; add/remove-one neighbours).  Nothing is re-derived here: the
    event of :func:`dpsgd_event` goes to ``RdpAccountant`` / ``PLDAccountant`` and their
    ``get_epsilon(delta)`` is returned.

    >>> round(dpsgd_epsilon(1.0, 0.01, 1000, 1e-5), 4)
    2.1014
    """
    acc = _accountant(accountant)
    with _quiet_rdp_orders():
        acc.compose(dpsgd_event(noise_multiplier, sampling_rate, steps, compositions))
        eps = float(acc.get_epsilon(float(delta)))
    if accountant == "rdp" and eps <= 0.0:
        # RDP's conversion clips to 0 where no order certifies a positive epsilon; an epsilon of 0 is
        # never reported: the PLD accountant's (pessimistic) epsilon of the same event is
        return dpsgd_epsilon(noise_multiplier, sampling_rate, steps, delta, accountant="pld",
                             compositions=compositions)
    return eps


@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), sampling_rate=Real(0.0, 1.0, closed="right"),
                 steps=POSITIVE_INT, accountant=_ACCOUNTANTS, compositions=POSITIVE_INT)
def calibrate_noise_multiplier(epsilon: float, delta: float, sampling_rate: float, steps: int, *,
                               accountant: str = "rdp", compositions: int = 1) -> float:
    """Smallest noise multiplier (to 1e-6 relative) whose DP-SGD epsilon at ``delta`` is <= ``epsilon``.

    Implements: DPSGD (noise calibration) with ``dp_accounting.calibrate_dp_mechanism`` (Brent's
    method on the accountant's epsilon) inside a bracket [hi/2, hi] found by doubling from 1 (or
    halving, when 1/2 already meets ``epsilon``), with tolerance 1e-7 hi <= 2e-7 sigma*.
    ``calibrate_dp_mechanism`` returns a point whose epsilon is <= the target (it steps Brent's root
    by the tolerance to the private side, or bisects), so the result always meets ``epsilon`` with
    the same accountant.  RDP's conversion to (epsilon, delta) cannot certify small epsilons (below
    about ``log(1/delta) / alpha_max``): it returns values above the target and then 0 from some
    noise multiplier on; a target only met by that 0 is refused (use the PLD accountant).  Noise below 2^-10 is not searched: when 2^-10 already meets ``epsilon``,
    2^-10 is returned.

    Raises
    ------
    ValueError
        Naming ``epsilon`` when no noise multiplier up to 2^30 reaches it (epsilon too small for
        this many steps / this budget split), or when the RDP accountant meets it only by rounding
        to 0.

    Examples
    --------
    >>> s = calibrate_noise_multiplier(1.0, 1e-5, 0.01, 1000)
    >>> dpsgd_epsilon(s, 0.01, 1000, 1e-5) <= 1.0 < dpsgd_epsilon(s * 0.999, 0.01, 1000, 1e-5)
    True
    """
    import dp_accounting

    eps, dl, q, T, c = float(epsilon), float(delta), float(sampling_rate), int(steps), int(compositions)

    def eps_of(s: float) -> float:  # the accountant's own epsilon (RDP's 0 included: refused below)
        acc = _accountant(accountant)
        with _quiet_rdp_orders():
            return float(acc.compose(dpsgd_event(s, q, T, c)).get_epsilon(dl))

    hi = 1.0
    while eps_of(hi) > eps:
        hi *= 2.0
        if hi > _MAX_NOISE_MULTIPLIER:
            raise ValueError(
                f"epsilon={eps:g} is too small for this budget split: no noise multiplier <= 2^30 reaches it at "
                f"delta={dl:g} with sampling rate {q:g}, {T} steps and {c} composition(s); raise epsilon or lower "
                "the number of steps / classes")
    lo = hi / 2.0
    while lo > 1e-3 and eps_of(lo) <= eps:
        hi, lo = lo, lo / 2.0
    if eps_of(lo) <= eps:  # even tiny noise meets the target
        return lo
    with _quiet_rdp_orders():
        sigma = float(dp_accounting.calibrate_dp_mechanism(
            lambda: _accountant(accountant),
            lambda s: dpsgd_event(float(s), q, T, c),
            eps, dl, bracket_interval=dp_accounting.ExplicitBracketInterval(lo, hi), tol=1e-7 * hi))
    if accountant == "rdp":
        acc = _accountant("rdp")
        with _quiet_rdp_orders():
            raw = float(acc.compose(dpsgd_event(sigma, q, T, c)).get_epsilon(dl))
        if raw <= 0.0:
            raise ValueError(
                f"epsilon={eps:g} is below what the RDP accountant certifies here: its conversion jumps to 0 at "
                f"noise multiplier {sigma:.6g} without passing epsilon={eps:g} (a far noisier run than needed); use "
                "accountant='pld'")
    return sigma

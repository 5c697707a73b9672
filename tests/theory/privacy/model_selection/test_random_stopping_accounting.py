"""RandomStoppingSearchCV's privacy_ (semiprivate.theory.privacy.random_stopping) equals the theorems'
formulas, recomputed here independently of the module: Liu-Talwar's 3 eps (and the approximate-DP
reduction), Papernot-Steinke Thm 2 with the RDP-to-DP conversion written out, and dp-accounting's own
RepeatAndSelectDpEvent.  privacy_ never depends on the number of runs the coins produced.

No statistical test here (all exact, up to floating-point tolerance)."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting import dp_event
from scipy import stats
from semiprivate.theory.privacy.accounting import group_of_two_epsilon
from semiprivate.theory.privacy.random_stopping import (
    RDP_ORDERS,
    RandomStoppingSearchCV,
    liu_talwar_privacy,
    papernot_steinke_rdp,
    search_privacy,
    truncated_negative_binomial_mean,
    truncated_negative_binomial_pmf,
)
from sklearn.base import BaseEstimator, ClassifierMixin


class _Counted(ClassifierMixin, BaseEstimator):
    """Predicts ``label`` everywhere; claims privacy_ = (eps, delta); counts its fits (test-side only)."""

    fits = 0

    def __init__(self, label=1, eps=0.5, delta=0.0, event=None):
        self.label = label
        self.eps = eps
        self.delta = delta
        self.event = event

    def fit(self, X, y):
        type(self).fits += 1
        self.classes_ = np.array([0, 1])
        self.privacy_ = (self.eps, self.delta)
        if self.event is not None:
            self.privacy_event_ = self.event  # the event of what ran, as a DP-SGD learner reports it
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


X10, Y10 = np.zeros((40, 1)), np.ones(40, dtype=int)


def _conversion(orders, rdp, delta):
    """Canonne-Kamath-Steinke 2020 Prop. 12: eps = min_a rdp(a) + log(1 - 1/a) - log(delta a) / (a - 1)."""
    return min(r + math.log1p(-1.0 / a) - math.log(delta * a) / (a - 1.0) for a, r in zip(orders, rdp, strict=True))


def _ps_thm2(orders, rdp, eta, gamma):
    """PS22 Thm 2 written out, then the monotone envelope over larger orders."""
    if eta == 0:
        mean = (1 / gamma - 1) / math.log(1 / gamma)
    else:
        mean = eta * (1 - gamma) / (gamma * (1 - gamma**eta))
    c = (1 + eta) * min((1 - 1 / lh) * rh + math.log(1 / gamma) / lh for lh, rh in zip(orders, rdp, strict=True))
    raw = [r + c + math.log(mean) / (a - 1) for a, r in zip(orders, rdp, strict=True)]
    return [min(raw[j:]) for j in range(len(raw))], mean


@pytest.mark.parametrize(("eps_t", "eps_s", "gamma"), [(0.5, 0.3, 0.1), (0.2, 1.0, 0.5), (1.0, 1.0, 1.0)])
def test_liu_talwar_pure_is_three_times_the_base(eps_t, eps_s, gamma):
    s = RandomStoppingSearchCV(_Counted(eps=eps_t), {"label": [0, 1]}, gamma=gamma, base_privacy=(eps_t, 0.0),
                               epsilon_score=eps_s, rng=0).fit(X10, Y10)
    assert s.privacy_ == (3 * max(eps_t, eps_s), 0.0)
    assert s.expected_runs_ == pytest.approx(1 / gamma)


@pytest.mark.parametrize(("eps", "delta", "gamma"), [(1.0, 1e-9, 0.2), (0.3, 1e-6, 0.05)])
def test_liu_talwar_approximate_base(eps, delta, gamma):
    """eps' = eps + log(1/(1 - delta)); (3 eps', (1 + e^{3 eps'}) delta / gamma)."""
    e = 3 * (eps + math.log(1 / (1 - delta)))
    want = (e, (1 + math.exp(e)) * delta / gamma)
    assert liu_talwar_privacy(eps, delta, gamma) == pytest.approx(want, rel=1e-12)
    s = RandomStoppingSearchCV(_Counted(eps=eps, delta=delta), {"label": [0, 1]}, gamma=gamma,
                               base_privacy=(eps, delta), epsilon_score=eps / 2, rng=1).fit(X10, Y10)
    assert s.privacy_ == pytest.approx(want, rel=1e-12)


def test_a_total_delta_of_one_is_refused():
    with pytest.raises(ValueError, match="delta"):
        liu_talwar_privacy(1.0, 1e-2, 0.01)


@pytest.mark.parametrize(("eps_t", "eps_s", "eta", "gamma", "delta"),
                         [(0.5, 0.5, 1.0, 0.1, 1e-6), (1.0, 0.3, 0.0, 0.05, 1e-5), (0.3, 0.8, 2.0, 0.2, 1e-8),
                          (0.5, 0.5, 0.5, 0.01, 1e-6)])
def test_renyi_pure_base_is_ps_thm2_then_the_conversion(eps_t, eps_s, eta, gamma, delta):
    orders = [float(a) for a in RDP_ORDERS]
    base = []
    for a in orders:
        pure = min(eps_t, a * eps_t**2 / 2)  # Bun-Steinke: eps-DP => (a, a eps^2/2)-RDP; and D_a <= eps
        # the score's discrete Laplace: the privacy loss of a unit shift is +-eps_s with randomized response's
        # probabilities p = e^eps/(1 + e^eps), 1 - p
        log_p, log_q = eps_s - math.log1p(math.exp(eps_s)), -math.log1p(math.exp(eps_s))
        hi, lo = log_p + (a - 1) * eps_s, log_q - (a - 1) * eps_s
        dlap = (hi + math.log1p(math.exp(lo - hi))) / (a - 1)
        base.append(max(pure, dlap))
    rdp, mean = _ps_thm2(orders, base, eta, gamma)
    want = _conversion(orders, rdp, delta)
    s = RandomStoppingSearchCV(_Counted(eps=eps_t), {"label": [0, 1]}, method="renyi", gamma=gamma, eta=eta,
                               base_privacy=(eps_t, 0.0), epsilon_score=eps_s, delta=delta, rng=2).fit(X10, Y10)
    assert s.privacy_[0] == pytest.approx(want, rel=1e-9)
    assert s.privacy_[1] == delta
    assert s.expected_runs_ == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize(("eta", "gamma"), [(1.0, 0.1), (0.0, 0.2), (0.5, 0.05), (3.0, 0.3)])
def test_ps_thm2_matches_dp_accounting_repeat_and_select(eta, gamma):
    """Our Thm 2 against dp-accounting's independent implementation (RepeatAndSelectDpEvent), Laplace base."""
    orders = list(RDP_ORDERS)
    lap = dp_event.LaplaceDpEvent(1 / 0.7)
    mean = truncated_negative_binomial_mean(eta, gamma)
    event = dp_event.RepeatAndSelectDpEvent(lap, mean, eta)
    ref = dp_accounting.rdp.RdpAccountant(orders).compose(event)
    mine = papernot_steinke_rdp([0.7 + math.log1p((a - 1) * math.expm1((1 - 2 * a) * 0.7) / (2 * a - 1)) / (a - 1)
                                 for a in orders], eta, gamma, orders)
    for d in (1e-5, 1e-8):
        assert _conversion(orders, mine, d) == pytest.approx(ref.get_epsilon(d), rel=1e-6)


def test_renyi_with_a_dp_accounting_event_is_dp_accountings_number():
    train = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.05, dp_event.GaussianDpEvent(1.5)), 200)
    s = RandomStoppingSearchCV(_Counted(eps=2.0, delta=1e-5, event=train), {"label": [0, 1]}, method="renyi",
                               gamma=0.2, eta=1.0, base_event=train, epsilon_score=0.5, delta=1e-5, rng=0).fit(X10, Y10)
    # the discrete Laplace score at eps 0.5 is (0.5, 0)-DP, hence 0.125-zCDP (Bun-Steinke 2016 Prop 1.4), the form
    # the add/remove accountant reads
    ev = dp_event.RepeatAndSelectDpEvent(dp_event.ComposedDpEvent([train, dp_event.ZCDpEvent(0.125)]), 5.0, 1.0)
    # dp-accounting has no REPLACE_ONE RDP for the Poisson-subsampled Gaussian: its add/remove curve, group of two
    add_remove = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS)).compose(ev)
    assert s.privacy_ == pytest.approx((group_of_two_epsilon(add_remove.get_epsilon, 1e-5), 1e-5))
    assert s.privacy_[0] > add_remove.get_epsilon(1e-5) * 1.5  # the add/remove number alone would understate it


def test_renyi_with_an_event_dp_accounting_supports_under_replace_one_uses_it():
    train = dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(20.0), 10)
    s = RandomStoppingSearchCV(_Counted(eps=0.5, delta=1e-5, event=train), {"label": [0, 1]}, method="renyi",
                               gamma=0.2, eta=1.0, base_event=train, epsilon_score=0.5, delta=1e-5, rng=0).fit(X10, Y10)
    # the discrete Laplace score: binary randomized response with the same loss, p = 2/(1 + e^0.5)
    score = dp_event.RandomizedResponseDpEvent(2 / (1 + math.exp(0.5)), 2)
    ev = dp_event.RepeatAndSelectDpEvent(dp_event.ComposedDpEvent([train, score]), 5.0, 1.0)
    acc = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS), neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    assert s.privacy_ == pytest.approx((acc.compose(ev).get_epsilon(1e-5), 1e-5))


def test_renyi_approximate_base_adds_the_reduction_delta():
    eps, dlt, gamma, eta, delta = 0.5, 1e-9, 0.1, 1.0, 1e-6
    (e_pure, d_pure), _ = search_privacy("renyi", (eps + math.log(1 / (1 - dlt)), 0.0), 0.5, gamma, eta=eta,
                                         delta=delta)
    (e, d), _ = search_privacy("renyi", (eps, dlt), 0.5, gamma, eta=eta, delta=delta)
    assert e == pytest.approx(e_pure, rel=1e-12)
    assert d == pytest.approx(delta + (1 + math.exp(e)) * (1 / gamma) * dlt, rel=1e-12)


@pytest.mark.parametrize(("eta", "gamma"), [(1.0, 0.3), (0.0, 0.4), (0.5, 0.1), (2.5, 0.2)])
def test_pmf_and_mean_are_the_zero_truncated_negative_binomial(eta, gamma):
    """D_{eta,gamma} = scipy's nbinom(eta, gamma) conditioned on >= 1 (logser(1 - gamma) at eta = 0)."""
    k = np.arange(1, 60)
    if eta == 0:
        ref, mean = stats.logser(1 - gamma).pmf(k), stats.logser(1 - gamma).mean()
    else:
        nb = stats.nbinom(eta, gamma)
        ref, mean = nb.pmf(k) / nb.sf(0), nb.mean() / nb.sf(0)
    np.testing.assert_allclose(truncated_negative_binomial_pmf(k, eta, gamma), ref, rtol=1e-10)
    assert truncated_negative_binomial_mean(eta, gamma) == pytest.approx(mean, rel=1e-12)


def test_privacy_does_not_depend_on_how_many_runs_the_coins_gave():
    got, runs = set(), set()
    for seed in range(30):
        _Counted.fits = 0
        s = RandomStoppingSearchCV(_Counted(eps=0.4), {"label": [0, 1]}, method="renyi", gamma=0.3,
                                   base_privacy=(0.4, 0.0), rng=seed).fit(X10, Y10)
        got.add(s.privacy_)
        runs.add(_Counted.fits)
    assert len(runs) >= 4  # the coins did give different numbers of runs
    assert len(got) == 1


def test_a_base_event_that_is_not_the_fit_s_own_is_refused():
    """An (eps, delta) fit implies no RDP curve: an event that merely dominates it at one point is refused."""
    train = dp_event.GaussianDpEvent(2.199)
    for base in (_Counted(eps=1.0, delta=0.01), _Counted(eps=1.0, delta=0.01, event=dp_event.GaussianDpEvent(3.0))):
        with pytest.raises(ValueError, match="base_event"):
            RandomStoppingSearchCV(base, {"label": [0, 1]}, method="renyi", gamma=0.5, base_event=train,
                                   epsilon_score=0.5, rng=0).fit(X10, Y10)

"""SemiPrivateMultinomial: privacy_ from what ran (against an independent accounting and against the noise
actually in the output), scikit-learn conventions, no generator kept, public rows by argument, accuracy."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import chi2, norm
from semiprivate.theory.learners.multinomial import (
    AUTO_K_DIVISOR,
    AUTO_STEPS_MAX,
    AUTO_STEPS_MIN,
    SemiPrivateMultinomial,
    auto_dimension,
    auto_steps,
)
from semiprivate.theory.privacy.public_rows import PrivacyWarning
from semiprivate.theory.privacy.seeds import separate_seed_record
from sklearn.base import clone
from sklearn.datasets import load_digits


def _gdp_epsilon(mu: float, delta: float) -> float:
    def excess(e: float) -> float:
        return float(norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta)

    return float(brentq(excess, 0.0, 200.0, xtol=1e-12))


def _gdp_mu(epsilon: float, delta: float) -> float:
    """The mu whose GDP curve passes through (epsilon, delta)."""
    def excess(mu: float) -> float:
        return float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2) - delta)

    return float(brentq(excess, 1e-6, 100.0, xtol=1e-14))


@pytest.fixture(scope="module")
def digits() -> tuple[np.ndarray, ...]:
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(len(y))
    X, y = X[perm], y[perm]
    return X[:1250], y[:1250], X[1250:1430], X[1430:], y[1430:]


def test_privacy_matches_an_independent_accounting(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, _, _ = digits
    clf = SemiPrivateMultinomial(1.0, 1e-5, n_iter=50, classes=range(10), random_state=0).fit(X, y, X_public=P)
    eps, delta = clf.privacy_
    assert delta == 1e-5 and eps <= 1.0
    # the run: 50 steps, Gaussian noise sigma*clip on a sum of sensitivity 2*clip (replace-one): mu = 2 sqrt(T)/sigma
    exact = _gdp_epsilon(2 * math.sqrt(50) / clf.noise_multiplier_, 1e-5)
    assert exact * (1 - 1e-6) <= eps <= exact * (1 + 1e-3)
    assert eps >= 0.99  # the budget is used, not wasted


def test_output_noise_is_the_noise_privacy_accounts_for() -> None:
    """All-zero private features and no public rows: every feature weight is pure noise, -(lr/n) sigma clip N(0,1)
    (one step, average 1).  The sigma implied by privacy_ (inverting the Gaussian-DP curve) must explain the
    observed variance: chi-square band at false-failure rate 1e-6 over 4000 weights.  Reporting the epsilon of a
    doubled noise, or drawing half the noise, moves the ratio to 1/4 or 4."""
    n, d = 40, 2000
    X = np.zeros((n, d))
    y = np.arange(n) % 2
    clf = SemiPrivateMultinomial(2.0, 1e-5, projection="none", n_iter=1, average=1.0, learning_rate=0.5, clip=1.0,
                                 classes=[0, 1], random_state=4).fit(X, y)
    eps, delta = clf.privacy_
    sigma_claimed = 2.0 / _gdp_mu(eps, delta)  # T = 1
    s = 0.5 / n * sigma_claimed * 1.0
    stat = float(np.sum(clf.coef_**2) / s**2)
    assert chi2.ppf(5e-7, clf.coef_.size) < stat < chi2.ppf(1 - 5e-7, clf.coef_.size)


def test_accuracy_on_digits_at_epsilon_one(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, Xt, yt = digits
    clf = SemiPrivateMultinomial(1.0, 1e-5, classes=range(10), random_state=1).fit(X, y, X_public=P)
    # the learner's defaults (frozen from other data): measured 0.80-0.85 over seeds 0-7 (0.84 at seed 1), the
    # issue's target is 0.65; non-private logistic regression 0.96
    assert clf.score(Xt, yt) >= 0.7
    loose = SemiPrivateMultinomial(10.0, 1e-5, classes=range(10), random_state=2).fit(X, y, X_public=P)
    assert loose.score(Xt, yt) >= 0.88  # measured 0.924-0.948 over seeds 0-7


def test_scikit_learn_conventions(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, Xt, _ = digits
    est = SemiPrivateMultinomial(0.5, 1e-6, projection="random", k=7, n_iter=20, clip=0.5, learning_rate=1.0,
                                 average=0.3, classes=list(range(10)), random_state=3)
    params = est.get_params()
    assert params["classes"] == list(range(10)) and params["k"] == 7 and params["random_state"] == 3
    c = clone(est)
    assert c.get_params() == params
    fitted = est.fit(X, y, X_public=P)
    assert fitted is est and est.get_params() == params  # parameters unchanged by fit
    again = clone(est).fit(X, y, X_public=P)
    np.testing.assert_array_equal(again.predict(Xt), est.predict(Xt))  # same seed, same output
    est2 = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(est2.decision_function(Xt), est.decision_function(Xt))
    assert est.coef_.shape == (10, 64) and est.components_.shape == (64, 7) and est.k_ == 7


def _values(obj: object, depth: int = 0) -> list[object]:
    out: list[object] = [obj]
    if depth > 4:
        return out
    if isinstance(obj, dict):
        for v in obj.values():
            out += _values(v, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out += _values(v, depth + 1)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for v in vars(obj).values():
            out += _values(v, depth + 1)
    return out


@pytest.mark.parametrize("projection", ["pca", "random"])
def test_no_generator_or_seed_sequence_is_kept(digits: tuple[np.ndarray, ...], projection: str) -> None:
    X, y, P, _, _ = digits
    est = SemiPrivateMultinomial(1.0, n_iter=5, projection=projection, classes=range(10), random_state=5).fit(X, y, X_public=P)
    kept = [v for v in _values(est) if isinstance(v, (np.random.Generator, np.random.SeedSequence,
                                                      np.random.BitGenerator))]
    assert kept == []


def test_a_generator_rng_gives_fresh_child_streams(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, _, _ = digits
    g = np.random.default_rng(9)
    a = SemiPrivateMultinomial(1.0, n_iter=5, classes=range(10), random_state=g).fit(X, y, X_public=P).coef_
    b = SemiPrivateMultinomial(1.0, n_iter=5, classes=range(10), random_state=g).fit(X, y, X_public=P).coef_
    assert not np.array_equal(a, b)  # the second fit draws new noise from the same generator


def test_public_fit_reads_public_rows_only(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, _, _ = digits
    a = SemiPrivateMultinomial(1.0, n_iter=5, classes=range(10), random_state=0).fit(X, y, X_public=P)
    X2 = X.copy()
    X2[:100] *= 3.0
    with separate_seed_record():  # the same coins on purpose: only the private rows differ
        b = SemiPrivateMultinomial(1.0, n_iter=5, classes=range(10), random_state=0).fit(X2, y, X_public=P)
    np.testing.assert_array_equal(a.scaler_.mean_, b.scaler_.mean_)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert a.k_ == b.k_


def test_label_set_read_from_private_labels_has_no_guarantee(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, _, _ = digits
    with pytest.warns(PrivacyWarning, match="classes="):
        est = SemiPrivateMultinomial(1.0, n_iter=5, random_state=0).fit(X, y, X_public=P)
    assert est.privacy_ == (math.inf, 0.0)


def test_bad_inputs_are_refused_without_echoing_labels(digits: tuple[np.ndarray, ...]) -> None:
    X, y, P, _, _ = digits
    with pytest.raises(ValueError, match="X_public is required"):
        SemiPrivateMultinomial(1.0, classes=range(10)).fit(X, y)
    with pytest.raises(ValueError, match="k must be"):
        SemiPrivateMultinomial(1.0, k=0, classes=range(10)).fit(X, y, X_public=P)
    with pytest.raises(ValueError, match="k must be"):
        SemiPrivateMultinomial(1.0, k=500, classes=range(10)).fit(X, y, X_public=P)
    y2 = y.copy()
    y2[3] = 4242
    with pytest.raises(ValueError, match="outside the declared classes") as info:
        SemiPrivateMultinomial(1.0, classes=range(10)).fit(X, y2, X_public=P)
    assert "4242" not in str(info.value)
    with pytest.raises(ValueError, match="epsilon"):
        SemiPrivateMultinomial(-1.0)
    est = SemiPrivateMultinomial(1.0, classes=range(10))
    est.set_params(n_iter=0)
    with pytest.raises(ValueError, match="n_iter"):
        est.fit(X, y, X_public=P)


def test_auto_dimension_grows_with_the_budget_and_stops_at_the_spectrum() -> None:
    ratio = np.array([0.4, 0.3, 0.2, 0.08, 0.015, 0.005])
    assert auto_dimension(ratio, 100, 0.1, divisor=16) == 2  # round(100 * 0.1 / 16) = 1, raised to 2
    assert auto_dimension(ratio, 1000, 0.05, divisor=16) == 3
    assert auto_dimension(ratio, 1000, 0.05, divisor=8) == 5  # a smaller divisor keeps more components
    assert auto_dimension(ratio, 10**6, 1.0) == 5  # 99% of the public variance is in the first 5
    # the default divisor is the frozen one
    assert auto_dimension(ratio, 1000, 0.05) == auto_dimension(ratio, 1000, 0.05, divisor=AUTO_K_DIVISOR)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert auto_dimension([1.0], 10, 1.0) == 1
    with pytest.raises(ValueError, match="divisor"):
        auto_dimension(ratio, 100, 0.1, divisor=0.0)


def test_auto_steps_follow_the_budget_and_the_rows_within_bounds() -> None:
    # T = round(noise n mu / (lr clip)), clipped to [min_steps, max_steps]
    assert auto_steps(124, 0.719, 4.0, 0.5, noise=0.4) == 18  # wine-sized, epsilon 3: 0.4 * 124 * 0.719 / 2
    assert auto_steps(1258, 0.268, 4.0, 0.5, noise=0.4) == 67
    assert auto_steps(10, 0.01, 4.0, 0.5) == AUTO_STEPS_MIN
    assert auto_steps(10**6, 5.0, 4.0, 0.5) == AUTO_STEPS_MAX
    assert auto_steps(1000, 0.5, 4.0, 0.5) < auto_steps(1000, 1.0, 4.0, 0.5) < auto_steps(2000, 1.0, 4.0, 0.5)
    assert auto_steps(1000, 1.0, 2.0, 0.5) == 2 * auto_steps(1000, 1.0, 4.0, 0.5)  # a smaller step: more of them
    with pytest.raises(ValueError, match="min_steps"):
        auto_steps(100, 1.0, 1.0, 1.0, min_steps=50, max_steps=10)


@pytest.mark.usefixtures("seed_reuse_allowed")  # refits one seed on several datasets (a test harness)
def test_default_steps_come_from_the_budget_and_privacy_covers_them(digits: tuple[np.ndarray, ...]) -> None:
    from semiprivate.theory.privacy.multinomial_dpgd import full_batch_noise_multiplier

    X, y, P, _, _ = digits
    for eps in (0.3, 3.0):
        clf = SemiPrivateMultinomial(eps, 1e-5, classes=range(10), random_state=0).fit(X, y, X_public=P)
        mu = 2.0 / full_batch_noise_multiplier(eps, 1e-5, 1)
        assert clf.n_iter_ == auto_steps(len(y), mu, clf.learning_rate, clf.clip)
        assert clf.budget_["steps"] == clf.n_iter_ and clf.privacy_[0] <= eps
        exact = _gdp_epsilon(2 * math.sqrt(clf.n_iter_) / clf.noise_multiplier_, 1e-5)  # what ran
        assert exact * (1 - 1e-6) <= clf.privacy_[0] <= exact * (1 + 1e-3)
    with pytest.raises(ValueError, match="n_iter"):
        SemiPrivateMultinomial(1.0, n_iter="many")

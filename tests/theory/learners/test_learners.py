"""KLNRS.Generic, ABM19.Alg1 (ASSPP) / ABM19.Thm3.1, ABM19.Alg2-4 / ABM19.Lem4.4."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from semiprivate.theory.bounds.abm19 import (
    abm19_private_sample_size,
    abm19_public_data_reduction,
    abm19_public_sample_size,
)
from semiprivate.theory.classes import (
    Disjunctions,
    FiniteClass,
    Halfspaces,
    Intervals,
    PointFunctions,
    Rectangles,
    Thresholds,
)
from semiprivate.theory.distributions import (
    IntervalDistribution,
    MixtureDistribution,
    RandomLabelDistribution,
    ThresholdDistribution,
    uniform_points,
)
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.reduction import ReductionLearner, priv_samp, pub_samp, reduction_sample_size

# ---------------------------------------------------------------------------------------
# ASSPP accuracy at the Thm 3.1 sizes.  n_pub: exact Lem 3.3 inequality (paper's constants);
# n_priv: (d log(1/alpha) + log(1/beta)) max(1/alpha^2, 1/(eps alpha)) with hidden constant 1
# (abm19_private_sample_size default).  Claim: excess error <= alpha w.p. >= 1 - beta.
# Check: >= 1 - beta of seeded trials.  Observed excess errors are ~10x below alpha for
# thresholds, so the false-failure rate is negligible; a learner that ignores the private data
# (uniform choice from the cover) has excess error ~ 1/3 on average and fails.
# ---------------------------------------------------------------------------------------


def _excess_errors(cls, D, vc, alpha, beta, eps, trials):
    n_pub = abm19_public_sample_size(vc, alpha, beta)
    n_priv = abm19_private_sample_size(vc, alpha, beta, eps)
    out = []
    for seed in range(trials):
        g = np.random.default_rng(seed)
        Xp, yp = D.sample(n_priv, g)
        L = ASSPP(eps, random_state=g, concept_class=cls).fit(Xp, yp, D.sample_X(n_pub, g))
        assert L.privacy_ == (eps, 0.0)
        out.append(D.error(L.hypothesis_) - D.optimal_error)
    return np.array(out)


@pytest.mark.parametrize("noise", [0.0, 0.15], ids=["realizable", "agnostic"])
def test_asspp_thresholds_at_theorem_sizes(noise):
    alpha, beta = 0.1, 0.1
    ex = _excess_errors(Thresholds(64), ThresholdDistribution(64, 2**63 + 12345, noise), 1, alpha, beta, 1.0, 30)
    assert np.mean(ex <= alpha) >= 1 - beta


@pytest.mark.slow
@pytest.mark.parametrize("noise", [0.0, 0.1], ids=["realizable", "agnostic"])
def test_asspp_intervals_at_theorem_sizes(noise):
    alpha, beta = 0.3, 0.25
    ex = _excess_errors(Intervals(20), IntervalDistribution(20, (100000, 700000), noise), 2, alpha, beta, 1.0, 8)
    assert np.mean(ex <= alpha) >= 1 - beta


@pytest.mark.parametrize(
    "cls,Xpub,Xpriv",
    [
        (PointFunctions(6), [1, 5, 9, 33], [1, 2]),
        (Rectangles(3, 2), [[0, 0], [3, 4], [7, 7]], [[0, 0], [3, 3]]),
        (Disjunctions(4, 2), [[1, 0, 0, 0], [0, 1, 1, 0]], [[1, 0, 0, 0], [0, 0, 0, 1]]),
        (Halfspaces(2, affine=True), [[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0]], [[0.5, 0.5], [-2.0, 0.1]]),
        (FiniteClass(np.eye(5, dtype=int)), [0, 1, 2], [3, 4]),
    ],
)
def test_asspp_runs_for_every_class(cls, Xpub, Xpriv):
    L = ASSPP(2.0, random_state=0, concept_class=cls).fit(Xpriv, [1, 0], Xpub)
    assert L.privacy_ == (2.0, 0.0)
    assert L.predict(Xpriv).shape == (2,)
    hyps, p = L.output_distribution(Xpriv, [1, 0], Xpub)
    assert len(hyps) == len(p) == len(L.cover_)


# ---------------------------------------------------------------------------------------
# Exact privacy: output-distribution ratios on neighbouring private samples <= e^eps.
# ---------------------------------------------------------------------------------------

samples = st.lists(st.tuples(st.integers(0, 15), st.integers(0, 1)), min_size=1, max_size=7)


def _max_log_ratio(p, q):
    return float(np.max(np.abs(np.log(p) - np.log(q))))


@settings(max_examples=25, deadline=None)
@given(samples, st.integers(0, 15), st.integers(0, 1), st.floats(0.05, 3.0))
def test_klnrs_exact_privacy_ratio(data, x_new, y_new, eps):
    X, y = [a for a, _ in data], [b for _, b in data]
    Xn, yn = X[:-1] + [x_new], y[:-1] + [y_new]
    L = GenericPrivateLearner(eps, concept_class=Intervals(4))
    assert _max_log_ratio(L.output_distribution(X, y), L.output_distribution(Xn, yn)) <= eps + 1e-12


@settings(max_examples=25, deadline=None)
@given(samples, st.integers(0, 15), st.integers(0, 1), st.floats(0.05, 3.0),
       st.lists(st.integers(0, 15), min_size=1, max_size=6))
def test_asspp_exact_privacy_ratio(data, x_new, y_new, eps, public):
    """ABM19.Lem3.2: ASSPP is eps-DP in its labelled sample for every public sample (exact output
    distributions of neighbouring samples; the sampler fit uses is checked in the tests below)."""
    X, y = [a for a, _ in data], [b for _, b in data]
    Xn, yn = X[:-1] + [x_new], y[:-1] + [y_new]
    L = ASSPP(eps, concept_class=Intervals(4))
    h1, p = L.output_distribution(X, y, public)
    h2, q = L.output_distribution(Xn, yn, public)
    assert h1 == h2
    assert _max_log_ratio(p, q) <= eps + 1e-12


def test_privacy_ratio_check_has_power():
    """The ratio check separates a correct mechanism from a broken one: on this neighbouring
    pair the epsilon = 1 mechanism has max log-ratio in (1/2, 1], while a mechanism that
    forgot the factor 1/2 in exp(eps q / 2) (i.e. runs at 2 eps) exceeds 1."""
    X, y, Xn, yn = [1, 2, 6, 7], [1, 1, 0, 0], [1, 2, 6, 0], [1, 1, 0, 1]
    good = GenericPrivateLearner(1.0, concept_class=Thresholds(3))
    r = _max_log_ratio(good.output_distribution(X, y), good.output_distribution(Xn, yn))
    assert 0.5 < r <= 1.0 + 1e-12
    broken = GenericPrivateLearner(2.0, concept_class=Thresholds(3))
    assert _max_log_ratio(broken.output_distribution(X, y), broken.output_distribution(Xn, yn)) > 1.0


def test_klnrs_learns_and_rejects_bad_input():
    D = ThresholdDistribution(6, 20)
    Xp, yp = D.sample(400, 1)
    L = GenericPrivateLearner(1.0, random_state=2, concept_class=Thresholds(6)).fit(Xp, yp)
    assert D.error(L.hypothesis_) <= 0.1
    with pytest.raises(ValueError):
        L.fit(Xp, yp[:-1])
    with pytest.raises(ValueError):
        L.fit([], [])
    with pytest.raises(ValueError):
        L.fit([1, 2], [0, 2])
    with pytest.raises(ValueError):
        GenericPrivateLearner(0.0, concept_class=Thresholds(3))
    with pytest.raises(TypeError):
        GenericPrivateLearner(1.0, concept_class="thresholds")
    with pytest.raises(ValueError):
        GenericPrivateLearner(1.0, concept_class=Thresholds(40))  # too large to enumerate
    with pytest.raises(RuntimeError):
        ASSPP(1.0, concept_class=Thresholds(3)).predict([1])
    with pytest.raises(TypeError, match="X_public"):  # X_public is a required argument of ASSPP.fit
        ASSPP(1.0, concept_class=Thresholds(3)).fit([1], [1])  # no public data


# ---------------------------------------------------------------------------------------
# The sampler fit uses.  The ratio tests above check output_distribution; these check that the
# hypotheses fit actually returns follow the exact eps-distribution exp(-eps #errors / 2)/Z,
# computed here from the class's own evaluate (not the library's output_distribution).
# Chi-square goodness of fit over N seeded fits, rejected at p < 1e-4: false-failure rate <= 1e-4
# (asymptotic chi-square, every expected count >= 38; the seeds are fixed, so the outcome is
# deterministic).  Every fit's call of the exact exponential-mechanism sampler (whose law the kernels' tests
# check exactly) is also checked exactly: the epsilon handed to it is the learner's, the error counts are
# those of its hypotheses on the sample (computed here from evaluate), and the index drawn is the one kept;
# a sampler called at eps/2 or 2 eps fails that check with certainty.  N = 2000 at eps = 0.5 and N = 1500 at
# eps = 1: the power of the chi-square alone (noncentral chi-square) against a sampler at 2 eps or eps/2 is
# then >= 0.9995 at eps = 1 for both learners; at eps = 0.5, against 2 eps, 1.0 (ASSPP) and 0.99995
# (GenericPrivateLearner), against eps/2 0.88 and 0.43 (N = 4000 before: 0.9998 and 0.968).
# ---------------------------------------------------------------------------------------

_GOF_N, _GOF_LEVEL = 4000, 1e-4
_GOF_N_BY_EPS = {0.5: 2000, 1.0: 1500}


def _sampler_calls(monkeypatch, module):
    """Record every call of ``module.sample`` (the exact exponential-mechanism sampler): (errors, epsilon, drawn)."""
    real, calls = module.sample, []

    def spy(errors, epsilon, **kw):
        out = real(errors, epsilon, **kw)
        calls.append((np.array(errors), float(epsilon), int(out)))
        return out

    monkeypatch.setattr(module, "sample", spy)
    return calls


def _exact_error_counts(cls, hyps, X, y):
    pred = np.array([np.asarray(cls.evaluate(h, X), dtype=int) for h in hyps])
    return (pred != np.asarray(y, dtype=int)[None, :]).sum(axis=1)


def _check_calls(calls, indices, hyps, eps):
    """One sampler call per fit, at ``eps``, on the exact error counts of ``hyps``, its draw the fitted index."""
    assert len(calls) == len(indices)
    want = _exact_error_counts(_C4, hyps, _X4, _Y4)
    for (errors, epsilon, drawn), index in zip(calls, indices):
        assert epsilon == eps and drawn == index and np.array_equal(errors, want)


def _exact_eps_distribution(cls, hyps, X, y, eps):
    pred = np.array([np.asarray(cls.evaluate(h, X), dtype=int) for h in hyps])
    errs = (pred != np.asarray(y, dtype=int)[None, :]).sum(axis=1)
    w = np.exp(-eps * (errs - errs.min()) / 2.0)
    return w / w.sum()


def _gof_pvalue(counts, probs):
    from scipy.stats import chisquare

    expected = probs * counts.sum()
    assert expected.min() >= 5
    return float(chisquare(counts, expected).pvalue)


def _fit_frequencies(L, fit, n_out, n=_GOF_N, indices=None):
    counts = np.zeros(n_out, dtype=np.int64)
    # one seed per fit, and another family of seeds per learner class (one seed on two releases is refused)
    for seed in np.random.SeedSequence(zlib.crc32(type(L).__name__.encode())).spawn(n):
        L.random_state = seed
        i = fit(L)
        counts[i] += 1
        if indices is not None:
            indices.append(i)
    return counts


_C4, _X4, _Y4, _PUB4 = Thresholds(4), [1, 2, 12, 14, 7, 9], [1, 1, 0, 0, 1, 0], [0, 3, 5, 8, 11, 13, 15]


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_asspp_fit_samples_the_eps_distribution(eps, monkeypatch):
    from semiprivate.theory.learners import asspp

    calls, indices = _sampler_calls(monkeypatch, asspp), []
    L = ASSPP(eps, concept_class=_C4)
    counts = _fit_frequencies(L, lambda m: m.fit(_X4, _Y4, _PUB4).index_, 8, n=_GOF_N_BY_EPS[eps], indices=indices)
    _check_calls(calls, indices, L.cover_.hypotheses, eps)
    probs = _exact_eps_distribution(_C4, L.cover_.hypotheses, _X4, _Y4, eps)
    assert _gof_pvalue(counts, probs) > _GOF_LEVEL
    assert L.privacy_ == (eps, 0.0)


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_generic_fit_samples_the_eps_distribution(eps, monkeypatch):
    from semiprivate.theory.learners import exponential

    calls, indices = _sampler_calls(monkeypatch, exponential), []
    L = GenericPrivateLearner(eps, concept_class=_C4)
    counts = _fit_frequencies(L, lambda m: m.fit(_X4, _Y4).index_, len(L.hypothesis_list), n=_GOF_N_BY_EPS[eps],
                              indices=indices)
    _check_calls(calls, indices, L.hypothesis_list, eps)
    probs = _exact_eps_distribution(_C4, L.hypothesis_list, _X4, _Y4, eps)
    assert _gof_pvalue(counts, probs) > _GOF_LEVEL
    assert L.privacy_ == (eps, 0.0)


def test_fit_goodness_of_fit_has_power():
    """The same test rejects the eps-distribution when the sampler runs at 2 eps (N = 1500, as at eps = 1: the
    noncentral chi-square gives p < 1e-30 with probability 0.99999)."""
    L = ASSPP(2.0, concept_class=_C4)
    counts = _fit_frequencies(L, lambda m: m.fit(_X4, _Y4, _PUB4).index_, 8, n=_GOF_N_BY_EPS[1.0])
    probs = _exact_eps_distribution(_C4, L.cover_.hypotheses, _X4, _Y4, 1.0)
    assert _gof_pvalue(counts, probs) < 1e-30


def test_privacy_is_derived_at_fit_time(monkeypatch):
    """``privacy_`` is what ran: an epsilon set after construction is the one fit uses and reports (the run's
    call of the exact sampler is at that epsilon; that the sampler's draws follow the law of the epsilon it is
    handed is test_*_fit_samples_the_eps_distribution's claim)."""
    from semiprivate.theory.learners import asspp, exponential

    calls = {ASSPP: _sampler_calls(monkeypatch, asspp), GenericPrivateLearner: _sampler_calls(monkeypatch, exponential)}
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 4, g))
    for L, fit in ((ASSPP(1.0, random_state=0, concept_class=_C4), lambda m: m.fit(_X4, _Y4, _PUB4)),
                   (GenericPrivateLearner(1.0, random_state=1, concept_class=_C4), lambda m: m.fit(_X4, _Y4)),
                   (ReductionLearner(1.0, 1e-6, random_state=2, base_learner=_asspp_factory(4), n_priv=40, n_pub=1, D0=D0),
                    lambda m: m.fit(np.array(_X4[:4], dtype=np.uint64), _Y4[:4]))):
        assert not hasattr(L, "privacy_")
        L.epsilon = 0.25
        assert L.privacy[0] == 0.25
        fit(L)
        assert L.privacy_[0] == 0.25 and L.privacy_[1] == 0.0
        if isinstance(L, ReductionLearner):
            assert L.base_.privacy_ == (0.25, 0.0)
        else:
            # the run really was at 0.25: its one draw from the exact sampler was at 0.25, on its hypotheses' errors
            hyps = L.cover_.hypotheses if isinstance(L, ASSPP) else L.hypothesis_list
            _check_calls(calls[type(L)], [L.index_], hyps, 0.25)


# ---------------------------------------------------------------------------------------
# ABM19 Alg 2-4 and Lemma 4.4
# ---------------------------------------------------------------------------------------


def _asspp_factory(d):
    return lambda eps, delta, rng: ASSPP(eps, delta, random_state=rng, concept_class=Thresholds(d))


def test_reduction_sample_size_and_privacy(monkeypatch):
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 10, g))
    for n_priv, n_pub in ((1000, 3), (20, 1), (1, 5), (2000, 10)):
        assert reduction_sample_size(n_priv, n_pub) == math.ceil(n_priv / (10 * n_pub))
        assert reduction_sample_size(n_priv, n_pub) == abm19_public_data_reduction(0.01, n_priv, n_pub, 1.0).n
    B = ReductionLearner(0.5, 1e-6, random_state=0, base_learner=_asspp_factory(10), n_priv=2000, n_pub=4, D0=D0)
    assert B.sample_size == 50 and B.p == 1 / 400
    with pytest.raises(ValueError, match="ceil"):
        B.fit(np.arange(49, dtype=np.uint64), np.zeros(49, dtype=int))
    D = ThresholdDistribution(10, 300)
    X, y = D.sample(50, 1)
    seen = _spy_priv_samp(monkeypatch)
    B.fit(X, y)
    assert B.privacy_ == (0.5, 0.0)  # A's guarantee (ASSPP is pure), Claim 4.5
    assert not hasattr(B, "private_sample_")  # PrivSamp's output (private points verbatim) is not kept
    ps = seen[-1]
    assert len(ps["X"]) == 2000 and B.exhausted_ == ps["exhausted"]
    # each private point is used at most once and in order
    used = ps["X"][ps["from_private"]]
    assert np.array_equal(used, X[: len(used)])


def _spy_priv_samp(monkeypatch):
    """Record PrivSamp's outputs inside ReductionLearner.fit (the learner keeps none of them)."""
    from semiprivate.theory.learners import reduction

    seen = []
    orig = reduction.priv_samp

    def spy(*a, **k):
        seen.append(orig(*a, **k))
        return seen[-1]

    monkeypatch.setattr(reduction, "priv_samp", spy)
    return seen


def test_reduction_fit_feeds_about_p_n_priv_private_points_to_A(monkeypatch):
    """Through B.fit (not priv_samp alone): A's input holds Bin(n_priv, p) private points per run,
    p = 1/(100 n_pub), and they are S~ in order.  Over 200 fits the total is Bin(200 n_priv, p)
    (independent seeded runs; S~ is never exhausted at this size except w.p. ~1e-22); it is
    accepted when its two-sided exact binomial tail is > 1e-6 (false-failure rate <= 1e-6).
    With p = 0 (B never uses its private sample) the total is 0 and the test fails."""
    from scipy.stats import binom

    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 6, g))
    n_priv, n_pub, runs = 500, 1, 200
    B = ReductionLearner(1.0, random_state=0, base_learner=_asspp_factory(6), n_priv=n_priv, n_pub=n_pub, D0=D0)
    X = uniform_points(B.sample_size, 6, 1)
    y = np.ones(B.sample_size, dtype=int)
    total = 0
    seen = _spy_priv_samp(monkeypatch)
    fed = []
    orig_fit = ASSPP.fit
    monkeypatch.setattr(ASSPP, "fit", lambda self, Xp, yp, Xpub: (fed.append((Xp, yp)), orig_fit(self, Xp, yp, Xpub))[1])
    for seed in range(runs):
        B.random_state = seed
        B.fit(X, y)
        ps = seen[-1]
        used = ps["X"][ps["from_private"]]
        assert np.array_equal(used, X[: len(used)])
        # A saw exactly PrivSamp's output
        assert np.array_equal(fed[-1][0], ps["X"]) and np.array_equal(fed[-1][1], ps["y"].astype(np.int64))
        total += int(ps["from_private"].sum())
    tail = min(binom.cdf(total, runs * n_priv, B.p), binom.sf(total - 1, runs * n_priv, B.p))
    assert 2 * tail > 1e-6, (total, runs * n_priv * B.p)


def test_priv_samp_uses_about_p_n_priv_points_and_rarely_exhausts():
    """Lem 4.4 proof: with n~ = 10 p n_priv, PrivSamp finishes with i = n_priv except w.p. < 0.01."""
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 8, g))
    n_priv, n_pub = 4000, 2
    p = 1 / (100 * n_pub)
    n_t = reduction_sample_size(n_priv, n_pub)
    X, y = uniform_points(n_t, 8, 0), np.ones(n_t, dtype=bool)
    exhausted, used = 0, []
    for seed in range(200):
        ps = priv_samp(X, y, D0, p, n_priv, seed)
        exhausted += ps["exhausted"]
        used.append(ps["from_private"].sum())
        assert len(ps["X"]) == n_priv
    assert exhausted <= 2  # expected 0; Chernoff gives < 0.01 per run
    assert abs(np.mean(used) - p * n_priv) < 1.0  # mean of Bin(n_priv, p) = 20
    Xpub, ypub = pub_samp(D0, 7, 0)
    assert len(Xpub) == 7 and ypub.dtype == bool


@pytest.mark.parametrize("y_tilde,exc", [([2, 7], ValueError), ([0.0, 1.0], TypeError), ([1], ValueError),
                                          (["a", "b"], TypeError)])
def test_priv_samp_rejects_labels_outside_0_1(y_tilde, exc):
    """Labels [2, 7] were cast to True; PrivSamp uses the library's one 0/1 check."""
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 8, g))
    with pytest.raises(exc, match="y_tilde"):
        priv_samp(np.array([3, 4], dtype=np.uint64), y_tilde, D0, 0.5, 10, 0)


@pytest.mark.slow
def test_lemma_4_4_accuracy_relation_by_simulation():
    """err(h; D(p)) = p err(h; D) + (1-p)/2 for D0 with uniform labels, so A's excess error on
    D(p) equals p err(B; D) for realizable D.  With alpha^ the 17/18-quantile of A's excess
    error on D(p) over the runs, err(B; D) <= 100 n_pub alpha^ must hold in >= 15/16 of them
    (Lem 4.4 with beta = 1/18 -> 1/16)."""
    d, n_pub, n_priv, eps = 12, 2, 6000, 1.0
    D = ThresholdDistribution(d, 1500)
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, d, g))
    B = ReductionLearner(eps, random_state=None, base_learner=_asspp_factory(d), n_priv=n_priv, n_pub=n_pub, D0=D0)
    mix = MixtureDistribution(D, D0, B.p)
    errB, excessA = [], []
    for seed in range(36):
        B.random_state = seed
        X, y = D.sample(B.sample_size, 10_000 + seed)
        B.fit(X, y)
        h = B.hypothesis_
        errB.append(D.error(h))
        excessA.append(mix.error(h) - mix.error(D.target))
        assert mix.error(h) == pytest.approx(ReductionLearner.mixture_error(D.error(h), B.p))
    errB, excessA = np.array(errB), np.array(excessA)
    np.testing.assert_allclose(excessA, B.p * errB, atol=1e-12)
    alpha_hat = float(np.quantile(excessA, 17 / 18))
    assert np.mean(errB <= 100 * n_pub * alpha_hat + 1e-12) >= 15 / 16
    assert mix.error(D.target) == pytest.approx(0.5 * (1 - B.p))  # optimum of D(p) = target of D

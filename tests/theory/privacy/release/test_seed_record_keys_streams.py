"""The seed record keys on the random streams a release draws from, registered where coins are made
(``child_streams``/``fit_stream`` and ``semiprivate.validation.as_generator``), not on the value a user passes: a used
or permuted Generator, a spawned child drawn directly, a descendant of a seed's stream, a seed under a parameter
name no wrapper re-routes, a release run inside another release's query, and the public release functions
(the exponential mechanism's ``sample``, the structured mechanisms) are all caught when two different releases
draw one stream; the same release run again, and one Generator continued from release to release, are allowed."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from semiprivate.kernels.noise import discrete_laplace
from semiprivate.theory.privacy import exponential
from semiprivate.theory.privacy.mechanisms import GeometricMechanism
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer
from semiprivate.theory.privacy.seeds import secure_mode
from sklearn.base import BaseEstimator, ClassifierMixin

X = np.array([0, 1, 1, 2, 3, 5, 5, 7, 6, 4])
REST = X[3:]  # everybody but one group: with shared noise the difference is the group's exact histogram
SHARED = "already used by a different release"


def _hist(rng):
    return NoisyHistogramSanitizer(1.0, domain_size=8, rng=rng)


def _used_generator():
    g = np.random.default_rng(0)
    g.integers(10)  # drawn from first: its state is not a fresh seed's, but its children are seed 0's
    return g


def _permuted_generator():
    g = np.random.default_rng(0)
    g.permutation(7)
    return g


@pytest.mark.parametrize("second", [
    lambda: _hist(_used_generator()).sanitize(REST),
    lambda: _hist(_permuted_generator()).sanitize(REST),
    lambda: _hist(2**32).sanitize(REST) if False else _hist(np.random.SeedSequence([0])).sanitize(REST),
    # the stream the histogram drew from (seed 0's first child), handed directly to another class
    lambda: GeometricMechanism(0.5)(np.bincount(REST, minlength=8), 1, np.random.SeedSequence(0).spawn(2)[0]),
    # a stream below it (the child's own first child), reached by building its spawn key
    lambda: GeometricMechanism(0.5)(np.bincount(REST, minlength=8), 1,
                                    np.random.SeedSequence(0).spawn(1)[0].spawn(1)[0]),
])
def test_another_release_drawing_a_stream_of_the_seed_is_refused(second):
    _hist(0).sanitize(X)
    with pytest.raises(ValueError, match=SHARED):
        second()


def test_two_to_the_32_and_its_words_are_one_root():
    _hist(2**32).sanitize(X)
    with pytest.raises(ValueError, match=SHARED):
        _hist(np.random.SeedSequence([0, 1])).sanitize(REST)


def test_the_seeds_root_stream_and_its_childs_stream_are_independent_and_allowed():
    # the histogram draws from seed 0's first child; a mechanism given seed 0 draws from the root's own stream
    _hist(0).sanitize(X)
    GeometricMechanism(1.0)(np.bincount(REST, minlength=8), 1, 0)


def test_one_generator_continued_from_release_to_release_is_allowed_a_rebuilt_one_is_not():
    errors = np.array([3, 1, 2, 5])
    g = np.random.default_rng(11)
    exponential.sample(errors, 1.0, rng=g)
    exponential.sample(errors[::-1], 1.0, rng=g)  # the stream goes on where the last release left it
    g.integers(5)  # the caller draws from it in between (data sampling): still one stream, going on
    exponential.sample(errors, 1.0, rng=g)
    with pytest.raises(ValueError, match="already used by a"):
        exponential.sample(errors[::-1], 1.0, rng=np.random.default_rng(11))  # the same coins again


def test_the_release_functions_are_releases():
    X1 = np.array([1, 2, 3, 4, 5, 6, 7, 8])  # in X_4
    y1 = (X1 <= 4).astype(int)
    y2 = y1.copy()
    y2[0] = 1 - y2[0]  # a neighbour: one label flipped
    first = exponential.structured_threshold_mechanism(X1, y1, 1.0, 4, rng=5)
    assert exponential.structured_threshold_mechanism(X1, y1, 1.0, 4, rng=5) == first  # the same release again
    with pytest.raises(ValueError, match=SHARED):
        exponential.structured_threshold_mechanism(X1, y2, 1.0, 4, rng=5)
    exponential.structured_interval_mechanism(X1, y1, 1.0, 4, rng=6)
    with pytest.raises(ValueError, match=SHARED):
        exponential.structured_interval_mechanism(X1, y2, 1.0, 4, rng=6)
    exponential.sample(np.array([1, 2]), 1.0, rng=7)
    with pytest.raises(ValueError, match=SHARED):
        exponential.sample(np.array([2, 1]), 1.0, rng=7)


@pytest.mark.parametrize("call", [
    lambda: exponential.sample(np.array([1, 2, 3]), 1.0, rng=0),
    lambda: exponential.sample_log_weights(np.array([0.0, -1.0]), rng=0),
    lambda: exponential.structured_threshold_mechanism(np.array([1, 2, 3]), np.array([1, 0, 0]), 1.0, 3, rng=0),
    lambda: exponential.structured_interval_mechanism(np.array([1, 2, 3]), np.array([1, 0, 0]), 1.0, 3, rng=0),
])
def test_secure_mode_refuses_a_seed_on_a_release_function(call):
    with secure_mode(), pytest.raises(ValueError, match="secure mode"):
        call()


class _CountWithItsOwnSeed(ClassifierMixin, BaseEstimator):
    """An honest (eps, 0)-DP count whose seed parameter has a name no wrapper re-routes (CatBoost's)."""

    def __init__(self, col=-1, random_seed=None):
        self.col = col
        self.random_seed = random_seed

    def fit(self, X, y, X_public=None):
        self.classes_ = np.array([0, 1])
        self.count_ = int(((np.asarray(y) == 1) & (np.asarray(X)[:, self.col] > 0)).sum()) + discrete_laplace(
            Fraction(2), rng=np.random.default_rng(self.random_seed))
        self.privacy_ = (0.5, 0.0)
        self.privacy_model_ = "all inputs"
        return self

    def predict(self, X):
        return np.ones(len(X), dtype=int)


def _search_data():
    rng = np.random.default_rng(3)
    Xd = rng.integers(-1, 2, size=(40, 2)).astype(float)
    return Xd, (Xd[:, 0] > 0).astype(int)


def test_two_candidates_drawing_one_stream_through_an_unrouted_seed_name_are_refused():
    from semiprivate.theory.privacy.model_selection import PrivateSearchCV

    Xd, yd = _search_data()
    search = PrivateSearchCV(_CountWithItsOwnSeed(random_seed=0), {"col": [-1, 0]}, epsilon_select=0.5, rng=None)
    with pytest.raises(ValueError, match="same random stream"):
        search.fit(Xd, yd)
    PrivateSearchCV(_CountWithItsOwnSeed(), {"col": [-1, 0]}, epsilon_select=0.5, rng=None).fit(Xd, yd)


def test_secure_mode_refuses_a_seed_that_reaches_the_coins_under_any_name():
    from semiprivate.theory.privacy.model_selection import PrivateSearchCV

    Xd, yd = _search_data()
    with secure_mode(), pytest.raises(ValueError, match="secure mode"):
        PrivateSearchCV(_CountWithItsOwnSeed(random_seed=0), {"col": [-1]}, epsilon_select=0.5,
                        rng=None).fit(Xd, yd)


def test_two_releases_inside_one_query_sharing_a_seed_are_refused():
    def query(d):
        a = _hist(0).sanitize(np.asarray(d)) if False else _hist(0)
        a.sanitize(np.asarray(d))
        b = _hist(0)
        b.sanitize(np.asarray(d)[3:])
        return int(a.noisy_counts_[1] - b.noisy_counts_[1])

    with pytest.raises(ValueError, match="same random stream"):
        GeometricMechanism(1.0, query=query)(X, 1)


class _Rows:
    """Rows behind the sequence protocol only (no ``__array__``), kept in an attribute with a fitted-style name."""

    def __init__(self, values):
        self.vals_ = list(values)

    def __len__(self):
        return len(self.vals_)

    def __getitem__(self, i):
        return self.vals_[i]


def test_a_release_is_judged_on_everything_it_releases_and_on_every_input_it_reads():
    # sanitize returns the support only; its declared releases (noisy_counts_) differ between D and a neighbour
    # with the same support: the two are different releases, whether or not the fingerprint reads the input
    neighbour = X.copy()
    neighbour[1] = 6
    a = _hist(10**6)
    a.sanitize(_Rows(X))
    with pytest.raises(ValueError, match="already used by a"):
        _hist(10**6).sanitize(_Rows(neighbour))
    _hist(10**6).sanitize(_Rows(X))  # the same release again (same rows read, same output): allowed

"""One seed on two different releases is refused (the issue's bad input "a seed shared across releases by the
user's own objects"): their noise would cancel.  The same release run again is allowed, distinct seeds
(SeedSequence.spawn) and None are the fix, a wrapper's derived child streams are not user seeds, and secure
mode refuses every user seed (semiprivate.theory.privacy.seeds)."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.privacy import seeds
from semiprivate.theory.privacy.mechanisms import GeometricMechanism
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer
from semiprivate.theory.privacy.seeds import forget_seeds, secure_mode, separate_seed_record

X = np.array([0, 1, 1, 2, 3, 5, 5, 7, 6, 4])
GROUP = np.zeros(len(X), dtype=bool)
GROUP[:3] = True


def _hist(rng, data=X, eps=1.0):
    return NoisyHistogramSanitizer(eps, domain_size=8, rng=rng)


def test_one_seed_on_two_releases_of_related_data_is_refused_naming_the_fix():
    # everybody, then everybody but one group: with one seed the difference would be the group's exact histogram
    a = _hist(0)
    a.sanitize(X)
    b = _hist(0)
    with pytest.raises(ValueError, match=r"^NoisyHistogramSanitizer: rng=0 was already used by a different "
                                         r"release.*SeedSequence\(seed\)\.spawn\(k\).*rng=None"):
        b.sanitize(X[~GROUP])
    assert not hasattr(b, "noisy_counts_")  # the refused run releases nothing


@pytest.mark.parametrize("other", [
    lambda: _hist(0, eps=2.0).sanitize(X),                         # another epsilon: f + s1 Z, f + s2 Z solve for f
    # another class drawing directly from the stream the histogram drew from (its seed's first child)
    lambda: GeometricMechanism(1.0)(np.bincount(X, minlength=8), 1, np.random.SeedSequence(0).spawn(1)[0]),
    lambda: _hist(np.random.default_rng(0)).sanitize(X[1:]),        # a fresh default_rng(0) is the seed 0
    lambda: _hist(np.random.SeedSequence(0)).sanitize(X[1:]),       # so is SeedSequence(0)
])
def test_the_same_seed_is_refused_whatever_else_differs(other):
    _hist(0).sanitize(X)
    with pytest.raises(ValueError, match="was already used by a different release"):
        other()


def test_the_same_release_again_is_allowed_and_reproduces_its_output():
    a, b = _hist(0), _hist(0)
    a.sanitize(X)
    b.sanitize(X.copy())
    assert np.array_equal(a.noisy_counts_, b.noisy_counts_)


def test_distinct_seeds_one_generator_and_none_are_allowed():
    left, right = np.random.SeedSequence(0).spawn(2)
    _hist(left).sanitize(X)
    _hist(right).sanitize(X[~GROUP])
    g = np.random.default_rng(5)  # one generator handed to several releases: each run spawns new children
    a, b = _hist(g), _hist(g)
    a.sanitize(X)
    b.sanitize(X[~GROUP])
    _hist(None).sanitize(X)
    _hist(None).sanitize(X[~GROUP])


def test_a_wrappers_derived_streams_are_not_user_seeds():
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.distributions import RandomLabelDistribution, uniform_points
    from semiprivate.theory.learners.exponential import GenericPrivateLearner
    from semiprivate.theory.learners.reduction import ReductionLearner

    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, 4, g))
    Xp, yp = np.array([1, 2, 12, 14], dtype=np.uint64), np.array([1, 1, 0, 0])
    ReductionLearner(1.0, 1e-6, random_state=1, n_priv=40, n_pub=1, D0=D0,
                     base_learner=lambda eps, delta, rng: GenericPrivateLearner(eps, concept_class=Thresholds(4),
                                                                                random_state=rng)).fit(Xp, yp)
    # the base ran inside the wrapper's run, on a child stream of the wrapper's seed: every stream drawn is
    # recorded for the wrapper's release (the outermost), none as a release of its own
    assert {entry[1] for entry in seeds._RECORD.values() if isinstance(entry, tuple)} == {"ReductionLearner"}
    assert {part[3] for entry in seeds._RECORD.values() if isinstance(entry, list) for part in entry} <= {
        "ReductionLearner"}


def test_a_failed_run_records_nothing_and_forget_seeds_empties_the_record():
    with pytest.raises(ValueError):
        _hist(0).sanitize([99])  # outside the domain: the run fails before any release
    _hist(0).sanitize(X)  # so the seed is still free
    forget_seeds()
    _hist(0).sanitize(X[~GROUP])  # after forgetting (the earlier release discarded), the seed may be reused
    with separate_seed_record():
        _hist(0).sanitize(X)  # a separate record: seeds inside are checked against each other only
    with pytest.raises(ValueError, match="already used"):
        _hist(0).sanitize(X)  # the outer record is back


def test_secure_mode_refuses_every_user_seed(monkeypatch):
    with secure_mode():
        with pytest.raises(ValueError, match=r"^NoisyHistogramSanitizer: rng=0 is a user seed, refused in secure "
                                             r"mode.*rng=None"):
            _hist(0).sanitize(X)
        with pytest.raises(ValueError, match="secure mode"):
            _hist(np.random.default_rng()).sanitize(X)
        with pytest.raises(ValueError, match="secure mode"):
            GeometricMechanism(1.0)(3, 1, 7)
        assert _hist(None).sanitize(X) is not None  # fresh OS entropy: allowed
    _hist(0).sanitize(X)  # the previous setting is back
    monkeypatch.setenv(seeds.SECURE_MODE_ENV, "1")
    assert seeds.secure_mode_enabled()
    with pytest.raises(ValueError, match="secure mode"):
        _hist(1).sanitize(X)


def test_the_record_is_a_keyed_fingerprint_of_the_release():
    # the record holds MACs under a per-process random key, never the data
    _hist(0).sanitize(X)
    (fp, owner, *_), = (v for v in seeds._RECORD.values() if isinstance(v, tuple))
    assert owner == "NoisyHistogramSanitizer" and len(fp) == 32 and X.tobytes() not in fp
    assert seeds.fingerprint("k", {}, {"X": X}) != seeds.fingerprint("k", {}, {"X": X[1:]})
    assert seeds.fingerprint("k", {}, {"X": X}) == seeds.fingerprint("k", {}, {"X": X.copy()})


def test_releases_the_inputs_do_not_tell_apart_are_refused_by_their_output():
    # counting queries built as closures, default arguments or partials: the same code, other values
    import functools

    counts = np.bincount(X, minlength=8)

    def count_of(v):
        return lambda d: int(d[v])

    def count_eq(d, v):
        return int(d[v])

    for q1, q2 in ((count_of(1), count_of(5)), (lambda d, v=1: int(d[v]), lambda d, v=5: int(d[v])),
                   (functools.partial(count_eq, v=1), functools.partial(count_eq, v=5))):
        forget_seeds()
        GeometricMechanism(1.0, query=q1)(counts, 1, 12345)
        with pytest.raises(ValueError, match="already used"):
            GeometricMechanism(1.0, query=q2)(counts, 1, 12345)


class _Values:
    """An array-like keeping its values in an attribute the fingerprint's object encoding would skip."""

    def __init__(self, v):
        self.values_ = np.asarray(v)

    def __array__(self, dtype=None, copy=None):
        return self.values_ if dtype is None else self.values_.astype(dtype)


@pytest.mark.parametrize("wrap", [_Values, lambda a: memoryview(np.ascontiguousarray(a))])
def test_array_like_inputs_are_read_for_the_fingerprint(wrap):
    Xn = X.copy()
    Xn[0] = 6
    _hist(0).sanitize(wrap(X))
    with pytest.raises(ValueError, match="already used"):
        _hist(0).sanitize(wrap(Xn))


def test_seed_sequences_with_the_same_words_are_one_seed():
    _hist(np.random.SeedSequence(0)).sanitize(X)
    with pytest.raises(ValueError, match="already used"):
        _hist(np.random.SeedSequence([0])).sanitize(X[~GROUP])


def test_a_seed_on_a_base_the_wrapper_does_not_reroute_is_a_user_seed():
    # PSSLAsTPAL runs its learner as given: the learner's own seed is the user's, at any depth
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learners.active import LabelOracle, PSSLAsTPAL
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    pool = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    y = (pool < 2).astype(int)

    def wrapper(rng):
        return PSSLAsTPAL(GenericPrivateLearner(0.5, concept_class=Thresholds(2), random_state=rng), m=4)

    wrapper(7).fit(pool, LabelOracle(y))
    y2 = y.copy()
    y2[0] = 1 - y2[0]
    with pytest.raises(ValueError, match="GenericPrivateLearner's random_state=7 was already used"):
        wrapper(7).fit(pool, LabelOracle(y2))
    with secure_mode(), pytest.raises(ValueError, match="secure mode"):
        wrapper(8).fit(pool, LabelOracle(y))
    wrapper(None).fit(pool, LabelOracle(y2))


def test_a_refused_wrapper_run_leaves_no_release_in_the_base_it_fitted_in_place():
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learners.active import LabelOracle, SubSampling
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    T3 = Thresholds(3)
    X = np.array([0, 3, 3, 3, 3])

    def wrapper():
        return SubSampling(GenericPrivateLearner(0.1, concept_class=T3, hypotheses=list(range(9))), 2, 1, 2.0, rng=5)

    wrapper().fit(X, LabelOracle((X < 4).astype(int)))
    w = wrapper()
    with pytest.raises(ValueError, match="already used"):
        w.fit(X, LabelOracle((X < 2).astype(int)))  # other labels, the same seed: refused after the run
    assert not hasattr(w.learner, "hypothesis_") and not hasattr(w.learner, "privacy_")


def test_secure_mode_refuses_the_float_audit_mechanisms():
    from semiprivate.theory.privacy.mechanisms import GaussianMechanism, LaplaceMechanism, ReportNoisyMax

    with secure_mode():
        for m, data in ((LaplaceMechanism(1.0), 3.0), (GaussianMechanism(1.0, 1e-5), 3.0),
                        (ReportNoisyMax(1.0), [0.0, 1.0])):
            with pytest.raises(ValueError, match="refused in secure mode"):
                m(data, 1, None)
        assert GeometricMechanism(1.0)(3, 1, None).shape == (1,)


def test_seed_reuse_allowed_neither_checks_nor_records_and_ends_with_its_block():
    # the opt-out for test suites (scikit-learn's estimator checks refit one seeded estimator on many datasets)
    with seeds.seed_reuse_allowed():
        _hist(0).sanitize(X)
        _hist(0).sanitize(X[~GROUP])  # would be refused outside the block
    _hist(0).sanitize(X)  # nothing was recorded inside: seed 0 is still free
    with pytest.raises(ValueError, match="was already used by a different release"):
        _hist(0).sanitize(X[~GROUP])  # the record is back after the block


def test_secure_mode_checks_its_argument_when_called():
    with pytest.raises(TypeError, match="enabled must be a bool"):
        secure_mode(enabled="yes")  # type: ignore[arg-type]
    with secure_mode(), pytest.raises(ValueError):
        _hist(0).sanitize(X)

"""The seed record places every generator a release is handed at a position on its seed's stream, so the same
used state, rebuilt in two objects (a state copied by hand, a deep copy, a pickle round trip) and handed to two
releases, is refused: the two would draw the same coins, and the noise cancels when their outputs are compared.
One generator continued from release to release (the second starts where the first stopped) is allowed; a state
that cannot be placed on its own seed's stream (set by hand, ``jumped()``) is refused on a release, naming ``rng``
and the fix (spawned children)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.privacy import exponential
from semiprivate.theory.privacy.mechanisms import GeometricMechanism
from semiprivate.theory.privacy.seeds import stream_position
from semiprivate.validation import as_generator

SHARED = "already used by a different release"
ERRORS = np.array([0, 3, 1, 4, 2, 5, 0, 2])
X1 = np.array([1, 2, 3, 4, 5, 6, 7, 8])  # in X_4
Y1 = (X1 <= 4).astype(int)
Y2 = Y1.copy()
Y2[0] = 1 - Y2[0]  # a neighbour: one label flipped


def _used(seed: int = 0) -> np.random.Generator:
    g = np.random.default_rng(seed)
    g.integers(10, size=3)  # drawn from: a continuation, not a fresh seed
    return g


def _by_hand(used: np.random.Generator) -> np.random.Generator:
    """The used state copied into a new generator built on an equal seed (state set by hand)."""
    ss = used.bit_generator.seed_seq
    g = np.random.Generator(type(used.bit_generator)(np.random.SeedSequence(
        ss.entropy, spawn_key=ss.spawn_key, pool_size=ss.pool_size, n_children_spawned=ss.n_children_spawned)))
    g.bit_generator.state = used.bit_generator.state
    return g


TWINS = {
    "state copied by hand": lambda u: (_by_hand(u), _by_hand(u)),
    "deep copies": lambda u: (copy.deepcopy(u), copy.deepcopy(u)),
    "pickle round trips": lambda u: (pickle.loads(pickle.dumps(u)), pickle.loads(pickle.dumps(u))),
    "the generator, then a copy taken before it was drawn": lambda u: (u, copy.deepcopy(u)),
}

RELEASES = {
    "exponential.sample": (lambda g: exponential.sample(ERRORS, 1.0, size=16, rng=g),
                           lambda g: exponential.sample(ERRORS[::-1].copy(), 1.0, size=16, rng=g)),
    "structured threshold": (lambda g: exponential.structured_threshold_mechanism(X1, Y1, 1.0, 4, rng=g),
                             lambda g: exponential.structured_threshold_mechanism(X1, Y2, 1.0, 4, rng=g)),
    "structured interval": (lambda g: exponential.structured_interval_mechanism(X1, Y1, 1.0, 4, rng=g),
                            lambda g: exponential.structured_interval_mechanism(X1, Y2, 1.0, 4, rng=g)),
    "geometric mechanism": (lambda g: GeometricMechanism(1.0)(np.arange(6), 1, g),
                            lambda g: GeometricMechanism(1.0)(np.arange(6) + 1, 1, g)),
}


@pytest.mark.parametrize("twins", list(TWINS), ids=list(TWINS))
@pytest.mark.parametrize("release", list(RELEASES), ids=list(RELEASES))
def test_one_used_state_in_two_objects_is_refused_on_the_second_release(twins, release):
    first, second = RELEASES[release]
    a, b = TWINS[twins](_used())
    assert a is not b and a.bit_generator.state == b.bit_generator.state
    probe_a, probe_b = copy.deepcopy(a), copy.deepcopy(b)  # the two share their coins (what the refusal prevents)
    assert np.array_equal(probe_a.integers(1 << 62, size=8), probe_b.integers(1 << 62, size=8))
    first(a)
    with pytest.raises(ValueError, match=SHARED) as refused:
        second(b)
    assert "rng" in str(refused.value) and "spawn" in str(refused.value)


def test_a_copy_that_starts_inside_the_first_releases_draws_is_refused():
    # the second generator starts a few words after the first one did, before the first release's last draw
    a = _used()
    b = copy.deepcopy(a)
    b.integers(1 << 62, size=2)
    exponential.sample(ERRORS, 1.0, size=64, rng=a)
    with pytest.raises(ValueError, match=SHARED):
        exponential.sample(ERRORS[::-1].copy(), 1.0, size=64, rng=b)


def test_a_learners_fit_and_a_release_function_on_one_used_state_are_refused():
    a, b = TWINS["state copied by hand"](_used(4))
    learner = GenericPrivateLearner(1.0, concept_class=Thresholds(4), random_state=a)
    learner.fit(X1.astype(np.uint64), Y1)
    # the learner spawns its run's stream from the generator's seed: a copy on the same seed spawns it again
    with pytest.raises(ValueError, match=SHARED):
        GenericPrivateLearner(1.0, concept_class=Thresholds(4), random_state=b).fit(X1.astype(np.uint64), Y2)
    c, d = TWINS["deep copies"](_used(5))
    exponential.sample(ERRORS, 1.0, size=16, rng=c)
    GenericPrivateLearner(1.0, concept_class=Thresholds(4), random_state=d).fit(X1.astype(np.uint64), Y2)
    # the learner drew from a child stream, not from the state the sample drew: allowed
    with pytest.raises(ValueError, match=SHARED):
        exponential.sample(ERRORS[::-1].copy(), 1.0, size=16, rng=d)  # but that state again is not


def test_one_generator_continued_and_a_later_copy_are_allowed():
    g = _used(6)
    exponential.sample(ERRORS, 1.0, size=16, rng=g)
    exponential.sample(ERRORS[::-1].copy(), 1.0, size=16, rng=g)  # starts where the first stopped
    later = copy.deepcopy(g)  # a copy taken after both: its coins are new
    exponential.structured_threshold_mechanism(X1, Y2, 1.0, 4, rng=later)
    g.integers(3, size=5)  # the caller draws in between (32-bit draws leave half a word buffered)
    exponential.structured_threshold_mechanism(X1, Y1, 1.0, 4, rng=g)
    exponential.sample(ERRORS, 1.0, size=16, rng=g)  # after a 32-bit draw: starts at the buffered half


def test_the_same_release_again_on_a_copy_is_a_repetition():
    a, b = TWINS["deep copies"](_used(7))
    first = exponential.sample(ERRORS, 1.0, size=16, rng=a)
    assert np.array_equal(exponential.sample(ERRORS, 1.0, size=16, rng=b), first)  # reveals nothing new


@pytest.mark.parametrize("make", [
    lambda: _transplanted(),
    lambda: _copied_into(np.random.Generator(np.random.PCG64())),
    lambda: np.random.Generator(np.random.PCG64(8).jumped()),
    lambda: _drawn(np.random.Generator(np.random.MT19937(9))),
    lambda: _drawn(np.random.Generator(np.random.SFC64(9))),
], ids=["state from another seed", "state copied into Generator(PCG64())", "jumped", "drawn MT19937", "drawn SFC64"])
def test_a_generator_that_cannot_be_placed_on_its_seeds_stream_is_refused(make):
    with pytest.raises(ValueError, match=r"rng.*cannot be placed.*spawn") as refused:
        exponential.sample(ERRORS, 1.0, rng=make())
    assert "Generator" in str(refused.value)


def _transplanted() -> np.random.Generator:
    g = np.random.Generator(np.random.PCG64(12))
    g.bit_generator.state = _used(0).bit_generator.state  # another seed's state: not on 12's stream
    return g


def _copied_into(g: np.random.Generator) -> np.random.Generator:
    g.bit_generator.state = _used(1).bit_generator.state
    return g


def _drawn(g: np.random.Generator) -> np.random.Generator:
    g.integers(10)
    return g


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.MT19937,
                                  np.random.SFC64])
def test_fresh_and_positioned_generators_of_every_bit_generator_are_allowed_and_twins_refused(bits):
    g = np.random.Generator(bits(21))
    exponential.sample(ERRORS, 1.0, size=4, rng=g)  # fresh: position 0 on its seed's stream
    if bits in (np.random.MT19937, np.random.SFC64):
        return  # a drawn MT19937 or SFC64 cannot be placed (refused above)
    twin = copy.deepcopy(g)
    exponential.sample(ERRORS[::-1].copy(), 1.0, size=4, rng=g)
    with pytest.raises(ValueError, match=SHARED):
        exponential.sample(ERRORS, 1.0, size=4, rng=twin)


def test_a_state_set_just_before_the_seeds_start_is_refused_when_it_wraps_into_a_recorded_stretch():
    exponential.sample(ERRORS, 1.0, size=16, rng=np.random.default_rng(13))  # draws seed 13 from its start
    before = np.random.Generator(np.random.PCG64(13))
    before.bit_generator.advance(2**128 - 1)  # one word before the start: the same stream, placeable
    assert stream_position(before)[0] == (2 << 128) - 2
    with pytest.raises(ValueError, match=SHARED):
        exponential.sample(ERRORS[::-1].copy(), 1.0, size=16, rng=before)  # its second word is the seed's first


def test_a_pcg64_and_a_philox_on_one_seed_are_different_streams():
    exponential.sample(ERRORS, 1.0, size=16, rng=np.random.Generator(np.random.PCG64(14)))
    exponential.sample(ERRORS[::-1].copy(), 1.0, size=16, rng=np.random.Generator(np.random.Philox(14)))


class _HalfWordRelease(GeometricMechanism):
    """A release whose only coins are one 32-bit half (a float32 uniform reads the bit generator's buffered half)."""

    _exact_coins = frozenset()

    def __call__(self, data, size, rng=None):
        return np.float32(data) + as_generator(rng).random(dtype=np.float32)


def test_a_buffered_half_carried_by_a_copy_to_another_position_is_refused():
    a = np.random.default_rng(16)
    a.random(dtype=np.float32)  # a 32-bit draw: the word's other half stays buffered
    assert a.bit_generator.state["has_uint32"] == 1
    b = copy.deepcopy(a)
    b.integers(1 << 62, size=3)  # 64-bit draws: the copy moves on, the buffered half stays with it
    assert b.bit_generator.state["uinteger"] == a.bit_generator.state["uinteger"]
    assert copy.deepcopy(a).random(dtype=np.float32) == copy.deepcopy(b).random(dtype=np.float32)  # shared
    _HalfWordRelease(1.0)(1, 1, a)
    with pytest.raises(ValueError, match=SHARED):
        _HalfWordRelease(1.0)(2, 1, b)
    c = np.random.default_rng(17)
    c.random(dtype=np.float32)
    _HalfWordRelease(1.0)(1, 1, c)
    _HalfWordRelease(1.0)(2, 1, c)  # the same generator continued: its next half is new

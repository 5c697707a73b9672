"""The seed record keys a stream on what determines its coins, and exempts only what a run drew itself.

* NumPy mixes a SeedSequence's entropy words followed by its spawn key's words into its pool, so one stream
  can be written several ways (``SeedSequence(5).spawn(8)[7]``, ``SeedSequence([5, 0, 0, 0, 7])``, the int
  ``5 + (7 << 128)``): the record treats them as one node, and a node written as a child of another as its child.
* A generator drawn from fresh OS entropy is exempt only when the release's own run drew it; one the caller made
  beforehand (``as_generator(None)``, ``child_streams(None, n)``) is the caller's seed: a copy of it (deepcopy,
  pickle) given to a second release is refused like a copied seeded generator.
"""

from __future__ import annotations

import copy
import inspect
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.privacy._release import child_streams
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer
from semiprivate.theory.privacy.seeds import secure_mode
from semiprivate.validation import as_generator

D = np.array([1, 2, 3, 9, 12, 14])
D_NEIGHBOUR = np.array([5, 2, 3, 9, 12, 14])
SS = np.random.SeedSequence


def _release(rng: Any, data: np.ndarray) -> np.ndarray:
    s = NoisyHistogramSanitizer(1.0, domain_size=16, rng=rng)
    s.sanitize(data)
    return np.asarray(s.noisy_counts_) - np.bincount(data, minlength=16)


#: (first release's seed, second release's seed): one stream written two ways
SAME_STREAM: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "spawned child vs int seed with the key's words": (lambda: SS(5).spawn(8)[7], lambda: 5 + (7 << 128)),
    "spawned child vs entropy list": (lambda: SS(5).spawn(8)[7], lambda: SS([5, 0, 0, 0, 7])),
    "first child vs zero key word": (lambda: SS(5).spawn(1)[0], lambda: SS([5, 0, 0, 0, 0])),
    "generators of both": (lambda: np.random.default_rng(SS(5).spawn(1)[0]),
                           lambda: np.random.default_rng([5, 0, 0, 0, 0])),
    "grandchild vs child of the longer entropy": (lambda: SS(5).spawn(2)[1].spawn(1)[0],
                                                  lambda: SS([5, 0, 0, 0, 1]).spawn(1)[0]),
    "spawn key by hand vs int": (lambda: SS(5, spawn_key=(3,)), lambda: 5 + (3 << 128)),
    "pool size 8": (lambda: SS(5, spawn_key=(2,), pool_size=8), lambda: SS([5, 0, 0, 0, 0, 0, 0, 0, 2], pool_size=8)),
    "a child of the int seed's subtree": (lambda: 5, lambda: SS([5, 0, 0, 0, 0])),
}


@pytest.mark.parametrize("case", sorted(SAME_STREAM))
def test_one_stream_written_two_ways_is_refused_on_the_second_release(case: str) -> None:
    first, second = SAME_STREAM[case]
    _release(first(), D)
    with pytest.raises(ValueError, match="already used by a different release"):
        _release(second(), D_NEIGHBOUR)


#: different streams that share a prefix of words or a root: not one stream, both releases run
DIFFERENT = {
    "two children of one seed": (lambda: SS(5).spawn(2)[0], lambda: SS(5).spawn(2)[1]),
    "children of neighbouring seeds": (lambda: SS(5).spawn(8)[7], lambda: SS(6).spawn(8)[7]),
    "a short seed and a longer entropy starting with it": (lambda: 5, lambda: SS([5, 1, 2, 3])),
    "a seed and a child of another seed with a key equal to it": (lambda: 7, lambda: SS(5).spawn(8)[7]),
}


@pytest.mark.parametrize("case", sorted(DIFFERENT))
def test_different_streams_are_not_refused(case: str) -> None:
    first, second = DIFFERENT[case]
    a = _release(first(), D)
    b = _release(second(), D_NEIGHBOUR)
    assert not np.array_equal(a, b)


COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda g: pickle.loads(pickle.dumps(g))}
FRESH = {"as_generator(None)": lambda: as_generator(None), "child_streams(None, 2)[0]": lambda: child_streams(None, 2)[0]}


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("made_by", sorted(FRESH))
def test_a_copy_of_a_fresh_generator_the_caller_holds_is_refused(made_by: str, how: str) -> None:
    g = FRESH[made_by]()
    twin = COPIES[how](g)
    _release(g, D)
    with pytest.raises(ValueError, match="already used by a different release"):
        _release(twin, D_NEIGHBOUR)


def test_a_fresh_generator_the_caller_holds_continues_from_release_to_release() -> None:
    g = as_generator(None)
    a = _release(g, D)
    b = _release(g, D_NEIGHBOUR)  # the same object: new children, new coins
    assert not np.array_equal(a, b)


def test_releases_drawing_their_own_fresh_entropy_are_never_refused() -> None:
    noise = [_release(None, D if i % 2 else D_NEIGHBOUR) for i in range(6)]
    assert len({n.tobytes() for n in noise}) == 6


def test_secure_mode_refuses_a_fresh_generator_the_caller_holds() -> None:
    g = as_generator(None)
    with secure_mode(), pytest.raises(ValueError, match="secure mode"):
        _release(g, D)


def test_a_released_function_called_with_its_defaults_written_out_is_the_same_release() -> None:
    from semiprivate.theory.privacy import exponential

    scores = np.array([0.0, 1.0, 3.0])
    first = exponential.sample(scores, 1.0, rng=11)
    params = inspect.signature(exponential.sample).parameters
    written = {k: p.default for k, p in params.items()
               if p.default is not inspect.Parameter.empty and k != "rng"}
    assert written, "exponential.sample has no defaulted parameter to write out"
    again = exponential.sample(scores, 1.0, rng=11, **written)  # the same release: not refused
    assert np.array_equal(np.asarray(first), np.asarray(again))

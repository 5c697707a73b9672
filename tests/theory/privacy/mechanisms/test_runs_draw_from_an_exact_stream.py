"""A release whose class declares its coins exact (``_exact_coins``, the geometric mechanism) receives an
``ExactStream`` in its run, not the caller's generator: a float draw written in that run is a TypeError before
any noise is drawn, whatever the caller passed (None, a seed, a Generator), and the stream is made inside the
release's record (one seed on two releases is still refused).  The mechanism's outputs are its exact discrete
Laplace on the caller's coins, as before."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from semiprivate.kernels.noise import ExactStream, discrete_laplace
from semiprivate.theory.privacy._release import coin_state_paths
from semiprivate.theory.privacy.mechanisms import GeometricMechanism
from semiprivate.theory.privacy.seeds import seed_reuse_allowed


class _FloatNoise(GeometricMechanism):
    """The geometric mechanism with its noise rewritten as a float Laplace (the defect of Mironov 2012)."""

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        return self._int_answer(data) + rng.laplace(0.0, 1.0 / self.epsilon, size)


class _Spy(GeometricMechanism):
    seen: list[Any] = []

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        type(self).seen.append(rng)
        return super().__call__(data, size, rng)


@pytest.mark.parametrize("rng", [None, 3, "generator", "seed sequence"])
def test_a_float_draw_in_the_run_is_refused(rng):
    rng = {"generator": np.random.default_rng(3), "seed sequence": np.random.SeedSequence(3)}.get(rng, rng)
    with pytest.raises(TypeError, match=r"^laplace: a release draws its noise from an exact-only stream"):
        _FloatNoise(1.0)(5, 4, rng)


@pytest.mark.parametrize("rng", [None, 7, "generator"])
def test_the_run_receives_an_exact_stream_and_leaves_none(rng):
    rng = np.random.default_rng(7) if rng == "generator" else rng
    _Spy.seen.clear()
    m = _Spy(1.0)
    m(5, 2, rng)
    m(5, 2) if rng is None else None
    assert _Spy.seen and all(isinstance(s, ExactStream) for s in _Spy.seen)
    assert coin_state_paths(m) == []


def test_the_outputs_are_the_exact_discrete_laplace_on_the_callers_coins():
    with seed_reuse_allowed():
        out = GeometricMechanism(0.5, sensitivity=2)(np.array([3, -1]), 6, np.random.default_rng(11))
        z = discrete_laplace(Fraction(2) / Fraction(0.5), 12, rng=np.random.default_rng(11)).reshape(6, 2)
    assert np.array_equal(out, np.array([3, -1]) + z)


def test_the_exact_stream_is_made_inside_the_release_record():
    GeometricMechanism(1.0)(5, 2, 21)
    with pytest.raises(ValueError, match="already used by a different release"):
        GeometricMechanism(1.0)(6, 2, 21)

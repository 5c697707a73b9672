"""An exact-only stream (``ExactStream``) exposes the exact samplers and refuses every float draw of a Generator,
the generator itself, its bit generator and pickling; its exact draws are those of the samplers it wraps on the
same generator (the same words read)."""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction

import numpy as np
import pytest
from semiprivate.kernels import exponential_mechanism
from semiprivate.kernels.noise import (
    FLOAT_DRAWS,
    ExactStream,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
    exact_stream,
)


@pytest.mark.parametrize("name", sorted(FLOAT_DRAWS | {"bit_generator", "spawn", "bytes", "permutation", "shuffle"}))
def test_every_float_draw_and_the_generator_itself_are_refused_naming_them(name):
    s = exact_stream(0)
    with pytest.raises(TypeError, match=rf"^{name}: a release draws its noise from an exact-only stream"):
        getattr(s, name)


def test_the_float_draws_listed_are_generator_methods():
    assert FLOAT_DRAWS <= set(dir(np.random.Generator))
    assert {"laplace", "normal", "random", "uniform", "standard_normal"} <= FLOAT_DRAWS


def test_its_exact_draws_are_the_samplers_on_the_same_words():
    s = exact_stream(np.random.default_rng(4))
    g = np.random.default_rng(4)
    assert np.array_equal(s.discrete_laplace(Fraction(10, 3), 50), discrete_laplace(Fraction(10, 3), 50, rng=g))
    assert np.array_equal(s.discrete_gaussian(9, 20), discrete_gaussian(9, 20, rng=g))
    assert np.array_equal(s.bernoulli_exp(Fraction(1, 2), 20), bernoulli_exp(Fraction(1, 2), 20, rng=g))
    assert np.array_equal(s.integers(0, 7, 30), g.integers(0, 7, 30))
    assert np.array_equal(s.bits(5), g.bit_generator.random_raw(5))
    scores = -np.arange(6)
    assert np.array_equal(s.exponential_mechanism(scores, 1.0, size=9),
                          exponential_mechanism(scores, 1.0, size=9, rng=g, exact=True))
    a, b = s.children(2)
    assert isinstance(a, ExactStream) and a.bits(1)[0] != b.bits(1)[0]


def test_it_keeps_no_readable_generator_and_does_not_pickle_or_copy():
    s = exact_stream(1)
    assert not any(isinstance(getattr(s, n, None), np.random.Generator | np.random.BitGenerator)
                   for n in dir(s) if not n.startswith("__") and n not in FLOAT_DRAWS)
    with pytest.raises(AttributeError):
        s.extra = 1
    with pytest.raises(TypeError, match="does not pickle"):
        pickle.dumps(s)
    with pytest.raises(TypeError, match="does not pickle"):
        copy.deepcopy(s)
    assert repr(s) == "ExactStream()"
    assert exact_stream(s) is s
    with pytest.raises(TypeError, match="rng must be None"):
        exact_stream(1.5)

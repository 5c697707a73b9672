"""semiprivate.kernels.noise: return types and shapes, input errors naming the parameter, and the bits read.

The samplers read the generator only as 64-bit words (``next_uint64``): ``n`` words for ``n``
samples, then rarely more (the documented contract the compiled backend reproduces bit for bit).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels.noise import bernoulli_exp, discrete_gaussian, discrete_laplace


def same_state(a, b) -> bool:
    """Two bit-generator states (nested dicts of ints and arrays) are equal."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b


SAMPLERS = [(discrete_laplace, 2.5), (discrete_gaussian, 3.0), (bernoulli_exp, 0.7)]


@pytest.mark.parametrize("fn,param", SAMPLERS)
def test_scalar_and_array_results(fn, param) -> None:
    one = fn(param, rng=3)
    want = bool if fn is bernoulli_exp else int
    assert type(one) is want
    many = fn(param, size=(2, 5), rng=3)
    assert many.shape == (2, 5) and many.dtype == (np.bool_ if fn is bernoulli_exp else np.int64)
    assert many.ravel()[0] == one  # the first word decides the first sample either way
    assert fn(param, size=0, rng=3).shape == (0,)
    assert np.array_equal(fn(param, 50, rng=np.random.default_rng(9)), fn(param, 50, rng=9))


@pytest.mark.parametrize("fn,param", SAMPLERS)
@pytest.mark.parametrize("bitgen", [np.random.PCG64, np.random.MT19937, np.random.Philox])
def test_n_samples_read_n_words_when_none_needs_more(fn, param, bitgen) -> None:
    a, b = np.random.Generator(bitgen(4)), np.random.Generator(bitgen(4))
    fn(param, 1000, rng=a, backend="numpy")
    b.integers(0, 2**64, size=1000, dtype=np.uint64)
    assert same_state(a.bit_generator.state, b.bit_generator.state)
    assert fn(param, rng=a) == fn(param, rng=b)


@pytest.mark.parametrize("scale,parts", [(5000, 2), (2e6, 3), (2e9, 3), (2**50, 5)])
def test_wide_laplace_reads_two_parts_per_word(scale, parts, monkeypatch) -> None:
    # the wide layout: ceil(parts / 2) words per sample when no part needs more bits
    table = ref.laplace_table(Fraction(scale))
    assert isinstance(table, ref._LaplaceLarge) and len(table.parts) == parts
    settled = []
    for part in table.parts:
        monkeypatch.setattr(part, "settle", lambda *a, **k: settled.append(a) or 0)
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    table.sample(1000, a)
    b.integers(0, 2**64, size=1000 * ((parts + 1) // 2), dtype=np.uint64)
    assert not settled and same_state(a.bit_generator.state, b.bit_generator.state)


def test_wide_gaussian_round_reads_proposal_and_coin_words_together() -> None:
    # CKS20 Alg. 3's first round: per sample its proposal's word (two parts) then its coin word
    table = ref._GaussianRejection(Fraction(10**9))
    assert table.n_words == 1
    w = np.random.default_rng(6).integers(0, 2**64, size=(500, 2), dtype=np.uint64)
    y = table.proposals(w[:, :1], np.random.default_rng(0))
    keep = table._coins(y, w[:, 1], np.random.default_rng(0))
    got = table.sample(500, np.random.default_rng(6))
    assert 0.6 < keep.mean() < 0.9 and np.array_equal(got[keep], y[keep])


def test_bucketed_gaussian_round_reads_proposal_and_coin_words_together() -> None:
    # the bucketed sampler's first round: per sample its proposal word (K, S, R) then its coin word
    table = ref._GaussianBuckets(Fraction(10**9))
    w = np.random.default_rng(7).integers(0, 2**64, size=(500, 2), dtype=np.uint64)
    x = table.proposals(w[:, 0], np.random.default_rng(0))
    keep = np.array([table.decide(int(v), int(c), np.random.default_rng(0)) for v, c in zip(x, w[:, 1])])
    got = table.sample(500, np.random.default_rng(7))
    assert 0.9 < keep.mean() < 1 and np.array_equal(got[keep], x[keep])


def test_wide_bucketed_gaussian_round_reads_proposal_offset_and_coin_words_together() -> None:
    # buckets wider than 2**31: per sample its proposal word (K, S), its offset word (R), then its coin word
    table = ref._GaussianBuckets(Fraction(2**80))
    assert table.n_words == 3 and table.W == 2**36
    w = np.random.default_rng(9).integers(0, 2**64, size=(500, 3), dtype=np.uint64)
    x = table.proposals(w[:, 0], np.random.default_rng(0), w[:, 1])
    assert np.array_equal(x % table.W, (w[:, 1] & np.uint64(table.W - 1)).astype(np.int64))
    keep = np.array([table.decide(int(v), int(c), np.random.default_rng(0)) for v, c in zip(x, w[:, 2])])
    got = table.sample(500, np.random.default_rng(9))
    assert 0.9 < keep.mean() < 1 and np.array_equal(got[keep], x[keep])


def test_exact_parameter_values_are_used() -> None:
    # a float is its dyadic rational: 0.1 and Fraction(1, 10) are different distributions (different tables)
    assert ref.laplace_table(Fraction(0.1)) is not ref.laplace_table(Fraction(1, 10))
    assert np.array_equal(discrete_laplace(0.5, 100, rng=1), discrete_laplace(Fraction(1, 2), 100, rng=1))
    assert np.array_equal(discrete_gaussian(np.float32(2.0), 100, rng=1), discrete_gaussian(2, 100, rng=1))


@pytest.mark.parametrize("fn,name", [(discrete_laplace, "scale"), (discrete_gaussian, "sigma2"), (bernoulli_exp, "gamma")])
def test_bad_parameters_name_the_parameter(fn, name) -> None:
    for bad, err in (("1", TypeError), (True, TypeError), (None, TypeError), (float("nan"), ValueError),
                     (float("inf"), ValueError), (-1.0, ValueError), (Fraction(-1, 3), ValueError)):
        with pytest.raises(err, match=name):
            fn(bad, rng=0)
    if fn is not bernoulli_exp:
        with pytest.raises(ValueError, match=f"{name} must be > 0"):
            fn(0.0, rng=0)


def test_bad_size_rng_and_backend() -> None:
    with pytest.raises(TypeError, match="size"):
        discrete_laplace(1.0, size=2.0, rng=0)
    with pytest.raises(ValueError, match="size"):
        discrete_laplace(1.0, size=(3, -1), rng=0)
    with pytest.raises(TypeError, match="rng"):
        discrete_laplace(1.0, rng="seed")
    with pytest.raises(ValueError, match="backend"):
        discrete_laplace(1.0, rng=0, backend="fortran")
    with pytest.raises(ValueError, match="cupy"):  # no GPU backend (or no GPU): refused either way
        discrete_gaussian(1.0, rng=0, backend="cupy")


def test_symmetric_and_centred() -> None:
    x = discrete_laplace(4.0, 100_000, rng=7)
    assert abs(x.mean()) < 5 * np.sqrt(x.var() / x.size)
    assert abs(int((x > 0).sum()) - int((x < 0).sum())) < 5 * np.sqrt(x.size)

"""semiprivate.kernels._cython._noise: the compiled samplers give the reference's outputs bit for bit.

Same seed, same outputs, same generator state after: over sizes (0, 1, odd, large), parameters
(integer, float, Fraction, tiny and wide), bit generators, and tables coarsened so that most words take
the exact settling path (the compiled loop must mark exactly the words the reference settles).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels import noise

pytest.importorskip("semiprivate.kernels._cython._noise")


def same_state(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b


def _both(table, n: int, seed: int, bitgen=np.random.PCG64) -> None:
    a, b = np.random.Generator(bitgen(seed)), np.random.Generator(bitgen(seed))
    x = noise._draw(table, n, a, "numpy")
    y = noise._draw(table, n, b, "cython")
    assert x.dtype == y.dtype == np.int64 and np.array_equal(x, y)
    assert same_state(a.bit_generator.state, b.bit_generator.state)


@pytest.mark.parametrize("scale", [Fraction(1, 7), 0.3, 1, 3.7, Fraction(22, 7), 250.0])
@pytest.mark.parametrize("n", [0, 1, 17, 4099])
def test_laplace_bit_for_bit(scale, n) -> None:
    _both(ref.laplace_table(Fraction(scale)), n, seed=n + 1)


@pytest.mark.parametrize("sigma2", [Fraction(1, 9), 0.5, 2, 3.7, Fraction(100, 3), 4000.0])
@pytest.mark.parametrize("n", [0, 1, 17, 4099])
def test_gaussian_bit_for_bit(sigma2, n) -> None:
    _both(ref.gaussian_table(Fraction(sigma2)), n, seed=n + 2)


@pytest.mark.parametrize("gamma", [Fraction(1, 10**9), 0.25, 1, Fraction(7, 3), 40.0])
def test_bernoulli_exp_bit_for_bit(gamma) -> None:
    _both(ref.bernoulli_exp_table(Fraction(gamma)), 5000, seed=3)


@pytest.mark.parametrize("bitgen", [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64])
def test_every_bit_generator(bitgen) -> None:
    _both(ref.laplace_table(Fraction(37, 10)), 3000, seed=4, bitgen=bitgen)
    _both(ref.gaussian_table(Fraction(37, 10)), 3000, seed=5, bitgen=bitgen)


@pytest.mark.parametrize("bits", [2, 5, 9])
def test_coarse_tables_settle_the_same_words(bits) -> None:
    # most words near a (coarsened) boundary or in the tails beyond +-3: the settling path dominates
    _both(ref._Laplace(Fraction(37, 10), bits=bits, max_half=3), 3000, seed=6)
    _both(ref._Symmetric(Fraction(0), Fraction(1, 8), bits=bits, max_half=3), 3000, seed=7)
    _both(ref._BernoulliExp(Fraction(2, 3), bits=bits), 3000, seed=8)


def test_public_functions_agree_across_backends() -> None:
    for fn, p in ((noise.discrete_laplace, 2.5), (noise.discrete_gaussian, 9.0), (noise.bernoulli_exp, 0.5)):
        assert np.array_equal(fn(p, (30, 7), rng=11, backend="numpy"), fn(p, (30, 7), rng=11, backend="cython"))
        assert fn(p, rng=12, backend="numpy") == fn(p, rng=12, backend="cython")


@pytest.mark.parametrize("make", [lambda: ref.laplace_table(Fraction(37, 10)), lambda: ref.gaussian_table(Fraction(5)),
                                  lambda: ref._BernoulliExp(Fraction(1, 3)),
                                  lambda: ref._Laplace(Fraction(2), bits=4, max_half=2)])
def test_words_at_every_bound_are_decided_as_the_reference_does(make) -> None:
    # the words next to each table entry (L - 1, L, L + 1, H - 1, H, H + 1), 0 and 2**64 - 1
    from semiprivate.kernels._cython import _noise

    table = make()
    edges = np.concatenate([table.L, table.H]).astype(object)
    cand = {0, 2**64 - 1} | {int(e) + d for e in edges for d in (-1, 0, 1)}
    words = np.array(sorted(v for v in cand if 0 <= v < 2**64), dtype=np.uint64)
    want_x, want_unsure = table.classify(words)
    guide, bits = noise._guide(table)
    out = np.empty(words.size, dtype=np.int64)
    unsure = np.empty(words.size, dtype=np.uint8)
    _noise.classify(table.L, table.H, guide, bits, table.xmin, table.lower_closed, table.upper_closed, words, out,
                    unsure)
    assert np.array_equal(out, want_x) and np.array_equal(unsure.astype(bool), want_unsure)


@pytest.mark.parametrize("scale", [1000, Fraction(50_000), 2e9, 2**50])
@pytest.mark.parametrize("n", [0, 1, 4099])
def test_wide_laplace_bit_for_bit(scale, n) -> None:
    # the small-table decomposition: every part drawn by the compiled loop, the same words as the reference
    _both(ref.laplace_table(Fraction(scale)), n, seed=n + 9)


@pytest.mark.parametrize("sigma2", [1e8, 2**100])
@pytest.mark.parametrize("n", [0, 1, 300, 5000])
def test_wide_gaussian_bit_for_bit(sigma2, n) -> None:
    # CKS20 Alg. 3: compiled discrete Laplace proposals and compiled coins (float-bounded, exact fallback)
    _both(ref.gaussian_table(Fraction(sigma2)), n, seed=10 + n)


def _coarse_laplace_large(scale: Fraction, bits: int, top_bits: int | None = None) -> ref._LaplaceLarge:
    """A wide discrete Laplace whose parts' 64-bit bounds are coarsened to ``bits``: the same law, most words
    settled (the fused compiled parts must settle exactly the reference's words and add them in place)."""
    t = ref._LaplaceLarge(scale)
    e0 = t.B / t.scale
    t.parts = [ref._LowLaplace(t.scale, t.B, bits=bits)]
    t.parts += [ref._TruncGeometric(e0 * t.D ** i, t.D, bits=bits) for i in range(t.K)]
    t.parts.append(ref._Geometric(e0 * t.D ** t.K, bits=bits if top_bits is None else top_bits))
    return t


@pytest.mark.parametrize("scale", [Fraction(5000), Fraction(2 * 10**9)])
def test_wide_laplace_settled_parts_bit_for_bit(scale) -> None:
    # 12-bit bounds: most of the 200 words of the low part settle (past the compiled list's first 16 entries);
    # 4-bit bounds on the top part: most of its words settle too, on both signs of Y (the correction of a
    # settled top value carries sign(Y))
    t = _coarse_laplace_large(scale, 12, top_bits=4)
    assert len(t.parts) >= 2
    _both(t, 200, seed=12)


@pytest.mark.parametrize("kind", ["buckets", "alg3"])
def test_wide_gaussian_coins_left_to_the_exact_code_bit_for_bit(kind, monkeypatch) -> None:
    # a wide float band leaves many coins to the reference's exact decision: still the same outputs and
    # generator state as the reference
    if kind == "buckets":
        table, run = ref._GaussianBuckets(Fraction(10**8)), noise._gaussian_buckets_compiled
    else:
        table, run = ref._GaussianRejection(Fraction(10**8)), noise._gaussian_rejection_compiled
    calls = []
    decide = table.decide
    monkeypatch.setattr(table, "decide", lambda y, w, rng: calls.append(1) or decide(y, w, rng))
    a, b = np.random.default_rng(44), np.random.default_rng(44)
    x = table.sample(2000, a)
    y = run(table, 2000, b, margin=0.5)
    assert np.array_equal(x, y) and same_state(a.bit_generator.state, b.bit_generator.state)
    assert len(calls) > 500


def test_gaussian_coin_band_cannot_be_narrowed() -> None:
    from semiprivate.kernels._cython import _noise

    g = np.random.default_rng(0)
    tables = noise._wide_tables(ref._GaussianRejection(Fraction(10**8)).lap)
    y = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="margin"):
        _noise.gaussian_round(tables, g.bit_generator.capsule, 1.0, 2.0, y, np.empty(3, dtype=np.uint8), 2.0**-30)
    with pytest.raises(ValueError, match="margin"):
        _noise.gaussian_bucket_round(tables[:1], 3, g.bit_generator.capsule, 2.0, y, np.empty(3, dtype=np.uint8),
                                     2.0**-30)


@pytest.mark.parametrize("sigma2", [Fraction(77777, 3), 1e9, 2**71, 2**72 - 1, 2**72, 1e24, 2**100])
@pytest.mark.parametrize("n", [0, 1, 3000])
def test_bucketed_gaussian_bit_for_bit(sigma2, n) -> None:
    _both(ref._GaussianBuckets(Fraction(sigma2)), n, seed=20 + n)


@pytest.mark.parametrize("sigma2", [10**8, 2**80])
def test_bucketed_gaussian_settled_bucket_indices_bit_for_bit(sigma2) -> None:
    # a coarse bucket-index table: most K settle, and their coins are decided afterwards by the exact code
    # (at 2**80 the settled rows carry the offset read from its own word)
    t = ref._GaussianBuckets(Fraction(sigma2))
    t.k_table = ref._HalfGaussian(t.k_table.c, bits=8)
    _both(t, 300, seed=14)


def test_wide_gaussian_settled_proposals_bit_for_bit() -> None:
    # coarse proposal tables: most proposals settle, and their coins (read before the settling) are decided
    # afterwards by the exact code, in index order, as the reference decides them
    t = ref._GaussianRejection(Fraction(10**8))
    t.lap = _coarse_laplace_large(Fraction(t.t), 12, top_bits=4)
    _both(t, 300, seed=13)


def _fine_parts() -> list:
    # every table located from 32-bit halves: the wide Laplace's parts and the bucket index
    return [*ref.laplace_table(Fraction(2 * 10**9)).parts, ref.gaussian_table(Fraction(10**9)).k_table,
            ref._BernoulliExp(Fraction(1, 3))]


def _wide_parts() -> list:
    # the fine tables, then coarse ones (many boundaries share a 32-bit half)
    return [*_fine_parts(), *_coarse_laplace_large(Fraction(2 * 10**9), 12, top_bits=4).parts]


def test_the_compiled_view_covers_tight_and_loose_tables() -> None:
    # the kernel skips the boundary below's H for a "tight" table (every H in its L's 2**32 cell): the tables
    # above include both kinds, so the halves test covers both branches
    kinds = {noise._half_part(part, 1)[9] for part in _wide_parts()}
    assert kinds == {True, False}


def _halves_near_bounds(part, most: int | None = None) -> np.ndarray:
    edges = np.concatenate([part.L, part.H])
    if most is not None and edges.size > most:  # a fixed sample of the boundaries, the first and last kept
        pick = np.random.default_rng(0).choice(edges.size, most, replace=False)
        edges = np.concatenate([edges[pick], part.L[[0, -1]], part.H[[0, -1]]])
    edges = edges.astype(object)
    cand = {0, 2**32 - 1} | {(int(e) >> 32) + d for e in edges for d in (-1, 0, 1)}
    return np.array(sorted(v for v in cand if 0 <= v < 2**32), dtype=np.uint64)


@pytest.mark.parametrize("k", range(len(_wide_parts())))
def test_halves_at_every_bound_are_decided_as_the_reference_does(k) -> None:
    from semiprivate.kernels._cython import _noise

    part = _wide_parts()[k]
    halves = _halves_near_bounds(part)
    want_x, want_unsure = part.classify_halves(halves)
    out = np.empty(halves.size, dtype=np.int64)
    unsure = np.empty(halves.size, dtype=np.uint8)
    view = noise._half_part(part, 1)
    _noise.classify_halves([view], halves, out, unsure)
    assert np.array_equal(out, want_x) and np.array_equal(unsure.astype(bool), want_unsure)
    # the halves on a boundary's top 32 bits take the kernel's 64-bit path; the rest its 32-bit one
    on_k = np.isin(halves, view[8][:-1].astype(np.uint64))
    assert on_k.any() and (~on_k).any()
    assert want_unsure.any()
    assert k >= len(_fine_parts()) or not want_unsure.all()  # the fine parts decide most halves next to a boundary


@pytest.mark.parametrize("k", range(len(_wide_parts())))
def test_a_decided_half_lies_inside_its_cell(k) -> None:
    # exactness of the 32-bit decision: U in [a, a + 1) / 2**32 lies in the cell of the value given, by the
    # rigorous bounds at 128 bits (F(x - 1) <= a / 2**32 and (a + 1) / 2**32 <= F(x)), for every half next to
    # a boundary (the only place a wrong decision can hide)
    part = _wide_parts()[k]
    halves = _halves_near_bounds(part, most=600)
    x, unsure = part.classify_halves(halves)
    q = 128
    for a, v in zip(halves[~unsure].tolist(), x[~unsure].tolist()):
        assert part.cdf_bounds(v - 1, q)[1] <= a << (q - 32)
        assert (a + 1) << (q - 32) <= part.cdf_bounds(v, q)[0]


def _synthetic_part(seed: int) -> ref._LazyInversion:
    # a table of random sorted bounds L <= H, clustered so that many share a 2**32 cell, some H in the next
    # cell (not tight), some L on a cell's first word, and sometimes bounds at 0 or 2**64 - 1
    g = np.random.default_rng(seed)
    nb = int(g.integers(1, 300))
    cells = np.sort(g.integers(0, 2**32, size=nb, dtype=np.uint64) >> np.uint64(g.integers(0, 31)))
    low = g.integers(0, 2**32, size=nb, dtype=np.uint64)
    low[g.random(nb) < 0.2] = 0
    L = np.sort((cells << np.uint64(32)) | low)
    width = g.integers(0, 4, size=nb, dtype=np.uint64)
    wide = g.random(nb) < 0.1 * (seed % 3)  # a third of the tables tight
    width[wide] = g.integers(0, 2**33, size=int(wide.sum()), dtype=np.uint64)
    H = np.minimum(L + width, np.uint64(2**64 - 1))
    H[L > np.uint64(2**64 - 1) - width] = np.uint64(2**64 - 1)
    for i in range(nb - 2, -1, -1):  # the reference's tables have sorted H too
        H[i] = min(H[i], H[i + 1])
    H = np.maximum(H, L)
    if seed % 5 == 0:
        L[-1] = H[-1] = np.uint64(2**64 - 1)
    if seed % 7 == 0:
        L[0] = H[0] = np.uint64(0)
    part = ref._LazyInversion()
    part.L, part.H = L, H
    part.xmin = int(g.integers(-5, 5))
    part.lower_closed, part.upper_closed = bool(seed % 2), bool((seed // 2) % 2)
    return part


@pytest.mark.parametrize("seed", range(40))
def test_synthetic_tables_are_decided_as_the_reference_does(seed) -> None:
    # random tables, tight and loose, with every half next to a bound's top 32 bits (the 64-bit path), the
    # halves in between, 0 and 2**32 - 1: the kernel's value and settle flag are the reference's
    from semiprivate.kernels._cython import _noise

    part = _synthetic_part(seed)
    edges = np.concatenate([part.L, part.H]).astype(object)
    cand = {0, 1, 2**32 - 2, 2**32 - 1} | {(int(e) >> 32) + d for e in edges for d in (-2, -1, 0, 1, 2)}
    cand |= set(np.random.default_rng(seed).integers(0, 2**32, size=200).tolist())
    halves = np.array(sorted(v for v in cand if 0 <= v < 2**32), dtype=np.uint64)
    want_x, want_unsure = part.classify_halves(halves)
    out = np.empty(halves.size, dtype=np.int64)
    unsure = np.empty(halves.size, dtype=np.uint8)
    _noise.classify_halves([noise._half_part(part, 1)], halves, out, unsure)
    assert np.array_equal(out, want_x) and np.array_equal(unsure.astype(bool), want_unsure)


def test_synthetic_tables_include_tight_and_loose() -> None:
    assert {noise._half_part(_synthetic_part(s), 1)[9] for s in range(40)} == {True, False}


def test_classify_halves_refuses_a_half_of_more_than_32_bits() -> None:
    from semiprivate.kernels._cython import _noise

    part = ref.laplace_table(Fraction(2 * 10**9)).parts[1]
    out, unsure = np.empty(1, dtype=np.int64), np.empty(1, dtype=np.uint8)
    with pytest.raises(ValueError, match=r"halves must lie in \[0, 2\*\*32\)"):
        _noise.classify_halves([noise._half_part(part, 1)], np.array([2**40], dtype=np.uint64), out, unsure)


def test_the_compiled_view_follows_a_table_whose_bounds_are_replaced() -> None:
    # the view (K, guide, tight) is cached on the table for its L and H arrays: new arrays get a new view
    from semiprivate.kernels._cython import _noise

    part = _synthetic_part(3)
    noise._half_part(part, 1)
    part.L, part.H = part.L // np.uint64(3), part.H // np.uint64(3)
    halves = np.unique(np.concatenate([part.L >> np.uint64(32), np.arange(0, 2**32, 2**20, dtype=np.uint64)]))
    want_x, want_unsure = part.classify_halves(halves)
    out, unsure = np.empty(halves.size, dtype=np.int64), np.empty(halves.size, dtype=np.uint8)
    _noise.classify_halves([noise._half_part(part, 1)], halves, out, unsure)
    assert np.array_equal(out, want_x) and np.array_equal(unsure.astype(bool), want_unsure)


def test_a_bucket_table_reaching_the_int64_limit_falls_back_to_the_reference() -> None:
    # no real table does (at most a few hundred entries against k_limit >= 2**16 - 1); if one did, the compiled
    # path would form x from a table value in C without the reference's check: it hands the draw to the reference
    t = ref._GaussianBuckets(Fraction(2**100))
    assert t.k_table.L.shape[0] < 300 <= t.k_limit
    t.k_limit = 20
    with pytest.raises(OverflowError, match="int64"):
        noise._gaussian_buckets_compiled(t, 5000, np.random.default_rng(0))

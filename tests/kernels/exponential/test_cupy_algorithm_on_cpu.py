"""The GPU sampler's algorithm, run on the CPU: :mod:`semiprivate.kernels._cupy.onepass` (the NumPy emulation
that ``expmech.cu`` implements, block for block) has the exponential mechanism's law.

No CuPy needed.  Laws are checked by the G-test of :mod:`semiprivate.kernels._testvectors` at ALPHA = 1e-7 per
assertion (the false-failure rate over seeds; the seeds are fixed), on small chunks and tiles (every level
and the partial last chunk and tile are exercised with few scores) and once with the device's own sizes.
Each law test has a broken variant of the algorithm that the same statistic rejects: the tile weights
without their scale ``exp(c (M_t - M))``, and one uniform reused for two levels.  The GPU tests
(``test_cupy_sampler.py``) check that the device makes this emulation's picks from the same uniforms.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from semiprivate.kernels import exponential_log_probabilities
from semiprivate.kernels._cupy import onepass as op
from semiprivate.kernels._testvectors import g_test_pvalue

ALPHA = 1e-7
CU = Path(op.__file__).with_name("expmech.cu")
SMALL = dict(chunk=16, tile=4, threads=4)


def test_constants_are_the_cuda_sources() -> None:
    src = CU.read_text()
    define = {k: v for k, v in re.findall(r"#define (SP_\w+) (\w+)", src)}
    assert int(define["SP_THREADS"]) == op.THREADS and int(define["SP_ITEMS"]) == op.ITEMS
    assert define["SP_TILE"] == "SP_THREADS" and op.TILE == op.THREADS and op.CHUNK == op.THREADS * op.ITEMS
    for name in ("sp_pass_f64", "sp_pass_f32", "sp_pass_i64", "sp_tiles_f", "sp_tiles_i64", "sp_select_f64",
                 "sp_select_f32", "sp_select_i64", "sp_block_pick"):
        assert name in src, name


def _weights_cases() -> list[np.ndarray]:
    g = np.random.default_rng(0)
    w = g.random(1000) * np.exp(g.normal(0, 20, 1000))
    w[g.random(1000) < 0.3] = 0.0
    return [w, np.r_[np.zeros(37), 1.0, np.zeros(50)], np.ones(5), g.random(4096), np.r_[1e-300, 1.0, 1e300, 0.0]]


@pytest.mark.parametrize("w", _weights_cases(), ids=lambda w: f"n{w.size}")
def test_prefix_never_decreases_and_the_picks_are_the_blocks(w) -> None:
    for threads in (1, 3, 256):
        P = op.prefix(w, threads)
        assert np.all(np.diff(P) >= 0)
        us = np.r_[np.random.default_rng(1).random(40), 0.0, 1.0 - 2.0**-53]
        fast = op.monotone_picks(w, us, threads)
        slow = np.array([op.monotone_pick(w, float(u), threads) for u in us])
        assert np.array_equal(fast, slow)
        assert np.all(w[fast] > 0)  # only positive weights are picked
    assert op.monotone_pick(np.zeros(7), 0.5) == -1


def _scores(kind: str, n: int, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed)
    if kind == "float64":
        s = g.normal(0, 2, n) + np.repeat(np.arange(-(-n // 64)), 64)[:n] * 0.3  # tiles of different mass
        s[(np.arange(n) // 16) % 7 == 3] = -np.inf  # whole dead chunks (SMALL chunk = 16)
        return s
    s = g.integers(-6, 6, n).astype(np.int64) + (np.arange(n) // 64)
    s[(np.arange(n) // 16) % 7 == 3] = -(10**6)  # weight exp(-c 1e6) = 0
    return s


@pytest.mark.parametrize("kind", ["float64", "int64"])
def test_emulated_device_algorithm_has_the_exact_law(kind: str) -> None:
    n = 16 * 4 * 5 + 7  # five full tiles of four chunks of 16, and a partial sixth
    s = _scores(kind, n, 1)
    c = 0.5
    p = np.exp(exponential_log_probabilities(s, 2 * c))
    d = op.sample(s, c, 200_000, np.random.default_rng(2), **SMALL, sort_min=10**9)
    counts = np.bincount(d, minlength=n)
    assert not counts[p == 0].any()
    assert g_test_pvalue(counts, p) > ALPHA


def _pieces(s: np.ndarray, c: float) -> tuple:
    m, S, status = op.chunk_pass(s, c, SMALL["chunk"])
    assert status == 0
    Mt, Tt = op.tile_pass(m, S, c, SMALL["tile"])
    return m, S, Mt, Tt


@pytest.mark.parametrize("broken", ["tile weights unscaled", "one uniform for tile and chunk"])
def test_the_law_test_rejects_a_broken_algorithm(broken: str) -> None:
    n = 16 * 4 * 5 + 7
    s = _scores("float64", n, 1)
    c = 0.5
    p = np.exp(exponential_log_probabilities(s, 2 * c))
    m, S, Mt, Tt = _pieces(s, c)
    k = 200_000
    u = np.random.default_rng(2).random(3 * k)
    if broken == "tile weights unscaled":
        d = op.select(s, c, m, S, np.full_like(Mt, Mt.max()), Tt, u, **SMALL)  # level 1 loses exp(c (M_t - M))
    else:
        u[k:2 * k] = u[:k]
        d = op.select(s, c, m, S, Mt, Tt, u, **SMALL)
    assert g_test_pvalue(np.bincount(d, minlength=n), p) < ALPHA


def test_sorted_draw_order_gives_the_same_draws() -> None:
    s = _scores("float64", 16 * 4 * 5 + 7, 3)
    c = 0.5
    m, S, Mt, Tt = _pieces(s, c)
    u = np.random.default_rng(4).random(3 * 5000)
    perm = op.draw_order(u[:5000], sort_min=op.SORT_MIN)
    assert perm is not None and np.all(np.diff(u[:5000][perm]) >= 0)
    assert op.draw_order(u[:100], sort_min=op.SORT_MIN) is None
    assert np.array_equal(op.select(s, c, m, S, Mt, Tt, u, perm, **SMALL), op.select(s, c, m, S, Mt, Tt, u, **SMALL))


def test_device_sizes_law_over_tiles_and_chunks() -> None:
    # the device's own chunk (4096) and tile (256 chunks): two full tiles and a partial third
    n = 2 * op.TILE * op.CHUNK + 5 * op.CHUNK + 123
    g = np.random.default_rng(5)
    s = g.normal(0, 1, n) + 0.002 * (np.arange(n) // op.CHUNK)
    c = 1.0
    p = np.exp(exponential_log_probabilities(s, 2 * c))
    d = op.sample(s, c, 12_000, np.random.default_rng(6))  # 12,000 >= SORT_MIN: the sorted order
    chunk = np.arange(n) // op.CHUNK
    assert g_test_pvalue(np.bincount(chunk[d], minlength=chunk[-1] + 1), np.bincount(chunk, weights=p)) > ALPHA
    assert g_test_pvalue(np.bincount(d % op.CHUNK // 256, minlength=16),
                         np.bincount(np.arange(n) % op.CHUNK // 256, weights=p, minlength=16)) > ALPHA


def test_status_paths_are_refused_by_the_emulation() -> None:
    with pytest.raises(ValueError, match="NaN"):
        op.sample(np.array([0.0, np.nan]), 1.0, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="-inf"):
        op.sample(np.full(5, -np.inf), 1.0, 3, np.random.default_rng(0))

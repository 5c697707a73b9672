"""CountScores: the selection's anticipated bound with its per-count factors tabulated, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit import stats
from semiprivate.theory.audit.candidates import search_pair
from semiprivate.theory.audit.draws import Codec, normalize
from semiprivate.theory.audit.selection import CountScores, anticipated_bound


@pytest.mark.parametrize(("s", "n", "a", "delta"), [(2_000, 2_000, 0.0125, 0.0), (10_000, 100_000, 0.01, 1e-6),
                                                    (1, 7, 0.4, 0.0), (300, 50, 0.2, 0.05)])
def test_scores_are_the_anticipated_bound_bit_for_bit(s: int, n: int, a: float, delta: float) -> None:
    g = np.random.default_rng(s)
    sc = CountScores(s, n, a, delta)
    for _ in range(3):  # the tables filled on first use give the same scores later
        kx = g.integers(0, s + 1, 500).astype(np.float64)
        ky = g.integers(0, s + 1, 500).astype(np.float64)
        kx[:2], ky[:2] = (0, s), (s, 0)
        for x, y in ((kx, ky), (ky, kx), (kx.astype(np.int64), ky.astype(np.int64))):
            got, ref = sc(x, y), anticipated_bound(x, y, s, n, a, delta)
            assert got.dtype == ref.dtype and np.array_equal(got, ref, equal_nan=True)
            assert got.tobytes() == ref.tobytes()


def test_counts_that_are_not_whole_go_to_the_anticipated_bound_and_bad_counts_are_refused() -> None:
    sc = CountScores(100, 1_000, 0.05, 0.0)
    kx, ky = np.array([2.5, 40.25, 99.0]), np.array([0.75, 10.0, 1.0])
    assert sc(kx, ky).tobytes() == anticipated_bound(kx, ky, 100, 1_000, 0.05, 0.0).tobytes()
    with pytest.raises(ValueError, match=r"kx and ky must be counts in \[0, s=100\]"):
        sc(np.array([101.0]), np.array([0.0]))
    with pytest.raises(ValueError, match="same shape"):
        sc(np.array([1.0, 2.0]), np.array([0.0]))
    with pytest.raises(ValueError, match="s"):
        CountScores(0, 10, 0.05, 0.0)


def test_the_tables_compute_each_count_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the tables: a count seen again is read, not recomputed (one Beta quantile pass per
    new count), and the result still equals the direct computation."""
    seen: list[int] = []
    real = stats._beta_lower_checked

    def spy(k, n, alpha):  # noqa: ANN001, ANN202
        seen.append(np.size(k))
        return real(k, n, alpha)

    import semiprivate.theory.audit.selection as selection

    monkeypatch.setattr(selection, "_beta_lower_checked", spy)
    sc = CountScores(50, 500, 0.05, 0.0)
    sc(np.arange(51.0), np.arange(51.0)[::-1])
    first = sum(seen)
    sc(np.arange(51.0)[::-1], np.arange(51.0))
    assert first == 2 * 51 and sum(seen) == first


def test_search_pair_refuses_a_table_of_other_settings() -> None:
    g = np.random.default_rng(0)
    codec = Codec()
    ox, oy = normalize(g.laplace(size=200), 200, codec), normalize(g.laplace(size=200) + 1, 200, codec)
    ok = search_pair(0, ox, oy, 200, 400, 0.05, 0.0, 16, 32, codec, counts_score=CountScores(200, 400, 0.05, 0.0))
    own = search_pair(0, ox, oy, 200, 400, 0.05, 0.0, 16, 32, codec)
    assert [(c.score, c.event.description, c.forward) for c in ok[0]] == \
        [(c.score, c.event.description, c.forward) for c in own[0]]
    with pytest.raises(ValueError, match="counts_score is tabulated at"):
        search_pair(0, ox, oy, 200, 400, 0.05, 0.0, 16, 32, codec, counts_score=CountScores(200, 800, 0.05, 0.0))

"""Selection power of the audit (issue #20): pessimistic event scores and per-pair slots.

Validity is covered by the calibration tests of test_audit.py (they fail without Bonferroni and
with events estimated on the selection batch); these tests check that the selection finds what the
final test can certify.
"""

from __future__ import annotations

import numpy as np
import pytest

from theory.audit import audit_pairs, selection


def test_anticipated_bound_ignores_sample_extremes() -> None:
    # 3 vs 0 in 10,000 selection draws is what a sample extreme looks like: no anticipated evidence
    b = selection.anticipated_bound(np.array([3.0, 30.0, 3000.0]), np.array([0.0, 0.0, 1000.0]),
                                    10_000, 100_000, 0.01, 0.0)
    assert b[0] <= 0.0
    assert 0.0 < b[1] < b[2] < np.log(3)  # 30 vs 0 is some evidence; 3000 vs 1000 keeps most of log 3
    # pessimistic: never above the plug-in bound of the same frequencies
    from theory.audit.stats import cp_lower, cp_upper, epsilon_bound
    plug = epsilon_bound(cp_lower(np.array([30.0, 3000.0]) * 10, 100_000, 0.01),
                         cp_upper(np.array([0.0, 1000.0]) * 10, 100_000, 0.01), 0.0)
    assert np.all(b[1:] <= plug)


class _C:
    def __init__(self, score: float, pair: int, group: str) -> None:
        self.score, self.pair, self.group = score, pair, (pair, group)


def test_pick_gives_every_pair_a_slot() -> None:
    cands = [_C(5.0 - 0.01 * i, 0, f"g{i}") for i in range(20)] + [_C(0.1, p, "g") for p in range(1, 6)]
    chosen = selection.pick(cands, selection.planned_tests(4, 6))
    assert len(chosen) == 6
    assert {c.pair for c in chosen} == set(range(6))
    assert [c.score for c in chosen] == sorted((c.score for c in chosen), reverse=True)
    assert selection.planned_tests(4, 2) == 4
    assert selection.planned_tests(4, 1000) == selection.MAX_PAIR_SLOTS


def _laplace_vector(eps: float):  # type: ignore[no-untyped-def]
    def mech(q, size, rng):  # type: ignore[no-untyped-def]
        return q + rng.laplace(0.0, 1.0 / eps, size=(size, q.size))
    return mech


def test_leaky_pair_among_many_null_pairs_is_found() -> None:
    # seven pairs with no difference (only sample-extreme events) and one pair differing by 3 in
    # one coordinate (true eps 1.5 for a claim of 0.5): the leaky pair must get a test and be flagged
    rng = np.random.default_rng(3)
    pairs = [(z := rng.integers(0, 3, 10).astype(float), z.copy()) for _ in range(7)]
    leak = np.zeros(10)
    pairs.append((leak, leak + np.r_[3.0, np.zeros(9)]))
    res = audit_pairs(_laplace_vector(0.5), pairs, epsilon=0.5, trials=100_000, rng=0)
    assert res.n_tests >= len(pairs)
    assert {w.pair_index for w in res.tests} == set(range(len(pairs)))
    assert res.violation and res.witness is not None and res.witness.pair_index == 7
    assert 1.0 < res.epsilon_lower_bound <= 1.5


def test_sparse_vector_outputting_noisy_values_is_flagged() -> None:
    # Lyu et al. 2017 Alg. 3 (outputs q + nu when above; not private) on StatDP's eight pairs: the
    # plug-in score with a global top-4 gave a bound of 0; the leak shows on the "X shape" pair
    eps = 0.5

    def svt3(q, size, rng):  # type: ignore[no-untyped-def]
        rho = rng.laplace(0.0, 2.0 / eps, size)
        out = np.full((size, q.size), -2e6)
        live = np.ones(size, dtype=bool)
        for i in range(q.size):
            nu = rng.laplace(0.0, 2.0 / eps, size)
            above = q[i] + nu >= 1.0 + rho
            out[live, i] = np.where(above, q[i] + nu, -1e6)[live]
            live &= ~above
        return out

    one = np.ones(5)
    pairs = [(one, np.r_[2.0, 1, 1, 1, 1]), (one, np.r_[0.0, 1, 1, 1, 1]), (one, np.r_[2.0, 0, 0, 0, 0]),
             (one, np.r_[0.0, 2, 2, 2, 2]), (one, np.r_[0.0, 0, 2, 2, 2]), (one, one + 1), (one, one - 1),
             (np.r_[one, 0 * one], np.r_[0 * one, one])]
    res = audit_pairs(svt3, pairs, epsilon=eps, trials=200_000, rng=0)
    assert res.violation, res.report()
    assert res.witness is not None and res.witness.pair_index == 7


@pytest.mark.parametrize("seed", range(3))
def test_correct_vector_mechanism_on_many_pairs_is_not_flagged(seed: int) -> None:
    # the per-pair slots enlarge K: the Bonferroni correction must follow (true eps = claim here)
    pairs = [(np.zeros(4), np.r_[np.zeros(j), 1.0, np.zeros(3 - j)]) for j in range(4)]
    res = audit_pairs(_laplace_vector(1.0), pairs, epsilon=1.0, trials=50_000, rng=seed)
    assert not res.violation
    assert res.n_tests == max(4, len(pairs))


def test_learned_score_finds_a_scale_change_in_many_coordinates() -> None:
    # 20 Laplace coordinates, scale 1 vs 1.3 (true eps infinite): means are equal, so no linear
    # direction separates the sides and d > 16 leaves no per-coordinate thresholds; the logistic
    # score on (z, z**2) fitted on the selection batch does
    def mech(scale, size, rng):  # type: ignore[no-untyped-def]
        return rng.laplace(0.0, float(scale[0]), (size, 20))

    res = audit_pairs(mech, [(np.array([1.0]), np.array([1.3]))], epsilon=1.0, trials=100_000, rng=0)
    assert res.violation and res.witness is not None
    assert "logistic score" in res.witness.event.description


def test_logistic_score_is_plain_and_picklable() -> None:
    import pickle

    g = np.random.default_rng(1)
    x, y = g.normal(0, 1, (3000, 2)), g.normal(0, 2, (3000, 2))
    sc = selection.learned_score(x, y, g)
    assert sc is not None
    again = pickle.loads(pickle.dumps(sc))
    assert np.array_equal(again(x), sc(x))
    assert sc(y).mean() < sc(x).mean()  # label 1 is the first side
    assert selection.learned_score(np.full((10, 2), np.nan), y, g) is None

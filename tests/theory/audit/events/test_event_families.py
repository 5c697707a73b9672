"""The auditor's event families and how it explains itself: results that say why (families tried, best
selection score, p-value against the level), datasets de-duplicated by content, joint events for structured
outputs, the per-coordinate ranking beyond 16 coordinates, float bit events.

Each test runs under a fixed seed; the power tests flag broken mechanisms with margins seen over
seeds 0-4 well above the assertions (false-failure rate per test far below 1e-3), and the validity
tests (correct mechanisms not flagged) run at confidence ``VALID = 0.999`` and fail with probability
at most 1e-3 per audit by the audit's guarantee (fixed seeds make them deterministic).
"""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit import assert_private, audit_mechanism, audit_pairs
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

#: confidence of audits of correct mechanisms: false-failure rate <= 1e-3 per audit
VALID = 0.999

# ---------------------------------------------------------------------------
# results explain themselves
# ---------------------------------------------------------------------------


def test_zero_bound_says_what_was_tried_and_why_nothing_survived() -> None:
    # the same dataset on both sides: no event can show evidence
    res = audit_mechanism(LaplaceMechanism(1.0), 0.0, 0.0, epsilon=1.0, trials=20_000, rng=3, confidence=VALID)
    assert res.epsilon_lower_bound == 0.0 and not res.violation
    assert len(res.search) == 1
    ps = res.search[0]
    assert ps.families["thr"] == res.n_candidates > 100 and ps.n_tested == res.n_tests
    assert ps.best_anticipated <= 0.0  # nothing to select on
    assert res.bonferroni_level == pytest.approx(0.001 / (2 * res.n_tests))
    text = str(res)
    assert "why the bound is 0" in text and "no candidate event showed evidence" in text
    assert f"pair #0: {res.n_candidates} candidates (thr {res.n_candidates})" in text
    assert "Bonferroni level 0.000125" in text


def test_no_violation_reports_best_bound_and_p_value_against_the_level() -> None:
    res = audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=2.0, trials=20_000, rng=1, confidence=VALID)
    assert not res.violation and 0.5 < res.epsilon_lower_bound < 1.0
    text = res.explain()
    assert "why no violation: best bound" in text and "<= claim 2" in text
    assert "best anticipated bound on the selection batch" in text and "best final bound" in text


def test_witness_carries_the_reproducible_pair() -> None:
    pairs = [(np.zeros(3), np.zeros(3)), ([0.0, 0.0, 0.0], [5.0, 0.0, 0.0])]

    def mech(d, size, rng):  # type: ignore[no-untyped-def]
        return float(np.sum(d)) + rng.laplace(0.0, 1.0, size)

    res = audit_pairs(mech, pairs, epsilon=1.0, trials=20_000, rng=7)
    w = res.witness
    assert res.violation and w is not None and w.pair_index == 1
    assert w.pair() == (pairs[1][0], pairs[1][1]) and w.data is pairs[1][0] and w.seed == res.seed == 7
    text = str(res)
    assert "data      = [0.0, 0.0, 0.0]" in text and "neighbour = [5.0, 0.0, 0.0]" in text and "audit rng = 7" in text
    with pytest.raises(AssertionError) as info:
        assert_private(mech, [0.0], [5.0], epsilon=1.0, trials=20_000, rng=2)
    msg = str(info.value)
    assert "neighbour = [5.0]" in msg and "audit rng = 2" in msg and "pair #0: " in msg
    # a Generator cannot be replayed: the report says so
    res2 = audit_pairs(mech, pairs, epsilon=1.0, trials=20_000, rng=np.random.default_rng(7))
    assert res2.seed is None and "pass an int rng" in str(res2)


# ---------------------------------------------------------------------------
# datasets de-duplicated by content
# ---------------------------------------------------------------------------


def test_equal_datasets_passed_as_separate_objects_are_sampled_once() -> None:
    seen: list[object] = []

    def mech(d, size, rng):  # type: ignore[no-untyped-def]
        seen.append(d)
        return float(np.sum(d)) + rng.laplace(0.0, 1.0, size)

    # four distinct objects, two distinct contents (two equal arrays, two equal lists), and an
    # array with the same numbers as the list: a different type, so a different dataset
    pairs = [(np.zeros(4), np.ones(4)), (np.zeros(4), np.ones(4)), ([0.0] * 4, [1.0] * 4), ([0.0] * 4, [1.0] * 4)]
    res = audit_pairs(mech, pairs, epsilon=5.0, trials=10_000, options=AuditOptions(selection_trials=10_000), rng=0)
    assert res.trials_used == 4 * (10_000 + 10_000)
    kinds = {(type(d).__name__, float(np.sum(d))) for d in seen}
    assert kinds == {("ndarray", 0.0), ("ndarray", 4.0), ("list", 0.0), ("list", 4.0)}
    # different dtypes or shapes are different datasets; unpicklable objects fall back to identity
    r2 = audit_pairs(mech, [(np.zeros(4), np.zeros(4, dtype=np.float32)), (np.zeros(4), np.zeros((2, 2)))],
                     epsilon=5.0, trials=10_000, options=AuditOptions(selection_trials=10_000), rng=0)
    assert r2.trials_used == 3 * 20_000
    fn1, fn2 = (lambda: 0), (lambda: 0)

    def mech_fn(d, size, rng):  # type: ignore[no-untyped-def]
        return rng.laplace(0.0, 1.0, size)

    r3 = audit_pairs(mech_fn, [(fn1, fn2), (fn1, fn2)], epsilon=5.0, trials=10_000, options=AuditOptions(selection_trials=10_000), rng=0)
    assert r3.trials_used == 2 * 20_000


# ---------------------------------------------------------------------------
# more than 16 coordinates: ranked per-coordinate thresholds
# ---------------------------------------------------------------------------


def test_rank_columns_finds_the_differing_coordinates() -> None:
    from semiprivate.theory.audit.selection import MAX_COORDS, rank_columns

    g = np.random.default_rng(0)
    x, y = g.laplace(size=(3000, 50)), g.laplace(size=(3000, 50))
    y[:, 31] += 0.5
    y[:, 7] *= 2.0  # same mean, another scale: seen by the KS statistic, not by means
    assert set(rank_columns(x, y, 2).tolist()) == {7, 31}
    # discrete columns with equal distributions score 0 (ties evaluated at the end of each run)
    xd, yd = g.integers(0, 2, (3000, 3)).astype(float), g.integers(0, 2, (3000, 3)).astype(float)
    yd[:, 2] = (g.random(3000) < 0.8)
    assert rank_columns(xd, yd, 1).tolist() == [2]
    assert MAX_COORDS == 16
    with pytest.raises(ValueError, match="k must be"):
        rank_columns(x, y, 0)


def test_forty_coordinates_keep_per_coordinate_thresholds() -> None:
    # one of 40 Laplace(1) coordinates shifted by 1.5 (true eps 1.5 > claim 1): the coordinate is
    # ranked first on the selection batch and its threshold is the witness, close to 1.5
    def mech(q, size, rng):  # type: ignore[no-untyped-def]
        return q + rng.laplace(0.0, 1.0, (size, q.size))

    shift = np.zeros(40)
    shift[23] = 1.5
    res = audit_pairs(mech, [(np.zeros(40), shift)], epsilon=1.0, trials=100_000, rng=0)
    coords = [k for k in res.families if k.startswith("coord")]
    assert len(coords) == 16 and coords[0] == "coord23"
    assert res.violation and res.witness is not None and res.witness.event.description.startswith("x[23] ")
    assert 1.35 < res.epsilon_lower_bound <= 1.5


# ---------------------------------------------------------------------------
# float bit events (Mironov 2012)
# ---------------------------------------------------------------------------


def _naive_float_laplace(data, size, rng):  # type: ignore[no-untyped-def]
    """The textbook Laplace mechanism computed in doubles (eps 1 on inputs at distance 1): not DP,
    its set of reachable doubles depends on the input (Mironov, CCS 2012)."""
    return data + rng.laplace(0.0, 1.0, size)


def _snapped_laplace(data, size, rng):  # type: ignore[no-untyped-def]
    """Outputs rounded to the grid 2^-10 (a simplified snapping mechanism): the low bits carry nothing."""
    return np.round((data + rng.laplace(0.0, 1.0, size)) * 1024.0) / 1024.0


def test_float_bits_flag_the_naive_float_laplace() -> None:
    # bit events are opt-in: the default search builds none (whether it flags the mechanism by other
    # means is not asserted here: that would freeze a weakness)
    plain = audit_pairs(_naive_float_laplace, [(0.0, 1.0)], epsilon=1.0, trials=100_000, rng=0)
    assert "bits" not in plain.families
    res = audit_pairs(_naive_float_laplace, [(0.0, 1.0)], epsilon=1.0, trials=100_000, rng=0, options=AuditOptions(float_bits=True))
    assert res.families["bits"] > 0
    # the witness is a bit event (the leak is in the low mantissa bit: one side never shows it)
    assert res.violation and res.witness is not None and res.witness.support_mismatch, res.report()
    assert "low 1 bits" in res.witness.event.description and res.epsilon_lower_bound > 5.0
    # on a vector, the bits of each ranked coordinate are searched
    res_v = audit_pairs(lambda d, size, rng: np.c_[rng.laplace(0.0, 1.0, size), _naive_float_laplace(d, size, rng)],
                        [(0.0, 1.0)], epsilon=1.0, trials=100_000, rng=1, options=AuditOptions(float_bits=True))
    assert res_v.violation and "of x[1])" in res_v.witness.event.description  # type: ignore[union-attr]


def test_float_bits_do_not_flag_a_snapped_laplace() -> None:
    for seed in range(3):
        res = audit_pairs(_snapped_laplace, [(0.0, 1.0)], epsilon=1.0, trials=100_000, rng=seed, options=AuditOptions(float_bits=True),
                          confidence=VALID)
        assert not res.violation, res.report()
        assert res.families["bits"] > 0


def test_bit_keys() -> None:
    from semiprivate.theory.audit.events import bit_keys

    v = np.array([1.0, np.nextafter(1.0, 2.0), -1.0, 0.375])
    k1 = bit_keys(v, 1)
    assert k1[0] % 2 == 0 and k1[1] % 2 == 1 and k1[0] + 1 == k1[1]  # same exponent, last bit flips
    assert (k1[2] >> 1) >> 11 == 1 and (k1[0] >> 1) >> 11 == 0  # sign bit
    assert (int(bit_keys(v, 4)[3]) >> 4) & 0x7FF == 1023 - 2  # 0.375 = 1.5 * 2^-2


# ---------------------------------------------------------------------------
# opt-in MLP score (DP-Sniper's neural network)
# ---------------------------------------------------------------------------


def _quadrant_mech(d, size, rng):  # type: ignore[no-untyped-def]
    """Two Laplace coordinates with the same marginals under both inputs; the sign of x0 * x1 is +
    under data 0 and - under data 1 (true epsilon infinite): no linear or per-coordinate event and
    no logistic score on (z, z**2) separates the sides, a network does."""
    x = rng.laplace(0.0, 1.0, (size, 2))
    x[:, 1] = np.abs(x[:, 1]) * np.sign(x[:, 0]) * (1.0 if d == 0 else -1.0)
    return x


def test_mlp_score_finds_an_interaction() -> None:
    # the network is opt-in: the default search builds no mlp candidate (whether it flags the
    # mechanism by other means is not asserted: that would freeze a weakness)
    plain = audit_pairs(_quadrant_mech, [(0, 1)], epsilon=1.0, trials=50_000, rng=0)
    assert "mlp" not in plain.families
    res = audit_pairs(_quadrant_mech, [(0, 1)], epsilon=1.0, trials=50_000, rng=0, options=AuditOptions(mlp=True))
    assert res.families["mlp"] > 0
    # the witness is the thresholded network score, and it separates the sides almost perfectly
    assert res.violation and res.epsilon_lower_bound > 5.0, res.report()
    assert res.witness is not None and "mlp score" in res.witness.event.description
    with pytest.raises(TypeError, match="mlp"):
        audit_pairs(_quadrant_mech, [(0, 1)], epsilon=1.0, trials=100, options=AuditOptions(mlp=1))


def test_mlp_score_is_plain_and_picklable() -> None:
    import pickle

    from semiprivate.theory.audit.selection import mlp_score

    g = np.random.default_rng(0)
    x, y = _quadrant_mech(0, 4000, g), _quadrant_mech(1, 4000, g)
    sc = mlp_score(x, y, g)
    assert sc is not None and np.array_equal(pickle.loads(pickle.dumps(sc))(x), sc(x))
    assert np.mean(sc(x) > 0) > 0.8 and np.mean(sc(y) > 0) < 0.2
    assert mlp_score(np.full((10, 2), np.nan), y, g) is None


def test_mlp_score_on_few_selection_outputs_fits_without_warnings() -> None:
    """Fewer than 512 selection outputs in all (e.g. selection_trials below 256): one batch of all rows,
    no scikit-learn 'batch_size clipped' warning (the test configuration turns warnings into errors)."""
    import warnings

    from semiprivate.theory.audit.selection import mlp_score

    g = np.random.default_rng(1)
    x, y = _quadrant_mech(0, 150, g), _quadrant_mech(1, 150, g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sc = mlp_score(x, y, g)
    assert sc is not None and np.all(np.isfinite(sc(x)))

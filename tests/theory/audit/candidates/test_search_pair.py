"""semiprivate.theory.audit.candidates.search_pair: what each event family builds, scores and keeps for one pair,
pinned on fixed selection samples (scalars, labels, vectors and their learned scores, structured outputs, float
bits, row patterns, value sets), and the threshold helpers it uses."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest


def test_threshold_candidates_quantiles_extremes_and_counts() -> None:
    from semiprivate.theory.audit.candidates import threshold_candidates

    t, cx, cy = threshold_candidates(np.array([3.0, 1.0, 2.0]), np.array([2.0, 5.0]), 3)
    below1, below2 = np.nextafter(1.0, -np.inf), np.nextafter(2.0, -np.inf)
    assert t.tolist() == [below1, 1.0, below2, 2.0, 3.0, 5.0]
    assert cx.tolist() == [3.0, 2.0, 2.0, 1.0, 0.0, 0.0] and cy.tolist() == [2.0, 2.0, 2.0, 1.0, 1.0, 0.0]
    assert cx.dtype == np.float64 and cy.dtype == np.float64
    # quantiles of the pooled sample at n_thresholds points (0, 0.25, ..., 1)
    t, _, _ = threshold_candidates(np.arange(0.0, 9.0), np.arange(0.0, 9.0), 5)
    assert t.tolist() == [np.nextafter(0.0, -np.inf), 0.0, 2.0, 4.0, 6.0, 8.0]
    # infinite outputs: no infinite threshold
    with np.errstate(invalid="ignore", over="ignore"):  # as audit_pairs calls it
        t, cx, cy = threshold_candidates(np.array([-np.inf, 0.0]), np.array([0.0, np.inf]), 2)
    assert t.tolist() == [np.nextafter(0.0, -np.inf), 0.0] and cx.tolist() == [1.0, 0.0] and cy.tolist() == [2.0, 1.0]


def test_has_repeats() -> None:
    from semiprivate.theory.audit.candidates import has_repeats

    assert has_repeats(None) is False
    assert has_repeats(np.array([[1.0, 1.0]])) is False
    assert has_repeats(np.array([3.0, 1.0, 2.0])) is False
    assert has_repeats(np.array([3.0, 1.0, 3.0])) is True
    assert has_repeats(np.array([1.0])) is False


def _fingerprint(cands: list[Any], ox: Any, oy: Any) -> list[tuple[Any, ...]]:
    """Every kept candidate in the order kept: score, pair, event text, direction, group and the event's counts on
    both samples.  The digests below take the scores only through their sum (:func:`_digest`): a score's last
    digits differ between CPUs (vectorised log/exp and the Beta quantile's iterations differ between AVX2 and
    AVX-512 builds; a 9-digit score printed differently on the two), while the order they induce (scores here
    differ by >= 1e-6 relative or tie exactly), the counts and a 6-digit sum do not."""
    return [(float(c.score), c.pair, c.event.description, c.forward, c.group, int(np.sum(c.event.indicator(ox))),
             int(np.sum(c.event.indicator(oy)))) for c in cands]


def _run_select(rx: Any, ry: Any, s: int, *, pair: int = 0, cat: tuple[Any, ...] = (), fb: bool = False,
                nthr: int = 8, maxv: int = 2048, n: int = 10_000, a: float = 0.01, delta: float = 0.0,
                schema: bool = False) -> tuple[dict[str, int], list[tuple[Any, ...]]]:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize
    from semiprivate.theory.audit.outputs import OutputSchema

    c = Codec()
    ox, oy = normalize(rx, s, c), normalize(ry, s, c)
    if schema:
        c.schema = OutputSchema([r for o in (ox, oy) for r in o.rows], cat)
        for o in (ox, oy):
            o.table, o.rows = c.schema.table(o.rows, c.encode), None
    with np.errstate(invalid="ignore", over="ignore"):
        cands, fams = search_pair(pair, ox, oy, s, n, a, delta, nthr, maxv, c, cat, fb)
    return fams, _fingerprint(cands, ox, oy)


def _digest(rows: list[tuple[Any, ...]]) -> str:
    import hashlib

    # the scores enter as their finite sum to 6 significant digits, checked to sit >= 1e-9 relative from a
    # rounding boundary of that format (CPU differences in the scores are far below that)
    total = math.fsum(r[0] for r in rows if math.isfinite(r[0]))
    if total != 0.0:
        m = abs(total) / 10.0 ** (math.floor(math.log10(abs(total))) - 5)
        assert abs(m - math.floor(m) - 0.5) > 1e-9 * m, f"score sum {total!r} sits on a 6-digit rounding boundary"
    key = repr([r[1:] for r in rows]) + f"|{total:.6g}|{sum(1 for r in rows if not math.isfinite(r[0]))}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def test_select_small_integer_scalar_exactly() -> None:
    fams, rows = _run_select(np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 3]), np.array([0, 0, 0, 1, 1, 1, 2, 2, 3, 3]), 10,
                             nthr=4, n=1000)
    assert fams == {"thr": 20, "value": 8, "valueset": 6}
    tiny = f"x > {np.nextafter(0.0, -1.0):.6g}"
    assert [r[1:] for r in rows] == [
        (0, tiny, True, (0, "thr", True), 10, 10), (0, "x <= 3", True, (0, "thr", True), 10, 10),
        (0, "x <= 2", True, (0, "thr", True), 9, 8), (0, "x > 0", True, (0, "thr", True), 8, 7),
        (0, "x > 1", True, (0, "thr", True), 5, 4), (0, "x <= 1", True, (0, "thr", True), 5, 6),
        (0, "x <= 0", True, (0, "thr", True), 2, 3), (0, "x > 2", True, (0, "thr", True), 1, 2),
        (0, tiny, False, (0, "thr", False), 10, 10), (0, "x <= 3", False, (0, "thr", False), 10, 10),
        (0, "x <= 2", False, (0, "thr", False), 9, 8), (0, "x <= 1", False, (0, "thr", False), 5, 6),
        (0, "x > 0", False, (0, "thr", False), 8, 7), (0, "x <= 0", False, (0, "thr", False), 2, 3),
        (0, "x > 1", False, (0, "thr", False), 5, 4), (0, "x > 2", False, (0, "thr", False), 1, 2),
        (0, "x == 2", True, (0, "value", True), 4, 2), (0, "x == 1", True, (0, "value", True), 3, 3),
        (0, "x == 0", True, (0, "value", True), 2, 3), (0, "x == 3", True, (0, "value", True), 1, 2),
        (0, "x == 0", False, (0, "value", False), 2, 3), (0, "x == 1", False, (0, "value", False), 3, 3),
        (0, "x == 3", False, (0, "value", False), 1, 2), (0, "x == 2", False, (0, "value", False), 4, 2),
        (0, "x in {2, 1, 0, 3} (4 values)", True, (0, "valueset", True), 10, 10),
        (0, "x in {2, 1, 0} (3 values)", True, (0, "valueset", True), 9, 8),
        (0, "x in {2, 1} (2 values)", True, (0, "valueset", True), 7, 5),
        (0, "x in {3, 0, 1, 2} (4 values)", False, (0, "valueset", False), 10, 10),
        (0, "x in {3, 0, 1} (3 values)", False, (0, "valueset", False), 6, 8),
        (0, "x in {3, 0} (2 values)", False, (0, "valueset", False), 3, 5)]
    assert [r[0] for r in rows[:4]] == pytest.approx([-0.219060038, -0.219060038, -0.341577994, -0.457560664], rel=1e-8)
    assert _digest(rows) == "9aadaeb099cbd8dd"


def _tuples(g: np.random.Generator, s: int, m: float, k: int) -> np.ndarray:
    arr = np.empty(s, dtype=object)
    for i in range(s):
        arr[i] = (str(g.choice(["u", "v"])), float(np.round(g.normal(m, 1), 2)), int(g.integers(0, k)))
    return arr


def _case(name: str, s: int = 400) -> tuple[dict[str, int], list[tuple[Any, ...]]]:
    g = np.random.default_rng(sum(map(ord, name)))
    if name == "float_bits":
        return _run_select(np.round(g.laplace(0, 1, s), 1), np.round(g.laplace(1, 1, s), 1), s, fb=True)
    if name == "vector":
        return _run_select(g.normal(0, 1, (s, 3)), g.normal([0.5, 0, 0], 1, (s, 3)), s, pair=1)
    if name == "coded":
        return _run_select(np.c_[g.normal(0, 1, s), g.choice([-1.0, 0.0, 1.0], s)],
                           np.c_[g.normal(0.3, 1, s), g.choice([-1.0, 0.0, 1.0], s, p=[.5, .3, .2])], s)
    if name == "intvec":
        return _run_select(g.integers(0, 3, (s, 2)), np.c_[g.integers(0, 3, s), g.integers(1, 4, s)], s)
    if name == "labels":
        return _run_select(np.array(g.choice(["a", "b", "c"], s)),
                           np.array(g.choice(["a", "b", "d"], s, p=[.5, .3, .2])), s, maxv=2)
    if name == "structured":
        return _run_select(_tuples(g, s, 0, 3), _tuples(g, s, 0.5, 4), s, schema=True)
    if name == "declared":
        return _run_select(np.c_[g.normal(0, 1, s), g.integers(0, 5, s)],
                           np.c_[g.normal(0.2, 1, s), g.integers(0, 5, s)], s, cat=(1,))
    assert name == "wide"
    return _run_select(g.normal(0, 1, (s, 18)), g.normal(0, 1, (s, 18)) + np.r_[np.zeros(17), 1.0], s, nthr=4)


SELECT_CASES: dict[str, tuple[dict[str, int], int, str]] = {  # families built, candidates kept, digest
    "labels": ({"value": 4, "valueset": 2}, 6, "a1ee8efb6d3c7880"),
    "float_bits": ({"thr": 48, "bits": 276, "value": 118, "valueset": 116}, 112, "b56a4f9fd6e52a55"),  # "x == 0.0", not -0.0
    "vector": ({"fisher": 48, "meandiff": 48, "logistic": 48, "sign": 36, "coord0": 48, "coord1": 48, "coord2": 48}, 112, "51089a932179ebbe"),
    "coded": ({"fisher": 48, "meandiff": 48, "logistic": 48, "sign": 20, "coord0": 48, "coord1": 16, "cat": 10, "joint": 144, "pattern": 6, "patternset": 4}, 132, "ff76eeab8741c7b6"),
    "intvec": ({"fisher": 48, "meandiff": 48, "logistic": 48, "coord0": 16, "coord1": 24, "cat": 24, "joint": 104, "value": 24, "valueset": 22}, 152, "5ccab2b58daa48d0"),
    "structured": ({"col": 76, "cat": 20, "joint": 316, "value": 30, "valueset": 28}, 108, "62c482bcca928301"),
    "declared": ({"fisher": 48, "meandiff": 48, "logistic": 48, "sign": 20, "coord0": 48, "cat": 18, "joint": 240, "pattern": 10, "patternset": 8}, 132, "e1f0ac1a602297dd"),
    "wide": ({"fisher": 32, "meandiff": 32, "logistic": 32, "sign": 32, "coord17": 32, "coord5": 32, "coord4": 32, "coord13": 32, "coord1": 32, "coord9": 32, "coord8": 32, "coord12": 32, "coord16": 32, "coord6": 32, "coord7": 32, "coord11": 32, "coord15": 32, "coord10": 32, "coord2": 32, "coord14": 32}, 320, "b6e21b5b7dac8721"),
}


@pytest.mark.parametrize("name", ["labels", "float_bits", "vector", "coded", "intvec", "structured", "declared",
                                  "wide"])
def test_select_families_pinned_on_fixed_samples(name: str) -> None:
    fams, rows = _case(name)
    want = SELECT_CASES[name]
    assert (fams, len(rows)) == want[:2]
    assert list(fams) == list(want[0])  # families in the order they were built
    assert _digest(rows) == want[2], rows[:12]


def test_select_delta_pair_and_continuous_outputs() -> None:
    g = np.random.default_rng(5)
    fams, rows = _run_select(np.round(g.laplace(0, 1, 300), 1), np.round(g.laplace(1, 1, 300), 1), 300, delta=0.01,
                             pair=2, n=5000, a=0.001)
    assert (fams, len(rows), _digest(rows)) == ({"thr": 48, "value": 102, "valueset": 100}, 48, "e7e848076aa6056e")
    assert {r[1] for r in rows} == {2}
    fams, rows = _run_select(g.normal(0, 1, 300), g.normal(1, 1, 300), 300, nthr=16)  # no repeats: thresholds only
    assert (fams, len(rows), _digest(rows)) == ({"thr": 80}, 16, "dae8c86c60cbea15")


def test_select_value_labels_read_negative_zero_as_zero() -> None:
    """-0.0 and 0.0 are one value, labelled "0.0": np.unique keeps whichever of the two equal zeros
    its sort puts first, and that order differed between NumPy's AVX-512 and AVX2 sorts (the digest
    of test_select_delta_pair_and_continuous_outputs differed between machines).  Here x has only
    -0.0, so without the canonical zero the label would be "x == -0.0" on every machine."""
    rx = np.array([-0.0] * 6 + [1.0] * 4)
    ry = np.array([0.0] * 2 + [-0.0] * 2 + [1.0] * 6)
    for a, b in ((rx, ry), (rx[::-1].copy(), ry[::-1].copy()), (ry, rx)):
        fams, rows = _run_select(a, b, 10, nthr=4, n=1000)
        descs = [r[2] for r in rows]
        assert "x == 0.0" in descs and not any("-0" in d for d in descs), descs
        want = {int((a == 0).sum()), int((b == 0).sum())}  # both zeros counted as one value
        assert all({r[5], r[6]} == want for r in rows if r[2] == "x == 0.0")


def test_select_refuses_outputs_of_different_forms() -> None:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    msg = (r"^outputs under the two datasets have different shapes/kinds; return labels \(e\.g\. tuples\) if the output "
           r"space itself differs$")
    for rx, ry in ((np.zeros(10), np.zeros((10, 2))), (np.zeros((10, 2)), np.zeros((10, 3))),
                   (np.zeros(10), np.array(["a"] * 10))):
        with pytest.raises(ValueError, match=msg):
            search_pair(0, normalize(rx, 10, c), normalize(ry, 10, c), 10, 100, 0.01, 0.0, 4, 16, c)


def test_select_defaults_build_no_bit_events() -> None:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    ox = normalize(np.array([0.5, 1.5, 1.5, 2.5]), 4, c)
    oy = normalize(np.array([1.5, 2.5, 2.5, 3.5]), 4, c)
    _, fams = search_pair(0, ox, oy, 4, 100, 0.01, 0.0, 4, 16, c)
    assert "bits" not in fams and set(fams) == {"thr", "value", "valueset"}


def test_select_value_sets_of_many_categories() -> None:
    # 600 categories seen 3 times each (the last only under the first dataset): value sets capped at 512 per direction
    g = np.random.default_rng(7)
    s = 1800
    cx, cy = np.repeat(np.arange(600.0), 3), np.r_[np.repeat(np.arange(599.0), 3), [0.0, 1.0, 2.0]]
    fams, rows = _run_select(np.c_[g.normal(0, 1, s), cx], np.c_[g.normal(0, 1, s), cy], s, cat=(1,), nthr=4)
    assert fams == {"fisher": 32, "meandiff": 32, "logistic": 32, "sign": 20, "coord0": 32, "cat": 2 * 600 + 2 * 512,
                    "joint": 248}
    assert (len(rows), _digest(rows)) == (128, "ef7d8812162466eb")
    # 40 categories with tied counts (4 and 3): the stable order decides which are kept and how they are named
    cat = np.concatenate([np.repeat(np.arange(0, 40, 2.0), 4), np.repeat(np.arange(1, 40, 2.0), 3)])
    s = cat.size
    gx, gy = g.permutation(cat), g.permutation(cat)
    fams, rows = _run_select(np.c_[g.normal(0, 1, s), gx], np.c_[g.normal(0, 1, s), gy], s, cat=(1,), nthr=4)
    assert (fams["cat"], len(rows), _digest(rows)) == (158, 124, "c152a3c9d02e7c52")


def _objects(items: list[Any]) -> np.ndarray:
    a = np.empty(len(items), dtype=object)
    for i, v in enumerate(items):
        a[i] = v
    return a


def test_select_structured_numeric_leaf_seen_on_one_side_or_once() -> None:
    # the leaf x[1] only under the first dataset: no threshold events on it (only on the length)
    x = _objects([("u", 1.5, 0.5)] + [("u",)] * 5 + [("v",)] * 4)
    y = _objects([("u",)] * 6 + [("v",)] * 4)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert (fams, len(rows), _digest(rows)) == (
        {"col": 12, "cat": 8, "joint": 20, "value": 4, "valueset": 2}, 42, "4b02cd2c46d4c621")
    # seen once under the first dataset and twice under the other: thresholds on it
    x = _objects([("u", 1.5)] + [("u",)] * 5 + [("v",)] * 4)
    y = _objects([("u", 2.5)] * 2 + [("u",)] * 4 + [("v",)] * 4)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert fams["col"] > 12 and any("x[1]" in r[2] for r in rows), (fams, rows)


def test_select_vector_degenerate_directions() -> None:
    g = np.random.default_rng(3)
    x = g.normal(0, 1, (50, 2))
    fams, _ = _run_select(x, x.copy(), 50, nthr=4)  # equal means: no mean-difference direction
    assert "meandiff" not in fams and "coord0" in fams
    # constant outputs 0 and 1: a zero covariance, the ridge alone (positive) gives the Fisher direction +diff
    fams, rows = _run_select(np.zeros((20, 2)), np.ones((20, 2)), 20, nthr=4)
    fisher = [r[2] for r in rows if r[4][1] == "fisher"]
    assert fisher and all(d.startswith("<fisher direction, x> ") for d in fisher)
    assert "<fisher direction, x> > -1.41421" in fisher or "<fisher direction, x> <= -1.41421" in fisher


def test_select_structured_numeric_leaf_seen_once_under_the_neighbour() -> None:
    x = _objects([("u", 1.5)] * 2 + [("u",)] * 4 + [("v",)] * 4)
    y = _objects([("u", 2.5)] + [("u",)] * 5 + [("v",)] * 4)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert fams["col"] > 12 and any("x[1]" in r[2] for r in rows)


def _select_vector(x: np.ndarray, y: np.ndarray, *, pair: int = 0, mlp: bool = False,
                   nthr: int = 4) -> tuple[list[Any], dict[str, int]]:
    from semiprivate.theory.audit.candidates import search_pair
    from semiprivate.theory.audit.draws import Codec, normalize

    c = Codec()
    s = x.shape[0]
    with np.errstate(invalid="ignore", over="ignore"):
        return search_pair(pair, normalize(x, s, c), normalize(y, s, c), s, 10_000, 0.01, 0.0, nthr, 2048, c, (), False,
                       mlp)


def test_select_mlp_score_family_is_the_pairs_seeded_network() -> None:
    # mlp=True adds one projection family, "mlp": thresholds of the logit of the network fitted on the
    # selection batch with the generator default_rng(pair), so the search is reproducible
    from semiprivate.theory.audit.selection import MLPScore, mlp_score

    g = np.random.default_rng(11)
    x, y = g.normal(0, 1, (300, 2)), g.normal(0, 1, (300, 2)) + [0.5, 0.0]  # 600 rows: over one 512-row batch
    cands, fams = _select_vector(x, y, pair=3, mlp=True)
    assert list(fams)[:4] == ["fisher", "meandiff", "logistic", "mlp"] and fams["mlp"] == fams["logistic"] > 0
    mine = [c for c in cands if c.group[1] == "mlp"]
    assert len(mine) == 16 and all(c.event.description.startswith("<mlp score, x> ") for c in mine)
    net = mine[0].event.projection
    assert isinstance(net, MLPScore) and all(c.event.projection is net for c in mine)
    want = mlp_score(x, y, np.random.default_rng(3))
    assert want is not None
    for got_w, want_w in zip(net.weights + net.biases, want.weights + want.biases):
        np.testing.assert_array_equal(got_w, want_w)
    _, plain = _select_vector(x, y, pair=3)  # the default: no network
    assert plain == {k: v for k, v in fams.items() if k != "mlp"}


def test_select_logistic_score_subsample_is_seeded_by_the_pair() -> None:
    # more than 20,000 selection outputs a side: the logistic score is fitted on a subsample drawn with
    # default_rng(pair), so the same outputs give the same score (and events) in every run
    from semiprivate.theory.audit.selection import LogisticScore, learned_score

    g = np.random.default_rng(12)
    s = 20_050
    x, y = g.normal(0, 1, (s, 2)), g.normal(0, 1, (s, 2)) + [0.0, 0.2]
    cands, _ = _select_vector(x, y, pair=2, nthr=2)
    score = next(c.event.projection for c in cands if c.group[1] == "logistic")
    want = learned_score(x, y, np.random.default_rng(2))
    assert isinstance(score, LogisticScore) and want is not None
    np.testing.assert_array_equal(score.coef, want.coef)
    assert score.intercept == want.intercept


def test_select_fisher_direction_solves_the_pooled_covariance_with_its_ridge() -> None:
    # the Fisher direction solves (C + r I) w = mean(x) - mean(y), C the pooled covariance (the mean of
    # the two sample covariances), r = 1e-6 * (trace(C) / d + 1e-12): with variances of 1e-12 the
    # absolute 1e-18 weighs, so the direction depends on C's scale, not only on its shape
    g = np.random.default_rng(13)
    x = np.c_[g.normal(0, 1e-6, 300), np.zeros(300)]
    y = np.c_[g.normal(0, 1e-6, 300), np.full(300, 1e-6)]
    cands, _ = _select_vector(x, y)
    u = next(c.event.projection for c in cands if c.group[1] == "fisher")
    cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False))
    diff = x.mean(axis=0) - y.mean(axis=0)

    def direction(c: np.ndarray) -> np.ndarray:
        w = np.linalg.solve(c + 1e-6 * (np.trace(c) / 2 + 1e-12) * np.eye(2), diff)
        return w / np.linalg.norm(w)

    np.testing.assert_allclose(u, direction(cov), rtol=1e-9, atol=0)
    assert abs(direction(3 * cov)[0] - u[0]) > 0.1 * abs(u[0])  # the sum of the covariances is another direction


def test_select_fisher_direction_from_two_selection_outputs_uses_their_covariance() -> None:
    # two outputs per dataset already have a sample covariance (only one has none): here the pooled
    # covariance of rows spread along (1, 1) and (1, 0) is full rank, and the Fisher direction solves it,
    # not the ridge alone (which would give the mean difference's direction)
    x = np.array([[0.0, 0.0], [1.0, 1.0]])
    y = np.array([[0.5, 0.0], [1.5, 0.0]])
    cands, _ = _select_vector(x, y)
    u = next(c.event.projection for c in cands if c.group[1] == "fisher")
    cov = 0.5 * (np.cov(x, rowvar=False) + np.cov(y, rowvar=False))
    diff = x.mean(axis=0) - y.mean(axis=0)
    w = np.linalg.solve(cov + 1e-6 * (np.trace(cov) / 2 + 1e-12) * np.eye(2), diff)
    np.testing.assert_allclose(u, w / np.linalg.norm(w), rtol=1e-9, atol=0)
    assert abs(float(u @ diff)) / np.linalg.norm(diff) < 0.99  # not the mean difference's direction (0.98)


def test_select_value_sets_with_tied_scores_keep_the_shortest() -> None:
    # delta = 0.9: most value sets of a 24-value categorical coordinate carry no evidence (score -inf);
    # after the finite ones, the ties kept are the shortest sets, in order (a stable sort, any numpy)
    g = np.random.default_rng(21)
    s = 300
    cx, cy = g.integers(0, 24, s).astype(float), g.integers(0, 24, s).astype(float)
    _, rows = _run_select(np.c_[g.normal(0, 1, s), cx], np.c_[g.normal(0, 1, s), cy], s, cat=(1,), nthr=4,
                          delta=0.9)
    sets = [r for r in rows if r[4][1] == "catset"]
    assert len(sets) == 16
    tied = [int(r[2].rsplit("(", 1)[1].split()[0]) for r in sets if r[0] == -math.inf]
    assert tied == [2, 3, 4, 5, 6, 2, 3, 4, 5, 6]


def test_select_declared_coordinates_of_vectors() -> None:
    # an int declares a vector coordinate categorical (coordinate 0 too): value events, no thresholds;
    # names (str) address dicts and tuples, so on plain vectors they declare nothing
    g = np.random.default_rng(14)
    s = 200
    x = np.c_[g.integers(0, 4, s), g.normal(0, 1, s)].astype(float)
    y = np.c_[g.integers(0, 4, s), g.normal(0.5, 1, s)].astype(float)
    fams, _ = _run_select(x, y, s, cat=(0,), nthr=4)
    assert "coord0" not in fams and "coord1" in fams and fams["cat"] > 0
    plain, rows = _run_select(x, y, s, nthr=4)
    assert "coord0" in plain
    assert _run_select(x, y, s, cat=("x[0]", "count"), nthr=4) == (plain, rows)


def test_select_sixteen_coordinates_keep_their_order() -> None:
    # at most MAX_COORDS = 16 free coordinates: all of them in index order (ranking only beyond 16)
    g = np.random.default_rng(15)
    s = 100
    x, y = g.normal(0, 1, (s, 16)), g.normal(0, 1, (s, 16)) + np.r_[np.zeros(15), 1.0]
    fams, _ = _run_select(x, y, s, nthr=2)
    assert list(fams)[3:] == ["sign"] + [f"coord{j}" for j in range(16)]


def test_select_row_patterns_seen_three_times_and_set_budget() -> None:
    # a coded column (atom -1.0 written 3 times) beside continuous values: the atom's pattern, seen
    # exactly MIN_ATOM_COUNT = 3 times, is a pattern event; 16 quantile bins make the other patterns
    g = np.random.default_rng(1)
    s = 100
    x = np.c_[g.normal(0, 1, s), g.normal(0, 1, s)]
    y = np.c_[g.normal(0.5, 1, s), g.normal(0, 1, s)]
    x[:3, 1] = -1.0
    fams, _ = _run_select(x, y, s, nthr=4)
    assert (fams["pattern"], fams["patternset"]) == (2 * 17, 2 * 16)
    # max_values also caps the keys of the pattern sets (the 4 most frequent: 3 sets per direction)
    fams, _ = _run_select(x, y, s, nthr=4, maxv=4)
    assert (fams["pattern"], fams["patternset"]) == (2 * 17, 2 * 3)


def test_select_pattern_sets_of_two_blocks_add_up() -> None:
    # two coded columns with different atoms are two blocks; "patternset" counts the sets of both
    g = np.random.default_rng(16)
    s = 100
    x = np.c_[g.choice([-1.0, 0.0], s), g.choice([5.0, 6.0], s)]
    y = np.c_[g.choice([-1.0, 0.0], s, p=[0.3, 0.7]), g.choice([5.0, 6.0], s)]
    fams, rows = _run_select(x, y, s, nthr=4)
    assert (fams["pattern"], fams["patternset"]) == (2 * 4, 2 + 2)
    assert {r[4][1] for r in rows} >= {"pattern", "patternset"}


def _first_groups(rows: list[tuple[Any, ...]]) -> list[str]:
    out: list[str] = []
    for r in rows:
        if r[4][1] not in out:
            out.append(r[4][1])
    return out


def test_select_structured_numeric_columns_ranked_beyond_sixteen() -> None:
    # tuples of 15 floats: 16 numeric columns (x[0..14] and len(x)), all thresholded in column order;
    # tuples of 16 floats: 17 columns, only the MAX_COORDS = 16 ranked first (KS statistic) are
    # thresholded, the shifted x[15] first and the constant len(x) dropped
    g = np.random.default_rng(18)
    s = 100
    for k in (15, 16):
        shift = np.r_[np.zeros(k - 1), 1.0]
        x = _objects([tuple(v) for v in g.normal(0, 1, (s, k))])
        y = _objects([tuple(v) for v in g.normal(0, 1, (s, k)) + shift])
        fams, rows = _run_select(x, y, s, schema=True, nthr=4)
        groups = _first_groups(rows)
        if k == 15:
            assert groups == [f"col{j}" for j in range(16)]
        else:
            assert len(groups) == 16 and groups[0] == "col15" and "col16" not in groups
            assert fams == {"col": 512}


def test_select_float_bits_of_vectors_are_those_of_each_coordinate() -> None:
    # float_bits on vector outputs: the bit events of each (ranked) coordinate, as for that coordinate
    # alone as a scalar output (same scores and counts), named x[j]
    g = np.random.default_rng(17)
    s = 200
    x, y = g.normal(0, 1, (s, 2)), g.normal([1.0, 0.0], 1, (s, 2))
    fams, rows = _run_select(x, y, s, fb=True, nthr=4)
    bits = [r for r in rows if r[4][1] in ("bits", "bitsset")]
    want: list[tuple[Any, ...]] = []
    total = 0
    for j in range(2):
        fj, rj = _run_select(x[:, j], y[:, j], s, fb=True, nthr=4)
        total += fj["bits"]
        mine = [r for r in rj if r[4][1] in ("bits", "bitsset")]
        assert mine and all(" of x)" in r[2] for r in mine)
        want += [(r[0], r[2].replace(" of x)", f" of x[{j}])"), *r[3:]) for r in mine]
    assert fams["bits"] == total
    assert [(r[0], r[2], *r[3:]) for r in bits] == want


def test_select_scalar_atom_under_either_dataset() -> None:
    # continuous scalar outputs with one value repeated (0.0, 5 times) under only one of the datasets:
    # value events on it, whichever dataset of the pair repeats it
    g = np.random.default_rng(19)
    s = 100
    x, y = g.normal(0, 1, s), g.normal(0, 1, s)
    y[:5] = 0.0
    for a, b in ((x, y), (y, x)):
        fams, rows = _run_select(a, b, s, nthr=4)
        assert fams == {"thr": 32, "value": 2}
        assert [r[2] for r in rows if r[4][1] == "value"] == ["x == 0.0"] * 2


def test_select_integer_vectors_against_float_vectors() -> None:
    # integer vectors under one dataset, float vectors under the other: whole-vector value events need
    # the integer keys of both sides, so only thresholds (and, float first, row patterns) are built
    g = np.random.default_rng(20)
    s = 100
    x, y = g.integers(0, 3, (s, 2)), g.integers(0, 3, (s, 2)) + 0.5
    projections = {"fisher": 32, "meandiff": 32, "logistic": 32, "coord0": 32, "coord1": 28}
    assert _run_select(x, y, s, nthr=4)[0] == projections
    assert _run_select(y, x, s, nthr=4)[0] == {**projections, "sign": 20, "pattern": 36, "patternset": 34}


def test_select_integer_value_seen_once_under_the_first_dataset() -> None:
    # discrete outputs: every value seen at least once is a value event, also the largest value seen
    # once, under the first dataset only (counts 1 vs 0)
    x, y = np.array([0, 0, 1, 1, 5]), np.array([0, 1, 1, 1, 2])
    fams, rows = _run_select(x, y, 5, nthr=4)
    assert fams == {"thr": 20, "value": 8, "valueset": 6}
    values = {(r[2], r[3]): r[5:] for r in rows if r[4][1] == "value"}
    assert values[("x == 5", True)] == values[("x == 5", False)] == (1, 0)
    assert values[("x == 2", True)] == (0, 1)


def test_select_all_categorical_structured_values_seen_once() -> None:
    # structured outputs whose leaves are all categorical are discrete: a value seen once is an event
    # (the count >= 3 rule is for tables with a continuous numeric leaf)
    x = _objects([{"a": "u"}] * 9 + [{"a": "w"}])
    y = _objects([{"a": "u"}] * 5 + [{"a": "v"}] * 5)
    fams, rows = _run_select(x, y, 10, schema=True, nthr=4)
    assert fams == {"cat": 6, "value": 6, "valueset": 4}
    assert {r[2] for r in rows if r[4][1] == "value"} == {"x == (('a', 'u'),)", "x == (('a', 'v'),)",
                                                        "x == (('a', 'w'),)"}


def test_select_values_beyond_max_values_keep_the_most_frequent_ties_by_value() -> None:
    # 52 values, max_values = 12: the 12 kept are the most frequent (seen 4 times: the odd values),
    # ties by value (stable), so 1, 3, ..., 23; of those, 17..23 are seen only under the first dataset
    odd_lo, odd_hi, even = range(1, 17, 2), range(17, 40, 2), range(0, 40, 2)
    xs = [v for v in odd_lo for _ in range(2)] + [v for v in odd_hi for _ in range(4)]
    ys = [v for v in odd_lo for _ in range(2)] + [v for v in even for _ in range(3)]
    xs += [-1 - i for i in range(len(ys) - len(xs))]  # seen once: never kept
    x, y = np.array(xs), np.array(ys)
    fams, rows = _run_select(x, y, x.size, nthr=4, maxv=12)
    assert fams == {"thr": 32, "value": 24, "valueset": 22}
    forward = [(r[2], r[5], r[6]) for r in rows if r[4] == (0, "value", True)]
    assert forward[:4] == [("x == 17", 4, 0), ("x == 19", 4, 0), ("x == 21", 4, 0), ("x == 23", 4, 0)]
    assert all(r[1:] == (2, 2) for r in forward[4:])


def test_select_max_values_equal_to_the_values_changes_nothing() -> None:
    # 4 values and max_values = 4: none is dropped and their order (by value) is kept, as with no cap;
    # delta = 0.9 leaves every single value without evidence (tied scores, so the order shows)
    x, y = np.array([0, 1, 2, 2, 3, 3, 3, 3, 3, 3]), np.array([1, 2, 3, 3, 3, 3, 0, 0, 0, 3])
    capped = _run_select(x, y, 10, nthr=4, maxv=4, delta=0.9)
    assert capped == _run_select(x, y, 10, nthr=4, delta=0.9)
    assert [r[2] for r in capped[1] if r[4] == (0, "value", True)] == ["x == 0", "x == 1", "x == 2", "x == 3"]


def test_select_raw_value_sets_capped_at_512_per_direction() -> None:
    # 601 values: at most 512 likelihood-ratio-ordered sets per direction (2 to 513 values); with the
    # 600 values seen only under the first dataset, the largest set (513 values) scores best
    x, y = np.arange(600), np.full(600, 1000)
    fams, rows = _run_select(x, y, 600, nthr=4)
    assert fams == {"thr": 24, "value": 2 * 601, "valueset": 2 * 512}
    forward = [r for r in rows if r[4] == (0, "valueset", True)]
    assert forward[0][2].endswith(" (513 values)") and forward[0][5:] == (513, 0)
    assert [int(r[2].rsplit("(", 1)[1].split()[0]) for r in forward] == list(range(513, 505, -1))


def test_select_raw_value_sets_with_tied_scores_keep_the_shortest() -> None:
    # as for the categorical coordinates: with delta = 0.9 most sets of 24 integer values have no
    # evidence (-inf); after the finite ones the ties kept are the shortest sets, in order
    g = np.random.default_rng(22)
    s = 300
    _, rows = _run_select(g.integers(0, 24, s), g.integers(0, 24, s), s, nthr=4, delta=0.9)
    sets = [r for r in rows if r[4][1] == "valueset"]
    assert len(sets) == 16
    tied = [int(r[2].rsplit("(", 1)[1].split()[0]) for r in sets if r[0] == -math.inf]
    assert tied == [2, 3, 4, 5, 6, 2, 3, 4, 5, 6]

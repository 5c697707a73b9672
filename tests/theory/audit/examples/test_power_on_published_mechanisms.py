"""Audit power: the benchmark's mechanisms, their true epsilon, and verdicts at small n;
the selection's pessimistic scores and per-pair slots (second half).

benchmarks/audit_power.py rewrites DP-Sniper's benchmark mechanisms; the "true eps" column comes
from exact or numerical computation.  Here the computation is checked against the mechanisms'
own sampled frequencies (so a mechanism that drifts from its documented distribution, or an
integrator that does, fails), against closed forms, and a few cases are audited at small n,
including broken variants that must be flagged.  Statistical checks use fixed seeds and
5-sigma bands (false-failure rate < 1e-5 per comparison).  Audits of correct mechanisms (must not
be flagged) run at confidence 0.999 (false-failure rate <= 1e-3 per audit by the guarantee).
"""

from __future__ import annotations

import importlib.util
import math
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit import audit_pairs, selection

_PATH = Path(__file__).resolve().parents[4] / "benchmarks" / "audit_power.py"
if "audit_power" in sys.modules:  # loaded by another test module of this process: one copy of its classes
    ap = sys.modules["audit_power"]
else:
    _spec = importlib.util.spec_from_file_location("audit_power", _PATH)
    assert _spec is not None and _spec.loader is not None
    ap = importlib.util.module_from_spec(_spec)
    sys.modules["audit_power"] = ap
    _spec.loader.exec_module(ap)

N = 200_000


def _within(freq: np.ndarray, prob: np.ndarray, n: int) -> None:
    sd = np.sqrt(np.maximum(prob * (1 - prob), 1e-12) / n)
    assert np.all(np.abs(freq - prob) <= 5 * sd + 1e-4), (freq, prob)


def _case(name: str):  # type: ignore[no-untyped-def]
    return next(c for c in ap.cases() if c.name == name)


def test_pairs_are_statdp_patterns() -> None:
    cw = ap.statdp_patterns(10, True, -10, 10)
    assert len(cw) == 8 and len(ap.statdp_patterns(5, False, 0, 10)) == 2
    assert np.array_equal(cw[-1][0], np.r_[np.ones(5), np.zeros(5)])  # X shape
    assert all(np.max(np.abs(a - b)) == 1 for a, b in cw)  # component-wise sensitivity 1
    assert np.array_equal(ap.statdp_patterns(1, False, 0, 5)[0][1], [0.0])


def test_truncated_geometric_exact_epsilon_is_balcer_vadhan_bound() -> None:
    geo = ap.TruncatedGeometric()
    assert geo.k == 3  # ceil(ln(2 / 0.1))
    te = ap.true_epsilon("g", geo, ap.statdp_patterns(1, False, 0, 5))
    assert te == pytest.approx(math.log1p(2.0 ** -3), abs=1e-12)  # Thm 4.7 bound, attained
    f, d = geo.cdf_numerators(2)
    probs = np.diff(np.r_[0, f]) / d
    out = geo(np.array([2.0]), N, np.random.default_rng(0))
    _within(np.bincount(out.astype(int), minlength=6) / N, probs, N)


@pytest.mark.parametrize("noise", ["laplace", "exp"])
def test_report_noisy_max_index_probabilities_match_the_mechanism(noise: str) -> None:
    mech = ap.ReportNoisyMax(noise=noise)
    a = np.r_[0.0, 2, 2, 2, 2]
    probs = ap.rnm_index_probs(a, 2 / mech.eps, noise)
    assert probs.sum() == pytest.approx(1.0, abs=1e-6)
    out = mech(a, N, np.random.default_rng(1)).astype(int)
    _within(np.bincount(out, minlength=5) / N, probs, N)


def test_report_noisy_max_true_epsilons() -> None:
    cw5 = ap.statdp_patterns(5, True, -10, 10)[3:6]  # one below rest above, half half, all above
    rnm1 = ap.true_epsilon("", ap.ReportNoisyMax(), cw5)
    assert 0.09 < rnm1 <= 0.1  # eps-DP, nearly tight
    assert ap.true_epsilon("", ap.ReportNoisyMax(value=True), cw5) == pytest.approx(0.25, abs=1e-6)  # m eps / 2
    assert ap.true_epsilon("", ap.ReportNoisyMax(noise="exp", value=True), cw5) == math.inf


@pytest.mark.slow
@pytest.mark.parametrize("variant", [1, 4, 6])
def test_svt_output_probabilities_match_the_mechanism(variant: int) -> None:
    _svt_law_matches(ap.SVT(variant, t=0.5 if variant == 1 else 1.0), seed=2, total_tol=1e-5)


def _svt_law_matches(mech: Any, seed: int, total_tol: float) -> None:
    """``svt_output_probs(mech, a)`` against ``N`` runs of ``mech`` on half-above / half-below queries."""
    a = np.r_[2.0 * np.ones(5), np.zeros(5)]  # half half
    probs = ap.svt_output_probs(mech, a)
    assert sum(probs.values()) == pytest.approx(1.0, abs=total_tol)
    out = mech(a, N, np.random.default_rng(seed))
    keys = list(probs)
    rows = {k: i for i, k in enumerate(keys)}
    # each output row's cell: rows coded as one integer (mixed radix), the Python lookup once per distinct row
    o = out.astype(np.int64)
    lo, base = int(o.min()), int(o.max() - o.min() + 1)
    assert base ** o.shape[1] < 2**62
    _, first, inverse = np.unique((o - lo) @ (base ** np.arange(o.shape[1], dtype=np.int64)), return_index=True,
                                  return_inverse=True)
    idx = np.array([rows[tuple(int(x) for x in o[i])] for i in first])[inverse.ravel()]  # a KeyError if none
    _within(np.bincount(idx, minlength=len(keys)) / N, np.array([probs[k] for k in keys]), N)


@pytest.mark.slow
def test_svt_true_epsilons_match_lyu_et_al() -> None:
    cw10 = ap.statdp_patterns(10, True, -10, 10)
    assert ap.true_epsilon("", ap.SVT(1, t=0.5), cw10[-3:]) <= 0.1  # Alg. 1: eps-DP
    svt4 = ap.true_epsilon("", ap.SVT(4), cw10[-4:-3])  # all above
    assert 0.1 < svt4 <= (1 + 6 * 1) / 4 * 0.1 + 1e-9  # Alg. 4: ((1 + 6c)/4) eps-DP, not eps-DP
    assert ap.true_epsilon("", ap.SVT(5), cw10[2:3]) == math.inf  # one above rest below


def test_rappor_true_epsilon_and_bit_probabilities() -> None:
    rap = ap.Rappor()
    p1, p0 = rap.bit_probabilities()
    assert (p1, p0) == pytest.approx((0.5125, 0.4875))  # q*, p* for f=0.75, p=0.45, q=0.55
    diff = int(np.sum(ap.bloom_bits(1) != ap.bloom_bits(0)))
    assert ap.true_epsilon("", rap, ap.statdp_patterns(1, False, -10, 10)) == pytest.approx(
        diff * math.log(p1 / p0))
    assert rap.claim() >= ap.true_epsilon("", rap, ap.statdp_patterns(1, False, -10, 10))
    out = rap(np.array([1.0]), N, np.random.default_rng(3))
    bits = ap.bloom_bits(1)
    _within(out.mean(axis=0), np.where(bits, p1, p0), N)


def test_published_table_covers_every_case() -> None:
    names = [c.name for c in ap.cases()]
    assert sorted(names) == sorted(ap.PUBLISHED)
    assert ap.best_published("NoisyHist2") == pytest.approx(10.0022)


@pytest.mark.parametrize("name, flagged", [("NoisyHist1", False), ("NoisyHist2", True),
                                           ("TruncatedGeometric", False), ("ReportNoisyMax4", True)])
def test_verdicts_at_small_n(name: str, flagged: bool) -> None:
    rows = ap.run(100_000, seed=0, only=name, true_eps=False, confidence=ap.CONFIDENCE if flagged else 0.999)
    assert len(rows) == 1 and rows[0]["flagged"] == flagged and rows[0]["right"]


def test_share_budget_is_a_fixed_fraction_of_their_samples() -> None:
    # the --share rule: selection + estimation over the case's datasets within share x their samples,
    # and one more estimation trial would exceed it; same share for every case, fixed in advance
    for name, n_data in (("Laplace", 3), ("SVT34Parallel", 10)):
        case = _case(name)
        for share in (1 / 16, 1 / 400, 1.0):
            n = ap.trials_for_share(case, share)
            cap = int(share * ap.their_samples(case)) // n_data
            assert n + ap.selection_trials(n) <= cap < n + 1 + ap.selection_trials(n + 1)
    assert ap.trials_for_share(_case("SVT34Parallel"), 1 / 16) == 7_350_000  # 10 x (7.35M + 0.5M) = 1/16 of 1.256e9
    with pytest.raises(ValueError, match="share"):
        ap.trials_for_share(_case("Laplace"), 0.0)
    with pytest.raises(ValueError, match="fewer than 1,000"):
        ap.trials_for_share(_case("Laplace"), 1e-9)
    with pytest.raises(SystemExit):
        ap.main(["--share", "2"])


def test_share_run_audits_each_case_once_at_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def fake(mech, pairs, *, trials, rng, **kw):  # type: ignore[no-untyped-def]
        calls.append((trials, rng))
        return audit_pairs(mech, pairs, trials=2000, rng=rng, **kw)

    monkeypatch.setattr(ap, "audit_pairs", fake)
    rows = ap.run(0, seed=5, only="Laplace,SVT1", true_eps=False, share=1 / 16)
    assert [r["name"] for r in rows] == ["Laplace", "SVT1"] and len(calls) == 2
    assert [c[0] for c in calls] == [r["trials"] for r in rows] == [12_291_666, 7_350_000]
    text = ap.seed_summary([rows, rows])
    assert "| SVT1 | 0.1000 | yes | 7,350,000 |" in text and text.count("/2 |") == 4


@pytest.mark.slow
def test_broken_variants_are_flagged() -> None:
    # scale and rate swapped (Lap(eps) instead of Lap(1/eps)) at eps 0.5: true eps 2 on l1-1 pairs
    pairs = ap.statdp_patterns(5, False, 0, 10)
    res = audit_pairs(ap.NoisyHist(eps=0.5, broken=True), pairs, epsilon=0.5, trials=30_000, rng=0)
    assert res.violation and res.epsilon_lower_bound <= 2.0
    ok = audit_pairs(ap.NoisyHist(eps=0.5), pairs, epsilon=0.5, trials=30_000, rng=0, confidence=0.999)
    assert not ok.violation
    # RAPPOR with a weaker permanent randomization (f = 0.25) than the claim's (f = 0.75)
    weak = ap.Rappor(f=0.25, one_time=True)
    claim = ap.Rappor(one_time=True, f=0.75).claim()
    res = audit_pairs(weak, ap.statdp_patterns(1, False, -10, 10), epsilon=claim, trials=30_000, rng=0)
    assert res.violation


# --- selection power (pessimistic event scores, per-pair slots) -------------------------------


def test_anticipated_bound_ignores_sample_extremes() -> None:
    # 3 vs 0 in 10,000 selection draws is what a sample extreme looks like: no anticipated evidence
    b = selection.anticipated_bound(np.array([3.0, 30.0, 3000.0]), np.array([0.0, 0.0, 1000.0]),
                                    10_000, 100_000, 0.01, 0.0)
    assert b[0] <= 0.0
    # 30 vs 0 is evidence (about 300 vs ~0 expected in 100,000 fresh draws); 3000 vs 1000 keeps most of log 3
    assert 0.0 < b[1] and 0.9 < b[2] < np.log(3)
    # pessimistic: never above the plug-in bound of the same frequencies
    from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    res = audit_pairs(_laplace_vector(1.0), pairs, epsilon=1.0, trials=50_000, rng=seed, confidence=0.999)
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


def test_svt_scales_are_dpsniper_constants() -> None:
    # dpsniper/mechanisms/sparse_vector_technique.py at eps = 0.1, c = 1: (rho scale, nu scale)
    expect = {1: (20.0, 40.0), 2: (20.0, 40.0), 3: (20.0, 20.0), 4: (40.0, 40.0 / 3), 5: (20.0, 0.0), 6: (20.0, 20.0)}
    for v, sc in expect.items():
        assert ap.SVT(v).scales() == pytest.approx(sc), v
    assert ap.SVT(1, c=2).scales() == pytest.approx((20.0, 80.0))


@pytest.mark.parametrize("variant", [1, 5])
def test_integer_noise_svt_output_probabilities_match_the_mechanism(variant: int) -> None:
    """The SVT cases draw exact discrete Laplace noise: the sum over the integer noise is their law (5-sigma
    bands; a continuous integral in its place misses the ties of integer noise at SVT5's threshold)."""
    _svt_law_matches(ap.SVT(variant, t=0.5 if variant == 1 else 1.0, exact=True), seed=4, total_tol=1e-9)


def test_the_audit_draws_exact_noise_for_the_sparse_vector_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """run() audits the exact-noise cases (on the host, also with device="cupy"); cases() alone keeps the float
    mechanisms that the peers sample."""
    svt = (ap.SVT, ap.SVT34Parallel, ap.NumericalSVT)
    assert all(c.mechanism.exact for c in ap.cases(exact_noise=True) if isinstance(c.mechanism, svt))
    assert not any(c.mechanism.exact for c in ap.cases() if isinstance(c.mechanism, svt))
    seen: list[tuple[Any, Any]] = []

    def fake_audit(mech: Any, pairs: Any, **kw: Any) -> Any:
        seen.append((mech, kw))
        return types.SimpleNamespace(epsilon_lower_bound=0.0, violation=False, trials_used=1, witness=None)

    monkeypatch.setattr(ap, "audit_pairs", fake_audit)
    rows = ap.run(10, seed=0, only="SVT1,NumericalSVT", true_eps=False, device="cupy")
    assert [r["device"] for r in rows] == ["cpu", "cpu"]
    assert all(isinstance(m, svt) and m.exact for m, _ in seen)

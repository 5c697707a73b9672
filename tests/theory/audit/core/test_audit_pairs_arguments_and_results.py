"""semiprivate.theory.audit.core.audit_pairs: its argument checks (exact messages), the forms it accepts, the
datasets and seeds it uses, mixed output kinds, and what its result reports (directions, support mismatches,
per-pair search, p-value, timing, the violation rule)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit.options import AuditOptions


def test_check_pairs_and_arity_messages() -> None:
    from semiprivate.theory.audit.core import _check_arity, _check_pairs

    assert _check_pairs([(1, 2), [3, 4], np.array([5, 6])], "pairs") == [(1, 2), (3, 4), (5, 6)]
    assert _check_pairs(iter([(1, 2)]), "pairs") == [(1, 2)]
    with pytest.raises(TypeError, match=r"^pairs must be a list of \(data, neighbour\) pairs, got str$"):
        _check_pairs("ab", "pairs")
    with pytest.raises(TypeError, match=r"^extra_pairs must be a list of \(data, neighbour\) pairs, got bytes$"):
        _check_pairs(b"ab", "extra_pairs")
    with pytest.raises(TypeError, match=r"^extra_pairs must be a list of \(data, neighbour\) pairs, got int$"):
        _check_pairs(3, "extra_pairs")
    with pytest.raises(ValueError, match=r"^pairs\[1\] must be a \(data, neighbour\) pair, got \(1, 2, 3\)$"):
        _check_pairs([(1, 2), (1, 2, 3)], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got 'ab'$"):
        _check_pairs(["ab"], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got b'ab'$"):
        _check_pairs([b"ab"], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got 5$"):
        _check_pairs([5], "pairs")
    with pytest.raises(ValueError, match=r"^pairs\[0\] must be a \(data, neighbour\) pair, got \(0, 1, 2, 3, 4, "):
        _check_pairs([tuple(range(100))], "pairs")

    def f(d: Any, r: Any) -> None:
        return None

    with pytest.raises(TypeError, match=r"^mechanism must be callable as mechanism\(data, size, rng\) returning size "
                       r"outputs; f\(d: 'Any', r: 'Any'\) -> 'None' is not\. For a one-output fn\(data, rng\), audit "
                       r"semiprivate\.theory\.audit\.vectorize\(fn\)$"):
        _check_arity(f)

    class Obj:
        def __call__(self, d: Any) -> None:
            return None

    with pytest.raises(TypeError, match=r"; Obj\(d: 'Any'\) -> 'None' is not\."):
        _check_arity(Obj())
    _check_arity(lambda d, s, r: None)
    _check_arity(lambda d, s, r=None, *a: None)
    _check_arity(print)  # a builtin: accepted as it is


def test_seed_of() -> None:
    from semiprivate.theory.audit.core import _seed_of

    assert _seed_of(5) == 5 and type(_seed_of(np.int32(5))) is int
    assert _seed_of(True) is None and _seed_of(np.bool_(True)) is None
    assert _seed_of(None) is None and _seed_of(np.random.default_rng(1)) is None
    assert _seed_of(np.random.SeedSequence(1234)) == 1234


def test_dataset_key_by_content() -> None:
    from semiprivate.theory.audit.core import _dataset_key

    a = np.array([1, 2, 3])
    assert _dataset_key(a) == ("ndarray", a.dtype.str, (3,), a.tobytes())
    assert _dataset_key(a) == _dataset_key(np.array([1, 2, 3]))
    assert _dataset_key(a) != _dataset_key(a.astype(np.int32)) and _dataset_key(a) != _dataset_key(a.reshape(3, 1))
    f = np.asfortranarray(np.arange(6).reshape(2, 3))
    assert _dataset_key(f)[3] == np.ascontiguousarray(f).tobytes()
    assert _dataset_key(np.array([True, False]))[0] == "ndarray"
    assert _dataset_key(np.array(["a"]))[0] == "ndarray"
    obj = np.array([1, "a"], dtype=object)
    assert _dataset_key(obj)[0] == "pickle"
    import hashlib
    import pickle

    assert _dataset_key([1, 2]) == ("pickle", "list", hashlib.sha256(pickle.dumps([1, 2], protocol=4)).hexdigest())
    assert _dataset_key([1, 2]) == _dataset_key([1, 2]) and _dataset_key([1, 2]) != _dataset_key((1, 2))
    fn = lambda: 0  # noqa: E731 (unpicklable)
    assert _dataset_key(fn) == ("id", id(fn))


def test_p_value_is_the_crossing_level() -> None:
    from semiprivate.theory.audit.pvalues import bounds_at as _bounds_at
    from semiprivate.theory.audit.pvalues import cp_p_value as _p_value

    kn, ko, n = np.array([500.0]), np.array([100.0]), 1000
    assert _bounds_at(kn, ko, n, 0.025, 0.0)[0] == pytest.approx(1.35975271, abs=1e-7)
    for k, eps in ((1, 1.0), (1, 1.5), (3, 1.0), (2, 0.1)):
        p = _p_value(kn, ko, n, k, eps, 0.0)
        assert 0.0 < p < 1.0
        assert _bounds_at(kn, ko, n, p * (1 + 1e-9) / (2 * k), 0.0)[0] > eps
        assert _bounds_at(kn, ko, n, p * (1 - 1e-9) / (2 * k), 0.0)[0] <= eps
    # the bisection's end point (60 halvings of [-690, 0] in log alpha), exactly
    assert [_p_value(kn, ko, n, k, eps, 0.0) for k, eps in ((1, 1.0), (1, 1.5), (3, 1.0), (2, 0.1))] == [
        5.476183699340013e-07, 0.4142345301076848, 1.642855109802003e-06, 5.016804968784485e-40]
    assert _p_value(kn, ko, n, 1, 1.0, 0.1) == 0.003941033308764472
    assert _p_value(np.array([300.0]), np.array([89.0]), n, 1, 1.0, 0.0) == 0.1608543051568405  # 60 halvings
    assert _p_value(kn, ko, n, 1, 2.0, 0.0) == 1.0
    # delta lowers the bound: a larger p-value
    assert _p_value(kn, ko, n, 1, 1.0, 0.1) > _p_value(kn, ko, n, 1, 1.0, 0.0)
    # evidence beyond e^-690: the floor of the search
    assert _p_value(np.array([100000.0]), np.array([0.0]), 100000, 1, 0.1, 0.0) == math.exp(-690.0)
    # the largest bound decides
    two = _p_value(np.array([500.0, 10.0]), np.array([100.0, 10.0]), n, 2, 1.0, 0.0)
    assert two == _p_value(np.array([10.0, 500.0]), np.array([10.0, 100.0]), n, 2, 1.0, 0.0)
    assert two == pytest.approx(_p_value(kn, ko, n, 2, 1.0, 0.0), rel=1e-12)


def test_audit_pairs_structured_and_label_pairs_together() -> None:
    # one pair with structured outputs (a table schema is built) and one with plain labels: the label
    # pair keeps its value events (the schema's tables are read only for structured outputs)
    from semiprivate.theory.audit.core import audit_pairs

    def mech(data: int, size: int, rng: Any) -> Any:
        if data < 2:
            return [("u", float(v)) for v in rng.normal(data, 1, size)]
        return np.array(rng.choice(["a", "b"], size, p=[0.5, 0.5] if data == 2 else [0.6, 0.4]))

    r = audit_pairs(mech, [(0, 1), (2, 3)], epsilon=1.0, trials=4000, options=AuditOptions(selection_trials=2000), rng=0)
    assert set(r.search[0].families) >= {"col", "cat"}
    assert r.search[1].families == {"value": 4, "valueset": 2}


def test_audit_pairs_structured_outputs_against_labels() -> None:
    # the same pair, structured outputs under one dataset and plain labels under the other: both are
    # labels, compared by value events only (no table events: the neighbour's outputs have no table)
    from semiprivate.theory.audit.core import audit_pairs

    def mech(data: int, size: int, rng: Any) -> Any:
        if data == 0:
            return [("u", float(v)) for v in rng.normal(0, 1, size)]
        return np.array(rng.choice(["a", "b"], size))

    r = audit_pairs(mech, [(0, 1)], epsilon=1.0, trials=4000, options=AuditOptions(selection_trials=2000), rng=0)
    assert r.search[0].families == {"value": 4, "valueset": 2}
    assert r.violation and r.witness is not None and r.witness.support_mismatch


def _laplace_mech(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return np.random.default_rng(rng).laplace(float(data), 1.0, size)


_AUDIT_BAD_ARGS: list[tuple[dict[str, Any], type, str]] = [
    ({"pairs": []}, ValueError, "pairs must contain at least one neighbouring pair"),
    ({"pairs": 5}, TypeError, "pairs must be a list of (data, neighbour) pairs, got int"),
    ({"pairs": [(0.0,)]}, ValueError, "pairs[0] must be a (data, neighbour) pair, got (0.0,)"),
    ({"events": "x > 0"}, TypeError, "events must be a list of callables event(outputs) -> bool array, got str"),
    ({"events": lambda o: o > 0}, TypeError,
     "events must be a list of callables event(outputs) -> bool array, got function"),
    ({"events": [1]}, TypeError, "events must be a list of callables event(outputs) -> bool array (or Event objects)"),
    ({"events": []}, ValueError, "events must not be empty"),
    ({"categorical": "x"}, TypeError, "categorical must be a list of coordinates (int) or names (str), got str"),
    ({"categorical": 3}, TypeError, "categorical must be a list of coordinates (int) or names (str), got int"),
    ({"categorical": [True]}, TypeError, "categorical must be a list of coordinates (int) or names (str)"),
    ({"categorical": [1.5]}, TypeError, "categorical must be a list of coordinates (int) or names (str)"),
    ({"float_bits": 1}, TypeError, "float_bits must be True or False, got 1"),
    ({"mlp": "no"}, TypeError, "mlp must be True or False, got 'no'"),
    ({"mechanism": lambda data, rng: 0.0}, TypeError,
     "mechanism must be callable as mechanism(data, size, rng) returning size outputs; <lambda>(data, rng) is not. "
     "For a one-output fn(data, rng), audit semiprivate.theory.audit.vectorize(fn)"),
]


@pytest.mark.parametrize("kwargs, exc, msg", _AUDIT_BAD_ARGS)
def test_audit_pairs_rejects_bad_arguments_with_the_exact_message(kwargs: dict[str, Any], exc: type, msg: str) -> None:
    from semiprivate.theory.audit import audit_pairs

    call: dict[str, Any] = {"mechanism": _laplace_mech, "pairs": [(0.0, 1.0)], "epsilon": 1.0, "trials": 1000,
                            "rng": 0}
    call.update(kwargs)
    with pytest.raises(exc) as err:
        audit_pairs(call.pop("mechanism"), call.pop("pairs"), **call)
    assert str(err.value) == msg


def test_audit_pairs_accepts_the_documented_argument_forms() -> None:
    from semiprivate.theory.audit import audit_pairs

    for kw in ({"events": (lambda o: o > 0,)}, {"categorical": range(0)}, {"categorical": np.array([0])},
               {"float_bits": np.bool_(False)}):
        knobs = {k: v for k, v in kw.items() if k in AuditOptions.knob_names()}
        rest = {k: v for k, v in kw.items() if k not in knobs}
        res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=2000, rng=0, options=AuditOptions(**knobs),
                          **rest)
        assert res.trials_used > 0 and res.n_tests > 0


def test_audit_mechanism_neighbours_and_seeds_come_from_its_rng() -> None:
    """A callable neighbour gets the audit's generator (so a seeded audit repeats), extra pairs are checked under
    their own name, and every witness records the seed that reproduces the call."""
    from semiprivate.theory.audit import audit_mechanism

    def neighbour(d: float, g: np.random.Generator) -> float:
        return d + float(g.choice([-1.0, 1.0]))

    a, b = (audit_mechanism(_laplace_mech, 0.0, neighbour, epsilon=1.0, trials=2000, rng=7, n_neighbours=3)
            for _ in range(2))
    assert [w.pair() for w in a.tests] == [w.pair() for w in b.tests] and a.tests
    assert a.seed == 7 and all(w.seed == 7 for w in a.tests)
    with pytest.raises(TypeError) as err:
        audit_mechanism(_laplace_mech, 0.0, 1.0, epsilon=1.0, trials=1000, rng=0, extra_pairs=5)
    assert str(err.value) == "extra_pairs must be a list of (data, neighbour) pairs, got int"


def _laplace_tight(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return np.random.default_rng(rng).laplace(float(data), 0.1, size)  # far from 1-DP for |data - nb| = 1


def _one_sided(data: Any, size: int, rng: Any = None) -> np.ndarray:
    return float(data) + np.random.default_rng(rng).exponential(1.0, size)  # support [data, inf)


def test_user_events_are_tested_in_both_directions_and_reported() -> None:
    """A user event is tested data -> neighbour and neighbour -> data: {o > 0.5} is rare under data 0 and common
    under neighbour 1 (Laplace scale 0.1), so only the reverse direction refutes eps = 1.  The search records
    one 'user' family of 2 candidates and no selection step."""
    from semiprivate.theory.audit import audit_pairs

    res = audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=1.0, trials=5000, rng=0,
                      events=[lambda o: o > 0.5, lambda o: o > 5.0])
    assert res.violation and res.witness is not None and res.witness.direction == "neighbour -> data"
    assert res.n_candidates == 4 and res.n_tests == 4 and res.families == {"user": 4}
    assert res.search[0].best_candidate == "" and math.isnan(res.search[0].best_anticipated)


def test_selection_reports_the_best_candidate_with_its_direction_and_counts_every_family() -> None:
    """With one-sided noise the best event of pair (0, 1) holds data -> neighbour and that of (1, 0) holds
    neighbour -> data; the candidate count is the sum of every pair's families."""
    from semiprivate.theory.audit import audit_pairs

    res = audit_pairs(_one_sided, [(0.0, 1.0), (1.0, 0.0)], epsilon=1.0, trials=5000, rng=0)
    a, b = res.search[0].best_candidate, res.search[1].best_candidate
    assert a.startswith("{") and a.endswith("}, data -> neighbour"), a
    assert b.startswith("{") and b.endswith("}, neighbour -> data"), b
    # the anticipated bound is planned at level alpha / (2 K): pinned (to far above CPU-dependent digits)
    assert res.search[0].best_anticipated == pytest.approx(6.075930415781472, rel=1e-7)
    assert res.n_candidates == sum(res.families.values()) == sum(sum(ps.families.values()) for ps in res.search)
    assert res.n_candidates > sum(res.search[0].families.values()) > 0


def test_audit_pairs_trials_seed_and_selection_batch() -> None:
    """trials_used = (selection batch + estimation batch) per distinct dataset, the selection batch being
    min(max(10_000, n // 4), 500_000); trials=None means DEFAULT_TRIALS; the seed is recorded."""
    from semiprivate.theory.audit import audit_pairs
    from semiprivate.theory.audit.core import DEFAULT_TRIALS

    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=7)
    assert res.trials_used == 2 * (10_000 + 1000)
    assert res.seed == 7 and res.tests and all(w.seed == 7 for w in res.tests)
    assert res.witness is not None and res.witness.pair() == (0.0, 1.0)  # the witness names its pair
    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, rng=0)
    assert res.trials_used == 2 * (min(max(10_000, DEFAULT_TRIALS // 4), 500_000) + DEFAULT_TRIALS)
    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=2_000_008, rng=0)
    assert res.trials_used == 2 * (500_000 + 2_000_008)


def test_float_bits_and_mlp_flags_reach_the_selection() -> None:
    from semiprivate.theory.audit import audit_pairs

    base = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0).families
    bits = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0, options=AuditOptions(float_bits=True)).families
    assert "bits" not in base and "bits" in bits
    vec = [(np.zeros(3), np.ones(3))]

    def gauss3(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return np.random.default_rng(rng).normal(np.asarray(data, dtype=float), 1.0, (size, 3))

    plain = audit_pairs(gauss3, vec, epsilon=1.0, trials=1000, rng=0).families
    mlp = audit_pairs(gauss3, vec, epsilon=1.0, trials=1000, rng=0, options=AuditOptions(mlp=True)).families
    assert "mlp" not in plain and "mlp" in mlp


def test_infinite_outputs_are_audited_without_floating_point_warnings() -> None:
    """Outputs +-inf (a mechanism that sometimes overflows) make the selection statistics meet inf - inf; the audit
    runs without a RuntimeWarning (turned into an error here) and still builds threshold candidates."""
    import warnings

    from semiprivate.theory.audit import audit_pairs

    def overflowing(data: Any, size: int, rng: Any = None) -> np.ndarray:
        g = np.random.default_rng(rng)
        x = g.laplace(float(data), 1.0, size)
        u = g.random(size)
        x = np.where(u < 0.1, 1e308, np.where(u > 0.9, -1e308, x))  # finite, but their sums overflow
        return np.where(u < 0.05, np.inf, np.where(u > 0.95, -np.inf, x))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = audit_pairs(overflowing, [(0.0, 1.0)], epsilon=1.0, trials=2000, rng=0)
    assert res.n_candidates > 0 and "thr" in res.families


def test_structured_outputs_use_the_declared_categorical_fields() -> None:
    """Dict outputs build their table from the selection batch; a field declared categorical gets value events
    ('cat' family), which it does not get as a numeric field with many values."""
    from semiprivate.theory.audit import audit_pairs

    def dicts(data: Any, size: int, rng: Any = None) -> np.ndarray:
        g = np.random.default_rng(rng)
        out = np.empty(size, dtype=object)
        v = g.integers(0, 40, size) + int(data)
        for i in range(size):
            out[i] = {"v": int(v[i]), "w": float(g.normal())}
        return out

    plain = audit_pairs(dicts, [(0, 5)], epsilon=1.0, trials=1000, rng=0).families
    cat = audit_pairs(dicts, [(0, 5)], epsilon=1.0, trials=1000, rng=0, options=AuditOptions(categorical=["v"])).families
    assert plain != cat and cat.get("cat", 0) > plain.get("cat", 0)


def test_estimation_bounds_use_the_bonferroni_level() -> None:
    """Every tested event's intervals are Clopper-Pearson at level alpha / (2 K) (K tests, two one-sided
    intervals each): recomputed here from the witness's counts, and the bound is log((p_lo - delta) / q_hi)."""
    from semiprivate.theory.audit import audit_pairs
    from semiprivate.theory.audit.stats import cp_lower, cp_upper

    res = audit_pairs(_laplace_mech, [(0.0, 1.0), (0.0, 2.0)], epsilon=1.0, trials=4000, rng=3, confidence=0.9)
    level = (1 - 0.9) / (2 * res.n_tests)
    assert res.n_tests > 1 and len(res.tests) == res.n_tests
    for w in res.tests:
        kn, ko, n = w.counts
        assert w.p_interval == (pytest.approx(float(cp_lower(kn, n, level))), pytest.approx(float(cp_upper(kn, n, level))))
        assert w.q_interval == (pytest.approx(float(cp_lower(ko, n, level))), pytest.approx(float(cp_upper(ko, n, level))))
        if w.p_interval[0] > 0:
            assert w.lower_bound == pytest.approx(math.log(w.p_interval[0] / w.q_interval[1]))


def test_vector_outputs_near_the_float_maximum_raise_no_overflow_warning() -> None:
    """Selection on vectors of size ~1e308 overflows in the mean difference; that is part of the statistics (an
    infinite direction), not an error, so no FloatingPointError / RuntimeWarning reaches the caller."""
    from semiprivate.theory.audit import audit_pairs

    def huge(data: Any, size: int, rng: Any = None) -> np.ndarray:
        u = np.random.default_rng(rng).standard_normal((size, 2)) + float(data)
        return np.clip(u, -1.79, 1.79) * 1e308

    with np.errstate(all="raise"):
        res = audit_pairs(huge, [(0.0, 0.5)], epsilon=1.0, trials=4000, rng=1)
    assert res.n_tests > 0 and math.isfinite(res.epsilon_lower_bound)


def test_one_selection_output_per_dataset_still_builds_vector_events() -> None:
    """selection_trials=1 with vector outputs: no sample covariance exists, and none is computed (numpy's
    'degrees of freedom' RuntimeWarning is an error under the suite's filterwarnings); the audit runs."""
    from semiprivate.theory.audit import audit_pairs

    res = audit_pairs(lambda d, m, rng: np.random.default_rng(rng).random((m, 3)) + d, [(0.0, 1.0)], epsilon=1.0,
                      trials=500, options=AuditOptions(selection_trials=1), rng=2)
    assert res.n_tests > 0


def test_witnesses_name_their_direction_and_support_mismatch() -> None:
    """Outputs under data 0 are 0 except the first (1.0); under neighbour 1 all 0.  Event {o > 0.5}: counts 1 and 0,
    a support mismatch data -> neighbour (one output is enough), none neighbour -> data (0 vs 1); event {o < -1}:
    0 and 0, no mismatch either way.  n = 1000 outputs come from one mechanism call per dataset."""
    from semiprivate.theory.audit import audit_pairs

    def first_is_one(data: Any, size: int, rng: Any = None) -> np.ndarray:
        out = np.zeros(size)
        if float(data) == 0.0:
            out[0] = 1.0
        return out

    res = audit_pairs(first_is_one, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0,
                      events=[lambda o: o > 0.5, lambda o: o < -1.0])
    assert [(w.direction, w.counts, w.support_mismatch) for w in res.tests] == [
        ("data -> neighbour", (1, 0, 1000), True), ("neighbour -> data", (0, 1, 1000), False),
        ("data -> neighbour", (0, 0, 1000), False), ("neighbour -> data", (0, 0, 1000), False)]


def test_pair_search_reports_each_pairs_tests_and_best_bound() -> None:
    """33 pairs and max_events=1: K = 32 tests (one slot per pair, at most 32), so one pair gets none.  Each pair's
    search entry carries its own index, its number of tests and the largest final bound among them (nan when
    none)."""
    from semiprivate.theory.audit import audit_pairs

    pairs = [(0.0, 3.0)] + [(0.0, 0.001 * i) for i in range(1, 33)]
    res = audit_pairs(_laplace_mech, pairs, epsilon=1.0, trials=2000, options=AuditOptions(selection_trials=500, max_events=1), rng=0)
    assert res.n_tests == 32 and [s.pair_index for s in res.search] == list(range(33))
    for p, s in enumerate(res.search):
        mine = [w.lower_bound for w in res.tests if w.pair_index == p]
        assert s.n_tested == len(mine)
        assert (math.isnan(s.best_bound) if not mine else s.best_bound == max(mine))
    assert sorted(s.n_tested for s in res.search)[:2] == [0, 1]


def test_seconds_is_the_audits_own_wall_time() -> None:
    import time

    from semiprivate.theory.audit import audit_pairs

    t0 = time.perf_counter()
    res = audit_pairs(_laplace_mech, [(0.0, 1.0)], epsilon=1.0, trials=1000, rng=0, events=[lambda o: o > 0.0])
    wall = time.perf_counter() - t0
    assert isinstance(res.seconds, float) and 0.0 < res.seconds <= wall


def test_a_bound_equal_to_the_claim_is_no_violation() -> None:
    """violation means epsilon_lower_bound > epsilon, strictly: rerun with the claim set to the bound the same
    seeded audit finds (user events: the claim enters nothing else), and it is not a violation."""
    from semiprivate.theory.audit import audit_pairs

    kw: dict[str, Any] = dict(trials=5000, rng=4, events=[lambda o: o > 0.5])
    lb = audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=1.0, **kw).epsilon_lower_bound
    assert lb > 1.0
    again = audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=lb, **kw)
    assert again.epsilon_lower_bound == lb and again.violation is False
    assert audit_pairs(_laplace_tight, [(0.0, 1.0)], epsilon=math.nextafter(lb, 0.0), **kw).violation is True


def test_outputs_that_give_no_event_are_refused_with_a_message() -> None:
    """All-(-inf) vector outputs: the mean difference is NaN (no projection), no coordinate has a finite
    threshold, floats give no value events -- selection has no candidate, and says so."""
    from semiprivate.theory.audit import audit_pairs

    with pytest.raises(ValueError) as err:
        audit_pairs(lambda d, m, rng: np.full((m, 2), -np.inf), [(0, 1)], epsilon=1.0, trials=1000,
                    options=AuditOptions(selection_trials=100), rng=0)
    assert str(err.value) == ("no candidate events could be built from the outputs (e.g. no finite value to "
                              "threshold and no repeated value to test): pass events=[...] to test your own")

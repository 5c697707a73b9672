"""AuditOptions: one validated, immutable object for the auditor's knobs, passed whole by every entry point;
audit_pairs a short composition of its stages that gives, on the same seed, exactly what the earlier
one-function implementation gave (its outputs are stored in audit_pairs_before_options.json)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from semiprivate import pytest_plugin
from semiprivate.theory import audit_suite
from semiprivate.theory.audit import AuditOptions, assert_private, audit_mechanism, audit_pairs, core
from semiprivate.theory.audit import cli as audit_cli
from semiprivate.theory.audit.options import DEFAULT_CONFIDENCE, DEFAULT_TRIALS, READING_CONFIDENCE

BEFORE = json.loads((Path(__file__).parent / "audit_pairs_before_options.json").read_text())


def laplace(a: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    return float(a) + rng.laplace(0.0, 1.0, size)


def rr(a: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    keep = rng.random(size) < np.e / (1 + np.e)
    return np.where(keep, int(a), 1 - int(a))


def noisy_max(a: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    a = np.asarray(a, float)
    return np.argmax(a + rng.laplace(0.0, 2.0, (size, a.size)), axis=1)


def hist(a: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    a = np.asarray(a, float)
    return a + rng.laplace(0.0, 1.0, (size, a.size))


def structured(a: Any, size: int, rng: np.random.Generator) -> list[tuple[str, float, int]]:
    x = float(a) + rng.laplace(0.0, 1.0, size)
    lab = rng.integers(0, 3, size)
    return [(("hi" if v > 0.5 else "lo"), float(np.round(v, 2)), int(c)) for v, c in zip(x, lab)]


#: the configurations of the stored outputs: (mechanism, pairs, claim and budget, knobs)
CASES: dict[str, tuple[Any, list[tuple[Any, Any]], dict[str, Any], dict[str, Any]]] = {
    "laplace_all_cp": (laplace, [(0.0, 1.0)], dict(epsilon=1.0, trials=20_000, rng=0), {}),
    "laplace_two_pairs_delta": (laplace, [(0.0, 1.0), (1.0, 2.0)], dict(epsilon=0.5, delta=1e-3, trials=20_000, rng=5),
                                dict(max_events=6, n_thresholds=64)),
    "rr_best_conditional": (rr, [(0, 1)], dict(epsilon=1.0, trials=20_000, rng=1),
                            dict(estimate_on="best", interval="poisson-conditional")),
    "rr_best_conditional_unpooled": (rr, [(0, 1)], dict(epsilon=0.8, trials=20_000, rng=2),
                                     dict(estimate_on="best", interval="poisson-conditional", pooled=False)),
    "laplace_all_conditional": (laplace, [(0.0, 1.0), (1.0, 3.0)], dict(epsilon=1.0, trials=20_000, rng=9),
                                dict(interval="poisson-conditional")),
    "noisy_max_best_cp": (noisy_max, [([0, 1, 2], [1, 1, 2]), ([0, 0, 0], [1, 0, 0])],
                          dict(epsilon=0.5, trials=20_000, rng=3), dict(estimate_on="best", n_best=2,
                                                                         selection_trials=5_000)),
    "hist_vectors_batches": (hist, [([0, 0, 1], [1, 0, 1])], dict(epsilon=1.0, trials=30_000, rng=4),
                             dict(batch_size=7_000, max_values=256)),
    "hist_user_events": (hist, [([0, 0, 1], [1, 0, 1])],
                         dict(epsilon=1.0, trials=10_000, rng=6,
                              events=[lambda x: x[:, 0] > 0.5, lambda x: x.sum(axis=1) > 1.0]), {}),
    "structured_categorical": (structured, [(0.0, 1.0)], dict(epsilon=1.0, trials=5_000, rng=7),
                               dict(categorical=[0], selection_trials=3_000)),
    "laplace_float_bits_best": (laplace, [(0.0, 1.0)], dict(epsilon=2.0, trials=10_000, rng=8),
                                dict(float_bits=True, estimate_on="best")),
}


def fingerprint(res: Any) -> dict[str, Any]:
    return dict(
        bound=repr(res.epsilon_lower_bound), violation=res.violation, p=repr(res.p_value),
        used=res.trials_used, k=res.n_tests, n_pairs=res.n_pairs, cands=res.n_candidates,
        witness=res.witness.event.description, direction=res.witness.direction, pair=res.witness.pair_index,
        tests=[[t.event.description, t.direction, t.pair_index, list(t.counts), repr(t.lower_bound),
                None if t.trials is None else list(t.trials)] for t in res.tests],
        search=[[s.pair_index, [list(kv) for kv in sorted(s.families.items())], repr(s.best_anticipated),
                 s.best_candidate, s.n_tested, repr(s.best_bound)] for s in res.search],
        seed=res.seed, estimate_on=res.estimate_on, interval=res.interval,
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_staged_audit_gives_what_the_one_function_audit_gave(name: str) -> None:
    mech, pairs, call, knobs = CASES[name]
    by_options = fingerprint(audit_pairs(mech, pairs, **call, options=AuditOptions(**knobs)))
    assert by_options == BEFORE[name]
    if knobs:  # the keyword form (deprecated) maps into the same options
        with pytest.warns(DeprecationWarning, match="by keyword are deprecated"):
            assert fingerprint(audit_pairs(mech, pairs, **call, **knobs)) == BEFORE[name]


def test_audit_pairs_is_a_short_composition_of_its_stages() -> None:
    source = inspect.getsource(core.audit_pairs)
    assert len(source.splitlines()) < 80
    body = source[source.index('"""', source.index('"""') + 3) + 3:]
    for stage in ("_start(", "_select(", "_choose(", "_estimate(", "_report("):
        assert stage in body, stage


def test_defaults_are_stated_once() -> None:
    assert (DEFAULT_TRIALS, DEFAULT_CONFIDENCE, READING_CONFIDENCE) == (1_000_000, 0.999, 0.95)
    assert core.DEFAULT_TRIALS is DEFAULT_TRIALS and audit_cli.DEFAULT_TRIALS is DEFAULT_TRIALS
    assert audit_cli.DEFAULT_CONFIDENCE == pytest_plugin.DEFAULT_CONFIDENCE == DEFAULT_CONFIDENCE
    assert inspect.signature(assert_private).parameters["confidence"].default == DEFAULT_CONFIDENCE
    assert inspect.signature(audit_suite.run_case).parameters["confidence"].default == DEFAULT_CONFIDENCE
    assert inspect.signature(audit_suite.run_case).parameters["trials"].default == DEFAULT_TRIALS
    for fn in (audit_pairs, audit_mechanism):
        assert inspect.signature(fn).parameters["confidence"].default == READING_CONFIDENCE


@pytest.mark.parametrize("field, value, exc, msg", [
    ("selection_trials", 0, ValueError, "selection_trials"),
    ("max_events", 1.5, TypeError, "max_events"),
    ("n_thresholds", 0, ValueError, "n_thresholds"),
    ("max_values", "many", TypeError, "max_values"),
    ("batch_size", -3, ValueError, "batch_size"),
    ("timeout", 0.0, ValueError, "timeout"),
    ("categorical", "x", TypeError, "categorical must be a list"),
    ("categorical", [1.5], TypeError, "categorical must be a list"),
    ("float_bits", 1, TypeError, "float_bits must be True or False, got 1"),
    ("mlp", "no", TypeError, "mlp must be True or False, got 'no'"),
    ("progress", "yes", TypeError, "progress"),
    ("estimate_on", "some", ValueError, "estimate_on"),
    ("n_best", 0, ValueError, "n_best"),
    ("interval", "wald", ValueError, "interval"),
    ("pooled", None, TypeError, "pooled"),
    ("epsilons", "0.5,1", TypeError, "epsilons must be a sequence"),
    ("epsilons", [], ValueError, "epsilons must be a non-empty"),
    ("epsilons", [1.0, float("nan")], ValueError, "epsilons must be a non-empty"),
    ("epsilons", [True], TypeError, "epsilons must be a sequence of numbers"),
])
def test_a_bad_knob_is_refused_naming_it(field: str, value: Any, exc: type, msg: str) -> None:
    with pytest.raises(exc, match=msg):
        AuditOptions(**{field: value})
    with pytest.raises(exc, match=msg):  # the keyword form goes through the same checks
        audit_pairs(laplace, [(0.0, 1.0)], epsilon=1.0, trials=100, **{field: value})


def test_options_are_immutable_normalised_and_checked_together() -> None:
    opts = AuditOptions(categorical=[0, np.int64(2)], epsilons=[2, 0.5])
    assert opts.categorical == (0, 2) and opts.epsilons == (0.5, 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.n_best = 2  # type: ignore[misc]
    with pytest.raises(ValueError, match="n_best applies to estimate_on='best' only"):
        AuditOptions(n_best=2)
    assert dataclasses.replace(AuditOptions(estimate_on="best"), n_best=2).n_best == 2
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_bset'"):
        audit_pairs(laplace, [(0.0, 1.0)], epsilon=1.0, trials=100, n_bset=2)
    with pytest.raises(TypeError, match="options must be an AuditOptions, got dict"):
        audit_pairs(laplace, [(0.0, 1.0)], epsilon=1.0, trials=100, options={"n_best": 2})  # type: ignore[arg-type]


def test_keywords_apply_on_top_of_the_options_object() -> None:
    base = AuditOptions(estimate_on="best", interval="poisson-conditional")
    assert AuditOptions.resolve(base, {"n_best": 2}, "f") == dataclasses.replace(base, n_best=2)
    assert AuditOptions.resolve(base, {}, "f") is base


def _spy(monkeypatch: pytest.MonkeyPatch, owner: Any) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    real = owner.audit_pairs

    def spy(mechanism: Any, pairs: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return real(mechanism, pairs, **kwargs)

    monkeypatch.setattr(owner, "audit_pairs", spy)
    return calls


def test_every_entry_point_passes_the_options_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = _spy(monkeypatch, core)
    audit_mechanism(laplace, 0.0, 1.0, epsilon=1.0, trials=2_000, rng=0, options=AuditOptions(estimate_on="best", n_best=1))
    assert_private(laplace, 0.0, 1.0, epsilon=2.0, trials=2_000, rng=0, options=AuditOptions(max_events=2))
    pytest_plugin.DPAudit({"confidence": 0.999}, 5, "t")(laplace, 0.0, 1.0, epsilon=2.0, trials=2_000, mlp=False)
    assert [c["options"] for c in calls] == [AuditOptions(estimate_on="best"), AuditOptions(max_events=2),
                                             AuditOptions()]
    assert all(set(c) == {"epsilon", "delta", "trials", "confidence", "events", "rng", "options"} for c in calls)

    cli_calls = _spy(monkeypatch, audit_cli)
    (tmp_path / "optmechs.py").write_text("import numpy as np\n\ndef lap(data, size, rng):\n"
                                          "    return float(data) + rng.laplace(0.0, 1.0, size)\n")
    monkeypatch.chdir(tmp_path)
    assert audit_cli.main(["optmechs:lap", "--pair", "0", "1", "--epsilon", "2", "--trials", "2000",
                           "--estimate-on", "best", "--epsilons", "0.5,3"]) == 0
    assert cli_calls[0]["options"] == AuditOptions(estimate_on="best", epsilons=(0.5, 3.0))

    suite_calls = _spy(monkeypatch, audit_suite)
    case = audit_suite.AuditCase("lap", laplace, [(0.0, 1.0)], 2.0, 0.0, True, trials_scale=0.5,
                                 options=AuditOptions(max_events=3))
    audit_suite.run_case(case, trials=4_000, rng=0)
    assert suite_calls[0]["options"] == AuditOptions(max_events=3, selection_trials=1_000)


def test_epsilons_give_the_curve_in_the_result() -> None:
    res = audit_pairs(laplace, [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=0,
                      options=AuditOptions(epsilons=(0.2, 0.9, 1.5)))
    assert res.curve is not None and list(res.curve.epsilons) == [0.2, 0.9, 1.5]
    assert res.curve.bound == res.epsilon_lower_bound
    assert res.curve.p_values[2] == 1.0 and res.curve.p_values[0] <= 1 - res.confidence
    assert audit_pairs(laplace, [(0.0, 1.0)], epsilon=1.0, trials=2_000, rng=0).curve is None


@pytest.mark.parametrize("entry", ["audit_pairs", "audit_mechanism", "assert_private"])
def test_knobs_by_keyword_warn_naming_the_options_and_give_the_same_result(entry: str) -> None:
    call: dict[str, Any] = dict(epsilon=1.0, trials=2_000, rng=3)
    opts = AuditOptions(estimate_on="best", n_thresholds=32)

    def run(**kw: Any) -> Any:
        if entry == "audit_pairs":
            return audit_pairs(laplace, [(0.0, 1.0)], **call, **kw)
        return {"audit_mechanism": audit_mechanism, "assert_private": assert_private}[entry](
            laplace, 0.0, 1.0, **call, **kw)

    with pytest.warns(DeprecationWarning) as caught:
        old = run(estimate_on="best", n_thresholds=32)
    assert len(caught) == 1, [str(w.message) for w in caught]
    message = str(caught[0].message)
    assert message.startswith(f"{entry}(): the audit options estimate_on, n_thresholds by keyword are deprecated")
    assert "options=AuditOptions(estimate_on=..., n_thresholds=...)" in message
    assert caught[0].filename == __file__  # attributed to the caller, not to the auditor
    new = run(options=opts)  # no warning (pytest's filterwarnings = error)
    assert (new.epsilon_lower_bound, new.trials_used) == (old.epsilon_lower_bound, old.trials_used)


def test_a_bad_knob_by_keyword_is_refused_before_any_warning() -> None:
    with pytest.raises(ValueError, match="n_best"):
        audit_pairs(laplace, [(0.0, 1.0)], epsilon=1.0, trials=100, n_best=0)


def test_the_fixture_gathers_its_keywords_without_a_warning() -> None:
    opts = AuditOptions.resolve(None, {"estimate_on": "best"}, "dp_audit")
    assert opts == AuditOptions(estimate_on="best")

"""Neighbour samplers, hypothesis strategies, the built-in suite, the CLI and the report section."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from semiprivate.theory import audit_suite as suite
from semiprivate.theory.audit import strategies as aud_st
from semiprivate.theory.audit.neighbours import add_remove_one, query_neighbour, replace_one
from semiprivate.theory.audit_suite import SUMMARY, main
from semiprivate.theory.report import ReportContext

# this machine is shared and loaded: data generation may be slow; that is not a test failure
SLOW_OK = [HealthCheck.too_slow]

# the suite's cases are built once for this module (each build calibrates the DP-SGD canaries and computes
# the exact epsilons of the structured mechanisms and learners: about 0.6 s); the tests read them and the
# CLI tests get them through ``builtin_cases`` (the argument still selects the list)
_BUILD = suite.builtin_cases
_CASES: dict[bool, list[suite.AuditCase]] = {True: _BUILD()}


def _cases(*, include_broken: bool = True) -> list[suite.AuditCase]:  # keyword-only, as builtin_cases
    if include_broken not in _CASES:
        _CASES[include_broken] = _BUILD(include_broken=include_broken)
    return _CASES[include_broken]


def _rows_differ(a: np.ndarray, b: np.ndarray) -> int:
    a2, b2 = a.reshape(len(a), -1), b.reshape(len(b), -1)
    return int(np.count_nonzero(np.any(a2 != b2, axis=1)))


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.replace_one_pairs(dim=2, max_size=6))
def test_replace_one_pairs(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    assert a.shape == b.shape and a.shape[1] == 2 and _rows_differ(a, b) <= 1


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.replace_one_pairs(labelled=True, integer=True, low=0, high=9))
def test_replace_one_pairs_labelled(pair) -> None:  # type: ignore[no-untyped-def]
    (X, y), (X2, y2) = pair
    assert X.dtype.kind == "i" and set(np.unique(np.concatenate([y, y2]))) <= {0, 1}
    changed = (X != X2) | (y != y2)
    assert int(np.count_nonzero(changed)) <= 1


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.add_remove_pairs(max_size=6, labelled=True))
def test_add_remove_pairs(pair) -> None:  # type: ignore[no-untyped-def]
    (X, y), (X2, y2) = pair
    assert abs(len(X) - len(X2)) == 1 and len(X) == len(y) and len(X2) == len(y2)
    big, small = (X, X2) if len(X) > len(X2) else (X2, X)
    # removing one row of the bigger gives the smaller
    assert any(np.array_equal(np.delete(big, i, axis=0), small) for i in range(len(big)))


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.neighbouring_datasets("any", max_size=5))
def test_neighbouring_datasets_any(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    assert abs(len(a) - len(b)) <= 1


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.query_vectors(4, mode="one"))
def test_query_vectors_one(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    d = np.abs(a - b)
    assert np.count_nonzero(d) <= 1 and np.all(d <= 1.0 + 1e-12)


@settings(suppress_health_check=SLOW_OK, deadline=None)
@given(pair=aud_st.query_vectors(4, mode="all", integer=True, sensitivity=2))
def test_query_vectors_all_integer(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    assert a.dtype.kind == "i" and np.all(np.abs(a - b) <= 2)


def test_strategy_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="kind"):
        aud_st.neighbouring_datasets("bogus")


@settings(max_examples=10, suppress_health_check=SLOW_OK, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_samplers(seed: int) -> None:
    g = np.random.default_rng(seed)
    d = np.arange(5, dtype=float)
    r = replace_one(0.0, 1.0)(d, g)
    assert r.shape == d.shape and _rows_differ(r, d) <= 1
    X, y = replace_one(0, 9, integer=True)((np.arange(4), np.zeros(4, dtype=int)), g)
    assert X.dtype.kind == "i" and int(np.count_nonzero((X != np.arange(4)) | (y != 0))) <= 1
    ar = add_remove_one(0.0, 1.0)(d, g)
    assert abs(len(ar) - len(d)) == 1
    Xa, ya = add_remove_one(0.0, 1.0)((d, np.zeros(5, dtype=int)), g)
    assert len(Xa) == len(ya) and abs(len(Xa) - 5) == 1
    q = query_neighbour(2.0, mode="all", extreme=False)(d, g)
    assert np.all(np.abs(q - d) <= 2.0)
    qi = query_neighbour(1.0, integer=True)(np.array([3, 4]), g)
    assert qi.dtype.kind == "i" and int(np.abs(qi - np.array([3, 4])).sum()) == 1
    assert query_neighbour(1.0)(0.0, g) in (-1.0, 1.0)


def test_sampler_validation() -> None:
    with pytest.raises(ValueError, match="low"):
        replace_one(1.0, 0.0)
    with pytest.raises(ValueError, match="mode"):
        query_neighbour(1.0, mode="some")


def test_builtin_cases_cover_the_toolkit() -> None:
    cases = _cases()
    names = " ".join(c.name for c in cases)
    for needed in ["LaplaceMechanism", "GaussianMechanism", "GeometricMechanism", "RandomizedResponse",
                   "ReportNoisyMax", "kernels.exponential_mechanism [numpy]", "semiprivate.theory.privacy.exponential",
                   "GenericPrivateLearner", "ASSPP", "ReductionLearner", "structured_interval_mechanism",
                   "structured_threshold_mechanism", "exact=True", "BROKEN"]:
        assert needed in names
    for c in cases:
        if c.true_epsilon is not None:
            if c.private:
                assert c.true_epsilon <= c.epsilon + 1e-9, c.name
            else:
                assert c.true_epsilon > c.epsilon, c.name


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in _cases() if "ReductionLearner" not in c.name],
                         ids=lambda c: c.name)
def test_every_toolkit_mechanism_meets_its_claim(case: suite.AuditCase) -> None:
    """Every mechanism of the toolkit (and learner) audited with its claimed (epsilon, delta).

    Confidence 0.999 per case: false-failure rate <= 0.001 per correct case; broken cases must
    be caught (power), with bounds within the tolerances of tests/theory/audit/core/test_audit_mechanism.py at larger trials.
    The ReductionLearner case is audited by :func:`test_reduction_audit_detects_a_base_learner_run_above_its_epsilon`
    (the same case, the same confidence, with its 5x and 20x breaks), not twice.
    """
    row = suite.run_case(case, trials=200_000, confidence=0.999, rng=20261121)
    res = row.result
    if case.private:
        assert not res.violation, res.report()
    else:
        assert res.violation, res.report()
    if case.true_epsilon is not None:
        assert res.epsilon_lower_bound <= case.true_epsilon + 1e-12


@pytest.mark.slow
def test_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert "audit" in SUMMARY
    monkeypatch.setattr(suite, "builtin_cases", _cases)  # the same lists, built once
    assert main(["--only", "laplacemechanism", "--trials", "20000", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "LaplaceMechanism" in out and "eps lower bound" in out and "as expected" in out
    assert main(["--only", "half the noise", "--trials", "20000"]) == 0
    assert "VIOLATION" in capsys.readouterr().out
    assert main(["--list"]) == 0
    assert "BROKEN" in capsys.readouterr().out
    assert main(["--list", "--no-broken"]) == 0
    assert "BROKEN" not in capsys.readouterr().out
    assert main(["--only", "no such mechanism"]) == 2
    assert main(["--confidence", "1.5"]) == 2
    assert main(["--only", "RandomizedResponse (binary)", "--quick", "--markdown"]) == 0
    assert "|---|" in capsys.readouterr().out


def test_cli_reports_an_unexpected_verdict(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory import audit_suite as cli_mod
    from semiprivate.theory.audit import broken

    def fake_cases(include_broken: bool = True) -> list[suite.AuditCase]:
        # a broken mechanism declared private: the CLI must say so and exit 1
        return [suite.AuditCase("mislabelled", broken.LaplaceWrongScale(1.0, 0.5), [(0.0, 1.0)], 1.0, 0.0, True)]

    monkeypatch.setattr(cli_mod, "builtin_cases", fake_cases)
    assert main(["--trials", "20000"]) == 1
    assert "UNEXPECTED" in capsys.readouterr().out


@pytest.mark.slow
def test_report_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from semiprivate.theory.report.sections import audit as section

    assert section.ORDER == 50 and section.TITLE
    few = [c for c in _cases() if c.name in ("LaplaceMechanism", "BROKEN Laplace, half the noise")]
    monkeypatch.setattr(suite, "builtin_cases", lambda *, include_broken=True: few)
    sec = section.build(ReportContext(tmp_path, quick=True))
    assert sec.ok and "| LaplaceMechanism |" in sec.markdown and "caught: 1" in sec.markdown
    tail = sec.summary.split("audits: ")[1]
    assert tail.startswith("1/1 correct mechanisms pass, 1/1 broken ones caught; calibration ")
    assert "false flags of correct mechanisms" in tail and "one-run DP-SGD" in tail
    assert "### Calibration of the audit" in sec.markdown and "| 100,000 |" in sec.markdown
    assert math.isfinite(float(sec.markdown.split("| LaplaceMechanism | (1, 0) | 1.000 | ")[1].split(" |")[0]))


#: selection fits per dataset of the reduction audits: the output is one bit (B's prediction at 0), so
#: every candidate event is {1} or {0} in one direction (or the whole space); from about 1.5x the claim on,
#: 200 selection outputs rank the informative one first as 1,000 do (0.903 vs 0.097 at 5x; in 300 simulated
#: audits each: 196 vs 198 flagged at 1.6x, all at 2x, 5x and 20x); at 1x they sometimes keep the other one,
#: which only lowers the correct learner's bound. The estimation stage, which sets the bound, is unchanged
#: (``max_events`` does not depend on it).
REDUCTION_SELECTION = 200


def _reduction_case() -> suite.AuditCase:
    (case,) = [c for c in _cases() if "ReductionLearner" in c.name]
    return replace(case, options=replace(case.options, selection_trials=REDUCTION_SELECTION))


@pytest.mark.slow
@pytest.mark.parametrize("factor, fits", [(1.0, 1_000), (5.0, 1_000), (20.0, 300)], ids=["1.0", "5.0", "20.0"])
def test_reduction_audit_detects_a_base_learner_run_above_its_epsilon(
        factor: float, fits: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """ABM19 Claim 4.5 audited on B's canary pair: the correct learner passes; A's exponential
    mechanism run at 5x / 20x its epsilon while A (hence B) still reports epsilon is flagged.

    Exact values (docstring of the suite case): true epsilon 0.48 (correct), 2.23 (5x), 3.68 (20x)
    against the claimed 1.  Confidence 0.999: false-failure rate <= 0.001 for the correct learner.
    The claim is B's ``privacy_`` read after a fit; the break keeps that report at epsilon.

    1,000 estimation fits per dataset (the case's 0.005 x 200,000; the suite's floor of 2,000 lowered to it)
    and ``REDUCTION_SELECTION`` = 200 selection fits (the suite's floor is 1,000; the output is one bit).
    Power, from 300 audits of the two-point output law above (seeds 0-299, same options): at 5x the
    bound's minimum was 1.74 (median 1.89) with 1,000 selection outputs and 1.69 (median 1.90) with 200,
    never <= 1.5; at 20x its minimum was 2.79.  With 500 estimation fits one of 300 fell to 1.49: 1,000 is
    the smallest size tried that keeps the assertion.  The 20x break is audited with 300 estimation fits:
    over the same 300 audits of its output law the bound's minimum was 2.21 (median 2.60) with 1,000
    selection outputs and 2.21 (median 2.61) with 200, never <= 1.5.  The correct learner's bound: maximum
    0.40 (median 0.25) with 1,000 selection outputs, 0.36 (median 0.23) with 200, never above 0.5.
    """
    import semiprivate.theory.learners.asspp as asspp_mod

    if factor != 1.0:
        orig = asspp_mod.sample

        def too_loud(errors, epsilon, **kw):  # type: ignore[no-untyped-def]
            return orig(errors, factor * epsilon, **kw)

        monkeypatch.setattr(asspp_mod, "sample", too_loud)
    case = _reduction_case()
    assert (case.epsilon, case.delta) == (1.0, 0.0) and case.private
    trials = round(fits / case.trials_scale)  # 200,000 for 1,000 fits, as the suite
    assert suite.case_trials(case, trials, min_trials=fits) == fits
    res = suite.run_case(case, trials=trials, confidence=0.999, rng=20261124, min_trials=fits).result
    if factor == 1.0:
        assert not res.violation, res.report()
        assert res.epsilon_lower_bound <= 0.5  # the exact epsilon of the correct run is 0.48
    else:
        assert res.violation, res.report()
        assert res.epsilon_lower_bound > 1.5

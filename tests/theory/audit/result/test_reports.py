"""semiprivate.theory.audit.result: what Witness, PairSearch and AuditResult report (descriptions,
report levels, explain texts, short reprs of data)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

NAN = math.nan


def _witness(**kw: Any) -> Any:
    from semiprivate.theory.audit.events import ThresholdEvent
    from semiprivate.theory.audit.result import Witness

    args: dict[str, Any] = dict(event=ThresholdEvent(0.5, True), direction="neighbour -> data", pair_index=1, p=0.25,
                                p_interval=(0.1, 0.4), q=0.0, q_interval=(0.0, 0.05), counts=(25, 0, 100),
                                support_mismatch=True, lower_bound=0.7, data=[1, 2], neighbour=[1, 3], seed=None)
    args.update(kw)
    return Witness(**args)


def _search() -> list[Any]:
    from semiprivate.theory.audit.result import PairSearch

    return [PairSearch(0, {"thr": 10, "value": 4}, 0.5, "{x > 1}, data -> neighbour", 2, 0.6),
            PairSearch(1, {"user": 2}, NAN, "", 0, NAN)]


def _result(**kw: Any) -> Any:
    from semiprivate.theory.audit.result import AuditResult

    w = kw.pop("w", None) or _witness(seed=7, direction="data -> neighbour", support_mismatch=False)
    args: dict[str, Any] = dict(epsilon_lower_bound=0.7, violation=False, p_value=0.3, witness=w,
                                trials_used=1234567, epsilon=1.0, delta=1e-6, confidence=0.95, n_tests=4, n_pairs=2,
                                n_candidates=16, tests=[w], search=_search(), seed=7)
    args.update(kw)
    return AuditResult(**args)


def test_witness_describe_and_pair() -> None:
    w = _witness()
    assert w.pair() == ([1, 2], [1, 3])
    assert w.describe() == (
        "event E = {x > 0.5} on pair #1, direction neighbour -> data\n"
        "  data      = [1, 2]\n"
        "  neighbour = [1, 3]\n"
        "  audit rng = a Generator (pass an int rng to make the audit reproducible) (witness.pair() returns the two "
        "objects)\n"
        "  P[M(neighbour) in E] = 0.25  (25/100), interval [0.1, 0.4]\n"
        "  P[M(data) in E] = 0  (0/100), interval [0, 0.05]\n"
        "  support mismatch: E was never seen under the data (the bound grows like log(trials))")
    w2 = _witness(seed=7, direction="data -> neighbour", support_mismatch=False)
    assert w2.describe().splitlines()[3:] == [
        "  audit rng = 7 (witness.pair() returns the two objects)",
        "  P[M(data) in E] = 0.25  (25/100), interval [0.1, 0.4]",
        "  P[M(neighbour) in E] = 0  (0/100), interval [0, 0.05]"]
    assert "seed=7" in repr(w2) and "data=" not in repr(w2)


def test_short_repr_summarises_arrays_and_cuts_long_text() -> None:
    from semiprivate.theory.audit.result import short_repr

    assert short_repr(np.arange(100)) == "array([ 0  1  2  3 ... 96 97 98 99], dtype=int64, shape=(100,))"
    assert short_repr(np.arange(4)) == "array([0 1 2 3], dtype=int64, shape=(4,))"
    assert short_repr(np.arange(12).reshape(3, 4)) == (
        "array([[ 0  1  2  3] [ 4  5  6  7] [ 8  9 10 11]], dtype=int64, shape=(3, 4))")
    assert short_repr("a" * 238) == repr("a" * 238)  # 240 characters: kept
    cut = short_repr("a" * 239)
    assert len(cut) == 240 and cut == repr("a" * 239)[:235] + " ...)"
    assert short_repr("abcdefg", limit=8) == "'ab ...)" and short_repr("abcdef", limit=8) == "'abcdef'"
    assert short_repr("abcd", limit=6) == "'abcd'"

    class Bad:
        def __repr__(self) -> str:
            raise RuntimeError("boom")

    assert short_repr(Bad()) == "<Bad object>"


def test_pair_search_describe() -> None:
    a, b = _search()
    assert a.describe() == ("pair #0: 14 candidates (thr 10, value 4); best anticipated bound on the selection batch "
                            "0.5 ({x > 1}, data -> neighbour); 2 tested, best final bound 0.6")
    assert b.describe() == "pair #1: 2 candidates (user 2); 0 tested, no test (its candidates ranked below the K kept)"


def test_audit_result_report_levels_and_families() -> None:
    r = _result()
    assert r.bonferroni_level == pytest.approx(0.05 / 8, rel=1e-12)
    assert r.families == {"thr": 10, "value": 4, "user": 2}
    assert str(r) == r.report()
    assert r.report() == "\n".join([
        "claimed (epsilon, delta) = (1, 1e-06); epsilon lower bound = 0.7000 at confidence 0.95 -> no violation found",
        "p-value 0.3; 2 neighbouring pair(s), 16 candidate events (thr 10, value 4, user 2), 4 tested (Bonferroni over "
        "pairs, events, directions); 1,234,567 trials",
        r.witness.describe(),
        "why no violation: best bound 0.7 <= claim 1; the best test's p-value for the claim 0.0375 per interval vs "
        "the Bonferroni level 0.00625 = (1 - 0.95) / (2 x 4 tests)",
        "  " + r.search[0].describe(),
        "  " + r.search[1].describe()])
    bare = _result(witness=None, search=[], tests=[], violation=True, epsilon_lower_bound=2.5)
    assert bare.report() == (
        "claimed (epsilon, delta) = (1, 1e-06); epsilon lower bound = 2.5000 at confidence 0.95 -> VIOLATION\n"
        "p-value 0.3; 2 neighbouring pair(s), 16 candidate events, 4 tested (Bonferroni over pairs, events, "
        "directions); 1,234,567 trials")
    assert _result(search=_search()[1:]).families == {"user": 2}


def test_audit_result_explain_branches() -> None:
    from semiprivate.theory.audit.result import PairSearch

    v = _result(violation=True, epsilon_lower_bound=2.5)
    assert v.explain().splitlines()[0] == ("why: the witness's bound 2.5 exceeds the claim 1 at the Bonferroni level "
                                           "0.00625 per one-sided interval (K = 4 tests)")
    assert _result(tests=[], search=[]).explain() == "why: no test was run"
    never = _result(p_value=1.0, tests=[_witness(lower_bound=0.3)], search=[])
    assert never.explain() == ("why no violation: best bound 0.3 <= claim 1; no test refutes the claim at any level vs "
                               "the Bonferroni level 0.00625 = (1 - 0.95) / (2 x 4 tests)")
    # the best test is the one with the largest bound
    two = _result(p_value=1.0, tests=[_witness(lower_bound=0.3), _witness(lower_bound=0.4), _witness(lower_bound=0.1)],
                  search=[])
    assert two.explain().startswith("why no violation: best bound 0.4 <= claim 1")
    neg = [_witness(lower_bound=-0.2)]
    sel_neg = [PairSearch(0, {"thr": 2}, -0.1, "c", 1, -0.2), PairSearch(1, {"thr": 2}, NAN, "", 0, NAN)]
    e = _result(p_value=1.0, tests=neg, search=sel_neg).explain().splitlines()
    assert e[0] == ("why the bound is 0: no candidate event showed evidence on the selection batch (best anticipated "
                    "bound -0.1 <= 0); more trials, other pairs or events (events=..., categorical=..., "
                    "float_bits=True) may find one")
    assert e[1].startswith("why no violation: best bound 0 <= claim 1; ")
    sel_zero = [PairSearch(0, {"thr": 2}, 0.0, "c", 1, -0.2)]
    assert _result(p_value=1.0, tests=neg, search=sel_zero).explain().startswith(
        "why the bound is 0: no candidate event showed evidence on the selection batch (best anticipated bound 0 <= 0)")
    sel_pos = [PairSearch(0, {"thr": 2}, 0.3, "c", 1, -0.2), PairSearch(1, {"thr": 2}, -0.5, "d", 0, NAN)]
    assert _result(p_value=1.0, tests=neg, search=sel_pos).explain().splitlines()[0] == (
        "why the bound is 0: the best tested event gave -0.2 <= 0 on the estimation batch (selection anticipated up "
        "to 0.3)")
    no_sel = [PairSearch(0, {"user": 2}, NAN, "", 1, -0.2)]
    assert _result(p_value=1.0, tests=neg, search=no_sel).explain().splitlines()[0] == (
        "why the bound is 0: the best tested event gave -0.2 <= 0 on the estimation batch")
    zero = [_witness(lower_bound=0.0)]
    assert _result(p_value=1.0, tests=zero, search=no_sel).explain().splitlines()[0] == (
        "why the bound is 0: the best tested event gave 0 <= 0 on the estimation batch")


def test_short_repr_array_summary_threshold_and_line_width() -> None:
    from semiprivate.theory.audit.result import short_repr

    assert short_repr(np.arange(32) * 1000, limit=10_000) == (  # 32 items: all shown, on one line
        "array([    0  1000  2000  3000  4000  5000  6000  7000  8000  9000 10000 11000 12000 13000 14000 15000 16000 "
        "17000 18000 19000 20000 21000 22000 23000 24000 25000 26000 27000 28000 29000 30000 31000], dtype=int64, "
        "shape=(32,))")
    assert short_repr(np.arange(33) * 1000, limit=10_000) == (
        "array([    0  1000  2000  3000 ... 29000 30000 31000 32000], dtype=int64, shape=(33,))")
    # rows longer than the line width are wrapped (an extra space where the newline was): 10,000 characters
    assert short_repr(np.arange(32).reshape(2, 16) * 1000, limit=10_000) == (
        "array([[    0  1000  2000  3000  4000  5000  6000  7000  8000  9000 10000 11000 12000 13000 14000 15000] "
        "[16000 17000 18000 19000 20000 21000 22000 23000 24000 25000 26000 27000 28000 29000 30000 31000]], "
        "dtype=int64, shape=(2, 16))")
    x = np.array([["a" * 4996, "b" * 4996]])  # a row of 10,001 characters
    assert short_repr(x, limit=20_000) == f"array([['{'a' * 4996}'  '{'b' * 4996}']], dtype=<U4996, shape=(1, 2))"
    y = np.array([["a" * 4995, "b" * 4995]])
    assert short_repr(y, limit=20_000) == f"array([['{'a' * 4995}' '{'b' * 4995}']], dtype=<U4995, shape=(1, 2))"

"""Pooled two-direction tests: their counts, their events, and where the audit offers them."""

from __future__ import annotations

import numpy as np
import pytest
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.candidates import Candidate
from semiprivate.theory.audit.draws import Codec, normalize
from semiprivate.theory.audit.events import ThresholdEvent
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.audit.pooled import PooledEvent, count_plan, pair_counts, pooled_candidates, sides
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism


def test_counts_add_each_direction_under_its_own_input() -> None:
    e, f = ThresholdEvent(0.0, False), ThresholdEvent(0.5, True)
    pooled = PooledEvent(e, f)
    c = Candidate(0.0, 0, pooled, True, (0, "pooled0", True))
    index = [(3, 7)]
    plan = count_plan(c, index)
    assert [(j, ev) for j, ev in plan] == [(3, e), (7, e), (3, pooled.backward), (7, pooled.backward)]
    counts = {(3, id(e)): 10, (7, id(e)): 4, (3, id(pooled.backward)): 2, (7, id(pooled.backward)): 9}
    assert pair_counts(c, index, counts) == (10 + 9, 4 + 2)  # k_A(E) + k_B(F'), k_B(E) + k_A(F')
    assert sides(c) == 2
    one = Candidate(0.0, 0, e, False, (0, "thr", False))
    assert pair_counts(one, index, counts) == (4, 10) and sides(one) == 1


def test_backward_event_is_disjoint_from_the_forward_one() -> None:
    e, f = ThresholdEvent(0.0, True), ThresholdEvent(1.0, False)  # {x > 0} and {x <= 1} overlap on (0, 1]
    pooled = PooledEvent(e, f)
    out = normalize(np.linspace(-2, 3, 101), 101, Codec())
    fe, bw = pooled.forward.indicator(out), pooled.backward.indicator(out)
    assert not np.any(fe & bw)
    assert np.array_equal(fe | bw, e.indicator(out) | f.indicator(out))
    with pytest.raises(TypeError, match="pooled test counts two events"):
        pooled.indicator(out)


def test_pooled_candidates_score_the_selection_counts() -> None:
    g = np.random.default_rng(0)
    ox = normalize(g.laplace(0.0, 1.0, 4000), 4000, Codec())
    oy = normalize(g.laplace(1.0, 1.0, 4000), 4000, Codec())
    e, f = ThresholdEvent(-0.5, False), ThresholdEvent(1.5, True)
    found = [Candidate(0.3, 0, e, True, (0, "thr", True)), Candidate(0.2, 0, f, False, (0, "thr", False))]
    cands, m = pooled_candidates(0, found, ox, oy, 4000, 40_000, 0.01)
    assert m == 1 and isinstance(cands[0].event, PooledEvent) and cands[0].forward
    assert cands[0].score > 0.3  # about twice the evidence of either side at the same ratio
    assert pooled_candidates(0, found[:1], ox, oy, 4000, 40_000, 0.01) == ([], 0)  # one direction only


@pytest.mark.parametrize("interval,pooled,expected", [("poisson-conditional", True, True),
                                                     ("poisson-conditional", False, False),
                                                     ("clopper-pearson", True, False)])
def test_pooled_family_is_offered_with_the_conditional_test_only(interval: str, pooled: bool, expected: bool) -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=5_000, rng=0, options=AuditOptions(interval=interval, pooled=pooled))
    assert ("pooled" in res.search[0].families) == expected
    if expected:
        assert res.search[0].families["pooled"] > 0


def test_pooled_witness_reports_both_inputs_outputs() -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=1,
                      options=AuditOptions(interval="poisson-conditional", estimate_on="best"))
    w = res.witness
    assert isinstance(w.event, PooledEvent) and w.direction.startswith("pooled")
    # both sides count the outputs of both inputs: p and q are per output of the two batches together
    assert w.trials is not None and w.trials[0] == w.trials[1] == w.counts[2] > 15_000
    assert w.p == pytest.approx(w.counts[0] / w.counts[2]) and w.q == pytest.approx(w.counts[1] / w.counts[2])
    text = w.describe()
    assert f"k_data(E) + k_neighbour(F') = {w.counts[0]} against k_neighbour(E) + k_data(F') = {w.counts[1]}" in text
    assert "P[M(data) in E]" not in text  # no per-input probability for a test over both inputs
    assert 0.8 < res.epsilon_lower_bound <= 1.0 + 0.05

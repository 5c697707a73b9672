"""``audit_pairs``' documented defaults and user events: the spread design by default, Event objects
accepted as user events as they are, and the two-stage design refused with user events."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from semiprivate.theory.audit import AuditOptions, audit_pairs
from semiprivate.theory.audit.events import ThresholdEvent
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

PAIR = [(0.0, 1.0)]


def test_documented_defaults() -> None:
    opts = AuditOptions()
    assert (opts.max_events, opts.n_thresholds, opts.max_values) == (4, 256, 2048)
    assert (opts.estimate_on, opts.n_best, opts.interval) == ("all", 1, "clopper-pearson")
    assert inspect.signature(audit_pairs).parameters["options"].default is None
    res = audit_pairs(LaplaceMechanism(1.0), PAIR, epsilon=1.0, trials=5_000, rng=0)
    assert res.estimate_on == "all" and res.interval == "clopper-pearson"


def test_an_event_object_is_tested_as_it_is() -> None:
    event = ThresholdEvent(1.0, True)
    res = audit_pairs(LaplaceMechanism(1.0), PAIR, epsilon=1.0, trials=20_000, rng=0, events=[event])
    assert all(w.event is event for w in res.tests) and len(res.tests) == 2  # both directions


def test_two_stage_with_user_events_is_refused() -> None:
    with pytest.raises(ValueError) as err:
        audit_pairs(LaplaceMechanism(1.0), PAIR, epsilon=1.0, trials=1_000, rng=0, options=AuditOptions(estimate_on="best"),
                    events=[lambda o: np.asarray(o) > 0])
    assert str(err.value) == ("estimate_on='best' ranks candidates on a selection batch, which events=[...] skips "
                              "(every user event is tested): use estimate_on='all' with events")


def test_default_max_values_keeps_2048_values() -> None:
    """Integer outputs with 2049 distinct values, all seen in the selection batch: value events for the 2048 most
    frequent only (two directions each), by default as with max_values=2048."""

    def many_values(data: object, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, 2049, size)

    kw: dict[str, object] = dict(epsilon=1.0, trials=40_000, rng=0)
    default = audit_pairs(many_values, [(0, 1)], options=AuditOptions(selection_trials=40_000), **kw)  # type: ignore[arg-type]
    assert default.search[0].families["value"] == 2 * 2048
    more = audit_pairs(many_values, [(0, 1)], options=AuditOptions(selection_trials=40_000, max_values=2049), **kw)  # type: ignore[arg-type]
    assert more.search[0].families["value"] == 2 * 2049

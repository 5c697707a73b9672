"""Learned randomised events (:class:`semiprivate.theory.audit.events.RandomizedEvent`, ``learned=True``).

Calibration with power: a three-valued mechanism, ``P_0 = (0.4, 0.3, 0.3)`` and ``P_1 = (1 - 0.6/e, 0.3/e,
0.3/e)``, is 1-DP and tight on the values 1 and 2, so the randomised event ``{x == 1} or ({x == 2} with
probability 1/2)`` has ratio exactly ``e`` from 0 to 1 (and ``e^-1`` back).  Tested as a user event in both
directions (``K = 2`` conditional tests), 2,000 Poisson-sized outputs per input, confidence 0.75, ``R = 200``
seeds: only the forward test is at its boundary (the backward one refutes the claim 1 with probability below
1e-20), so a valid audit refutes the true claim with probability at most ``0.25 / 2 = 0.125`` (plus that 1e-20); the limit is
the smallest ``L`` with ``P[Binomial(200, 0.125) >= L] <= 1e-4`` (false-failure rate <= 1e-4).  Break (kept as
a test): one coin per batch of outputs instead of one per output (the boundary cell all in or all out),
measured 0.3725 on 400 seeds against 0.105 valid.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom, poisson
from semiprivate.theory.audit import AuditResult, audit_pairs, core
from semiprivate.theory.audit.events import RandomizedEvent, ValueSetEvent
from semiprivate.theory.audit.options import AuditOptions

R = 200
LEVEL = 0.25
VALID_RATE = LEVEL / 2
P0 = np.array([0.4, 0.3, 0.3])
P1 = np.array([1 - 0.6 / math.e, 0.3 / math.e, 0.3 / math.e])


def three_values(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(3, size=size, p=P0 if int(data) == 0 else P1)


def _event(gamma: float = 0.5) -> RandomizedEvent:
    return RandomizedEvent(ValueSetEvent(np.array([1]), "x == 1"), ValueSetEvent(np.array([2]), "x == 2"), gamma,
                           "x == 1 or (x == 2 with probability 1/2)")


def _limit(rate: float) -> int:
    return int(np.argmax(binom.sf(np.arange(R + 1) - 1, R, rate) <= 1e-4))


LIMIT = _limit(VALID_RATE)


def _refuted() -> int:
    return sum(_audit(30_000 + i).violation for i in range(R))


@functools.cache
def _audit(seed: int) -> AuditResult:
    return audit_pairs(three_values, [(0, 1)], epsilon=1.0, trials=2_000, rng=seed, events=[_event()],
                       options=AuditOptions(interval="poisson-conditional"), confidence=1 - LEVEL)


def test_the_design() -> None:
    assert binom.sf(LIMIT - 1, R, VALID_RATE) <= 1e-4 < binom.sf(LIMIT - 2, R, VALID_RATE)
    assert binom.sf(LIMIT - 1, R, 0.3725) >= 0.99
    # backward: the claim 1 is refuted at level 0.125 only if a Binomial(T, 1/(1+e)) count reaches 70% of T;
    # T is Poisson with mean about 1,121 (2,000 - 4 sqrt(2,000) outputs per input), at least 800 except with
    # probability below 1e-20
    assert binom.logsf(560, 800, 1 / (1 + math.e)) < math.log(1e-100)
    assert poisson.logcdf(800, (2_000 - 4 * math.sqrt(2_000)) * 0.45 * (1 + 1 / math.e)) < math.log(1e-20)


def test_a_randomised_event_refutes_the_true_claim_at_most_at_its_level() -> None:
    hits = _refuted()
    assert hits < LIMIT, f"{hits}/{R} refuted the true epsilon (limit {LIMIT})"


def test_one_coin_per_batch_instead_of_per_output_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "_coins", lambda g, size: np.full(size, g.random()))
    hits = sum(audit_pairs(three_values, [(0, 1)], epsilon=1.0, trials=2_000, rng=30_000 + i, events=[_event()],
                           options=AuditOptions(interval="poisson-conditional"), confidence=1 - LEVEL).violation for i in range(R))
    assert hits >= LIMIT, f"one coin per batch: only {hits}/{R} refuted the true epsilon (limit {LIMIT})"


def test_counts_are_binomial_with_the_mixed_probability() -> None:
    res = audit_pairs(three_values, [(0, 1)], epsilon=1.0, trials=200_000, rng=1, events=[_event(0.25)])
    fwd = next(w for w in res.tests if w.direction == "data -> neighbour")
    for k, p in ((fwd.counts[0], P0[1] + 0.25 * P0[2]), (fwd.counts[1], P1[1] + 0.25 * P1[2])):
        assert abs(k - 200_000 * p) < 5 * math.sqrt(200_000 * p * (1 - p))


def test_the_event_needs_coins_and_a_probability() -> None:
    from semiprivate.theory.audit.draws import Codec, normalize

    out = normalize(np.array([0, 1, 2, 2]), 4, Codec())
    ev = _event()
    with pytest.raises(ValueError, match="needs one uniform coin per output"):
        ev.indicator(out)
    assert ev.indicator(out, np.array([0.9, 0.9, 0.1, 0.9])).tolist() == [False, True, True, False]
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="gamma must be in"):
            _event(bad)


def test_learned_events_are_a_family_of_the_search_when_asked() -> None:
    res = audit_pairs(three_values, [(0, 1)], epsilon=1.0, trials=20_000, rng=0, options=AuditOptions(learned=True))
    assert res.families["learned"] > 0
    assert "learned" not in audit_pairs(three_values, [(0, 1)], epsilon=1.0, trials=20_000, rng=0).families

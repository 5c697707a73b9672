"""The calibration's search returns the first rung of the 1e-4 ladder the accountant certifies: the rung a walk up
the ladder would stop at, for answers near and far above the closed form (found by galloping and bisection)."""

from __future__ import annotations

import pytest
from semiprivate.theory.privacy import multinomial_dpgd as m


def _walk(start: float, certified: float) -> float:
    sigma = start
    while sigma < certified:
        sigma *= 1.0 + 1e-4
    return sigma


@pytest.mark.parametrize("rungs_up", [0, 1, 2, 7, 930, 5000])
def test_the_search_stops_at_the_walks_rung(monkeypatch, rungs_up):
    start = 2.0
    threshold = start
    for _ in range(rungs_up):
        threshold *= 1.0 + 1e-4
    monkeypatch.setattr(m, "gaussian_sigma", lambda *a, **k: start)
    calls: list[float] = []

    def accountant(sigma, steps, delta):  # certifies epsilon 1 from the threshold on (falls as sigma grows)
        calls.append(sigma)
        return 1.0 if sigma >= threshold else 3.0

    monkeypatch.setattr(m, "_pld_epsilon", accountant)
    assert m._calibrate(1.0, 0.5, 100) == _walk(start, threshold)
    assert len(calls) <= 2 * 14 + 2  # O(log k) evaluations, not one per rung


def test_beyond_the_highest_rung_it_is_refused_naming_epsilon_and_delta(monkeypatch):
    monkeypatch.setattr(m, "gaussian_sigma", lambda *a, **k: 2.0)
    monkeypatch.setattr(m, "_pld_epsilon", lambda sigma, steps, delta: 3.0)
    with pytest.raises(ValueError, match=r"^epsilon=1: the PLD accountant does not certify .* at delta=0\.5"):
        m._calibrate(1.0, 0.5, 100)

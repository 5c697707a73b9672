"""The choice stage with ``interval="poisson-conditional"``: the offered tests are scored by the conditional
test's anticipated bound (:func:`semiprivate.theory.audit.selection.anticipated_ratio_bound`) at the level
of one test, ``alpha (1 - TRUNCATION_SHARE) / n_best``, never by the rectangle's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit import core, selection
from semiprivate.theory.audit.candidates import Candidate
from semiprivate.theory.audit.conditional import TRUNCATION_SHARE
from semiprivate.theory.audit.draws import Codec
from semiprivate.theory.audit.events import UserEvent

RATES = [0.02, 0.30, 0.011]  # numerator rates of three tests on pair 0; the other side 0.01 (rare) or 0.25
OTHER = [0.01, 0.25, 0.01]
REAL = selection.anticipated_ratio_bound


@pytest.mark.parametrize("n_best", [1, 2])
def test_choice_scores_with_the_conditional_test(monkeypatch: pytest.MonkeyPatch, n_best: int) -> None:
    offered = [Candidate(0.0, 0, UserEvent(lambda o: np.asarray(o) > 0), True, (g,)) for g in "abc"]
    calls: list[tuple[int, int, float]] = []

    def count(mechanism: Any, datasets: Any, per_dataset: Any, n: int, *rest: Any) -> dict[tuple[int, int], int]:
        out = {}
        for k, c in enumerate(offered):
            out[(0, id(c.event))] = round(n * RATES[k])
            out[(1, id(c.event))] = round(n * OTHER[k])
        return out

    def ratio(kx: Any, ky: Any, s: int, n: int, a: float) -> np.ndarray:
        calls.append((s, n, a))
        return REAL(kx, ky, s, n, a)

    def rectangle(*args: Any) -> np.ndarray:
        raise AssertionError("the rectangle's score was used with the conditional test")

    monkeypatch.setattr(core, "_count_datasets", count)
    monkeypatch.setattr(selection, "anticipated_ratio_bound", ratio)
    monkeypatch.setattr(selection, "anticipated_bound", rectangle)
    kept, used = core._choose_best("mechanism", ["d0", "d1"], [(0, 1)], offered, [10_000], n_best, 2 * 1_000_000,
                                   0.1, 0.0, np.random.default_rng(0), Codec(), None, conditional=True)
    assert calls == [(10_000, (2_000_000 - 20_000) // 2, pytest.approx(0.1 * (1 - TRUNCATION_SHARE) / n_best))]
    assert used == 20_000
    # the rare test with log ratio log 2 beats the common one with log 1.2, which beats the near-null one
    assert [c.event for c in kept] == [offered[0].event, offered[1].event][:n_best]

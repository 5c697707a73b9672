"""The two-stage design offers the choice batch every event group of the planned tests' pairs."""

from __future__ import annotations

from semiprivate.theory.audit import core
from semiprivate.theory.audit.candidates import Candidate


def _c(score: float, pair: int, family: str, forward: bool = True) -> Candidate:
    return Candidate(score, pair, object(), forward, (pair, family, forward))  # type: ignore[arg-type]


def test_offered_adds_the_best_of_each_other_group_of_the_same_pairs() -> None:
    planned = [_c(0.9, 0, "coord3"), _c(0.8, 1, "coord7")]
    fisher0, fisher0_worse = _c(0.02, 0, "fisher"), _c(0.01, 0, "fisher")
    sign1_back = _c(0.03, 1, "sign", forward=False)
    other_pair = _c(0.5, 2, "fisher")
    cands = planned + [fisher0_worse, fisher0, sign1_back, other_pair, _c(0.7, 0, "coord3")]
    got = core._offered(planned, cands)
    assert got[:2] == planned  # the planned tests first, unchanged
    extra = got[2:]
    assert extra == [sign1_back, fisher0]  # by score; one per group; no pair outside the plan
    assert all(c is not other_pair for c in got)


def test_offered_is_capped() -> None:
    planned = [_c(1.0, 0, "a")]
    cands = planned + [_c(0.5 - i / 1000, 0, f"g{i}") for i in range(200)]
    got = core._offered(planned, cands)
    assert len(got) == core.MAX_OFFERED
    assert [c.group[1] for c in got[1:4]] == ["g0", "g1", "g2"]

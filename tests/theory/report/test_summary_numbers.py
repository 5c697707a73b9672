"""Each summary line carries the number measured for its claim, computed from what ran (not a constant):
the halfspace lines give the accuracies at k = d and at the best k with the paired rise, the audit line the
calibration's false-flag count."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.report import ReportContext
from semiprivate.theory.report.sections import audit, halfspaces


def _result(private: dict[int, list[float]], nonprivate: dict[int, list[float]]) -> dict[str, Any]:
    return {"pca": {0.2: {k: np.array(v) for k, v in private.items()},
                    None: {k: np.array(v) for k, v in nonprivate.items()}}, "random": {}, "full": {}}


def test_the_halfspace_line_gives_the_accuracies_and_the_rise() -> None:
    res = _result({3: [0.9, 0.95, 0.92], 100: [0.6, 0.65, 0.62]}, {3: [1.0, 1.0, 1.0], 100: [0.99, 1.0, 1.0]})
    _text, shown, stats = halfspaces._claim(res, [3, 100], 0.2, 100)
    line = halfspaces._claim_numbers("synthetic", shown, stats)
    assert shown
    assert line.startswith("synthetic at eps = 0.2: 0.623 at k = d = 100 -> 0.923 at k = 3 (paired rise +0.300 ")
    assert "3 seeds" in line and "non-private +0.003" in line and line.endswith("-> shown")


def test_the_halfspace_line_says_not_shown_when_the_full_dimension_is_best() -> None:
    res = _result({3: [0.5, 0.55], 100: [0.7, 0.72]}, {3: [1.0, 1.0], 100: [1.0, 1.0]})
    _text, shown, stats = halfspaces._claim(res, [3, 100], 0.2, 100)
    line = halfspaces._claim_numbers("synthetic", shown, stats)
    assert not shown and "k = d = 100 itself (0.710)" in line and line.endswith("NOT shown")


@pytest.mark.parametrize(("every", "flags"), [(25, 8), (10, 20)])
def test_the_audit_line_counts_the_calibration_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     every: int, flags: int) -> None:
    """A stand-in auditor that flags every ``every``-th seed: the line reports exactly that count."""
    import semiprivate.theory.audit as audit_pkg

    def fake(mech: Any, d0: Any, d1: Any, *, rng: int, **kwargs: Any) -> Any:
        return SimpleNamespace(violation=(rng % every == 0))

    monkeypatch.setattr(audit_pkg, "audit_mechanism", fake)
    ctx = ReportContext(tmp_path, quick=True, seed=0)  # seeds 1000 i + r, r < 50: every-th r flagged
    _rows, ok, numbers = audit._calibration(ctx)
    assert numbers.startswith(f"calibration {flags}/200 false flags of correct mechanisms at confidence 0.95 "
                              f"(20,000 trials per dataset; rate {flags / 200:.3f}, 95% upper bound ")
    assert ok == (flags / 4 <= max(3, 3 * 0.05 * 50))


def _room_result(pr: dict[int, list[float]], nf: dict[int, list[float]], share: dict[int, float]) -> dict[str, Any]:
    res = _result(pr, {k: [0.9] * len(v) for k, v in pr.items()})
    res["noise_free"] = {0.2: {k: np.array(v) for k, v in nf.items()}}
    res["share"] = {k: np.full(len(pr[k]), v) for k, v in share.items()}
    return res


def _why(res: dict[str, Any]) -> tuple[str, bool, dict[str, float]]:
    _text, shown, stats = halfspaces._claim(res, [4, 64], 0.2, 64)
    assert not shown
    room = halfspaces._room(res, [4, 64], 0.2, 64, stats)
    why, explained = halfspaces._why_not(room)
    return why, explained, room


def test_a_missing_rise_is_explained_when_the_top_directions_hold_most_of_the_rows() -> None:
    # noise costs 0.40 at k = d; k = 4 keeps 81% of the rows' squared norm: the scores' noise only falls to 0.9x,
    # predicted rise 0.40 * 0.1 - 0.01 = +0.030, below 0.02 + 2 s.e. of the measured rise (about 0.047 here)
    pr = {4: [0.45, 0.47, 0.44, 0.48], 64: [0.45, 0.44, 0.46, 0.45]}
    nf = {4: [0.84, 0.84, 0.84, 0.84], 64: [0.85, 0.85, 0.85, 0.85]}
    why, explained, room = _why(_room_result(pr, nf, {4: 0.81, 64: 1.0}))
    assert room["cost_d"] == pytest.approx(0.40) and room["pred"] == pytest.approx(0.40 * 0.1 - 0.01)
    assert explained
    assert why.startswith("noise costs 0.400 +- 0.004 s.e. at k = d (the same run without noise: 0.850)")
    assert "hold 81% of the test rows' squared norm" in why and "only to 0.90x" in why
    assert "predicted rise +0.030" in why and "below the" in why


def test_a_missing_rise_the_spectrum_predicts_is_not_explained() -> None:
    # the same accuracies, but k = 4 keeps 9% of the norm: noise in the scores falls to 0.3x, predicted +0.27
    pr = {4: [0.45, 0.47, 0.44, 0.48], 64: [0.45, 0.44, 0.46, 0.45]}
    nf = {4: [0.84, 0.84, 0.84, 0.84], 64: [0.85, 0.85, 0.85, 0.85]}
    why, explained, room = _why(_room_result(pr, nf, {4: 0.09, 64: 1.0}))
    assert room["pred"] == pytest.approx(0.40 * 0.7 - 0.01)
    assert not explained and "ABOVE" in why and why.endswith("not explained")


def test_a_missing_rise_with_no_noise_cost_says_there_is_nothing_to_remove() -> None:
    pr = {4: [0.83, 0.84, 0.82, 0.85], 64: [0.85, 0.84, 0.85, 0.85]}
    nf = {4: [0.84, 0.84, 0.84, 0.84], 64: [0.85, 0.85, 0.85, 0.85]}
    why, explained, _room = _why(_room_result(pr, nf, {4: 0.1, 64: 1.0}))
    assert explained and "no noise cost to remove" in why and why.startswith("noise costs 0.003 ")


def test_the_multinomial_sweep_measures_the_noise_free_runs_and_the_norm_share(tmp_path: Path) -> None:
    res = halfspaces._mn_sweep(ReportContext(tmp_path), "digits", [4, 64], [1.0], 1)
    assert res["share"][64][0] == pytest.approx(1.0)  # no projection: every row keeps its whole norm
    assert 0.2 < res["share"][4][0] < 0.7  # digits' spectrum is spread: 4 of 64 directions hold a part
    # without noise the same trainer does at least as well here, and far better than chance
    assert res["noise_free"][1.0][64][0] > 0.8 and res["noise_free"][1.0][64][0] >= res["pca"][1.0][64][0]

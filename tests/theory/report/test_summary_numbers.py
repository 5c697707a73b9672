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
                              f"(rate {flags / 200:.3f}, 95% upper bound ")
    assert ok == (flags / 4 <= max(3, 3 * 0.05 * 50))

"""The split search of :func:`group_of_two_epsilon` (replace-one from an add/remove curve, group size 2).

A claim ``(2 e, delta)`` needs a split ``d`` with ``eps_at(d) = e`` and ``d (1 + e^e) <= delta``.  These
tests drive the search with small hand-made curves (non-increasing in ``d``, as an accountant's are) and
check what it promises: it asks the curve only where a split can lie (``d <= delta / 2``, since
``e >= 0``); a curve at 0 there gives 0 (the caller's fallback, RDP's clipped conversion); a split on the
boundary ``d (1 + e^e) = delta`` is accepted; and a curve with no split ends the search with ``inf``
after a bounded number of evaluations, never with an unverified claim.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.rdp import RdpAccountant
from semiprivate.theory.privacy.accounting import dpsgd_event, group_of_two_epsilon


@pytest.mark.parametrize("delta", [1e-5, 0.3, 0.9])
def test_the_curve_is_asked_only_where_a_split_can_lie(delta: float) -> None:
    """Every evaluated d is at most delta / 2 (also at delta > 1/2, where RDP's curve at d >= 1 is 0)."""
    curve = RdpAccountant().compose(dpsgd_event(0.7, 1.0, 2))
    asked: list[float] = []

    def eps_at(d: float) -> float:
        asked.append(d)
        return float(curve.get_epsilon(d))

    got = group_of_two_epsilon(eps_at, delta)
    assert asked and max(asked) <= delta / 2
    assert got > 0.0 and math.isfinite(got)
    e = got / 2
    assert float(curve.get_epsilon(delta / (1 + math.exp(e)))) <= e


@pytest.mark.parametrize("delta", [1e-5, 0.3, 0.9])
def test_a_curve_at_zero_where_the_search_starts_gives_zero(delta: float) -> None:
    """0 at delta / 2 (RDP's clipped conversion) is returned as 0 for the caller to handle, even where the
    curve is positive at smaller deltas."""
    assert group_of_two_epsilon(lambda d: 0.0 if d >= delta / 2 else 3.0, delta) == 0.0


def test_a_split_on_the_boundary_is_accepted() -> None:
    """The claim's condition is d (1 + e^e) <= delta: at the second split tried, the curve gives the smallest
    e that meets it with equality (as the log-space test computes it); that e is claimed, not a larger one
    from a smaller split (the curve jumps by 1 below that d)."""
    delta = 1e-5
    asked: list[float] = []
    boundary: dict[str, float] = {}

    def log_one_plus_exp(e: float) -> float:
        return e + math.log1p(math.exp(-e))

    def eps_at(d: float) -> float:
        asked.append(d)
        if len(asked) == 1:
            return 1.0
        if "d" not in boundary:  # the smallest e with log(d) + log(1 + e^e) == log(delta) in floating point
            def excess(e: float) -> float:
                return math.log(d) + log_one_plus_exp(e) - math.log(delta)

            lo, hi = 1.0, 2.0  # excess(lo) < 0 <= excess(hi)
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
            while excess(lo) < 0:
                lo = float(np.nextafter(lo, math.inf))
            assert math.log(d) + log_one_plus_exp(lo) == math.log(delta)  # a tie exists at these values
            boundary.update(d=d, e=lo)
        return boundary["e"] if d >= boundary["d"] else boundary["e"] + 1.0

    assert group_of_two_epsilon(eps_at, delta) == 2.0 * boundary["e"]
    assert len(asked) == 2


def test_a_curve_without_a_split_ends_in_inf_after_200_evaluations() -> None:
    """eps_at(d) = log(2 delta / d): d (1 + e^e) = d + 2 delta > delta for every d, so no split exists; the
    search gives up with inf (no claim) after 200 evaluations."""
    delta = 1e-5
    asked: list[float] = []

    def eps_at(d: float) -> float:
        asked.append(d)
        return math.log(2 * delta / d)

    assert group_of_two_epsilon(eps_at, delta) == math.inf
    assert len(asked) == 200

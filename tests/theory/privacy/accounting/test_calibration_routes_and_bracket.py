"""Noise calibration: which search runs, and the ends of the searched range.

``calibrate_noise_multiplier`` brackets the answer between powers of two, ``[hi/2, hi]``, then runs
``dp_accounting.calibrate_dp_mechanism`` (Brent's method) where dp-accounting has the accountant (PLD
under either relation, RDP under add/remove), with tolerance ``1e-7 hi``; the largest noise searched is
2^30, and a target met there is calibrated, not refused.
"""

from __future__ import annotations

import math
from typing import Any

import dp_accounting
import pytest
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant
from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier, dpsgd_epsilon, dpsgd_event

REL = dp_accounting.NeighboringRelation


@pytest.mark.parametrize(("accountant", "relation"), [("pld", "replace_one"), ("pld", "add_or_remove_one"),
                                                      ("rdp", "add_or_remove_one")])
def test_calibration_is_dp_accountings_own_where_it_has_the_accountant(accountant: str, relation: str,
                                                                      calibrated: Any) -> None:
    """The result is ``calibrate_dp_mechanism``'s on the power-of-two bracket holding it, to the last bit
    (``calibrated``: calibrate_noise_multiplier(1.0, 1e-5, 0.05, 100), shared with test_replace_one_relation)."""
    q, steps, delta = 0.05, 100, 1e-5
    s = calibrated(accountant, relation)
    rel = REL.REPLACE_ONE if relation == "replace_one" else REL.ADD_OR_REMOVE_ONE

    def fresh() -> dp_accounting.PrivacyAccountant:
        return PLDAccountant(neighboring_relation=rel) if accountant == "pld" else RdpAccountant()

    hi = 2.0 ** math.ceil(math.log2(s))
    ref = dp_accounting.calibrate_dp_mechanism(fresh, lambda x: dpsgd_event(float(x), q, steps), 1.0, delta,
                                               bracket_interval=dp_accounting.ExplicitBracketInterval(hi / 2, hi),
                                               tol=1e-7 * hi)
    assert s == ref


def test_a_target_met_exactly_at_the_largest_noise_searched_is_calibrated() -> None:
    """A target equal to the epsilon at noise 2^30 (10^18 full-batch steps) is met there: calibrated to at
    most 2^30, not refused as out of range."""
    q, steps, delta = 1.0, 10**18, 1e-5
    target = dpsgd_epsilon(2.0**30, q, steps, delta)
    assert 0.0 < target < math.inf
    s = calibrate_noise_multiplier(target, delta, q, steps)
    assert 2.0**29 < s <= 2.0**30
    assert dpsgd_epsilon(s, q, steps, delta) <= target


@pytest.mark.parametrize("relation", ["replace_one", "add_or_remove_one"])
def test_a_target_the_rdp_accountant_meets_only_by_its_zero_is_refused(relation: str) -> None:
    """epsilon = 1e-3 at delta 1e-5 for one full-batch step: RDP's conversion passes from above 1e-3 to its
    clipped 0 without certifying 1e-3; that noise multiplier is refused (naming epsilon, pointing to PLD),
    and the PLD accountant calibrates the same target with a positive epsilon."""
    with pytest.raises(ValueError, match=r"epsilon=0\.001 is below what the RDP accountant certifies here: .*"
                                         r"use accountant='pld'$"):
        calibrate_noise_multiplier(1e-3, 1e-5, 1.0, 1, accountant="rdp", relation=relation)
    s = calibrate_noise_multiplier(1e-3, 1e-5, 1.0, 1, accountant="pld", relation=relation)
    assert 0.0 < dpsgd_epsilon(s, 1.0, 1, 1e-5, accountant="pld", relation=relation) <= 1e-3


def test_calibrating_to_the_epsilon_of_a_dyadic_noise_gives_it_back_exactly() -> None:
    """RDP under replace-one (bisection on the group-of-two epsilon): the target epsilon(3) is met first at
    noise 3, the midpoint of the bracket [2, 4], and smaller noise gives a larger epsilon: 3 exactly."""
    q, steps, delta = 0.05, 100, 1e-5
    target = dpsgd_epsilon(3.0, q, steps, delta)
    assert dpsgd_epsilon(2.0, q, steps, delta) > target >= dpsgd_epsilon(4.0, q, steps, delta)
    assert calibrate_noise_multiplier(target, delta, q, steps) == 3.0


def test_rdps_zero_falls_back_to_pld_under_the_same_relation() -> None:
    """Noise 3, one full-batch step run 3 times, delta 0.4, add/remove: RDP's conversion clips to 0, and the
    epsilon reported is the PLD accountant's of the same event under the same relation (add/remove: 0 here;
    replace-one's would be 0.129)."""
    args = (3.0, 1.0, 1, 0.4)
    assert dpsgd_epsilon(*args, accountant="pld", compositions=3) > 0.1
    assert dpsgd_epsilon(*args, compositions=3, relation="add_or_remove_one") == dpsgd_epsilon(
        *args, accountant="pld", compositions=3, relation="add_or_remove_one")


@pytest.mark.parametrize("compositions", [1, 3])
def test_rdps_zero_is_never_reported_pld_of_the_same_event_is(compositions: int) -> None:
    """Noise 5e5, q = 0.1, 100 steps (run once or 3 times), delta 1e-5: RDP's replace-one conversion clips
    to 0; the epsilon reported is the PLD accountant's of the same event (all compositions), positive."""
    args = (5e5, 0.1, 100, 1e-5)
    got = dpsgd_epsilon(*args, compositions=compositions)
    assert got > 0.0
    assert got == dpsgd_epsilon(*args, accountant="pld", compositions=compositions)


@pytest.mark.parametrize("crossing", [0.7, 1.3, 3.1, 17.0])
def test_the_read_ahead_bisection_returns_an_end_that_meets_epsilon_even_where_the_accountant_is_not_monotone(
        crossing: float) -> None:
    """The replace-one RDP search reads most bisection midpoints off the points Brent's method evaluated,
    assuming the epsilon decreases in the noise.  Its returned end must still meet epsilon where that fails.
    Run 1 (a monotone epsilon, crossing at ``crossing``) finds the end ``h``, read off without an evaluation;
    run 2 makes the same evaluations except that ``h`` itself misses epsilon (a point the search never looked
    at until its end): the result must be a different end, one that meets epsilon.  Without the final check,
    run 2 returns ``h``."""
    from semiprivate.theory.privacy.accounting import _bisection_read_ahead

    target = 1.0

    def run(bad: float | None) -> tuple[float, list[float], dict[float, float]]:
        order: list[float] = []
        seen: dict[float, float] = {}

        def eps_of(s: float) -> float:
            if s not in seen:
                order.append(s)
                seen[s] = target + 1.0 if s == bad else target * crossing / s
            return seen[s]

        lo, hi = crossing / 4, crossing * 4
        eps_of(lo), eps_of(hi)
        return _bisection_read_ahead(eps_of, target, lo, hi, 1e-7 * hi, seen), order, seen

    h, order, _ = run(None)
    assert order[-1] == h and h not in order[:-1], "the end was evaluated by the search itself: no read-off to test"
    again, _, seen = run(h)
    assert again != h and seen[again] <= target


def test_repeating_a_pld_calibration_leaves_the_composition_table_as_one_call_left_it() -> None:
    """The module's table of composed PLD events shows which events were asked for, never how often: a second
    identical calibration (one that evaluates more noise multipliers than the table holds) leaves the same keys
    as the first, as a run count (random stopping's K) must not be readable from the process's state."""
    from semiprivate.theory.privacy import accounting

    accounting._PLD_COMPOSED.clear()
    args = (0.1, 1e-6, 0.2, 1)  # 9 PLD evaluations: more than _PLD_COMPOSED_MAX
    first = calibrate_noise_multiplier(*args, accountant="pld")
    after_one = list(accounting._PLD_COMPOSED)
    assert calibrate_noise_multiplier(*args, accountant="pld") == first
    assert list(accounting._PLD_COMPOSED) == after_one
    # more distinct events than the table holds, asked for twice (the table's rule, on stand-in compositions):
    # the second pass leaves what the first left
    accounting._PLD_COMPOSED.clear()
    keys = [("replace_one", 1.0 + i, 0.5, 3) for i in range(accounting._PLD_COMPOSED_MAX + 3)]
    for _ in range(2):
        for key in keys:
            accounting._keep_composed(key, object())
        if _ == 0:
            after_first = list(accounting._PLD_COMPOSED)
    assert list(accounting._PLD_COMPOSED) == after_first == keys[:accounting._PLD_COMPOSED_MAX]
    accounting._PLD_COMPOSED.clear()

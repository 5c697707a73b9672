"""``one_run_epsilon_bound`` with delta > 0 and a number of guesses whose delta term would need more
binomial masses than fit in memory is refused with a message naming r (it used to try to allocate
terabytes); with delta = 0 the same counts are fine."""

from __future__ import annotations

import pytest
from semiprivate.theory.audit.one_run import one_run_epsilon_bound


def test_huge_counts_with_delta_are_refused_before_allocating():
    with pytest.raises(ValueError, match=r"^r: with delta > 0, r = 1000000000000 guesses"):
        one_run_epsilon_bound(10**12, 10**12, 10**12, delta=1e-5)


def test_huge_counts_without_delta_still_give_a_bound():
    assert one_run_epsilon_bound(10**12, 10**12, 10**12) > 20.0

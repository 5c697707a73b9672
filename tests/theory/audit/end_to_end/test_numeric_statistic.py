"""statistical_worst_case with a numeric ``statistic`` of the state (continuous noise: every hash differs).

A Gaussian mechanism on one bit, ``value = bit + N(0, s^2)``.  The claim is the classical bound for
s = 5: epsilon = sqrt(2 log(1.25 / delta)) / 5 = 0.97 at delta 1e-5 (Dwork & Roth 2014, Thm A.1).  At
s = 5 the audit of 2 x (500 + 1500) runs keeps its lower bound below the claim (false-failure rate <= 5%,
seed fixed); at s = 0.2 the same audit refutes the claim.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.audit.end_to_end import statistical_worst_case


class _Fitted:
    def __init__(self, value: float) -> None:
        self.value_ = np.array([value])


def _run(s: float):
    return lambda d, g: _Fitted(float(d[0][0]) + s * float(g.standard_normal()))


PAIR = [(((0,),), ((1,),))]
CLAIM = (math.sqrt(2 * math.log(1.25 / 1e-5)) / 5.0, 1e-5)


def test_numeric_statistic_holds_for_enough_noise_and_refutes_too_little():
    ok, _ = statistical_worst_case(_run(5.0), PAIR, CLAIM, trials=1500, selection_trials=500, rng=3,
                                   statistic=lambda est: est.value_)
    assert ok.holds and ok.epsilon <= CLAIM[0]
    bad, audit = statistical_worst_case(_run(0.2), PAIR, CLAIM, trials=1500, selection_trials=500, rng=3,
                                        statistic=lambda est: est.value_)
    assert not bad.holds and audit.violation and bad.epsilon > CLAIM[0]


def test_statistic_must_be_callable():
    with pytest.raises(TypeError, match="statistic"):
        statistical_worst_case(_run(1.0), PAIR, CLAIM, trials=200, statistic="value_")

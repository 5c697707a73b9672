"""PSSLAsTPAL's refusal of a 'labelled' base says which result needs what and why; outside BNS15 Cl 5.7's
proof condition, subsampling_guarantee still reports the claim's own formulas (flagged invalid)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from semiprivate.theory.learners.active import PSSLAsTPAL, SubsamplingGuarantee, subsampling_guarantee


class _LabelledOnly:
    privacy_model_ = "labelled"
    privacy = (1.0, 0.0)

    def fit(self, *a: Any) -> None: ...

    def predict(self, *a: Any) -> None: ...


def test_a_labelled_base_is_refused_naming_the_theorem_and_the_reason() -> None:
    with pytest.raises(ValueError) as err:
        PSSLAsTPAL(_LabelledOnly(), m=2)
    assert str(err.value) == (
        "learner: PSSLAsTPAL (BNS15 Thm 5.5) needs a base learner private in every input it reads (privacy model "
        "'all inputs'), got _LabelledOnly with privacy model 'labelled': the pool entries m.. are its public sample, "
        "and a TPAL must be private in them too. Use a learner that reads only its labelled sample (e.g. "
        "GenericPrivateLearner) or one private in the public data too (GenericLearner, LabelBoost)")


def _claim(n: int, eps_star: float, delta: float, eps: float) -> tuple[float, float, int]:
    """BNS15 Cl 5.7's formulas: delta' = (7 + e^eps*) / (3 + e^(2 eps*)) eps delta, t = ceil((n/eps)(3 + e^(2 eps*)))."""
    a = math.exp(2 * eps_star)
    return eps, (7 + math.exp(eps_star)) / (3 + a) * eps * delta, math.ceil(n / eps * (3 + a))


def test_outside_the_ratio_condition_the_claims_formulas_are_reported_invalid() -> None:
    # a = e^4, q = 3 / (3 + a) < 1, R = (q a + 1 - q) / (q / a + 1 - q) = 3.996 > 3: invalid, t = 96 > n
    g = subsampling_guarantee(5, 2.0, 1e-6, 3.0)
    eps, delta_f, t = _claim(5, 2.0, 1e-6, 3.0)
    assert type(g) is SubsamplingGuarantee and g.valid is False
    assert g.epsilon == eps and type(g.epsilon) is float
    assert g.delta == pytest.approx(delta_f, rel=1e-12) and g.delta == pytest.approx(7.4946e-7, rel=1e-4)
    assert g.t == t == 96
    assert g.R == pytest.approx(3.996, abs=1e-3)


def test_outside_t_at_least_n_the_sample_size_is_at_least_n() -> None:
    # q = 5 / (3 + e^0.2) > 1: the formula's t = ceil(8.44) = 9 < n = 10, so t = n
    g = subsampling_guarantee(10, 0.1, 1e-3, 5.0)
    eps, delta_f, t = _claim(10, 0.1, 1e-3, 5.0)
    assert g.valid is False and t == 9
    assert (g.epsilon, g.t) == (5.0, 10) and g.delta == pytest.approx(delta_f, rel=1e-12)

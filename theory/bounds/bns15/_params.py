"""The parameters that several BNS15 bounds share (one :class:`~semiprivate.theory.bounds._core.Param` each)."""

from __future__ import annotations

from semiprivate.theory.bounds._core import Param
from semiprivate.validation import DELTA, EPSILON, POSITIVE_INT, POSITIVE_REAL, PROBABILITY

_VC = Param("vc_dim", POSITIVE_INT, "VC dimension of the concept class", integer=True, typical=(1, 20))
_ALPHA = Param("alpha", PROBABILITY, "accuracy parameter in (0, 1)", typical=(0.01, 0.5))
_BETA = Param("beta", PROBABILITY, "confidence parameter in (0, 1)", typical=(0.001, 0.5))
_EPS = Param("epsilon", EPSILON, "privacy parameter epsilon > 0", typical=(0.05, 5.0))
_DELTA = Param("delta", DELTA, "privacy parameter delta in [0, 1)", typical=(0.0, 1e-3), default=0.0,
               required=False)
_CONST = Param("constant", POSITIVE_REAL, "hidden constant of the O(.) (default 1)", typical=(0.5, 5.0),
               default=1.0, required=False)
_NBASE = Param("n", POSITIVE_INT, "sample complexity of the base learner", integer=True, typical=(1, 10**6))

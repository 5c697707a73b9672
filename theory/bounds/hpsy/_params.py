"""What several HPSY bound modules share: the result pair and the common parameters."""

from __future__ import annotations

from typing import NamedTuple

from semiprivate.theory.bounds._core import FORM_PAPER_OR_CORRECTED, Param
from semiprivate.validation import EPSILON, POSITIVE_REAL, PROBABILITY, Options

__all__ = ["SemiPrivateSampleSizes"]


class SemiPrivateSampleSizes(NamedTuple):
    """Unlabelled (public) and labelled (private) sample sizes of a theorem."""

    n_unl: int
    n_lab: int


_ALPHA = Param("alpha", PROBABILITY, "accuracy in (0, 1)", typical=(0.01, 0.5))


_BETA = Param("beta", PROBABILITY, "failure probability in (0, 1)", typical=(0.001, 0.5))


_EPS = Param("epsilon", EPSILON, "privacy parameter epsilon > 0", typical=(0.05, 5.0))


_CONST = Param("constant", POSITIVE_REAL, "hidden constant of the O(.) (default 1)", typical=(0.5, 5.0),
               default=1.0, required=False)


_FORM = Param("form", Options("statement", "proof"), "'statement' (default) or 'proof'", default="statement",
              required=False)


_FORM_PC = Param("form", Options("paper", "corrected"), "'paper' (stated size, default) or 'corrected' (what "
                 "proofs_checks verifies)", default="paper", required=False)


_FORM_CP = FORM_PAPER_OR_CORRECTED


_FORM3 = Param("form", Options("statement", "proof", "corrected"), "'statement' (default), 'proof' or 'corrected'",
               default="statement", required=False)

"""Bounds of HPSY (Hu, Pinto, Sanyal, Yang, "Semi-private learning via low dimensional structures").

One module per part of the paper: :mod:`~semiprivate.theory.bounds.hpsy.disjunctions` (Sec 2:
Theorems 1, 2 and Lemmas 1, 2) and :mod:`~semiprivate.theory.bounds.hpsy.halfspaces` (Sec 3:
Theorem 3).  Every public name is importable from here.

Items (each module names its own): HPSY.Thm1, HPSY.Lem1 (Karger), HPSY.Lem2, HPSY.Thm2, HPSY.Thm3.  The Sec 3.3
comparison baselines (BST14, ABM19, JL) are in :mod:`semiprivate.theory.bounds.classic`, the comparison
table in :mod:`semiprivate.theory.bounds.compare`.

"log" is natural.  Notes on the text, kept visible here:

* Lemma 2's statement has p >= 9(log(4/beta) + 4)/(d-1), its proof ends with
  (9 log(4/beta) + 4)/(d-1) (smaller); ``form="statement"`` (default) or ``"proof"``.
* Lemma 2's beta interval (4 exp(-(d-5)/9), 4/d) is EMPTY for 35 < d <= 37 (the lower end
  exceeds 4/d); the proof itself uses (4 exp(4 - (d-1)/3), 4/d).  Both are checked.
* Theorem 2's n_unl uses d - 1 in the first term; its proof needs the (larger) maximum of
  the k - 1 and d - k - 1 terms (``form="proof"``), and, since it conditions on
  n^+, n^- >= n/4, four times that (``form="corrected"``).
"""

from __future__ import annotations

from semiprivate.theory.bounds.hpsy import disjunctions, halfspaces
from semiprivate.theory.bounds.hpsy._params import SemiPrivateSampleSizes
from semiprivate.theory.bounds.hpsy.disjunctions import *  # noqa: F403 (re-exports the module's __all__)
from semiprivate.theory.bounds.hpsy.halfspaces import *  # noqa: F403 (re-exports the module's __all__)

# the package's public names are its modules' (each module's ``__all__`` is the one list)
__all__ = ["SemiPrivateSampleSizes"]
__all__ += disjunctions.__all__
__all__ += halfspaces.__all__

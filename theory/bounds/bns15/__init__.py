"""Bounds of BNS15 (Beimel, Nissim, Stemmer, "Learning privately with labeled and unlabeled examples").

One module per part of the paper: :mod:`~semiprivate.theory.bounds.bns15.generic` (Sec 3, the
GenericLearner, and App. A, the exponential mechanism it runs),
:mod:`~semiprivate.theory.bounds.bns15.labelboost` (Sec 4) and
:mod:`~semiprivate.theory.bounds.bns15.active` (Sec 5).  Every public name is importable from here.

Items (each module names its own): BNS15.Thm3.3, BNS15.Cl4.2, BNS15.Cl4.8, BNS15.Cl4.9, BNS15.Rem4.10, BNS15.Cl4.11,
BNS15.Lem4.12, BNS15.Thm4.13, BNS15.Thm4.14, BNS15.Thm4.16, BNS15.Cor4.17, BNS15.Cor4.18,
BNS15.Thm5.5, BNS15.Thm5.6, BNS15.Thm5.8, BNS15.PropA.1.  The privacy transformers (Lem 4.1,
Cl 4.3, Cl 4.5, Lem 4.6, Cl 5.7) are in :mod:`semiprivate.theory.bounds.privacy`; the classic VC bounds
of App. B and Thm A.3 in :mod:`semiprivate.theory.bounds.classic`.

"log" is natural throughout (the paper mixes ln and log; we read every log as ln, as its
proofs do when they exponentiate).  The LabelBoost constants (90000, 30000, 300, 96000,
2240, ...) are the paper's, used as written.
"""

from __future__ import annotations

from semiprivate.theory.bounds.bns15 import active, generic, labelboost
from semiprivate.theory.bounds.bns15.active import *  # noqa: F403 (re-exports the module's __all__)
from semiprivate.theory.bounds.bns15.generic import *  # noqa: F403 (re-exports the module's __all__)
from semiprivate.theory.bounds.bns15.labelboost import *  # noqa: F403 (re-exports the module's __all__)

# the package's public names are its modules' (each module's ``__all__`` is the one list)
__all__: list[str] = []
__all__ += generic.__all__
__all__ += labelboost.__all__
__all__ += active.__all__

"""semiprivate: a verified theory toolkit, with performance kernels, for semi-private learning.

One import name, three sub-packages (each a top-level folder of the repository):

* :mod:`semiprivate.kernels` -- fast primitives (exponential-mechanism sampling, PCA) with NumPy
  references, Cython and CuPy backends, and the input-validation helpers every layer uses;
* :mod:`semiprivate.theory` -- the learners, bounds, privacy mechanisms, auditor and report of the
  four papers (BNS15, ABM19, HPSY, PILLAR);
* :mod:`semiprivate.proofs_checks` -- machine checks of the papers' proofs.

``import semiprivate`` is cheap: the sub-packages load on first attribute access
(``semiprivate.kernels``) or by a plain ``import semiprivate.theory.bounds``.  The command line is
``semiprivate`` (or ``python -m semiprivate``); ``semiprivate --help`` lists its subcommands.
Which package may import which is written in ``ARCHITECTURE.md`` and enforced by a test.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__version__ = "0.1.0"
__all__ = ["__version__", "kernels", "proofs_checks", "theory"]

_SUBPACKAGES = ("kernels", "proofs_checks", "theory")


def __getattr__(name: str) -> ModuleType:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBPACKAGES))

"""semiprivate: a verified theory toolkit, with performance kernels, for semi-private learning.

One import name, three sub-packages (each a top-level folder of the repository):

* :mod:`semiprivate.kernels` -- fast primitives (exponential-mechanism sampling, PCA) with NumPy
  references, Cython and CuPy backends;
* :mod:`semiprivate.theory` -- the learners, bounds, privacy mechanisms, auditor and report of the
  four papers (BNS15, ABM19, HPSY, PILLAR);
* :mod:`semiprivate.proofs_checks` -- machine checks of the papers' proofs;

and one module beside them, :mod:`semiprivate.validation`: the input rules every layer uses (it imports
nothing of the package, so that kernels and theory both import it).

``import semiprivate`` is cheap: the sub-packages load on first attribute access
(``semiprivate.kernels``) or by a plain ``import semiprivate.theory.bounds``.  The command line is
``semiprivate`` (or ``python -m semiprivate``); ``semiprivate --help`` lists its subcommands.
Which package may import which is written in ``ARCHITECTURE.md`` and enforced by a test.

From the root of a source checkout, Python finds the checkout's ``semiprivate/`` folder before the
installed package (the current folder comes first on ``sys.path`` for ``python -m`` and ``python -c``),
and that folder holds neither ``theory/`` nor ``kernels/`` (they are top-level folders, installed under
this name by ``setup.py``).  Then this module hands over to the installed copy, when one is on
``sys.path``, so that ``python -m semiprivate ...`` runs what ``pip install .`` installed; without one,
the sub-packages are refused with :data:`SOURCE_CHECKOUT_MESSAGE` (what to run), as NumPy and
scikit-learn do, instead of "No module named 'semiprivate.theory'".
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

__version__ = "0.1.0"
__all__ = ["__version__", "kernels", "proofs_checks", "theory"]

_SUBPACKAGES = ("kernels", "proofs_checks", "theory")

#: the message of a source checkout with no installed copy to hand over to (None otherwise)
SOURCE_CHECKOUT_MESSAGE: str | None = None


def __getattr__(name: str) -> ModuleType:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBPACKAGES))


def _checkout_root() -> str | None:
    """The checkout's root when this is a source checkout's ``semiprivate/`` folder whose sub-packages no
    import route finds (no editable install, no link tree), else None."""
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    in_checkout = os.path.isfile(os.path.join(root, "setup.py")) and all(
        os.path.isfile(os.path.join(root, sub, "__init__.py")) for sub in _SUBPACKAGES)
    if not in_checkout or importlib.util.find_spec(f"{__name__}.theory") is not None:
        return None
    return root


def _installed_copy(root: str) -> str | None:
    """The ``__init__.py`` of another copy of this package on ``sys.path`` that has its sub-packages."""
    import os

    own = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    for entry in sys.path:
        folder = os.path.join(os.path.abspath(entry or os.curdir), __name__)
        init = os.path.join(folder, "__init__.py")
        if os.path.realpath(folder) != own and os.path.isfile(init) \
                and all(os.path.isdir(os.path.join(folder, sub)) for sub in _SUBPACKAGES):
            return init
    return None


class _RefuseSubpackages:
    """A ``sys.meta_path`` finder that answers an import of a sub-package with SOURCE_CHECKOUT_MESSAGE."""

    @staticmethod
    def find_spec(fullname: str, path: object = None, target: object = None) -> None:
        parts = fullname.split(".")
        if len(parts) > 1 and parts[0] == __name__ and parts[1] in _SUBPACKAGES:
            raise ModuleNotFoundError(SOURCE_CHECKOUT_MESSAGE, name=fullname)
        return None


def _hand_over() -> None:
    global SOURCE_CHECKOUT_MESSAGE
    root = _checkout_root()
    if root is None:
        return
    installed = _installed_copy(root)
    if installed is not None:
        # run the installed copy under this name; the import statement returns sys.modules[__name__]
        spec = importlib.util.spec_from_file_location(__name__, installed)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[__name__] = module
        spec.loader.exec_module(module)
        return
    SOURCE_CHECKOUT_MESSAGE = (
        f"semiprivate is imported from its source checkout ({root}), whose folder semiprivate/ does not hold "
        "the sub-packages theory/, kernels/ and proofs_checks/ (pip installs them under this name), and no "
        "installed copy was found. Run 'pip install .' in the checkout (or 'pip install -e .' to work on it) "
        "with this Python, then run the command again; from another folder, an installed copy is used.")
    sys.meta_path.append(_RefuseSubpackages())


_hand_over()

"""Root conftest: docstring examples (doctests) of the package, collected under their import names.

The folders ``theory/``, ``kernels/`` and ``proofs_checks/`` install as ``semiprivate.theory``,
``semiprivate.kernels`` and ``semiprivate.proofs_checks`` (setup.py's ``PACKAGE_DIRS``).  pytest's
own ``--doctest-modules`` would import ``theory/graphs.py`` as a second module named
``semiprivate.theory.graphs``; here each file's doctests run against the module the package really imports
(``semiprivate.theory.graphs``), with pytest's doctest runner and ``doctest_optionflags``.
Modules that need CuPy are skipped when it is absent.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from _pytest.doctest import DoctestModule

ROOT = Path(__file__).resolve().parent
PACKAGE_DIRS = {"semiprivate": "semiprivate", "theory": "semiprivate.theory", "kernels": "semiprivate.kernels",
                "proofs_checks": "semiprivate.proofs_checks"}

collect_ignore = ["setup.py", "build"]
collect_ignore_glob = ["benchmarks/*"]
_NO_CUPY = importlib.util.find_spec("cupy") is None


def import_name(path: Path) -> str | None:
    """``theory/audit/core.py`` -> ``semiprivate.theory.audit.core``; None outside the package folders."""
    rel = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else None
    if rel is None or rel.parts[0] not in PACKAGE_DIRS or rel.suffix != ".py":
        return None
    parts = [PACKAGE_DIRS[rel.parts[0]], *rel.parts[1:-1]]
    if rel.stem != "__init__":
        parts.append(rel.stem)
    return ".".join(parts)


class PackageDoctestModule(DoctestModule):
    """pytest's doctest collector over the module imported by its package name."""

    def _getobj(self) -> ModuleType:
        name = import_name(self.path)
        assert name is not None
        return importlib.import_module(name)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = import_name(file_path)
    if name is None or file_path.name == "conftest.py":
        return None
    if _NO_CUPY and name.startswith("semiprivate.kernels._cupy."):
        return None
    return PackageDoctestModule.from_parent(parent, path=file_path)


@pytest.fixture(autouse=True)
def _separate_seed_record():
    """Each test and each docstring example starts with an empty record of the seeds releases used
    (:mod:`semiprivate.theory.privacy.seeds`): one test's releases are not another's."""
    from semiprivate.theory.privacy.seeds import forget_seeds

    forget_seeds()
    yield
    forget_seeds()

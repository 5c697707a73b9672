"""The source files a check rests on, and their fingerprints (what makes a committed certificate current).

A check's document in ``proofs_checks/certificates/`` records, under ``"sources"``, the SHA-256 of every file
of the package that computes the check: its own module, the modules it imports from the package (statically,
at any depth, imports inside functions included), and -- for a check that links to ``semiprivate.theory.bounds``
through :mod:`~semiprivate.proofs_checks._links`, which imports its targets by name at run time -- every module of
``semiprivate.theory.bounds``.  The runner that only calls the checks (``report``, ``_modules``, ``__main__``,
this module) is not followed: it decides no verdict.

:func:`stale_sources` compares a recorded map with the files as they are now; the quick report re-checks a
committed document only while it is empty, and runs the check again otherwise (a changed theorem constant, a
changed framework or bound function gives the verdict the current code gives, never the recorded one).
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from semiprivate.kernels._memo import memo_table

__all__ = ["PACKAGE", "check_sources", "fingerprints", "stale_sources"]

#: The package name
PACKAGE = "semiprivate"
#: The folder that holds the sub-packages ``theory/``, ``kernels/``, ``proofs_checks/``: the installed package's
#: folder, the link tree's ``semiprivate/``, or -- in a source checkout (an editable install) -- the checkout's root
_ROOT = Path(__file__).parent.parent
#: The sub-packages laid out under :data:`_ROOT`; every other module of the package (the top package's
#: ``__init__.py``, ``cli.py``, ...) lives in :data:`_TOP`, the folder of the top package's ``__init__.py``: the same
#: folder as :data:`_ROOT` when installed or linked, the checkout's ``semiprivate/`` in a source checkout
_SUBPACKAGES = frozenset({"theory", "kernels", "proofs_checks"})
_TOP = _ROOT / PACKAGE if (_ROOT / PACKAGE / "__init__.py").is_file() else _ROOT
#: Runner modules: they call the checks and write their results; a verdict never depends on them
_RUNNER = frozenset({f"{PACKAGE}.proofs_checks", f"{PACKAGE}.proofs_checks.report", f"{PACKAGE}.proofs_checks._modules",
                     f"{PACKAGE}.proofs_checks.__main__", f"{PACKAGE}.proofs_checks._sources"})
_LINKS = f"{PACKAGE}.proofs_checks._links"
_BOUNDS = f"{PACKAGE}.theory.bounds"


def _file(module: str) -> Path | None:
    """The file of package module ``module`` (``a.b`` -> ``a/b.py`` or ``a/b/__init__.py``), None if there is none."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = (_ROOT if len(parts) > 1 and parts[1] in _SUBPACKAGES else _TOP).joinpath(*parts[1:])
    for cand in (base.with_suffix(".py") if len(parts) > 1 else None, base / "__init__.py"):
        if cand is not None and cand.is_file():
            return cand
    return None


def _relative(path: Path) -> str:
    """A package file's name in a record: its path inside the package as installed (the same in every layout)."""
    return path.relative_to(_TOP if path.is_relative_to(_TOP) else _ROOT).as_posix()


def _path(rel: str) -> Path:
    """The file that a record's name ``rel`` (see :func:`_relative`) stands for in this layout."""
    return (_ROOT if Path(rel).parts[:1] and Path(rel).parts[0] in _SUBPACKAGES else _TOP) / rel


#: answers of :func:`_imports` and :func:`check_sources` (pure functions of the package's files; results only)
_IMPORTS = memo_table(f"{__name__}._IMPORTS")  # registered memo tables (semiprivate.kernels._memo)
_SOURCES = memo_table(f"{__name__}._SOURCES")


def _imports(module: str) -> frozenset[str]:
    """The package modules that ``module``'s file imports anywhere in its body (relative imports resolved)."""
    return _IMPORTS.lookup(module, lambda: _scan(module))


def _scan(module: str) -> frozenset[str]:
    path = _file(module)
    if path is None:
        return frozenset()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)  # ``from pkg import submodule``
    return frozenset(m for m in found if m.split(".")[0] == PACKAGE and _file(m) is not None)


def _bounds_modules() -> list[str]:
    folder = _file(_BOUNDS)
    if folder is None:
        return []
    return sorted(f"{_BOUNDS}.{p.stem}" for p in folder.parent.glob("*.py") if p.name != "__init__.py")


def check_sources(module: str) -> tuple[str, ...]:
    """The files (relative to the package folder, sorted) that compute the checks of module ``module``.

    >>> "proofs_checks/certificate_checker.py" in check_sources("semiprivate.proofs_checks.bns15_lem4_6")
    True
    """
    return _SOURCES.lookup(module, lambda: _closure(module))


def _closure(module: str) -> tuple[str, ...]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        mod = todo.pop()
        if mod in seen or mod in _RUNNER:
            continue
        seen.add(mod)
        todo.extend(_imports(mod))
        if mod == _LINKS:
            todo.extend([_BOUNDS, *_bounds_modules()])
    files = {_file(m) for m in seen}
    return tuple(sorted(_relative(f) for f in files if f is not None))


def _sha256(rel: str, seen: dict[str, str] | None = None) -> str:
    """The SHA-256 of file ``rel`` now ("missing" if there is none); ``seen`` keeps the answers of one pass."""
    if seen is not None and rel in seen:
        return seen[rel]
    path = _path(rel)
    sha = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    if seen is not None:
        seen[rel] = sha
    return sha


def fingerprints(module: str) -> dict[str, str]:
    """``{file: SHA-256}`` of :func:`check_sources` of ``module``, as the files are now."""
    return {rel: _sha256(rel) for rel in check_sources(module)}


def stale_sources(recorded: object, seen: dict[str, str] | None = None) -> list[str]:
    """The files of a recorded ``{file: SHA-256}`` map that are not as recorded now (``["(no sources recorded)"]``
    when the map is missing or malformed); ``seen``: a dict kept across the calls of one pass (each file read once).

    >>> stale_sources({"proofs_checks/_sources.py": "0" * 64})
    ['proofs_checks/_sources.py']
    >>> stale_sources(None)
    ['(no sources recorded)']
    """
    if not isinstance(recorded, dict) or not recorded or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in recorded.items()):
        return ["(no sources recorded)"]
    return sorted(rel for rel, sha in recorded.items()
                  if Path(rel).is_absolute() or ".." in Path(rel).parts or _sha256(rel, seen) != sha)

"""The layers of ARCHITECTURE.md, enforced: no upward import, no import cycle.

Every import of every module of the package is read with ``ast``: top-level imports, imports
inside functions and classes, and ``importlib.import_module("...")`` calls (an f-string counts by
its constant prefix).  A module may import its own layer and the layers below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: folder -> import name (setup.py's PACKAGE_DIRS)
PACKAGE_DIRS = {"semiprivate": "semiprivate", "theory": "semiprivate.theory", "kernels": "semiprivate.kernels",
                "proofs_checks": "semiprivate.proofs_checks"}

#: module prefix -> layer (ARCHITECTURE.md); the longest matching prefix decides
LAYERS: dict[str, int] = {
    "semiprivate": 9,
    "semiprivate.theory": 1,  # the sub-package's own __init__: a docstring, imports nothing
    "semiprivate.theory.report": 8,
    "semiprivate.theory.spec": 8,
    "semiprivate.proofs_checks": 7,
    "semiprivate.theory.audit_suite": 6,
    "semiprivate.theory.graph_checks": 6,
    "semiprivate.theory.learner_checks": 6,
    "semiprivate.theory.dpsgd_one_run": 6,
    "semiprivate.theory.learners": 5,
    "semiprivate.theory.privacy": 4,
    "semiprivate.theory.distributed": 3,
    "semiprivate.theory.audit": 2,
    "semiprivate.theory.bounds": 2,
    "semiprivate.theory.classes": 1,
    "semiprivate.theory.combinatorics": 1,
    "semiprivate.theory.covers": 1,
    "semiprivate.theory.validity": 1,
    "semiprivate.theory.progress": 1,
    "semiprivate.theory.graphs": 1,
    "semiprivate.theory.distributions": 1,
    "semiprivate.theory.halfspace_data": 1,
    "semiprivate.kernels": 0,
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [PACKAGE_DIRS[rel.parts[0]], *rel.parts[1:-1]]
    if rel.stem != "__init__":
        parts.append(rel.stem)
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for folder in PACKAGE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                out[_module_name(path)] = path
    return out


MODULES = _modules()


def layer(module: str) -> int:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if key in LAYERS:
            return LAYERS[key]
    raise KeyError(module)


def _resolve(name: str) -> str:
    """The module an imported dotted name refers to: itself if a module, else its longest module prefix."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        cand = ".".join(parts[:i])
        if cand in MODULES:
            return cand
    return name


def imports_of(source: str, module: str) -> list[tuple[str, int, bool]]:
    """(imported module, line, exact) for every import of ``semiprivate`` in ``source``; ``exact`` is
    False for an ``importlib.import_module`` f-string, known only by its package prefix."""
    package = module if MODULES.get(module, Path()).name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        exact = True
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and (getattr(node.func, "attr", None) == "import_module" or getattr(node.func, "id", None) == "import_module")):
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names = [arg.value]
            elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
                names, exact = [str(arg.values[0].value).rstrip(".")], False
        for n in names:
            if n == "semiprivate" or n.startswith("semiprivate."):
                found.append((_resolve(n), node.lineno, exact))
    return found


def graph(modules: dict[str, Path]) -> dict[str, list[tuple[str, int, bool]]]:
    return {m: imports_of(p.read_text(encoding="utf-8"), m) for m, p in modules.items()}


def upward_imports(g: dict[str, list[tuple[str, int, bool]]]) -> list[str]:
    bad = []
    for m, targets in g.items():
        for t, line, _ in targets:
            if layer(t) > layer(m):
                bad.append(f"{m}:{line} imports {t} (layer {layer(m)} -> {layer(t)})")
    return bad


def cycles(g: dict[str, list[tuple[str, int, bool]]]) -> list[list[str]]:
    """Strongly connected components of more than one module (or a module importing itself)."""
    edges = {m: sorted({t for t, _, exact in ts if exact and t in g}) for m, ts in g.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:  # Tarjan, iterative enough for this depth
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges[v]:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def test_every_module_has_a_layer() -> None:
    missing = []
    for m in MODULES:
        try:
            layer(m)
        except KeyError:
            missing.append(m)
    assert not missing, f"modules without a layer in LAYERS (and ARCHITECTURE.md): {missing}"


@pytest.mark.slow
def test_no_upward_import() -> None:
    bad = upward_imports(graph(MODULES))
    assert not bad, "imports against ARCHITECTURE.md's layers:\n" + "\n".join(bad)


def test_no_import_cycle() -> None:
    found = cycles(graph(MODULES))
    assert not found, f"import cycles: {found}"


def test_kernels_import_nothing_of_the_rest() -> None:
    g = graph({m: p for m, p in MODULES.items() if m.startswith("semiprivate.kernels")})
    outside = [f"{m} -> {t}" for m, ts in g.items() for t, _, _ in ts if not t.startswith("semiprivate.kernels")]
    assert not outside, outside


# --- the checker itself fails where it should ------------------------------------------------


@pytest.mark.parametrize("source", [
    "from semiprivate.theory.learners import asspp\n",                      # top level
    "def f():\n    from semiprivate.theory.learners.asspp import ASSPP\n",  # inside a function
    "import importlib\nimportlib.import_module('semiprivate.theory.report')\n",
    "import importlib\nimportlib.import_module(f'semiprivate.theory.learners.{1}')\n",
    "import semiprivate.theory.audit_suite as s\n",
])
def test_a_deliberate_upward_import_is_found(source: str) -> None:
    g = {"semiprivate.theory.bounds.abm19": imports_of(source, "semiprivate.theory.bounds.abm19")}
    assert upward_imports(g), source


def test_a_deliberate_cycle_is_found() -> None:
    a, b = "semiprivate.theory.covers", "semiprivate.theory.combinatorics"
    g = {a: imports_of("def f():\n    from semiprivate.theory import combinatorics\n", a),
         b: imports_of("from semiprivate.theory.covers import build_cover\n", b)}
    assert cycles(g) == [sorted([a, b])]


def test_relative_imports_resolve() -> None:
    got = imports_of("from . import stats\nfrom ..bounds import abm19\n", "semiprivate.theory.audit.core")
    assert [t for t, _, _ in got] == ["semiprivate.theory.audit.stats", "semiprivate.theory.bounds.abm19"]

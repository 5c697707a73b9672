"""The layers of ARCHITECTURE.md, enforced: no upward import, no import cycle.

Every import of every module of the package is read with ``ast``: top-level imports, imports
inside functions and classes, and ``importlib.import_module("...")`` calls (an f-string counts by
its constant prefix).  A module may import its own layer and the layers below it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

# One pytest-xdist worker runs the module (--dist loadgroup): every scan below reads the package's sources through
# the caches of _source and _parse, which then parse each module once for the run, not once per worker.
pytestmark = pytest.mark.xdist_group("architecture_scans")

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
    "semiprivate.validation": -1,  # the input rules: neutral, below every layer that checks its inputs
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


@functools.cache
def _parse(source: str) -> ast.Module:
    """One parse per source text for every scan of this file (the scans are pure functions of the text)."""
    return ast.parse(source)


@functools.cache
def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


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
    for node in ast.walk(_parse(source)):
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
    return {m: imports_of(_source(p), m) for m, p in modules.items()}


@functools.cache
def _package_graph() -> dict[str, list[tuple[str, int, bool]]]:
    """``graph(MODULES)``, built once for the tests that read the whole package's imports (none changes it)."""
    return graph(MODULES)


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


def test_no_upward_import() -> None:
    bad = upward_imports(_package_graph())
    assert not bad, "imports against ARCHITECTURE.md's layers:\n" + "\n".join(bad)


def test_no_import_cycle() -> None:
    found = cycles(_package_graph())
    assert not found, f"import cycles: {found}"


def test_kernels_import_nothing_of_the_rest() -> None:
    g = graph({m: p for m, p in MODULES.items() if m.startswith("semiprivate.kernels")})
    outside = [f"{m} -> {t}" for m, ts in g.items() for t, _, _ in ts
               if not t.startswith("semiprivate.kernels") and t != "semiprivate.validation"]
    assert not outside, outside


#: deprecated module names (each the same module object as its new name): nothing of the package imports them
DEPRECATED_MODULES = {"semiprivate.kernels.validation": "semiprivate.validation"}


def test_no_module_imports_a_deprecated_name() -> None:
    found = [f"{m}:{line} imports {t} (use {DEPRECATED_MODULES[t]})" for m, ts in _package_graph().items()
             for t, line, _ in ts if t in DEPRECATED_MODULES and m not in DEPRECATED_MODULES]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("source", ["from semiprivate.kernels.validation import check_epsilon\n",
                                    "from semiprivate.kernels import validation\n",
                                    "import semiprivate.kernels.validation as v\n"])
def test_deprecated_name_checker_finds_each_form(source: str) -> None:
    assert [t for t, _, _ in imports_of(source, "semiprivate.theory.x")] == ["semiprivate.kernels.validation"]


def test_the_input_rules_import_nothing_of_the_package() -> None:
    """``semiprivate.validation`` is neutral: kernels and theory both import it, it imports neither."""
    g = graph({"semiprivate.validation": MODULES["semiprivate.validation"]})
    assert not [t for ts in g.values() for t, _, _ in ts], g


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


# -- secure noise: no float noise draw outside the noise module and a declared list ----------------------------
#: Generator (and legacy np.random) draws of continuous or float-derived noise: a released value must not come
#: from them (Mironov 2012); the exact samplers are semiprivate.kernels.noise.
FLOAT_DRAWS = frozenset({"laplace", "normal", "standard_normal", "exponential", "standard_exponential", "gumbel",
                         "geometric", "logistic", "lognormal", "standard_cauchy", "gamma", "standard_gamma", "poisson",
                         "binomial"})
#: np.random attributes that construct generators (not draws)
NP_RANDOM_CONSTRUCTORS = frozenset({"default_rng", "Generator", "SeedSequence", "BitGenerator", "PCG64", "PCG64DXSM",
                                    "Philox", "SFC64", "MT19937"})
#: the exact samplers themselves
NOISE_MODULES = frozenset({"semiprivate.kernels.noise", "semiprivate.kernels._reference_noise"})
#: module (or package prefix) -> why float draws there are not releases of private data (ARCHITECTURE.md)
FLOAT_NOISE_ALLOWED: dict[str, str] = {
    "semiprivate.theory.audit.broken": "the auditor's deliberately broken float mechanisms (they exist to be caught)",
    "semiprivate.theory.audit.examples": "the auditor's float example mechanisms (textbook laws its tests compare with)",
    "semiprivate.theory.audit.conditional": "Poisson draws of the auditor's own resampling, no private data",
    "semiprivate.theory.privacy.mechanisms": "the audit-form textbook Laplace, Gaussian and report-noisy-max "
                                             "(continuous laws the audit suite checks; docstrings say not for release)",
    "semiprivate.theory.privacy.dpsgd": "DP-SGD's Gaussian: the release (weights) is a float by nature (caveat in "
                                        "ARCHITECTURE.md); binomial = Poisson subsampling",
    "semiprivate.theory.privacy.noisy_sgd": "BST14 Noisy SGD's Gaussian: float weights by nature (same caveat)",
    "semiprivate.theory.dpsgd_one_run": "DP-SGD audited in one run: the Gaussian of DP-SGD and its canaries",
    "semiprivate.theory.privacy.sgd_audits": "synthetic data of the SGD audit cases",
    "semiprivate.theory.learners.halfspaces": "the Gaussian random projection of RandomProjectionHalfspace "
                                              "(data-independent, public)",
    "semiprivate.theory.privacy.multinomial_dpgd": "multinomial DP-GD's Gaussian: the release (weights) is a float "
                                                   "by nature (the DP-SGD caveat of ARCHITECTURE.md)",
    "semiprivate.theory.learners.multinomial": "the Gaussian random projection of projection='random' "
                                               "(data-independent, public)",
    "semiprivate.theory.classes.other": "random hypotheses of a concept class (no data)",
    "semiprivate.theory.graphs": "G(d, p) random graphs (data generator)",
    "semiprivate.theory.halfspace_data": "data generators",
    "semiprivate.theory.learner_checks": "the tiny cases' data",
    "semiprivate.theory.report": "the report's simulated data",
    "semiprivate.kernels._pca_randomized": "randomized SVD's test matrix (PCA of public data)",
    "semiprivate.kernels._pca_eigen": "subspace iteration's fixed-seed start block (a numerical start; the result "
                                      "is the top-k eigenvectors)",
    "semiprivate.kernels._testvectors": "test vectors",
    "semiprivate.proofs_checks": "Monte Carlo checks of the papers' proofs (no private data)",
    "semiprivate.theory.privacy._release": "base_streams builds the RandomState (MT19937 on a child SeedSequence) a "
                                           "scikit-learn base receives as its random_state; it draws nothing itself",
}


def float_noise_draws(source: str) -> list[tuple[int, str]]:
    """(line, call) of every float-noise draw in ``source``: ``x.laplace(...)``-style calls of FLOAT_DRAWS and
    ``np.random.<draw>(...)`` (any np.random attribute that is not a constructor)."""
    out = []
    for node in ast.walk(_parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        f = node.func
        v = f.value
        np_random = (isinstance(v, ast.Attribute) and v.attr == "random" and isinstance(v.value, ast.Name)
                     and v.value.id in ("np", "numpy"))
        if np_random and f.attr not in NP_RANDOM_CONSTRUCTORS:
            out.append((node.lineno, f"np.random.{f.attr}("))
        elif f.attr in FLOAT_DRAWS:
            out.append((node.lineno, f".{f.attr}("))
    return out


def _allowed(module: str) -> bool:
    return module in NOISE_MODULES or any(module == p or module.startswith(p + ".") for p in FLOAT_NOISE_ALLOWED)


def test_no_float_noise_draw_outside_the_noise_module_and_the_declared_list() -> None:
    found = [f"{m}:{line}: {call}" for m, path in MODULES.items() if not _allowed(m)
             for line, call in float_noise_draws(_source(path))]
    assert not found, ("float noise drawn outside semiprivate.kernels.noise (use its exact samplers, or declare a "
                       f"non-release use with its reason in FLOAT_NOISE_ALLOWED): {found}")


def test_every_declared_float_noise_use_still_exists() -> None:
    stale = [p for p in FLOAT_NOISE_ALLOWED
             if not any((m == p or m.startswith(p + ".")) and float_noise_draws(_source(path))
                        for m, path in MODULES.items())]
    assert not stale, f"FLOAT_NOISE_ALLOWED names modules without float draws (remove them): {stale}"


@pytest.mark.parametrize("source", [
    "import numpy as np\ng = np.random.default_rng()\nx = 3 + g.laplace(0.0, 1.0)\n",
    "import numpy as np\nx = np.random.normal()\n",
    "def f(rng):\n    return rng.gumbel(0, 1, size=3)\n",
    "def f(self):\n    return self.g.standard_normal(4)\n",
])
def test_a_deliberate_float_noise_draw_is_found(source: str) -> None:
    assert float_noise_draws(source)


def test_generator_construction_is_not_a_draw() -> None:
    assert not float_noise_draws("import numpy as np\ng = np.random.default_rng(np.random.SeedSequence(3))\n")


# -- the release packages: generator methods by allow-list (a method the deny-list forgot cannot slip through) ----
#: packages whose modules release private data (learners, wrappers, sanitizers, mechanisms)
RELEASE_PACKAGES = ("semiprivate.theory.learners", "semiprivate.theory.privacy")
#: generator methods that draw exact integers or bits (everything else there is float-derived)
EXACT_GENERATOR_METHODS = frozenset({"integers", "bytes", "permutation", "permuted", "shuffle", "spawn", "choice"})
#: every numpy Generator method (and scipy's ``.rvs``): a call of one outside EXACT_GENERATOR_METHODS in a release
#: module is a float draw
GENERATOR_METHODS = frozenset({m for m in dir(__import__("numpy").random.Generator) if not m.startswith("_")}
                              | {"rvs"}) - {"bit_generator"}
#: (module, call) -> why that float-derived draw is not a release of private data (a declared, reviewed list)
FLOAT_CALLS_ALLOWED: dict[tuple[str, str], str] = {
    ("semiprivate.theory.privacy.random_stopping", ".random("):
        "K ~ D_{eta,gamma} by inversion of one float uniform: K is not released; its law is within float rounding "
        "of D_{eta,gamma} (documented caveat)",
    ("semiprivate.theory.privacy.sanitizers", ".choice(p="):
        "synthetic points drawn from the released noisy histogram's weights: post-processing of a release",
    ("semiprivate.theory.learners.reduction", ".random("):
        "PrivSamp's Bernoulli(p) coins by a float uniform (p = 1/(100 n_pub) >= 2^-53: no event gets probability "
        "0; the law differs from Bernoulli(p) by float rounding); a known gap (ARCHITECTURE.md)",
    ("semiprivate.theory.privacy.exponential", "exponential_mechanism( without exact=True"):
        "sample_log_weights itself (the documented float sampler for non-release uses)",
    ("semiprivate.theory.privacy.seeds", "import secrets"):
        "the seed record's MAC key (32 bytes from the OS, drawn once per process): a key, never a coin of a release",
}


#: functions that turn an integer draw into a float (Mironov's float Laplace is -s log(U) of an integer U/2^53)
FLOAT_OF_INTEGER = frozenset({"log", "log1p", "log2", "log10", "exp", "expm1", "sqrt", "float", "true_divide",
                              "divide", "power", "float64", "float32", "ldexp", "frombuffer", "fromstring"})
#: libraries with their own random samplers (outside the RNG discipline and the exact samplers)
OTHER_SAMPLER_LIBRARIES = frozenset({"torch", "jax", "tensorflow"})
#: generator methods that give exact integers or bits (their results must stay integers in a release module)
INTEGER_DRAWS = frozenset({"integers", "bytes", "random_raw", "randbits", "randbelow"})
#: stdlib modules of randomness outside the RNG discipline (no child streams, no seed record)
STDLIB_RANDOM = frozenset({"random", "secrets"})


def _float_draw_methods() -> frozenset[str]:
    return GENERATOR_METHODS - EXACT_GENERATOR_METHODS


def _mentions_float(node: ast.AST) -> bool:
    """Whether an expression names a float type (``np.float64``, ``float``, ``"f8"``, ``"float32"``)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and "float" in n.id or isinstance(n, ast.Attribute) and "float" in n.attr:
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and (n.value.startswith("f")
                                                                          or "float" in n.value):
            return True
    return False


def _is_float_of(node: ast.AST) -> bool:
    """A division, power, product with a non-integer float constant, float cast or reinterpretation, or a
    float-valued function applied to ``node``'s value."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Pow):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for side in (node.left, node.right):
            for n in ast.walk(side):
                if isinstance(n, ast.Constant) and isinstance(n.value, float):
                    return True
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name in ("astype", "view") and any(_mentions_float(a) for a in [*node.args, *node.keywords]):
            return True
        return name in FLOAT_OF_INTEGER
    return False


def _generator_name(name: str) -> bool:
    low = name.lower()
    return low in ("g", "gen", "rng", "generator") or low.endswith(("rng", "gen", "stream", "generator"))


def release_float_calls(source: str) -> list[tuple[int, str]]:
    """(line, call) of every float-derived draw in a release module.

    Calls and references alike (``draw = g.laplace`` is found at the reference): a Generator method outside
    EXACT_GENERATOR_METHODS, ``getattr(g, "normal")``, ``.choice(..., p=...)``, ``.rvs(``, ``from numpy.random
    import ...``, the stdlib ``random`` and ``secrets`` modules, the float samplers ``sample_log_weights`` and
    ``exponential_mechanism`` without ``exact=True``, and float noise built from integer draws (an integer draw
    divided, raised to a power or passed to log/exp/sqrt/float, directly or through a name assigned from it in
    the same function).
    """
    tree = _parse(source)
    parent: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[id(child)] = node
    floats = _float_draw_methods()
    out = []

    def exact_kw(call: ast.Call) -> bool:
        return any(k.arg == "exact" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in call.keywords)

    def integer_draw(node: ast.AST) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in INTEGER_DRAWS)

    def floated(node: ast.AST) -> bool:
        """Whether an expression containing ``node`` is turned into a float before its statement ends."""
        up = parent.get(id(node))
        while up is not None and not isinstance(up, ast.stmt):
            if _is_float_of(up):
                return True
            up = parent.get(id(up))
        return False

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "numpy.random":
            out.append((node.lineno, "from numpy.random import"))
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for n in names:
                if n.split(".")[0] in STDLIB_RANDOM | OTHER_SAMPLER_LIBRARIES:
                    out.append((node.lineno, f"import {n}"))
        if isinstance(node, ast.Name) and node.id in OTHER_SAMPLER_LIBRARIES and isinstance(node.ctx, ast.Load):
            out.append((node.lineno, f"{node.id}."))  # a sampler library used without an import in sight
        if isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            # a method picked by a name: methodcaller('laplace'), g.__getattribute__('normal')
            if fname in ("methodcaller", "__getattribute__") and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value in floats:
                out.append((node.lineno, f"{fname}({node.args[0].value!r})"))
            # getattr on a generator with a computed name: what it draws cannot be read here (a generator by its
            # name: g, gen, rng, generator, or a name ending in rng/gen/stream)
            if fname == "getattr" and len(node.args) >= 2 and not isinstance(node.args[1], ast.Constant) \
                    and isinstance(node.args[0], ast.Name) and _generator_name(node.args[0].id):
                out.append((node.lineno, "getattr(generator, <computed name>)"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "sample_log_weights":
                out.append((node.lineno, "sample_log_weights("))
            elif node.func.id == "exponential_mechanism" and not exact_kw(node):
                out.append((node.lineno, "exponential_mechanism( without exact=True"))
            elif (node.func.id == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                  and node.args[1].value in floats | {"exponential_mechanism", "sample_log_weights"}):
                out.append((node.lineno, f"getattr(..., {node.args[1].value!r})"))
        if integer_draw(node) and floated(node):
            out.append((node.lineno, f"float of .{node.func.attr}(")) # type: ignore[attr-defined]
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        up = parent.get(id(node))
        called = isinstance(up, ast.Call) and up.func is node
        if isinstance(up, ast.Attribute):
            continue  # a module or namespace on the way (np.random.default_rng): not a method reference
        if attr == "choice":
            if called and (any(k.arg == "p" for k in up.keywords) or len(up.args) >= 4):  # type: ignore[union-attr]
                out.append((node.lineno, ".choice(p="))
        elif attr == "exponential_mechanism":
            if not called or not exact_kw(up):  # type: ignore[arg-type]
                out.append((node.lineno, "exponential_mechanism( without exact=True"))
        elif attr == "sample_log_weights":
            out.append((node.lineno, "sample_log_weights("))
        elif attr in floats:
            if called:
                out.append((node.lineno, f".{attr}("))
            elif not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                out.append((node.lineno, f".{attr} (reference)"))  # self.gamma is a parameter, not a method
    # names assigned from an integer draw, later made floats in the same function
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        def targets(a: ast.Assign) -> set[str]:
            out_: set[str] = set()
            for t in a.targets:
                out_ |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}  # tuple unpacking too
            return out_

        assigns = [a for a in ast.walk(fn) if isinstance(a, ast.Assign)]
        names = {t for a in assigns if integer_draw(a.value) for t in targets(a)}
        grown = True
        while grown:  # through other names: x = r, then x / 2**64
            new_names = {t for a in assigns if isinstance(a.value, ast.Name) and a.value.id in names
                         for t in targets(a)} - names
            names |= new_names
            grown = bool(new_names)
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load) and floated(n):
                out.append((n.lineno, f"float of .{n.id} (an integer draw)"))
    return out


def _release_module(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in RELEASE_PACKAGES) and not _allowed(module)


def test_release_modules_draw_only_exact_integers_and_bits() -> None:
    found = [f"{m}:{line}: {call}" for m, path in MODULES.items() if _release_module(m)
             for line, call in release_float_calls(_source(path)) if (m, call) not in FLOAT_CALLS_ALLOWED]
    assert not found, ("float-derived draw in a release module (use kernels.noise or integers/bytes, or declare it "
                       f"with its reason in FLOAT_CALLS_ALLOWED): {found}")


def test_every_declared_float_call_still_exists() -> None:
    stale = [(m, c) for (m, c) in FLOAT_CALLS_ALLOWED
             if m not in MODULES or c not in {call for _, call in release_float_calls(_source(MODULES[m]))}]
    assert not stale, f"FLOAT_CALLS_ALLOWED names calls that are gone (remove them): {stale}"


@pytest.mark.parametrize("source", [
    "def f(g):\n    u = g.random()\n    return -np.log(u)\n",
    "def f(g):\n    return g.uniform(0, 1)\n",
    "from scipy import stats\ndef f(g):\n    return stats.laplace.rvs(random_state=g)\n",
    "def f(g, p):\n    return g.random(5) < p\n",
    "def f(g, w):\n    return g.choice(3, p=w)\n",
    "def f(g):\n    return g.standard_t(3) + g.weibull(2) + g.multivariate_normal([0], [[1]])\n",
    "from numpy.random import laplace\n",
    "def f(g, w):\n    return g.choice(3, 1, True, w)\n",
    "def f(s, e, g):\n    return kernels.exponential_mechanism(s, e, rng=g)\n",
    "def f(w, g):\n    return sample_log_weights(w, rng=g)\n",
    "def f(g):\n    draw = g.laplace\n    return draw(0, 1)\n",                     # an alias of a method
    "def f(g):\n    return getattr(g, 'normal')(0, 1)\n",                         # getattr by name
    "import random\ndef f():\n    return random.gauss(0, 1)\n",                  # stdlib random
    "def f():\n    import random\n    return random.random()\n",
    "import secrets\ndef f():\n    return secrets.randbelow(10)\n",               # stdlib secrets
    "from random import gauss\n",
    "def f(g, s):\n    return -s * np.log(g.integers(1, 2**53) / 2**53)\n",       # Mironov's float from integers
    "def f(g, s):\n    u = g.integers(1, 2**53)\n    return -s * np.log(u / 2**53)\n",
    "def f(g):\n    return float(g.integers(2**53)) * 2.0**-53\n",
    "def f(s, e, g):\n    m = kernels.exponential_mechanism\n    return m(s, e, rng=g)\n",
    # float noise spelled eleven more ways: casts, products, reinterpretations, names picked at run time
    "def f(g, s):\n    u = g.integers(1, 2**53).astype(np.float64) * 2.0**-53\n    return -s * np.log(u)\n",
    "def f(g, s):\n    u = g.integers(1, 2**53) * 2.0**-53\n    return -s * np.log(u)\n",
    "def f(g, s):\n    u, v = g.integers(1, 2**53, size=2)\n    return -s * np.log(u / 2**53)\n",
    "def f(g, s):\n    u = math.ldexp(g.integers(1, 2**53), -53)\n    return -s * np.log(u)\n",
    "def f(g):\n    return np.frombuffer(g.bytes(8), dtype=np.float64)\n",
    "def f(g):\n    return g.integers(0, 2**62, size=3).view(np.float64)\n",
    "def f(g):\n    return operator.methodcaller('laplace', 0, 1)(g)\n",
    "def f(g):\n    return g.__getattribute__('normal')(0, 1)\n",
    "def f(g):\n    name = 'normal'\n    return getattr(g, name)(0, 1)\n",
    "def f(s):\n    return torch.distributions.Laplace(0.0, s).sample()\n",
    "def f(g):\n    r = g.bit_generator.random_raw()\n    x = r\n    return np.log(x / 2**64)\n",
])
def test_a_float_derived_draw_in_a_release_module_is_found(source: str) -> None:
    assert release_float_calls(source)


def test_exact_integer_draws_are_not_float_draws() -> None:
    assert not release_float_calls("def f(g):\n    return g.integers(3), g.bytes(8), g.permutation(4), g.choice(4)\n")
    assert not release_float_calls("import numpy as np\ndef f(g):\n    k = g.integers(3)\n    return k + 1, "
                                   "np.random.default_rng(int(g.integers(2**32)))\n")


def counting_caches(source: str) -> list[tuple[int, str]]:
    """(line, name) of every use of ``functools.lru_cache`` / ``functools.cache`` in ``source`` (decorator, call or
    import): their ``cache_info()`` counts calls, so on a release's path it counts runs (random stopping's hidden
    K). The package's cache is ``semiprivate.kernels._memo.memo``, which keeps no count."""
    out = []
    for node in ast.walk(_parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache") and isinstance(node.value, ast.Name) \
                and node.value.id == "functools":
            out.append((node.lineno, f"functools.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "functools":
            out += [(node.lineno, f"from functools import {a.name}") for a in node.names if a.name in ("lru_cache", "cache")]
    return out


def test_no_counting_cache_in_the_package() -> None:
    found = [f"{m}:{line}: {name}" for m, path in MODULES.items() for line, name in counting_caches(_source(path))]
    assert not found, ("a cache that counts its calls (cache_info) can count a release's runs: use "
                       "semiprivate.kernels._memo.memo, which keeps results only:\n" + "\n".join(found))


@pytest.mark.parametrize("source", [
    "import functools\n@functools.lru_cache(maxsize=1)\ndef f():\n    return 1\n",
    "import functools\n@functools.cache\ndef f():\n    return 1\n",
    "from functools import lru_cache\n",
    "import functools\ng = functools.lru_cache(None)(len)\n",
])
def test_a_deliberate_counting_cache_is_found(source: str) -> None:
    assert counting_caches(source)


#: Containers a module binds empty at import and fills at run time.
_EMPTY_CONTAINERS = frozenset({"dict", "list", "set", "deque", "OrderedDict", "defaultdict", "Counter",
                               "WeakKeyDictionary", "WeakValueDictionary", "WeakSet"})

#: Module-level state filled at run time that is not a cache, with its reason.  Every process-wide cache is a
#: registered table (``semiprivate.kernels._memo.memo_table``, or ``memo``), which random stopping puts back after
#: its runs: a cache outside the registry keeps the keys of the candidates that ran, so the hidden number of runs K
#: (``tests/theory/privacy/release/test_memo_registry.py`` checks the same by running the learners).
MODULE_STATE_NOT_A_CACHE = {
    "semiprivate.kernels._memo._TABLES": "the registry of memo tables itself (one entry per table, never per call)",
    "semiprivate.theory.bounds._core.REGISTRY": "the bounds, registered at import",
    "semiprivate.theory.learner_checks._VISITED": "a stack of the checks' visited sets, one per open experiment",
    "semiprivate.theory.privacy.seeds._RECORD": "the seed record: it protects releases (dropping an entry would let "
    "one seed serve two); its content after random stopping does not depend on K",
    "semiprivate.theory.privacy._release._SENTINEL_ROWS": "the public-rows check's record; random stopping drops its "
    "own runs' entries after them (_release.sentinel_rows_kept)",
    "semiprivate.validation._REGISTRY": "the validated callables, registered at import",
    "semiprivate.validation.COIN_OBSERVERS": "the coin observers, registered at import",
    "semiprivate.proofs_checks._framework._RUNNING": "the stack of checks running (cycle detection)",
    "semiprivate.proofs_checks._framework._OVERRIDES": "the active perturbations (a setting, not a cache)",
    "semiprivate.proofs_checks._framework._REGISTRY": "the checks, registered at import",
    "semiprivate.proofs_checks._framework._LOG": "the stack of fact logs of the checks running",
    # caches outside the registry, by design: the certificate checker imports nothing of the project
    # (tests/proofs_checks/test_certificates.py::test_checker_is_independent_of_the_project), and no learner calls it
    "semiprivate.proofs_checks.certificate_checker._MEMO": "the independent certificate checker's results",
    "semiprivate.proofs_checks.certificate_checker._PARSED": "the independent certificate checker's parsed texts",
    "semiprivate.proofs_checks.certificate_checker._TREES": "the independent certificate checker's per-tree forms",
}


def module_state(source: str) -> list[tuple[int, str]]:
    """(line, name) of every module-level name bound to an empty container (``{}``, ``[]``, ``dict()``,
    ``collections.deque(maxlen=...)``, a weak dictionary...): state a module fills at run time.  Dunder names
    (``__all__``) are not state."""
    out = []
    for node in _parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        empty = (isinstance(value, ast.Dict) and not value.keys) or (isinstance(value, ast.List) and not value.elts) \
            or (isinstance(value, ast.Call) and not value.args and all(k.arg == "maxlen" for k in value.keywords) and (
                (isinstance(value.func, ast.Name) and value.func.id in _EMPTY_CONTAINERS)
                or (isinstance(value.func, ast.Attribute) and value.func.attr in _EMPTY_CONTAINERS)))
        if empty:
            out += [(node.lineno, t.id) for t in targets if isinstance(t, ast.Name) and not t.id.startswith("__")]
    return out


def test_every_module_level_cache_is_a_registered_memo_table() -> None:
    found = [f"{m}.{name} (line {line})" for m, path in MODULES.items() for line, name in module_state(_source(path))
             if f"{m}.{name}" not in MODULE_STATE_NOT_A_CACHE]
    assert not found, ("module-level state filled at run time outside the memo registry: random stopping cannot put "
                       "it back, and its keys would show which candidates ran (the hidden K). Make a cache with "
                       "semiprivate.kernels._memo.memo_table, or list state that is not a cache in "
                       "MODULE_STATE_NOT_A_CACHE with its reason:\n" + "\n".join(found))
    stale = [k for k in MODULE_STATE_NOT_A_CACHE
             if k.rpartition(".")[2] not in {n for _, n in module_state(_source(MODULES[k.rpartition(".")[0]]))}]
    assert not stale, f"MODULE_STATE_NOT_A_CACHE names state that is gone: {stale}"


#: Module globals a function rebinds (``global NAME``), with the reason each is not state a run leaves behind.  A
#: value built on first use and kept in a global (a controller, a flag "notice given") shows that some run reached
#: it: after a search that hides its number of runs, which candidates ran.  Such a value is a registered memo
#: (``semiprivate.kernels._memo.memo`` / ``memo_table``), which the search puts back.
GLOBALS_REBOUND = {
    "semiprivate.SOURCE_CHECKOUT_MESSAGE": "set once at import, when a source checkout hands over to an installed copy",
    "semiprivate.kernels._backend._FORKED_AFTER_OPENMP": "set in the child of a fork (os.register_at_fork), never by "
    "a run",
    "semiprivate.proofs_checks.report._CACHE": "the proof-check report's results; no learner or mechanism calls it",
}


def global_rebinds(source: str) -> list[tuple[int, str]]:
    """(line, name) of every ``global NAME`` statement in ``source`` (a function that rebinds a module global)."""
    return [(node.lineno, name) for node in ast.walk(_parse(source)) if isinstance(node, ast.Global)
            for name in node.names]


def test_every_module_global_a_function_rebinds_is_listed_with_its_reason() -> None:
    found = {f"{m}.{name}": f"{m}.{name} (line {line})" for m, path in MODULES.items()
             for line, name in global_rebinds(_source(path))}
    unlisted = [where for key, where in sorted(found.items()) if key not in GLOBALS_REBOUND]
    assert not unlisted, ("a module global rebound by a function (a value built on first use shows which runs "
                          "reached it): make it a registered memo (semiprivate.kernels._memo.memo or memo_table), or "
                          "list it in GLOBALS_REBOUND with its reason:\n" + "\n".join(unlisted))
    stale = sorted(set(GLOBALS_REBOUND) - set(found))
    assert not stale, f"GLOBALS_REBOUND names globals no function rebinds any more: {stale}"


def test_a_global_rebound_on_first_use_is_found() -> None:
    assert global_rebinds("_C = None\ndef controller():\n    global _C\n    if _C is None:\n        _C = object()\n"
                          "    return _C\n") == [(3, "_C")]
    assert not global_rebinds("_C = None\ndef read():\n    return _C\n")


@pytest.mark.parametrize("source", [
    "_CACHE = {}\n",
    "_CACHE: dict[str, int] = {}\n",
    "_SEEN = []\n",
    "import collections\n_RECENT = collections.deque(maxlen=8)\n",
    "import weakref\n_BY_CLASS = weakref.WeakKeyDictionary()\n",
    "_A = _B = dict()\n",
])
def test_a_deliberate_unregistered_cache_is_found(source: str) -> None:
    assert module_state(source)


def test_a_registered_table_and_constants_are_not_state() -> None:
    assert not module_state("from semiprivate.kernels._memo import memo_table\n_T = memo_table('m._T')\n"
                            "NAMES = {'a': 1}\nRULES = dict(a=1)\n__all__: list[str] = []\nPAIR = (1, 2)\n")

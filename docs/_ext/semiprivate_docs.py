"""Sphinx extension of the semiprivate docs: pages generated at every build, so they cannot drift.

* ``generated/api/<module>.rst``: one page per public module (every module of the package whose
  name has no leading underscore and that defines ``__all__``), documenting every name of its
  ``__all__``; an object re-exported from another documented module is documented again with
  ``:no-index:`` (one canonical target per object, the defining module when it is public).
* ``generated/papers/<KEY>.rst``: one page per paper (BNS15, ABM19, HPSY, PILLAR) and one for the
  classic items, from :func:`semiprivate.theory.spec.build_index`: each SPEC id with its
  reference, the code that implements it, the tests and the proof checks that cover it.

Cross-references: a reference Sphinx cannot resolve is linked to where autodoc documents the object
(``resolve_own_reference``); the Python domain answers its "fuzzy" searches (the type of every parameter
field: ``float``, ``numpy.ndarray``, ...) from an index of the documented names' dotted suffixes instead of
a scan of every documented object per reference (about 19,000 such searches, most for names documented
nowhere, were a quarter of the build).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.domains.python import PythonDomain

PAPER_PAGES = {
    "BNS15": "Beimel, Nissim, Stemmer (SODA 2015): Learning privately with labeled and unlabeled examples",
    "ABM19": "Alon, Bassily, Moran (NeurIPS 2019): Limits of private learning with access to public data",
    "HPSY": "Hu, Pinto, Sanyal, Yang: Semi-private learning via low dimensional structures",
    "PILLAR": "Pinto, Hu, Yang, Sanyal: PILLAR: How to make semi-private learning more effective",
}
OTHER_PAGE = "classic"


def public_modules() -> list[str]:
    """Every module of ``semiprivate`` without a leading underscore in its name that defines ``__all__``.

    The sub-packages ``semiprivate.kernels``, ``.theory`` and ``.proofs_checks`` live in folders of their
    own (setup.py's PACKAGE_DIRS), so they are not under ``semiprivate.__path__`` in an editable
    install: the walk starts from each of them explicitly.
    """
    import semiprivate

    found: list[str] = []

    def walk(name: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(name)
        if module.__name__ != name:  # a deprecated name of a module documented under its own name
            return
        if getattr(module, "__all__", None) is not None and name not in found:
            found.append(name)
        for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
            if not info.name.startswith("_"):
                walk(f"{name}.{info.name}")

    walk("semiprivate")
    for sub in semiprivate._SUBPACKAGES:
        walk(f"semiprivate.{sub}")
    return found


def _write(path: Path, text: str) -> None:
    """Write only when the text changed (Sphinx then rebuilds only what changed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def _directive(obj: Any) -> str:
    if inspect.isclass(obj):
        return "autoclass"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj):
        return "autofunction"
    if inspect.ismodule(obj):
        return ""
    if callable(obj) and hasattr(obj, "__wrapped__"):
        return "autofunction"
    return "autodata"


def _api_pages(out: Path) -> None:
    modules = public_modules()
    canonical: dict[int, str] = {}
    for name in modules:  # the defining module, when public, owns an object's target
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if getattr(obj, "__module__", None) == name and _directive(obj) in ("autoclass", "autofunction"):
                canonical.setdefault(id(obj), name)
    index = [_title("API reference"), "Every public module of ``semiprivate`` and every name of its ``__all__``.",
             "Modules whose name starts with an underscore are internal.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    for name in modules:
        module = importlib.import_module(name)
        lines = [_title(f"``{name}``"), f".. automodule:: {name}", "   :no-members:", ""]
        for attr in module.__all__:
            obj = getattr(module, attr)
            kind = _directive(obj)
            if not kind:
                lines += [f".. py:data:: {name}.{attr}", "   :no-index:", "",
                          f"   The module :mod:`{obj.__name__}`.", ""]
                continue
            owner = canonical.setdefault(id(obj), name) if kind != "autodata" else name
            lines.append(f".. {kind}:: {name}.{attr}")
            if owner != name:
                lines.append("   :no-index:")
            if kind == "autoclass":
                lines.append("   :members:")
            if kind == "autodata":
                lines.append("   :no-value:")
            lines.append("")
        _write(out / f"{name}.rst", "\n".join(lines))
        index.append(f"   {name}")
    _write(out / "index.rst", "\n".join(index) + "\n")
    for stale in set(out.glob("*.rst")) - {out / f"{name}.rst" for name in modules} - {out / "index.rst"}:
        stale.unlink()  # the page of a module that is gone or renamed (an earlier build's)


def _bullets(items: list[str], *, code: bool = False) -> list[str]:
    """A bullet list; ``code=True`` links each object to its API entry (plain text where it has none)."""
    if code:
        return [f"- :py:obj:`{item}`" for item in items] or ["- none"]
    return [f"- ``{item}``" for item in items] or ["- none"]


def _paper_pages(out: Path) -> None:
    from semiprivate.theory.spec import build_index

    entries = build_index()
    pages: dict[str, list[Any]] = {key: [] for key in [*PAPER_PAGES, OTHER_PAGE]}
    for entry in entries:
        key = entry.id.split(".")[0]
        pages[key if key in PAPER_PAGES else OTHER_PAGE].append(entry)
    index = [_title("The papers"), "One page per paper: every SPEC id with the code that implements it, the "
             "tests and the machine proof checks that cover it.  Generated from the SPEC index "
             "(``semiprivate spec``) at every build of this site.", "", ".. toctree::", "   :maxdepth: 1", ""]
    for key, items in pages.items():
        heading = f"{key}: {PAPER_PAGES[key]}" if key in PAPER_PAGES else "Classic items (EXPMECH, KLNRS, COMB, BST14, AUDIT)"
        done = sum(bool(e.implemented_by) for e in items)
        lines = [_title(heading), f"{len(items)} items, {done} implemented.  Run ``semiprivate cite "
                 f"{key}`` for the BibTeX entry." if key in PAPER_PAGES else f"{len(items)} items, {done} implemented.",
                 ""]
        for e in items:
            lines += [_title(e.id, "-"), e.reference.replace("*", r"\*").replace("|", r"\|") or "(no reference)", "",
                      "Code:", "", *_bullets(e.implemented_by, code=True), "",
                      "Tests:", "", *_bullets(e.tests), "",
                      "Proof checks:", "", *_bullets(e.checks), ""]
        _write(out / f"{key}.rst", "\n".join(lines))
        index.append(f"   {key}")
    _write(out / "index.rst", "\n".join(index) + "\n")


# left as they are: literals, roles, links, **strong** and *emphasis* written as such
_LITERAL = re.compile(r"(``.+?``|:\w+:`[^`]+`|`[^`]+`_?|\*\*(?=\S).+?(?<=\S)\*\*"
                      r"|(?<![\w*])\*(?=[^\s*])[^*]*?(?<=[^\s*])\*(?![\w*]))")
_BULLET = re.compile(r"^(\s*[*-] )")
_BAR = re.compile(r"(?<!\\)\|")
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=[\s.,;:)\]}]|$)")
_LONE_STAR = re.compile(r"(?<!\\)\*")


def _escape_text(text: str) -> str:
    """Escape the characters reST would read as markup in the toolkit's plain-text formulas.

    ``|S|`` (set sizes) would be substitution references, ``privacy_`` (fitted attributes) a
    link target, ``t*`` an unclosed emphasis.  Literals, roles, emphasis written as such and
    list bullets are left alone.
    """
    bullet = _BULLET.match(text)
    head = bullet.group(1) if bullet else ""
    parts = _LITERAL.split(text[len(head):])
    for i in range(0, len(parts), 2):  # even indices: outside literals and roles
        part = _BAR.sub(r"\\|", parts[i])
        part = _TRAILING_UNDERSCORE.sub(r"\\_", part)
        parts[i] = _LONE_STAR.sub(r"\\*", part)
    return head + "".join(parts)


def escape_plain_math(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """``autodoc-process-docstring``: the docstrings are written as plain text with formulas such as
    ``|Pi_C(B)| <= (e|B|/d)^d``; escape what reST would parse as markup, outside doctest examples,
    literal blocks and literals, before napoleon reads the sections."""
    mode = ""  # "doctest": a >>> example and its output, up to a blank line; "literal": after "::"
    literal_indent = 0
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if mode == "doctest":
            if not stripped:
                mode = ""
            continue
        if mode == "literal":
            if not stripped or indent > literal_indent:
                continue
            mode = ""
        if stripped.startswith(">>>"):
            mode = "doctest"
            continue
        lines[i] = _escape_text(line)
        if stripped.endswith("::"):
            mode, literal_indent = "literal", indent


_FIELD_SECTIONS = {"Parameters", "Other Parameters", "Returns", "Yields", "Raises", "Warns", "Attributes"}


def separate_trailing_prose(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """``autodoc-process-docstring``: two layouts napoleon misreads in NumPy field sections
    (Parameters, Returns, ...): a paragraph after the section with no heading of its own (read as
    more fields: it gets a "Notes" heading, where NumPy's docstring standard puts such remarks),
    and a list of names wrapped over two lines (joined into one)."""
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and set(nxt.strip()) == {"-"} and len(nxt.strip()) == len(line.strip()):
            section = line.strip()
            i += 2
            continue
        if (section in _FIELD_SECTIONS and line.rstrip().endswith(",") and not line[:1].isspace()
                and nxt.strip() and not nxt[:1].isspace()):
            lines[i:i + 2] = [line.rstrip() + " " + nxt.strip()]
            continue
        prose = (section in _FIELD_SECTIONS and i > 0 and not lines[i - 1].strip() and line.strip()
                 and not line[0].isspace() and " : " not in line and " " in line.strip()
                 and not nxt[:1].isspace())
        if prose:
            lines[i:i] = ["Notes", "-----", ""]
            section = "Notes"
            i += 3
        i += 1


def drop_type_docstrings(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """A module constant (a dict, a tuple) has no docstring of its own; autodoc would show its type's
    (``dict.__doc__``).  Leave it empty: the constant's meaning is in its module's docstring."""
    type_doc = type(obj).__doc__
    if what in ("data", "attribute") and lines and isinstance(type_doc, str) \
            and "\n".join(lines).strip() == inspect.cleandoc(type_doc).strip():
        lines.clear()


_SKLEARN_REQUEST = re.compile(r"set_\w+_request$")


def skip_foreign_members(app: Sphinx, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """Leave out the ``set_*_request`` methods scikit-learn adds to every estimator (documented by
    scikit-learn, with references into its own glossary)."""
    if _SKLEARN_REQUEST.match(name) and not getattr(obj, "__module__", "").startswith("semiprivate"):
        return True
    return None


def generate(app: Sphinx) -> None:
    src = Path(app.srcdir) / "generated"
    _api_pages(src / "api")
    _paper_pages(src / "papers")


def _lookup(dotted: str) -> Any:
    """The object named ``dotted`` (the longest importable module prefix, then attributes), or a
    sentinel ``_MISSING`` when no such object exists."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - not a module (or not importable): try a shorter prefix
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return _MISSING
            obj = getattr(obj, attr)
        return obj
    return _MISSING


_MISSING = object()


def _home(obj: Any) -> list[str]:
    """Where autodoc documents ``obj``: its defining module + qualified name (and the module itself)."""
    if inspect.ismodule(obj):
        return [obj.__name__]
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return [f"{mod}.{qual}"] if mod and qual else []


def dotted_suffixes(domain: PythonDomain) -> dict[str, list[str]]:
    """Every dotted suffix of the names ``domain`` documents (``a.b.c``: ``a.b.c``, ``b.c``, ``c``), each with
    the names that end with it, in ``domain.objects``'s order.  Made again when the objects change (they are
    added while the pages are read; references are resolved after)."""
    key = (id(domain.objects), len(domain.objects))
    made = getattr(domain, "_semiprivate_suffixes", None)
    if made is None or made[0] != key:
        index: dict[str, list[str]] = {}
        for full in domain.objects:
            parts = full.split(".")
            for i in range(len(parts)):
                index.setdefault(".".join(parts[i:]), []).append(full)
        made = (key, index)
        domain._semiprivate_suffixes = made  # type: ignore[attr-defined]
    return made[1]


class IndexedPythonDomain(PythonDomain):
    """Sphinx's Python domain, with its fuzzy search (``searchmode=1``) answered at once when no documented
    name equals the target or ends with ``"." + target``: every match of that search (the module- and
    class-qualified names, the name itself, the names ending with it) is such a name, so the answer is the
    same empty list the scan would give."""

    def find_obj(self, env: Any, modname: str, classname: str, name: str, type: str | None,
                 searchmode: int = 0) -> list[tuple[str, Any]]:
        bare = name.removesuffix("()")
        if searchmode == 1 and bare and bare not in dotted_suffixes(self):
            return []
        return super().find_obj(env, modname, classname, name, type, searchmode)


def resolve_own_reference(app: Sphinx, env: Any, node: Any, contnode: Any) -> Any:
    """A Python cross-reference Sphinx could not resolve, to an object of this package: link it to where
    autodoc documents the object (a re-export such as ``semiprivate.theory.audit.vectorize`` is documented
    in its defining module), or, for an object that exists but is not documented (a private helper or
    module), keep it as code without a link.  A reference to a name that does not exist stays unresolved,
    and the nitpicky ``-W`` build fails on it."""
    from sphinx.util.nodes import make_refnode

    if node.get("refdomain") != "py":
        return None
    target = str(node.get("reftarget", "")).lstrip("~.")
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [target, f"semiprivate.{target}"]
    if module:
        candidates += ([f"{module}.{cls}.{target}"] if cls else []) + [f"{module}.{target}"]
    domain = env.get_domain("py")
    for name in candidates:
        if not name.startswith("semiprivate"):
            continue
        obj = _lookup(name)
        if obj is _MISSING:
            continue
        for home in [name, *_home(obj)]:
            found = domain.objects.get(home)
            if found is not None:
                return make_refnode(app.builder, node["refdoc"], found.docname, found.node_id, contnode, home)
        return contnode  # exists, not documented (private): shown as code
    # a short name used in another module's docstring (``audit_mechanism`` in the result module): the one
    # documented object of this package whose name ends with it, as Sphinx's own ".name" search does
    ends = [k for k in dotted_suffixes(domain).get(target, []) if k.startswith("semiprivate.") and k != target]
    if len(ends) == 1:
        found = domain.objects[ends[0]]
        return make_refnode(app.builder, node["refdoc"], found.docname, found.node_id, contnode, ends[0])
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_domain(IndexedPythonDomain, override=True)
    app.connect("builder-inited", generate)
    app.connect("missing-reference", resolve_own_reference)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("autodoc-process-docstring", drop_type_docstrings, priority=90)
    app.connect("autodoc-process-docstring", escape_plain_math, priority=100)
    app.connect("autodoc-process-docstring", separate_trailing_prose, priority=110)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

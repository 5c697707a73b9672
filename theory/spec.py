"""The index of the paper items the toolkit implements: ``python -m semiprivate spec [--json]``.

Every item of the four papers (and of the classic results they use) has an id such as
``ABM19.Lem3.3``; the code names the items it implements in its docstrings with an
``Implements: ABM19.Lem3.3`` line.  This module builds the index **from those lines, at run
time**, so it cannot drift from the code:

* ``implemented_by`` -- every module, class or function under ``theory/`` and ``kernels/`` whose
  docstring has an ``Implements:`` line naming the id (found by parsing the sources, nothing is
  imported; a module written later appears automatically);
* ``tests`` -- the test functions under ``tests/`` that name the id or call an object implementing
  it: scanned in a source checkout, read from :data:`TESTS_DATA` (``spec_tests.json``, generated
  from the same scan by ``semiprivate spec --update-tests-data`` and shipped with the package) in an
  installed copy, which has no ``tests/``; a test checks that the shipped data matches the scan;
* ``checks`` -- the machine checks of :mod:`proofs_checks` registered under the id (check ids
  start with the item id);
* ``reference`` -- the paper and item (``ABM19 Lemma 3.3``) and, for the planned items, the
  statement in one line.

Items that are planned but not implemented yet are listed with an empty ``implemented_by``:
:data:`PLANNED` ships the item list of the project's specification, so the index works in a
clone or an installed copy that does not have that file.

Implements: AUDIT (traceability: the generated index of SPEC ids, code, tests and checks).

Examples
--------
>>> items = {e.id: e for e in build_index(tests=False, checks=False)}
>>> any(o.endswith("abm19_public_sample_size") for o in items["ABM19.Lem3.3"].implemented_by)
True
>>> items["ABM19.Lem3.3"].reference
'ABM19 Lemma 3.3: P[H~ not an alpha-cover] <= 2 (2e n_pub/d)^(2d) exp(-alpha n_pub/4); smallest n_pub solved exactly'
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["SpecEntry", "PLANNED", "PAPERS", "ALIASES", "TESTS_DATA", "reference", "parse_implements", "build_index",
           "format_index", "scan_tests", "write_tests_data", "SUMMARY", "main"]

#: the tests column as generated data (id -> test ids), for installed copies without ``tests/``
TESTS_DATA = Path(__file__).resolve().parent / "spec_tests.json"

SUMMARY = "list the paper items (SPEC ids) implemented, with their code, tests and proof checks"

#: Paper keys of the ids.
PAPERS: dict[str, str] = {
    "ABM19": "Alon, Bassily, Moran: Limits of private learning with access to public data (NeurIPS 2019)",
    "BNS15": "Beimel, Nissim, Stemmer: Learning privately with labeled and unlabeled examples",
    "HPSY": "Hu, Pinto, Sanyal, Yang: Semi-private learning via low dimensional structures",
    "PILLAR": "Pinto, Hu, Yang, Sanyal: PILLAR: How to make semi-private learning more effective",
    "BST14": "Bassily, Smith, Thakurta 2014: private empirical risk minimisation (noisy SGD)",
    "KLNRS": "Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith: What can we learn privately?",
    "COMB": "combinatorics of concept classes (BNS15 App. B, Sauer-Shelah)",
}

#: The items of the project's specification (id -> one-line statement), shipped with the package
#: so that planned-but-unimplemented items are listed in any copy.
PLANNED: dict[str, str] = {
    "COMB.Projection": "Pi_C(B), the dichotomies C realises on points B, by the structure of each class",
    "COMB.VC": "VC dimension by shattering search; closed forms for the structured classes",
    "COMB.Sauer": "Sauer-Shelah: |Pi_C(B)| <= sum_{i<=VC} C(|B|,i) <= (e|B|/VC)^VC; exact growth function",
    "COMB.XorClass": "C_xor = {h xor f}: |Pi_Cxor(B)| <= |Pi_C(B)|^2, VC(C_xor) <= 10 VC(C) (BNS15 Obs 3.2)",
    "ABM19.Def2.7": "alpha-cover of H w.r.t. D_X; empirical cover check",
    "ABM19.Alg1.cover": "Alg 1 steps 1-5: distinct points of T_pub, Pi_H, one representative per dichotomy",
    "ABM19.Lem3.3": "P[H~ not an alpha-cover] <= 2 (2e n_pub/d)^(2d) exp(-alpha n_pub/4); smallest n_pub solved exactly",
    "EXPMECH": "exponential mechanism, q = -#errors (sensitivity 1); utility BNS15 Prop A.1; exact distribution",
    "KLNRS.Generic": "exponential mechanism over a finite H: m = O((log|H| + log(1/beta))/(alpha eps))",
    "Structured EXPMECH": "exact O(m log m) exponential mechanism for thresholds/intervals over X_d, d = 64",
    "ABM19.Alg1": "ASSPP: cover from public unlabelled data + exponential mechanism on the private sample",
    "ABM19.Thm3.1": "n_priv = O((d log(1/alpha) + log(1/beta)) max(1/alpha^2, 1/(eps alpha))), n_pub = O(.../alpha)",
    "ABM19.Alg2": "private learner B from a semi-private learner A, p = 1/(100 n_pub)",
    "ABM19.Alg3": "PrivSamp: Bernoulli(p) interleaving of the private sample with dummy draws from D0",
    "ABM19.Alg4": "PubSamp: n_pub draws from D0",
    "ABM19.Lem4.4": "B is a (100 n_pub alpha, 1/16, eps, delta)-private learner with ceil(n_priv/(10 n_pub)) samples",
    "ABM19.Thm4.1": "n_pub > 1/(1600 alpha) for classes of infinite Littlestone dimension",
    "ABM19.Thm4.2": "public-sample lower bound (companion of Thm 4.1)",
    "BNS15.Alg1": "GenericLearner: sanitize w.r.t. C_xor, points of the sanitized database, EXPMECH",
    "BNS15.Thm3.3": "sample sizes m, n of GenericLearner",
    "BNS15.Alg2": "LabelBoostProcedure: EXPMECH with eps = 1 on S, relabel S o T",
    "BNS15.Lem4.1": "A o LabelBoostProcedure is (eps + 3, 4e delta)-DP",
    "BNS15.Cl4.2": "|T| <= (beta/e) VC exp(alpha|S|/(2VC)) - |S| gives error_S(h) <= alpha w.p. 1 - beta",
    "BNS15.Alg3": "LabelBoost: the boosting loop with sub-sampling, exact constants and a scaled mode",
    "BNS15.Cl4.3": "sub-sampling: (eps*, delta) on n -> (eps, 4 eps/(3 + exp(eps*)) delta)",
    "BNS15.Cl4.5": "i.i.d. resampling: (ln 244, 2467 delta)",
    "BNS15.Lem4.6": "LabelBoost privacy (1, 41 delta)",
    "BNS15.Cl4.8": "|D| >= 90000 n suffices",
    "BNS15.Cl4.9": "LabelBoost iteration accuracy",
    "BNS15.Rem4.10": "O(log* n) iterations",
    "BNS15.Cl4.11": "LabelBoost accuracy across iterations",
    "BNS15.Lem4.12": "LabelBoost accuracy",
    "BNS15.Thm4.13": "LabelBoost: private learner with few labels",
    "BNS15.Thm4.14": "LabelBoost sample complexity",
    "BNS15.Thm4.16": "agnostic LabelBoost",
    "BNS15.Cor4.17": "rectangles",
    "BNS15.Cor4.18": "LabelBoost corollary",
    "BNS15.Def5.1": "active learner (index queries)",
    "BNS15.Def5.3": "private active learner",
    "BNS15.Def5.4": "transcript and transcript-DP",
    "BNS15.Thm5.5": "PSSL => TPAL",
    "BNS15.Thm5.6": "every TPAL for THRESH_d with alpha <= 1/9, beta <= 1/4 has m = Omega(1/alpha)",
    "BNS15.Alg4": "SubSampling: pick J of size n from t, label the m smallest indices of J, run A on D_J",
    "BNS15.Cl5.7": "SubSampling is an (alpha, beta, eps, (7 + e^eps*)/(3 + e^(2 eps*)) eps delta, t, m)-PAL",
    "BNS15.Thm5.8": "private active learner from SubSampling",
    "BNS15.PropA.1": "exponential mechanism utility: P[error_S(h) > e_min + Delta] <= |H| exp(-eps Delta m/2)",
    "BNS15.ThmA.3": "BLR sanitizer size",
    "BNS15.ThmB.2": "Sauer-Shelah",
    "BNS15.ThmB.3": "m >= (VC - 1)/(16 alpha)",
    "BNS15.ThmB.4": "m >= (8/alpha)(VC ln(16/alpha) + ln(2/beta))",
    "BNS15.ThmB.5": "m >= (48/alpha)(10 VC log(48e/alpha) + log(5/beta))",
    "BNS15.ThmB.6": "m >= 50 VC/alpha^2 ln(1/(alpha beta))",
    "HPSY.Def1": "compatibility chi(h, D_X) = E[chi(h, x)]",
    "HPSY.Def2": "empirical compatibility on a sample",
    "HPSY.Eq1": "chi_DISJ(f, x) = 1{active(x) in V+(f) or active(x) disjoint from V+(f)}",
    "HPSY.ComponentGraph": "G_D and the empirical component graph G_S",
    "HPSY.Thm1": "disjunctions via the empirical component graph: n_unl, n_lab",
    "HPSY.Def4": "the distribution D_{f,p}",
    "HPSY.Lem1": "Karger: every cut of G(p) within (1 +- e) of its expectation w.p. >= 1 - 4/(l d^l)",
    "HPSY.Lem2": "d > 35: G(d, p) connected w.p. >= 1 - beta if p >= 9(log(4/beta) + 4)/(d - 1)",
    "HPSY.Thm2": "D_{f,p}: n_unl >= max{log(1 - (9 log(16/beta) + 4)/(d - 1))/log(1 - p), 8 log(16/beta)}",
    "HPSY.Thm3": "halfspaces via PCA on public data: n_unl = O(kd/(beta gamma^2)), n_lab = O(sqrt(k)/(...))",
    "PILLAR.Alg1": "PCA on public data, then a private learner on the projected private data",
    "BST14.NoisySGD": "noisy SGD (PILLAR App. A.1 Alg 2): sigma^2 = 32 L^2 n^2 log(n/delta) log(1/delta)/eps^2",
    "PILLAR.Alg2": "R runs of noisy SGD, one chosen by the exponential mechanism on held-out data",
    "DPSGD": "practical trainer: DP-SGD with per-example clipping and an RDP/PLD accountant",
    "PILLAR.Def3": "(gamma, k, eta)-large-margin low-rank distribution",
    "PILLAR.Ex1": "large-margin Gaussian mixture",
    "PILLAR.Thm2": "TV-bounded shift between public and private marginals",
    "PILLAR.Def4": "TV-bounded shift (definition)",
    "AUDIT": "empirical DP audit: valid epsilon lower bounds (Clopper-Pearson), exact-ratio checks",
}

#: Ids that name the same item as another id (the paper's number of a result filed under another id).
ALIASES: dict[str, str] = {"BNS15.Obs3.2": "COMB.XorClass", "PILLAR.Alg1": "HPSY.Thm3"}

_ABBREV = {"Lem": "Lemma", "Thm": "Theorem", "Alg": "Algorithm", "Cl": "Claim", "Def": "Definition",
           "Cor": "Corollary", "Obs": "Observation", "Prop": "Proposition", "Eq": "Equation", "Rem": "Remark",
           "Ex": "Example", "Sec": "Section"}
#: Words in capitals that are not item ids (acronyms of notions).
_NOT_IDS = {"PSSL", "TPAL", "PAL", "NOTE", "TODO", "JSON", "SPEC", "CUDA", "SIMD"}
_DOTTED = re.compile(r"\b(?:" + "|".join(PAPERS) + r")\.[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*")
_CAPS = re.compile(r"\b[A-Z]{4,}\b")
_SENTENCE_END = re.compile(r"\.(?:\s|$)|:")


@dataclass
class SpecEntry:
    """One item of the index (see the module docstring)."""

    id: str
    reference: str
    implemented_by: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)


def _strip_parentheses(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _expand(token: str) -> list[str]:
    """``ABM19.Alg2-4`` -> Alg2, Alg3, Alg4; ``ABM19.Thm4.1/4.2`` -> Thm4.1, Thm4.2."""
    m = re.fullmatch(r"(.*?\.[A-Za-z]+)(\d+)-(\d+)", token)
    if m and int(m.group(2)) < int(m.group(3)) <= int(m.group(2)) + 20:
        return [f"{m.group(1)}{i}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]
    return [token.rstrip(".-")]


def parse_implements(text: str) -> list[str]:
    """The item ids named by the ``Implements:`` lines of a docstring, in order, without repeats.

    Parenthesised remarks are dropped, a line ending with a comma continues on the next one,
    and the list ends at the first sentence end.

    >>> parse_implements("Implements: ABM19.Alg1 (ASSPP), ABM19.Thm3.1.  More text.")
    ['ABM19.Alg1', 'ABM19.Thm3.1']
    >>> parse_implements('''Implements: BNS15.Alg3, BNS15.Lem4.6,
    ...     BNS15.Thm4.14 (with constants).''')
    ['BNS15.Alg3', 'BNS15.Lem4.6', 'BNS15.Thm4.14']
    >>> parse_implements("Implements: EXPMECH (McSherry-Talwar), Structured EXPMECH (d <= 64).")
    ['EXPMECH', 'Structured EXPMECH']
    >>> parse_implements("Implements: AUDIT (Gaussian calibration; DR14 Thm A.1).")
    ['AUDIT']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string (a docstring), got {type(text).__name__}")
    found: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        pos = line.find("Implements:")
        if pos < 0:
            continue
        chunk = line[pos + len("Implements:"):]
        j = i
        while j + 1 < len(lines) and (_strip_parentheses(chunk).rstrip().endswith(",")
                                      or chunk.count("(") > chunk.count(")")):
            j += 1
            chunk += " " + lines[j].strip()
        body = _strip_parentheses(chunk)
        end = _SENTENCE_END.search(body)
        body = body[:end.start()] if end else body
        for piece in re.split(r",|;|\band\b|\+", body):
            piece = piece.strip()
            if not piece:
                continue
            if piece in PLANNED:  # multi-word ids ("Structured EXPMECH")
                ids = [piece]
            else:
                ids = [t for tok in _DOTTED.findall(piece) for t in _expand(tok)]
                if not ids:
                    ids = [w for w in _CAPS.findall(piece) if w not in PAPERS and w not in _NOT_IDS]
            for x in ids:
                if x not in found:
                    found.append(x)
    return found


def reference(item: str) -> str:
    """``ABM19 Lemma 3.3`` (+ the planned statement) for an id.

    >>> reference("BNS15.Cl4.2").startswith("BNS15 Claim 4.2: ")
    True
    """
    if not isinstance(item, str):
        raise TypeError(f"item must be an id string such as 'ABM19.Lem3.3', got {type(item).__name__}")
    head = item
    m = re.fullmatch(r"([A-Z0-9]+)\.([A-Za-z]+?)([A-Z]?\d+(?:\.\d+)*)((?:\.[^.]+)*)", item)
    if m and m.group(1) in PAPERS and m.group(2) in _ABBREV:
        head = f"{m.group(1)} {_ABBREV[m.group(2)]} {m.group(3)}"
        if m.group(4):
            head += f" ({m.group(4)[1:]})"
    if item in PLANNED:
        return f"{head}: {PLANNED[item]}"
    return f"{head} (= {ALIASES[item]})" if item in ALIASES else head


# ----------------------------------------------------------------------------- scanning


def _package_roots() -> dict[str, Path]:
    from semiprivate import kernels, theory

    return {"semiprivate.theory": Path(theory.__file__).resolve().parent,
            "semiprivate.kernels": Path(kernels.__file__).resolve().parent}


def _tests_root() -> Path | None:
    """``tests/`` of a source checkout (beside the ``theory`` package), else None."""
    root = Path(__file__).resolve().parent.parent / "tests"
    return root if root.is_dir() else None


def _py_files(root: Path) -> Iterator[Path]:
    for p in sorted(root.rglob("*.py")):
        if "__pycache__" not in p.parts:
            yield p


def _documented(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(qualname or '', docstring) of the module and of every class / function in it."""
    doc = ast.get_docstring(tree)
    if doc:
        yield "", doc

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                d = ast.get_docstring(child)
                if d:
                    yield name, d
                yield from walk(child, name + ".")

    yield from walk(tree, "")


def _implementations(modules: set[str] | None = None) -> dict[str, list[str]]:
    """id -> implementing objects; ``modules`` (if given) collects the ids' module-level entries."""
    out: dict[str, list[str]] = {}
    this = Path(__file__).resolve()
    for package, root in _package_roots().items():
        for path in _py_files(root):
            if path.resolve() == this:  # this module's docstrings show examples, not implementations
                continue
            rel = path.relative_to(root).with_suffix("")
            parts = [package, *rel.parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            module = ".".join(parts)
            try:
                text = path.read_text(encoding="utf-8")
                if "Implements:" not in text:  # no docstring can name an id: not parsed
                    continue
                tree = ast.parse(text)
            except (SyntaxError, UnicodeDecodeError):  # a file being written: skipped this time
                continue
            for qual, doc in _documented(tree):
                if "Implements:" not in doc:
                    continue
                obj = f"{module}.{qual}" if qual else module
                if not qual and modules is not None:
                    modules.add(obj)
                for item in parse_implements(doc):
                    lst = out.setdefault(item, [])
                    if obj not in lst:
                        lst.append(obj)
    return out


_COMMON_NAMES = {"sample", "fit", "main", "build", "predict", "evaluate", "solve", "run", "check", "report"}


def _shipped_tests() -> dict[str, list[str]]:
    """The generated tests column (:data:`TESTS_DATA`), or {} when it is missing or unreadable."""
    try:
        data = json.loads(TESTS_DATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        return {}
    return {str(k): [str(t) for t in v] for k, v in data.items()}


def _tests(items: Iterable[str], impl: dict[str, list[str]], modules: set[str]) -> dict[str, list[str]]:
    """Test functions that name an id, or use a class / function implementing it (by name; modules
    and short common names are not used, they would match unrelated tests); without ``tests/``
    (an installed copy), the shipped :data:`TESTS_DATA`."""
    root = _tests_root()
    out: dict[str, list[str]] = {}
    if root is None:
        shipped = _shipped_tests()
        return {item: shipped[item] for item in items if item in shipped}
    names: dict[str, set[str]] = {}
    for item in items:
        short = {o.rsplit(".", 1)[-1] for o in impl.get(item, []) if "." in o and o not in modules}
        names[item] = {n for n in short if n not in _COMMON_NAMES and (len(n) >= 8 or not n.islower())
                       and not n.startswith("_")}
    id_res = {item: re.compile(r"(?<![\w.])" + re.escape(item) + r"(?![\w])") for item in names}
    by_name: dict[str, list[str]] = {}  # object name -> the items it implements
    for item, ns in names.items():
        for n in ns:
            by_name.setdefault(n, []).append(item)
    order = {item: i for i, item in enumerate(names)}
    base = root.parent
    for path in _py_files(root):
        text = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = _source_lines(text)
        in_file = [item for item in names if item in text]  # a test's source is a part of its file's text
        for node in _definitions(tree):
            if node.name.startswith("test"):
                src = _segment(lines, node)
                words = set(_WORD.findall(src))  # \bname\b matches exactly when a maximal \w run is the name
                where = f"{path.relative_to(base).as_posix()}::{node.name}"
                found = {item for w in words.intersection(by_name) for item in by_name[w]}
                found.update(item for item in in_file if item in src and id_res[item].search(src))
                for item in sorted(found, key=order.__getitem__):
                    out.setdefault(item, []).append(where)
    return out


def _definitions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The function definitions in ``tree``, in :func:`ast.walk`'s order (breadth first); only statements are
    visited (an expression holds no definition), which leaves that order as it is."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, _HOLDERS))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


#: the nodes that can hold a statement: statements, ``except`` handlers and ``match`` cases
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


_WORD = re.compile(r"\w+")


def _source_lines(text: str) -> list[str]:
    """``text`` split as :func:`ast.get_source_segment` splits it (line ends kept, no form feed split), once
    per file: ``get_source_segment`` splits the whole file again for every node."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n|$)", text)[:-1] or [""]


def _segment(lines: list[str], node: ast.AST) -> str:
    """The source of ``node`` from the file's ``lines`` (:func:`_source_lines`), as
    :func:`ast.get_source_segment` returns it (column offsets are UTF-8 byte offsets)."""
    first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
    col, end_col = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    if first == last:
        return lines[first].encode()[col:end_col].decode()
    head = lines[first].encode()[col:].decode()
    tail = lines[last].encode()[:end_col].decode()
    return head + "".join(lines[first + 1:last]) + tail


def scan_tests() -> dict[str, list[str]]:
    """The tests column scanned from ``tests/`` of this source checkout (ValueError without one)."""
    if _tests_root() is None:
        raise ValueError("no tests/ folder beside the package: the tests column can only be scanned in a source "
                         "checkout")
    entries = build_index(checks=False)
    return {e.id: e.tests for e in entries if e.tests}


def write_tests_data(path: Path | None = None) -> Path:
    """Write :func:`scan_tests` as JSON to ``path`` (default :data:`TESTS_DATA`); returns the path."""
    if path is not None and not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__}")
    target = TESTS_DATA if path is None else Path(path)
    target.write_text(json.dumps(scan_tests(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return target


def _checks(known: Iterable[str]) -> dict[str, list[str]]:
    try:
        from semiprivate.proofs_checks._framework import registry
    except ImportError:  # proofs_checks not installed
        return {}
    ids = sorted(set(known), key=len, reverse=True)
    out: dict[str, list[str]] = {}
    for check_id in sorted(registry()):
        item = next((k for k in ids if check_id == k or check_id.startswith(k + ".")), None)
        if item is None:  # the longest prefix ending with an item number: BNS15.Obs3.2.vc -> BNS15.Obs3.2
            parts = check_id.split(".")
            cut = max((i for i in range(2, len(parts) + 1) if parts[i - 1][-1:].isdigit()), default=min(2, len(parts)))
            item = ".".join(parts[:cut])
        out.setdefault(item, []).append(check_id)
    return out


def _order(item: str) -> tuple[int, str]:
    keys = list(PLANNED)
    return (keys.index(item), "") if item in PLANNED else (len(keys), item)


def build_index(*, tests: bool = True, checks: bool = True) -> list[SpecEntry]:
    """The index: every planned item and every id the code names, in specification order.

    ``tests=False`` / ``checks=False`` skip the scan of ``tests/`` / the proofs_checks registry.
    """
    for name, flag in (("tests", tests), ("checks", checks)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
    modules: set[str] = set()
    impl = _implementations(modules)
    items = sorted(set(PLANNED) | set(impl), key=_order)
    chk = _checks(items) if checks else {}
    items = sorted(set(items) | set(chk), key=_order)
    for alias, target in ALIASES.items():  # an alias is implemented by what implements its target
        if alias in items:
            impl[alias] = list(dict.fromkeys(impl.get(alias, []) + impl.get(target, [])))
    tst = _tests(items, impl, modules) if tests else {}
    return [SpecEntry(item, reference(item), impl.get(item, []), tst.get(item, []), chk.get(item, []))
            for item in items]


def format_index(entries: list[SpecEntry], *, tests_scanned: bool = True) -> str:
    """Plain-text listing of the index (what ``python -m semiprivate spec`` prints)."""
    if not isinstance(entries, (list, tuple)) or not all(isinstance(e, SpecEntry) for e in entries):
        raise TypeError(f"entries must be a list of SpecEntry (from build_index), got {type(entries).__name__}")
    if not isinstance(tests_scanned, bool):
        raise TypeError(f"tests_scanned must be a bool, got {type(tests_scanned).__name__}")
    lines = []
    done = sum(1 for e in entries if e.implemented_by)
    for e in entries:
        status = "" if e.implemented_by else "  [planned, not implemented yet]"
        lines.append(f"{e.id}{status}\n  reference: {e.reference}")
        if e.implemented_by:
            lines.append("  implemented by: " + ", ".join(e.implemented_by))
        if e.tests:
            shown = e.tests[:6]
            more = f" (+{len(e.tests) - len(shown)} more)" if len(e.tests) > len(shown) else ""
            lines.append("  tests: " + ", ".join(shown) + more)
        if e.checks:
            lines.append("  proof checks: " + ", ".join(e.checks))
    lines.append(f"\n{len(entries)} items: {done} implemented, {len(entries) - done} planned."
                 + ("" if tests_scanned else " (tests not listed: no tests/ folder and no shipped spec_tests.json)"))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Entry point of ``python -m semiprivate spec [--json] [ID ...]`` (returns the exit status)."""
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a list of strings, got {type(argv).__name__}")
    parser = argparse.ArgumentParser(prog="semiprivate spec", description=SUMMARY + ".")
    parser.add_argument("--json", action="store_true",
                        help='print a JSON list of {"id", "implemented_by", "reference", "tests", "checks"}')
    parser.add_argument("--no-tests", action="store_true", help="do not scan tests/ (faster)")
    parser.add_argument("--update-tests-data", action="store_true",
                        help="(source checkout) rescan tests/ and rewrite the shipped tests column, spec_tests.json")
    parser.add_argument("ids", nargs="*", metavar="ID", help="only these ids (or id prefixes, e.g. ABM19)")
    ns = parser.parse_args(argv)  # argparse: usage errors exit 2 with a message, --help exits 0
    if ns.update_tests_data:
        try:
            print(f"wrote {write_tests_data()}")
        except ValueError as exc:
            print(f"semiprivate spec: error: {exc}", file=sys.stderr)
            return 2
        return 0
    entries = build_index(tests=not ns.no_tests)
    if ns.ids:
        entries = [e for e in entries if any(e.id == i or e.id.startswith(i + ".") or e.id.startswith(i)
                                             for i in ns.ids)]
        if not entries:
            print(f"semiprivate spec: error: no item matches {' '.join(ns.ids)} (run without ids to list all)",
                  file=sys.stderr)
            return 2
    if ns.json:
        keys = ("id", "implemented_by", "reference", "tests", "checks")
        print(json.dumps([{k: asdict(e)[k] for k in keys} for e in entries], indent=1))
    else:
        print(format_index(entries, tests_scanned=not ns.no_tests and (_tests_root() is not None
                                                                       or TESTS_DATA.is_file())))
    return 0

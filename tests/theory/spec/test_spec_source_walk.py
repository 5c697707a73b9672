"""The SPEC index's tests scan reads each file with two fast stand-ins for the standard library:
``spec._definitions`` (the function definitions, for ``ast.walk``'s filter) and ``spec._segment`` over
``spec._source_lines`` (a node's source, for ``ast.get_source_segment``).  Both must give exactly what the
standard library gives, in the same order: on awkward sources written here and on every Python file of the
checkout (the files the scan reads)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from semiprivate.theory import spec

ROOT = Path(__file__).resolve().parents[3]

_AWKWARD = {
    "nested and async": "def a():\n    def b():\n        async def c():\n            pass\n    class K:\n"
                        "        def m(self): return lambda: 0\n",
    "inside compound statements": "try:\n    def t(): pass\nexcept ValueError:\n    def e(): pass\nelse:\n"
                                  "    def el(): pass\nfinally:\n    def f(): pass\n"
                                  "with open('x') as h:\n    def w(): pass\nfor i in range(2):\n    def fo(): pass\n"
                                  "while False:\n    def wh(): pass\nif True:\n    def i(): pass\n",
    "match cases": "match x:\n    case 1:\n        def one(): pass\n    case [a, *rest] if a:\n"
                   "        def two(): pass\n    case _:\n        class C:\n            def three(self): pass\n",
    "try star": "try:\n    pass\nexcept* ValueError:\n    def g(): pass\n",
    "decorated, one line, non-ASCII": "@dec(lambda: 'é')\ndef é(x='ü'): return 'ß'  # ☃\nclass Ω: "
                                      "\n    def μ(self): pass\n",
    "CRLF line ends": "def a():\r\n    return 1\r\n\r\ndef b():\r\n    def c():\r\n        pass\r\n",
    "CR line ends": "def a():\r    return 1\rdef b(): pass\r",
    "form feed and tabs": "\x0cdef a():\n\tdef b():\n\t\tpass\n\x0c\ndef c(): pass\n",
    "no final newline": "def a():\n    pass",
    "Unicode line separators in strings": "def a():\n    s = 'x\u2028y\x85z'\n    return s\ndef b(): return '\u2029'\n",
}


def _expected(text: str) -> list[tuple[str, str | None]]:
    tree = ast.parse(text)
    return [(n.name, ast.get_source_segment(text, n)) for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _scanned(text: str) -> list[tuple[str, str]]:
    tree = ast.parse(text)
    lines = spec._source_lines(text)
    return [(n.name, spec._segment(lines, n)) for n in spec._definitions(tree)]


@pytest.mark.parametrize("name", sorted(_AWKWARD))
def test_the_stand_ins_match_the_standard_library_on_awkward_sources(name: str) -> None:
    text = _AWKWARD[name]
    expected = _expected(text)
    assert expected, "the source defines functions"
    assert _scanned(text) == expected


def test_the_stand_ins_match_the_standard_library_on_every_file_of_the_checkout() -> None:
    """Every file: the same definitions in the same order.  The segments are compared where a stand-in can
    differ from the standard library: every definition of a file with a CR or a form feed (line splitting), and
    every definition whose first or last line has a non-ASCII character (column offsets are byte offsets);
    ``ast.get_source_segment`` splits the whole file for each node, too slow for all of them."""
    files = [p for d in ("semiprivate", "theory", "kernels", "proofs_checks", "tests", "benchmarks", "examples")
             for p in sorted((ROOT / d).rglob("*.py"))]
    assert len(files) > 300
    defs = segments = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        expected = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        assert list(spec._definitions(tree)) == expected, path.relative_to(ROOT)
        defs += len(expected)
        split = "\r" in text or "\x0c" in text
        if text.isascii() and not split:
            continue
        lines = spec._source_lines(text)
        for n in expected:
            ends = lines[n.lineno - 1] + lines[n.end_lineno - 1]  # type: ignore[operator]
            if split or not ends.isascii():
                assert spec._segment(lines, n) == ast.get_source_segment(text, n), (path.relative_to(ROOT), n.name)
                segments += 1
    assert defs > 3000
    assert segments >= 1  # the checkout's own such definitions (few: the awkward sources above cover the rest)

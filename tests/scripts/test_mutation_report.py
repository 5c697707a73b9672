"""scripts/mutation_report.py: equivalent mutants keyed by a stable description, the report's
score from mutmut's results, and the re-keying of numbered entries."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("mutation_report", ROOT / "scripts" / "mutation_report.py")
assert SPEC is not None and SPEC.loader is not None
MR: Any = importlib.util.module_from_spec(SPEC)
sys.modules["mutation_report"] = MR  # dataclasses look their module up
SPEC.loader.exec_module(MR)

DIFF = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n def f(x):\n-    return x + 1\n+    return x - 1\n"
NAME_A = "theory.covers.x_distinct_points__mutmut_7"
NAME_B = "theory.covers.x_distinct_points__mutmut_8"


def _work(tmp_path: Path) -> Path:
    d = tmp_path / "work" / "covers"
    d.mkdir(parents=True)
    (d / "module").write_text("theory/covers.py\n")
    (d / "results.txt").write_text(f"    {NAME_A}: survived\n    {NAME_B}: survived\n"
                                   "    theory.covers.x_distinct_points__mutmut_1: killed\n")
    other = DIFF.replace("x - 1", "x * 1")
    (d / "diffs.json").write_text(json.dumps({NAME_A: DIFF, NAME_B: other}))
    return tmp_path / "work"


def test_names_and_diffs_give_the_stable_key() -> None:
    assert MR.function_of(NAME_A) == "distinct_points"
    assert MR.function_of("theory.covers.x__cover_check__mutmut_69") == "_cover_check"
    assert MR.function_of("m.xǁCoverǁ__init____mutmut_3") == "Cover.__init__"
    assert MR.changed_lines(DIFF) == ("return x + 1", "return x - 1")
    with pytest.raises(ValueError, match="not a mutmut mutant name"):
        MR.function_of("distinct_points")


def test_a_stable_entry_marks_only_its_own_mutant_equivalent(tmp_path: Path) -> None:
    """Same module and function, another change: not equivalent; the score counts it."""
    eq = tmp_path / "eq.txt"
    eq.write_text("# header\ntheory/covers.py\tdistinct_points\treturn x + 1\treturn x - 1\toff by sign, unused\n")
    out = tmp_path / "mutation.md"
    assert MR.main(["report", "--work", str(_work(tmp_path)), "--out", str(out), "--equivalents", str(eq),
                    "theory/covers.py"]) == 0
    text = out.read_text()
    assert "| `theory/covers.py` | 3 | 1 | 1 | 1 | - | **50.0%** |" in text
    assert f"- `{NAME_A}`: off by sign, unused" in text
    assert f"### `{NAME_B}`" in text


def test_rekey_turns_numbered_entries_into_descriptions(tmp_path: Path) -> None:
    eq = tmp_path / "eq.txt"
    eq.write_text(f"# header\n{NAME_A}: the reason\ntheory.covers.x_gone__mutmut_1: no diff for this one\n")
    assert MR.main(["rekey", "--work", str(_work(tmp_path)), "--equivalents", str(eq)]) == 0
    lines = eq.read_text().splitlines()
    assert lines[0] == "# header"
    assert "theory/covers.py\tdistinct_points\treturn x + 1\treturn x - 1\tthe reason" in lines
    assert "theory.covers.x_gone__mutmut_1: no diff for this one" in lines
    assert not any(ln.startswith(NAME_A) for ln in lines)

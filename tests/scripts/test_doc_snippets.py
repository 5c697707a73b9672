"""scripts/doc_snippets.py: which blocks of a page it runs and how (each alone, in a fresh interpreter, with no
globals set up), and which it lists as not run, with the reason."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("doc_snippets", ROOT / "scripts" / "doc_snippets.py")
assert SPEC is not None and SPEC.loader is not None
DS: Any = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(DS)

PAGE = """# A page

```bash
pip install .                  # the install step
```

```python
import math
print(math.pi)
```

```
$ python -c "print(6 * 7)"
42
```

```
semiprivate/    the layout
```

```python
>>> np.zeros(2).shape
(2,)
```
"""


def test_blocks_are_classified_as_a_reader_would_paste_them(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    assert [kind for _line, kind, _text in DS._blocks(page)] == ["shell", "python", "transcript", "output",
                                                               "doctest"]


def test_each_block_runs_alone_and_install_commands_are_listed_not_run(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
    got = [DS.run_block(kind, text, sys.executable, tmp_path, env, 60.0)[0] for _l, kind, text in DS._blocks(page)]
    # the doctest uses np without importing it: pasted alone it fails (no injected globals)
    assert got == ["not run", "ok", "ok", "not run", "FAILED"]
    assert DS.run_block("shell", "pip install .", sys.executable, tmp_path, env, 60.0) == \
        ("not run", "installs from the clone (the install step)")


def test_a_here_document_keeps_its_indentation(tmp_path: Path) -> None:
    text = "cat > m.py <<'EOF'\ndef f():\n    return 3\nEOF\npython -c 'import m; assert m.f() == 3'"
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
    assert DS.run_block("shell", text, sys.executable, tmp_path, env, 60.0)[0] == "ok"

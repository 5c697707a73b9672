"""Compile-time check that the exponential mechanism's float loops are vectorised on every target.

Usage::

    python scripts/vectorisation_report.py [--cc gcc] [--cross aarch64-linux-gnu-gcc]

It extracts the C block of ``kernels/_cython/_expmech.pyx``, compiles it with the flags
``setup.py`` gives ``_expmech`` (``-O3 -fopenmp`` plus ``EXTRA_COMPILE_ARGS["_expmech"]``) once
per target -- x86-64 baseline (SSE2), x86-64-v3 (AVX2+FMA), x86-64-v4 (AVX-512), and aarch64
(NEON) when a cross compiler is installed (Debian: ``gcc-aarch64-linux-gnu``) -- with GCC's
``-fopt-info-vec`` report, and says for each whether the two loops tagged in the source are
vectorised:

* ``SP_VEC_SUM_EXP``: ``sum += exp(c (x_i - m))``, the loop every float path runs;
* ``SP_VEC_WIDEN``: float32 -> float64 widening of a block;
* ``SP_VEC_SUM_EXP_MAX``: the same sum fused with the next chunk's max (the float64 hot loop);
* ``SP_VEC_WIDEN_MAX``: the widening fused with the next chunk's max (the float32 hot loop).

Each target is compiled as a whole file (``-DSP_NO_CLONES -march=...``), which is what the
matching ``target_clones`` clone gets.  Exit status 1 if a loop is not vectorised on a target
that was compiled.  ``tests/kernels/exponential/test_vectorisation.py`` runs it for the x86-64 targets.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYX = ROOT / "kernels" / "_cython" / "_expmech.pyx"
TAGS = ("SP_VEC_SUM_EXP", "SP_VEC_WIDEN", "SP_VEC_SUM_EXP_MAX", "SP_VEC_WIDEN_MAX")
X86_TARGETS = {"x86-64 (SSE2)": ["-march=x86-64"], "x86-64-v3 (AVX2+FMA)": ["-march=x86-64-v3"],
               "x86-64-v4 (AVX-512)": ["-march=x86-64-v4"]}

HARNESS = """
#include "expmech_block.c"
void sp_use_f64(const double* s, int64_t n, double c, double* a, double* b, int* f) { sp_group_f64(s, n, c, a, b, f); }
void sp_use_f32(const float* s, int64_t n, double c, double* a, double* b, int* f) { sp_group_f32(s, n, c, a, b, f); }
"""


def c_block(pyx: Path = PYX) -> str:
    """The C code of the ``cdef extern from *`` block, as the C compiler sees it."""
    text = pyx.read_text()
    start = text.index('cdef extern from *:\n    """') + len('cdef extern from *:\n    """')
    body = text[start:text.index('"""', start)].replace("\\\\", "\\")
    return "\n".join(line[4:] if line.startswith("    ") else line for line in body.split("\n"))


def setup_flags() -> list[str]:
    """``EXTRA_COMPILE_ARGS["_expmech"]`` from setup.py (read, not executed)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "EXTRA_COMPILE_ARGS":
            value = ast.literal_eval(node.value) if node.value is not None else {}
            return list(value.get("_expmech", []))
    return []


def check_target(cc: str, arch_flags: list[str], extra: list[str] | None = None) -> dict[str, bool]:
    """{tag: vectorised?} for one compiler and target."""
    block = c_block()
    lines = block.split("\n")
    tag_lines = {tag: next(i + 1 for i, line in enumerate(lines) if re.search(rf"\b{tag}\b", line)) for tag in TAGS}
    with tempfile.TemporaryDirectory(prefix="sp_vec_") as tmp:
        Path(tmp, "expmech_block.c").write_text(block)
        Path(tmp, "harness.c").write_text(HARNESS)
        flags = ["-O3", "-fopenmp", *setup_flags(), *(extra or []), "-DSP_NO_CLONES", *arch_flags]
        proc = subprocess.run([cc, *flags, "-c", "harness.c", "-o", "harness.o", "-fopt-info-vec-optimized"],
                              cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{cc} {' '.join(flags)} failed:\n{proc.stderr[-2000:]}")
    done = set()
    for m in re.finditer(r"expmech_block\.c:(\d+):\d+: optimized: loop vectorized", proc.stderr):
        done.add(int(m.group(1)))
    return {tag: line in done for tag, line in tag_lines.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", default="gcc", help="x86-64 C compiler (GCC)")
    ap.add_argument("--cross", default="aarch64-linux-gnu-gcc", help="aarch64 cross compiler, if installed")
    args = ap.parse_args(argv)
    targets: list[tuple[str, str, list[str]]] = []
    if shutil.which(args.cc):
        targets += [(name, args.cc, fl) for name, fl in X86_TARGETS.items()]
    if shutil.which(args.cross):
        targets.append(("aarch64 (NEON)", args.cross, []))
    if not targets:
        print("no compiler found", file=sys.stderr)
        return 2
    print(f"flags from setup.py for _expmech: -O3 -fopenmp {' '.join(setup_flags())}")
    print("| target | compiler | " + " | ".join(TAGS) + " |")
    print("|---|---|" + "---|" * len(TAGS))
    ok = True
    for name, cc, fl in targets:
        res = check_target(cc, fl)
        ok &= all(res.values())
        print(f"| {name} | {cc} | " + " | ".join("vectorised" if res[t] else "NOT vectorised" for t in TAGS) + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

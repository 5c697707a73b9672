"""The exponential mechanism's float loops are vectorised on every x86-64 level (compile-time check).

Runs ``scripts/vectorisation_report.py``'s check: GCC's ``-fopt-info-vec`` report on the C block
of ``kernels/_cython/_expmech.pyx``, compiled with setup.py's flags for x86-64 (SSE2), x86-64-v3
(AVX2+FMA) and x86-64-v4 (AVX-512).  Skipped where GCC for x86-64 is not the compiler at hand.
aarch64 (NEON) is checked by the script when a cross compiler is installed (not in CI).
"""

from __future__ import annotations

import importlib.util
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _gcc_x86() -> bool:
    if platform.machine() not in ("x86_64", "AMD64") or shutil.which("gcc") is None:
        return False
    out = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    major = out.split("\n")[0].rsplit(" ", 1)[-1].split(".")[0]
    return "gcc" in out.lower() and major.isdigit() and int(major) >= 12


pytestmark = pytest.mark.skipif(not _gcc_x86(), reason="needs GCC >= 12 on x86-64")


def _report():  # the script is not a package module: load it by path
    spec = importlib.util.spec_from_file_location("vectorisation_report", ROOT / "scripts" / "vectorisation_report.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("target", ["x86-64 (SSE2)", "x86-64-v3 (AVX2+FMA)", "x86-64-v4 (AVX-512)"])
def test_float_loops_vectorised(target: str) -> None:
    mod = _report()
    res = mod.check_target("gcc", mod.X86_TARGETS[target])
    assert res == dict.fromkeys(mod.TAGS, True), res


def test_check_has_power() -> None:
    """With -ftrapping-math (GCC's default) back, the exp-and-sum loop is not vectorised on AVX2:
    the check sees it."""
    mod = _report()
    res = mod.check_target("gcc", ["-march=x86-64-v3"], ["-ftrapping-math"])
    assert res["SP_VEC_SUM_EXP"] is False and res["SP_VEC_SUM_EXP_MAX"] is False

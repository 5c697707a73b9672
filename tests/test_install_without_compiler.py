"""Installing anywhere: without a C compiler the build warns in one line and installs the NumPy
backend; with one, the project's own build (``python -m build``) ships the compiled kernels.

Each build runs on a copy of the source tree (no build outputs written into the checkout).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WARNING = "semiprivate: WARNING: the compiled kernels were not built"
EXTENSIONS = ("_expmech", "_pca", "_probe")
NO_COMPILER = {"CC": "/nonexistent/cc", "CXX": "/nonexistent/c++", "LDSHARED": "/nonexistent/cc -shared"}


def _source_copy(dest: Path) -> Path:
    """The checkout without build outputs, virtual environments or compiled files."""
    ignore = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "*.so", "*.c", "*.html",
                                    ".tree", ".typecheck", "__pycache__", ".pytest_cache", "report_out",
                                    ".hypothesis", "_build", ".mypy_cache", ".ruff_cache")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def _run(cmd: list[str], env: dict[str, str] | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH", "VIRTUAL_ENV")}
    full.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=full, **kw)  # type: ignore[call-overload, no-any-return]


def _wheel_without_compiler(tmp_path: Path, extra_env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], Path]:
    src = _source_copy(tmp_path / "src")
    out = tmp_path / "wheel"
    run = _run([sys.executable, "-m", "pip", "wheel", "-v", "--no-build-isolation", "--no-deps",
                "--disable-pip-version-check", "-w", str(out), str(src)], env={**NO_COMPILER, **(extra_env or {})})
    return run, out


@pytest.fixture(scope="module")
def compilerless_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel built with the compiler hidden (no build isolation: the build tools of this venv)."""
    run, out = _wheel_without_compiler(tmp_path_factory.mktemp("nocc"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (whl,) = out.glob("semiprivate-*.whl")
    return whl, run.stdout + run.stderr


@pytest.mark.slow
def test_without_a_compiler_the_wheel_builds_with_one_warning_line_and_no_extension(
        compilerless_wheel: tuple[Path, str]) -> None:
    whl, log = compilerless_wheel
    warnings = [line.strip() for line in log.splitlines() if WARNING in line]
    assert len(warnings) == 1, warnings
    assert "no working C compiler" in warnings[0] and "NumPy backend" in warnings[0], warnings[0]
    names = zipfile.ZipFile(whl).namelist()
    assert not [n for n in names if n.endswith((".so", ".pyd"))], "an extension was installed without a compiler"
    assert "semiprivate/kernels/_reference.py" in names


@pytest.mark.slow
def test_the_wheel_ships_the_licence_and_no_placeholder_url(compilerless_wheel: tuple[Path, str]) -> None:
    whl, _log = compilerless_wheel
    with zipfile.ZipFile(whl) as zf:
        names = zf.namelist()
        licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert licence, [n for n in names if "dist-info" in n]
        assert zf.read(licence[0]).decode().startswith("MIT License")
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        entry_points = zf.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "License-Expression: MIT" in meta
    assert "example.invalid" not in meta
    assert "[pytest11]\nsemiprivate = semiprivate.pytest_plugin" in entry_points


@pytest.mark.slow
def test_requiring_the_compiled_kernels_without_a_compiler_fails_the_build(tmp_path: Path) -> None:
    run, _out = _wheel_without_compiler(tmp_path, {"SEMIPRIVATE_REQUIRE_COMPILED": "1"})
    assert run.returncode != 0
    assert "the compiled kernels are required (SEMIPRIVATE_REQUIRE_COMPILED)" in run.stdout + run.stderr


@pytest.mark.slow
def test_fresh_venv_without_a_compiler_runs_the_cli_and_the_kernels_on_numpy(
        tmp_path: Path, compilerless_wheel: tuple[Path, str]) -> None:
    whl, _log = compilerless_wheel
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    py = str(venv / "bin" / "python")
    inst = _run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(whl)], env=NO_COMPILER)
    assert inst.returncode == 0, inst.stdout[-3000:] + inst.stderr[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    code = ("import numpy as np\n"
            "from semiprivate import kernels\n"
            "print(kernels.available_backends())\n"
            "scores = -np.array([3, 0, 1, 7], dtype=np.int64)\n"
            "draws = kernels.exponential_mechanism(scores, 1.0, size=2000, rng=0)\n"
            "print(np.bincount(draws, minlength=4).argmax())\n")
    kern = _run([py, "-c", code], cwd=work)
    assert kern.returncode == 0, kern.stderr
    assert kern.stdout.split("\n")[:2] == ["['numpy']", "1"], kern.stdout
    for args in (["--version"], ["cite", "ABM19"], ["bound", "--help"], ["audit", "--list", "--quick"]):
        cli = _run([str(venv / "bin" / "semiprivate"), *args], cwd=work)
        assert cli.returncode == 0, (args, cli.stdout[-2000:], cli.stderr[-2000:])


@pytest.mark.slow
def test_the_projects_own_build_makes_a_wheel_with_the_compiled_kernels(tmp_path: Path) -> None:
    """``python -m build --wheel`` (isolated, as a release or CI builds) with the compiled kernels required."""
    src = _source_copy(tmp_path / "src")
    out = tmp_path / "dist"
    run = _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(src)],
               env={"SEMIPRIVATE_REQUIRE_COMPILED": "1"})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (whl,) = out.glob("semiprivate-*.whl")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    names = zipfile.ZipFile(whl).namelist()
    for ext in EXTENSIONS:
        assert f"semiprivate/kernels/_cython/{ext}{suffix}" in names, (ext, [n for n in names if "_cython" in n])

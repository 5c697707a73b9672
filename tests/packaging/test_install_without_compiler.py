"""Installing anywhere: without a C compiler the build warns in one line and installs the NumPy
backend; with one, the project's own build (``python -m build``) ships the compiled kernels.

The builds are shared per session (conftest.py); the compiled build's own check is in
test_wheel_and_fresh_venv.py.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

# one worker runs these (under pytest-xdist): they share session-scoped builds
pytestmark = pytest.mark.xdist_group("packaging")

WARNING = "semiprivate: WARNING: the compiled kernels were not built"


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
def test_requiring_the_compiled_kernels_without_a_compiler_fails_the_build(tmp_path: Path, tools: Any) -> None:
    run, _out = tools.wheel_without_compiler(tmp_path, {"SEMIPRIVATE_REQUIRE_COMPILED": "1"})
    assert run.returncode != 0
    assert "the compiled kernels are required (SEMIPRIVATE_REQUIRE_COMPILED)" in run.stdout + run.stderr


@pytest.mark.slow
def test_fresh_venv_without_a_compiler_runs_the_cli_and_the_kernels_on_numpy(
        tmp_path: Path, compilerless_wheel: tuple[Path, str], runtime_venv: Path, tools: Any) -> None:
    """The compilerless wheel in a fresh venv runs the kernels on NumPy and the CLI.  The venv reaches the
    declared dependencies through a .pth line to the runtime venv of the compiled wheel (the same
    [project.dependencies], resolved by pip there); its own site-packages, first on sys.path, holds the
    compilerless semiprivate, installed without dependencies."""
    whl, _log = compilerless_wheel
    _run = tools.run
    venv = tmp_path / "venv"
    py = tools.make_venv(venv)
    inst = tools.pip_into(py, "--no-deps", str(whl), env=tools.NO_COMPILER)
    assert inst.returncode == 0, inst.stdout[-3000:] + inst.stderr[-3000:]
    # after the install: with the runtime venv visible, pip would find semiprivate already installed there
    (tools.purelib(py) / "runtime_dependencies.pth").write_text(f"{tools.purelib(runtime_venv / 'bin' / 'python')}\n")
    work = tmp_path / "work"
    work.mkdir()
    code = ("import numpy as np, sysconfig\n"
            "from semiprivate import kernels\n"
            "print(kernels.available_backends())\n"
            "scores = -np.array([3, 0, 1, 7], dtype=np.int64)\n"
            "draws = kernels.exponential_mechanism(scores, 1.0, size=2000, rng=0)\n"
            "print(np.bincount(draws, minlength=4).argmax())\n"
            "print(kernels.__file__)\n"
            "print(sysconfig.get_paths()['purelib'])\n")
    kern = _run([py, "-c", code], cwd=work)
    assert kern.returncode == 0, kern.stderr
    assert kern.stdout.split("\n")[:2] == ["['numpy']", "1"], kern.stdout
    kernels_file, own = kern.stdout.split("\n")[2:4]
    assert Path(kernels_file).resolve().is_relative_to(Path(own).resolve()), "imported the runtime venv's semiprivate"
    # pip hides the build's warning line: the first kernel call says which backend runs, once
    assert kern.stderr.count("NumPyBackendWarning") == 1 and "NumPy reference backend" in kern.stderr, kern.stderr
    quiet = _run([py, "-c", code], cwd=work, env={"SEMIPRIVATE_BACKEND": "numpy"})
    assert quiet.returncode == 0 and "NumPyBackendWarning" not in quiet.stderr, quiet.stderr
    version = _run([str(venv / "bin" / "semiprivate"), "--version"], cwd=work)
    assert version.returncode == 0 and "backends: numpy only" in version.stdout, version.stdout
    for args in (["cite", "ABM19"], ["bound", "--help"], ["audit", "--list", "--quick"]):
        cli = _run([str(venv / "bin" / "semiprivate"), *args], cwd=work)
        assert cli.returncode == 0, (args, cli.stdout[-2000:], cli.stderr[-2000:])

"""Shared builds of the packaging tests: each wheel and the runtime environment are made once per session.

* ``compiled_wheel``: ``python -m build --wheel`` (isolated, as a release or CI builds) on a copy of the
  source tree, with the compiled kernels required (``SEMIPRIVATE_REQUIRE_COMPILED=1``);
* ``compilerless_wheel``: ``pip wheel`` with the C compiler hidden (no build isolation: the build tools
  of this venv), and its build log;
* ``runtime_venv``: a fresh virtual environment with ``pip install`` of the compiled wheel and nothing
  else, so pip resolves exactly the declared ``[project.dependencies]``.

Builds run on a copy of the source tree (no build outputs written into the checkout).  Virtual
environments are made without their own pip (``--without-pip``) and filled by this venv's pip through
``pip --python``; installs skip byte-compiling (``--no-compile``): the first process to import a module
compiles it and writes its bytecode next to it, which the later ones read (the subprocesses may write bytecode
even when the suite runs under ``PYTHONDONTWRITEBYTECODE``: else every process in a fresh venv compiles SciPy and
scikit-learn again, about 4 CPU-seconds each; and they do not write into the suite's ``PYTHONPYCACHEPREFIX``,
which ``scripts/test.sh`` keeps in the project's venv and which would collect every temporary venv's files).

The compiled wheel is built with ``SEMIPRIVATE_DEBUG=1`` (``-O0 -g``, setup.py): what these tests check (the
isolated build from the declared build requirements, the wheel's contents, a fresh install that runs) does
not depend on the optimisation level, and the release flags (``-O3``) are compiled by the project's own
install in the same run (``scripts/bootstrap.sh``); ``-O3`` takes about five times longer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NO_COMPILER = {"CC": "/nonexistent/cc", "CXX": "/nonexistent/c++", "LDSHARED": "/nonexistent/cc -shared"}
PIP_INSTALL = ["install", "--quiet", "--disable-pip-version-check", "--no-compile"]


#: left out of the subprocesses' environment: this checkout's import setup, a ban on writing bytecode, and the
#: suite's bytecode directory (a fresh venv's processes write theirs into that venv, which the test removes)
NOT_INHERITED = ("PYTHONPATH", "PYTHONSAFEPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE",
                 "PYTHONPYCACHEPREFIX")


def outside_env() -> dict[str, str]:
    """This process's environment without ``NOT_INHERITED``."""
    return {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}


def run(cmd: list[str], env: dict[str, str] | None = None, **kw: object) -> subprocess.CompletedProcess[str]:
    """``cmd`` outside this checkout's import setup (no PYTHONPATH, PYTHONSAFEPATH or VIRTUAL_ENV), free to write
    bytecode."""
    full = outside_env()
    full.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=full, **kw)  # type: ignore[call-overload, no-any-return]


def start(cmd: list[str], log: Path, **kw: object) -> subprocess.Popen[str]:
    """``cmd`` started in the background with ``run``'s environment, its output (stdout and stderr) into
    ``log`` (a pipe could fill and stall it); ``finish`` waits for it."""
    with open(log, "w") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, env=outside_env(), **kw)  # type: ignore[call-overload, no-any-return]


def finish(proc: subprocess.Popen[str], log: Path) -> subprocess.CompletedProcess[str]:
    """Wait for ``proc`` (from ``start``); its output is the completed process's stdout."""
    proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, log.read_text(), "")


def source_copy(dest: Path) -> Path:
    """The checkout without build outputs, virtual environments or compiled files."""
    patterns = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "*.so", "*.c", "*.html",
                                      ".tree", ".typecheck", "__pycache__", ".pytest_cache", "report_out",
                                      ".hypothesis", "_build", ".mypy_cache", ".ruff_cache")
    # what a Sphinx build writes into docs/ (a site test in another worker may be writing it meanwhile)
    docs_outputs = {"gallery", "generated", "sg_execution_times.rst"}

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set(patterns(folder, names))
        if Path(folder) == ROOT / "docs":
            skipped |= docs_outputs & set(names)
        return skipped

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def make_venv(venv: Path) -> Path:
    """A fresh virtual environment without pip (filled with ``pip_into``); its python."""
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    assert made.returncode == 0, made.stderr
    return venv / "bin" / "python"


def pip_into(py: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``pip install ARGS`` into the environment of ``py``, run by this venv's pip."""
    return run([sys.executable, "-m", "pip", "--python", str(py), *PIP_INSTALL, *args], env=env)


def wheel_without_compiler(tmp_path: Path, extra_env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], Path]:
    src = source_copy(tmp_path / "src")
    out = tmp_path / "wheel"
    build = run([sys.executable, "-m", "pip", "wheel", "-v", "--no-build-isolation", "--no-deps",
                 "--disable-pip-version-check", "-w", str(out), str(src)], env={**NO_COMPILER, **(extra_env or {})})
    return build, out


@pytest.fixture(scope="session")
def compiled_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("compiled")
    src = source_copy(tmp / "src")
    out = tmp / "dist"
    build = run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(src)],
                env={"SEMIPRIVATE_REQUIRE_COMPILED": "1", "SEMIPRIVATE_DEBUG": "1"})
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert "flags -O0 -g" in build.stdout + build.stderr, "SEMIPRIVATE_DEBUG did not reach the compiler flags"
    (whl,) = out.glob("semiprivate-*.whl")
    return whl


@pytest.fixture(scope="session")
def compilerless_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    build, out = wheel_without_compiler(tmp_path_factory.mktemp("nocc"))
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (whl,) = out.glob("semiprivate-*.whl")
    return whl, build.stdout + build.stderr


@pytest.fixture(scope="session")
def runtime_venv(tmp_path_factory: pytest.TempPathFactory, compiled_wheel: Path) -> Path:
    """The venv (its root) of ``pip install semiprivate-*.whl`` without extras."""
    venv = tmp_path_factory.mktemp("runtime") / "venv"
    py = make_venv(venv)
    inst = pip_into(py, str(compiled_wheel))
    assert inst.returncode == 0, inst.stdout[-3000:] + inst.stderr[-3000:]
    return venv


def purelib(py: Path) -> Path:
    where = run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    assert where.returncode == 0, where.stderr
    return Path(where.stdout.strip())


class Tools:
    """The helpers above, for the test modules (a fixture: conftest is not importable under importlib mode)."""

    run = staticmethod(run)
    start = staticmethod(start)
    finish = staticmethod(finish)
    make_venv = staticmethod(make_venv)
    pip_into = staticmethod(pip_into)
    purelib = staticmethod(purelib)
    wheel_without_compiler = staticmethod(wheel_without_compiler)
    NO_COMPILER = NO_COMPILER
    ROOT = ROOT


@pytest.fixture(scope="session")
def tools() -> type[Tools]:
    return Tools

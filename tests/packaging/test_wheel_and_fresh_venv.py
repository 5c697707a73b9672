"""Packaging: the project's own build ships the compiled kernels, a non-editable install works from
outside the source tree, the console script is installed, and a fresh virtual environment with
``pip install .`` (no extras) runs every entry point (the declared [project.dependencies] suffice).
The wheel and the fresh venv are built once per session (conftest.py)."""

from __future__ import annotations

import os
import signal
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pytest

# one worker runs these (under pytest-xdist): they share session-scoped builds
pytestmark = pytest.mark.xdist_group("packaging")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_non_editable_install_imports_from_outside_the_source_tree(tmp_path: Path, compiled_wheel: Path,
                                                                   tools: Any) -> None:
    _run = tools.run
    target = tmp_path / "site"
    build = _run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                  "--no-compile", "--target", str(target), str(compiled_wheel)])
    assert build.returncode == 0, build.stdout + build.stderr
    code = (
        "import os, semiprivate;"
        "from semiprivate import kernels, theory, proofs_checks;"
        "print(os.path.dirname(kernels.__file__));"
        "print(kernels.build_info()['backends'])"
    )
    env = {"PYTHONPATH": str(target)}
    run = _run([sys.executable, "-c", code], cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    where, backends = run.stdout.strip().splitlines()
    assert Path(where).resolve().is_relative_to(target.resolve()), where
    assert "cython" in backends, "the wheel does not carry the compiled kernels"
    cli = _run([sys.executable, "-m", "semiprivate", "--help"], cwd=tmp_path, env=env)
    assert cli.returncode == 0 and "report" in cli.stdout, cli.stderr
    pkg = target / "semiprivate"
    assert all((pkg / sub / "py.typed").exists() for sub in (".", "kernels", "theory", "proofs_checks"))
    # one import name: nothing else at the top level (`kernels` is an unrelated PyPI package)
    top = {p.name for p in target.iterdir() if not p.name.endswith((".dist-info", ".egg-info"))} - {"bin"}
    assert top == {"semiprivate"}, top


@pytest.mark.slow
def test_fresh_venv_without_extras_runs_every_entry_point(runtime_venv: Path, tmp_path: Path, tools: Any) -> None:
    """``pip install .`` (no extras) into a fresh venv: ``python -m semiprivate.proofs_checks``,
    ``python -m semiprivate report --quick``, ``import semiprivate.theory.audit.strategies`` and, from the
    checkout's root, ``python -m semiprivate bound ...`` work, and
    proofs_checks writes its report where --out says, nothing into the current folder or site-packages.

    Fails when a runtime import is only in an extra (e.g. hypothesis in ``test``)."""
    _run = tools.run
    venv = runtime_venv
    py = str(venv / "bin" / "python")
    env: dict[str, str] = {}
    work = tmp_path / "work"
    work.mkdir()
    site = _run([py, "-c", "from semiprivate import theory; import sysconfig; print(theory.__file__); "
                 "print(sysconfig.get_paths()['purelib'])"], cwd=work, env=env)
    assert site.returncode == 0, site.stderr
    theory_file, purelib = site.stdout.split()
    assert Path(theory_file).resolve().is_relative_to(venv.resolve()), "imported theory from outside the venv"

    # the quick report (the longest step) runs on the second core while the other entry points are checked
    log = tmp_path / "report.log"
    # its own process group: the report runs its sections in worker processes, which a failing check below
    # must not leave behind
    reporting = tools.start([py, "-m", "semiprivate", "report", "--quick", "--out", str(work / "report")], log, cwd=work,
                            start_new_session=True)
    try:
        strat = _run([py, "-c", "import semiprivate.theory.audit.strategies as s; print(s.__name__)"], cwd=work, env=env)
        assert strat.returncode == 0 and "semiprivate.theory.audit.strategies" in strat.stdout, strat.stderr

        # README's commands as written from the clone's root, where the checkout's semiprivate/ folder comes
        # first on sys.path: the installed copy runs (tests/packaging/test_source_checkout.py: without one)
        from_root = _run([py, "-m", "semiprivate", "bound", "ABM19.Lem3.3", "--solve", "n_pub", "vc_dim=10",
                          "alpha=0.05", "beta=0.01"], cwd=ROOT, env=env)
        assert from_root.returncode == 0 and "n_pub = 14815" in from_root.stdout, from_root.stderr

        shipped = Path(purelib) / "semiprivate" / "proofs_checks" / "REPORT.md"  # the committed report, shipped as package data
        before = shipped.read_bytes() if shipped.exists() else None
        (work / "proofs").mkdir()
        checks = _run([py, "-m", "semiprivate", "proofs", "--out", str(work / "proofs" / "REPORT.md")], cwd=work,
                      env=env)
        assert checks.returncode == 0, checks.stdout[-3000:] + checks.stderr[-3000:]
        assert (work / "proofs" / "REPORT.md").is_file(), checks.stdout[-500:]
        assert not list(work.glob("*.md")), "semiprivate proofs wrote a file into the current folder"
        after = shipped.read_bytes() if shipped.exists() else None
        assert before == after, "python -m semiprivate.proofs_checks wrote into site-packages"
        assert sorted(p.name for p in Path(purelib).glob("semiprivate/proofs_checks/*.md")) == (["REPORT.md"] if before else [])
        report = tools.finish(reporting, log)
    finally:
        if reporting.poll() is None:
            os.killpg(reporting.pid, signal.SIGKILL)
            reporting.wait()
    text = (work / "report" / "report.md").read_text() if (work / "report" / "report.md").exists() else ""
    assert report.returncode == 0, report.stdout[-6000:]
    assert "Traceback" not in text and "ModuleNotFoundError" not in text


@pytest.mark.slow
def test_the_projects_own_build_makes_a_wheel_with_the_compiled_kernels(compiled_wheel: Path) -> None:
    """``python -m build --wheel`` (isolated, as a release or CI builds) with the compiled kernels required."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    names = zipfile.ZipFile(compiled_wheel).namelist()
    for ext in ("_expmech", "_pca", "_probe"):
        assert f"semiprivate/kernels/_cython/{ext}{suffix}" in names, (ext, [n for n in names if "_cython" in n])


def test_console_script_is_declared() -> None:
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["scripts"]["semiprivate"] == "semiprivate.cli:main"
    assert meta["project"]["name"] == "semiprivate"


def test_runtime_imports_are_declared_dependencies() -> None:
    """hypothesis (semiprivate.theory.audit.strategies, proofs_checks) and scikit-learn are runtime
    dependencies, not only extras."""
    import tomllib

    deps = " ".join(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    for name in ("hypothesis", "scikit-learn", "numpy", "scipy", "sympy", "networkx", "matplotlib"):
        assert name in deps, f"{name} is imported at run time but not in [project.dependencies]"


def test_proofs_checks_never_writes_into_an_installed_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from semiprivate.proofs_checks import report

    monkeypatch.chdir(tmp_path)
    assert report.default_report_path() == report.REPORT_PATH  # this checkout: the committed report
    fake = tmp_path / "lib" / "python3.11" / "site-packages" / "proofs_checks" / "report.py"
    monkeypatch.setattr(report, "__file__", str(fake))
    assert report.default_report_path() == tmp_path / report.INSTALLED_REPORT_NAME

"""Packaging: the project's own build ships the compiled kernels, a non-editable install works from
outside the source tree, the console script is installed, and a fresh virtual environment with
``pip install .`` (no extras) runs every entry point (the declared [project.dependencies] suffice).
The wheel and the fresh venv are built once per session (conftest.py)."""

from __future__ import annotations

import json
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


#: packages of the opt-in extras, each imported only on a path that needs it: extra -> {import name: where}
OPTIONAL_IMPORTS = {
    "dask": {"dask": "a Dask array or client", "distributed": "a Dask client (--workers, client=)",
             "cloudpickle": "sending a function to Dask workers (installed with distributed)"},
    "gpu": {"cupy": "a CuPy array or backend='cupy'", "cupyx": "the CuPy PCA kernel (installed with CuPy)"},
}
#: imports a user's own input brings: import name -> where
INPUT_IMPORTS = {"pandas": "stacking the rows of a pandas DataFrame the user passed"}
#: the package's modules that may import each of the above (the Dask, CuPy and DataFrame paths); the same import
#: anywhere else -- a report section, a learner -- is an undeclared dependency of a path every user runs
ALLOWED_IN = {
    "dask": ["kernels._pca_dask", "theory.distributed"],
    "distributed": ["theory.distributed", "theory.audit.batches", "theory.report.cli"],
    "cloudpickle": ["theory.distributed", "theory.audit.batches"],
    "cupy": ["kernels._backend", "kernels._cupy.exponential", "kernels._cupy.pca", "kernels._exponential",
             "validation", "theory.audit_suite"],
    "cupyx": ["kernels._cupy.pca"],
    "pandas": ["theory.privacy.public_rows"],
}

#: run in the fresh venv: import every module of the installed package, and find every import statement of its
#: files (at module level or inside a function, outside ``if TYPE_CHECKING:``) of a package this environment lacks
IMPORT_EVERY_MODULE = """
import ast, importlib, importlib.util, json, pkgutil, sys, sysconfig
from pathlib import Path

allowed = {name: {f"semiprivate.{m}" for m in modules} for name, modules in json.loads(sys.argv[1]).items()}
plugin = "semiprivate.pytest_plugin"  # loaded by pytest (its pytest11 entry point), which brings pytest
import semiprivate

root = Path(semiprivate.__file__).parent
problems, imported = [], []
for info in pkgutil.walk_packages(semiprivate.__path__, "semiprivate."):
    if info.name == plugin:
        continue
    try:
        importlib.import_module(info.name)
        imported.append(info.name)
    except Exception as exc:
        problems.append(f"import {info.name}: {type(exc).__name__}: {exc}")


def type_checking(node):
    return isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING"


def imports(node):
    for child in ast.iter_child_nodes(node):
        if type_checking(child):
            continue
        if isinstance(child, ast.Import):
            yield child.lineno, [a.name for a in child.names]
        elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
            yield child.lineno, [child.module]
        yield from imports(child)


for path in sorted(root.rglob("*.py")):
    module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
    for line, names in imports(ast.parse(path.read_text(encoding="utf-8"))):
        for name in names:
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "semiprivate" or module in allowed.get(top, ()) \\
                    or (module == plugin and top in ("pytest", "_pytest")):
                continue
            if importlib.util.find_spec(top) is None:
                problems.append(f"{module}, line {line}: imports {name}, which pip install . did not install")

from semiprivate import theory
from semiprivate.proofs_checks.report import quick_outcomes

shipped = quick_outcomes(only=["PILLAR.Alg2.total"])[0]
print(json.dumps({"problems": problems, "imported": imported, "theory": theory.__file__,
                  "purelib": sysconfig.get_paths()["purelib"], "certificate": [shipped.how, shipped.why]}))
"""


@pytest.mark.slow
def test_fresh_venv_without_extras_runs_every_entry_point(runtime_venv: Path, tmp_path: Path, tools: Any) -> None:
    """``pip install .`` (no extras) into a fresh venv: every module of the package imports, and no import
    statement anywhere in it (inside functions too) names a package pip did not install, except those of the
    opt-in extras on the paths that need them (``OPTIONAL_IMPORTS``); ``python -m semiprivate report --quick``
    (two sections, in worker processes), ``python -m semiprivate proofs --only ...`` and, from the checkout's
    root, ``python -m semiprivate bound ...`` run; proofs writes its report where --out says, nothing into the
    current folder or site-packages; the shipped certificates are current in the installed layout (the quick
    report re-checks them instead of running the checks).

    Fails when a runtime import is only in an extra (e.g. hypothesis in ``test``), wherever it is, and when an
    extra's package is imported outside the modules of its path (``ALLOWED_IN``: ``import dask`` in a report
    section is an undeclared dependency of ``report --quick``)."""
    import tomllib

    _run = tools.run
    venv = runtime_venv
    py = str(venv / "bin" / "python")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(OPTIONAL_IMPORTS) <= set(extras), "OPTIONAL_IMPORTS names an extra pyproject.toml does not declare"
    work = tmp_path / "work"
    work.mkdir()

    # the quick report (the longest step) runs on the second core while the other entry points are checked
    log = tmp_path / "report.log"
    # its own process group: the report runs its sections in worker processes, which a failing check below
    # must not leave behind
    reporting = tools.start([py, "-m", "semiprivate", "report", "--quick", "--only", "build", "bounds", "--out",
                             str(work / "report")], log, cwd=work, start_new_session=True)
    try:
        assert set(ALLOWED_IN) == {name for names in OPTIONAL_IMPORTS.values() for name in names} | set(INPUT_IMPORTS)
        found = _run([py, "-c", IMPORT_EVERY_MODULE, json.dumps(ALLOWED_IN)], cwd=work)
        assert found.returncode == 0, found.stderr[-3000:]
        seen = json.loads(found.stdout)
        assert not seen["problems"], "\n".join(seen["problems"])
        assert "semiprivate.theory.audit.strategies" in seen["imported"] and len(seen["imported"]) > 100
        assert Path(seen["theory"]).resolve().is_relative_to(venv.resolve()), "imported theory from outside the venv"
        assert seen["certificate"] == ["re-checked", ""], seen["certificate"]
        purelib = seen["purelib"]

        # README's commands as written from the clone's root, where the checkout's semiprivate/ folder comes
        # first on sys.path: the installed copy runs (tests/packaging/test_source_checkout.py: without one)
        from_root = _run([py, "-m", "semiprivate", "bound", "ABM19.Lem3.3", "--solve", "n_pub", "vc_dim=10",
                          "alpha=0.05", "beta=0.01"], cwd=ROOT)
        assert from_root.returncode == 0 and "n_pub = 14815" in from_root.stdout, from_root.stderr

        shipped = Path(purelib) / "semiprivate" / "proofs_checks" / "REPORT.md"  # the committed report, shipped as package data
        before = shipped.read_bytes() if shipped.exists() else None
        (work / "proofs").mkdir()
        only = ["ABM19.Lem4.4.confidence", "PILLAR.Alg2.total"]  # a FAILS and a HOLDS GIVEN (it rests on a check)
        checks = _run([py, "-m", "semiprivate", "proofs", "--only", *only, "--out", str(work / "proofs" / "REPORT.md")],
                      cwd=work)
        assert checks.returncode == 0, checks.stdout[-3000:] + checks.stderr[-3000:]
        assert "**2 checks:**" in (work / "proofs" / "REPORT.md").read_text(), checks.stdout[-500:]
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
    assert "Build and backends" in text and "Bounds of the four papers" in text, text[:2000]


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

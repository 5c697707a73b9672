"""Packaging: a non-editable ``pip install .`` works from outside the source tree, and the
console script is installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_non_editable_install_imports_from_outside_the_source_tree(tmp_path: Path) -> None:
    target = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--target", str(target), str(ROOT)],
        capture_output=True, text=True, check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    code = (
        "import kernels, theory, proofs_checks, os, sys;"
        "print(os.path.dirname(kernels.__file__));"
        "print(kernels.build_info()['backends'])"
    )
    env = dict(os.environ, PYTHONPATH=str(target))
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stderr
    where, backends = run.stdout.strip().splitlines()
    assert Path(where).resolve().is_relative_to(target.resolve()), where
    assert "cython" in backends, "the wheel does not carry the compiled kernels"
    cli = subprocess.run([sys.executable, "-m", "theory", "--help"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=False)
    assert cli.returncode == 0 and "report" in cli.stdout, cli.stderr
    assert (target / "kernels" / "py.typed").exists() and (target / "theory" / "py.typed").exists()


def test_console_script_is_declared() -> None:
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["scripts"]["semiprivate"] == "theory.__main__:main"
    assert meta["project"]["name"] == "semiprivate"

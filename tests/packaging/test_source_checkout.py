"""From the root of a source checkout, ``python -m semiprivate ...`` runs the installed package.

Python puts the current folder first on ``sys.path`` for ``python -m`` and ``python -c``, so the
checkout's ``semiprivate/`` folder (which holds no ``theory/`` or ``kernels/``: those are top-level
folders that ``pip install .`` installs under this name) is found before the installed copy.  The
package then hands over to the installed copy; with none, it says what to run instead of
"No module named 'semiprivate.theory'".

The interpreter runs with ``-S`` and the environment's site-packages on ``PYTHONPATH``: no ``.pth``
file runs, so an editable install of this checkout does not hide the situation; the "installed copy"
is a link tree of this checkout (``scripts/link_tree.sh``), laid out as ``pip install .`` lays it out.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not (ROOT / "setup.py").is_file() or not (ROOT / "semiprivate").is_dir(),
                                reason="needs the source checkout")


def _site_packages() -> str:
    paths = sysconfig.get_paths()
    return os.pathsep.join(dict.fromkeys([paths["purelib"], paths["platlib"]]))


def _run_from_root(args: list[str], pythonpath: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=pythonpath, MPLBACKEND="Agg", SEMIPRIVATE_BACKEND="numpy")
    return subprocess.run([sys.executable, "-S", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def installed_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("installed")
    subprocess.run(["bash", str(ROOT / "scripts" / "link_tree.sh"), str(where)], check=True)
    return where


def test_python_m_from_the_checkout_root_runs_the_installed_copy(installed_copy: Path) -> None:
    path = os.pathsep.join([str(installed_copy), _site_packages()])
    run = _run_from_root(["-m", "semiprivate", "bound", "ABM19.Lem3.3", "--solve", "n_pub", "vc_dim=10",
                          "alpha=0.05", "beta=0.01"], path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "n_pub = 14815" in run.stdout
    where = _run_from_root(["-c", "import semiprivate.theory as t, semiprivate as s; print(t.__file__); "
                            "print(s.__file__)"], path)
    assert where.returncode == 0, where.stderr
    theory_file, init_file = where.stdout.split()
    assert Path(theory_file).is_relative_to(installed_copy), theory_file
    assert Path(init_file).is_relative_to(installed_copy), "the checkout's __init__ stayed in sys.modules"


def test_without_an_installed_copy_the_message_says_what_to_run() -> None:
    if any((Path(p) / "semiprivate" / "theory").is_dir() for p in _site_packages().split(os.pathsep)):
        pytest.skip("this environment has a non-editable install of the package")
    run = _run_from_root(["-m", "semiprivate", "report", "--quick"], _site_packages())
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert "source checkout" in run.stderr and "pip install ." in run.stderr, run.stderr
    imp = _run_from_root(["-c", "import semiprivate.theory"], _site_packages())
    assert imp.returncode == 1 and "ModuleNotFoundError" in imp.stderr and "pip install ." in imp.stderr, imp.stderr
    # the top-level module itself still imports (its version is read by the build)
    ver = _run_from_root(["-c", "import semiprivate; print(semiprivate.__version__)"], _site_packages())
    assert ver.returncode == 0 and ver.stdout.strip(), ver.stderr


_EDITABLE_FINDER = """
import importlib.util, sys
ROOT = {root!r}
class EditableFinder:  # what setuptools' editable install puts on sys.meta_path: sub-package -> its folder
    @staticmethod
    def find_spec(fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) == 2 and parts[0] == "semiprivate" and parts[1] in ("theory", "kernels", "proofs_checks"):
            folder = f"{{ROOT}}/{{parts[1]}}"
            return importlib.util.spec_from_file_location(fullname, f"{{folder}}/__init__.py",
                                                          submodule_search_locations=[folder])
        return None
sys.meta_path.append(EditableFinder)
import semiprivate, semiprivate.theory.bounds as b
print(semiprivate.SOURCE_CHECKOUT_MESSAGE, semiprivate.__file__, b.__file__)
"""


def test_an_editable_install_is_left_alone() -> None:
    """An editable install maps the sub-packages to the checkout's folders with a finder: nothing to hand over."""
    run = _run_from_root(["-c", _EDITABLE_FINDER.format(root=str(ROOT))], _site_packages())
    assert run.returncode == 0, run.stderr
    message, init_file, bounds_file = run.stdout.split()
    assert message == "None"
    assert Path(init_file) == ROOT / "semiprivate" / "__init__.py"
    assert Path(bounds_file).is_relative_to(ROOT / "theory")

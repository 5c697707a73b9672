"""The suite's pytest-xdist scheduling (the root conftest.py): under ``--dist loadgroup`` the tests of one
``xdist_group`` run in one worker (the packaging tests share one wheel and one fresh venv, the proofs tests one
run of the checks), and the ``slow`` tests are handed out first.

Runs a small suite in a child pytest with two workers and the root conftest.  Without the conftest's hook
(pytest >= 9.2 with pytest-xdist 3.8) the grouped tests are spread over both workers and this test fails."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_MODULE = '''
import os, time
import pytest

pytestmark = pytest.mark.xdist_group("shared")


@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    time.sleep(0.05)
    print(os.environ["PYTEST_XDIST_WORKER"])
'''

_FREE = '''
import pytest


@pytest.mark.parametrize("i", range(6))
def test_free(i):
    pass


@pytest.mark.slow
def test_long():
    pass
'''


def test_grouped_tests_run_in_one_worker_and_slow_tests_go_first(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_a.py").write_text(_MODULE)
    (tmp_path / "test_b.py").write_text(_MODULE)
    (tmp_path / "test_c.py").write_text(_FREE)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: long\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                          "-v", "-p", "no:randomly", str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    passed = re.findall(r"\[(gw\d)\] \[\s*\d+%\] PASSED (\S+)", run.stdout)
    grouped = {(gw, nodeid) for gw, nodeid in passed if "test_grouped" in nodeid}
    assert len(grouped) == 8 and all(nodeid.endswith("@shared") for _, nodeid in grouped), grouped
    assert len({gw for gw, _ in grouped}) == 1, f"one xdist_group ran on several workers: {sorted(grouped)}"
    # the single tests: the slow one is handed out before the others
    free = [nodeid for _, nodeid in passed if "test_c.py" in nodeid]
    assert len(free) == 7 and "test_long" in free[0] + free[1], free


def test_measured_durations_order_the_tests_longest_first(tmp_path: Path) -> None:
    """With a durations file (``pytest --store-durations`` writes it), a test measured as long goes out before
    an unmeasured ``slow`` one (10 s assumed) and before the unmeasured others; ``--store-durations`` writes the
    tests of >= 0.5 s only."""
    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_c.py").write_text(_FREE + "\n\ndef test_half_second():\n    import time\n    time.sleep(0.6)\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: long\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "durations.json").write_text('{"test_c.py::test_free[4]": 30.0}')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "1", "--dist", "loadgroup",
                          "-v", "-p", "no:randomly", "--store-durations", str(tmp_path)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    order = re.findall(r"PASSED (\S+)", run.stdout)
    assert [n.split("::")[1] for n in order[:2]] == ["test_free[4]", "test_long"], order
    stored = json.loads((tmp_path / "tests" / "durations.json").read_text())
    # the 0.6 s test is written and nothing measured under 0.5 s is (the test list itself is not fixed: on a loaded
    # machine an empty test can take 0.5 s too, and is then rightly written)
    assert "test_c.py::test_half_second" in stored and min(stored.values()) >= 0.5, stored
    assert stored.get("test_c.py::test_free[4]") != 30.0, stored  # the file is rewritten from this run, not merged


_SHARED_FIXTURE_MODULE = '''
import os
import pytest


@pytest.fixture(scope="module")
def built():
    with open(os.environ["BUILD_LOG"], "a") as log:
        log.write("built\\n")
    return 1


@pytest.mark.parametrize("i", range(3))
def test_uses_the_module_fixture(built, i):
    assert built == 1
'''


def test_tests_sharing_a_module_fixture_stay_together_so_it_is_built_once(tmp_path: Path) -> None:
    """Measured durations that would interleave two modules' tests (longest first) do not split the tests of a
    module-scoped fixture: pytest would tear it down at the first test of the other module and build it again."""
    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "test_a.py").write_text(_SHARED_FIXTURE_MODULE)
    (tmp_path / "test_b.py").write_text("import pytest\n\n\n@pytest.mark.parametrize('i', range(2))\n"
                                        "def test_alone(i):\n    pass\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: long\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "durations.json").write_text(json.dumps({
        "test_a.py::test_uses_the_module_fixture[0]": 5.0, "test_b.py::test_alone[0]": 4.0,
        "test_a.py::test_uses_the_module_fixture[1]": 3.0, "test_b.py::test_alone[1]": 2.0}))
    log = tmp_path / "builds.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")} | {"BUILD_LOG": str(log)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "1", "--dist", "loadgroup",
                          "-v", "-p", "no:randomly", str(tmp_path)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    order = [n.split("::")[0] for n in re.findall(r"PASSED (\S+)", run.stdout)]
    # the module's block (8 s measured in all) goes out first, before the other module's 4 s and 2 s tests
    assert order == ["test_a.py"] * 3 + ["test_b.py"] * 2, order
    assert log.read_text().count("built") == 1, log.read_text()

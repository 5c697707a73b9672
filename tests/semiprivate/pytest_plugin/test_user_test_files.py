"""The pytest plugin (semiprivate.pytest_plugin) as a user meets it: pytest runs a user's test file
in a subprocess, in a folder of its own (no project conftest, no project ini).

Statistical tests: the audits here run with fixed seeds; the correct mechanisms of the example
file pass with probability >= 0.999 each (the plugin's default confidence), and the broken one
(true epsilon 10 against a claim of 1) is caught with a p-value below 1e-100 at 100,000 trials.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "test_user_mechanisms.py"
PLUGIN = "semiprivate.pytest_plugin"


def _plugin_args() -> list[str]:
    """``-p semiprivate.pytest_plugin`` unless the installed package registers it (pytest11)."""
    registered = any(ep.value == PLUGIN for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if registered else ["-p", PLUGIN]


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers",
                           *_plugin_args(), *args], cwd=folder, capture_output=True, text=True, env=env,
                          check=False, timeout=300)


def _failure_section(output: str, test: str) -> list[str]:
    """The lines of ``test``'s failure section (after its ``____ test ____`` header)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(rf"_+ {test} _+", line))
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"(_{3,} \w|={3,} )", lines[i])), len(lines))
    return lines[start + 1:end]


@pytest.mark.slow
def test_the_example_user_file_passes_two_and_fails_the_broken_one_with_the_audit_report(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    run = _pytest(tmp_path, EXAMPLE.name)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert re.search(r"\b1 failed, 2 passed\b", out), out
    section = _failure_section(run.stdout, "test_noisy_sum_is_private")
    # the failure output starts with the audit report, not with library (or user) source
    assert section[0] == "DP audit: noisy_sum_wrong_sensitivity is not (1, 0)-DP", section[:5]
    assert section[1].startswith("claimed (epsilon, delta) = (1, 0); epsilon lower bound = "), section[:5]
    assert "-> VIOLATION" in section[1]
    assert any(line.startswith("event E = ") for line in section), section
    assert not any(".py:" in line or line.lstrip().startswith(("def ", ">", "E ")) for line in section), section


USER_FILE = '''
import json, os
import numpy as np
import pytest

def laplace_count(data, size, rng):
    return sum(data) + rng.laplace(scale=1.0, size=size)

def _record(name, res):
    with open(os.environ["DP_RECORD"], "a") as fh:
        fh.write(json.dumps({"test": name, "trials": res.trials_used, "confidence": res.confidence,
                             "bound": res.epsilon_lower_bound, "epsilon": res.epsilon}) + "\\n")

def test_options(dp_audit):
    _record("options", dp_audit(laplace_count, [1, 0], [1, 1], epsilon=1.0))

@pytest.mark.dp_audit(epsilon=2.0, trials=3000, confidence=0.9)
def test_marker(dp_audit):
    _record("marker", dp_audit(laplace_count, [1, 0], [1, 1]))

@pytest.mark.dp_audit(epsilon=2.0, trials=3000)
def test_call_wins(dp_audit):
    _record("call", dp_audit(laplace_count, [1, 0], [1, 1], epsilon=1.5, trials=4000))

def test_no_claim(dp_audit):
    dp_audit(laplace_count, [1, 0], [1, 1])
'''


def _records(tmp_path: Path, *args: str) -> tuple[dict[str, dict[str, float]], str]:
    record = tmp_path / "record.jsonl"
    record.unlink(missing_ok=True)
    os.environ["DP_RECORD"] = str(record)
    try:
        run = _pytest(tmp_path, "test_user.py", *args)
    finally:
        del os.environ["DP_RECORD"]
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    return {r["test"]: r for r in rows}, run.stdout + run.stderr


SEEDED = ("--dp-trials", "2000", "--dp-confidence", "0.8", "--dp-seed", "5")


@pytest.fixture(scope="module")
def seeded_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, float]], str]:
    """USER_FILE run once with :data:`SEEDED`: the records of its audits and the run's output."""
    folder = tmp_path_factory.mktemp("seeded")
    (folder / "test_user.py").write_text(USER_FILE)
    return _records(folder, *SEEDED)


@pytest.mark.slow
@pytest.mark.xdist_group("user_file_seeded_run")  # one worker: one run of the shared fixture
def test_options_marker_and_call_settings_reach_the_audit(seeded_run: tuple[dict[str, dict[str, float]], str]) -> None:
    rec, out = seeded_run
    # selection uses max(10_000, trials // 4) draws per dataset, estimation `trials`: 2 datasets
    assert rec["options"]["trials"] == 2 * (2000 + 10_000) and rec["options"]["confidence"] == 0.8, rec
    assert rec["marker"]["trials"] == 2 * (3000 + 10_000) and rec["marker"]["confidence"] == 0.9, rec
    assert rec["marker"]["epsilon"] == 2.0
    assert rec["call"]["trials"] == 2 * (4000 + 10_000) and rec["call"]["epsilon"] == 1.5, rec
    # a test without a claim is told how to give one
    assert "dp_audit needs the claimed epsilon" in out and re.search(r"\b1 failed, 3 passed\b", out), out


@pytest.mark.slow
@pytest.mark.xdist_group("user_file_seeded_run")
def test_the_seed_option_makes_audits_reproducible_and_changes_them(
        tmp_path: Path, seeded_run: tuple[dict[str, dict[str, float]], str]) -> None:
    """A second process with the same options repeats the first run's audit; another seed changes it."""
    (tmp_path / "test_user.py").write_text(USER_FILE)
    a, _ = seeded_run
    b, _ = _records(tmp_path, *SEEDED, "-k", "options")
    c, _ = _records(tmp_path, *SEEDED[:-1], "6", "-k", "options")
    assert a["options"]["bound"] == b["options"]["bound"]
    assert a["options"]["bound"] != c["options"]["bound"]


def test_bad_option_values_are_usage_errors_naming_the_option(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(USER_FILE)
    for option, value in (("--dp-confidence", "1.5"), ("--dp-trials", "0"), ("--dp-seed", "-1")):
        run = _pytest(tmp_path, "test_user.py", option, value)
        assert run.returncode == 4, (option, run.stdout, run.stderr)
        assert option in run.stderr, run.stderr


def test_a_run_that_does_not_use_the_fixture_never_loads_the_auditor(tmp_path: Path) -> None:
    """The plugin is loaded in every pytest run once semiprivate is installed: it must stay light."""
    (tmp_path / "test_plain.py").write_text(
        "import sys\n"
        "def test_plain():\n"
        "    assert not [m for m in sys.modules if m.startswith(('semiprivate.theory', 'numpy', 'scipy'))]\n")
    run = _pytest(tmp_path, "test_plain.py")
    assert run.returncode == 0, run.stdout + run.stderr

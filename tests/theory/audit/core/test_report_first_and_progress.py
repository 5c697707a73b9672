"""What a user sees: a failing assert_private shows the audit report, not library source; long audits show progress."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from semiprivate.theory.audit import audit_mechanism, audit_pairs
from semiprivate.theory.audit.examples import Laplace
from semiprivate.theory.audit.options import AuditOptions

USER_TEST = '''
import numpy as np
from semiprivate.theory.audit import assert_private


def half_noise(data, size, rng):
    return data + rng.laplace(0.0, 0.5, size)  # claims eps 1, is eps 2


def test_user_mechanism():
    assert_private(half_noise, 0.0, 1.0, epsilon=1.0, trials=50_000, rng=0)
'''


@pytest.mark.slow
def test_failing_assert_private_shows_the_report_and_no_library_source(tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(USER_TEST)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_user.py"],
                          cwd=tmp_path, capture_output=True, text=True, env={**os.environ}, timeout=300)
    out = proc.stdout
    assert proc.returncode == 1, out
    failure = out[out.index("test_user_mechanism"):]
    # the user's own line, then the report; no frame of the library (its source lines or file names)
    assert "assert_private(half_noise" in failure
    assert "is not (1, 0)-DP" in failure and "epsilon lower bound" in failure and "VIOLATION" in failure
    assert "core.py" not in failure and "__tracebackhide__" not in failure and "res = audit_mechanism" not in failure


def test_progress_bar_when_asked_and_silent_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    audit_mechanism(Laplace(), np.ones(1), np.zeros(1), epsilon=0.1, trials=20_000, rng=0, options=AuditOptions(progress=True))
    err = capsys.readouterr().err
    assert "audit" in err and "outputs" in err
    audit_mechanism(Laplace(), np.ones(1), np.zeros(1), epsilon=0.1, trials=20_000, rng=0)  # default: not a tty
    assert capsys.readouterr().err == ""


def test_progress_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="progress"):
        audit_pairs(Laplace(), [(np.ones(1), np.zeros(1))], epsilon=0.1, trials=1000, options=AuditOptions(progress="yes"))  # type: ignore[arg-type]


def test_progress_does_not_change_the_result() -> None:
    kw = dict(epsilon=0.1, trials=20_000, rng=3)
    a = audit_mechanism(Laplace(), np.ones(1), np.zeros(1), options=AuditOptions(progress=True), **kw)  # type: ignore[arg-type]
    b = audit_mechanism(Laplace(), np.ones(1), np.zeros(1), options=AuditOptions(progress=False), **kw)  # type: ignore[arg-type]
    assert a.epsilon_lower_bound == b.epsilon_lower_bound and a.trials_used == b.trials_used


def test_progress_bar_counts_every_output_the_audit_draws(capsys: pytest.CaptureFixture[str]) -> None:
    """Selection and estimation: 2 datasets x (10,000 + 20,000); user events: 2 x 20,000 (no selection)."""
    audit_mechanism(Laplace(), np.ones(1), np.zeros(1), epsilon=0.1, trials=20_000, rng=0, options=AuditOptions(progress=True))
    assert "/60.0k" in capsys.readouterr().err
    audit_mechanism(Laplace(), np.ones(1), np.zeros(1), epsilon=0.1, trials=20_000, rng=0, options=AuditOptions(progress=True),
                    events=[lambda o: np.asarray(o) > 0])
    assert "/40.0k" in capsys.readouterr().err

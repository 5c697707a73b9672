"""``semiprivate.kernels.validation``, the input rules' old place, is the same module under a deprecated name."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import warnings
warnings.simplefilter("error", DeprecationWarning)
import semiprivate.validation as new
try:
    import semiprivate.kernels.validation
except DeprecationWarning as w:
    print("warned:", w)
warnings.simplefilter("ignore", DeprecationWarning)
import semiprivate.kernels.validation as old
from semiprivate.kernels import validation as attr
print(old is new, attr is new, old.COIN_OBSERVERS is new.COIN_OBSERVERS, old.registered_functions is new.registered_functions)
"""


def test_old_name_warns_and_gives_the_same_module() -> None:
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("warned: semiprivate.kernels.validation is deprecated: import semiprivate.validation")
    assert lines[1] == "True True True True"


def test_kernels_and_theory_import_the_rules_from_the_neutral_module() -> None:
    code = ("import sys, semiprivate.theory.learners, semiprivate.kernels;"
            "print('semiprivate.kernels.validation' in sys.modules)")
    proc = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"

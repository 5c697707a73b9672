"""Root conftest: keeps doctest collection away from modules that need CuPy when it is absent."""

from __future__ import annotations

import importlib.util

collect_ignore = ["setup.py", "build"]
collect_ignore_glob = ["benchmarks/*"]
if importlib.util.find_spec("cupy") is None:
    collect_ignore_glob.append("kernels/_cupy/*.py")

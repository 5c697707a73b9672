"""Pieces shared by the benchmarks that stream from disk or time calls on a shared machine
(bench_pca.py, bench_dpsgd.py): the pause before each timed call (the timing itself is semiprivate.kernels._timing), BLAS description, a memory-mapped data file
written block by block, and a child process that reports its peak resident set.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# Idle time before each timed call.  NumPy, SciPy and torch each bundle their own thread pools, and
# an OpenBLAS / OpenMP pool keeps its threads spinning for a while after a call: without a pause a
# method timed right after another shares the cores with the first one's spinning threads (seen as
# up to 3x swings on 2 cores).  The pause lets every call start with idle pools, as in user code.
PAUSE_S = 0.25


def finish(rows: list[str], out: Path | None) -> int:
    """Print the markdown ``rows`` (and write them to ``out`` when given); the exit status 0."""
    text = "\n".join(rows) + "\n"
    if out is not None:
        out.write_text(text)
    print(text)
    return 0


def blas_info() -> str:
    """NumPy's BLAS as threadpoolctl reports it: library, version, threading layer, threads, SIMD arch."""
    from threadpoolctl import threadpool_info

    out = []
    for lib in threadpool_info():
        if lib.get("user_api") == "blas" and "numpy" in str(lib.get("filepath", "")):
            out.append(f"{lib.get('internal_api')} {lib.get('version')} ({lib.get('threading_layer', '?')} threads, "
                       f"{lib.get('num_threads')} threads, arch {lib.get('architecture', '?')})")
    return "; ".join(out) or "unknown"


# Source of ``peak_rss()`` for the child processes: VmHWM, this process image's peak resident set
# (file-backed pages included).  Not resource.getrusage: on Linux its ru_maxrss survives exec and
# would report the parent's peak.
PEAK_RSS_SRC = r'''
def peak_rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
'''

# Start of a child script (``str.format`` placeholder ``root``: the repository root).
CHILD_HEAD = "import sys, time\nimport numpy as np\nfrom semiprivate import kernels\nimport semiprivate.kernels._pca\n" + PEAK_RSS_SRC


def run_child(code: str) -> list[str]:
    """Run ``code`` in a fresh interpreter; its stdout split into words."""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return res.stdout.split()


def write_memmap(prefix: str, n: int, d: int, block: Callable[[int, int], np.ndarray],
                 step: int = 50_000) -> tuple[Path, float]:
    """A float32 ``.npy`` memmap of shape (n, d) under /tmp, rows ``s:s+m`` filled by ``block(s, m)``;
    returns (path, seconds taken).  The caller deletes the file."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".npy", dir="/tmp")
    os.close(fd)
    path = Path(name)
    t0 = time.perf_counter()
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, d))
    for s in range(0, n, step):
        m = min(step, n - s)
        mm[s:s + m] = block(s, m)
    mm.flush()
    del mm
    return path, time.perf_counter() - t0

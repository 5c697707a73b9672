"""The BLAS thread pools of this process, for code that runs its own threads.

Work split over threads of its own (the PCA's block folding, the auditor's counting batches) calls
BLAS inside each thread; a BLAS pool of its own under each of them oversubscribes the cores, and
OpenBLAS's idle threads then spin instead of sleeping.  Such code limits the BLAS to one thread
while it runs (``blas_controller().limit(limits=1, user_api="blas")``).
"""

from __future__ import annotations

from typing import Any

from semiprivate.kernels._memo import memo
from threadpoolctl import ThreadpoolController

__all__ = ["blas_controller"]


@memo(maxsize=1)
def blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded in this process (cached: its
    construction scans the loaded libraries; the thread counts it reports are read live).  A registered memo
    (``semiprivate.kernels._memo``), not a module global set on first use: a search that hides its number of runs
    puts it back with every other table (a run of one candidate builds it, another's does not)."""
    return ThreadpoolController().select(user_api="blas")

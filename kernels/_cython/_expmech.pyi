"""Type stub for the compiled exponential-mechanism kernels (kernels/_cython/_expmech.pyx)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

CHUNK: int
TABLE_MAX: int

def threads_used() -> int: ...
def exp_neg(x: NDArray[np.float64]) -> NDArray[np.float64]: ...
def int_table(c: float) -> NDArray[np.float64]: ...
def sample(
    scores: NDArray[Any],
    c: float,
    u1: NDArray[np.float64],
    u2: NDArray[np.float64],
    out: NDArray[np.int64],
) -> int: ...
def error_counts_packed(P: NDArray[np.uint64], lab: NDArray[np.uint64], out: NDArray[np.int64]) -> int: ...

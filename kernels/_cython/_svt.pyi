import numpy as np
from numpy.typing import NDArray

def responses(compare: NDArray[np.float64], thresholds: NDArray[np.float64], values: NDArray[np.float64],
              has_values: bool, cutoff: int, above: float, below: float, aborted: float,
              out: NDArray[np.float64]) -> None: ...
def pattern_codes(x: NDArray[np.float64], cols: NDArray[np.int64], atoms: NDArray[np.float64],
                  out: NDArray[np.int64]) -> None: ...
def pattern_keys(x: NDArray[np.float64], cols: NDArray[np.int64], atoms: NDArray[np.float64],
                 edges: NDArray[np.float64], binned: bool, out: NDArray[np.int64]) -> None: ...

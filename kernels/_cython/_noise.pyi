from typing import Any

import numpy as np
from numpy.typing import NDArray

def draw(L: NDArray[np.uint64], H: NDArray[np.uint64], guide: NDArray[np.int32], guide_bits: int, xmin: int,
         lower_closed: bool, upper_closed: bool, capsule: Any,
         out: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.uint64]]: ...
def classify(L: NDArray[np.uint64], H: NDArray[np.uint64], guide: NDArray[np.int32], guide_bits: int, xmin: int,
             lower_closed: bool, upper_closed: bool, words: NDArray[np.uint64], out: NDArray[np.int64],
             unsure: NDArray[np.uint8]) -> None: ...
def draw_into(L: NDArray[np.uint64], H: NDArray[np.uint64], guide: NDArray[np.int32], guide_bits: int, xmin: int,
              lower_closed: bool, upper_closed: bool, capsule: Any, out: NDArray[np.int64], mult: int,
              add: bool, y: NDArray[np.int64] | None = ...) -> tuple[NDArray[np.int64], NDArray[np.uint64],
                                                                      NDArray[np.int64], int]: ...
def gaussian_coins(y: NDArray[np.int64], centre: float, two_sigma2: float, capsule: Any,
                   keep: NDArray[np.uint8], margin: float = ...) -> tuple[NDArray[np.int64], NDArray[np.uint64]]: ...
def accept_compact(y: NDArray[np.int64], keep: NDArray[np.uint8], pending: NDArray[np.int64],
                   out: NDArray[np.int64]) -> int: ...

"""A/B timing of two builds of the exponential-mechanism kernel (float64, N = 1e7, one draw).

Usage::

    python benchmarks/ab_exponential.py PATH_TO_TREE        # prints one JSON line of medians (s)

``PATH_TO_TREE`` is a source tree whose ``kernels`` package has been built in place (e.g. an old
commit: ``git archive OLD kernels setup.py pyproject.toml README.md | tar -x -C /tmp/old`` then
``python setup.py build_ext --inplace`` there).  Run it alternately on the two trees, several
times, and compare medians: two builds of one extension module cannot share a process.  Keys:
``cy2`` the compiled sampler with the default OpenMP threads, ``cy1`` with one thread
(threadpoolctl), ``sum`` ``np.sum`` over the same array (the memory floor), ``soft`` the NumPy
softmax + ``Generator.choice`` baseline.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    sys.path.insert(0, argv[0])
    import numpy as np
    from semiprivate import kernels
    from threadpoolctl import threadpool_limits

    g = np.random.default_rng(0)
    n = 10**7
    x = g.standard_normal(n) * 3.0

    def med(fn: Callable[[], object], reps: int = 9) -> float:
        fn()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)

    def softmax_choice() -> object:
        z = x * 0.5
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        return g.choice(n, size=1, p=p)

    r = {"kernels": kernels.__file__, "cy2": med(lambda: kernels.exponential_mechanism(x, 1.0, rng=1, backend="cython"))}
    with threadpool_limits(1, user_api="openmp"):
        r["cy1"] = med(lambda: kernels.exponential_mechanism(x, 1.0, rng=1, backend="cython"))
    r["sum"] = med(lambda: np.sum(x))
    r["soft"] = med(softmax_choice, 5)
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

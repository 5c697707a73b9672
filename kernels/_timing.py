"""Wall-clock timing of calls, for the benchmarks and the report: one helper for the whole project.

:func:`time_call` times one callable (untimed warm-up calls first, an optional idle pause before
each timed call); :func:`time_interleaved` times several callables in interleaved rounds, so that
a change of load on a shared machine hits all of them alike and per-round ratios
(:func:`paired_ratios`) compare like with like.  A :class:`Timing` keeps every sample.

No test asserts on these numbers (wall time depends on the machine's load); the speed guards are
the benchmarks' ``--check`` modes (``scripts/bench_check.sh``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Timing", "time_call", "time_interleaved", "paired_ratios"]


@dataclass(frozen=True)
class Timing:
    """The timed runs (seconds, in the order they ran) of one callable, after ``warmup`` untimed
    ones; ``last`` is what the last timed call returned."""

    samples: tuple[float, ...]
    warmup: int
    last: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.samples:
            raise ValueError("samples must hold at least one timed run")

    @property
    def repeats(self) -> int:
        return len(self.samples)

    @property
    def median(self) -> float:
        return float(statistics.median(self.samples))

    @property
    def best(self) -> float:
        return float(min(self.samples))

    @property
    def q1(self) -> float:
        return _quartiles(self.samples)[0]

    @property
    def q3(self) -> float:
        return _quartiles(self.samples)[1]

    def ms(self) -> str:
        """``12.3 ms [11.9, 13.0]``: the median and the quartiles in milliseconds."""
        return f"{self.median * 1e3:.3g} ms [{self.q1 * 1e3:.3g}, {self.q3 * 1e3:.3g}]"


def _quartiles(xs: tuple[float, ...]) -> tuple[float, float]:
    if len(xs) < 2:
        return float(xs[0]), float(xs[0])
    q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return float(q1), float(q3)


def _check_counts(repeats: int, warmup: int) -> None:
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0, got {warmup!r}")


def _one(fn: Callable[[], Any], pause: float) -> tuple[float, Any]:
    if pause > 0:
        time.sleep(pause)
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def time_call(
    fn: Callable[[], Any],
    repeats: int = 7,
    warmup: int = 1,
    *,
    pause: float = 0.0,
    min_seconds: float = 0.0,
    max_repeats: int | None = None,
) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls (caches, thread pools, lazy imports), then at least
    ``repeats`` timed ones, more while their total is below ``min_seconds`` (at most
    ``max_repeats`` in all, when given).  ``pause`` seconds of sleep before each timed call let the BLAS/OpenMP
    pools of an earlier call stop spinning.

    >>> t = time_call(lambda: sum(range(100)), repeats=5)
    >>> t.q1 <= t.median <= t.q3 and t.repeats == 5
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    _check_counts(repeats, warmup)
    cap = None if max_repeats is None else max(repeats, int(max_repeats))
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    last: Any = None
    while len(samples) < repeats or (sum(samples) < min_seconds and (cap is None or len(samples) < cap)):
        t, last = _one(fn, pause)
        samples.append(t)
    return Timing(tuple(samples), warmup, last)


def time_interleaved(
    methods: Mapping[str, Callable[[], Any]], repeats: int = 7, warmup: int = 1, *, pause: float = 0.0
) -> dict[str, Timing]:
    """Time every callable of ``methods`` in ``repeats`` rounds of one call each, in the given
    order, after ``warmup`` untimed rounds; sample ``i`` of every method comes from round ``i``.

    >>> t = time_interleaved({"a": lambda: None, "b": lambda: None}, repeats=3)
    >>> sorted(t), t["a"].repeats
    (['a', 'b'], 3)
    """
    for name, fn in methods.items():
        if not callable(fn):
            raise TypeError(f"methods[{name!r}] must be callable, got {type(fn).__name__}")
    _check_counts(repeats, warmup)
    for _ in range(warmup):
        for fn in methods.values():
            fn()
    samples: dict[str, list[float]] = {name: [] for name in methods}
    last: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in methods.items():
            t, last[name] = _one(fn, pause)
            samples[name].append(t)
    return {name: Timing(tuple(ts), warmup, last[name]) for name, ts in samples.items()}


def paired_ratios(a: Timing, b: Timing) -> list[float]:
    """Per-round ratios ``a / b`` of two timings from :func:`time_interleaved` (same round count).

    >>> paired_ratios(Timing((2.0, 4.0), 0), Timing((1.0, 1.0), 0))
    [2.0, 4.0]
    """
    if a.repeats != b.repeats:
        raise ValueError(f"paired timings need equal repeats, got {a.repeats} and {b.repeats}")
    return [x / y for x, y in zip(a.samples, b.samples)]

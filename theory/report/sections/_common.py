"""Shared helpers of the report sections: colour-blind-safe palette, figure style, timings.

Figures: labelled axes with units, a legend, the Okabe-Ito palette (safe for the common
colour-vision deficiencies; matplotlib's default "tab10" is not), readable at 100% zoom
(``FIGSIZE`` about 7 x 4.5 inches per panel at ``DPI`` 120, fonts >= 9 pt).

Timings in the report are *indicative*: each is the median of several runs after warm-up
runs, shown with its spread (interquartile range), lower is better; the benchmarks in
``benchmarks/`` are the reference.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["OKABE_ITO", "FIGSIZE", "DPI", "style", "Timing", "time_call", "cpu_name", "timing_note"]

#: Okabe & Ito (2008) colour-blind-safe palette: black, orange, sky blue, bluish green, yellow,
#: blue, vermillion, reddish purple.
OKABE_ITO = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"]
FIGSIZE = (7.0, 4.5)
DPI = 120


def style(plt: Any) -> None:
    """Readable fonts and the Okabe-Ito colour cycle for the figures that follow."""
    from cycler import cycler

    plt.rcParams.update({
        "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9,
        "xtick.labelsize": 9, "ytick.labelsize": 9,
        "axes.prop_cycle": cycler(color=[OKABE_ITO[i] for i in (5, 6, 3, 1, 7, 2, 0, 4)]),
    })


@dataclass(frozen=True)
class Timing:
    """Median and interquartile range (seconds) of ``repeats`` timed runs after ``warmup`` runs."""

    median: float
    q1: float
    q3: float
    repeats: int
    warmup: int

    def ms(self) -> str:
        """``12.3 ms [11.9, 13.0]``."""
        return f"{self.median * 1e3:.3g} ms [{self.q1 * 1e3:.3g}, {self.q3 * 1e3:.3g}]"


def time_call(fn: Callable[[], Any], repeats: int = 7, warmup: int = 2) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls (caches, thread pools, lazy imports), then
    ``repeats`` timed ones; the median and the quartiles of those.

    >>> t = time_call(lambda: sum(range(100)), repeats=5, warmup=1)
    >>> t.q1 <= t.median <= t.q3 and t.repeats == 5
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0, got {warmup!r}")
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    if len(ts) >= 2:
        q1, _, q3 = statistics.quantiles(ts, n=4, method="inclusive")
    else:
        q1 = q3 = ts[0]
    return Timing(statistics.median(ts), q1, q3, repeats, warmup)


def cpu_name() -> str:
    """The CPU model (:func:`semiprivate.kernels._backend.cpu_model`)."""
    from semiprivate.kernels._backend import cpu_model

    return cpu_model()


def timing_note(repeats: int, warmup: int) -> str:
    """The sentence that goes with every timing table of the report."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    return (f"Indicative timings, lower is better: median of {repeats} runs after {warmup} warm-up runs, "
            f"[interquartile range] in brackets, all measured in this run on the same data "
            f"({cpu_name()}, {os.cpu_count()} logical CPUs, 1-min load average {load:.1f}). A shared or "
            "loaded machine moves them by tens of percent; the benchmarks in `benchmarks/` are the reference.")

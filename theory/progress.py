"""Progress bars of the toolkit's long runs: one convention for every ``progress=`` parameter.

``progress=None`` shows a tqdm bar on stderr when stderr is a terminal and the run is long (so never
under pytest or in a pipe); ``True`` / ``False`` force it on / off; anything else is a TypeError
naming the parameter.  Used by :func:`semiprivate.theory.distributed.monte_carlo` and the private SGD trainers
of :mod:`semiprivate.theory.privacy.noisy_sgd` and :mod:`semiprivate.theory.privacy.dpsgd` (and, through them, the halfspace estimators).
"""

from __future__ import annotations

import sys
from typing import Any

from semiprivate.validation import Boolean, Integer, Optional, validate_params

__all__ = ["progress_bar"]


@validate_params(progress=Optional(Boolean()), total=Integer(0), threshold=Integer(0))
def progress_bar(progress: Any, total: int, *, threshold: int, desc: str, unit: str = "it") -> Any:
    """A tqdm bar over ``total`` units on stderr (disabled when not shown: updating it costs nothing).

    >>> bar = progress_bar(False, 10, threshold=1, desc="demo")
    >>> bar.disable
    True
    >>> progress_bar("yes", 10, threshold=1, desc="demo")
    Traceback (most recent call last):
    ...
    TypeError: progress must be a bool, got 'yes' (str)
    """
    for name, text in (("desc", desc), ("unit", unit)):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a string, got {type(text).__name__}")
    show = (sys.stderr.isatty() and total >= threshold) if progress is None else bool(progress)
    from tqdm.auto import tqdm

    return tqdm(total=int(total), desc=desc, disable=not show, file=sys.stderr, unit=unit)

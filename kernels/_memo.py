"""Memoisation without a hit counter: :func:`memo`, the package's one cache decorator.

``functools.lru_cache`` keeps ``cache_info()`` hits and misses, which count every call: a cache on the path a
release runs then counts its runs, and a wrapper whose guarantee assumes the number of runs hidden (random
stopping's K, Papernot and Steinke 2022) shows it to anyone who reads the counter.  :func:`memo` stores what was
computed and nothing about how often it was asked for: its state is a function of the distinct arguments seen
(first-in first-out beyond ``maxsize``; a hit changes nothing), and it offers ``cache_clear()`` only.  An
architecture test (``tests/test_architecture.py``) forbids ``functools.lru_cache`` and ``functools.cache`` in the
package.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["memo"]

F = TypeVar("F", bound=Callable[..., Any])


def memo(maxsize: int) -> Callable[[F], F]:
    """Cache a pure function of hashable arguments, keeping at most ``maxsize`` results, with no counter.

    Parameters
    ----------
    maxsize : int
        The most results kept (>= 1); the oldest is dropped first.  A hit neither moves nor counts anything.

    Returns
    -------
    callable
        A decorator; the decorated function has ``cache_clear()``.

    Examples
    --------
    >>> from semiprivate.kernels._memo import memo
    >>> @memo(maxsize=2)
    ... def square(x):
    ...     return x * x
    >>> square(3), square(3)
    (9, 9)
    >>> hasattr(square, "cache_info")
    False
    """
    if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
        raise ValueError(f"maxsize must be an int >= 1, got {maxsize!r}")

    def decorate(fn: F) -> F:
        results: dict[Any, Any] = {}
        lock = threading.Lock()

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            try:
                return results[key]
            except KeyError:
                pass
            value = fn(*args, **kwargs)
            with lock:
                if key not in results:
                    while len(results) >= maxsize:
                        del results[next(iter(results))]
                    results[key] = value
            return results.get(key, value)

        def cache_clear() -> None:
            with lock:
                results.clear()

        wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate

"""Seeded batches of work, run locally or on an executor (a Dask client or a concurrent.futures pool).

The auditor and the Monte Carlo helpers split many trials into batches whose random streams are
children of one :class:`numpy.random.SeedSequence`, one child per batch, in a fixed order.  The
batches depend only on the root seed and the batch size, never on who runs them, so a result is
identical whether the batches run in this process, on a 2-worker ``LocalCluster`` or on a cluster
of any size (tested).

An *executor* is one of

* ``None``: run the batches here, one after the other;
* a ``dask.distributed.Client`` (anything with ``submit``/``gather``/``map`` and a ``status``):
  one task per batch, ``client.map`` then ``client.gather``; function and arguments are shipped
  with cloudpickle, so closures and lambdas work;
* a :class:`concurrent.futures.Executor` (anything with ``map`` only): ``executor.map``; with a
  process pool, functions must be picklable by :mod:`pickle` (module-level).

Implements: AUDIT (trial batches for scale-out; see ``semiprivate.theory.distributed`` for the Dask helpers).
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["batch_sizes", "run_batches", "is_dask_client", "check_executor"]

#: seconds to wait for the batches of one call on a Dask client before raising TimeoutError
DEFAULT_TIMEOUT = 3600.0
#: an argument shared by every batch and larger than this (pickled bytes) is scattered to the
#: workers once rather than shipped with each task (Dask only)
SCATTER_BYTES = 100_000


def batch_sizes(n: int, batch_size: int) -> list[int]:
    """``n`` split into batches of ``batch_size`` (the last one smaller).

    >>> batch_sizes(10, 4)
    [4, 4, 2]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    full, rest = divmod(int(n), int(batch_size))
    return [int(batch_size)] * full + ([rest] if rest else [])


def is_dask_client(executor: Any) -> bool:
    """Duck-typed test for a ``dask.distributed.Client``."""
    return all(hasattr(executor, a) for a in ("submit", "gather", "map", "status"))


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str (the parameter named in error messages), got {name!r}")


def check_executor(executor: Any, name: str = "executor") -> None:
    """Refuse what cannot run batches, and a closed Dask client, with a message saying what to pass."""
    _check_name(name)
    if executor is None:
        return
    if is_dask_client(executor):
        status = getattr(executor, "status", None)
        if status not in ("running", "connecting", "newly-created"):
            raise ValueError(f"{name}: the Dask client is {status!r}, not running; "
                             "create a new one (dask.distributed.Client(...)) or pass None to run here")
        return
    if not callable(getattr(executor, "map", None)):
        raise TypeError(f"{name} must be None, a dask.distributed.Client or a concurrent.futures.Executor, "
                        f"got {type(executor).__name__}")


def _scatter_shared(client: Any, columns: list[tuple[Any, ...]], sizes: list[int]) -> list[Any]:
    """Columns whose entries are one large object: that object scattered once, its future in every task."""
    out: list[Any] = []
    for col, size in zip(columns, sizes):
        if size > SCATTER_BYTES and len(col) > 1 and all(x is col[0] for x in col):
            fut = client.scatter([col[0]], broadcast=True, hash=False)[0]  # a list: never split a list/dict
            out.append([fut] * len(col))
        else:
            out.append(col)
    return out


def _check_picklable(executor: Any, fn: Callable[..., Any], args: Sequence[Any], name: str) -> list[int]:
    """A function or argument the workers cannot receive fails here, with its name, not deep in a worker.

    Returns the pickled size of each argument (0 where nothing is pickled: threads)."""
    if is_dask_client(executor):
        import cloudpickle  # a dependency of distributed

        dumps: Callable[[Any], bytes] = cloudpickle.dumps
        how = "cloudpickle (Dask)"
    else:
        import concurrent.futures

        if not isinstance(executor, concurrent.futures.ProcessPoolExecutor):
            return [0] * len(args)  # threads share memory: nothing is pickled
        dumps = pickle.dumps
        how = "pickle (process pool)"
    sizes = []
    for label, obj in (("the function", fn), *((f"argument {i}", a) for i, a in enumerate(args))):
        try:
            sizes.append(len(dumps(obj)))
        except Exception as exc:
            raise TypeError(f"{name}: {label} cannot be sent to the workers with {how}: "
                            f"{type(exc).__name__}: {exc}. Define it at module level (process pools) "
                            "or make its captured objects picklable") from None
    return sizes[1:]


def run_batches(fn: Callable[..., Any], batches: Sequence[tuple[Any, ...]], executor: Any = None, *,
                timeout: float | None = DEFAULT_TIMEOUT, name: str = "executor") -> list[Any]:
    """``[fn(*b) for b in batches]``, here or on ``executor``, results in the order of ``batches``.

    ``timeout`` (seconds, Dask only) bounds the wait for all results; a dead cluster raises
    :class:`TimeoutError` instead of hanging.

    On a Dask client, an argument that is the same object in every batch (the mechanism, the
    dataset, the events) and pickles to more than :data:`SCATTER_BYTES` is sent to the workers
    once (``client.scatter(..., broadcast=True)``) instead of once per task.
    """
    _check_name(name)
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if isinstance(batches, (str, bytes)) or not isinstance(batches, Iterable):
        raise TypeError(f"batches must be an iterable of argument tuples, got {type(batches).__name__}")
    batches = list(batches)
    for i, b in enumerate(batches):
        if not isinstance(b, tuple):
            raise TypeError(f"batches[{i}] must be a tuple of arguments for fn, got {type(b).__name__}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer,
                                                                                    np.floating))
                                or not math.isfinite(timeout) or timeout <= 0):
        raise ValueError(f"timeout must be None or a finite number of seconds > 0, got {timeout!r}")
    check_executor(executor, name)
    if executor is None or not batches:
        return [fn(*b) for b in batches]
    sizes = _check_picklable(executor, fn, batches[0], name)
    columns = list(zip(*batches))
    if is_dask_client(executor):
        from distributed import wait

        columns = _scatter_shared(executor, columns, sizes)
        futures = executor.map(fn, *columns, pure=False)
        try:
            wait(futures, timeout=timeout)
        except TimeoutError:
            n_left = sum(not f.done() for f in futures)
            for f in futures:
                f.cancel()
            raise TimeoutError(f"{name}: {n_left} of {len(futures)} batches not done after {timeout} s "
                               "(is the cluster alive? raise timeout= for long batches)") from None
        return list(executor.gather(futures))
    return list(executor.map(fn, *columns))

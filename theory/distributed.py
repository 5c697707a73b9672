"""Beyond one machine: Monte Carlo, audits and PCA on Dask, with results independent of the cluster.

Optional extra: ``pip install "semiprivate[dask]"`` (``dask[array]``, ``distributed``).  Nothing
here is a scheduler of ours: work is split into seeded batches and handed to Dask.

* :func:`monte_carlo` -- ``fn(rng)`` over many runs, one ``numpy.random.SeedSequence`` child per
  run, here (with a tqdm progress bar) or on a Dask client (progress over finished batches).  The
  list of results depends only on ``seed`` and ``n_runs``, not on the batch size or the workers.
* Audits -- :func:`semiprivate.theory.audit.audit_mechanism` / ``audit_pairs`` / ``assert_private`` take
  ``executor=client`` (and ``batch_size=``): estimation trials are split into seeded batches,
  counted on the workers and summed; the selection batch stays here.  Same seed and batch size,
  same counts, whatever the number of workers (see :mod:`semiprivate.theory.audit.batches`).
* PCA -- :func:`semiprivate.kernels.pca` takes a ``dask.array`` chunked by rows: one
  ``CovarianceAccumulator`` per chunk on the workers, a fixed-order tree reduction with the
  Chan–Golub–LeVeque merge, the eigensolve on the client.
* :func:`local_cluster` -- a ``LocalCluster`` + ``Client`` on this machine (loopback only), for
  tests and for using every core.

Scaling to a real cluster
-------------------------
Replace :func:`local_cluster` by ``Client("tcp://scheduler-host:8786")`` (a scheduler started
with ``dask scheduler`` and workers with ``dask worker tcp://scheduler-host:8786``, or any Dask
deployment: Kubernetes, SLURM via dask-jobqueue, ...).  Every worker needs the same
``semiprivate`` version installed (its Cython kernels are used where built).  Data for PCA must
be readable by every worker: a Zarr store or memory-mapped files on shared storage
(``dask.array.from_zarr(url)``), chunked by rows with whole rows per chunk.  Batch sizes: each
task costs a fixed overhead (measured on a 2-worker LocalCluster in ``benchmarks/bench_distributed.py``:
4 ms pipelined, 6-9 ms per audit task on a loaded 2-CPU machine), so a batch should run for at
least ~1 s to keep that below 1%; at 1e11 audit trials (~4.5e7 Laplace outputs per CPU second)
``batch_size=10**8`` gives 2,000 tasks of ~2 s, right for 10-200 workers.  Details and the
table: docs/dask.md.

See also README.md, "Beyond one machine (Dask)".
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any

import numpy as np
from semiprivate.theory.audit.batches import DEFAULT_TIMEOUT, check_executor, is_dask_client
from semiprivate.theory.progress import progress_bar

__all__ = ["monte_carlo", "local_cluster", "spawn_seeds"]

_DASK_HINT = 'Dask is an optional extra: pip install "semiprivate[dask]"'


def spawn_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds of ``seed`` (an int, a SeedSequence, or None for fresh entropy).

    >>> [s.spawn_key for s in spawn_seeds(0, 3)]
    [(0,), (1,), (2,)]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    if isinstance(seed, np.random.SeedSequence):
        root = seed
    elif seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0):
        root = np.random.SeedSequence(None if seed is None else int(seed))
    else:
        raise TypeError(f"seed must be None, a non-negative int or a numpy.random.SeedSequence, got {seed!r}")
    return root.spawn(int(n))


def _explicit_seeds(seeds: Any) -> list[Any]:
    """``seeds`` checked one by one (what ``numpy.random.default_rng`` accepts, bar Generators)."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise TypeError(f"seeds must be a sequence of seeds (ints, int sequences or SeedSequences), "
                        f"got {type(seeds).__name__}")
    if len(seeds) == 0:
        raise ValueError("seeds must hold at least one seed, got an empty sequence")
    out = []
    for i, s in enumerate(seeds):
        if isinstance(s, np.random.SeedSequence):
            out.append(s)
            continue
        try:
            np.random.SeedSequence(s)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"seeds[{i}] = {s!r} is not a seed (non-negative int, sequence of them, or "
                             f"SeedSequence): {exc}") from None
        out.append(s)
    return out


def _run_seed_batch(fn: Callable[[np.random.Generator], Any], seeds: Sequence[np.random.SeedSequence]) -> list[Any]:
    return [fn(np.random.default_rng(s)) for s in seeds]


def monte_carlo(
    fn: Callable[[np.random.Generator], Any],
    n_runs: int | None = None,
    *,
    seed: Any = 0,
    seeds: Sequence[Any] | None = None,
    client: Any = None,
    batch_size: int | None = None,
    progress: bool | None = None,
    desc: str | None = None,
    timeout: float | None = None,
) -> list[Any]:
    """Run ``fn(rng)`` for ``n_runs`` independent seeded generators; results in run order.

    Parameters
    ----------
    fn : callable
        ``fn(rng: numpy.random.Generator) -> result``.  On a Dask client it is sent with
        cloudpickle (closures work); it must not rely on global state.
    n_runs : int
        Number of runs (>= 1); may be left out when ``seeds`` is given.
    seed : int, SeedSequence or None
        Root seed; run ``i`` uses ``default_rng(SeedSequence(seed).spawn(n_runs)[i])``, so the
        results do not depend on ``batch_size``, on ``client`` or on the number of workers.
    seeds : sequence, optional
        Explicit seeds, one per run: run ``i`` uses ``numpy.random.default_rng(seeds[i])``
        (non-negative ints, sequences of them such as ``[base, m, k]``, or SeedSequences).
        For loops that already seed each run this way (the report's simulations): routing them
        through ``monte_carlo`` keeps every number.  Excludes ``seed``; ``n_runs``, if given,
        must equal ``len(seeds)``.
    client : dask.distributed.Client or concurrent.futures.Executor, optional
        Where to run (default: here).
    batch_size : int, optional
        Runs per task (default: here 1; on a client ``ceil(n_runs / (8 * workers))``, at least 1).
    progress : bool, optional
        A tqdm bar on stderr (default: when stderr is a terminal and ``n_runs >= 20``).
    desc : str, optional
        Label of the progress bar.
    timeout : float, optional
        Seconds to wait for a Dask client (default 3600); then TimeoutError, not a hang.

    Examples
    --------
    >>> monte_carlo(lambda g: int(g.integers(10)), 3, seed=1) == monte_carlo(lambda g: int(g.integers(10)), 3, seed=1)
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if seeds is not None:
        seeds = _explicit_seeds(seeds)
        if n_runs is None:
            n_runs = len(seeds)
        if seed != 0:
            raise ValueError(f"seed and seeds exclude each other; got seed={seed!r} and {len(seeds)} seeds")
    if n_runs is None:
        raise TypeError("monte_carlo needs n_runs (an integer >= 1) or seeds (one per run)")
    if isinstance(n_runs, bool) or not isinstance(n_runs, (int, np.integer)) or n_runs < 1:
        raise ValueError(f"n_runs must be an integer >= 1, got {n_runs!r}")
    if seeds is not None and len(seeds) != n_runs:
        raise ValueError(f"n_runs={n_runs!r} but seeds has {len(seeds)} entries; give one seed per run")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer))
                                   or batch_size < 1):
        raise ValueError(f"batch_size must be None or an integer >= 1, got {batch_size!r}")
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be None or a positive number of seconds, got {timeout!r}")
    check_executor(client, "client")
    if seeds is None:
        seeds = spawn_seeds(seed, int(n_runs))
    if desc is not None and not isinstance(desc, str):
        raise TypeError(f"desc must be None or a string (the progress bar's label), got {type(desc).__name__}")
    label = desc if desc else str(getattr(fn, "__name__", "monte_carlo"))
    bar = progress_bar(progress, int(n_runs), threshold=20, desc=label)
    try:
        if client is None:
            out = []
            for s in seeds:
                out.append(fn(np.random.default_rng(s)))
                bar.update(1)
            return out
        if batch_size is None:
            workers = _n_workers(client)
            batch_size = max(1, math.ceil(n_runs / (8 * workers)))
        groups = [seeds[i:i + batch_size] for i in range(0, len(seeds), int(batch_size))]
        if is_dask_client(client):
            return _dask_batches(client, fn, groups, bar, DEFAULT_TIMEOUT if timeout is None else float(timeout))
        results: list[Any] = []
        for part in client.map(_run_seed_batch, [fn] * len(groups), groups):
            results.extend(part)
            bar.update(len(part))
        return results
    finally:
        bar.close()


def _n_workers(client: Any) -> int:
    if is_dask_client(client):
        try:
            return max(1, len(client.scheduler_info().get("workers", {})))
        except Exception:
            return 1
    return max(1, int(getattr(client, "_max_workers", 1) or 1))


def _dask_batches(client: Any, fn: Callable[..., Any], groups: list[list[np.random.SeedSequence]], bar: Any,
                  timeout: float) -> list[Any]:
    try:
        from distributed import as_completed
    except ImportError as exc:  # pragma: no cover - a client implies distributed
        raise ImportError(_DASK_HINT) from exc
    import cloudpickle

    try:
        cloudpickle.dumps(fn)
    except Exception as exc:
        raise TypeError(f"fn cannot be sent to the Dask workers (cloudpickle: {type(exc).__name__}: {exc}); "
                        "make its captured objects picklable") from None
    futures = client.map(_run_seed_batch, [fn] * len(groups), groups, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    parts: list[Any] = [None] * len(futures)
    try:
        for fut in as_completed(futures, timeout=timeout):
            parts[index[fut.key]] = fut.result()
            bar.update(len(parts[index[fut.key]]))
    except TimeoutError:
        for f in futures:
            f.cancel()
        raise TimeoutError(f"monte_carlo: batches not done after {timeout} s (is the cluster alive? raise timeout=)"
                           ) from None
    return [r for part in parts for r in part]


def local_cluster(n_workers: int = 2, *, threads_per_worker: int = 1, processes: bool = True,
                  memory_limit: str | int | float | None = "auto", **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` with a ``Client`` attached, on the loopback interface only.

    A context manager; the parameters are checked when it is called, before any process starts.
    ``threads_per_worker=1`` (default): one compute thread per worker process, so NumPy work in
    two workers does not oversubscribe the cores (the workers also get ``OMP_NUM_THREADS=1``).
    The workers start without Dask's ``MALLOC_TRIM_THRESHOLD_=65536`` (it made each audit batch
    cost 19% more CPU) and without the statistical profiler (set
    ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=1`` to keep it); see docs/dask.md.

    >>> with local_cluster(2) as client:          # doctest: +SKIP
    ...     res = audit_mechanism(mech, d, d2, epsilon=1.0, trials=10**8, rng=0,
    ...                           options=AuditOptions(executor=client))
    """
    for label, v in (("n_workers", n_workers), ("threads_per_worker", threads_per_worker)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{label} must be an integer >= 1, got {type(v).__name__} {v!r}")
        if v < 1:
            raise ValueError(f"{label} must be an integer >= 1, got {v!r}")
    if not isinstance(processes, (bool, np.bool_)):
        raise TypeError(f"processes must be True (worker processes) or False (threads), got {processes!r}")
    if not (memory_limit is None or isinstance(memory_limit, str)
            or (isinstance(memory_limit, (int, float, np.integer, np.floating)) and not isinstance(memory_limit, bool)
                and math.isfinite(memory_limit) and memory_limit >= 0)):
        raise TypeError(f"memory_limit must be 'auto', a size such as '4GiB', a number of bytes >= 0, a fraction "
                        f"of the memory (0-1) or None, got {memory_limit!r}")
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ImportError(_DASK_HINT) from exc
    import dask

    # every listener on the loopback interface only, each dashboard on a free port (two clusters never collide)
    kwargs.setdefault("dashboard_address", "127.0.0.1:0")
    kwargs.setdefault("worker_dashboard_address", "127.0.0.1:0")
    if processes:
        # worker processes reach the scheduler over TCP. Threads (processes=False) talk to an in-process scheduler
        # ("inproc://"), which a TCP host would break ("Scheduler failed to start")
        kwargs.setdefault("host", "127.0.0.1")
    # Dask starts worker processes with MALLOC_TRIM_THRESHOLD_=65536 (to give memory back to the
    # OS); setting it also freezes glibc's mmap threshold at 128 KiB, so every large NumPy temporary
    # (the auditor draws chunks of 2**21 outputs) is mmapped, page-faulted and unmapped again
    # (benchmarks/RESULTS.md, "Dask scale-out").  Left out here.
    # The workers' statistical profiler (a stack sample every 10 ms, for the dashboard) costs CPU
    # in proportion to wall time, which on a loaded machine is several times the work: off here
    # unless the environment variable DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=1 asks for it.
    environ = {k: v for k, v in dict(dask.config.get("distributed.nanny.pre-spawn-environ", {})).items()
               if k != "MALLOC_TRIM_THRESHOLD_"}
    profile = os.environ.get("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "").lower() in ("1", "true", "yes")
    config = {"distributed.nanny.pre-spawn-environ": environ, "distributed.worker.profile.enabled": profile}
    cluster_kwargs = dict(n_workers=int(n_workers), threads_per_worker=int(threads_per_worker),
                          processes=bool(processes), memory_limit=memory_limit, **kwargs)
    return _ClusterClient(lambda: dask.config.set(config), lambda: LocalCluster(**cluster_kwargs), Client)


class _ClusterClient:
    """The context of :func:`local_cluster`: on entry the Dask configuration, the cluster and its
    ``Client`` are opened (in that order), on exit closed in reverse order."""

    def __init__(self, configure: Callable[[], Any], make_cluster: Callable[[], Any], make_client: Callable[[Any], Any]) -> None:
        self._configure, self._make_cluster, self._make_client = configure, make_cluster, make_client
        self._stack: ExitStack | None = None

    def __enter__(self) -> Any:
        with ExitStack() as stack:
            stack.enter_context(self._configure())
            cluster = stack.enter_context(self._make_cluster())
            client = stack.enter_context(self._make_client(cluster))
            self._stack = stack.pop_all()
        return client

    def __exit__(self, *exc_info: Any) -> bool | None:
        stack, self._stack = self._stack, None
        return None if stack is None else stack.__exit__(*exc_info)

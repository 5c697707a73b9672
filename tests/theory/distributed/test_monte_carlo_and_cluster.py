"""Dask execution (optional extra ``semiprivate[dask]``): same results as here, whatever the workers.

Runs on a ``distributed.LocalCluster`` of 2 worker processes (1 thread each) on the loopback
interface, started once for the module (a few seconds).  Skipped cleanly without dask/distributed.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

dask = pytest.importorskip("dask")
pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from semiprivate import kernels  # noqa: E402
from semiprivate.theory.audit import AuditOptions, audit_mechanism  # noqa: E402
from semiprivate.theory.distributed import local_cluster, monte_carlo, spawn_seeds  # noqa: E402
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism, RandomizedResponse  # noqa: E402

# One pytest-xdist worker runs the whole module (--dist loadgroup): the module-scoped cluster below starts once.
# Spread over the workers and interleaved with other modules (the longest-first order), it was started and
# stopped again each time a worker came back to this module (a cluster start and the workers' imports each time).
pytestmark = pytest.mark.xdist_group("dask_cluster_module")

# A cluster call that waits longer than this fails (TimeoutError) instead of hanging the suite; every call
# here takes a few seconds.
CLUSTER_TIMEOUT = 120.0


@pytest.fixture(scope="module")
def client():
    with local_cluster(2, threads_per_worker=1) as c:
        yield c


def _key(res):
    return (res.epsilon_lower_bound, res.witness.counts, res.trials_used, [t.counts for t in res.tests])


# ---------------------------------------------------------------- audits


@pytest.mark.parametrize("mech", [LaplaceMechanism(1.0), RandomizedResponse(1.0)], ids=["laplace", "rr"])
def test_audit_counts_identical_here_threads_and_cluster(client, mech) -> None:
    kw = dict(epsilon=1.0, trials=300_000, rng=7)
    opts = AuditOptions(batch_size=40_000)
    here = audit_mechanism(mech, 0.0 if isinstance(mech, LaplaceMechanism) else 0,
                           1.0 if isinstance(mech, LaplaceMechanism) else 1, options=opts, **kw)
    args = (0.0, 1.0) if isinstance(mech, LaplaceMechanism) else (0, 1)
    on_cluster = audit_mechanism(mech, *args, options=replace(opts, executor=client, timeout=CLUSTER_TIMEOUT), **kw)
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        on_threads = audit_mechanism(mech, *args, options=replace(opts, executor=pool), **kw)
    assert _key(here) == _key(on_cluster) == _key(on_threads)
    assert here.trials_used == on_cluster.trials_used
    assert not on_cluster.violation


def test_audit_on_cluster_still_catches_a_violation(client) -> None:
    """Laplace(1/eps) run at twice its claimed epsilon: the distributed audit flags it."""
    res = audit_mechanism(LaplaceMechanism(2.0), 0.0, 1.0, epsilon=1.0, trials=400_000, rng=3,
                          options=AuditOptions(batch_size=100_000, executor=client, timeout=CLUSTER_TIMEOUT))
    assert res.violation and res.epsilon_lower_bound > 1.0


def test_audit_batches_change_with_batch_size_not_with_workers(client) -> None:
    """The seeded batches are fixed by (rng, batch_size): another batch size gives other (equally
    valid) counts; the worker count never does (above)."""
    a = audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=200_000, rng=1, options=AuditOptions(batch_size=50_000))
    b = audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=200_000, rng=1, options=AuditOptions(batch_size=20_000))
    assert a.witness.counts[2] == b.witness.counts[2] == 200_000
    assert _key(a) != _key(b)


def test_default_batch_size_with_an_executor_is_the_documented_function_of_trials() -> None:
    """No batch_size + an executor: trials // 64 clipped to [1e6, 1e8] (here 3e6 // 64 -> 1e6), so the
    counts equal the sequential batched run at batch_size=1e6 and differ from the old n // 64 batches."""
    kw = dict(epsilon=1.0, trials=3_000_000, rng=5)
    opts = AuditOptions(selection_trials=50_000)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        default = audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, options=replace(opts, executor=pool), **kw)
    assert _key(default) == _key(audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0,
                                                 options=replace(opts, batch_size=1_000_000), **kw))
    assert _key(default) != _key(audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0,
                                                 options=replace(opts, batch_size=3_000_000 // 64), **kw))


def test_unpicklable_mechanism_is_refused_by_name(client) -> None:
    lock = threading.Lock()

    def mech(data, size, rng):
        with lock:
            return data + rng.laplace(0.0, 1.0, size)

    with pytest.raises(TypeError, match="cannot be sent to the workers"):
        audit_mechanism(mech, 0.0, 1.0, epsilon=1.0, trials=100_000, rng=0, options=AuditOptions(executor=client, timeout=CLUSTER_TIMEOUT))


def _listening_addresses(pids) -> set[str]:
    import psutil  # a dependency of distributed

    return {conn.laddr.ip for pid in pids for conn in psutil.Process(pid).net_connections(kind="inet")
            if conn.status == psutil.CONN_LISTEN}


def test_every_listener_of_a_local_cluster_is_on_the_loopback_interface(client) -> None:
    """The scheduler, the workers and every dashboard, with worker processes (the module's cluster) and with
    threads: nothing listens on another interface (a dashboard on ":0" listened on all of them)."""
    import os

    pids = {os.getpid(), *client.run(os.getpid).values()}
    assert _listening_addresses(pids) == {"127.0.0.1"}
    with local_cluster(1, processes=False) as threads:
        assert threads.submit(sum, [1, 2]).result(timeout=CLUSTER_TIMEOUT) == 3
        assert _listening_addresses({os.getpid()}) == {"127.0.0.1"}


def test_closed_client_and_bad_executor_are_refused() -> None:
    # a cluster of threads (processes=False: an in-process scheduler, no TCP host) runs work, then is closed
    with local_cluster(1, processes=False) as c:
        assert c.submit(sum, [1, 2]).result(timeout=CLUSTER_TIMEOUT) == 3
    with pytest.raises(ValueError, match="not running"):
        audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=10_000, rng=0, options=AuditOptions(executor=c))
    with pytest.raises(TypeError, match="executor must be"):
        audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=10_000, rng=0, options=AuditOptions(executor=object()))


@pytest.mark.slow
def test_timeout_instead_of_hang(client) -> None:
    """A batch still running after ``timeout`` raises instead of waiting.  Only the workers' batches are slow
    (the selection batch runs here, at full speed): the test then waits for the 0.2 s timeout alone, and a
    timeout that is not applied shows as no error after the 1 s batch (five times the timeout; the workers,
    one thread each, are busy with it for that second after the error, which the module's next test waits for)."""
    def slow(data, size, rng):
        from distributed import get_worker

        try:
            get_worker()
        except ValueError:  # not on a worker: the selection batch, here
            pass
        else:
            time.sleep(1.0)
        return data + rng.laplace(0.0, 1.0, size)

    with pytest.raises(TimeoutError, match="not done after"):
        audit_mechanism(slow, 0.0, 1.0, epsilon=1.0, trials=20_000, options=AuditOptions(selection_trials=1_000, executor=client, batch_size=20_000, timeout=0.2), rng=0)


# ---------------------------------------------------------------- Monte Carlo


def _draw(g: np.random.Generator) -> float:
    return float(g.standard_normal())


@pytest.mark.slow
def test_monte_carlo_same_results_everywhere(client) -> None:
    here = monte_carlo(_draw, 50, seed=11)
    assert here == [float(np.random.default_rng(s).standard_normal()) for s in spawn_seeds(11, 50)]
    assert monte_carlo(_draw, 50, seed=11, client=client, timeout=CLUSTER_TIMEOUT) == here
    assert monte_carlo(_draw, 50, seed=11, client=client, batch_size=7, timeout=CLUSTER_TIMEOUT) == here
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert monte_carlo(_draw, 50, seed=11, client=pool, batch_size=4) == here
    assert monte_carlo(_draw, 50, seed=12) != here


def test_monte_carlo_bad_input() -> None:
    with pytest.raises(ValueError, match="n_runs"):
        monte_carlo(_draw, 0)
    with pytest.raises(TypeError, match="fn must be callable"):
        monte_carlo(3, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size"):
        monte_carlo(_draw, 5, batch_size=0)
    with pytest.raises(TypeError, match="seed"):
        spawn_seeds(-1, 3)
    calls = []
    with pytest.raises(TypeError, match="progress must be a bool"):
        monte_carlo(lambda g: calls.append(1), 5, progress="yes")
    with pytest.raises(TypeError, match="desc must be None or a string.*got int"):
        monte_carlo(lambda g: calls.append(1), 5, desc=3)  # type: ignore[arg-type]
    assert calls == []  # refused before any run
    assert monte_carlo(_draw, 2, desc="") == monte_carlo(_draw, 2)  # empty label: the function's name


# ---------------------------------------------------------------- PCA


@pytest.mark.parametrize("center", [True, False])
def test_pca_of_dask_array_on_cluster_matches_in_memory(client, center: bool) -> None:
    g = np.random.default_rng(0)
    X = (g.standard_normal((30_000, 40)) * np.linspace(4.0, 0.1, 40) + 3.0).astype(np.float32)
    ref = kernels.pca(X, 6, center=center)
    res = kernels.pca(da.from_array(X, chunks=(4_000, 40)), 6, center=center)
    assert res.backend.startswith("dask+")
    assert res.n_samples == 30_000
    np.testing.assert_allclose(res.eigenvalues, ref.eigenvalues, rtol=1e-5)
    np.testing.assert_allclose(res.mean, ref.mean, rtol=1e-6, atol=1e-6)
    assert np.max(np.abs(np.abs(res.components.T @ ref.components) - np.eye(6))) < 1e-4
    # the reduction order is fixed: two runs agree bit for bit
    again = kernels.pca(da.from_array(X, chunks=(4_000, 40)), 6, center=center)
    assert np.array_equal(again.eigenvalues, res.eigenvalues)


def test_pca_dask_bad_input(client) -> None:
    X = np.random.default_rng(1).standard_normal((1000, 12))
    with pytest.raises(ValueError, match="chunked along columns"):
        kernels.pca(da.from_array(X, chunks=(100, 4)), 2)
    with pytest.raises(TypeError, match="numeric dtype"):
        kernels.pca(da.from_array(X.astype(str), chunks=(100, 12)), 2)
    bad = X.copy()
    bad[777, 3] = np.nan
    with pytest.raises(ValueError, match=r"rows \[700, 800\) of X"):  # global rows, not chunk-local
        kernels.pca(da.from_array(bad, chunks=(100, 12)), 2)
    with pytest.raises(ValueError, match="randomized"):
        kernels.pca(da.from_array(X, chunks=(100, 12)), 2, method="randomized")


def test_monte_carlo_explicit_seeds_keep_the_loop_numbers(client) -> None:
    """``seeds=``: run i uses ``default_rng(seeds[i])`` -- the numbers of a loop seeded that way."""
    seeds = [[5, 3, k] for k in range(9)]
    loop = [_draw(np.random.default_rng(s)) for s in seeds]
    assert monte_carlo(_draw, seeds=seeds) == loop
    assert monte_carlo(_draw, seeds=seeds, client=client, batch_size=2, timeout=CLUSTER_TIMEOUT) == loop
    assert monte_carlo(_draw, 9, seeds=seeds) == loop
    with pytest.raises(ValueError, match="n_runs=4 but seeds has 9"):
        monte_carlo(_draw, 4, seeds=seeds)
    with pytest.raises(ValueError, match=r"seeds\[1\]"):
        monte_carlo(_draw, seeds=[1, -2])
    with pytest.raises(TypeError, match="seeds must be a sequence"):
        monte_carlo(_draw, seeds=7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exclude each other"):
        monte_carlo(_draw, seed=3, seeds=seeds)
    with pytest.raises(TypeError, match="n_runs"):
        monte_carlo(_draw)


def test_report_cli_rejects_bad_dask_options(tmp_path, capsys) -> None:
    from semiprivate.theory.report.cli import main

    assert main(["--quick", "--only", "covers", "--workers", "0", "--out", str(tmp_path)]) == 2
    assert "--workers must be >= 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: the two options exclude each other
        main(["--workers", "2", "--dask-scheduler", "tcp://127.0.0.1:1"])


def _weighted_sum(w, i):
    return float(w[i::7].sum())


def test_large_shared_argument_is_scattered_once(client, monkeypatch) -> None:
    """An argument shared by every batch and larger than SCATTER_BYTES goes to the workers once."""
    from semiprivate.theory.audit.batches import SCATTER_BYTES, run_batches

    w = np.random.default_rng(0).standard_normal(SCATTER_BYTES // 4)  # ~200 kB pickled
    calls = []
    real = client.scatter
    monkeypatch.setattr(client, "scatter", lambda *a, **k: calls.append(1) or real(*a, **k))
    jobs = [(w, i) for i in range(7)]
    assert run_batches(_weighted_sum, jobs, client, timeout=CLUSTER_TIMEOUT) == [_weighted_sum(*j) for j in jobs]
    assert len(calls) == 1
    small = [(w[:10], i) for i in range(3)]  # distinct small arrays: shipped with the tasks
    assert run_batches(_weighted_sum, small, client, timeout=CLUSTER_TIMEOUT) == [_weighted_sum(*j) for j in small]
    assert len(calls) == 1


def test_run_batches_and_local_cluster_name_bad_parameters() -> None:
    from semiprivate.theory.audit.batches import run_batches

    with pytest.raises(TypeError, match="fn must be callable"):
        run_batches(3, [(1,)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"batches\[1\]"):
        run_batches(abs, [(1,), 2])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="timeout"):
        run_batches(abs, [(1,)], timeout=float("nan"))
    with pytest.raises(TypeError, match="name"):
        run_batches(abs, [(1,)], name=object())  # type: ignore[arg-type]
    for bad in (0, -1):
        with pytest.raises(ValueError, match="n_workers"):
            local_cluster(bad)
    with pytest.raises(TypeError, match="n_workers"):
        local_cluster(float("inf"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="memory_limit"):
        local_cluster(1, memory_limit=object())  # type: ignore[arg-type]


def _tasks_run(dask_worker):
    """How many tasks this worker has run (``Client.run`` passes the worker)."""
    return dask_worker.state.executed_count


def _worker_settings():
    import os

    return os.environ.get("MALLOC_TRIM_THRESHOLD_"), os.environ.get("OMP_NUM_THREADS"), \
        dask.config.get("distributed.worker.profile.enabled")


def test_local_cluster_workers_are_set_up_for_numpy_batches(client) -> None:
    """No MALLOC_TRIM_THRESHOLD_ (it froze glibc's mmap threshold: +19% CPU per audit batch),
    one OpenMP thread, no statistical profiler (docs/dask.md)."""
    assert set(client.run(_worker_settings).values()) == {(None, "1", False)}


@pytest.mark.slow
def test_report_cli_workers_option_gives_the_local_report(tmp_path, client, monkeypatch) -> None:
    """``python -m semiprivate report --workers 2``: a local cluster runs the simulations (the covers section's
    ASSPP trials go through ReportContext.simulate, monte_carlo); report.md is the plain run's, bar the timings
    (the run's time line and each section's): every number of the section is the same here and on the cluster.
    The section's trials with another seed give another text, which the report does not contain (the comparison
    can fail).

    The cluster the option asks for is this module's: ``local_cluster(2, threads_per_worker=1)``, the call the
    CLI makes (checked), started once for the module instead of a second time for this test; the trials must
    reach its workers (their task count grows)."""
    import contextlib
    import re

    import semiprivate.theory.distributed as distributed_module
    from semiprivate.theory.report import ReportContext
    from semiprivate.theory.report.cli import main
    from semiprivate.theory.report.sections import covers

    asked = []

    def module_cluster(n_workers, **kwargs):
        asked.append((n_workers, kwargs))
        return contextlib.nullcontext(client)

    monkeypatch.setattr(distributed_module, "local_cluster", module_cluster)
    assert main(["--quick", "--only", "covers", "--out", str(tmp_path / "here")]) == 0
    before = sum(client.run(_tasks_run).values())
    assert main(["--quick", "--only", "covers", "--workers", "2", "--out", str(tmp_path / "dask")]) == 0
    assert asked == [(2, {"threads_per_worker": 1})]
    assert sum(client.run(_tasks_run).values()) > before  # the trials ran on the workers

    def text(d):
        return re.sub(r"_Section time: [^_]*_|\([0-9.]+ s\)|^Time: .*$", "", (tmp_path / d / "report.md").read_text(),
                      flags=re.M)

    assert "ASSPP" in text("here") and text("here") == text("dask")
    # the other seed's text, without its figure (half of a quick build; the figure's name line would only make
    # the text longer, so the "not in" below is no easier to pass without it)
    monkeypatch.setattr(covers, "_plot", lambda *args, **kwargs: [])
    other = covers.build(ReportContext(tmp_path / "other", quick=True, seed=1))
    assert other.markdown.strip() and other.markdown.strip() not in text("here")

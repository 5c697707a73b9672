"""The compiled kernels in a forked child: no hang, the same draws, one OpenMP thread.

After a parallel region, libgomp keeps a thread pool; a child made by ``os.fork()`` inherits the
pool's bookkeeping but not its threads, so its first parallel region used to wait forever
(found when mutmut's forked test runners hung on every test reaching a parallel kernel).
``semiprivate.kernels._backend`` registers an at-fork handler that sets the child's team size to 1.
Each test fails (instead of hanging) when the child does not answer within 30 s.
"""

from __future__ import annotations

import ast
import multiprocessing
import os
import signal
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import semiprivate.kernels._backend as backend_mod
from semiprivate.kernels import exponential_mechanism

_probe = pytest.importorskip("semiprivate.kernels._cython._probe", reason="compiled backend not built")
_expmech = pytest.importorskip("semiprivate.kernels._cython._expmech", reason="compiled backend not built")
pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)"),
    pytest.mark.skipif(not _probe.openmp_enabled(), reason="sequential build: no OpenMP thread pool"),
]

CHILD_TIMEOUT = 30.0
SCORES = np.random.default_rng(0).random(2**21)  # above the sampler's parallel threshold (2^20)


def _draw(n_threads: int | None = None) -> tuple[int, int, int]:
    """A parallel-sized draw, the threads it used, and the team size the process would use now."""
    i = exponential_mechanism(SCORES, 1.0, rng=3, backend="cython", n_threads=n_threads)
    return int(i), int(_expmech.threads_used()), int(_probe.max_threads())


@pytest.fixture
def parent_pool() -> Iterator[tuple[int, int, int]]:
    """The parent runs a parallel region on 2 threads (so libgomp's pool exists, also on a 1-core machine)."""
    if backend_mod.forked_after_openmp():
        pytest.skip("this test process was itself forked after OpenMP started (e.g. a mutation-testing runner): "
                    "a 2-thread region here would hang")
    before = _probe.max_threads()
    _probe.set_num_threads(2)
    try:
        here = _draw(n_threads=2)
        assert here[1] == 2, "the parent's draw should have run on 2 threads"
        yield here
    finally:
        _probe.set_num_threads(before)


def _fork_quietly() -> int:
    with warnings.catch_warnings():  # Python >= 3.12 warns when forking a process that has threads
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _draw_in_os_fork(n_threads: int | None = None) -> tuple[int, int, int]:
    """_draw() in a child made by os.fork(); fail (not hang) when it does not finish in time."""
    r, w = os.pipe()
    pid = _fork_quietly()
    if pid == 0:  # the child
        try:
            os.write(w, repr(_draw(n_threads)).encode())
        finally:
            os._exit(0)
    os.close(w)
    deadline = time.monotonic() + CHILD_TIMEOUT
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            pytest.fail(f"the forked child did not finish a parallel-sized draw in {CHILD_TIMEOUT:.0f} s (hung in OpenMP)")
        time.sleep(0.02)
    with os.fdopen(r, "rb") as fh:
        return ast.literal_eval(fh.read().decode())  # type: ignore[no-any-return]


def test_os_fork_child_draws_the_same_on_one_thread(parent_pool: tuple[int, int, int]) -> None:
    assert _draw_in_os_fork() == (parent_pool[0], 1, 1)


def test_os_fork_child_runs_on_one_thread_whatever_it_asks(parent_pool: tuple[int, int, int],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The team size of a forked child does not come from default_threads() (threadpoolctl may report another
    OpenMP runtime, e.g. scikit-learn's own libgomp, still at 2 threads) nor from an explicit n_threads."""
    import semiprivate.kernels._exponential as kexp

    monkeypatch.setattr(kexp, "default_threads", lambda: 2)
    assert _draw_in_os_fork() == (parent_pool[0], 1, 1)
    monkeypatch.setattr(kexp, "default_threads", lambda: 1)
    assert _draw_in_os_fork(n_threads=2) == (parent_pool[0], 1, 1)


def _send(conn: Any, what: str) -> None:
    """A fork-started child's work: a parallel-sized draw, or whether it knows it was forked after OpenMP."""
    conn.send(_draw() if what == "draw" else (backend_mod.forked_after_openmp(), int(_probe.max_threads())))
    conn.close()


def _in_fork_process(what: str) -> Any:
    """Run _send(what) in a multiprocessing 'fork' process; fail (not hang) when it does not answer in time."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        proc = ctx.Process(target=_send, args=(send, what))
        proc.start()
    send.close()
    try:
        if not recv.poll(CHILD_TIMEOUT):
            pytest.fail(f"the fork-started process did not answer in {CHILD_TIMEOUT:.0f} s (hung in OpenMP)")
        return recv.recv()
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        recv.close()


def test_multiprocessing_fork_process_draws_the_same(parent_pool: tuple[int, int, int]) -> None:
    """The path users take: a multiprocessing 'fork' process (what ProcessPoolExecutor uses on Linux before 3.14)."""
    assert _in_fork_process("draw") == (parent_pool[0], 1, 1)


def test_a_forked_child_knows_it_was_forked_after_openmp(parent_pool: tuple[int, int, int]) -> None:
    assert not backend_mod.forked_after_openmp()
    assert _in_fork_process("forked?") == (True, 1)


def test_set_num_threads_refuses_zero() -> None:
    with pytest.raises(ValueError, match=r"^n must be >= 1, got 0$"):
        _probe.set_num_threads(0)

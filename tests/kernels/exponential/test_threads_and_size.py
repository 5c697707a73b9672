"""The compiled exponential sampler's n_threads (default: the OpenMP limit, at most the free cores) and the
refusal of a ``size`` whose draws cannot fit in memory."""

from __future__ import annotations

import os

import numpy as np
import pytest
from semiprivate import kernels
from semiprivate.kernels import _exponential as kexp
from semiprivate.theory.privacy import exponential as tex
from threadpoolctl import threadpool_limits

needs_cython = pytest.mark.skipif(kexp._cython_module() is None, reason="compiled sampler not built")


@needs_cython
def test_n_threads_sets_the_team_and_not_the_draws():
    s = np.random.default_rng(0).normal(size=kexp.PARALLEL_MIN * 2)
    one = kernels.exponential_mechanism(s, 1.0, size=50, rng=3, n_threads=1, backend="cython")
    assert kernels.cython_threads() == 1
    two = kernels.exponential_mechanism(s, 1.0, size=50, rng=3, n_threads=2, backend="cython")
    assert kernels.cython_threads() == 2
    assert np.array_equal(one, two)  # the draws do not depend on the team size


@needs_cython
def test_default_threads_follow_the_openmp_limit_and_the_free_cores(monkeypatch):
    with threadpool_limits(limits=1, user_api="openmp"):
        assert kexp.default_threads() == 1
        s = np.random.default_rng(1).normal(size=kexp.PARALLEL_MIN)
        kernels.exponential_mechanism(s, 1.0, rng=0, backend="cython")
        assert kernels.cython_threads() == 1
    cpus = len(os.sched_getaffinity(0))
    monkeypatch.setattr(kexp.os, "getloadavg", lambda: (1.0 + cpus, 0.0, 0.0))  # every core busy elsewhere
    assert kexp.default_threads() == 1
    monkeypatch.setattr(kexp.os, "getloadavg", lambda: (1.0, 0.0, 0.0))  # only this process
    with threadpool_limits(limits=cpus, user_api="openmp"):
        assert kexp.default_threads() == cpus


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (2.5, TypeError), ("2", TypeError)])
def test_n_threads_is_validated(bad, exc):
    with pytest.raises(exc, match="n_threads"):
        kernels.exponential_mechanism([0.0, 1.0], 1.0, n_threads=bad)


@pytest.mark.parametrize("backend", ["numpy", "cython"])
def test_size_beyond_memory_is_refused_naming_size(backend):
    if backend == "cython" and kexp._cython_module() is None:
        pytest.skip("compiled sampler not built")
    with pytest.raises(ValueError, match=r"^size=1000000000000 draws need .* GiB .* memory: draw in batches$"):
        kernels.exponential_mechanism([0.0, 1.0], 1.0, size=10**12, backend=backend)
    with pytest.raises(ValueError, match=r"^size=1000000000000 "):
        tex.sample([0, 1], 1.0, size=10**12)
    assert kernels.exponential_mechanism([0.0, 1.0], 1.0, size=1000, rng=0, backend=backend).shape == (1000,)


@needs_cython
def test_default_threads_read_the_kernels_own_openmp_runtime(monkeypatch):
    """Another OpenMP runtime in the process (scikit-learn and torch ship their own libgomp) does not set
    the team: with the kernels' runtime at 1 thread the default is 1, however many threads another runtime
    reports (on a 16-core GPU host the default read 16 from another runtime and broke the fork tests)."""
    import types

    from semiprivate.kernels._cython import _probe

    other = types.SimpleNamespace(lib_controllers=[types.SimpleNamespace(num_threads=16)])
    monkeypatch.setattr(kexp, "_openmp", lambda: other)  # what threadpoolctl would report with a 16-thread runtime
    monkeypatch.setattr(kexp.os, "sched_getaffinity", lambda pid: set(range(16)))
    monkeypatch.setattr(kexp.os, "getloadavg", lambda: (1.0, 0.0, 0.0))
    before = _probe.max_threads()
    _probe.set_num_threads(1)
    try:
        assert kexp.default_threads() == 1
    finally:
        _probe.set_num_threads(before)

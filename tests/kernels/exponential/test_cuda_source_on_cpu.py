"""``expmech.cu`` itself, run on the CPU, makes the picks of its NumPy specification (:mod:`semiprivate.kernels._cupy.onepass`).

``cuda_on_cpu.cpp`` includes the CUDA source unchanged and runs each block as ``SP_THREADS`` fibers of one OS
thread (fiber barriers for ``__syncthreads`` and the warp shuffles; a fiber runs until it waits, so a missing
barrier shows as a read of shared memory not yet written); it is built with blocks of one warp and chunks
of 64 scores (``-DSP_THREADS=32 -DSP_ITEMS=2``), and once with blocks of two warps (the barriers between warps), so several tiles, a partial last tile and chunk, dead
chunks and the sorted draw order are exercised on a few thousand scores.  The draws must equal the
emulation's from the same uniforms: they could differ only where a uniform falls within a few ulps of a
cell boundary (the C++ and NumPy ``exp`` may differ by one ulp), about 1e-12 per draw.  The host sequence of
``kernels/_cupy/exponential.py`` itself runs on the same build through a stand-in CuPy (NumPy arrays, each
launch one call into the build) and must make the same picks.  Skipped without a C++20 compiler with <ucontext.h>; no GPU needed.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from semiprivate.kernels._cupy import onepass as op

HERE = Path(__file__).resolve().parent
SRC = HERE / "cuda_on_cpu.cpp"
THREADS, ITEMS = 32, 2
SMALL = dict(chunk=THREADS * ITEMS, tile=THREADS, threads=THREADS)


# One pytest-xdist worker runs the module (--dist loadgroup): each of the two module-scoped builds below is compiled
# once, not once each time a worker comes back to this module between other modules' tests (longest-first order).
pytestmark = pytest.mark.xdist_group("cuda_on_cpu_build")


def _build(tmp_path_factory: pytest.TempPathFactory, threads: int) -> ctypes.CDLL:
    """The CPU build of expmech.cu with blocks of ``threads`` fibers and chunks of ``threads * ITEMS`` scores."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    out = tmp_path_factory.mktemp("cuda_cpu")
    probe = out / "probe.cpp"
    probe.write_text("#include <ucontext.h>\nint main() { ucontext_t c; return getcontext(&c); }\n")
    if subprocess.run([cxx, "-std=c++20", str(probe), "-o", str(out / "probe")],
                      capture_output=True).returncode != 0:
        pytest.skip("the C++ compiler has no C++20 or no <ucontext.h>")
    so = out / "sp_cpu.so"
    res = subprocess.run([cxx, "-std=c++20", "-O1", "-fPIC", "-shared", "-Wno-unknown-pragmas",
                          f"-DSP_THREADS={threads}", f"-DSP_ITEMS={ITEMS}", str(SRC), "-o", str(so)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr  # expmech.cu must compile as C++ too
    handle = ctypes.CDLL(str(so))
    handle.sp_cpu_sample.restype = ctypes.c_int
    return handle


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    return _build(tmp_path_factory, THREADS)


@pytest.fixture(scope="module")
def lib_two_warps(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    """Blocks of two warps: the block-level barriers between warps (a warp's shuffles synchronise only its own
    32 threads, so with one warp per block a missing ``__syncthreads`` between warps cannot show)."""
    return _build(tmp_path_factory, 2 * THREADS)


def _device(lib: ctypes.CDLL, s: np.ndarray, c: float, k: int, seed: int, sort_min: int,
            small: dict[str, int] = SMALL) -> tuple[np.ndarray, int]:
    """The host sequence of kernels/_cupy/exponential.py on the CPU build: draws and the status word."""
    kind = {np.dtype(np.float64): 0, np.dtype(np.float32): 1, np.dtype(np.int64): 2}[s.dtype]
    u = np.random.default_rng(seed).random(op.UNIFORMS_PER_DRAW * k)
    perm = op.draw_order(u[:k], sort_min)
    res = np.empty(k + 1, dtype=np.int64)
    s = np.ascontiguousarray(s)
    pa = perm if perm is not None else np.zeros(1, dtype=np.int64)
    vp = ctypes.c_void_p
    chunk = lib.sp_cpu_sample(kind, s.ctypes.data_as(vp), ctypes.c_longlong(s.size), ctypes.c_double(c),
                              u.ctypes.data_as(vp), ctypes.c_longlong(k), pa.ctypes.data_as(vp),
                              ctypes.c_int(perm is not None), res.ctypes.data_as(vp))
    assert chunk == small["chunk"]
    return res[:k], int(res[k])


def _vectors(small: dict[str, int] = SMALL) -> list[tuple[str, np.ndarray]]:
    n = small["chunk"] * small["tile"] * 2 + 5 * small["chunk"] + 37  # two full tiles and a partial third
    g = np.random.default_rng(1)
    f = g.normal(0, 1, n) + 0.01 * (np.arange(n) // small["chunk"])
    f[(np.arange(n) // small["chunk"]) % 11 == 4] = -np.inf  # dead chunks
    i = g.integers(-5, 5, n).astype(np.int64) + np.arange(n) // 500
    return [("float64", f), ("float32", f.astype(np.float32)), ("int64", i)]


@pytest.mark.parametrize("name,scores", _vectors(), ids=lambda v: v if isinstance(v, str) else "")
def test_cuda_source_makes_the_specifications_picks(lib, name: str, scores: np.ndarray) -> None:
    """Block b = draw b (20 draws); the sorted draw order runs through the same select kernels in
    :func:`test_host_sequence_makes_the_specifications_picks` (30 draws, from 25 on)."""
    got, status = _device(lib, scores, 0.7, 20, 5, 10**9)
    want = op.sample(scores, 0.7, 20, np.random.default_rng(5), **SMALL, sort_min=10**9)
    assert status == 0 and np.array_equal(got, want), name


TWO_WARPS = dict(chunk=2 * THREADS * ITEMS, tile=2 * THREADS, threads=2 * THREADS)


@pytest.mark.parametrize("name,scores", _vectors(TWO_WARPS), ids=lambda v: v if isinstance(v, str) else "")
def test_cuda_source_with_two_warps_per_block_makes_the_specifications_picks(lib_two_warps, name: str,
                                                                            scores: np.ndarray) -> None:
    got, status = _device(lib_two_warps, scores, 0.7, 20, 5, 10**9, TWO_WARPS)
    want = op.sample(scores, 0.7, 20, np.random.default_rng(5), **TWO_WARPS, sort_min=10**9)
    assert status == 0 and np.array_equal(got, want), name


def test_cuda_source_status_words(lib) -> None:
    s = np.zeros(3 * SMALL["chunk"] + 1)
    s[100] = np.nan
    got, status = _device(lib, s, 1.0, 3, 0, 10**9)
    assert status & 1 and np.all(got == -1)
    s[100] = np.inf
    got, status = _device(lib, s, 1.0, 3, 0, 10**9)
    assert status == 2 and np.all(got == -1)
    got, status = _device(lib, np.full(300, -np.inf), 1.0, 3, 0, 10**9)
    assert status == 4 and np.all(got == -1)


# ---------------------------------------------------------------------------------------------------------------
# kernels/_cupy/exponential.py itself (its host sequence: allocations, launch order, uniforms, status word) on a
# stand-in CuPy whose kernels are the CPU build above: NumPy arrays as device arrays, each launch one call of
# the sp_cpu_* wrappers, with the module's chunk, tile and block shrunk to the CPU build's.


class _DeviceArray(np.ndarray):
    def get(self) -> np.ndarray:
        return np.array(self)


def _stand_in_cupy(lib: ctypes.CDLL) -> types.ModuleType:
    cp: Any = types.ModuleType("cupy")
    for name in ("int64", "int32", "float64", "float32", "bool_", "uint64"):
        setattr(cp, name, getattr(np, name))
    cp.asarray = lambda a, dtype=None: np.array(a, dtype=dtype).view(_DeviceArray)
    cp.empty = lambda shape, dtype=float: np.empty(shape, dtype=dtype).view(_DeviceArray)
    cp.ascontiguousarray = lambda a, dtype=None: np.ascontiguousarray(a, dtype=dtype).view(_DeviceArray)
    cp.flatnonzero = lambda a: np.flatnonzero(a).view(_DeviceArray)
    cp.isposinf = lambda a: np.isposinf(a).view(_DeviceArray)

    def c_arg(a: Any) -> Any:
        if isinstance(a, np.ndarray):
            return ctypes.c_void_p(a.ctypes.data)
        return {np.int64: ctypes.c_longlong, np.float64: ctypes.c_double, np.int32: ctypes.c_int}[type(a)](a)

    def function(name: str) -> Any:
        kind, dt = name.split("_")[1], name.split("_")[-1]
        target = getattr(lib, f"sp_cpu_{kind}_{'i64' if dt == 'i64' else 'f'}")
        lead = () if dt in ("i64", "f") else (ctypes.c_int(dt == "f32"),)

        def launch(grid: tuple[int], block: tuple[int], args: tuple[Any, ...]) -> None:
            assert block == (THREADS,)
            target(*lead, ctypes.c_longlong(grid[0]), *(c_arg(a) for a in args))

        return launch

    cp.module = types.SimpleNamespace(get_function=function)
    return cp


@pytest.fixture
def host_sequence(lib: ctypes.CDLL, monkeypatch: pytest.MonkeyPatch) -> Any:
    import sys

    from semiprivate.kernels._cupy import exponential as ce

    cp = _stand_in_cupy(lib)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    for name, value in (("CHUNK", SMALL["chunk"]), ("TILE", SMALL["tile"]), ("THREADS", THREADS), ("SORT_MIN", 25),
                        ("_KERNELS", {}), ("_module", lambda: cp.module)):
        monkeypatch.setattr(ce, name, value)
    return ce


@pytest.mark.parametrize("name,scores", _vectors(), ids=lambda v: v if isinstance(v, str) else "")
def test_host_sequence_makes_the_specifications_picks(host_sequence: Any, name: str, scores: np.ndarray) -> None:
    """kernels/_cupy/exponential.py (launch order, uniforms, the sorted draw order from 25 draws) on the CPU build.

    One draw runs through ``size=None`` (the same launches as ``size=1``, one synchronisation)."""
    for k in (20, 30):
        got = host_sequence.exponential_mechanism(scores, 0.7, k, np.random.default_rng(k))
        want = op.sample(scores, 0.7, k, np.random.default_rng(k), **SMALL, sort_min=25)
        assert np.array_equal(np.asarray(got), want), (name, k)
    one = host_sequence.exponential_mechanism(scores, 0.7, None, np.random.default_rng(3))
    assert isinstance(one, int) and one == op.sample(scores, 0.7, 1, np.random.default_rng(3), **SMALL)[0]


def test_host_sequence_status_words(host_sequence: Any) -> None:
    s = np.zeros(3 * SMALL["chunk"] + 1)
    s[100] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        host_sequence.exponential_mechanism(s, 1.0, 3, np.random.default_rng(0))
    s[100], s[7] = np.inf, np.inf
    got = host_sequence.exponential_mechanism(s, 1.0, 50, np.random.default_rng(0))
    assert set(np.asarray(got).tolist()) == {7, 100}
    with pytest.raises(ValueError, match="all scores are -inf"):
        host_sequence.exponential_mechanism(np.full(300, -np.inf), 1.0, 3, np.random.default_rng(0))

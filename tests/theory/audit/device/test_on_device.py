"""``OnDevice``: a mechanism sampled on a GPU, counted by the auditor on the host.

Without a GPU: the wrapper's contract (one 63-bit seed from the host generator per call, the data as
a device array, the outputs back on the host) on a NumPy stand-in for CuPy, and its errors.  With a
GPU (``gpu`` marker, run by ``scripts/gpu_check.sh``): every example mechanism that runs on the
device has the host law, by an audit-style two-sample test at confidence 0.999 per mechanism (false
failure at most 1e-3 each, 1.1% for the 11 together), and the test has the power to see a broken
mechanism (NoisyHist with ``Lap(eps)`` noise on the device against the right one on the host)."""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest
from semiprivate.kernels._backend import _cupy_available
from semiprivate.theory.audit import audit_pairs
from semiprivate.theory.audit.device import OnDevice
from semiprivate.theory.audit.examples import (
    SVT,
    LaplaceParallel,
    NoisyHist,
    NumericalSVT,
    PrefixSum,
    Rappor,
    ReportNoisyMax,
    SVT34Parallel,
    TruncatedGeometric,
)
from semiprivate.theory.audit.options import AuditOptions


class _Copied(np.ndarray):
    """An array the stand-in copied "to the device" (what ``cupy.asarray`` returns)."""


@pytest.fixture
def numpy_as_cupy(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A stand-in ``cupy``: NumPy arrays (copies "to the device" are :class:`_Copied`), NumPy's Philox
    as the device bit generator."""
    cp = types.ModuleType("cupy")
    cp.ndarray = np.ndarray  # type: ignore[attr-defined]
    cp.asarray = lambda x: np.asarray(x).view(_Copied)  # type: ignore[attr-defined]
    cp.asnumpy = np.asarray  # type: ignore[attr-defined]
    cp.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1))  # type: ignore[attr-defined]
    cp.random = types.SimpleNamespace(Generator=np.random.Generator, Philox4x3210=np.random.Philox,  # type: ignore[attr-defined]
                                      XORWOW=np.random.PCG64, MRG32k3a=np.random.SFC64)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    return cp


def test_each_call_seeds_the_device_generator_from_the_host_generator(numpy_as_cupy: Any) -> None:
    a = np.arange(5.0)
    got = OnDevice(NoisyHist())(a, 1000, np.random.default_rng(4))
    seed = int(np.random.default_rng(4).integers(2**63))
    want = NoisyHist()(a, 1000, np.random.Generator(np.random.Philox(seed)))
    np.testing.assert_array_equal(got, want)
    host = np.random.default_rng(4)
    first = OnDevice(NoisyHist(), bit_generator="XORWOW")(a, 10, host)
    second = OnDevice(NoisyHist(), bit_generator="XORWOW")(a, 10, host)
    assert not np.array_equal(first, second)  # the host stream moved on: a fresh device seed
    np.testing.assert_array_equal(first, NoisyHist()(a, 10, np.random.Generator(np.random.PCG64(
        int(np.random.default_rng(4).integers(2**63))))))


def test_non_array_data_and_non_array_outputs(numpy_as_cupy: Any) -> None:
    seen = []

    def mech(data: Any, size: int, g: Any) -> Any:
        seen.append(data)
        return g.random(size) if data == 1 else [0.0] * size

    out = OnDevice(mech)(1, 3, np.random.default_rng(0))
    assert out.shape == (3,) and type(out) is np.ndarray  # back on the host
    assert seen == [1] and type(seen[0]) is int  # a non-array input is passed as it is
    OnDevice(lambda d, n, g: seen.append(d) or g.random(n))(np.zeros(2), 3, np.random.default_rng(0))
    assert type(seen[-1]) is _Copied  # an ndarray input goes to the device
    with pytest.raises(TypeError, match="^the mechanism on the device must return an array \\(CuPy or NumPy\\), got list$"):
        OnDevice(mech)(0, 3, np.random.default_rng(0))


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(TypeError, match="^mechanism must be callable \\(data, size, generator\\) -> array, got int$"):
        OnDevice(3)
    with pytest.raises(ValueError, match="^bit_generator must be one of 'Philox4x3210', 'XORWOW', 'MRG32k3a', got 'MT19937'$"):
        OnDevice(NoisyHist(), bit_generator="MT19937")


@pytest.mark.skipif(_cupy_available(), reason="checks the message without a GPU")
def test_without_a_gpu_it_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    with pytest.raises(RuntimeError, match="^OnDevice needs CuPy and a CUDA device .* instead \\(ModuleNotFoundError: import of cupy halted"):
        OnDevice(NoisyHist())(np.zeros(3), 5, np.random.default_rng(0))


class _Served:
    """Input 0: host outputs, input 1: device outputs, served in order (a two-sample audit)."""

    def __init__(self, host: np.ndarray, device: np.ndarray) -> None:
        self.rows, self.pos = [host, device], [0, 0]

    def __call__(self, which: int, size: int, rng: Any) -> np.ndarray:
        out = self.rows[which][self.pos[which]:self.pos[which] + size]
        self.pos[which] += size
        return out


def _two_sample_bound(host: np.ndarray, device: np.ndarray, seed: int) -> float:
    n = len(host)
    res = audit_pairs(_Served(host, device), [(0, 1)], epsilon=1e-9, trials=n - n // 5, options=AuditOptions(selection_trials=n // 5),
                      confidence=0.999, rng=seed)
    return float(res.epsilon_lower_bound)


CW10 = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
DEVICE_CASES = [
    ("TruncatedGeometric", TruncatedGeometric(), np.array([2.0])),
    ("NoisyHist1", NoisyHist(), np.array([1.0, 1.0, 1.0, 1.0, 1.0])),
    ("ReportNoisyMax2", ReportNoisyMax(noise="exp"), CW10[:5]),
    ("ReportNoisyMax3", ReportNoisyMax(value=True), CW10[:5]),
    ("SVT2 c=2 (redrawn threshold noise)", SVT(2, c=2), CW10),
    ("SVT3", SVT(3), CW10),
    ("SVT34Parallel", SVT34Parallel(), CW10),
    ("NumericalSVT", NumericalSVT(), CW10),
    ("PrefixSum", PrefixSum(), CW10),
    ("LaplaceParallel", LaplaceParallel(), np.array([0.0])),
    ("OneTimeRappor", Rappor(one_time=True, f=0.95), np.array([3.0])),
]


@pytest.mark.gpu
@pytest.mark.parametrize("name,mechanism,a", DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_device_outputs_have_the_host_law(name: str, mechanism: Any, a: np.ndarray) -> None:
    n = 400_000
    host = mechanism(a, n, np.random.default_rng(11))
    device = OnDevice(mechanism)(a, n, np.random.default_rng(12))
    assert device.shape == host.shape and device.dtype == host.dtype
    assert _two_sample_bound(host, device, 13) == 0.0, name


@pytest.mark.gpu
def test_the_two_sample_check_sees_a_broken_device_mechanism() -> None:
    a, n = np.ones(5), 400_000
    host = NoisyHist()(a, n, np.random.default_rng(11))
    device = OnDevice(NoisyHist(broken=True))(a, n, np.random.default_rng(12))
    assert _two_sample_bound(host, device, 13) > 1.0


@pytest.mark.gpu
def test_device_audit_is_a_function_of_its_seed() -> None:
    a, b = CW10, np.r_[0.0, CW10[1:]]
    runs = [audit_pairs(OnDevice(SVT(3)), [(a, b)], epsilon=0.1, trials=200_000, rng=5) for _ in range(2)]
    assert runs[0].epsilon_lower_bound == runs[1].epsilon_lower_bound
    assert runs[0].epsilon_lower_bound > 0.0  # Alg. 3 is not 0.1-DP: seen at this budget on the host too

"""semiprivate.kernels._exponential (the kernels' Python glue): the floating-point error bound's exact value for every
backend and where it becomes vacuous, exact rational conversion, the 0/1 checks and their messages, which backend's
code runs, and the CuPy dispatch (on a NumPy stand-in for a device array: no GPU needed).
"""

from __future__ import annotations

import math
import numbers
import sys
import types
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import semiprivate.kernels._backend as backend_mod
import semiprivate.kernels._exponential as kexp
from semiprivate.kernels import error_counts, exponential_log_probabilities, exponential_mechanism, pack_bits
from semiprivate.kernels._exponential import SCORES, sampler_error_bounds
from semiprivate.kernels._reference import reference_exact_sample
from semiprivate.validation import check_binary

HAS_CYTHON = kexp._cython_module() is not None
U = Fraction(1, 2**53)


class _Device:
    """A stand-in for a CuPy array: ``semiprivate.kernels._backend.is_cupy_array`` goes by the type's module; like CuPy it
    refuses implicit conversion to NumPy (``np.asarray`` raises) and copies to the host with ``get()``."""

    def __init__(self, a: Any) -> None:
        self._a = np.array(a)
        self.dtype, self.ndim, self.shape, self.size = self._a.dtype, self._a.ndim, self._a.shape, self._a.size

    def get(self) -> np.ndarray:
        return self._a.copy()

    def tolist(self) -> Any:
        return self._a.tolist()

    def __gt__(self, other: Any) -> np.ndarray:
        return self._a > other

    def __lt__(self, other: Any) -> np.ndarray:
        return self._a < other

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                        "NumPy array explicitly.")


_Device.__module__ = "cupy"


def _device(a: Any) -> _Device:
    return _Device(a)


# --- sampler_error_bounds: the bound stated in exponential_mechanism's Notes, recomputed exactly ---


def _stated_bound(n: int, epsilon: float, backend: str) -> dict[str, float]:
    """gamma = 6 (708 * 3u + 4u) + 2 S u, xi = S u + n 2^-1021 with S = n (NumPy, one stage), 2048 + ceil(n / 2048)
    (Cython) or 4096 + 256 + 8 + ceil(ceil(n / 4096) / 256) (CuPy: entries, chunks of a tile, the tile reduction,
    tiles); epsilon_fp = epsilon + log((1 + gamma) / (1 - gamma)), delta_fp = (1 + exp(epsilon_fp)) xi.  gamma
    and xi in exact rationals."""
    if backend == "numpy":
        stages = n
    elif backend == "cython":
        stages = 2048 + -(-n // 2048)
    else:
        chunks = -(-n // 4096)
        stages = 4096 + 256 + 8 + -(-chunks // 256)
    gamma = 6 * (708 * 3 * U + 4 * U) + 2 * stages * U
    xi = stages * U + n * Fraction(1, 2**1021)
    eps_fp = epsilon + math.log((1 + gamma) / (1 - gamma))
    return {"gamma": float(gamma), "xi": float(xi), "epsilon_fp": eps_fp, "delta_fp": (1 + math.exp(eps_fp)) * float(xi)}


@pytest.mark.parametrize(("n", "backend"), [(1, "numpy"), (10**7 + 1, "numpy"), (10**7, "cython"), (2048 * 5, "cython"),
                                            (2**40 + 3, "cython"), (10**7, "cupy"), (4096 * 3, "cupy")])
@pytest.mark.parametrize("epsilon", [1.0, 0.25])
def test_sampler_error_bounds_are_the_stated_bound(n: int, backend: str, epsilon: float) -> None:
    got = sampler_error_bounds(n, epsilon, backend=backend)
    want = _stated_bound(n, epsilon, backend)
    assert sorted(got) == sorted(want)
    for key in ("gamma", "xi", "delta_fp"):
        assert got[key] == pytest.approx(want[key], rel=1e-13, abs=0), key
    # epsilon_fp - epsilon = log((1 + g) / (1 - g)) ~ 2 g >= 2.8e-12 here: 1e-14 relative to epsilon_fp sees it (a
    # difference of the last bits of the two float sums is ~2e-16 relative)
    assert got["epsilon_fp"] == pytest.approx(want["epsilon_fp"], rel=1e-14, abs=0)
    assert got["epsilon_fp"] > epsilon


def test_sampler_error_bounds_become_vacuous_exactly_at_gamma_1() -> None:
    """NumPy backend (one stage of n): gamma = 12768 u + 2 n u is exactly 1 at n = 2^52 - 6384 (every term a
    multiple of u, so the float sum is exact) -- refused, naming n and backend; one candidate less is accepted."""
    n = 2**52 - 6384
    with pytest.raises(ValueError) as err:
        sampler_error_bounds(n, 1.0, backend="numpy")
    assert str(err.value) == (f"n={n} is too large for backend='numpy': the floating-point error bound is vacuous "
                              "(relative error gamma = 1 >= 1)")
    below = sampler_error_bounds(n - 1, 1.0, backend="numpy")
    assert below["gamma"] == 1.0 - 2.0**-52 and math.isfinite(below["epsilon_fp"])


# --- exact=True: rational values of epsilon and sensitivity ---


class _RatioOnly:
    """Has as_integer_ratio (with NumPy ints, as array scalars give) but is no registered number."""

    def as_integer_ratio(self) -> tuple[Any, Any]:
        return (np.int64(1), np.int64(3))

    def __repr__(self) -> str:
        return "RatioOnly(1/3)"


class _Irrational:
    def __repr__(self) -> str:
        return "Irrational()"


class _BadRatio:
    def as_integer_ratio(self) -> tuple[int, int]:
        raise ValueError("cannot convert NaN to integer ratio")

    def __repr__(self) -> str:
        return "BadRatio()"


def test_as_fraction_takes_as_integer_ratio_in_python_ints_and_names_what_it_refuses() -> None:
    """The ratio's parts become Python ints (on every Python version: from 3.14 Fraction() itself accepts such
    objects but keeps their NumPy ints); what has no rational value is a TypeError naming the argument."""
    got = kexp._as_fraction(_RatioOnly(), "epsilon")
    assert got == Fraction(1, 3) and type(got.numerator) is int and type(got.denominator) is int
    for x in (np.int64(7), 7, Fraction(2, 3), np.float32(0.1), 0.1):
        want = Fraction(int(x)) if isinstance(x, (int, np.integer)) else Fraction(x) if isinstance(x, Fraction) \
            else Fraction(*x.as_integer_ratio())
        got = kexp._as_fraction(x, "epsilon")
        assert got == want and type(got.numerator) is int, x
    with pytest.raises(TypeError) as err:
        kexp._as_fraction(_BadRatio(), "epsilon")
    assert str(err.value) == "exact=True needs a rational epsilon, got BadRatio() (_BadRatio)"
    with pytest.raises(TypeError) as err:
        kexp._as_fraction(_Irrational(), "sensitivity")
    assert str(err.value) == "exact=True needs a rational sensitivity, got Irrational() (_Irrational)"


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="long double is float64 on this platform")
def test_as_fraction_keeps_every_bit_of_a_long_double() -> None:
    third = np.longdouble(1) / np.longdouble(3)
    exact = Fraction(*third.as_integer_ratio())
    assert kexp._as_fraction(third, "epsilon") == exact != Fraction(float(third))


def test_exact_sampling_uses_the_rational_epsilon_over_twice_the_sensitivity() -> None:
    """exact=True with epsilon 2 and sensitivity 1/2 (so c = 2, not 1/2): the draws equal the reference exact
    sampler's at c = Fraction(2) on the same seed."""
    scores = np.array([0, 1, 3, 3, -2])
    got = exponential_mechanism(scores, 2, sensitivity=Fraction(1, 2), size=200, rng=5, exact=True)
    want = reference_exact_sample(scores, Fraction(2), Fraction(1, 2), 200, np.random.default_rng(5))
    assert got.tolist() == want.tolist()
    other = reference_exact_sample(scores, Fraction(1, 2), Fraction(2), 200, np.random.default_rng(5))
    assert got.tolist() != other.tolist()


# --- messages and the documented constraint ---


@pytest.mark.parametrize("backend", ["numpy"] + (["cython"] if HAS_CYTHON else []))
def test_nan_scores_are_refused_with_the_one_message(backend: str) -> None:
    for call in (lambda: exponential_mechanism([0.0, math.nan], 1.0, rng=0, backend=backend),
                 lambda: exponential_log_probabilities([0.0, math.nan], 1.0)):
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value) == "scores must not contain NaN"


def test_scores_constraint_describes_what_the_kernels_accept() -> None:
    """Also a freshly built constraint: SCORES itself is built at import, before a mutant is selected."""
    for constraint in (SCORES, kexp._Scores()):
        assert constraint.describe() == "an array (ndim 1, dtype kinds 'iuf', >= 1 elements, non-NaN values)"


class _ApproxReal:
    """A registered numbers.Real with a float value but no exact ratio (passes the epsilon check)."""

    def __float__(self) -> float:
        return 0.5

    def __repr__(self) -> str:
        return "ApproxReal(0.5)"


numbers.Real.register(_ApproxReal)


def test_exact_names_the_argument_without_a_rational_value() -> None:
    for kw, name in (({"epsilon": _ApproxReal()}, "epsilon"), ({"epsilon": 1.0, "sensitivity": _ApproxReal()},
                                                               "sensitivity")):
        eps = kw.pop("epsilon")
        with pytest.raises(TypeError) as err:
            exponential_mechanism([0, 1], eps, exact=True, rng=0, **kw)
        assert str(err.value) == f"exact=True needs a rational {name}, got ApproxReal(0.5) (_ApproxReal)"


def test_a_scale_that_overflows_is_refused() -> None:
    """epsilon / (2 sensitivity) = 1e308 / 2e-10 is inf in float64: no sampler can use it."""
    with pytest.raises(ValueError) as err:
        exponential_mechanism([0.0, 1.0], 1e308, sensitivity=1e-10, rng=0)
    assert str(err.value) == ("epsilon / (2 * sensitivity) must be a positive finite float64, got epsilon=1e+308, "
                              "sensitivity=1e-10 (ratio inf)")


def test_prepare_scores_keeps_int64_up_to_its_largest_range() -> None:
    """uint64 scores whose range is exactly 2^63 - 1 still fit int64 (-(max - s)); one more needs float64."""
    top = np.array([2**63 - 1, 0], dtype=np.uint64)
    out = kexp.prepare_scores(top)
    assert out.dtype == np.int64 and out.tolist() == [0, -(2**63 - 1)]
    wider = kexp.prepare_scores(np.array([2**63, 0], dtype=np.uint64))
    assert wider.dtype == np.float64 and wider.tolist() == [0.0, -(2.0**63)]


# --- backend choice: auto, the environment, an unbuilt sampler ---


@pytest.mark.skipif(not HAS_CYTHON, reason="compiled backend not built")
def test_auto_is_the_compiled_sampler_and_numpy_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the sampler built, 'auto' draws what 'cython' draws, and 'numpy' draws with the reference (the two
    algorithms use the uniforms differently, so equal seeds give different indices on these scores)."""
    monkeypatch.delenv("SEMIPRIVATE_BACKEND", raising=False)
    s = np.random.default_rng(1).random(5000)
    auto, cy, ref = (exponential_mechanism(s, 4.0, size=50, rng=9, backend=b).tolist()
                     for b in ("auto", "cython", "numpy"))
    assert auto == cy != ref
    # 'built' means the sampler imports, whatever the build probe says
    monkeypatch.setattr(backend_mod, "_cython_available", lambda: False)
    assert exponential_mechanism(s, 4.0, size=50, rng=9).tolist() == cy
    assert ref == kexp.ref.reference_exponential_mechanism(s, 2.0, 50, np.random.default_rng(9)).tolist()


def test_an_unbuilt_sampler_falls_back_only_when_not_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """semiprivate.kernels._cython._expmech missing (the probe may still be built): 'auto' falls back to the reference;
    'cython', asked for by argument or by SEMIPRIVATE_BACKEND, is an error naming the missing module; 'numpy'
    works."""
    monkeypatch.setattr(kexp, "_cython_module", lambda: None)
    monkeypatch.setattr(backend_mod, "_cython_available", lambda: True)
    monkeypatch.delenv("SEMIPRIVATE_BACKEND", raising=False)
    s = np.array([0.0, 1.0, 3.0, 2.0])
    want = kexp.ref.reference_exponential_mechanism(s, 0.5, 20, np.random.default_rng(4)).tolist()
    for backend in ("auto", "numpy"):
        assert exponential_mechanism(s, 1.0, size=20, rng=4, backend=backend).tolist() == want
    msg = "backend 'cython' is not available: semiprivate.kernels._cython._expmech is not built"
    with pytest.raises(ValueError) as err:
        exponential_mechanism(s, 1.0, rng=4, backend="cython")
    assert str(err.value) == msg
    monkeypatch.setenv("SEMIPRIVATE_BACKEND", "cython")
    with pytest.raises(ValueError) as err:
        exponential_mechanism(s, 1.0, rng=4)
    assert str(err.value) == msg
    assert kexp.cython_threads() == 1


def test_cython_threads_reports_the_samplers_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """cython_threads is the compiled sampler's threads_used() as an int, 1 when the sampler is not built.  (A
    stand-in module: a real 2-thread region cannot run in a test process forked after OpenMP started, as mutation
    runners are; tests/kernels/backend/test_fork.py covers the real counts.)"""
    monkeypatch.setattr(kexp, "_cython_module", lambda: types.SimpleNamespace(threads_used=lambda: np.int32(3)))
    got = kexp.cython_threads()
    assert got == 3 and type(got) is int
    monkeypatch.setattr(kexp, "_cython_module", lambda: None)
    assert kexp.cython_threads() == 1


@pytest.mark.skipif(not HAS_CYTHON, reason="compiled backend not built")
def test_the_compiled_sampler_takes_two_uniforms_per_draw_and_names_all_minus_inf() -> None:
    """As documented (rng): the chunk, then the entry -- so the caller's generator moves by exactly 2 k
    uniforms for k draws (one draw: 2)."""
    s = np.random.default_rng(2).random(100)
    for size, k in ((None, 1), (5, 5)):
        g = np.random.default_rng(7)
        exponential_mechanism(s, 1.0, size=size, rng=g, backend="cython")
        h = np.random.default_rng(7)
        h.random(2 * k)
        assert g.random() == h.random()
    with pytest.raises(ValueError) as err:
        exponential_mechanism(np.full(3, -np.inf), 1.0, rng=0, backend="cython")
    assert str(err.value) == "scores must contain at least one entry > -inf (all scores are -inf)"


# --- check_binary: the one 0/1 rule ---


def test_check_binary_converts_only_when_asked_and_checks_arrays_in_place() -> None:
    ints = np.array([1, 0, 1])
    assert check_binary(ints, "y") is ints
    out = check_binary(ints, "y", as_bool=True)
    assert out.dtype == np.bool_ and out.tolist() == [True, False, True]
    bools = np.array([True, False])
    assert check_binary(bools, "y", as_bool=True) is bools
    dev = _device(ints)
    assert check_binary(dev, "y") is dev


def test_check_binary_length_means_one_dimension_of_that_length() -> None:
    with pytest.raises(ValueError) as err:
        check_binary(np.zeros((3, 2), dtype=int), "y", length=3)
    assert str(err.value) == "y must be 1-d of length 3, got shape (3, 2)"
    with pytest.raises(ValueError, match=r"^y must be 1-d of length 3, got shape \(2,\)$"):
        check_binary(np.zeros(2, dtype=int), "y", length=3)
    assert check_binary(np.zeros(3, dtype=int), "y", length=3).shape == (3,)


# --- error_counts / pack_bits ---


@pytest.mark.parametrize("backend", ["numpy"] + (["cython"] if HAS_CYTHON else []))
def test_error_counts_accept_lists_and_name_the_bad_argument(backend: str) -> None:
    P = [[1, 0, 1, 1], [0, 0, 0, 0]]
    assert error_counts(P, [1, 0, 0, 1], backend=backend).tolist() == [1, 2]
    with pytest.raises(ValueError) as err:
        error_counts(P, [1, 0, 2, 1], backend=backend)
    assert str(err.value) == "labels must contain only 0 and 1 (or be boolean)"
    with pytest.raises(ValueError) as err:
        error_counts([[1, 0, 2, 1]], [1, 0, 0, 1], backend=backend)
    assert str(err.value) == "predictions must contain only 0 and 1 (or be boolean)"
    with pytest.raises(ValueError) as err:
        error_counts([[1, 0, 1]], [1, 0, 0, 1], backend=backend)
    assert str(err.value) == "predictions must have m = 4 columns (one per label), got shape (1, 3)"
    with pytest.raises(ValueError) as err:
        error_counts(np.zeros((2, 3), dtype=np.uint64), np.ones(70, dtype=int), backend=backend)
    assert str(err.value) == ("packed predictions (uint64) must have ceil(m/64) = 2 words per row for m = 70 labels, "
                              "got shape (2, 3)")


@pytest.mark.parametrize("backend", ["numpy"] + (["cython"] if HAS_CYTHON else []))
def test_packed_padding_bits_are_ignored_and_the_callers_words_untouched(backend: str) -> None:
    """m = 70 labels, packed rows with every bit set (padding included): only the 70 label columns count, and
    the caller's packed array is not modified by the masking."""
    m = 70
    y = np.zeros(m, dtype=int)
    y[:5] = 1
    words = np.full((2, 2), np.iinfo(np.uint64).max, dtype=np.uint64)
    words[1, 0] = 0
    before = words.copy()
    got = error_counts(words, y, backend=backend)
    full = np.ones(m, dtype=bool)
    second = full.copy()
    second[:64] = False
    assert got.tolist() == [int(np.count_nonzero(full != y)), int(np.count_nonzero(second != y))]
    assert np.array_equal(words, before)


def test_each_backend_runs_its_own_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """backend='numpy' counts with the reference; 'cython' does not call it (equal counts cannot tell them apart)."""
    calls: list[str] = []
    real = kexp.ref.reference_error_counts

    def spy(*a: Any) -> Any:
        calls.append("reference")
        return real(*a)

    monkeypatch.setattr(kexp.ref, "reference_error_counts", spy)
    P, y = np.array([[1, 0, 1], [0, 1, 1]]), np.array([1, 1, 0])
    assert error_counts(P, y, backend="numpy").tolist() == [2, 2] and calls == ["reference"]
    if HAS_CYTHON:
        assert error_counts(P, y, backend="cython").tolist() == [2, 2] and calls == ["reference"]


def test_pack_bits_names_its_argument() -> None:
    with pytest.raises(ValueError) as err:
        pack_bits([[0, 2]])
    assert str(err.value) == "bool_matrix must contain only 0 and 1 (or be boolean)"


# --- CuPy dispatch, on the stand-in device array (the GPU kernels themselves are tested on a GPU) ---


@pytest.fixture
def gpu_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """CuPy reported available; the GPU kernels replaced by recorders; a minimal ``cupy`` module (asarray)."""
    from semiprivate.kernels._cupy import exponential as gpu

    calls: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(backend_mod, "_cupy_available", lambda: True)
    monkeypatch.setattr(gpu, "error_counts", lambda *a: calls.append(("error_counts", a)) or "gpu counts")
    monkeypatch.setattr(gpu, "exponential_mechanism", lambda *a: calls.append(("exponential_mechanism", a)) or "gpu draws")
    fake = types.ModuleType("cupy")
    fake.asarray = _device  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", fake)
    return calls


def test_error_counts_send_device_arrays_to_the_gpu_kernel(gpu_calls: list[Any]) -> None:
    """A device array as predictions or as labels selects the CuPy kernel, which gets the arrays as they are."""
    P, y = np.array([[1, 0, 1]]), np.array([1, 1, 0])
    for pred, lab in ((_device(P), y), (P, _device(y)), (_device(P), _device(y))):
        gpu_calls.clear()
        assert error_counts(pred, lab) == "gpu counts"
        (name, args), = gpu_calls
        assert name == "error_counts" and args[0] is pred and args[1] is lab


def test_exponential_mechanism_sends_device_scores_to_the_gpu_kernel(gpu_calls: list[Any]) -> None:
    """Device scores: the CuPy kernel gets them with c = epsilon / (2 sensitivity), the size and the caller's
    generator; with exact=True the host sampler runs on the copied-back scores and its draws return as a device
    array (one draw: an int)."""
    scores = _device(np.array([0.0, 1.0, 2.0]))
    g = np.random.default_rng(1)
    assert exponential_mechanism(scores, 3.0, sensitivity=0.5, size=4, rng=g) == "gpu draws"
    (name, args), = gpu_calls
    assert name == "exponential_mechanism" and args[0] is scores and args[1:] == (3.0, 4, g)
    host = np.array([0, 3, 3, 1])
    lp = exponential_log_probabilities(_device(host.astype(float)), 2.0)
    assert lp.tolist() == exponential_log_probabilities(host.astype(float), 2.0).tolist()
    out = exponential_mechanism(_device(host), 1, size=50, rng=2, exact=True)
    want = reference_exact_sample(host, Fraction(1), Fraction(1), 50, np.random.default_rng(2))
    assert type(out) is _Device and out.tolist() == want.tolist()
    one = exponential_mechanism(_device(host), 1, rng=2, exact=True)
    assert isinstance(one, int) and one == reference_exact_sample(host, Fraction(1), Fraction(1), None,
                                                                  np.random.default_rng(2))
    assert len(gpu_calls) == 1

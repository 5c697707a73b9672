"""Exact discrete noise: discrete Laplace, discrete Gaussian and ``Bernoulli(exp(-gamma))`` samplers.

Implements the distributions of Canonne, Kamath and Steinke (2020), "The Discrete Gaussian for
Differential Privacy" (CKS20): the discrete Laplace (Def. 3), the discrete Gaussian (Def. 1) and the
``Bernoulli(exp(-gamma))`` coin of their Alg. 1, each EXACT on its support: no floating-point number
enters a decision, the parameters are used as the exact rationals they are (a float is the dyadic
rational it stores; ``fractions.Fraction`` is exact), and every output value ``x`` has probability
exactly ``P[X = x]``.  These are the samplers for released noise (a float Laplace on a released value
leaks through its rounding pattern, Mironov 2012).

How: exact lazy inversion, one 64-bit word of the generator per sample on the common path (see
:mod:`semiprivate.kernels._reference_noise`, the specification, for the method and for exactly which
bits are read).  Backends (:mod:`semiprivate.kernels._backend`): ``"numpy"`` (the reference) and
``"cython"`` (:mod:`semiprivate.kernels._cython._noise`, the same words read through NumPy's C bit
generator: the same outputs bit for bit and the same generator state after).  There is no GPU
backend for these samplers.
"""

from __future__ import annotations

import decimal
import functools
import math
import numbers
import os
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels._backend import resolve_backend
from semiprivate.kernels.validation import as_generator

__all__ = ["discrete_laplace", "discrete_gaussian", "bernoulli_exp"]


def _exact(value: Any, name: str, *, allow_zero: bool = False, upper: tuple[int, str] | None = None) -> Fraction:
    """The exact rational value of a positive (or, with ``allow_zero``, non-negative) finite real, at most
    ``upper[0]`` when given (``upper[1]`` names that bound in the error)."""
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"{name} must be finite, got {value!r}")
        num, den = value.as_integer_ratio()
        out = Fraction(num, den)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number (int, float, fractions.Fraction or decimal.Decimal), "
                        f"got {type(value).__name__}")
    elif isinstance(value, (int, np.integer)):
        out = Fraction(int(value))
    elif isinstance(value, Fraction):
        out = value
    else:
        f = value if isinstance(value, numbers.Rational) else None
        if f is not None:
            out = Fraction(int(f.numerator), int(f.denominator))
        else:
            if not math.isfinite(float(value)):
                raise ValueError(f"{name} must be finite, got {float(value)!r}")
            ratio = getattr(value, "as_integer_ratio", None)  # floats of every width: their exact ratio
            num, den = ratio() if callable(ratio) else float(value).as_integer_ratio()
            out = Fraction(int(num), int(den))
    if out < 0 or (out == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {_show(out)}")
    if upper is not None and out > upper[0]:
        raise ValueError(f"{name} must be <= {upper[1]} (samples must fit in int64), got {_show(out)}")
    return out


def _show(x: Fraction) -> str:
    """A parameter for an error message, even one beyond the float range."""
    try:
        return repr(float(x))
    except OverflowError:
        return f"about 10**{len(str(abs(x.numerator))) - len(str(x.denominator))}"


def _size(size: Any) -> tuple[int, tuple[int, ...] | None]:
    """``(n, shape)``: ``size=None`` is one scalar draw (shape None)."""
    if size is None:
        return 1, None
    dims = size if isinstance(size, tuple) else (size,)
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Integral, np.integer)):
            raise TypeError(f"size must be None, a non-negative int or a tuple of them, got {size!r}")
        if int(d) < 0:
            raise ValueError(f"size must be >= 0, got {size!r}")
    shape = tuple(int(d) for d in dims)
    return math.prod(shape), shape


@functools.lru_cache(maxsize=1)
def _cython_module() -> Any:
    try:
        from semiprivate.kernels._cython import _noise  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _noise


def _resolve(backend: str) -> str:
    """``"numpy"`` or ``"cython"``; ``auto`` falls back to numpy when ``_noise`` is not built."""
    explicit = backend != "auto" or bool(os.environ.get("SEMIPRIVATE_BACKEND", "").strip())
    name = resolve_backend(backend)
    if name == "cupy":
        raise ValueError("the exact noise samplers have no 'cupy' backend; use 'numpy', 'cython' or 'auto'")
    if name == "cython" and _cython_module() is None:
        if explicit:
            raise ValueError("backend 'cython' is not available: semiprivate.kernels._cython._noise is not built")
        name = "numpy"
    return name


def _guide(table: Any) -> tuple[NDArray[np.int32], int]:
    """``guide[j] = #{i : L[i] <= j << (64 - bits)}``: where the compiled scan starts for a word's top bits.

    ``2**bits`` is about four entries per boundary (at most ``2**21``), so a scan takes about one step.
    """
    cached = getattr(table, "_guide", None)
    if cached is None:
        nb = int(table.L.shape[0])
        bits = min(21, max(1, (4 * nb).bit_length()))
        starts = np.arange(1 << bits, dtype=np.uint64) << np.uint64(64 - bits)
        cached = (np.searchsorted(table.L, starts, side="right").astype(np.int32), bits)
        table._guide = cached
    return cached


def _draw(table: Any, n: int, rng: np.random.Generator, backend: str) -> NDArray[np.int64]:
    if backend == "cython" and isinstance(table, ref._LaplaceLarge):
        return _laplace_large_compiled(table, n, rng)
    if backend == "cython" and isinstance(table, ref._GaussianRejection):
        return _gaussian_rejection_compiled(table, n, rng)
    sample_with = getattr(table, "sample_with", None)
    if sample_with is not None:  # a sampler built from tables (wide Laplace, wide Gaussian): each table on `backend`
        return sample_with(n, rng, lambda t, m, g: _draw(t, m, g, backend))
    if backend == "numpy":
        return table.sample(n, rng)
    mod = _cython_module()
    guide, bits = _guide(table)
    out = np.empty(n, dtype=np.int64)
    bitgen = rng.bit_generator
    with bitgen.lock:
        idx, ws = mod.draw(table.L, table.H, guide, bits, int(table.xmin), bool(table.lower_closed),
                           bool(table.upper_closed), bitgen.capsule, out)
    for i, w in zip(idx.tolist(), ws.tolist()):  # the reference's order and words: settle in index order
        out[i] = table.settle(int(w), int(out[i]), rng)
    return out


def _part_into(table: Any, out: NDArray[np.int64], mult: int, add: bool, rng: np.random.Generator,
               y: NDArray[np.int64] | None = None, limit: int | None = None) -> int:
    """One part of a wide discrete Laplace drawn as :func:`_draw` does (the same words, then the same settling
    in index order) and accumulated: ``out = mult * part`` or ``out += mult * part`` (with ``y``: the final
    ``sign(y) (|y| + out + mult * part)``); returns the part's maximum.  A settled value ``>= limit`` is not
    added (the caller refuses the draw, as the reference does, once every word is read)."""
    mod = _cython_module()
    guide, bits = _guide(table)
    bitgen = rng.bit_generator
    with bitgen.lock:
        idx, ws, gs, vmax = mod.draw_into(table.L, table.H, guide, bits, int(table.xmin), bool(table.lower_closed),
                                          bool(table.upper_closed), bitgen.capsule, out, mult, add, y)
    vmax = int(vmax)
    for i, w, guess in zip(idx.tolist(), ws.tolist(), gs.tolist()):
        v = table.settle(int(w), int(guess), rng)
        vmax = max(vmax, v)
        if limit is not None and v >= limit:
            continue
        sign = 1 if y is None else (int(y[i]) > 0) - (int(y[i]) < 0)
        out[i] += sign * mult * (v - guess)
    return vmax


def _laplace_large_compiled(table: ref._LaplaceLarge, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """:meth:`~semiprivate.kernels._reference_noise._LaplaceLarge.sample` fused: the parts read the reference's
    words in its order, each accumulated into ``B G`` while it is drawn (``G``'s digits times their place
    values, ``B D**i``), and the top part ``Q`` forms ``X = sign(Y) (|Y| + B G)`` as it is drawn: the
    reference's numbers with one pass per part and no temporaries."""
    parts = table.parts
    y = np.empty(n, dtype=np.int64)
    _part_into(parts[0], y, 1, False, rng)
    g = np.empty(n, dtype=np.int64)
    for i, part in enumerate(parts[1:-1]):  # the digits d_i, place value B D**i: each below B D**(i+1) <= 2**62
        _part_into(part, g, table.B * table.D ** i, bool(i), rng)
    if len(parts) == 2:
        g.fill(0)
    q_table, top = parts[-1], table.B * table.D ** table.K
    limit = (1 << 61) // top  # the reference refuses a Q at or above this (a sample that may not fit in int64)
    # every value of Q's table is below the limit (Q's ratio exp(-e), e = B D**K / scale in [1/16, 16), has a
    # table of about 46 / e entries; limit is about 2**61 / (e scale) >= 2**11 / e at scale <= 2**50), so
    # |Y| + B G < 2**12 + B D**K + 2**61 < 2**63: the compiled accumulation cannot overflow
    if int(q_table.xmin) + int(q_table.L.shape[0]) >= limit:
        raise OverflowError(f"the discrete Laplace's top part is too wide for int64 (scale = {float(table.scale):g})")
    qmax = _part_into(q_table, g, top, True, rng, y=y, limit=limit)
    if n and qmax >= limit:
        raise OverflowError("a discrete Laplace sample does not fit in int64 (probability below 2**-5900 "
                            f"at scale <= 2**50; scale = {float(table.scale):g})")
    return g


def _gaussian_rejection_compiled(table: ref._GaussianRejection, n: int, rng: np.random.Generator,
                                 margin: float = 2.0**-20) -> NDArray[np.int64]:
    """:meth:`~semiprivate.kernels._reference_noise._GaussianRejection.sample` with compiled proposals and
    coins (``_noise.gaussian_coins``): the same rounds, words and settling order, so the same numbers; the
    coins the float bound leaves open (a relative band ``margin`` around ``2**64 exp(-gamma)``, widened only to
    test the exact fallback) are decided by the reference's exact code, in index order."""
    mod = _cython_module()
    out = np.empty(n, dtype=np.int64)
    pending = np.arange(n, dtype=np.int64)
    centre = float(table.sigma2 / table.t)
    two_s2 = float(2 * table.sigma2)
    bitgen = rng.bit_generator
    keep_all = np.empty(n, dtype=np.uint8)
    m = n
    while m:
        y = _draw(table.lap, m, rng, "cython")
        keep = keep_all[:m]
        with bitgen.lock:
            idx, ws = mod.gaussian_coins(y, centre, two_s2, bitgen.capsule, keep, margin)
        for i, w in zip(idx.tolist(), ws.tolist()):
            keep[i] = table.decide(int(y[i]), int(w), rng)
        m = mod.accept_compact(y, keep, pending, out)  # the rejected, in order, stay pending (the reference's order)
    return out


def _shape(x: NDArray[Any], shape: tuple[int, ...] | None) -> Any:
    if shape is None:
        return x[0].item()
    return x.reshape(shape)


def discrete_laplace(scale: Any, size: Any = None, *, rng: Any = None, backend: str = "auto") -> Any:
    """Exact discrete Laplace samples: ``P[X = x] ∝ exp(-|x| / scale)`` on the integers.

    CKS20 Def. 3 (``P[X = x] = (1 - p) / (1 + p) p**|x|``, ``p = exp(-1/scale)``).  Adding it to an
    integer query of sensitivity ``Delta`` gives ``Delta / scale``-DP (CKS20 Sec. 2.3; Ghosh, Roughgarden
    and Sundararajan 2009 for the geometric mechanism).

    Parameters
    ----------
    scale : float, int, fractions.Fraction or decimal.Decimal
        ``> 0`` and at most ``2**50`` (so that samples fit in int64); used as its exact rational value,
        however small.  Scales above about 236 are drawn from small tables (a folded low part and the
        base-256 digits of a geometric, ``_reference_noise._LaplaceLarge``):
        no table grows with the scale.
    size : int, tuple of int or None
        ``None`` gives one Python ``int``; otherwise an int64 array of that shape.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Source of randomness (``None``: fresh entropy).  Read as 64-bit words (``next_uint64``) only:
        one per sample, rarely more (a wide scale: one per part and sample).
    backend : {"auto", "numpy", "cython"}
        ``"numpy"`` is the reference; ``"cython"`` gives the same numbers, faster.

    Returns
    -------
    int or numpy.ndarray of int64

    Raises
    ------
    TypeError
        ``scale`` is not a real number, ``size`` not an int/tuple, ``rng`` not a generator/seed.
    ValueError
        ``scale <= 0``, above ``2**50`` or not finite, a negative ``size``, an unknown or unavailable backend.

    Examples
    --------
    >>> x = discrete_laplace(2.0, size=5, rng=0)
    >>> x.dtype, x.shape
    (dtype('int64'), (5,))
    >>> discrete_laplace(2.0, rng=0) == int(x[0])
    True
    """
    t = _exact(scale, "scale", upper=(ref.MAX_SCALE, "2**50"))
    n, shape = _size(size)
    g = as_generator(rng)
    b = _resolve(backend)
    return _shape(_draw(ref.laplace_table(t), n, g, b), shape)


def discrete_gaussian(sigma2: Any, size: Any = None, *, rng: Any = None, backend: str = "auto") -> Any:
    """Exact discrete Gaussian samples: ``P[X = x] ∝ exp(-x**2 / (2 sigma2))`` on the integers.

    CKS20 Def. 1; adding it to an integer query of sensitivity ``Delta`` satisfies
    ``Delta**2 / (2 sigma2)``-zCDP (CKS20 Thm. 4).  ``sigma2`` is the parameter, not the variance
    (the variance is slightly below ``sigma2``, CKS20 Cor. 9).

    Parameters
    ----------
    sigma2 : float, int, fractions.Fraction or decimal.Decimal
        ``> 0`` and at most ``2**100``; used as its exact rational value, however small.  Above about
        ``6.2e7`` (a table half-width of ``2**16``) samples come from CKS20 Alg. 3 (a discrete Laplace
        proposal and an exact ``exp`` coin per proposal; the compiled backend decides the coins
        from a double-precision bound, exactly, and is a few times NumPy's float ``normal`` per sample,
        the reference tens of microseconds).
    size : int, tuple of int or None
        ``None`` gives one Python ``int``; otherwise an int64 array of that shape.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Source of randomness, read as for :func:`discrete_laplace`.
    backend : {"auto", "numpy", "cython"}

    Returns
    -------
    int or numpy.ndarray of int64

    Raises
    ------
    TypeError, ValueError
        As :func:`discrete_laplace`, for ``sigma2``.

    Examples
    --------
    >>> discrete_gaussian(4.0, size=(2, 3), rng=1).shape
    (2, 3)
    """
    s2 = _exact(sigma2, "sigma2", upper=(ref.MAX_SIGMA2, "2**100"))
    n, shape = _size(size)
    g = as_generator(rng)
    b = _resolve(backend)
    return _shape(_draw(ref.gaussian_table(s2), n, g, b), shape)


def bernoulli_exp(gamma: Any, size: Any = None, *, rng: Any = None, backend: str = "auto") -> Any:
    """Exact ``Bernoulli(exp(-gamma))`` coins for a rational ``gamma >= 0`` (the coin of CKS20 Alg. 1).

    Parameters
    ----------
    gamma : float, int, fractions.Fraction or decimal.Decimal
        ``>= 0`` and finite; used as its exact rational value (any size).  ``gamma = 0`` reads no randomness.
    size : int, tuple of int or None
        ``None`` gives one Python ``bool``; otherwise a bool array of that shape.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Source of randomness, read as for :func:`discrete_laplace`.
    backend : {"auto", "numpy", "cython"}

    Returns
    -------
    bool or numpy.ndarray of bool

    Raises
    ------
    TypeError, ValueError
        As :func:`discrete_laplace`, for ``gamma`` (``gamma < 0`` is refused).

    Examples
    --------
    >>> bool(bernoulli_exp(0, rng=0))
    True
    >>> bernoulli_exp(1.5, size=4, rng=0).dtype
    dtype('bool')
    """
    gm = _exact(gamma, "gamma", allow_zero=True)
    n, shape = _size(size)
    g = as_generator(rng)
    b = _resolve(backend)
    if gm == 0:
        x = np.zeros(n, dtype=np.int64)
    else:
        x = _draw(ref.bernoulli_exp_table(gm), n, g, b)
    return _shape(x == 0, shape)

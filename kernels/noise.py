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
import math
import numbers
import os
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels._backend import resolve_backend
from semiprivate.kernels._memo import memo
from semiprivate.validation import as_generator

__all__ = ["discrete_laplace", "discrete_gaussian", "bernoulli_exp", "ExactStream", "exact_stream", "FLOAT_DRAWS"]


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


@memo(maxsize=1)
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
    if backend == "cython" and isinstance(table, ref._GaussianBuckets):
        return _gaussian_buckets_compiled(table, n, rng)
    if backend == "cython" and isinstance(table, ref._GaussianRejection):
        return _gaussian_rejection_compiled(table, n, rng)
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


def _half_part(part: Any, place: int) -> tuple[Any, ...]:
    """A table located from 32-bit halves, as the compiled kernels read it: ``(L, H, guide, guide_bits, xmin,
    lower_closed, upper_closed, place, K, tight)``.

    ``K`` is ``L >> 32`` as uint32 and one sentinel ``2**32 - 1``; ``guide[j] = #{i : K[i] < j << (32 - bits)}``,
    ``2**bits`` about one entry per boundary (at most ``2**21``); ``tight``: every ``H`` lies in the same ``2**32``
    cell as its ``L`` (then a half whose ``K`` differs from every boundary's is never left open by the boundary
    below).  These only steer the compiled search; its decisions are the reference's (``_noise._half``).
    """
    cached = getattr(part, "_half_view", None)
    if cached is None or cached[4] is not part.L or cached[5] is not part.H:  # built for these very arrays
        L, H = part.L, part.H
        nb = int(L.shape[0])
        K = np.empty(nb + 1, dtype=np.uint32)
        K[:nb] = L >> np.uint64(32)
        K[nb] = 0xFFFFFFFF
        bits = min(21, max(1, nb.bit_length()))
        starts = np.arange(1 << bits, dtype=np.uint64) << np.uint64(32 - bits)
        guide = np.searchsorted(K[:nb].astype(np.uint64), starts, side="left").astype(np.int32)
        h_cell = (np.maximum(H, np.uint64(1)) - np.uint64(1)) >> np.uint64(32)  # (H - 1) >> 32 (H = 0: cell 0)
        tight = bool(np.all(h_cell <= (L >> np.uint64(32))))
        cached = (guide, bits, K, tight, L, H)
        part._half_view = cached
    guide, bits, K, tight = cached[:4]
    return (part.L, part.H, guide, bits, int(part.xmin), bool(part.lower_closed), bool(part.upper_closed), place,
            K, tight)


def _wide_tables(table: ref._LaplaceLarge) -> list[tuple[Any, ...]]:
    """The compiled kernels' part list (:func:`_half_part` each), ``place`` = ``B D**i`` for the digit ``d_i`` and
    ``B D**K`` for the top part ``Q`` (unused for ``Y``).

    Every ``place * v`` fits in int64 and so does the sample: the digits' sum is below ``B D**K`` and a top
    value is at most ``xmin + len(L)``, which is below :attr:`~semiprivate.kernels._reference_noise._LaplaceLarge.q_limit`
    (``Q``'s ratio ``exp(-e)``, ``e = B D**K / scale`` in ``[1/128, 32)``, has a table of about ``35 / e`` entries;
    the limit is ``2**61 / (B D**K) >= 2**11 / e`` at scale ``<= 2**50``), so ``|Y| + B G < 2**12 + B D**K + 2**61``.
    """
    cached = getattr(table, "_compiled_parts", None)
    if cached is not None and (len(cached) != len(table.parts)
                               or any(c[0] is not p.L or c[1] is not p.H for c, p in zip(cached, table.parts))):
        cached = None  # built for other parts or arrays
    if cached is None:
        q_table = table.parts[-1]
        if int(q_table.xmin) + int(q_table.L.shape[0]) >= table.q_limit:
            raise OverflowError(f"the discrete Laplace's top part is too wide for int64 (scale = {float(table.scale):g})")
        cached = [_half_part(part, 1 if i == 0 else table.B * table.D ** (i - 1)) for i, part in enumerate(table.parts)]
        setattr(table, "_compiled_parts", cached)  # noqa: B010 - a cache on the table object, as _guide's
    return cached


def _settle_wide(table: ref._LaplaceLarge, tables: list[tuple[Any, ...]], rows: NDArray[np.int64], out: NDArray[np.int64],
                 rng: np.random.Generator) -> int:
    """Settle the compiled kernel's rows ``(sample, part, half, guess, Y, S)`` in their (sample, part) order with
    the reference's code (``bits=32``) and rewrite those samples; returns the largest settled top value."""
    top, limit, qmax = len(table.parts) - 1, table.q_limit, -1
    cur, y, s = -1, 0, 0
    for i, j, half, guess, y0, s0 in rows.tolist():
        if i != cur:
            cur, y, s = i, y0, s0
        v = table.parts[j].settle(half, guess, rng, bits=32)
        if j == top:
            qmax = max(qmax, v)
            if v >= limit:  # refused once every word is read, as the reference does
                continue
        if j == 0:
            y = v
        else:
            s += tables[j][7] * (v - guess)
        out[i] = 0 if y == 0 else (y + s if y > 0 else y - s)
    return qmax


def _laplace_large_compiled(table: ref._LaplaceLarge, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """:meth:`~semiprivate.kernels._reference_noise._LaplaceLarge.sample` in one compiled pass
    (``_noise.laplace_wide``: per sample its words, its parts from 32-bit halves, ``X = sign(Y) (|Y| + B G)``);
    the parts the halves leave open are settled afterwards by the reference's code in (sample, part) order:
    the reference's words and numbers."""
    mod = _cython_module()
    tables = _wide_tables(table)
    if len(tables) > 16:  # more parts than the kernel holds (coarse test digits only): the reference itself
        return table.sample(n, rng)
    out = np.empty(n, dtype=np.int64)
    bitgen = rng.bit_generator
    with bitgen.lock:
        rows, topmax = mod.laplace_wide(tables, bitgen.capsule, out)
    qmax = max(int(topmax), _settle_wide(table, tables, rows, out, rng))
    if n and qmax >= table.q_limit:
        raise OverflowError("a discrete Laplace sample does not fit in int64 (probability below 2**-5900 "
                            f"at scale <= 2**50; scale = {float(table.scale):g})")
    return out


def _gaussian_rejection_compiled(table: ref._GaussianRejection, n: int, rng: np.random.Generator,
                                 margin: float = 2.0**-20) -> NDArray[np.int64]:
    """:meth:`~semiprivate.kernels._reference_noise._GaussianRejection.sample` with each round in one compiled pass
    (``_noise.gaussian_round``: per pending sample its proposal's words and its coin word): the same rounds,
    words and settling order, so the same numbers.  The proposals' open parts are settled by the reference's
    code; then the coins the float bound leaves open (a relative band ``margin`` around ``2**64 exp(-gamma)``,
    widened only to test the exact fallback) and the coins of settled proposals are decided by the reference's
    exact :meth:`~semiprivate.kernels._reference_noise._GaussianRejection.decide`, in index order."""
    lap = table.lap
    if not isinstance(lap, ref._LaplaceLarge) or len(_wide_tables(lap)) > 16:
        return table.sample(n, rng)  # a direct-table proposal (small sigma2: never from gaussian_table)
    mod = _cython_module()
    tables = _wide_tables(lap)
    out = np.empty(n, dtype=np.int64)
    pending = np.arange(n, dtype=np.int64)
    centre = float(table.sigma2 / table.t)
    two_s2 = float(2 * table.sigma2)
    bitgen = rng.bit_generator
    y_all = np.empty(n, dtype=np.int64)
    keep_all = np.empty(n, dtype=np.uint8)
    m = n
    while m:
        y, keep = y_all[:m], keep_all[:m]
        with bitgen.lock:
            rows, topmax, idx, ws = mod.gaussian_round(tables, bitgen.capsule, centre, two_s2, y, keep, margin)
        qmax = max(int(topmax), _settle_wide(lap, tables, rows, y, rng))
        if m and qmax >= lap.q_limit:
            raise OverflowError("a discrete Laplace proposal does not fit in int64")
        for i, w in zip(idx.tolist(), ws.tolist()):
            keep[i] = table.decide(int(y[i]), int(w), rng)
        m = mod.accept_compact(y, keep, pending, out)  # the rejected, in order, stay pending (the reference's order)
    return out


def _gaussian_buckets_compiled(table: ref._GaussianBuckets, n: int, rng: np.random.Generator,
                               margin: float = 2.0**-20) -> NDArray[np.int64]:
    """:meth:`~semiprivate.kernels._reference_noise._GaussianBuckets.sample` with each round in one compiled pass
    (``_noise.gaussian_bucket_round``: per pending sample its proposal word, its offset word where buckets are wider
    than ``2**31``, and its coin word): the same rounds,
    words and settling order, so the same numbers.  The bucket indices the 32-bit halves leave open are settled
    by the reference's code in index order; then the coins the float bound leaves open (a relative band
    ``margin`` around ``2**64 exp(-gamma)``, widened only to test the exact fallback) and the coins of settled
    proposals are decided by the reference's exact
    :meth:`~semiprivate.kernels._reference_noise._GaussianBuckets.decide`, in index order."""
    kt = table.k_table
    if int(kt.xmin) + int(kt.L.shape[0]) >= table.k_limit:  # a table value could leave int64 (no real table does)
        return table.sample(n, rng)  # the reference, which refuses such a K
    mod = _cython_module()
    tables = [_half_part(kt, 1)]
    two_s2 = float(2 * table.sigma2)
    bitgen = rng.bit_generator

    def one_round(x: NDArray[np.int64], keep: NDArray[np.uint8]) -> None:
        with bitgen.lock:
            rows, idx, ws = mod.gaussian_bucket_round(tables, table.wbits, bitgen.capsule, two_s2, x, keep, margin)
        for i, hi, sgn, r, guess in rows.tolist():
            k = kt.settle(hi, guess, rng, bits=32)
            x[i] = table.value(k, sgn, r)
        for i, w in zip(idx.tolist(), ws.tolist()):
            keep[i] = table.decide(int(x[i]), int(w), rng)

    # the first round over every sample writes its proposals into the output (about 98% are accepted); the
    # rejected, in order, stay pending for the next rounds (the reference's order)
    out = np.empty(n, dtype=np.int64)
    keep = np.empty(n, dtype=np.uint8)
    one_round(out, keep)
    pending = np.flatnonzero(keep == 0)
    m = int(pending.size)
    while m:
        x, keep_m = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.uint8)
        one_round(x, keep_m)
        m = mod.accept_compact(x, keep_m, pending, out)
        pending = pending[:m]
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
        base-4096 digits of a geometric, ``_reference_noise._LaplaceLarge``):
        no table grows with the scale.
    size : int, tuple of int or None
        ``None`` gives one Python ``int``; otherwise an int64 array of that shape.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Source of randomness (``None``: fresh entropy).  Read as 64-bit words (``next_uint64``) only:
        one per sample, rarely more (a wide scale: one per two parts and sample).
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
        ``6.2e7`` (a table half-width of ``2**16``) samples come from a bucketed envelope
        (``_reference_noise._GaussianBuckets``: a bucket index from a small table, a uniform offset, an exact
        ``exp`` coin, about 1.02 proposals per sample; from ``2**72`` on, the offset has a word of its own).
        The compiled backend decides the coins from a double-precision bound, exactly, and is within 2x
        NumPy's float ``normal`` per sample at every ``sigma2`` (``benchmarks/RESULTS.md``); the reference
        takes tens of microseconds per sample.  (Before 2026-11-29, ``sigma2 >= 2**72`` was drawn by CKS20
        Alg. 3, about 4.9x NumPy: other numbers for the same seed there.)
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


#: The draws of a ``numpy.random.Generator`` that read its coins through floating point: every continuous law, the
#: float uniforms (``random``, ``uniform``) and the discrete laws NumPy samples with float arithmetic (``binomial``,
#: ``poisson``, ...).  An :class:`ExactStream` exposes none of them (nor any other Generator attribute).
FLOAT_DRAWS = frozenset({
    "laplace", "normal", "standard_normal", "random", "uniform", "exponential", "standard_exponential", "gamma",
    "standard_gamma", "beta", "gumbel", "logistic", "lognormal", "multivariate_normal", "standard_cauchy",
    "standard_t", "chisquare", "noncentral_chisquare", "f", "noncentral_f", "dirichlet", "vonmises", "wald",
    "weibull", "pareto", "power", "rayleigh", "triangular", "binomial", "negative_binomial", "poisson", "geometric",
    "hypergeometric", "multivariate_hypergeometric", "logseries", "zipf", "multinomial", "choice"})


class ExactStream:
    """The coins of a release, exposing the exact samplers only (``G9``: float noise refused by construction).

    A release's run that declares its coin parameters exact (``_exact_coins`` on a class of the release boundary,
    ``semiprivate.theory.privacy._release``) receives one of these instead of a ``numpy.random.Generator``:
    :meth:`discrete_laplace`, :meth:`discrete_gaussian`, :meth:`bernoulli_exp` (CKS20, exact on their support),
    :meth:`integers` (NumPy's bounded integers: exact rejection on the raw words), :meth:`bits` (raw 64-bit words)
    and :meth:`exponential_mechanism` (the kernels' exact sampler, ``exact=True``).  Every float draw of a
    Generator (:data:`FLOAT_DRAWS`: ``laplace``, ``normal``, ``random``, ...) is refused with a TypeError that names
    it, and so are the generator itself, its bit generator and spawning (a run that needs independent child
    streams takes them from :meth:`children`, which are exact streams too).  An exact stream does not pickle.

    Scope: this is a discipline enforced on the code of the release, not a security boundary: Python code that
    wants the generator can dig it out (``vars`` of the closure, ``gc``); what it rules out is the class of defect
    "float noise on a released value" written by mistake.  Float noise remains only on the declared paths
    (ARCHITECTURE.md, "Privacy by construction": DP-SGD's and DP-GD's Gaussian, float by nature).
    """

    __slots__ = ("_draw",)

    def __init__(self, generator: np.random.Generator) -> None:
        if not isinstance(generator, np.random.Generator):
            raise TypeError(f"generator must be a numpy.random.Generator, got {type(generator).__name__}")

        def draw(what: str, *args: Any, **kwargs: Any) -> Any:
            if what == "integers":
                return generator.integers(*args, **kwargs)
            if what == "bits":
                return generator.bit_generator.random_raw(*args, **kwargs)
            if what == "children":
                return [ExactStream(g) for g in generator.spawn(*args)]
            if what == "exponential_mechanism":
                from semiprivate.kernels._exponential import exponential_mechanism

                return exponential_mechanism(*args, rng=generator, exact=True, **kwargs)
            sampler = {"discrete_laplace": discrete_laplace, "discrete_gaussian": discrete_gaussian,
                       "bernoulli_exp": bernoulli_exp}[what]
            return sampler(*args, rng=generator, **kwargs)

        object.__setattr__(self, "_draw", draw)

    def discrete_laplace(self, scale: Any, size: Any = None) -> Any:
        """Exact discrete Laplace samples (:func:`discrete_laplace`)."""
        return self._draw("discrete_laplace", scale, size)

    def discrete_gaussian(self, sigma2: Any, size: Any = None) -> Any:
        """Exact discrete Gaussian samples (:func:`discrete_gaussian`)."""
        return self._draw("discrete_gaussian", sigma2, size)

    def bernoulli_exp(self, gamma: Any, size: Any = None) -> Any:
        """Exact ``Bernoulli(exp(-gamma))`` coins (:func:`bernoulli_exp`)."""
        return self._draw("bernoulli_exp", gamma, size)

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:
        """Uniform integers (``numpy.random.Generator.integers``: exact, by rejection on raw words)."""
        return self._draw("integers", low, high, size, dtype=dtype, endpoint=endpoint)

    def bits(self, size: Any = None) -> Any:
        """Raw 64-bit words of the stream (``BitGenerator.random_raw``)."""
        return self._draw("bits", size)

    def exponential_mechanism(self, scores: Any, epsilon: Any, *, sensitivity: Any = 1, size: int | None = None) -> Any:
        """The exact exponential mechanism (:func:`semiprivate.kernels.exponential_mechanism`, ``exact=True``)."""
        return self._draw("exponential_mechanism", scores, epsilon, sensitivity=sensitivity, size=size)

    def children(self, n: int) -> list[ExactStream]:
        """``n`` independent child streams (``SeedSequence.spawn``), each an exact stream."""
        return list(self._draw("children", int(n)))

    def __getattr__(self, name: str) -> Any:
        if name in FLOAT_DRAWS or (not name.startswith("__") and hasattr(np.random.Generator, name)):
            raise TypeError(
                f"{name}: a release draws its noise from an exact-only stream (ExactStream), which has no "
                f"{name}: float noise on a released value leaks through its rounding (Mironov 2012); use "
                "discrete_laplace, discrete_gaussian, bernoulli_exp, integers, bits or exponential_mechanism, or "
                "declare a float path (ARCHITECTURE.md, 'Privacy by construction')")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"an ExactStream is read-only (tried to set {name!r})")

    def __reduce__(self) -> Any:
        raise TypeError("an ExactStream does not pickle: a release keeps no coins (ARCHITECTURE.md)")

    def __repr__(self) -> str:
        return "ExactStream()"


def exact_stream(rng: Any = None, name: str = "rng") -> ExactStream:
    """An :class:`ExactStream` on ``rng`` (None, an int seed, a SeedSequence, a Generator, or an ExactStream,
    returned as is); the generator is made by :func:`semiprivate.validation.as_generator`, so the
    privacy layer's coin observer sees it as any other."""
    if isinstance(rng, ExactStream):
        return rng
    return ExactStream(as_generator(rng, name))

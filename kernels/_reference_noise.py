"""Exact discrete noise: the NumPy/Python reference (the specification of :mod:`semiprivate.kernels.noise`).

Implements (Canonne, Kamath, Steinke, "The discrete Gaussian for differential privacy",
NeurIPS 2020, arXiv:2004.00010; CKS20 below):

* Alg 1: Bernoulli(exp(-gamma)) for a rational gamma >= 0, from Bernoulli(gamma/k) trials only;
* Alg 2: the discrete Laplace ``P(x) ∝ exp(-|x|/scale)`` on the integers, scale = t/s rational;
* Alg 3: the discrete Gaussian ``P(x) ∝ exp(-x^2/(2 sigma2))`` on the integers, sigma2 rational.

Every decision is an exact comparison of integers: a Bernoulli(n/d) is ``U < n`` for a uniform
integer ``U`` in ``[0, d)`` (NumPy's bounded integers are unbiased, Lemire's method; above 2^63 a
rejection sampler on raw bytes), and Bernoulli(a b) is Bernoulli(a) and an independent
Bernoulli(b).  No floating-point number enters the law, so the output distribution is exactly
the stated one (Mironov 2012's attack on the low bits of float Laplace noise has nothing to
read).  A float ``scale``/``sigma2`` is taken as the exact dyadic rational it stores.

The discrete Laplace is vectorised: every loop of Alg 1 and Alg 2 runs over the still-active
entries at once (integer arrays), and the last integer arithmetic is done on Python ints, so no
intermediate overflows.  The discrete Gaussian runs entry by entry (its acceptance test has a
rational exponent with a per-entry denominator).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["as_rational", "uniform_below", "bernoulli_exp_scalar", "bernoulli_exp_array", "discrete_laplace_array",
           "discrete_gaussian_array"]

_INT64_SAFE = 2**62


def as_rational(x: Any, name: str) -> Fraction:
    """The exact rational value of ``x`` (int, float, NumPy scalar, Fraction); TypeError naming ``name`` otherwise."""
    if isinstance(x, bool | np.bool_):
        raise TypeError(f"{name} must be a real number, got a bool")
    if isinstance(x, int | Fraction):
        return Fraction(x)
    if isinstance(x, np.integer):
        return Fraction(int(x))
    ratio = getattr(x, "as_integer_ratio", None)
    if callable(ratio):
        try:
            num, den = ratio()
        except (OverflowError, ValueError):
            raise ValueError(f"{name} must be finite, got {x!r}") from None
        return Fraction(int(num), int(den))
    raise TypeError(f"{name} must be a real number (int, float or fractions.Fraction), got {type(x).__name__}")


def uniform_below(n: int, rng: np.random.Generator) -> int:
    """A uniform integer in ``[0, n)`` for a Python int ``n >= 1`` (exact at every size)."""
    if n <= _INT64_SAFE:
        return int(rng.integers(0, n))
    nbytes = (n.bit_length() + 7) // 8
    top = 1 << (8 * nbytes)
    limit = top - top % n  # reject the incomplete last block: exact
    while True:
        v = int.from_bytes(rng.bytes(nbytes), "little")
        if v < limit:
            return v % n


def _bernoulli(p: Fraction, rng: np.random.Generator) -> bool:
    """Bernoulli(p) for a rational p in [0, 1], exactly."""
    return uniform_below(p.denominator, rng) < p.numerator


def bernoulli_exp_scalar(gamma: Fraction, rng: np.random.Generator) -> bool:
    """CKS20 Alg 1: one exact Bernoulli(exp(-gamma)), gamma a rational >= 0.

    gamma <= 1: draw A_k ~ Bernoulli(gamma/k) for k = 1, 2, ... until the first failure at K;
    P[K odd] = exp(-gamma).  gamma > 1: exp(-gamma) = exp(-1)^floor(gamma) exp(-(gamma - floor)),
    one independent trial per factor (stopping at the first failure).
    """
    while gamma > 1:
        if not bernoulli_exp_scalar(Fraction(1), rng):
            return False
        gamma -= 1
    k = 1
    while _bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def bernoulli_exp_array(num: NDArray[np.int64], den: int, rng: np.random.Generator) -> NDArray[np.bool_]:
    """CKS20 Alg 1 over an array: Bernoulli(exp(-num_i/den)) for integers ``0 <= num_i``, ``1 <= den <= 2^62``.

    Bernoulli(gamma/k) is drawn as Bernoulli(num/den) and Bernoulli(1/k) (independent), so no
    product of integers is formed; gamma > 1 is split into whole parts as in the scalar version.
    """
    num = np.asarray(num, dtype=np.int64)
    out = np.ones(num.shape, dtype=bool)
    whole, frac = np.divmod(num, den)
    # whole factors exp(-1): each must succeed
    remaining = whole.copy()
    active = remaining > 0
    while active.any():
        idx = np.flatnonzero(active)
        ok = _bexp_le1(np.full(idx.size, 1, dtype=np.int64), 1, rng)
        out[idx[~ok]] = False
        remaining[idx] -= 1
        active = (remaining > 0) & out
    idx = np.flatnonzero(out)
    if idx.size:
        out[idx] = _bexp_le1(frac[idx], den, rng)
    return out


def _bexp_le1(num: NDArray[np.int64], den: int, rng: np.random.Generator) -> NDArray[np.bool_]:
    """Alg 1 for gamma_i = num_i/den in [0, 1], vectorised over the entries still running."""
    k = np.ones(num.shape, dtype=np.int64)
    active = np.ones(num.shape, dtype=bool)
    while True:
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        a = rng.integers(0, den, size=idx.size) < num[idx]           # Bernoulli(gamma)
        b = rng.integers(0, k[idx]) == 0                             # Bernoulli(1/k)
        go = a & b
        k[idx[go]] += 1
        active[idx[~go]] = False
    return np.asarray(k % 2 == 1)


def discrete_laplace_array(scale: Fraction, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """CKS20 Alg 2: ``n`` exact draws of ``P(x) ∝ exp(-|x|/scale)``, x integer, scale = t/s > 0 rational.

    Per entry: U uniform in [0, t), accept with Bernoulli(exp(-U/t)); V ~ Geometric(1 - e^-1) by
    Bernoulli(exp(-1)) trials; Y = floor((U + t V)/s); a sign B; (B = 1, Y = 0) rejected; output
    (1 - 2B) Y.  Rejected entries are redrawn until all ``n`` are accepted.
    """
    t, s = scale.numerator, scale.denominator
    out = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        m = todo.size
        if t <= _INT64_SAFE:
            u = rng.integers(0, t, size=m)
            keep = bernoulli_exp_array(u, t, rng)
            u_list = u.tolist()
        else:  # huge numerator: Python ints, entry by entry
            u_list = [uniform_below(t, rng) for _ in range(m)]
            keep = np.array([bernoulli_exp_scalar(Fraction(ui, t), rng) for ui in u_list], dtype=bool)
        v = np.zeros(m, dtype=np.int64)
        going = keep.copy()
        while going.any():
            idx = np.flatnonzero(going)
            step = _bexp_le1(np.ones(idx.size, dtype=np.int64), 1, rng)
            v[idx[step]] += 1
            going[idx[~step]] = False
        sign = rng.integers(0, 2, size=m).astype(bool)
        vals = [(ui + t * vi) // s for ui, vi in zip(u_list, v.tolist())]
        y = np.array([min(val, 2**63 - 1) for val in vals], dtype=np.int64)
        accept = keep & ~(sign & (y == 0))
        out[todo[accept]] = np.where(sign[accept], -y[accept], y[accept])
        todo = todo[~accept]
    return out


def discrete_gaussian_array(sigma2: Fraction, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """CKS20 Alg 3: ``n`` exact draws of ``P(x) ∝ exp(-x^2/(2 sigma2))``, x integer, sigma2 > 0 rational.

    Per entry: t = floor(sigma) + 1; Y ~ discrete Laplace of scale t; accept with
    Bernoulli(exp(-(|Y| - sigma2/t)^2 / (2 sigma2))).
    """
    t = _isqrt_floor(sigma2) + 1
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        y = discrete_laplace_array(Fraction(t), n - filled, rng)
        for yi in y.tolist():
            gamma = (abs(yi) - sigma2 / t) ** 2 / (2 * sigma2)
            if bernoulli_exp_scalar(gamma, rng):
                out[filled] = yi
                filled += 1
    return out


def _isqrt_floor(q: Fraction) -> int:
    """floor(sqrt(q)) for a rational q >= 0, exactly."""
    r = int(np.floor(np.sqrt(float(q)))) if q < 2**100 else 0
    r = max(r, 0)
    while Fraction(r * r) > q:
        r -= 1
    while Fraction((r + 1) * (r + 1)) <= q:
        r += 1
    return r

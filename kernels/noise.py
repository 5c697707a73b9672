"""Exact discrete noise for released values: discrete Laplace, discrete Gaussian, Bernoulli(exp(-gamma)).

Implements: CKS20 (Canonne, Kamath, Steinke, NeurIPS 2020) Alg 1-3, exactly on the integers; the
specification is :mod:`semiprivate.kernels._reference_noise`.

Why: a released value with float Laplace or Gaussian noise is not differentially private as
computed (Mironov, "On significance of the least significant bits for differential privacy",
CCS 2012): the set of floats one data set can produce differs from its neighbour's, and the low
bits tell them apart.  Noise drawn exactly on the integers (or on a declared grid: release
``grid * (round(value / grid) + Z)``, the snapping of Mironov 2012) has exactly the law the
privacy proof uses: ``discrete_laplace(scale)`` on an integer query of L1 sensitivity ``Delta``
is ``(Delta/scale, 0)``-DP; ``discrete_gaussian(sigma2)`` is ``Delta^2/(2 sigma2)``-zCDP (CKS20 Thm 4).

Randomness: ``rng`` is a :class:`numpy.random.Generator` (or a seed); only its bounded-integer
and byte streams are read.  A fixed seed makes the draws reproducible, and private only against
someone who does not know the seed.

Examples
--------
>>> import numpy as np
>>> discrete_laplace(2.0, 5, rng=np.random.default_rng(0)).dtype
dtype('int64')
>>> isinstance(discrete_laplace(1.0, rng=0), int)
True
>>> bool(bernoulli_exp(0, rng=0))
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from semiprivate.kernels import _reference_noise as ref
from semiprivate.kernels.validation import as_generator

__all__ = ["discrete_laplace", "discrete_gaussian", "bernoulli_exp"]


def _positive(x: Any, name: str) -> Fraction:
    q = ref.as_rational(x, name)
    if not q > 0:
        raise ValueError(f"{name} must be a positive finite number, got {x!r}")
    return q


def _size(size: Any) -> int | None:
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or int(size) < 0:
        raise ValueError(f"size must be None or an int >= 0, got {size!r}")
    return int(size)


def discrete_laplace(scale: Any, size: Any = None, *, rng: Any) -> Any:
    """Exact discrete Laplace: ``P(x) ∝ exp(-|x|/scale)`` on the integers (CKS20 Alg 2).

    Parameters
    ----------
    scale : float, int or fractions.Fraction
        > 0; a float is the exact dyadic rational it stores.
    size : int or None
        None: one draw (a Python int); else an int64 array of ``size`` draws.
    rng : numpy.random.Generator or int seed

    Returns
    -------
    int or ndarray of int64
    """
    q = _positive(scale, "scale")
    n = _size(size)
    out = ref.discrete_laplace_array(q, 1 if n is None else n, as_generator(rng))
    return int(out[0]) if n is None else out


def discrete_gaussian(sigma2: Any, size: Any = None, *, rng: Any) -> Any:
    """Exact discrete Gaussian: ``P(x) ∝ exp(-x^2/(2 sigma2))`` on the integers (CKS20 Alg 3).

    Parameters
    ----------
    sigma2 : float, int or fractions.Fraction
        The variance parameter, > 0 (a float is the exact rational it stores).
    size : int or None
    rng : numpy.random.Generator or int seed
    """
    q = _positive(sigma2, "sigma2")
    n = _size(size)
    out = ref.discrete_gaussian_array(q, 1 if n is None else n, as_generator(rng))
    return int(out[0]) if n is None else out


def bernoulli_exp(gamma: Any, size: Any = None, *, rng: Any) -> Any:
    """Exact Bernoulli(exp(-gamma)) for a rational ``gamma >= 0`` (CKS20 Alg 1).

    Returns a bool (``size=None``) or a bool array.
    """
    q = ref.as_rational(gamma, "gamma")
    if q < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma!r}")
    n = _size(size)
    g = as_generator(rng)
    k = 1 if n is None else n
    if q.denominator <= 2**62 and q.numerator <= 2**62:
        out = ref.bernoulli_exp_array(np.full(k, q.numerator, dtype=np.int64), q.denominator, g)
    else:
        out = np.array([ref.bernoulli_exp_scalar(q, g) for _ in range(k)], dtype=bool)
    return bool(out[0]) if n is None else out

"""Example mechanisms to audit: the benchmark set of published DP testers, correct and broken.

Each is a small dataclass ``mechanism(a, size, rng)`` returning ``size`` independent outputs along
axis 0 (the audit form, :data:`semiprivate.theory.audit.Mechanism`), vectorised over the draws, with
the same distributions, output codes and parameters as the mechanisms of DP-Sniper's evaluation
(Bichsel et al., S&P 2021, ``dpsniper/mechanisms``) and StatDP's (Ding et al., CCS 2018); the input
``a`` is a 1-D array of query answers (sensitivity 1 per entry).  Copy one as a template for
your own mechanism, or audit them to see what the auditor catches:

* :class:`Laplace`: ``a[0] + Lap(1/eps)``; eps-DP in real arithmetic, not in doubles (Mironov 2012);
* :class:`LaplaceSnapping`: Mironov's snapping mechanism; eps-DP in doubles too;
* :class:`TruncatedGeometric`: Balcer-Vadhan GeoSample; ``ln(1 + 2^-k)``-DP;
* :class:`NoisyHist`: histogram ``a + Lap(1/eps)``, eps-DP; ``broken=True`` adds ``Lap(eps)``: not;
* :class:`ReportNoisyMax`: the index of ``argmax(a + noise)`` is eps-DP, its value (``value=True``) is not;
* :class:`SVT`: sparse vector technique, Lyu et al. Algs. 1-6; Algs. 1 and 2 eps-DP, Algs. 3-6 not;
* :class:`SVT34Parallel`: Algs. 3 and 4 on the same input (not 2 eps-DP);
* :class:`NumericalSVT`: Wang et al. 2019, eps-DP;
* :class:`PrefixSum`: ``cumsum(a + Lap(1/eps))`` claimed eps-DP for all-entries-change neighbours: not;
* :class:`LaplaceParallel`: ``n_parallel`` copies of ``a[0] + Lap(1/eps)``, ``n_parallel eps``-DP;
* :class:`Rappor`: RAPPOR and one-time RAPPOR (Erlingsson et al. 2014), :meth:`Rappor.claim`-DP.

Every mechanism but :class:`Laplace` (which audits NumPy's own doubles) and
:class:`LaplaceSnapping` (whose guarantee is about the doubles of its uniform draws) is written with
the array operations NumPy and CuPy share and the generator methods both offer
(``standard_exponential``, ``random``, ``exponential``, ``integers``, ``uniform``): given a CuPy input
and a CuPy generator it samples on the GPU (:class:`semiprivate.theory.audit.device.OnDevice`); given
NumPy ones it draws exactly the stream it always drew.

Implements: AUDIT (example mechanisms).  Generic: they know no learner of this toolkit.

Examples
--------
>>> import numpy as np
>>> from semiprivate.theory.audit import audit_pairs
>>> a, b = np.ones(5), np.r_[0.0, np.ones(4)]
>>> audit_pairs(NoisyHist(), [(a, b)], epsilon=0.1, trials=50_000, rng=0).violation
False
>>> audit_pairs(NoisyHist(broken=True), [(a, b)], epsilon=0.1, trials=50_000, rng=0).violation
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.kernels import array_module
from semiprivate.kernels.noise import discrete_laplace
from semiprivate.kernels.sparse_vector import sparse_vector_responses
from semiprivate.validation import (
    POSITIVE_REAL,
    RNG,
    AnyOf,
    ArrayLike,
    Integer,
    as_generator,
    validate_params,
)
from sklearn.utils import murmurhash3_32

__all__ = ["EPS", "laplace_noise", "Laplace", "LaplaceSnapping", "TruncatedGeometric", "NoisyHist", "ReportNoisyMax",
           "SVT", "SVT34Parallel", "NumericalSVT", "PrefixSum", "LaplaceParallel", "Rappor"]

#: every mechanism's default epsilon (DP-Sniper's and StatDP's evaluation setting)
EPS = 0.1


@validate_params(rng=RNG, scale=POSITIVE_REAL, shape=AnyOf(Integer(0), ArrayLike(ndim=1, dtype_kinds="iu", min_size=0)))
def laplace_noise(rng: np.random.Generator, scale: float, shape: int | tuple[int, ...]) -> np.ndarray:
    """``Lap(scale)`` draws of ``shape``: ``scale * E * S`` with ``E`` standard exponential (NumPy's
    ziggurat) and ``S`` a fair sign (``+`` iff a uniform ``U`` on the 2^-53 grid of [0, 1) is at least
    1/2, probability exactly 1/2).  The same law as ``rng.laplace(0, scale, shape)`` in real
    arithmetic, at about 0.6x its time; the vector mechanisms below draw their noise here.
    :class:`Laplace` keeps ``rng.laplace``: its float-bits case audits NumPy's own doubles.

    >>> x = laplace_noise(np.random.default_rng(0), 2.0, 100_000)
    >>> bool(abs(x.mean()) < 0.05), bool(abs(np.abs(x).mean() - 2.0) < 0.05)
    (True, True)
    """
    dims = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(v) for v in np.asarray(shape))
    if min(dims, default=0) < 0:
        raise ValueError(f"shape must have no negative entry, got {dims}")
    return _laplace(as_generator(rng), scale, dims)


def _laplace(g: Any, scale: float, shape: int | tuple[int, ...]) -> Any:
    """:func:`laplace_noise` unchecked, from a NumPy or a CuPy generator (the mechanisms' noise)."""
    e = g.standard_exponential(shape)
    e *= scale
    return array_module(e).copysign(e, g.random(shape) - 0.5, out=e)


def _svt_noise(exact: bool, g: Any, scale: float, shape: int | tuple[int, ...]) -> Any:
    """The sparse-vector examples' ``Lap(scale)`` noise: :func:`_laplace` (float), or with ``exact`` the exact
    discrete Laplace of the rational ``scale`` (:func:`semiprivate.kernels.noise.discrete_laplace`, compiled;
    CKS20 Def. 3) as float64, from a NumPy generator only (it has no GPU backend)."""
    if not exact:
        return _laplace(g, scale, shape)
    if not isinstance(g, np.random.Generator):
        raise TypeError(f"exact=True draws the exact discrete Laplace on the host: rng must be a "
                        f"numpy.random.Generator, got {type(g).__name__}")
    return discrete_laplace(scale, shape, rng=g).astype(np.float64)



@dataclass
class Laplace:
    """``a[0] + Lap(1/eps)`` (dpsniper/mechanisms/laplace.py LaplaceMechanism); 1 output column."""
    eps: float = EPS

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return float(a[0]) + rng.laplace(0.0, 1.0 / self.eps, size)


@dataclass
class LaplaceSnapping:
    """Mironov's snapping mechanism as in dpsniper's ``LaplaceFixed`` (B = 100, scale
    ``(1 + B 2^-49)/eps``, rounding to the smallest power of two >= scale, clamping to [-B, B])."""
    eps: float = EPS
    B: float = 100.0

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        scale = (1.0 + self.B * 2.0 ** -49) / self.eps
        lam = 2.0 ** -20
        while lam < scale:
            lam *= 2
        loc = min(self.B, max(-self.B, float(a[0])))
        sign = 1 - 2 * rng.integers(0, 2, size)
        u = rng.uniform(size=size)
        return np.clip(np.round((loc + sign * scale * np.log(u)) / lam) * lam, -self.B, self.B)


@dataclass
class TruncatedGeometric:
    """Balcer-Vadhan GeoSample (Alg. 4.8) as in dpsniper/mechanisms/geometric.py: a count in
    [0, n]; ``ln(1 + 2^-k)``-DP with ``k = ceil(ln(2/eps))`` (their Thm 4.7)."""
    eps: float = EPS
    n: int = 5

    @property
    def k(self) -> int:
        return math.ceil(math.log(2.0 / self.eps))

    def cdf_numerators(self, c: int) -> tuple[list[int], int]:
        """``F(z)`` (integers) for z = 0..n and the denominator ``d``: P[z] = (F(z) - F(z-1)) / d."""
        k, n = self.k, self.n
        d = (2 ** (k + 1) + 1) * (2 ** k + 1) ** (n - 1)
        f = [2 ** (k * (c - z)) * (2 ** k + 1) ** (n - (c - z)) for z in range(c)]
        f += [d - 2 ** (k * (z - c + 1)) * (2 ** k + 1) ** (n - 1 - (z - c)) for z in range(c, n)]
        return f + [d], d

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        xp = array_module(a)
        f, d = self.cdf_numerators(int(a[0]))
        u = rng.integers(1, d + 1, size)
        return xp.searchsorted(xp.asarray(f, dtype=xp.int64), u, side="left").astype(xp.float64)


@dataclass
class NoisyHist:
    """NoisyHist1: ``a + Lap(1/eps)`` per bin; NoisyHist2 (``broken``): ``a + Lap(eps)``."""
    eps: float = EPS
    broken: bool = False

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return a + _laplace(rng, self.eps if self.broken else 1.0 / self.eps, (size, a.size))


@dataclass
class ReportNoisyMax:
    """ReportNoisyMax1-4 (StatDP Algs. 5-8): Lap(2/eps) or Exp(2/eps) noise; index or value."""
    eps: float = EPS
    noise: str = "laplace"
    value: bool = False

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        shape = (size, a.size)
        z = _laplace(rng, 2 / self.eps, shape) if self.noise == "laplace" else rng.exponential(2 / self.eps, shape)
        y = a + z
        return y.max(axis=1) if self.value else array_module(y).argmax(y, axis=1).astype(np.float64)


@dataclass
class SVT:
    """SparseVectorTechnique1-6 (Lyu et al. Algs. 1-6) exactly as dpsniper's
    ``sparse_vector_technique.py``: codes 1 (above), 0 (below), -1 (aborted) for Algs. 1, 2, 4;
    Alg. 3 outputs the noisy query when above, -1000 below, -2000 aborted; Algs. 5, 6 have no
    cutoff.  Scales with eps1 = eps/2 (eps/4 for Alg. 4), eps2 = eps - eps1:
    rho ~ Lap(1/eps1) (Lap(c/eps1) for Alg. 2, redrawn after each above), nu ~ Lap(2c/eps2)
    (Algs. 1, 2), Lap(c/eps2) (Alg. 3), Lap(1/eps2) (Algs. 4, 6), none (Alg. 5).

    ``exact=True`` draws every noise as the exact discrete Laplace of the same scale (CKS20 Def. 3,
    :func:`semiprivate.kernels.noise.discrete_laplace`, compiled) instead of the float one: the
    integer-noise SVT, eps-DP for the same algorithms (the proofs shift the threshold noise by 1 and a
    query's noise by 2, integer shifts), on the host only.  Its output law differs slightly from
    the float one's, so its audit bounds differ from the float runs' at the same seed."""
    variant: int
    eps: float = EPS
    c: int = 1
    t: float = 1.0
    exact: bool = False

    def scales(self) -> tuple[float, float]:
        e1 = self.eps / 4 if self.variant == 4 else self.eps / 2
        e2 = self.eps - e1
        rho = self.c / e1 if self.variant == 2 else 1 / e1
        nu = {1: 2 * self.c / e2, 2: 2 * self.c / e2, 3: self.c / e2, 4: 1 / e2, 5: 0.0, 6: 1 / e2}[self.variant]
        return rho, nu

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
        """``size`` runs on the queries ``a``; ``out`` (optional, a ``size x a.size`` float64 array, e.g. a
        block of columns of a wider output) receives the outputs and is returned."""
        rho_s, nu_s = self.scales()
        rho = _svt_noise(self.exact, rng, rho_s, size)
        noisy = a + (_svt_noise(self.exact, rng, nu_s, (size, a.size)) if nu_s > 0
                     else array_module(a).zeros((size, a.size)))
        if self.variant == 2 and self.c > 1:  # the threshold noise is redrawn after each above: column by column
            res = self.respond_redrawn(noisy, rho, rng)
            if out is None:
                return res
            out[...] = res
            return out
        return self.respond(noisy, rho, out=out)

    def codes(self) -> tuple[float, float]:
        """The output codes of a below and of an aborted query."""
        return (-1000.0, -2000.0) if self.variant == 3 else (0.0, -1.0)

    def respond(self, noisy: np.ndarray, rho: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The outputs given the noisy queries ``noisy`` (size x m) and one threshold noise per row.

        Query ``i`` is above when ``noisy[:, i] >= rho + t``; it is aborted when at least ``c``
        earlier queries were above (Algs. 5, 6: no cutoff), in one compiled pass per row
        (:func:`semiprivate.kernels.sparse_vector.sparse_vector_responses`); for Alg. 2 with ``c > 1``
        (threshold noise redrawn after each above) see :meth:`respond_redrawn`.  With ``c = 1`` Alg. 2's
        redrawn noise is never compared again, so this is its law too."""
        if self.variant in (5, 6):
            return sparse_vector_responses(noisy, rho + self.t, out=out)
        below, aborted_code = self.codes()
        return sparse_vector_responses(noisy, rho + self.t, cutoff=self.c, values=noisy if self.variant == 3 else None,
                                       below=below, aborted=aborted_code, out=out)

    def respond_redrawn(self, noisy: np.ndarray, rho: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Alg. 2's outputs, query by query: a fresh ``Lap(rho scale)`` threshold noise after each above."""
        rho_s, _ = self.scales()
        size, m = noisy.shape
        below, aborted_code = self.codes()
        xp = array_module(noisy)
        out = xp.empty((size, m))
        count = xp.zeros(size)
        aborted = xp.zeros(size, dtype=bool)
        for i in range(m):
            above = noisy[:, i] >= rho + self.t
            out[:, i] = xp.where(aborted, aborted_code, xp.where(above, 1.0, below))
            count += above
            rho = xp.where(above, _svt_noise(self.exact, rng, rho_s, size), rho)
            aborted |= count == self.c
        return out


@dataclass
class SVT34Parallel:
    """dpsniper's SVT34Parallel: SVT3 and SVT4 (c = 2, T = 1, eps = 0.1 each) on the same input,
    20 output columns; ``exact`` as :class:`SVT`'s."""
    eps: float = EPS
    c: int = 2
    exact: bool = False

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        out = array_module(a).empty((size, 2 * a.size))
        SVT(3, self.eps, self.c, exact=self.exact)(a, size, rng, out=out[:, :a.size])  # each writes its half
        SVT(4, self.eps, self.c, exact=self.exact)(a, size, rng, out=out[:, a.size:])
        return out


@dataclass
class NumericalSVT:
    """NumericalSVT (Wang et al. PLDI 2019) as in dpsniper: rho1 ~ Lap(3/eps), rho2 ~ Lap(6c/eps),
    rho3 ~ Lap(3c/eps); above: a_i + rho3_i, else 0; -1000 after c aboves; ``exact`` as :class:`SVT`'s."""
    eps: float = EPS
    c: int = 2
    t: float = 1.0
    exact: bool = False

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        rho1 = _svt_noise(self.exact, rng, 3 / self.eps, size)
        compare = a + _svt_noise(self.exact, rng, 6 * self.c / self.eps, (size, a.size))
        values = a + _svt_noise(self.exact, rng, 3 * self.c / self.eps, (size, a.size))
        return sparse_vector_responses(compare, self.t + rho1, cutoff=self.c, values=values, below=0.0,
                                       aborted=-1000.0)  # -1000 after c aboves


@dataclass
class PrefixSum:
    """PrefixSum (Wang et al. PLDI 2019): ``cumsum(a + Lap(1/eps))``."""
    eps: float = EPS

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return array_module(a).cumsum(a + _laplace(rng, 1 / self.eps, (size, a.size)), axis=1)


@dataclass
class LaplaceParallel:
    """``n_parallel`` independent ``a[0] + Lap(1/eps)`` (dpsniper: n_parallel = 20, eps = 0.005)."""
    eps: float = 0.005
    n_parallel: int = 20

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return float(a[0]) + _laplace(rng, 1 / self.eps, (size, self.n_parallel))


def bloom_bits(value: int, n_hashes: int = 4, filter_size: int = 20) -> np.ndarray:
    """RAPPOR's Bloom filter as in dpsniper: bit ``mmh3.hash(str(value), seed=i) % filter_size``
    (MurmurHash3 x86 32-bit, signed; scikit-learn's ``murmurhash3_32`` is the same function)."""
    bits = np.zeros(filter_size, dtype=bool)
    for i in range(n_hashes):
        bits[int(murmurhash3_32(str(value), seed=i)) % filter_size] = True
    return bits


@dataclass
class Rappor:
    """RAPPOR steps 1-3 (Erlingsson et al. 2014) as in dpsniper/mechanisms/rappor.py: Bloom filter
    (h = 4 hashes, 20 bits), permanent randomized response (f), instantaneous one (p, q), fresh per
    report.  ``one_time``: steps 1-2 only (dpsniper's OneTimeRappor, f = 0.95)."""
    one_time: bool = False
    n_hashes: int = 4
    filter_size: int = 20
    f: float = 0.75
    p: float = 0.45
    q: float = 0.55

    def bit_probabilities(self) -> tuple[float, float]:
        """P[output bit = 1 | Bloom bit = 1], P[... | Bloom bit = 0]."""
        hi, lo = 1 - self.f / 2, self.f / 2
        if self.one_time:
            return hi, lo
        return hi * self.q + lo * self.p, lo * self.q + hi * self.p

    def claim(self) -> float:
        """The worst case over all inputs: 2h bits differ, each with ratio ``p1/p0``."""
        p1, p0 = self.bit_probabilities()
        return 2 * self.n_hashes * math.log(p1 / p0)

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        xp = array_module(a)
        bits = bloom_bits(int(a[0]), self.n_hashes, self.filter_size)
        p1, p0 = self.bit_probabilities()
        return (rng.random((size, self.filter_size)) < xp.asarray(np.where(bits, p1, p0))).astype(xp.float64)

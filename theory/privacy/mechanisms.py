"""Basic differentially private mechanisms in the audit form ``mechanism(data, size, rng)``.

Each mechanism is a small class: construct it with its privacy parameters, then call it as
``mech(data, size, rng)`` to get ``size`` independent outputs along axis 0 (the form that
:func:`semiprivate.theory.audit.audit_mechanism` expects).  ``mech.privacy`` is the ``(epsilon, delta)``
the mechanism guarantees for the neighbouring relation stated in its docstring, derived from
the cited theorem (not copied from the constructor where the two differ).

``data`` is the *true answer* of the query (a number or a vector of numbers), or a dataset
together with a ``query`` callable mapping the dataset to that answer.  Two datasets are
neighbours for a mechanism when their query answers differ by at most ``sensitivity`` in the
norm the mechanism names (L1 for Laplace and geometric, L2 for Gaussian, L-infinity, i.e.
"every score moves by at most ``sensitivity``", for report-noisy-max).

Implements: AUDIT (the basic mechanisms the audit suite and its tests run on).

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy",
   Found. Trends TCS 9(3-4), 2014.  Laplace: Thm 3.6; Gaussian: Thm A.1 (classic
   calibration); report noisy max: Claim 3.9; randomized response: Sec. 3.2.
.. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential
   privacy: analytical calibration and optimal denoising", ICML 2018, Thm 8.
.. [GRS12] A. Ghosh, T. Roughgarden, M. Sundararajan, "Universally utility-maximizing
   privacy mechanisms", SIAM J. Comput. 41(6), 2012 (the two-sided geometric mechanism).

Examples
--------
>>> mech = LaplaceMechanism(epsilon=1.0)
>>> mech(3.0, 4, 0).shape
(4,)
>>> mech.privacy
(1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from scipy.special import log_ndtr
from semiprivate.kernels.noise import bernoulli_exp
from semiprivate.theory.privacy._release import Released, param_names
from semiprivate.theory.privacy.budget import laplace_scale, normal_delta, normal_epsilon
from semiprivate.theory.validity import require
from semiprivate.validation import (
    DELTA,
    EPSILON,
    POSITIVE_REAL,
    Boolean,
    CallableConstraint,
    Integer,
    Optional,
    Options,
    Real,
    as_generator,
    check_positive_int,
    validate_params,
)

__all__ = [
    "LaplaceMechanism",
    "GaussianMechanism",
    "GeometricMechanism",
    "RandomizedResponse",
    "ReportNoisyMax",
    "gaussian_delta",
    "gaussian_sigma",
]


def _answer(query: Callable[[Any], Any] | None, data: Any) -> np.ndarray:
    value = data if query is None else query(data)
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim > 1:
        raise ValueError(f"the query answer must be a number or a 1-D vector, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("the query answer must be finite")
    return arr


def _size(size: Any) -> int:
    return check_positive_int(size, "size")


class _FixedAtConstruction:
    """A mechanism's parameters and what is derived from them (its ``privacy`` claim, its noise scale) are fixed
    when it is built.  Reassigning a public attribute (``m.epsilon = 50.0``) would leave ``privacy`` and the
    scale describing the old value while a call reads the new one, so it is refused: build a new mechanism."""

    #: a constructor parameter stored under another attribute name (``RandomizedResponse``'s ``n_categories``)
    _param_attributes: ClassVar[dict[str, str]] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_") and name in vars(self):
            raise AttributeError(f"{type(self).__name__}.{name} is fixed at construction (its privacy claim and noise "
                                 f"scale are derived from it): build a new {type(self).__name__} instead")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if not name.startswith("_"):
            raise AttributeError(f"{type(self).__name__}.{name} is fixed at construction: build a new "
                                 f"{type(self).__name__} instead")
        super().__delattr__(name)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling (an edited or an old pickle) re-derives the state from the parameters it holds and refuses a
        state that differs (a ``privacy`` claim or a noise scale that does not follow from ``epsilon``): the
        constructor's checks and derivations hold for a loaded mechanism too.  Writing through ``vars`` or
        ``object.__setattr__`` is deliberate and not guarded."""
        cls = type(self)
        try:
            names = {k: cls._param_attributes.get(k, k) for k in param_names(self)}
            fresh = cls(**{k: state[a] for k, a in names.items() if a in state})
        except (TypeError, ValueError) as e:
            raise ValueError(f"{cls.__name__}: the pickled state holds invalid parameters ({e})") from None
        public = {k for k in (*vars(fresh), *state) if not k.startswith("_")}
        for k in sorted(public):
            if k not in state or k not in vars(fresh) or not _same_value(state[k], vars(fresh)[k]):
                raise ValueError(f"{cls.__name__}: the pickled state's {k!r} does not follow from its parameters "
                                 f"(a privacy claim and a noise scale are derived at construction); build a new "
                                 f"{cls.__name__} instead")
        super().__setstate__(state)  # type: ignore[misc]


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype \
            and bool(np.array_equal(a, b))
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


class LaplaceMechanism(_FixedAtConstruction, Released):
    """Laplace mechanism: ``f(D) + Lap(sensitivity / epsilon)`` in every coordinate.

    Float noise: the auditor's textbook reference (its law is the continuous density the audit
    tests compare with).  Not for releasing private data: float Laplace noise is not private as
    computed (Mironov 2012); a release uses :func:`semiprivate.kernels.noise.discrete_laplace` on an
    integer or a declared grid (:class:`GeometricMechanism`).

    Privacy claim: ``(epsilon, 0)``-DP for datasets whose answers differ by at most
    ``sensitivity`` in L1 norm ([DR14]_ Thm 3.6).

    Implements: AUDIT (basic mechanism; DR14 Thm 3.6, scale ``b = sensitivity / epsilon``).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, > 0.
    sensitivity : float
        L1 sensitivity of the query, > 0.
    query : callable, optional
        Maps a dataset to the answer; default: ``data`` is the answer itself.

    Examples
    --------
    >>> LaplaceMechanism(0.5, sensitivity=2.0).scale
    4.0
    >>> LaplaceMechanism(1.0)([0.0, 1.0], 3, 1).shape
    (3, 2)
    """

    #: float noise for audits only (not for a release of private data): refused in secure mode
    _audit_form = True

    _public = frozenset({"scale", "privacy"})  # stateless: a call leaves nothing behind

    @validate_params(epsilon=EPSILON, sensitivity=POSITIVE_REAL, query=Optional(CallableConstraint()))
    def __init__(self, epsilon: float, sensitivity: float = 1.0, *, query: Callable[[Any], Any] | None = None) -> None:
        self.epsilon = normal_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self.query = query
        self.scale = self.sensitivity / self.epsilon
        self.privacy = (self.epsilon, 0.0)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        a = _answer(self.query, data)
        n = _size(size)
        return a + as_generator(rng).laplace(0.0, self.scale, size=(n, *a.shape))

    def __repr__(self) -> str:
        return f"LaplaceMechanism(epsilon={self.epsilon:g}, sensitivity={self.sensitivity:g})"


@validate_params(epsilon=Real(0.0, math.inf, closed="left"), sigma=POSITIVE_REAL, sensitivity=POSITIVE_REAL)
def gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact delta(epsilon) of the Gaussian mechanism with noise ``N(0, sigma^2)``.

    ``delta = Phi(D/(2s) - e s/D) - exp(e) Phi(-D/(2s) - e s/D)`` with ``D`` the L2
    sensitivity, ``s = sigma``, ``e = epsilon`` ([BW18]_ Thm 8); evaluated in log space.
    ``epsilon >= 0``, ``sigma > 0`` and ``sensitivity > 0``, all finite (a ``ValueError``
    naming the parameter otherwise: a zero or negative noise level has no finite delta
    formula, it is not "perfect privacy").

    Implements: AUDIT (Gaussian calibration; BW18 Thm 8).

    Examples
    --------
    >>> round(gaussian_delta(1.0, 1.0), 6)
    0.126937
    >>> gaussian_delta(1.0, -1.0)
    Traceback (most recent call last):
    ...
    ValueError: sigma must be in (0, inf), got -1.0
    """
    e, s, d = float(epsilon), float(sigma), float(sensitivity)
    a = d / (2 * s) - e * s / d
    b = -d / (2 * s) - e * s / d
    la, lb = float(log_ndtr(a)), float(e + log_ndtr(b))
    if lb >= la:
        return 0.0
    return float(math.exp(la) * -math.expm1(lb - la))


@validate_params(epsilon=EPSILON, delta=DELTA, sensitivity=POSITIVE_REAL, method=Options("analytic", "classic"))
def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, method: str = "analytic") -> float:
    """Noise standard deviation that makes the Gaussian mechanism ``(epsilon, delta)``-DP.

    * ``"classic"``: ``sigma = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon``, valid only
      for ``epsilon < 1`` ([DR14]_ Thm A.1); raises :class:`~semiprivate.theory.validity.ConditionNotMet`
      otherwise.
    * ``"analytic"``: the smallest ``sigma`` with :func:`gaussian_delta` ``<= delta``
      ([BW18]_ Thm 8), found by bisection to relative precision 1e-12 (rounded up).

    Implements: AUDIT (Gaussian calibration; DR14 Thm A.1, BW18 Thm 8).

    Raises
    ------
    ConditionNotMet
        ``delta == 0`` (no finite sigma), or ``method="classic"`` with ``epsilon >= 1``.

    Examples
    --------
    >>> round(gaussian_sigma(0.5, 1e-5, method="classic"), 4)
    9.6896
    >>> s = gaussian_sigma(1.0, 1e-5)
    >>> gaussian_delta(1.0, s) <= 1e-5 < gaussian_delta(1.0, s * 0.999)
    True
    """
    e, dl, sens = float(epsilon), float(delta), float(sensitivity)
    require(dl > 0, "AUDIT (Gaussian mechanism)",
            "delta > 0 (no finite sigma gives (epsilon, 0)-DP; use LaplaceMechanism for pure DP)", delta=dl)
    if method == "classic":
        require(e < 1, "DR14 Thm A.1 (classic Gaussian calibration)", "epsilon < 1", epsilon=e)
        return sens * math.sqrt(2 * math.log(1.25 / dl)) / e
    lo, hi = 1e-6 * sens, sens
    while gaussian_delta(e, hi, sens) > dl:
        hi *= 2
    while hi - lo > 1e-12 * hi:
        mid = 0.5 * (lo + hi)
        if gaussian_delta(e, mid, sens) > dl:
            lo = mid
        else:
            hi = mid
    return hi


class GaussianMechanism(_FixedAtConstruction, Released):
    """Gaussian mechanism: ``f(D) + N(0, sigma^2)`` in every coordinate.

    Float noise: the auditor's textbook reference (not for releasing private data; a release uses
    :func:`semiprivate.kernels.noise.discrete_gaussian` on an integer or a declared grid).

    Privacy claim: ``(epsilon, delta)``-DP for answers at L2 distance ``<= sensitivity``,
    with ``sigma`` from :func:`gaussian_sigma` (``calibration="analytic"``: [BW18]_ Thm 8, any
    epsilon; ``"classic"``: [DR14]_ Thm A.1, epsilon < 1).

    Implements: AUDIT (basic mechanism; DR14 Thm A.1 / BW18 Thm 8).

    Examples
    --------
    >>> m = GaussianMechanism(0.5, 1e-5, calibration="classic")
    >>> round(m.sigma, 4), m.privacy
    (9.6896, (0.5, 1e-05))
    """

    #: float noise for audits only (not for a release of private data): refused in secure mode
    _audit_form = True

    _public = frozenset({"sigma", "privacy"})  # stateless: a call leaves nothing behind

    @validate_params(
        epsilon=EPSILON, delta=DELTA, sensitivity=POSITIVE_REAL,
        calibration=Options("analytic", "classic"), query=Optional(CallableConstraint()),
    )
    def __init__(
        self,
        epsilon: float,
        delta: float,
        sensitivity: float = 1.0,
        *,
        calibration: str = "analytic",
        query: Callable[[Any], Any] | None = None,
    ) -> None:
        self.sigma = gaussian_sigma(epsilon, delta, sensitivity, calibration)
        self.epsilon, self.delta, self.sensitivity = normal_epsilon(epsilon), normal_delta(delta), float(sensitivity)
        self.calibration = calibration
        self.query = query
        # both calibrations guarantee the requested (epsilon, delta); the exact delta at this
        # sigma (gaussian_delta) is <= delta, strictly so for the classic calibration.
        self.privacy = (self.epsilon, self.delta)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        a = _answer(self.query, data)
        n = _size(size)
        return a + as_generator(rng).normal(0.0, self.sigma, size=(n, *a.shape))

    def __repr__(self) -> str:
        return f"GaussianMechanism(epsilon={self.epsilon:g}, delta={self.delta:g}, sigma={self.sigma:.4g})"


class GeometricMechanism(_FixedAtConstruction, Released):
    """Two-sided geometric mechanism: ``f(D) + Z`` with ``P(Z = k) ∝ exp(-epsilon |k| / sensitivity)``.

    For integer-valued queries.  Privacy claim: ``(epsilon, 0)``-DP for integer answers at L1
    distance ``<= sensitivity`` ([GRS12]_; the discrete analogue of [DR14]_ Thm 3.6).
    The noise is the exact discrete Laplace of scale ``sensitivity / epsilon``
    (:func:`semiprivate.kernels.noise.discrete_laplace`, CKS20 Alg 2: integer arithmetic only, epsilon
    taken as the exact rational of the float), so the released integers have exactly this law.

    Implements: AUDIT (basic mechanism; GRS12).

    Examples
    --------
    >>> m = GeometricMechanism(1.0)
    >>> m(5, 3, 0).dtype
    dtype('int64')
    >>> lp = m.log_probabilities(0, support=np.arange(-2, 3))
    >>> bool(np.isclose(lp[2] - lp[3], 1.0))
    True
    """

    _public = frozenset({"alpha", "privacy"})  # stateless: a call leaves nothing behind
    _exact_coins = frozenset({"rng"})  # the run gets an ExactStream: no float draw can reach the answer

    @validate_params(epsilon=EPSILON, sensitivity=Integer(1), query=Optional(CallableConstraint()))
    def __init__(self, epsilon: float, sensitivity: int = 1, *, query: Callable[[Any], Any] | None = None) -> None:
        self.epsilon = normal_epsilon(epsilon)
        self.sensitivity = int(sensitivity)
        self.query = query
        self.alpha = math.exp(-self.epsilon / self.sensitivity)
        self.privacy = (self.epsilon, 0.0)

    #: Largest |answer| accepted: the noisy answer must stay inside int64 (2^62 leaves room).
    MAX_ANSWER = 2**62

    def _int_answer(self, data: Any) -> np.ndarray:
        """The query answer as int64, checked on what is public only (its dtype and shape, never its values).

        Values are mapped, never refused (a refusal that depends on the private answer would be an output of
        its own): ``g(a) = clip(floor(a), -2^62, 2^62)``, NaN to 0.  ``g`` is the identity on the integer
        answers the claim is for; floor and clip are monotone, so for a scalar query of sensitivity ``Delta``
        (an integer) ``g(f)`` has sensitivity ``Delta`` too (``|floor a - floor b| <= Delta`` when
        ``|a - b| <= Delta``).  A vector query whose answers are not integers is outside the claim
        (its floor can move by more than its L1 sensitivity).
        """
        a = np.asarray(self._map_python_ints(data if self.query is None else self.query(data)))
        if a.dtype.kind not in "iubf":
            raise TypeError(f"data: the geometric mechanism needs a numeric answer, got dtype {a.dtype}")
        if a.ndim > 1:
            raise ValueError(f"data: the query answer must be a number or a 1-D vector, got shape {a.shape}")
        if a.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                a = np.floor(np.nan_to_num(a, nan=0.0, posinf=float(self.MAX_ANSWER), neginf=-float(self.MAX_ANSWER)))
                return np.clip(a, -float(self.MAX_ANSWER), float(self.MAX_ANSWER)).astype(np.int64)
        if a.dtype.kind == "u":
            return np.minimum(a, np.uint64(self.MAX_ANSWER)).astype(np.int64)
        return np.clip(a.astype(np.int64), -self.MAX_ANSWER, self.MAX_ANSWER)

    @classmethod
    def _map_python_ints(cls, answer: Any) -> Any:
        """Python ints (alone, or in lists and tuples) clipped to ``[-MAX_ANSWER, MAX_ANSWER]`` by value before
        NumPy sees them: NumPy picks the dtype of a Python int from its value (uint64 up to 2^64 - 1, object
        above, float64 for a list that mixes signs past 2^63), so the dtype check would refuse or round an
        answer by its value."""
        if isinstance(answer, int):  # bool too (an int subclass): mapped to 0 or 1 as before
            return max(-cls.MAX_ANSWER, min(cls.MAX_ANSWER, int(answer)))
        if isinstance(answer, list | tuple):
            return [cls._map_python_ints(v) for v in answer]
        return answer

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        a = self._int_answer(data)
        n = _size(size)
        shape = (n, *a.shape)
        scale = laplace_scale(self.sensitivity, self.epsilon)
        z = rng.discrete_laplace(scale, int(np.prod(shape))).reshape(shape)  # rng: an ExactStream (_exact_coins)
        return a + z

    def log_probabilities(self, data: Any, support: Any) -> np.ndarray:
        """Exact ``log P(output = k)`` for the integers ``k`` in ``support`` (scalar answers)."""
        a = int(self._int_answer(data))
        k = np.asarray(support, dtype=np.int64)
        lz = math.log1p(-self.alpha) - math.log1p(self.alpha)
        return lz - self.epsilon / self.sensitivity * np.abs(k - a)

    def __repr__(self) -> str:
        return f"GeometricMechanism(epsilon={self.epsilon:g}, sensitivity={self.sensitivity})"


class RandomizedResponse(_FixedAtConstruction, Released):
    """k-ary randomized response, applied to every entry of ``data`` independently.

    Each entry (a category in ``{0, ..., n_categories-1}``) is reported truthfully with
    probability ``e^eps / (e^eps + k - 1)`` and otherwise replaced by one of the other
    ``k - 1`` categories uniformly.  Privacy claim: ``(epsilon, 0)``-DP when neighbouring
    datasets differ in one entry ([DR14]_ Sec. 3.2; k = 2 is Warner's randomized response).
    Sampled exactly: each round picks a category uniformly and keeps it (the true one always, another
    with an exact Bernoulli(e^-eps), :func:`semiprivate.kernels.noise.bernoulli_exp`), else repeats, so
    P[truth] = 1/(1 + (k - 1) e^-eps) with no float comparison in the draw.
    A scalar ``data`` gives scalar outputs; a vector gives output vectors.

    Implements: AUDIT (basic mechanism; DR14 Sec 3.2).

    Examples
    --------
    >>> rr = RandomizedResponse(math.log(3))
    >>> round(rr.p_truth, 6)
    0.75
    >>> np.exp(rr.log_probabilities(1)).round(3).tolist()
    [0.25, 0.75]
    """

    _public = frozenset({"k", "p_truth", "privacy"})  # stateless: a call leaves nothing behind
    _param_attributes: ClassVar[dict[str, str]] = {"n_categories": "k"}

    @validate_params(epsilon=EPSILON, n_categories=Integer(2))
    def __init__(self, epsilon: float, *, n_categories: int = 2) -> None:
        self.epsilon = normal_epsilon(epsilon)
        self.k = int(n_categories)
        self.p_truth = 1.0 / (1.0 + (self.k - 1) * math.exp(-self.epsilon))
        self.privacy = (self.epsilon, 0.0)

    def _check(self, data: Any) -> np.ndarray:
        a = np.asarray(data)
        if a.dtype.kind not in "iub" or a.ndim > 1 or np.any(a < 0) or np.any(a >= self.k):
            raise ValueError(f"data must be categories in [0, {self.k - 1}] (scalar or 1-D); some entry is not")
        return a.astype(np.int64)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        a = self._check(data)
        n = _size(size)
        g = as_generator(rng)
        shape = (n, *a.shape)
        truth = np.broadcast_to(a, shape).ravel()
        out = np.empty(truth.size, dtype=np.int64)
        todo = np.arange(truth.size)
        eps = Fraction(self.epsilon)
        while todo.size:
            pick = g.integers(0, self.k, size=todo.size)
            is_true = pick == truth[todo]
            accept = is_true.copy()
            other = np.flatnonzero(~is_true)
            if other.size:
                accept[other] = bernoulli_exp(eps, other.size, rng=g)
            out[todo[accept]] = pick[accept]
            todo = todo[~accept]
        return out.reshape(shape)

    def log_probabilities(self, data: Any) -> np.ndarray:
        """Exact ``log P(output = j)``, ``j = 0..k-1``, for a scalar ``data``."""
        a = int(self._check(data))
        out = np.full(self.k, math.log1p(-self.p_truth) - math.log(self.k - 1))
        out[a] = math.log(self.p_truth)
        return out

    def __repr__(self) -> str:
        return f"RandomizedResponse(epsilon={self.epsilon:g}, n_categories={self.k})"


class ReportNoisyMax(_FixedAtConstruction, Released):
    """Report noisy max: ``argmax_i (s_i + noise_i)`` over a score vector ``s``.

    Privacy claims (neighbours: every score changes by at most ``sensitivity``):

    * ``noise="laplace"``: ``Lap(2 sensitivity / epsilon)`` noise gives ``(epsilon, 0)``-DP
      for arbitrary scores; with ``monotone=True`` (scores all move in the same direction
      between neighbours, e.g. counting queries) ``Lap(sensitivity / epsilon)`` suffices
      ([DR14]_ Claim 3.9).
    * ``noise="gumbel"``: ``Gumbel(2 sensitivity / epsilon)`` noise makes the output exactly
      the exponential mechanism ``P(i) ∝ exp(epsilon s_i / (2 sensitivity))`` (``(epsilon, 0)``-DP,
      [DR14]_ Thm 3.10); with ``monotone=True`` the scale is ``sensitivity / epsilon``.

    Only the index is released, never the noisy value.  Float noise: the auditor's textbook
    reference; the exact exponential mechanism is :func:`semiprivate.kernels.exponential_mechanism`
    with ``exact=True``.

    Implements: AUDIT (basic mechanism; DR14 Claim 3.9, Thm 3.10).

    Examples
    --------
    >>> m = ReportNoisyMax(1.0, noise="gumbel")
    >>> np.exp(m.log_probabilities([0.0, 0.0])).tolist()
    [0.5, 0.5]
    >>> m([0.0, 5.0, 1.0], 4, 0).dtype
    dtype('int64')
    """

    #: float noise for audits only (not for a release of private data): refused in secure mode
    _audit_form = True

    _public = frozenset({"scale", "privacy"})  # stateless: a call leaves nothing behind

    @validate_params(epsilon=EPSILON, sensitivity=POSITIVE_REAL, noise=Options("laplace", "gumbel"),
                     monotone=Boolean(), query=Optional(CallableConstraint()))
    def __init__(
        self,
        epsilon: float,
        sensitivity: float = 1.0,
        *,
        noise: str = "laplace",
        monotone: bool = False,
        query: Callable[[Any], Any] | None = None,
    ) -> None:
        self.epsilon = normal_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self.noise = noise
        self.monotone = bool(monotone)
        self.query = query
        self.scale = (1.0 if self.monotone else 2.0) * self.sensitivity / self.epsilon
        self.privacy = (self.epsilon, 0.0)

    def __call__(self, data: Any, size: int, rng: Any = None) -> np.ndarray:
        s = _answer(self.query, data)
        if s.ndim != 1 or s.size < 1:
            raise ValueError("report noisy max needs a non-empty 1-D score vector")
        n = _size(size)
        g = as_generator(rng)
        if self.noise == "laplace":
            z = g.laplace(0.0, self.scale, size=(n, s.size))
        else:
            z = g.gumbel(0.0, self.scale, size=(n, s.size))
        z += s
        return np.argmax(z, axis=1).astype(np.int64)

    def log_probabilities(self, data: Any) -> np.ndarray:
        """Exact output log-probabilities (``noise="gumbel"`` only: a softmax)."""
        if self.noise != "gumbel":
            raise ValueError("exact output probabilities are implemented for noise='gumbel' only")
        s = _answer(self.query, data) / self.scale
        m = float(np.max(s))
        return s - (m + math.log(float(np.sum(np.exp(s - m)))))

    def __repr__(self) -> str:
        return f"ReportNoisyMax(epsilon={self.epsilon:g}, noise={self.noise!r}, monotone={self.monotone})"

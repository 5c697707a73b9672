"""Exponential mechanism and error counts: the public kernels and their backend dispatch.

Implements: EXPMECH (``python -m semiprivate spec EXPMECH``): output index ``i`` with probability proportional to
``exp(epsilon * q_i / (2 * sensitivity))`` -- McSherry and Talwar (2007), Thm 6; BNS15
Prop A.1 (utility ``P[q_max - q_out > Delta] <= |H| exp(-eps Delta / (2 sensitivity))``);
HPSY writes ``exp(eps Q / 2)`` with ``Q = -sum of errors`` (sensitivity 1).  With
``q = -error_counts(...)`` this is the generic private learner KLNRS.Generic.

Backends (see :mod:`semiprivate.kernels._backend`): ``"numpy"`` (:mod:`semiprivate.kernels._reference`, the
specification), ``"cython"`` (:mod:`semiprivate.kernels._cython._expmech`: one pass over the scores,
OpenMP over chunks), ``"cupy"`` (:mod:`semiprivate.kernels._cupy.exponential`, GPU).  ``exact=True``
uses :func:`semiprivate.kernels._reference.reference_exact_sample` (exact rational/interval arithmetic; no floating point in the
decision).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray
from semiprivate.kernels import _reference as ref
from semiprivate.kernels._backend import _numpy_fallback, forked_after_openmp, is_cupy_array, resolve_backend
from semiprivate.kernels._memo import memo
from semiprivate.kernels._scores import prepare_scores
from semiprivate.validation import (
    EPSILON,
    NONNEGATIVE_INT,
    POSITIVE_INT,
    POSITIVE_REAL,
    RNG,
    ArrayLike,
    Boolean,
    Integer,
    Optional,
    Options,
    as_generator,
    check_array,
    check_binary,
    validate_params,
)

__all__ = [
    "exponential_mechanism",
    "exponential_log_probabilities",
    "error_counts",
    "pack_bits",
    "cython_threads",
    "default_threads",
    "sampler_error_bounds",
    "CHUNK",
]

#: Scores per chunk of the compiled sampler (documented in the error bounds below).
CHUNK = 2048

#: Largest number of candidates :func:`sampler_error_bounds` accepts: the most elements a NumPy
#: array can index (``np.iinfo(np.intp).max`` on 64-bit platforms).
MAX_CANDIDATES = 2**63 - 1

#: Relative error of the samplers' ``exp`` on [-708, 0], in units of ``u = 2**-53``: 4u = 2**-51
#: (compiled Cody-Waite exp: tested against an extended-precision reference, observed ~2u;
#: CUDA's double ``exp``: <= 1 ulp per the CUDA Math API, i.e. <= 2u).  The figure :func:`sampler_error_bounds` uses.
EXP_ERROR_U = 4

#: Roundings in an exponent ``c (s_i - m)``: ``c = epsilon / (2 sensitivity)`` in :func:`_scale`,
#: the difference ``s_i - m``, and the product; relative error <= 3u to first order in u.
EXPONENT_ROUNDINGS = 3

_BACKEND = Options("auto", "numpy", "cython", "cupy")


class _Scores(ArrayLike):
    """1-D int/float scores, +-inf allowed, NaN rejected.

    Structural checks (type, ndim, dtype, size) happen here; the NaN check is done by each
    backend inside its own pass over the data (one read of the scores, not two), raising
    ``ValueError("scores must not contain NaN")`` there.
    """

    def __init__(self) -> None:
        super().__init__(ndim=1, dtype_kinds="iuf", min_size=1, allow_nan=False, allow_inf=True)

    def validate(self, name: str, value: Any) -> Any:
        return check_array(value, name, ndim=1, dtype_kinds="iuf", min_size=1, allow_nan=True, allow_inf=True)


SCORES = _Scores()


def _scale(epsilon: Any, sensitivity: Any) -> float:
    """``c = epsilon / (2 * sensitivity)`` as a float in (0, inf), else ValueError."""
    c = float(epsilon) / (2.0 * float(sensitivity))
    if not (0.0 < c < math.inf):
        raise ValueError(
            f"epsilon / (2 * sensitivity) must be a positive finite float64, got epsilon={epsilon!r}, "
            f"sensitivity={sensitivity!r} (ratio {c!r})"
        )
    return c


def _as_fraction(x: Any, name: str) -> Fraction:
    """The exact rational value of ``x`` (int, float, NumPy scalar, Fraction, sympy Rational).

    Anything with ``as_integer_ratio`` (floats of every width, long double included, Decimal)
    gives that ratio with Python ints (not NumPy ints, which would overflow in the sampler's
    arithmetic), before ``Fraction(x)``, which from Python 3.14 would store the ratio's own types.
    """
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, np.integer):
        return Fraction(int(x))
    ratio = getattr(x, "as_integer_ratio", None)
    try:
        if callable(ratio):
            num, den = ratio()
            return Fraction(int(num), int(den))
        return Fraction(x)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"exact=True needs a rational {name}, got {x!r} ({type(x).__name__})") from None


def _nan_error() -> ValueError:
    return ValueError("scores must not contain NaN")


@memo(maxsize=1)
def _cython_module() -> Any:
    try:
        from semiprivate.kernels._cython import _expmech
    except ImportError:
        return None
    return _expmech


def _resolve(backend: str, *arrays: Any) -> str:
    """Resolve the backend; ``auto`` falls back to numpy when ``_expmech`` is not built."""
    env = os.environ.get("SEMIPRIVATE_BACKEND", "").strip()
    if backend == "auto" and not env and not any(is_cupy_array(a) for a in arrays):
        return _numpy_fallback() if _cython_module() is None else "cython"  # fast path of resolve_backend
    explicit = backend != "auto" or bool(env)
    name = resolve_backend(backend, *arrays)
    if name == "cython" and _cython_module() is None:
        if explicit:
            raise ValueError("backend 'cython' is not available: semiprivate.kernels._cython._expmech is not built")
        name = "numpy"
    return name


#: Scores from which the compiled sampler's pass runs in parallel (OpenMP).
PARALLEL_MIN = 1 << 20

#: Memory one draw needs: the int64 result and two float64 uniforms.
_BYTES_PER_DRAW = 24

def _memory_bytes() -> int:
    """Physical memory of this machine in bytes (``2**63 - 1`` where it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 2**63 - 1


@memo(maxsize=1)
def _openmp() -> Any:
    """threadpoolctl's controller of the OpenMP runtimes loaded in this process (cached: a registered memo, put
    back after a search that hides its number of runs, as :func:`semiprivate.kernels.threads.blas_controller`)."""
    from threadpoolctl import ThreadpoolController

    _cython_module()  # the compiled module loads the OpenMP runtime it was built with
    return ThreadpoolController().select(user_api="openmp")


def default_threads() -> int:
    """Default ``n_threads`` of the compiled sampler: the OpenMP limit in force, at most the free cores.

    The OpenMP limit is the team size of the kernels' own OpenMP runtime
    (``omp_get_max_threads``: ``OMP_NUM_THREADS``, or ``threadpoolctl.threadpool_limits`` around the
    call; other runtimes loaded in the process, such as scikit-learn's, do not count); the free
    cores are the usable CPUs (``os.sched_getaffinity``) less the load of other processes (the
    1-minute load average, which counts this process's own running thread, less 1), at least 1.
    """
    mod = _cython_module()
    if mod is None:
        return 1
    from semiprivate.kernels._cython import _probe

    limit = int(_probe.max_threads())
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    try:
        others = max(0.0, os.getloadavg()[0] - 1.0)
    except (AttributeError, OSError):  # pragma: no cover - no load average
        others = 0.0
    free = max(1, int(round(cpus - others)))
    return max(1, min(limit, cpus, free))


def cython_threads() -> int:
    """Threads the compiled sampler used in its last parallel call (1 if serial or not built).

    The compiled kernels use OpenMP with the default team size, which honours
    ``OMP_NUM_THREADS``; inputs shorter than a threshold run serially.
    """
    mod = _cython_module()
    return 1 if mod is None else int(mod.threads_used())


@validate_params(n=Integer(1, MAX_CANDIDATES), epsilon=EPSILON, backend=Options("cython", "cupy", "numpy"))
def sampler_error_bounds(n: int, epsilon: float, *, backend: str = "cython") -> dict[str, float]:
    """Floating-point error and the privacy actually guaranteed by a floating-point sampler.

    Implements the bound stated in :func:`exponential_mechanism` (Notes, "What privacy the
    floating-point sampler gives") for ``n`` candidates: relative error ``gamma`` of every
    output probability, additive error ``xi`` over any output set, and the resulting
    ``(epsilon_fp, delta_fp)`` for an ``epsilon``-DP exponential mechanism.

    Parameters
    ----------
    n : int
        Number of candidates, in ``[1, MAX_CANDIDATES]`` (``2**63 - 1``, the most elements a
        NumPy array can index: no sampler can be given more).  A larger ``n`` (e.g. ``10**400``)
        is a :class:`ValueError` naming ``n``, not an ``OverflowError``: the bound is a statement
        about a sampler that runs, so huge integers are not evaluated "exactly".
    epsilon : float
        The nominal privacy parameter, > 0 and finite.
    backend : {"cython", "cupy", "numpy"}
        Stages ``B + C``: chunks of ``B = 2048`` (Cython); ``4096 + 256 + 8 + ceil(C / 256)`` with
        ``C = ceil(n / 4096)`` (CuPy: entries, chunks of a tile, the tile reduction, tiles); ``n`` (NumPy).

    Raises
    ------
    ValueError
        Also when the bound is vacuous (``gamma >= 1``: about ``2**52`` stages or more, i.e.
        ``n`` near ``2**52`` with ``backend="numpy"``, near ``2**63`` chunked), naming ``n`` and ``backend``.

    Returns
    -------
    dict
        ``gamma``, ``xi`` (additive, any set), ``epsilon_fp``, ``delta_fp``.

    Examples
    --------
    >>> b = sampler_error_bounds(10**7, 1.0)
    >>> f"{b['gamma']:.2e} {b['delta_fp']:.2e}"
    '2.96e-12 2.86e-12'
    >>> sampler_error_bounds(10**7, 1.0)["epsilon_fp"] - 1.0 < 6e-12
    True
    """
    u = 2.0**-53
    if backend == "numpy":
        stages = float(n)
    elif backend == "cython":
        stages = float(CHUNK + -(-n // CHUNK))
    else:  # the GPU's three levels (kernels/_cupy/onepass.py): 4096 entries, 256 chunks, 8 tree levels, the tiles
        chunks = -(-n // 4096)
        stages = float(4096 + 256 + 8 + -(-chunks // 256))
    gamma = 6.0 * (708.0 * EXPONENT_ROUNDINGS * u + EXP_ERROR_U * u) + 2.0 * stages * u
    if not gamma < 1.0:
        raise ValueError(f"n={n} is too large for backend={backend!r}: the floating-point error bound is "
                         f"vacuous (relative error gamma = {gamma:.3g} >= 1)")
    xi = stages * u + n * 2.0**-1021
    eps_fp = float(epsilon) + math.log1p(gamma) - math.log1p(-gamma)
    return {"gamma": gamma, "xi": xi, "epsilon_fp": eps_fp, "delta_fp": (1.0 + math.exp(eps_fp)) * xi}


@validate_params(scores=SCORES, epsilon=EPSILON, sensitivity=POSITIVE_REAL)
def exponential_log_probabilities(scores: Any, epsilon: float, *, sensitivity: float = 1.0) -> NDArray[np.float64]:
    """Exact log-probabilities of the exponential mechanism (float64, log-sum-exp).

    Implements: EXPMECH (McSherry and Talwar 2007; BNS15 Prop A.1): ``log p_i = c s_i -
    log sum_j exp(c s_j)`` with ``c = epsilon / (2 * sensitivity)``, computed as
    ``z_i - log sum_j exp(z_j)`` with ``z_i = c (s_i - max_j s_j)`` so nothing overflows.
    This is the reference distribution for the tests and the audits.

    Parameters
    ----------
    scores : array_like, shape (N,)
        Quality scores ``q_i`` (float or integer), ``N >= 1``; ``+-inf`` allowed, NaN not.
    epsilon : float
        Privacy parameter, > 0 and finite.
    sensitivity : float, default 1.0
        Sensitivity of the score (``max |q_i(S) - q_i(S')|`` over neighbours), > 0.

    Returns
    -------
    ndarray of float64, shape (N,)
        ``log p_i``; ``-inf`` for probability 0.  With ``+inf`` scores the mechanism is
        uniform over them (``log p = -log(#inf)``), everything else ``-inf``.

    Raises
    ------
    TypeError
        Non-array, wrong dtype (bool, complex, object), non-real epsilon/sensitivity.
    ValueError
        Empty or non-1-D scores, NaN, all scores ``-inf``, epsilon <= 0 or non-finite,
        sensitivity <= 0, or ``epsilon / (2 sensitivity)`` not representable.

    Notes
    -----
    Error: each ``z_i = c (s_i - max)`` goes through three roundings (``c = epsilon / (2
    sensitivity)``, the difference, the product; integer scores are differenced exactly in
    ``uint64`` and rounded once when converted to float64), so it carries relative error
    <= ``3u = 3 * 2**-53`` to first order (``EXPONENT_ROUNDINGS``), hence an absolute error
    <= ``|z_i| 3 * 2**-53``; the log-normaliser is a float64 pairwise sum of terms in (0, 1]
    plus one ``log``.

    References
    ----------
    F. McSherry and K. Talwar, "Mechanism design via differential privacy", FOCS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> lp = exponential_log_probabilities([0, 1, 2], 2.0)
    >>> np.round(np.exp(lp), 4)
    array([0.09  , 0.2447, 0.6652])
    >>> np.exp(exponential_log_probabilities([1.0, np.inf, np.inf, -np.inf], 1.0))
    array([0. , 0.5, 0.5, 0. ])
    """
    if is_cupy_array(scores):
        scores = scores.get()
    s = np.asarray(scores)
    c = _scale(epsilon, sensitivity)
    if s.dtype.kind == "f" and bool(np.isnan(s).any()):
        raise _nan_error()
    return ref.reference_log_probabilities(s, c)


@validate_params(
    scores=SCORES,
    epsilon=EPSILON,
    sensitivity=POSITIVE_REAL,
    size=Optional(NONNEGATIVE_INT),
    rng=RNG,
    backend=_BACKEND,
    exact=Boolean(),
    n_threads=Optional(POSITIVE_INT),
)
def exponential_mechanism(
    scores: Any,
    epsilon: float | Fraction,
    *,
    sensitivity: float | Fraction = 1.0,
    size: int | None = None,
    rng: Any = None,
    backend: str = "auto",
    exact: bool = False,
    n_threads: int | None = None,
) -> Any:
    """Sample the exponential mechanism: index ``i`` with probability ``∝ exp(epsilon q_i / (2 sensitivity))``.

    Implements: EXPMECH (``python -m semiprivate spec EXPMECH``; McSherry and Talwar 2007 Thm 6: ``epsilon``-DP
    when ``q`` has the stated sensitivity; BNS15 Prop A.1 utility).  ``size=k`` gives ``k``
    independent draws from the same scores in one call.

    Parameters
    ----------
    scores : array_like or cupy.ndarray, shape (N,)
        Quality scores (float32, float64 or any integer dtype), ``N >= 1``.  ``+inf``: the
        output is uniform over the ``+inf`` entries; ``-inf``: probability 0; NaN: error.
        A CuPy array selects the CuPy backend and the result is a CuPy array.  A pandas
        Series (or any array-like with an index) is read by position, like ``np.asarray``:
        the result is a position ``i`` in ``0..N-1``, not an index label; its label is
        ``scores.index[i]``.
    epsilon : float
        Privacy parameter, > 0 and finite.  With ``exact=True`` its exact rational value is
        used (a float is the dyadic rational it stores; ``fractions.Fraction`` is exact).
    sensitivity : float, default 1.0
        Sensitivity of the scores, > 0 (rational for ``exact=True``).
    size : int or None
        ``None``: one draw, returned as ``int``; otherwise an int64 array of ``size`` draws.
    rng : None, int or numpy.random.Generator
        Randomness (see :func:`semiprivate.validation.as_generator`).  Results are reproducible
        under a fixed seed per backend (and per ``exact``), not across backends: NumPy uses
        one uniform per draw over all ``N`` entries, Cython and CuPy two per draw (chunk,
        then entry) with chunks of 2048 and 4096 entries, so one seed gives the same
        distribution but in general different indices on different backends.  (The CuPy
        backend draws its uniforms from this NumPy generator, so Cython and CuPy consume the
        same uniform stream.)
    backend : {"auto", "numpy", "cython", "cupy"}
        ``"auto"``: CuPy for CuPy input, else Cython when built, else NumPy; the environment
        variable ``SEMIPRIVATE_BACKEND`` overrides ``"auto"`` for NumPy input.
    exact : bool, default False
        Sample the exact distribution (integer scores, rational ``epsilon / sensitivity``)
        with exact rational and rigorously bounded interval arithmetic; see Notes.
    n_threads : int or None
        OpenMP threads of the compiled sampler's pass over the scores (it runs in parallel for
        ``N >= 2**20``; other backends ignore it).  None (default): ``default_threads()`` --
        the OpenMP limit in force (``OMP_NUM_THREADS``, ``threadpoolctl.threadpool_limits``),
        at most the cores not busy with other work (``os.getloadavg``): on a loaded machine a
        thread that waits for a core slows the whole pass.  The draws do not depend on it.  In a
        process forked after the kernels ran in parallel, always 1 (the parent's OpenMP pool is
        gone there; a larger team would hang).

    Returns
    -------
    int or ndarray of int64 (cupy.ndarray for CuPy input)
        Positions in ``scores`` (``0..N-1``), also for a pandas Series (never its index labels).

    Raises
    ------
    TypeError
        Wrong types (non-array scores, bool/complex/object dtype, non-integer ``size``,
        bad ``rng``); ``exact=True`` with non-integral scores.
    ValueError
        Empty or non-1-D scores, NaN, all ``-inf``, epsilon <= 0 or non-finite,
        sensitivity <= 0, ``size < 0``, unknown or unavailable backend, or ``size`` whose draws
        (24 bytes each: the result and two uniforms) exceed this machine's memory.

    Notes
    -----
    **Algorithms.**  NumPy: stable softmax then inversion of the CDF (one uniform per draw).
    Cython: the scores are cut into chunks of ``CHUNK = 2048``; for each chunk (in parallel
    with OpenMP when ``N >= 2**20``; the team size follows ``OMP_NUM_THREADS``, see
    :func:`cython_threads`) the chunk maximum ``m_c`` and ``S_c = sum exp(c (s_i - m_c))``
    are computed while the chunk sits in L1 cache, so main memory is read once.  Chunk
    weights ``W_c = S_c exp(c (m_c - M))`` are prefix-summed; each draw picks a chunk by
    binary search with one uniform, and an entry inside it by binary search in that chunk's
    cumulative weights with a second uniform (``size=k``: one pass, ``k`` searches, each
    distinct chunk drawn re-scanned once).  ``exp`` is a branch-free, vectorisable Cody-Waite
    ``2**n exp(r)`` with a degree-11 polynomial interpolating ``exp`` at Chebyshev nodes,
    relative error <= ``4u = 2**-51`` on ``[-708, 0]`` (``EXP_ERROR_U``; tested against an
    extended-precision reference, observed about ``2u``); integer scores use a table
    of ``exp(-c d)`` for ``d = m_c - s_i`` below ``min(4096, 708/c + 1)``.  Terms with ``c
    (s_i - m_c) < -708`` are set to 0: each is below ``2**-1021`` of the chunk maximum, so
    their total is below ``N 2**-1021``, under the float64 resolution ``2**-53`` of the total
    for every ``N < 2**968``.

    **What privacy the floating-point sampler gives.**  Write ``p_i`` for the exact
    probabilities given the float scores, ``u = 2**-53``, ``B = 2048`` (chunk), ``C =
    ceil(N / B)``.  The Cython sampler outputs ``i`` with probability ``p_i (1 + theta_i) +
    xi_i`` with

    * ``|theta_i| <= gamma_N = 6 (708 * 3u + 4u) + 2 (B + C) u``: each exponent ``c (s_i - m)``
      goes through three roundings (``c = epsilon / (2 sensitivity)`` in ``_scale``, then
      ``s_i - m``, then the product; ``EXPONENT_ROUNDINGS``), so it carries relative error
      <= 3u and, having magnitude <= 708, its ``exp`` is off by a factor ``exp(+-708 * 3u)``;
      the ``exp`` itself adds <= 4u (``EXP_ERROR_U``, tested); chunk scales
      ``exp(c (m_c - M))`` likewise; the sequential sums of ``B`` entries and of ``C`` chunk
      weights add <= ``(B + C) u``; ratios of such quantities double the bound (all to first
      order in ``u``: the neglected terms are ``O(gamma_N**2)``);
    * for every set ``S`` of outputs, ``sum_{i in S} |xi_i| <= (B + C) u + N 2**-1021``: the
      two 53-bit uniforms resolve each chunk (each entry inside the chosen chunk) to within
      ``u`` in probability, and weights below ``2**-1021`` of their chunk's maximum are 0.

    Hence for neighbouring score vectors and every ``S``: ``P[S] <= exp(epsilon_fp) P'[S] +
    delta_fp`` with ``epsilon_fp = epsilon + log((1 + gamma_N) / (1 - gamma_N))`` and
    ``delta_fp = (1 + exp(epsilon_fp)) ((B + C) u + N 2**-1021)``;
    :func:`sampler_error_bounds` computes them (``N = 1e7``, ``epsilon = 1``: ``gamma ~
    3.0e-12``, ``delta_fp ~ 2.9e-12``; ``N = 1e8``: ``1.3e-11``, ``2.1e-11``).  The NumPy reference has the same form with one
    stage (``B + C`` replaced by ``N``); the CuPy backend with ``B + C`` replaced by ``4096 + 256 + 8 +
    ceil(C / 256)``, ``C = ceil(N / 4096)`` (its three levels, ``kernels/_cupy/onepass.py``).  This is the
    classical floating-point caveat (Mironov, CCS 2012): pure ``epsilon``-DP holds exactly
    only for ``exact=True``.

    **exact=True.**  Scores must be integers (any integer dtype, or floats with integral
    values, ``+-inf`` allowed); ``c = epsilon / (2 sensitivity)`` is taken as an exact
    ``Fraction``.  Entries are grouped by ``d_i = max - s_i``; a group is chosen by lazy
    inversion: uniform random bits are drawn on demand and compared with rigorous rational
    lower/upper bounds on the cumulative weights ``n_d exp(-c d)`` (alternating Taylor
    series, which bracket ``exp``), refining the precision until the choice is certain;
    then an entry of the group is drawn uniformly with exact integer randomness.  The
    output distribution is exactly ``p_i`` (no rounding enters any decision).

    References
    ----------
    F. McSherry and K. Talwar, FOCS 2007.  I. Mironov, "On significance of the least
    significant bits for differential privacy", CCS 2012.

    Examples
    --------
    >>> exponential_mechanism([0.0, 0.0, 50.0], 1.0, rng=0, backend="numpy")
    2
    >>> exponential_mechanism([3, -1, 2], 2.0, size=5, rng=1).dtype
    dtype('int64')
    >>> exponential_mechanism([0, 0, 40], 1, size=3, rng=2, exact=True)
    array([2, 2, 2])
    """
    rng_ = as_generator(rng)
    on_gpu = is_cupy_array(scores)
    if size is not None and int(size) * _BYTES_PER_DRAW > _memory_bytes():
        raise ValueError(f"size={size} draws need {int(size) * _BYTES_PER_DRAW / 2**30:.3g} GiB ({_BYTES_PER_DRAW} bytes "
                         f"each), more than this machine's {_memory_bytes() / 2**30:.3g} GiB of memory: draw in batches")
    if exact:
        host = scores.get() if on_gpu else np.asarray(scores)
        out = ref.reference_exact_sample(
            host, _as_fraction(epsilon, "epsilon"), _as_fraction(sensitivity, "sensitivity"), size, rng_
        )
        if on_gpu and size is not None:
            import cupy  # type: ignore[import-not-found]

            return cupy.asarray(out)
        return out
    c = _scale(epsilon, sensitivity)
    name = _resolve(backend, scores)
    if name == "cupy":
        from semiprivate.kernels._cupy import exponential as gpu

        return gpu.exponential_mechanism(scores, c, size, rng_)
    s = np.asarray(scores)
    if name == "numpy":
        if s.dtype.kind == "f" and bool(np.isnan(s).any()):
            raise _nan_error()
        return ref.reference_exponential_mechanism(s, c, size, rng_)
    return _cython_sample(prepare_scores(s), c, size, rng_, n_threads)


def _cython_sample(s: NDArray[Any], c: float, size: int | None, rng: np.random.Generator,
                   n_threads: int | None = None) -> Any:
    mod = _cython_module()
    k = 1 if size is None else int(size)
    out = np.empty(k, dtype=np.int64)
    if k == 0:
        return out
    u = rng.random(2 * k)
    if s.shape[0] < PARALLEL_MIN:  # the compiled pass is serial below this size: no thread setting
        status = int(mod.sample(s, c, u[:k], u[k:], out))
    else:
        # a child forked after OpenMP started runs on one thread whatever is asked: the parent's pool
        # is gone there, and a larger team would hang (semiprivate.kernels._backend)
        threads = 1 if forked_after_openmp() else default_threads() if n_threads is None else int(n_threads)
        with _openmp().limit(limits=threads):
            status = int(mod.sample(s, c, u[:k], u[k:], out))
    if status == 1:
        raise _nan_error()
    if status == 2:
        raise ValueError("scores must contain at least one entry > -inf (all scores are -inf)")
    if status == 3:  # +inf present: uniform over the +inf entries
        where = np.flatnonzero(np.isposinf(s))
        out = where[rng.integers(0, where.size, size=k)].astype(np.int64)
    return int(out[0]) if size is None else out


_PRED = ArrayLike(ndim=2, dtype_kinds="biu", min_size=1)
_LABELS = ArrayLike(ndim=1, dtype_kinds="biu", min_size=1)


@validate_params(predictions=_PRED, labels=_LABELS, backend=_BACKEND)
def error_counts(predictions: Any, labels: Any, *, backend: str = "auto") -> Any:
    """Number of mismatches of each hypothesis with the labels (empirical error counts).

    Implements: the score of EXPMECH in the generic learners (EXPMECH, ``python -m semiprivate spec EXPMECH``; KLNRS.Generic,
    ABM19 Alg 1): ``q(S, h) = -#{j : h(x_j) != y_j}`` has sensitivity 1, so ``q = -error_counts``.

    Parameters
    ----------
    predictions : array_like or cupy.ndarray, shape (H, m) or (H, ceil(m / 64))
        Row ``h`` holds hypothesis ``h``'s predictions: a bool or 0/1 integer matrix (any
        integer dtype except uint64), or, as ``uint64``, the bit-packed rows of
        :func:`pack_bits` (bits beyond column ``m`` are ignored).
    labels : array_like, shape (m,)
        The 0/1 (or bool) labels.
    backend : {"auto", "numpy", "cython", "cupy"}
        As for :func:`exponential_mechanism`.

    Returns
    -------
    ndarray of int64, shape (H,) (cupy.ndarray for CuPy input)

    Raises
    ------
    TypeError
        Non-array input or a float/object dtype.
    ValueError
        Wrong shapes, values other than 0/1, unavailable backend.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[1, 0, 1, 1], [0, 0, 0, 0]], dtype=bool)
    >>> y = np.array([1, 0, 0, 1])
    >>> error_counts(P, y)
    array([1, 2])
    >>> error_counts(pack_bits(P), y)
    array([1, 2])
    """
    name = _resolve(backend, predictions, labels)
    P = predictions if is_cupy_array(predictions) else np.asarray(predictions)
    y = labels if is_cupy_array(labels) else np.asarray(labels)
    check_binary(y, "labels")
    m = y.shape[0]
    packed = P.dtype == np.uint64
    words = (m + 63) // 64
    if packed:
        if P.shape[1] != words:
            raise ValueError(
                f"packed predictions (uint64) must have ceil(m/64) = {words} words per row for m = {m} labels, "
                f"got shape {P.shape}"
            )
    else:
        if P.shape[1] != m:
            raise ValueError(f"predictions must have m = {m} columns (one per label), got shape {P.shape}")
        check_binary(P, "predictions")
    if name == "cupy":
        from semiprivate.kernels._cupy import exponential as gpu

        return gpu.error_counts(P, y)
    if name == "numpy":
        return ref.reference_error_counts(P, y, packed)
    mod = _cython_module()
    lab = ref.reference_pack_bits(y.astype(bool))
    Pw = np.ascontiguousarray(P) if packed else ref.reference_pack_bits(P)
    if m % 64:
        Pw = Pw.copy() if packed else Pw
        Pw[:, -1] &= np.uint64((1 << (m % 64)) - 1)
    out = np.empty(P.shape[0], dtype=np.int64)
    mod.error_counts_packed(np.ascontiguousarray(Pw, dtype=np.uint64), lab, out)
    return out


@validate_params(bool_matrix=ArrayLike(ndim=(1, 2), dtype_kinds="biu", min_size=1))
def pack_bits(bool_matrix: Any) -> NDArray[np.uint64]:
    """Pack 0/1 rows into little-endian ``uint64`` words for :func:`error_counts`.

    Bit ``j`` of word ``w`` holds column ``64 w + j``; padding bits are 0.  A 1-D input
    gives a 1-D output.

    Parameters
    ----------
    bool_matrix : array_like, shape (H, m) or (m,)
        Bool or 0/1 integer entries.

    Returns
    -------
    ndarray of uint64, shape (H, ceil(m / 64)) or (ceil(m / 64),)

    Raises
    ------
    TypeError
        Non-array or non-integer/bool dtype.
    ValueError
        Empty input, more than 2 dimensions, values other than 0/1.

    Examples
    --------
    >>> pack_bits([[1, 1, 0, 1]])
    array([[11]], dtype=uint64)
    """
    b = np.asarray(bool_matrix)
    check_binary(b, "bool_matrix")
    return ref.reference_pack_bits(b)


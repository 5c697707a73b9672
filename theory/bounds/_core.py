"""Shared machinery of :mod:`semiprivate.theory.bounds`: the math namespaces, the integer solver and the registry.

One source of truth per formula: every bound is written ONCE as a *formula*
``formula(ns, **params)`` over a math namespace ``ns`` (``MATH`` for floats, ``SYMPY`` for
symbolic expressions).  The public numeric function evaluates ``formula(MATH, ...)`` (and
rounds sample sizes up), the ``*_expr()`` function evaluates ``formula(SYMPY, ...)`` on
positive sympy symbols, and the tests check that the two agree at random points.

Solvers search integers exactly: :func:`smallest_integer` finds the smallest ``n >= lo`` at
which a monotone predicate (False ... False True True ...) holds, by exponential search and
bisection, so that the answer ``n`` satisfies the stated inequality and ``n - 1`` does not.
Predicates compare logarithms (log failure probability <= log beta) so nothing overflows.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from semiprivate.validation import Constraint, Options, check_integer

__all__ = [
    "MATH",
    "SYMPY",
    "Param",
    "FORM_PAPER_OR_CORRECTED",
    "Solver",
    "Bound",
    "REGISTRY",
    "register",
    "smallest_integer",
    "BoundOverflowError",
    "short_int",
    "safe_exp",
    "ceil_int",
    "near_integer",
    "symbols_for",
    "RENAMED_PARAMS",
    "VACUOUS_SIZE",
    "SampleSize",
    "ProbabilityBound",
    "vacuity",
    "renamed_params",
    "renamed_to",
    "broadcasts",
]


def _frac(a: int, b: int) -> float:
    return a / b


def _sympy_ns() -> SimpleNamespace:
    import sympy

    return SimpleNamespace(
        log=sympy.log,
        exp=sympy.exp,
        sqrt=sympy.sqrt,
        e=sympy.E,
        frac=sympy.Rational,
        max=sympy.Max,
        min=sympy.Min,
        symbolic=True,
    )


#: Float namespace (``math``): what the numeric functions use.
MATH = SimpleNamespace(
    log=math.log,
    exp=math.exp,
    sqrt=math.sqrt,
    e=math.e,
    frac=_frac,
    max=max,
    min=min,
    symbolic=False,
)


class _LazySympy:
    """The sympy namespace, imported on first use (sympy is slow to import)."""

    _ns: SimpleNamespace | None = None

    def __getattr__(self, name: str) -> Any:
        if _LazySympy._ns is None:
            _LazySympy._ns = _sympy_ns()
        return getattr(_LazySympy._ns, name)


#: Symbolic namespace (``sympy``): what the ``*_expr`` functions use.
SYMPY: Any = _LazySympy()


def safe_exp(x: float, what: str = "value") -> float:
    """``exp(x)``, or ``inf`` with a :class:`RuntimeWarning` when it overflows a float.

    >>> safe_exp(0.0)
    1.0
    """
    if x > 709.0:
        warnings.warn(f"{what} = exp({x:.6g}) overflows a float; returning inf (use the log form)",
                      RuntimeWarning, stacklevel=2)
        return math.inf
    return math.exp(x)


#: How many units in the last place a float may lie from an integer and still count as it.
NEAR_INTEGER_ULPS = 4


def near_integer(x: float) -> int | None:
    """The integer ``r`` nearest to a finite ``x`` when ``x`` is ``r`` up to float noise, else None.

    Float noise means at most :data:`NEAR_INTEGER_ULPS` (4) units in the last place of
    ``max(1, |x|)``: ``|x - r| <= 4 ulp(max(1, |x|))``.  The tolerance is absolute in ulps,
    not a relative ``1e-12 |x|``, which would exceed 1 for ``x >= 1e12`` and make every large
    value "an integer".  This is the one rule used by :func:`ceil_int` and by the strict
    lower bounds (``floor(x) + 1``) of :mod:`semiprivate.theory.bounds`.

    >>> near_integer(3.0000000000000004), near_integer(3.0000000001), near_integer(1e12 + 0.25)
    (3, None, None)
    """
    r = round(x)
    if abs(x - r) <= NEAR_INTEGER_ULPS * math.ulp(max(1.0, abs(x))):
        return int(r)
    return None


#: Parameter names replaced by a consistent spelling across the papers (old -> the new names it can
#: stand for; see the vocabulary in :mod:`semiprivate.theory.bounds`).  ``d`` was a VC dimension
#: (ABM19), bits per point (BNS15 Thm 3.3, Cor 4.17) or an ambient dimension (HPSY, Sec 3.3
#: baselines): ``d`` maps to ``bits`` where a bound has it (BNS15 Thm 3.3 also has ``vc_dim``, which
#: was ``vc`` there), else to ``dim``, else to ``vc_dim``.
#: The functions that took an old name still accept it, with a DeprecationWarning
#: (:func:`renamed_params`); the registry (:func:`semiprivate.theory.bounds.evaluate`) and the CLI
#: map it the same way (:func:`renamed_to`).
RENAMED_PARAMS: dict[str, tuple[str, ...]] = {"h_size": ("n_hypotheses",), "vc": ("vc_dim",),
                                              "d": ("bits", "dim", "vc_dim")}


def renamed_to(old: str, names: Any) -> str | None:
    """The new name that the deprecated ``old`` stands for among a bound's parameter ``names``, or None
    (``old`` is not deprecated, is itself one of ``names``, or none of its new names is there).

    >>> renamed_to("d", ["n_pub", "vc_dim", "alpha"]), renamed_to("d", ["bits", "vc_dim"]), renamed_to("k", ["k"])
    ('vc_dim', 'bits', None)
    """
    names = list(names)
    if old in names:
        return None
    return next((new for new in RENAMED_PARAMS.get(old, ()) if new in names), None)


def renamed_params(**old_to_new: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: accept each deprecated keyword ``old`` as ``new`` with a DeprecationWarning.

    Giving both spellings raises TypeError naming both.
    """
    import functools

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fn.__name__}() got both {old!r} (deprecated) and {new!r}; give {new!r} only")
                    warnings.warn(f"{fn.__name__}: parameter {old!r} is deprecated, use {new!r}", DeprecationWarning,
                                  stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper

    return deco


def _as_result_array(values: list[Any], shape: tuple[int, ...]) -> Any:
    """The element results as one array: int64 when every one is an int that fits, float64 when every
    one is a float, else an object array (tuples, results with attributes, integers beyond int64)."""
    import numpy as np

    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values) \
            and all(-(2**63) < v < 2**63 for v in values):
        return np.array([int(v) for v in values], dtype=np.int64).reshape(shape)
    if values and all(isinstance(v, float) for v in values):
        return np.array([float(v) for v in values], dtype=np.float64).reshape(shape)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def broadcasts(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: the bound ``fn`` also takes NumPy arrays, broadcast against each other (NumPy's rules).

    With no ``numpy.ndarray`` argument the call is ``fn``'s own (the scalar path, the specification).
    With some, ``fn`` runs once per element of the broadcast shape on Python scalars, and the results
    come back as one array of that shape: int64 for sample sizes, float64 for probabilities and other
    floats, an object array for anything else (a sample size beyond int64, a tuple, a result object).
    An element whose parameters are refused raises that error with the element's index and values
    (``alpha[3] = nan: ...``).  Lists are not broadcast (some parameters are sequences).

    >>> import numpy as np
    >>> @broadcasts
    ... def double(x: float) -> float:
    ...     return 2.0 * x
    >>> double(np.array([1.0, 2.5]))
    array([2., 5.])
    """
    import functools
    import inspect

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import numpy as np

        if not any(isinstance(v, np.ndarray) for v in (*args, *kwargs.values())):
            return fn(*args, **kwargs)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return fn(*args, **kwargs)  # the function's own message for a bad call
        arrays = {k: v for k, v in bound.arguments.items() if isinstance(v, np.ndarray)}
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        except ValueError:
            shapes = ", ".join(f"{k} {a.shape}" for k, a in arrays.items())
            raise ValueError(f"{fn.__name__}: the array parameters do not broadcast together ({shapes})") from None
        full = {k: np.broadcast_to(a, shape) for k, a in arrays.items()}
        values = []
        for idx in np.ndindex(*shape):
            call = sig.bind(*args, **kwargs)
            for k, a in full.items():
                call.arguments[k] = a[idx].item()
            try:
                values.append(fn(*call.args, **call.kwargs))
            except (TypeError, ValueError, ArithmeticError) as exc:
                where = "[" + ", ".join(map(str, idx)) + "]"
                at = ", ".join(f"{k}{where} = {call.arguments[k]!r}" for k in full)
                message = f"{fn.__name__} at {at}: {exc}"
                try:
                    err = type(exc)(message)
                except TypeError:
                    err = ValueError(message)
                raise err from None
        return _as_result_array(values, shape)

    return wrapper


#: A sample size at or above this is vacuous: no sample of that size can be drawn, and the float
#: formulas carry about 16 significant digits, so the digits of a longer integer are noise.
VACUOUS_SIZE = 10**30


class SampleSize(int):
    """A sample size: an ``int`` (same value, arithmetic and repr) that says whether it is vacuous.

    ``vacuous`` is True when the size is at least :data:`VACUOUS_SIZE` (10^30); ``reason`` then
    says why (and is ``""`` otherwise).  Every bound that rounds a real size up
    (:func:`ceil_int`) or searches for one (:func:`smallest_integer`) returns one.  Arithmetic
    on it gives a plain ``int``.

    >>> n = SampleSize(14815)
    >>> n, n.vacuous, n + 1
    (14815, False, 14816)
    >>> SampleSize(10**300).vacuous
    True
    """

    @property
    def vacuous(self) -> bool:
        """True when the size is at least :data:`VACUOUS_SIZE`."""
        return int(self) >= VACUOUS_SIZE

    @property
    def reason(self) -> str:
        """Why the size is vacuous, or ``""``."""
        if not self.vacuous:
            return ""
        return (f"{float(self):.3g} examples is beyond any sample that can be drawn (>= {VACUOUS_SIZE:.0e}); "
                "its digits past the 16th are floating-point noise")


class ProbabilityBound(float):
    """An upper bound on an error or failure probability: a ``float`` that says whether it is vacuous.

    ``vacuous`` is True when the bound is at least 1 (every probability is), with ``reason``
    saying so (``""`` otherwise).

    >>> p = ProbabilityBound(2.5)
    >>> p, p.vacuous
    (2.5, True)
    """

    @property
    def vacuous(self) -> bool:
        """True when the bound is >= 1 (or NaN)."""
        return not float(self) < 1.0

    @property
    def reason(self) -> str:
        """Why the bound is vacuous, or ``""``."""
        return f"a probability bound of {float(self):.6g} >= 1 says nothing" if self.vacuous else ""


def vacuity(value: Any) -> tuple[bool, str]:
    """``(vacuous, reason)`` of a bound's result, read from its parts' own ``vacuous`` / ``reason``.

    A result is vacuous when it, or any field of a NamedTuple, tuple, list or dict result, or the
    ``value`` of a :class:`~semiprivate.theory.validity.Checked`, says it is; the reason names the
    field.  Plain numbers carry no such flag and count as not vacuous.

    >>> vacuity((SampleSize(10), SampleSize(10**40)))
    (True, '[1]: 1e+40 examples is beyond any sample that can be drawn (>= 1e+30); its digits past the 16th are floating-point noise')
    """
    return _vacuity(value, "")


def _vacuity(value: Any, name: str) -> tuple[bool, str]:
    own = getattr(value, "vacuous", None)
    if isinstance(own, bool) and own:
        return True, (f"{name}: " if name else "") + str(getattr(value, "reason", ""))
    if hasattr(value, "_asdict"):
        items: Any = value._asdict().items()
    elif isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = ((f"[{i}]", v) for i, v in enumerate(value))
    elif hasattr(value, "valid") and hasattr(value, "value"):  # a Checked
        return _vacuity(value.value, name)
    else:
        return False, ""
    for key, v in items:
        found = _vacuity(v, f"{name}.{key}" if name and not str(key).startswith("[") else f"{name}{key}")
        if found[0]:
            return found
    return False, ""


def ceil_int(x: float, what: str = "sample size") -> SampleSize:
    """Round a real sample size up to an int (float noise of a few ulps above an integer is absorbed).

    A value within :data:`NEAR_INTEGER_ULPS` ulps of an integer counts as that integer
    (:func:`near_integer`); anything else is rounded up, at every magnitude.
    Raises :class:`OverflowError` for an infinite or NaN value (never a wrong finite number).

    >>> ceil_int(3.0000000000000004), ceil_int(2.2), ceil_int(1e12 + 0.25)
    (3, 3, 1000000000001)
    """
    if not math.isfinite(x):
        raise BoundOverflowError(f"{what} is not finite ({x}): the bound exceeds the float range (about 1.8e308) "
                                 "for these parameters, so it is vacuous here")
    r = near_integer(x)
    return SampleSize(r if r is not None else math.ceil(x))


class BoundOverflowError(OverflowError, ValueError):
    """A bound's value does not fit a float for the parameters given (both an
    :class:`OverflowError` and a :class:`ValueError`: the parameters are out of the usable range)."""


def short_int(n: int) -> str:
    """An integer for a message: all digits up to 15 of them, else ``about 8.0e+201``.

    >>> short_int(14815), short_int(8 * 10**201)
    ('14815', 'about 8.0e+201')
    """
    text = str(abs(int(n)))
    if len(text) <= 15:
        return str(int(n))
    sign = "-" if n < 0 else ""
    return f"about {sign}{text[0]}.{text[1]}e+{len(text) - 1}"


def smallest_integer(predicate: Callable[[int], bool], lo: int, *, limit: int | None = None) -> SampleSize:
    """Smallest integer ``n >= lo`` with ``predicate(n)`` True, for a monotone predicate.

    ``predicate`` must be False on an initial segment and True from some point on.  The
    search doubles the step from ``lo`` until the predicate holds, then bisects: about
    ``2 log2(n)`` evaluations.  ``limit`` defaults to ``max(2^400, 2^64 lo)`` (relative to
    ``lo``, so that a start far out, e.g. ``8d/alpha`` for ``alpha = 1e-200``, still leaves a
    range to search).  Raises :class:`ValueError` (a :class:`BoundOverflowError`) when nothing
    up to ``limit`` works, or when the predicate can no longer be evaluated in floats.

    >>> smallest_integer(lambda n: n * n >= 1000, 1)
    32
    >>> smallest_integer(lambda n: True, 7)
    7
    """
    if not callable(predicate):
        raise TypeError(f"predicate must be callable (int -> bool), got {type(predicate).__name__}")
    lo = check_integer(lo, "lo")
    if limit is None:
        limit = max(1 << 400, lo << 64)
    limit = check_integer(limit, "limit", low=lo)

    def holds(n: int) -> bool:
        try:
            return bool(predicate(n))
        except OverflowError:
            raise BoundOverflowError(
                f"no integer in [{short_int(lo)}, {short_int(n)}] satisfies the condition, and beyond "
                f"{short_int(n)} it cannot be evaluated in floats (about 1.8e308)") from None

    if holds(lo):
        return SampleSize(lo)
    step = 1
    prev = lo
    hi = lo + step
    while not holds(hi):
        prev = hi
        step *= 2
        hi = lo + step
        if hi > limit:
            raise BoundOverflowError(f"no integer in [{short_int(lo)}, {short_int(limit)}] satisfies the condition")
    # predicate(prev) is False, predicate(hi) is True
    while hi - prev > 1:
        mid = (prev + hi) // 2
        if holds(mid):
            hi = mid
        else:
            prev = mid
    return SampleSize(hi)


@dataclass(frozen=True)
class Param:
    """One parameter of a bound: name, declared constraint, meaning, a typical range."""

    name: str
    constraint: Constraint
    description: str
    integer: bool = False
    typical: tuple[float, float] | None = None
    default: Any = None
    required: bool = True


FORM_PAPER_OR_CORRECTED = Param(
    "form", Options("paper", "corrected"), "'corrected' (default: what proofs_checks verifies, the paper's statement "
    "being refuted) or 'paper' (the stated size)", default="corrected", required=False)


@dataclass(frozen=True)
class Solver:
    """Solve a bound for one parameter: ``function(**params) -> int``."""

    name: str
    function: Callable[..., Any]
    params: tuple[Param, ...]
    description: str


@dataclass(frozen=True)
class Bound:
    """A registered bound.

    Attributes
    ----------
    id : str
        SPEC-style id (``"ABM19.Lem3.3"``).
    description : str
        One line.
    params : tuple of Param
        Parameters of :attr:`function`, in order.
    function : callable
        The numeric function (validates, checks the theorem's hypotheses).
    expr : callable or None
        ``expr()`` returns the sympy form (an ``Expr`` or a dict of them), built from the
        same formula as ``function``.
    formula : callable or None
        ``formula(ns, **params)`` (the one source of truth), for the agreement tests.
    output : str
        What the function returns.
    solvers : dict
        Parameter name -> :class:`Solver`.
    monotone : dict
        Parameter name -> +1 / -1: direction in which the output moves (weakly) when the
        parameter grows, as the theorem implies (tested with hypothesis).
    example : dict
        Valid parameters (used by ``--list``, the docs and the tests).
    """

    id: str
    description: str
    params: tuple[Param, ...]
    function: Callable[..., Any]
    expr: Callable[[], Any] | None = None
    formula: Callable[..., Any] | None = None
    output: str = ""
    solvers: Mapping[str, Solver] = field(default_factory=dict)
    monotone: Mapping[str, int] = field(default_factory=dict)
    example: Mapping[str, Any] = field(default_factory=dict)
    integer_output: bool = False

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def __call__(self, **params: Any) -> Any:
        return self.function(**params)


#: id -> Bound, filled by the paper modules on import.
REGISTRY: dict[str, Bound] = {}


def register(bound: Bound) -> Bound:
    """Add a bound to :data:`REGISTRY` (ids are unique)."""
    if bound.id in REGISTRY and REGISTRY[bound.id] is not bound:
        raise ValueError(f"bound id {bound.id!r} registered twice")
    REGISTRY[bound.id] = bound
    return bound


def symbols_for(*names: str, integer: tuple[str, ...] = ()) -> dict[str, Any]:
    """Positive sympy symbols named after parameters (integer ones flagged integer)."""
    import sympy

    return {n: sympy.Symbol(n, positive=True, integer=(n in integer) or None) for n in names}


def _meaningless(value: Any, name: str = "value") -> str:
    """A description of the first negative integer (a negative sample size) or NaN inside ``value``
    (a number, a NamedTuple, a list or a dict), or ``""``."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int):
        return f"{name}={value} (a negative sample size)" if value < 0 else ""
    if isinstance(value, float):
        return f"{name}=nan" if math.isnan(value) else ""
    if hasattr(value, "_asdict"):
        items: Any = value._asdict().items()
    elif isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = ((f"{name}[{i}]", v) for i, v in enumerate(value))
    else:
        return ""
    for key, v in items:
        found = _meaningless(v, str(key))
        if found:
            return found
    return ""


def check_conditions(
    strict: bool,
    item: str,
    conditions: list[tuple[bool, str, dict[str, Any]]],
    compute: Callable[[], Any],
) -> Any:
    """Apply the library rule for a theorem's hypotheses (see :mod:`semiprivate.theory.validity`).

    ``conditions`` is a list of ``(holds, description, values)``.  With ``strict=True`` the
    first failing one raises :class:`~semiprivate.theory.validity.ConditionNotMet` and otherwise the
    value of ``compute()`` is returned; with ``strict=False`` a
    :class:`~semiprivate.theory.validity.Checked` is always returned (``valid=False`` with the reasons
    when a hypothesis fails; its ``value`` is then whatever the formula gives, or ``None``
    where the formula fails or gives a meaningless value -- a negative sample size or NaN --
    which the reason then names).
    """
    from semiprivate.theory.validity import Checked, ConditionNotMet

    failed = [(desc, vals) for ok, desc, vals in conditions if not ok]
    if failed:
        if strict:
            desc, vals = failed[0]
            raise ConditionNotMet(item, desc, vals)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = compute()
        except (ValueError, ArithmeticError):
            value = None
        reason = "; ".join(d for d, _ in failed)
        bad = _meaningless(value)
        if bad:  # outside the hypotheses the formula can give e.g. a negative sample size: withhold it
            reason += f"; value withheld: the formula gives {bad} here"
            value = None
        details: dict[str, Any] = {}
        for _desc, vals in failed:
            details.update(vals)
        return Checked(value=value, valid=False, reason=reason, item=item, details=details)
    value = compute()
    return value if strict else Checked(value=value, valid=True, item=item)


def make_expr(formula: Callable[..., Any], names: tuple[str, ...], integer: tuple[str, ...] = (),
              **fixed: Any) -> Any:
    """``formula(SYMPY, **symbols)``: the sympy form of a formula (fixed args passed through)."""
    syms = symbols_for(*names, integer=integer)
    return formula(SYMPY, **syms, **fixed)

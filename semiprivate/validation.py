"""Parameter validation shared by every public function of ``kernels`` and ``theory``: ``semiprivate.validation``.

One place for the library's input rules (README.md, "Input rules, randomness, theorem conditions"):

* ``epsilon`` > 0 and finite; ``delta`` in [0, 1); ``alpha``, ``beta`` in (0, 1);
  positive / non-negative integers; arrays with a shape, dtype and finiteness rule.
* A wrong *type* raises :class:`TypeError`, a bad *value* raises :class:`ValueError`;
  the message names the parameter and the value received.  Every comparison is
  written NaN-safe (``not (low < x < high)``), so NaN is always rejected.
* Never ``assert``.

Two ways to use it:

1. ``check_*`` functions, called inside a function body.
2. :func:`validate_params`, a decorator that stores the declared constraints on the
   function (``func.__constraints__``, scikit-learn style), checks them on every call
   before the body runs, and registers the function so that one generic test
   (``tests/contracts/test_bad_input.py``) feeds invalid values to every public
   function that declares constraints.

This module is neutral: it imports nothing of the package, so that both ``kernels`` (layer 0, which imports
nothing of ``theory``) and ``theory`` import their rules from it (ARCHITECTURE.md, layer -1).  Its old
place, ``semiprivate.validation``, is the same module under a deprecated name.

Examples
--------
>>> check_epsilon(0.5)
0.5
>>> check_probability(float("nan"), "alpha")
Traceback (most recent call last):
...
ValueError: alpha must be in (0, 1), got nan
>>> @validate_params(epsilon=EPSILON, n=POSITIVE_INT)
... def f(epsilon, n):
...     return epsilon * n
>>> f(0.5, 4)
2.0
>>> f(0.5, True)
Traceback (most recent call last):
...
TypeError: n must be an integer, got True (bool)
"""

from __future__ import annotations

import abc
import contextlib
import contextvars
import functools
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "Constraint",
    "Real",
    "Integer",
    "Options",
    "Boolean",
    "ArrayLike",
    "RandomState",
    "CallableConstraint",
    "Optional",
    "AnyOf",
    "EPSILON",
    "DELTA",
    "PROBABILITY",
    "POSITIVE_INT",
    "NONNEGATIVE_INT",
    "POSITIVE_REAL",
    "RNG",
    "validate_params",
    "registered_functions",
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_probability",
    "check_positive_int",
    "check_nonnegative_int",
    "check_integer",
    "check_option",
    "check_array",
    "check_binary",
    "as_generator",
]

F = TypeVar("F", bound=Callable[..., Any])

_CLOSED = ("both", "left", "right", "neither")


def is_cupy_array(x: Any) -> bool:
    """True when ``x`` is a CuPy array (checked without importing CuPy; ``kernels._backend`` re-exports it)."""
    return type(x).__module__.split(".")[0] == "cupy"


def _describe_value(value: Any) -> str:
    """``repr`` of a value, shortened for arrays and long reprs, plus its type name."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return text


#: Exact types that are real numbers for :func:`_is_real_number` (``bool``, a subclass of int, is not among them).
_PLAIN_REALS = frozenset({int, float})


def _is_real_number(value: Any) -> bool:
    """True for int/float/NumPy/Fraction/sympy reals; False for bool and everything else."""
    if type(value) in _PLAIN_REALS:  # the common case, without the abstract-class checks (bool's type is bool)
        return True
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (numbers.Real, np.integer, np.floating))


def _check_name(name: Any, param: str = "name") -> str:
    """The ``name`` argument of a helper: the parameter name its messages use (a non-empty str)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"{param} must be a non-empty str (the parameter name used in messages), "
                        f"got {_describe_value(name)} ({type(name).__name__})")
    return name


def _check_flag(value: Any, param: str) -> bool:
    """A ``bool`` option of a helper or constraint (``1``/``None`` are not accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{param} must be a bool, got {_describe_value(value)} ({type(value).__name__})")
    return bool(value)


def _check_end(value: Any, param: str) -> Any:
    """An interval end of :class:`Real`: a real number or +-inf, never NaN."""
    if not _is_real_number(value):
        raise TypeError(f"{param} must be a real number (or +-inf), got {_describe_value(value)} "
                        f"({type(value).__name__})")
    try:
        if math.isnan(float(value)):
            raise ValueError(f"{param} must not be NaN")
    except OverflowError:  # a huge int is a valid (finite) end
        pass
    return value


def _check_int_end(value: Any, param: str) -> int | None:
    """An interval end of :class:`Integer`: ``None`` (unbounded) or an integer."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{param} must be None or an integer, got {_describe_value(value)} ({type(value).__name__})")
    return int(value)


def _check_ndim(ndim: Any, param: str = "ndim") -> tuple[int, ...] | None:
    """``None``, a non-negative int, or a non-empty iterable of non-negative ints."""
    if ndim is None:
        return None
    items = (ndim,) if isinstance(ndim, (numbers.Integral, np.integer)) and not isinstance(ndim, bool) else ndim
    if isinstance(items, (str, bytes)):
        raise TypeError(f"{param} must be None, an int or a tuple of ints, got {_describe_value(ndim)}")
    try:
        out = tuple(items)
    except TypeError:
        raise TypeError(f"{param} must be None, an int or a tuple of ints, got {_describe_value(ndim)} "
                        f"({type(ndim).__name__})") from None
    if not out or any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, np.integer))
                      for v in out):
        raise TypeError(f"{param} must be None, an int or a non-empty tuple of ints, got {_describe_value(ndim)}")
    if any(v < 0 for v in out):
        raise ValueError(f"{param} must be >= 0, got {_describe_value(ndim)}")
    return tuple(int(v) for v in out)


_DTYPE_KINDS = "biufcmMOSUV"


def _check_kinds(kinds: Any, param: str = "dtype_kinds") -> str:
    """A string of NumPy ``dtype.kind`` letters."""
    if not isinstance(kinds, str):
        raise TypeError(f"{param} must be a str of dtype.kind letters such as 'biuf', got "
                        f"{_describe_value(kinds)} ({type(kinds).__name__})")
    bad = sorted(set(kinds) - set(_DTYPE_KINDS))
    if bad:
        raise ValueError(f"{param} must hold dtype.kind letters from {_DTYPE_KINDS!r}, got {kinds!r}")
    return kinds


def _check_count(value: Any, param: str) -> int:
    """A non-negative integer option (``min_size``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{param} must be a non-negative integer, got {_describe_value(value)} "
                        f"({type(value).__name__})")
    if value < 0:
        raise ValueError(f"{param} must be >= 0, got {int(value)}")
    return int(value)


class Constraint(abc.ABC):
    """A declared rule for one parameter.

    Subclasses implement :meth:`validate` (return the value, possibly normalised, or
    raise), :meth:`describe`, :meth:`valid_example` and :meth:`invalid_examples`.  The
    last two feed the generic invalid-input test.
    """

    @abc.abstractmethod
    def validate(self, name: str, value: Any) -> Any:
        """See the class docstring."""

    @abc.abstractmethod
    def describe(self) -> str:
        """See the class docstring."""

    @abc.abstractmethod
    def valid_example(self) -> Any:
        """See the class docstring."""

    @abc.abstractmethod
    def invalid_examples(self) -> list[Any]:
        """See the class docstring."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


class Real(Constraint):
    """A real number in an interval.

    Parameters
    ----------
    low, high : float
        Interval ends (``-inf``/``inf`` for unbounded sides).
    closed : {"both", "left", "right", "neither"}
        Which ends belong to the interval.
    allow_inf : bool
        Whether +-inf is acceptable (only meaningful for unbounded sides).

    Accepts ``int``, ``float``, NumPy scalars, :class:`fractions.Fraction` and other
    :class:`numbers.Real` (sympy numbers); rejects ``bool`` with :class:`TypeError`.
    The value is returned unchanged so that exact (rational) inputs stay exact.
    """

    def __init__(
        self,
        low: float = -math.inf,
        high: float = math.inf,
        *,
        closed: str = "both",
        allow_inf: bool = False,
    ) -> None:
        if closed not in _CLOSED:
            raise ValueError(f"closed must be one of {_CLOSED}, got {closed!r}")
        self.low = _check_end(low, "low")
        self.high = _check_end(high, "high")
        if not low <= high:
            raise ValueError(f"low must be <= high, got low={low!r}, high={high!r}")
        self.closed = closed
        self.allow_inf = _check_flag(allow_inf, "allow_inf")

    def _interval(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        return f"{left}{self.low:g}, {self.high:g}{right}"

    def describe(self) -> str:
        return f"a real number in {self._interval()}" + ("" if self.allow_inf else ", finite")

    def _inside(self, x: float) -> bool:
        lo_ok = (x >= self.low) if self.closed in ("both", "left") else (x > self.low)
        hi_ok = (x <= self.high) if self.closed in ("both", "right") else (x < self.high)
        return bool(lo_ok and hi_ok)  # NaN makes both comparisons False

    def validate(self, name: str, value: Any) -> Any:
        if not _is_real_number(value):
            raise TypeError(
                f"{name} must be a real number, got {_describe_value(value)} "
                f"({type(value).__name__})"
            )
        try:
            x = float(value)
        except OverflowError:  # e.g. 10**400: finite but beyond float
            raise ValueError(f"{name} must be in {self._interval()}, got a number too large for a float") from None
        if math.isnan(x):
            raise ValueError(f"{name} must be in {self._interval()}, got nan")
        if math.isinf(x) and not self.allow_inf:
            raise ValueError(f"{name} must be finite and in {self._interval()}, got {x}")
        if not self._inside(x):
            raise ValueError(f"{name} must be in {self._interval()}, got {_describe_value(value)}")
        return value

    def valid_example(self) -> Any:
        lo = self.low if math.isfinite(self.low) else None
        hi = self.high if math.isfinite(self.high) else None
        if lo is not None and hi is not None:
            return (lo + hi) / 2.0
        if lo is not None:
            return lo + 1.0
        if hi is not None:
            return hi - 1.0
        return 0.0

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [math.nan, "1", None, True]
        if not self.allow_inf:
            out += [math.inf, -math.inf]
        if math.isfinite(self.low):  # a step of at least 1 that stays outside for large ends (1e150 + 1 == 1e150)
            out.append(self.low - max(1.0, abs(self.low)))
            if self.closed in ("right", "neither"):
                out.append(self.low)
        if math.isfinite(self.high):
            out.append(self.high + max(1.0, abs(self.high)))
            if self.closed in ("left", "neither"):
                out.append(self.high)
        return out


class Integer(Constraint):
    """An integer (``int`` or NumPy integer, never ``bool`` or ``float``) in ``[low, high]``."""

    def __init__(self, low: int | None = None, high: int | None = None) -> None:
        self.low = _check_int_end(low, "low")
        self.high = _check_int_end(high, "high")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"low must be <= high, got low={low!r}, high={high!r}")

    def describe(self) -> str:
        lo = "-inf" if self.low is None else str(self.low)
        hi = "inf" if self.high is None else str(self.high)
        return f"an integer in [{lo}, {hi}]"

    def validate(self, name: str, value: Any) -> Any:
        if type(value) is int:  # the common case, without the abstract-class checks (bool's type is bool)
            v = value
        elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
            raise TypeError(
                f"{name} must be an integer, got {_describe_value(value)} ({type(value).__name__})"
            )
        else:
            v = int(value)
        if (self.low is not None and v < self.low) or (self.high is not None and v > self.high):
            raise ValueError(f"{name} must be {self.describe()}, got {_describe_value(v)}")
        return v

    def valid_example(self) -> Any:
        if self.low is not None:
            return self.low + 1 if self.high is None or self.low + 1 <= self.high else self.low
        if self.high is not None:
            return self.high
        return 0

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [1.5, "3", None, True, math.nan]
        if self.low is not None:
            out.append(self.low - 1)
        if self.high is not None:
            out.append(self.high + 1)
        return out


class Options(Constraint):
    """One of a fixed set of values (compared with ``==``)."""

    def __init__(self, *values: Any) -> None:
        if not values:
            raise ValueError("Options needs at least one value")
        self.values = tuple(values)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def validate(self, name: str, value: Any) -> Any:
        try:
            ok = any(value == v and type(value) is type(v) for v in self.values)
        except Exception:  # e.g. an array compared with a string
            ok = False
        if not ok:
            raise ValueError(f"{name} must be {self.describe()}, got {_describe_value(value)}")
        return value

    def valid_example(self) -> Any:
        return self.values[0]

    def invalid_examples(self) -> list[Any]:
        return ["__not_an_option__", 12345]


class Boolean(Constraint):
    """A ``bool`` (or NumPy bool)."""

    def describe(self) -> str:
        return "a bool"

    def validate(self, name: str, value: Any) -> Any:
        if type(value) is bool:
            return value
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, got {_describe_value(value)} ({type(value).__name__})")
        return bool(value)

    def valid_example(self) -> Any:
        return False

    def invalid_examples(self) -> list[Any]:
        return [1, "yes", None]


class ArrayLike(Constraint):
    """An array (NumPy, anything ``np.asarray`` accepts, or a CuPy array).

    Parameters
    ----------
    ndim : int or tuple of int or None
        Allowed number of dimensions.
    dtype_kinds : str
        Allowed ``dtype.kind`` letters (``"b"`` bool, ``"i"``/``"u"`` integers, ``"f"`` float).
        Anything else (object, strings, complex unless listed) is a :class:`TypeError`.
    min_size : int
        Minimum number of elements (default 1: empty arrays are rejected).
    allow_nan, allow_inf : bool
        Whether NaN / +-inf entries are accepted (default: neither).

    ``validate`` returns the array (``np.asarray`` of the input; CuPy arrays unchanged).
    """

    def __init__(
        self,
        *,
        ndim: int | tuple[int, ...] | None = None,
        dtype_kinds: str = "biuf",
        min_size: int = 1,
        allow_nan: bool = False,
        allow_inf: bool = False,
    ) -> None:
        self.ndim = _check_ndim(ndim)
        self.dtype_kinds = _check_kinds(dtype_kinds)
        self.min_size = _check_count(min_size, "min_size")
        self.allow_nan = _check_flag(allow_nan, "allow_nan")
        self.allow_inf = _check_flag(allow_inf, "allow_inf")

    def describe(self) -> str:
        nd = "any" if self.ndim is None else "/".join(str(n) for n in self.ndim)
        fin = "finite" if not (self.allow_nan or self.allow_inf) else "non-NaN" if not self.allow_nan else "any"
        return f"an array (ndim {nd}, dtype kinds {self.dtype_kinds!r}, >= {self.min_size} elements, {fin} values)"

    def validate(self, name: str, value: Any) -> Any:
        return check_array(
            value,
            name,
            ndim=self.ndim,
            dtype_kinds=self.dtype_kinds,
            min_size=self.min_size,
            allow_nan=self.allow_nan,
            allow_inf=self.allow_inf,
        )

    def valid_example(self) -> Any:
        nd = 1 if self.ndim is None else self.ndim[0]
        shape = (max(self.min_size, 3),) + (3,) * max(nd - 1, 0) if nd > 0 else ()
        kind = self.dtype_kinds[0] if self.dtype_kinds else "f"
        dtype = {"b": bool, "i": np.int64, "u": np.uint64, "f": np.float64}.get(kind, np.float64)
        return np.ones(shape, dtype=dtype)

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [np.array(["a", "b"], dtype=object), None]
        if self.ndim is not None:
            bad_nd = max(self.ndim) + 1
            out.append(np.zeros((2,) * bad_nd))
        if self.min_size >= 1:
            nd = 1 if self.ndim is None else self.ndim[0]
            out.append(np.zeros((0,) + (3,) * max(nd - 1, 0)))
        if "f" in self.dtype_kinds:
            good = np.asarray(self.valid_example(), dtype=np.float64)
            if good.ndim >= 1 and not self.allow_nan:
                bad = good.copy()
                bad.flat[0] = np.nan
                out.append(bad)
            if good.ndim >= 1 and not self.allow_inf:
                bad = good.copy()
                bad.flat[0] = np.inf
                out.append(bad)
        return out


class RandomState(Constraint):
    """``None``, a non-negative ``int`` seed, a :class:`numpy.random.Generator` or a ``SeedSequence``."""

    def describe(self) -> str:
        return "None, a non-negative int seed, a numpy.random.Generator or a SeedSequence"

    def validate(self, name: str, value: Any) -> Any:
        check_rng(value, name)  # checked without making a generator (making one is drawing coins from the seed)
        return value

    def valid_example(self) -> Any:
        return 0

    def invalid_examples(self) -> list[Any]:
        return [-1, 1.5, "seed", True]


class CallableConstraint(Constraint):
    """Any callable."""

    def describe(self) -> str:
        return "a callable"

    def validate(self, name: str, value: Any) -> Any:
        if not callable(value):
            raise TypeError(f"{name} must be callable, got {_describe_value(value)} ({type(value).__name__})")
        return value

    def valid_example(self) -> Any:
        return lambda *a, **k: None

    def invalid_examples(self) -> list[Any]:
        return [1, "f"]


class Optional(Constraint):
    """``None`` or whatever ``inner`` accepts."""

    def __init__(self, inner: Constraint) -> None:
        if not isinstance(inner, Constraint):
            raise TypeError(f"inner must be a Constraint, got {_describe_value(inner)} ({type(inner).__name__})")
        self.inner = inner

    def describe(self) -> str:
        return f"None or {self.inner.describe()}"

    def validate(self, name: str, value: Any) -> Any:
        return None if value is None else self.inner.validate(name, value)

    def valid_example(self) -> Any:
        return None

    def invalid_examples(self) -> list[Any]:
        return [v for v in self.inner.invalid_examples() if v is not None]


class AnyOf(Constraint):
    """Accepted when any of the given constraints accepts (the first one's result is returned)."""

    def __init__(self, *constraints: Constraint) -> None:
        if not constraints:
            raise ValueError("AnyOf needs at least one constraint")
        self.constraints = constraints

    def describe(self) -> str:
        return " or ".join(c.describe() for c in self.constraints)

    def validate(self, name: str, value: Any) -> Any:
        errors: list[Exception] = []
        for c in self.constraints:
            try:
                return c.validate(name, value)
            except (TypeError, ValueError) as exc:
                errors.append(exc)
        # A ValueError from some alternative means the type was right but the value bad.
        if any(isinstance(e, ValueError) for e in errors):
            raise ValueError(f"{name} must be {self.describe()}, got {_describe_value(value)}")
        raise TypeError(f"{name} must be {self.describe()}, got {_describe_value(value)} ({type(value).__name__})")

    def valid_example(self) -> Any:
        return self.constraints[0].valid_example()

    def invalid_examples(self) -> list[Any]:
        out = []
        for v in self.constraints[0].invalid_examples():
            try:
                self.validate("x", v)
            except (TypeError, ValueError):
                out.append(v)
        return out


# Shared constraints for the library's usual parameters.
EPSILON = Real(0.0, math.inf, closed="neither")
DELTA = Real(0.0, 1.0, closed="left")
PROBABILITY = Real(0.0, 1.0, closed="neither")  # alpha, beta
POSITIVE_REAL = Real(0.0, math.inf, closed="neither")
POSITIVE_INT = Integer(1)
NONNEGATIVE_INT = Integer(0)
RNG = RandomState()

_REGISTRY: list[Callable[..., Any]] = []


def validate_params(**constraints: Constraint) -> Callable[[F], F]:
    """Declare and enforce constraints on a function's parameters.

    The constraints are checked, in signature order, on every call before the body runs;
    the first violation raises (TypeError for a wrong type, ValueError for a bad value,
    the message naming the parameter and the value).  The declaration is stored as
    ``func.__constraints__`` and the function is registered for the generic invalid-input
    test.  Decorate ``__init__`` to constrain a class's constructor.

    Cross-parameter rules (``k <= d``) belong in the body.
    """
    for key, c in constraints.items():
        if not isinstance(c, Constraint):
            raise TypeError(f"constraint for {key!r} must be a Constraint, got {type(c).__name__}")

    def decorate(func: F) -> F:
        sig = inspect.signature(func)
        unknown = set(constraints) - set(sig.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__} declares constraints for unknown parameters {sorted(unknown)}")
        order = [p for p in sig.parameters if p in constraints]
        params = list(sig.parameters.values())
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        by_keyword = frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        simple = not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
        empty = inspect.Parameter.empty
        # every parameter: (name, position or -1, keyword allowed, default, constrained)
        plan = [(p.name, positional.index(p.name) if p.name in positional else -1, p.name in by_keyword,
                 p.default, p.name in constraints) for p in params]

        def bound_values(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
            """The constrained arguments, in signature order, of a well-formed call, found without
            ``sig.bind`` (the binding was most of the cost of a small validated call); None when the
            call is not plainly well-formed (too many, unknown, repeated or missing arguments), so
            that ``sig.bind`` raises its usual TypeError before any value is checked."""
            if not simple or len(args) > len(positional) or not by_keyword.issuperset(kwargs):
                return None
            out = []
            for name, pos, kw, default, constrained in plan:
                if 0 <= pos < len(args):
                    if kw and name in kwargs:
                        return None  # given twice
                    value = args[pos]
                elif kw and name in kwargs:
                    value = kwargs[name]
                elif default is not empty:
                    value = default
                else:
                    return None  # missing
                if constrained:
                    out.append(value)
            return out

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = bound_values(args, kwargs)
            if values is None:
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                values = [bound.arguments[pname] for pname in order]
            for pname, value in zip(order, values):
                constraints[pname].validate(pname, value)
            return func(*args, **kwargs)

        wrapper.__constraints__ = dict(constraints)  # type: ignore[attr-defined]
        _REGISTRY.append(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


def registered_functions() -> list[Callable[..., Any]]:
    """Every function decorated with :func:`validate_params` so far (in import order)."""
    return list(_REGISTRY)


# ---------------------------------------------------------------------------
# check_* helpers (for use inside function bodies)
# ---------------------------------------------------------------------------


def check_real(
    value: Any,
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    closed: str = "both",
    allow_inf: bool = False,
) -> float:
    """Validate a real number in an interval and return it as ``float``."""
    _check_name(name)
    return float(Real(low, high, closed=closed, allow_inf=allow_inf).validate(name, value))


def check_epsilon(value: Any, name: str = "epsilon") -> float:
    """``epsilon`` > 0 and finite."""
    _check_name(name)
    return float(EPSILON.validate(name, value))


def check_delta(value: Any, name: str = "delta") -> float:
    """``delta`` in [0, 1)."""
    _check_name(name)
    return float(DELTA.validate(name, value))


def check_probability(value: Any, name: str) -> float:
    """A probability in the open interval (0, 1) (``alpha``, ``beta``)."""
    _check_name(name)
    return float(PROBABILITY.validate(name, value))


def check_integer(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """An integer in ``[low, high]`` (``bool`` and ``float`` are rejected)."""
    _check_name(name)
    return int(Integer(low, high).validate(name, value))


def check_positive_int(value: Any, name: str) -> int:
    """An integer >= 1."""
    _check_name(name)
    return int(POSITIVE_INT.validate(name, value))


def check_nonnegative_int(value: Any, name: str) -> int:
    """An integer >= 0."""
    _check_name(name)
    return int(NONNEGATIVE_INT.validate(name, value))


def check_option(value: Any, name: str, options: Sequence[Any]) -> Any:
    """One of ``options`` (a non-empty sequence of allowed values)."""
    _check_name(name)
    if isinstance(options, (str, bytes)) or not isinstance(options, Iterable):
        raise TypeError(f"options must be a sequence of allowed values, got {_describe_value(options)} "
                        f"({type(options).__name__})")
    opts = tuple(options)
    if not opts:
        raise ValueError("options must hold at least one allowed value, got an empty sequence")
    return Options(*opts).validate(name, value)


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | Iterable[int] | None = None,
    dtype_kinds: str = "biuf",
    min_size: int = 1,
    shape: tuple[int | None, ...] | None = None,
    allow_nan: bool = False,
    allow_inf: bool = False,
) -> Any:
    """Validate an array and return it (``np.asarray`` of the input; CuPy arrays unchanged).

    ``shape`` may use ``None`` for free axes, e.g. ``(None, 3)``.
    The options themselves are checked too (``ndim`` ints, ``dtype_kinds`` letters,
    ``min_size`` >= 0, ``shape`` a tuple of ints/None, bool flags), naming the option.
    """
    _check_name(name)
    allowed_nd = _check_ndim(ndim)
    _check_kinds(dtype_kinds)
    _check_count(min_size, "min_size")
    _check_flag(allow_nan, "allow_nan")
    _check_flag(allow_inf, "allow_inf")
    if shape is not None:
        if not isinstance(shape, (tuple, list)) or any(
                s is not None and (isinstance(s, (bool, np.bool_)) or not isinstance(s, (numbers.Integral, np.integer)))
                for s in shape):
            raise TypeError(f"shape must be None or a tuple of ints / None, got {_describe_value(shape)} "
                            f"({type(shape).__name__})")
    if value is None:
        raise TypeError(f"{name} must be an array, got None")
    if is_cupy_array(value):
        arr = value
    else:
        if isinstance(value, (str, bytes)):
            raise TypeError(f"{name} must be an array, got {type(value).__name__}")
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be array-like, got {type(value).__name__}: {exc}") from exc
    if arr.dtype.kind not in dtype_kinds:
        raise TypeError(f"{name} must have a dtype of kind {dtype_kinds!r}, got dtype {arr.dtype}")
    if allowed_nd is not None and arr.ndim not in allowed_nd:
        raise ValueError(f"{name} must have ndim in {allowed_nd}, got ndim={arr.ndim} (shape {arr.shape})")
    if shape is not None:
        if len(shape) != arr.ndim or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} element(s), got {arr.size} (shape {arr.shape})")
    if arr.dtype.kind == "f" and not (allow_nan and allow_inf) and arr.size:
        xp = np
        if is_cupy_array(arr):
            import cupy as xp  # type: ignore[import-not-found, no-redef]
        if not allow_nan and bool(xp.isnan(arr).any()):
            raise ValueError(f"{name} must not contain NaN")
        if not allow_inf and bool(xp.isinf(arr).any()):
            raise ValueError(f"{name} must not contain +-inf")
    return arr


def check_binary(a: Any, name: str, *, length: int | None = None, as_bool: bool = False) -> Any:
    """The library's one check of 0/1 data (labels, predictions, bit matrices).

    Rule: the array has a bool or integer dtype (floats, even 0.0/1.0, strings and objects
    are a TypeError) and every entry is 0 or 1 (anything else, e.g. 2 or -1, is a ValueError).
    NumPy and CuPy arrays are checked in place; other input goes through ``np.asarray``.
    Used by :func:`semiprivate.kernels.error_counts`, :func:`semiprivate.kernels.pack_bits` and by
    :mod:`semiprivate.theory` (labels of the learners, predictions of ``error_counts_of``, ``y_tilde`` of
    ``priv_samp``).

    Parameters
    ----------
    a : array_like or cupy.ndarray
    name : str
        Named in the error messages.
    length : int, optional
        When given, ``a`` must be 1-d of exactly this length (ValueError otherwise).
    as_bool : bool
        Return ``a`` converted to bool (else the validated array, unconverted).

    Raises
    ------
    TypeError
        A non bool/integer dtype.
    ValueError
        Entries other than 0/1; wrong shape when ``length`` is given.

    Examples
    --------
    >>> check_binary([1, 0, 1], "y", as_bool=True).tolist()
    [True, False, True]
    >>> check_binary([0.0, 1.0], "y")
    Traceback (most recent call last):
    ...
    TypeError: y must be a 0/1 array of bool or integer dtype, got dtype float64
    """
    name = _check_name(name)
    arr = a if is_cupy_array(a) else np.asarray(a)
    if arr.dtype.kind not in "biu":
        raise TypeError(f"{name} must be a 0/1 array of bool or integer dtype, got dtype {arr.dtype}")
    if length is not None and (arr.ndim != 1 or arr.shape[0] != length):
        raise ValueError(f"{name} must be 1-d of length {length}, got shape {arr.shape}")
    if arr.dtype.kind != "b" and arr.size and (bool((arr > 1).any()) or (arr.dtype.kind == "i" and bool((arr < 0).any()))):
        raise ValueError(f"{name} must contain only 0 and 1 (or be boolean)")
    return arr.astype(bool) if as_bool and arr.dtype.kind != "b" else arr


def as_generator(rng: Any = None, name: str = "rng") -> np.random.Generator:
    """Turn ``rng`` (None | int seed | Generator | SeedSequence) into a :class:`numpy.random.Generator`.

    ``None`` gives fresh OS entropy; an ``int`` seed is reproducible; a ``Generator`` is
    returned as is (shared state, by design).  No global random state is ever used.

    >>> int(as_generator(3).integers(10)) == int(as_generator(3).integers(10))
    True
    """
    check_rng(rng, name)
    if rng is None:
        return _observed(rng, np.random.default_rng())
    if isinstance(rng, np.random.Generator):
        return _observed(rng, rng)
    if isinstance(rng, np.random.SeedSequence):
        return _observed(rng, np.random.default_rng(rng))
    return _observed(rng, np.random.default_rng(int(rng)))


def check_rng(rng: Any, name: str) -> None:
    """What :func:`as_generator` accepts, checked without making a generator."""
    _check_name(name)
    if rng is None or isinstance(rng, np.random.Generator | np.random.SeedSequence):
        return
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (numbers.Integral, np.integer)):
        raise TypeError(
            f"{name} must be None, an int seed, a numpy.random.Generator or a SeedSequence, "
            f"got {_describe_value(rng)} ({type(rng).__name__})"
        )
    if int(rng) < 0:
        raise ValueError(f"{name} seed must be >= 0, got {int(rng)}")


_EXPERIMENT: contextvars.ContextVar[bool] = contextvars.ContextVar("semiprivate_experiment_coins", default=False)


@contextlib.contextmanager
def experiment_coins() -> Iterator[None]:
    """Run the block as an experiment, not a release: its coins are not recorded by the privacy layer's seed
    record (an auditor replays one generator state on two neighbouring datasets on purpose: common random
    numbers; nothing it draws is published as a release)."""
    token = _EXPERIMENT.set(True)
    try:
        yield
    finally:
        _EXPERIMENT.reset(token)


def in_experiment() -> bool:
    """Whether the current block runs under :func:`experiment_coins`."""
    return _EXPERIMENT.get()


#: Observers of the coins :func:`as_generator` hands out, called as ``observer(source, generator)`` where
#: ``source`` is what the caller passed (None, a seed, a SeedSequence, a Generator).  The privacy layer installs
#: one (``semiprivate.theory.privacy.seeds``): it records, for the release in progress, which stream each
#: generator draws from and refuses a stream another release drew from (one seed, one release).  This layer
#: only calls it; it has no notion of a release.
COIN_OBSERVERS: list[Any] = []


def _observed(source: Any, gen: np.random.Generator) -> np.random.Generator:
    for observer in COIN_OBSERVERS:
        observer(source, gen)
    return gen


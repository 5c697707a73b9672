"""The privacy budget: one validated, normalised record of (epsilon, delta) for every release.

Implements: the parameters of (epsilon, delta)-differential privacy (DR14 Def 2.4): ``epsilon > 0``
finite, ``0 <= delta < 1``.

Every run of a learner, wrapper, sanitizer or mechanism goes through the release boundary
(:mod:`semiprivate.theory.privacy._release`), which reads the object's budget parameters (``epsilon``,
``delta``, and the wrappers' ``epsilon_score`` / ``epsilon_select``) through :meth:`Budget.of` before the
run starts.  So a budget that is not a real number, or that is NaN, infinite, non-positive (epsilon),
negative or at least 1 (delta), is refused with a ValueError / TypeError naming the parameter and its
value, whatever path set it (constructor or ``set_params``), and the run itself sees the budget as a
Python ``float``:

* any real scalar is accepted: Python and NumPy integers and floats of every width (``np.float16``,
  ``np.float32``, ``np.int64``, ``np.longdouble``), :class:`fractions.Fraction` and other
  :class:`numbers.Real` (NumPy's time types, integers by subclassing, are refused);
* the float is the largest float64 **not above** the given value (exact for every float and for integers
  below 2^53; a Fraction such as 1/3 is rounded down, never up): a release never spends more than the
  budget it was given.  A positive epsilon that rounds to 0 (below the smallest subnormal) is refused.

What a budget does not bound is the work of an algorithm whose cost grows with ``epsilon`` or
``1 / (1 - delta)``; each such algorithm states its own derived range where it computes it:

* the exact discrete Laplace samplers need ``scale = sensitivity / epsilon <= 2^50`` (samples must fit
  in int64): :func:`laplace_scale` refuses a smaller epsilon, naming it;
* DP-SGD's noise calibration (:func:`semiprivate.theory.privacy.accounting.calibrate_noise_multiplier`
  and the multinomial DP-GD's) does not search noise multipliers below the accountant's floor (the PLD
  accountant's privacy-loss grid grows like ``1 / sigma^2``): a budget that the floor already meets is
  spent at the floor, and the run reports the smaller epsilon it meets.

>>> Budget.of(np.float32(0.5), Fraction(1, 4))
Budget(epsilon=0.5, delta=0.25)
>>> Budget.of(float("nan"))
Traceback (most recent call last):
...
ValueError: epsilon must be a finite real number > 0, got nan
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["Budget", "BUDGET_PARAMETERS", "normal_epsilon", "normal_delta", "laplace_scale", "MAX_LAPLACE_SCALE"]

#: The budget parameters the release boundary normalises, by name, and their kind.
BUDGET_PARAMETERS: dict[str, str] = {"epsilon": "epsilon", "delta": "delta", "epsilon_score": "epsilon",
                                     "epsilon_select": "epsilon"}

#: The largest discrete Laplace scale the exact samplers draw from (samples must fit in int64; the bound of
#: :mod:`semiprivate.kernels.noise`).
MAX_LAPLACE_SCALE = 2**50


def _shown(value: Any) -> str:
    try:
        return repr(float(value)) if not isinstance(value, (int, np.integer)) else str(int(value))
    except (OverflowError, TypeError, ValueError):
        return type(value).__name__


def _check_label(name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str (the parameter's name for messages), got {type(name).__name__}")


def _real(value: Any, name: str) -> Fraction | float:
    """The exact value of a real scalar (a Fraction for rationals, the float itself for floats), refusing the
    rest with a TypeError naming ``name``."""
    _check_label(name)
    if (isinstance(value, (bool, np.bool_, np.timedelta64, np.datetime64))
            or not isinstance(value, (numbers.Real, np.integer, np.floating))):
        if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iuf":
            return _real(value[()], name)
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if isinstance(value, (float, np.float64, np.float32, np.float16)):
        return float(value)  # exact in float64
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    # np.longdouble and other reals (e.g. a sympy Float): their exact value where they give it, else the float
    # rounded below them
    f = float(value)
    if not math.isfinite(f):
        return f
    ratio = getattr(value, "as_integer_ratio", None)
    if ratio is not None:
        num, den = ratio()
        return Fraction(int(num), int(den))
    return math.nextafter(f, -math.inf) if f > value else f


def _down(exact: Fraction | float) -> float:
    """The largest float64 not above ``exact`` (+-inf for values beyond the float range)."""
    if isinstance(exact, float):
        return exact
    try:
        out = float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf
    if Fraction(out) > exact:
        out = math.nextafter(out, -math.inf)
    return out


def normal_epsilon(value: Any, name: str = "epsilon") -> float:
    """``value`` as an epsilon: a finite float > 0, not above the given value (module docstring)."""
    exact = _real(value, name)
    if isinstance(exact, float) and math.isnan(exact):
        raise ValueError(f"{name} must be a finite real number > 0, got nan")
    if exact <= 0:
        raise ValueError(f"{name} must be a finite real number > 0, got {_shown(value)}")
    out = _down(exact)
    if math.isinf(out):
        raise ValueError(f"{name} must be a finite real number > 0, got {_shown(value)}")
    if out <= 0.0:
        raise ValueError(f"{name} must be a finite real number > 0, got a positive value below the smallest "
                         "positive float (5e-324)")
    return out


def normal_delta(value: Any, name: str = "delta") -> float:
    """``value`` as a delta: a float in [0, 1), not above the given value (module docstring)."""
    exact = _real(value, name)
    if isinstance(exact, float) and math.isnan(exact):
        raise ValueError(f"{name} must be a real number in [0, 1), got nan")
    if not 0 <= exact < 1:
        raise ValueError(f"{name} must be a real number in [0, 1), got {_shown(value)}")
    return _down(exact)


@dataclass(frozen=True)
class Budget:
    """A validated privacy budget: ``epsilon`` a finite float > 0, ``delta`` a float in [0, 1).

    Build it with :meth:`of`, which accepts any real scalar and normalises it (module docstring); the
    constructor checks that its fields are already normal floats.
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        if type(self.epsilon) is not float or type(self.delta) is not float:
            raise TypeError("Budget fields must be floats: build it with Budget.of(epsilon, delta)")
        normal_epsilon(self.epsilon)
        normal_delta(self.delta)

    @classmethod
    def of(cls, epsilon: Any, delta: Any = 0.0, *, names: tuple[str, str] = ("epsilon", "delta")) -> Budget:
        """The budget of ``epsilon`` and ``delta`` (any real scalars), refusing a bad one with a ValueError
        or TypeError that names it (``names``) and its value."""
        return cls(normal_epsilon(epsilon, names[0]), normal_delta(delta, names[1]))


def laplace_scale(sensitivity: Any, epsilon: Any, name: str = "epsilon") -> Fraction:
    """The exact discrete Laplace scale ``sensitivity / epsilon`` as a rational, refusing (naming ``name``) an
    epsilon so small that the scale passes :data:`MAX_LAPLACE_SCALE` (the exact sampler's int64 range).

    >>> laplace_scale(2, 0.5)
    Fraction(4, 1)
    """
    eps = normal_epsilon(epsilon, name)
    scale = Fraction(sensitivity) / Fraction(eps)
    if scale > MAX_LAPLACE_SCALE:
        low = float(Fraction(sensitivity) / MAX_LAPLACE_SCALE)
        raise ValueError(f"{name}={eps!r} is below the range the exact discrete Laplace sampler supports: the "
                         f"noise scale sensitivity / {name} must be <= 2^50 (its samples must fit in int64), so "
                         f"{name} must be >= {low:.6g} here")
    return scale

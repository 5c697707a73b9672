"""Every bound of the four papers as a function, a sympy form, a solver and a registry entry.

Modules (one per paper): :mod:`~semiprivate.theory.bounds.abm19`, :mod:`~semiprivate.theory.bounds.bns15`,
:mod:`~semiprivate.theory.bounds.hpsy`, :mod:`~semiprivate.theory.bounds.pillar` (BST14 noisy SGD + PILLAR),
:mod:`~semiprivate.theory.bounds.classic` (BNS15 App. A/B, KLNRS, HPSY Sec 3.3 baselines), plus
:mod:`~semiprivate.theory.bounds.privacy` (BNS15 privacy transformers) and
:mod:`~semiprivate.theory.bounds.compare` (comparison tables).  The command line is
``python -m semiprivate bound`` (:mod:`semiprivate.theory.bounds.cli`).

The registry maps a SPEC-style id to a :class:`Bound` (description, parameters with their
constraints, function, sympy form, solvers, monotonicity):

>>> from semiprivate.theory.bounds import get_bound, evaluate, solve
>>> sorted(get_bound("ABM19.Lem3.3").solvers)
['n_pub']
>>> solve("ABM19.Lem3.3", "n_pub", vc_dim=10, alpha=0.05, beta=0.01)
14815
>>> evaluate("HPSY.Sec3.3.BST14", dim=100, alpha=0.1, epsilon=1.0)
100

Parameter vocabulary (one name per meaning across the four papers; the papers' own letters in brackets):

==================  ==========================================================================
``vc_dim``          VC dimension of the concept class (ABM19's d, BNS15's VC)
``bits``            bits per domain point, X = {0,1}^bits (BNS15 Thm 3.3's d, Cor 4.17's d)
``dim``             ambient dimension of the domain, R^dim or {0,1}^dim; for HPSY also the number
                    of variables, i.e. of graph vertices (HPSY's and the Sec 3.3 baselines' d)
``k``               projection dimension (HPSY, PILLAR)
``ell``             number of axes of a rectangle (BNS15 Cor 4.17), Karger's l (HPSY)
``n_hypotheses``    size of a finite class, |H| (BNS15 App. A, B)
``gap``             the exponential mechanism's error gap Delta (BNS15 Prop A.1); ``delta`` is
                    always the privacy parameter
``alpha, beta``     accuracy and confidence; ``epsilon, delta`` privacy
``n_pub, n_priv``   public (unlabelled) and private (labelled) sample sizes (ABM19);
                    ``n, m`` total and labelled sizes (BNS15)
==================  ==========================================================================

The old names ``d``, ``vc`` and ``h_size`` still work, with a :class:`DeprecationWarning` naming the
new one (``d`` maps to ``bits`` where the bound has it, else ``dim``, else ``vc_dim``).

Results say what they are: a sample size is a :class:`~semiprivate.theory.bounds._core.SampleSize`
(an ``int`` with ``vacuous`` and ``reason``), a probability bound a
:class:`~semiprivate.theory.bounds._core.ProbabilityBound` (a ``float``, vacuous when >= 1), and a
learner a theorem builds (:class:`~semiprivate.theory.bounds.bns15.LearnerParams`) carries
``alpha_factor`` / ``beta_factor`` when its accuracy is not the one given:

>>> r = evaluate("BNS15.Lem4.12", vc_dim=1, alpha=0.01, beta=0.1, n=1000)
>>> r.alpha, r.alpha_factor
(0.11, 11.0)
>>> n = evaluate("ABM19.Thm3.1.n_priv", vc_dim=10, alpha=0.1, beta=0.05, epsilon=1e-300)
>>> n.vacuous
True

Conventions: natural logs; sample sizes are ints rounded up; O(.)-only results take
``constant`` (default 1); a failed hypothesis raises
:class:`semiprivate.theory.validity.ConditionNotMet` (``strict=False`` returns a ``Checked``).
"""

from __future__ import annotations

import warnings
from typing import Any

from semiprivate.theory.bounds import abm19, bns15, classic, hpsy, pillar, privacy  # noqa: F401  (fill the registry)
from semiprivate.theory.bounds._core import REGISTRY, Bound, Param, Solver, renamed_to, smallest_integer

__all__ = [
    "Bound",
    "Param",
    "Solver",
    "REGISTRY",
    "list_bounds",
    "get_bound",
    "evaluate",
    "solve",
    "smallest_integer",
    "UnknownBoundError",
    "check_param_names",
]


def list_bounds() -> list[Bound]:
    """All registered bounds, sorted by id.

    >>> len(list_bounds()) > 50
    True
    """
    return [REGISTRY[k] for k in sorted(REGISTRY)]


class UnknownBoundError(KeyError, ValueError):
    """An id that is not in the registry (a :class:`KeyError` for dict-like use, and a
    :class:`ValueError`: a bad value of ``bound_id``)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def get_bound(bound_id: str) -> Bound:
    """The bound registered under ``bound_id`` (:class:`UnknownBoundError` listing close ids otherwise).

    >>> get_bound("HPSY.Lem2").id
    'HPSY.Lem2'
    >>> get_bound("ABM19.Lem9.9")
    Traceback (most recent call last):
    ...
    semiprivate.theory.bounds.UnknownBoundError: bound_id: unknown bound id 'ABM19.Lem9.9'; ids of that paper: ...
    """
    if not isinstance(bound_id, str):
        raise TypeError(f"bound_id must be a string such as 'ABM19.Lem3.3', got {bound_id!r} ({type(bound_id).__name__})")
    if bound_id in REGISTRY:
        return REGISTRY[bound_id]
    folded = {k.lower(): k for k in REGISTRY}
    if bound_id.lower() in folded:
        raise UnknownBoundError(f"bound_id: unknown bound id {bound_id!r}; ids are case-sensitive: did you mean "
                                f"{folded[bound_id.lower()]!r}?")
    close = [k for k in REGISTRY if k.lower().startswith(bound_id.lower().split(".")[0])]
    raise UnknownBoundError(f"bound_id: unknown bound id {bound_id!r}" + (
        f"; ids of that paper: {', '.join(sorted(close))}" if close
        else "; see list_bounds() or python -m semiprivate bound --list"))


#: Spellings users try for a parameter that a bound names differently.
_SYNONYMS = {"vc": ("vc_dim",), "d": ("bits", "dim", "vc_dim"), "h": ("n_hypotheses",), "h_size": ("n_hypotheses",),
             "delta": ("gap",), "dimension": ("dim",), "eps": ("epsilon",), "epsilon": ("eps",),
             "n_public": ("n_pub",), "n_private": ("n_priv",)}


def check_param_names(bound_id: str, params: Any, given: Any) -> None:
    """TypeError naming the bound and the accepted spelling for every name in ``given`` that is
    not one of ``params`` (a sequence of :class:`Param`); names are case-sensitive.

    >>> check_param_names("ABM19.Lem3.3", get_bound("ABM19.Lem3.3").params, ["VC"])
    Traceback (most recent call last):
    ...
    TypeError: ABM19.Lem3.3 has no parameter 'VC' (did you mean 'vc_dim'?); its parameters: n_pub, vc_dim, alpha
    """
    if not isinstance(bound_id, str):
        raise TypeError(f"bound_id must be a string, got {type(bound_id).__name__}")
    if not isinstance(params, (list, tuple)) or not all(isinstance(p, Param) for p in params):
        raise TypeError(f"params must be a sequence of Param (a bound's .params), got {type(params).__name__}")
    if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
        raise TypeError(f"given must be an iterable of parameter names, got {type(given).__name__}")
    names = [p.name for p in params]
    for key in given:
        if key in names:
            continue
        guesses = [n for n in names if n.lower() == str(key).lower()]
        guesses += [n for alt in _SYNONYMS.get(str(key).lower(), ()) for n in names if n == alt]
        if not guesses:
            import difflib

            guesses = difflib.get_close_matches(str(key), names, n=1)
        hint = f" (did you mean {guesses[0]!r}?)" if guesses else ""
        raise TypeError(f"{bound_id} has no parameter {key!r}{hint}; its parameters: {', '.join(names)}")


def _renamed(params: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Map deprecated parameter names (``RENAMED_PARAMS``) to the bound's names, with a DeprecationWarning."""
    names = [p.name for p in params]
    out = dict(kwargs)
    for old in list(out):
        new = renamed_to(old, names)
        if new is None:
            continue
        if new in out:
            raise TypeError(f"got both {old!r} (deprecated) and {new!r}; give {new!r} only")
        warnings.warn(f"parameter {old!r} is deprecated, use {new!r}", DeprecationWarning, stacklevel=3)
        out[new] = out.pop(old)
    return out


def _call(bound_id: str, params: Any, function: Any, kwargs: dict[str, Any]) -> Any:
    from semiprivate.theory.bounds._core import BoundOverflowError

    kwargs = _renamed(params, kwargs)
    check_param_names(bound_id, params, kwargs)
    for p in params:  # an integer beyond float range makes the formulas fail with a message naming nothing
        v = kwargs.get(p.name)
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**1023:
            raise ValueError(f"{p.name} is too large for {bound_id}: the formulas are evaluated in floats "
                             f"(at most about 1.8e308), got an integer with {len(str(abs(v)))} digits")
    try:
        return function(**kwargs)
    except BoundOverflowError as exc:
        raise BoundOverflowError(f"{bound_id}: {exc} (parameters: {_shown(kwargs)})") from None
    except (ZeroDivisionError, OverflowError) as exc:
        raise BoundOverflowError(f"{bound_id} cannot be evaluated in floats for {_shown(kwargs)} ({exc}): "
                                 "a parameter is too close to 0 or too large for the formula") from None


def _shown(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" if len(repr(v)) <= 20 else f"{k}=<{len(repr(v))} characters>"
                     for k, v in kwargs.items())


def evaluate(bound_id: str, **params: Any) -> Any:
    """Evaluate a registered bound with keyword parameters.

    Unknown or misspelt parameter names raise TypeError naming the bound and the accepted
    spelling; a value that does not fit the float formulas raises
    :class:`~semiprivate.theory.bounds._core.BoundOverflowError` (a ValueError) naming the parameters.
    """
    b = get_bound(bound_id)
    return _call(b.id, b.params, b.function, params)


def solve(bound_id: str, name: str, **params: Any) -> Any:
    """Run the solver of ``bound_id`` for parameter ``name`` (same errors as :func:`evaluate`)."""
    b = get_bound(bound_id)
    if name not in b.solvers:
        raise UnknownBoundError(f"name: {bound_id} cannot be solved for {name!r}; solvable: "
                                f"{sorted(b.solvers) or 'none'}")
    solver = b.solvers[name]
    return _call(b.id, solver.params, solver.function, params)

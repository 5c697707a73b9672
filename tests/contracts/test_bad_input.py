"""Bad input to the public API, one parameter at a time: generic bad values (fuzz) and every
invalid example a declared constraint lists.

Fuzz:

Discovery is by introspection, not a hand list: every module and package under ``theory``
and ``kernels`` is imported, and every callable named in its ``__all__`` (functions and
classes; a class is called through its constructor) is collected.  New modules written
later are picked up automatically.

For each parameter of each callable (``*args`` / ``**kwargs`` excluded) the test calls the
callable with ONE bad value for that parameter and every other required parameter filled
with a plausible value (the declared constraint's ``valid_example`` where the callable
declares constraints with :func:`semiprivate.validation.validate_params`, else a value chosen by
the parameter's name in :data:`FILL`, else ``None``); optional parameters keep their
defaults.  Bad values:

* ``object()`` -- a wrong type -- for every parameter, except parameters that accept any
  object by design (annotation ``Any`` / ``object``, or listed in :data:`ANY_OBJECT`);
* ``nan`` for every numeric parameter (annotation ``int`` / ``float``, a numeric default,
  or a ``Real`` / ``Integer`` constraint);
* ``-1`` and ``inf`` for numeric parameters that are non-negative and finite by meaning
  (a constraint whose interval excludes them, or a name in :data:`NONNEGATIVE`).

The call must raise ``TypeError`` or ``ValueError`` whose message names the parameter (as a
word).  A call that instead raises an error naming *another* parameter is inconclusive (the
filler for that parameter was not valid, so the bad value was never reached) and is counted,
not failed -- unless the bad value itself shows in that error (``object()``'s repr, or ``nan``):
then it was used unchecked, and the call fails.  The count is capped (:data:`MAX_INCONCLUSIVE`,
a ratchet), and the fillers include callables, datasets and pairs so that few calls stop early; a call that returns, raises another exception type, raises an error that names
no parameter of the callable, or runs longer than :data:`CALL_SECONDS` fails.

Nothing runs long: a bad value must be rejected up front, and each call is interrupted
after :data:`CALL_SECONDS`.  ``test_coverage_summary`` prints how many callables and
parameters were covered.

Skipped, with the reason: exception classes, NamedTuples, dataclasses and enums (records
the library builds and returns, not entry points), abstract classes and protocols, and
callables without an inspectable signature.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import importlib.util
import inspect
import math
import pkgutil
import re
import signal
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from semiprivate.validation import Constraint, Integer, Optional, Real, registered_functions

PACKAGES = ["semiprivate.validation", "semiprivate.theory", "semiprivate.kernels"]
#: Seconds a single call may take before it counts as "not rejected up front".
CALL_SECONDS = 2.0

#: Parameters that are non-negative (and finite) by meaning: -1 and inf must be rejected.
NONNEGATIVE = re.compile(
    r"^(epsilon|eps|delta|alpha|beta|gamma|eta|sigma|sensitivity|confidence|constant|d|vc_dim|bits|dim|k|n|m|size|"
    r"trials|"
    r"n_[a-z_]+|[a-z_]+_size|[a-z_]+_trials|n|repeats|iterations|n_categories|batch_size|p|p_min|"
    r"lipschitz|diameter|learning_rate|noise_multiplier|clip|clip_norm|max_examples|max_size|min_size)$"
)

#: (callable qualname, parameter) pairs that take any object by design (documented reason each).
ANY_OBJECT: dict[tuple[str, str], str] = {
}

#: Plausible values for required parameters, by name (only used to reach the bad value).
def _fill(name: str, qual: str = "") -> Any:
    from semiprivate.theory.classes import Thresholds

    table: dict[str, Callable[[], Any]] = {
        "epsilon": lambda: 1.0, "eps": lambda: 1.0, "delta": lambda: 1e-5, "alpha": lambda: 0.1,
        "beta": lambda: 0.1, "gamma": lambda: 0.5, "eta": lambda: 1e-3, "sigma": lambda: 1.0,
        "confidence": lambda: 0.95, "sensitivity": lambda: 1.0, "d": lambda: 4, "vc_dim": lambda: 2,
        "bits": lambda: 4, "dim": lambda: 4, "k": lambda: 2, "n": lambda: 8,
        "m": lambda: 8, "size": lambda: 4, "trials": lambda: 100, "rng": lambda: 0, "seed": lambda: 0,
        "n_pub": lambda: 16, "n_priv": lambda: 16, "concept_class": lambda: Thresholds(8),
        "X": lambda: np.arange(8), "y": lambda: np.array([0, 1] * 4), "X_private": lambda: np.arange(8),
        "y_private": lambda: np.array([0, 1] * 4), "X_public": lambda: np.arange(8),
        "scores": lambda: np.zeros(4), "p": lambda: 0.1, "q": lambda: 0.1, "value": lambda: 0.5,
        "k_num": lambda: 3, "k_other": lambda: 1, "lam": lambda: 1.0,
        "ds": lambda: [10, 100], "argv": lambda: [], "name": lambda: "x",
        # callables and structured inputs, so that the bad value of ANOTHER parameter is reached
        "mechanism": lambda: (lambda data, size, rng: rng.laplace(size=size) + float(np.sum(data))),
        "data": lambda: np.zeros(4), "neighbour": lambda: np.ones(4),
        "pairs": lambda: [(np.zeros(4), np.ones(4))], "rows": lambda: [{"a": 1.0}, {"a": 2.0}],
        "fn": lambda: (lambda rng: 0.0), "predicate": lambda: (lambda n: n >= 3), "lo": lambda: 0,
        "learner": _learner, "base_learner": _learner,
        "x": lambda: np.arange(16.0).reshape(8, 2), "norms": lambda: np.ones(8), "log_weights": lambda: np.zeros(4),
        "Z": lambda: np.ones((8, 4)), "length": lambda: 8, "bound_id": lambda: "ABM19.Lem3.3",
        "mean": lambda: np.zeros(2), "scale": lambda: np.ones(2), "coef": lambda: np.zeros(2),
        "intercept": lambda: 0.0, "condition": lambda: True, "batches": lambda: [(1,)], "entries": lambda: importlib.import_module("semiprivate.theory.spec").build_index(tests=False),
    }
    for (prefix, pname), factory in FILL_FOR.items():
        if pname == name and qual.startswith(prefix):
            return factory()
    return table[name]() if name in table else None


def _learner() -> Any:
    from sklearn.dummy import DummyClassifier

    return DummyClassifier()


#: Fillers that depend on the callable (qualname prefix, parameter): the name-based one is not valid there.
FILL_FOR: dict[tuple[str, str], Callable[[], Any]] = {
    ("semiprivate.theory.privacy.linear.", "y"): lambda: np.array([-1.0, 1.0] * 4),
    ("semiprivate.theory.privacy.noisy_sgd.", "y"): lambda: np.array([-1.0, 1.0] * 4),
    ("semiprivate.theory.privacy.dpsgd.", "y"): lambda: np.array([-1.0, 1.0] * 4),
    ("semiprivate.theory.privacy.pillar_selection.", "y"): lambda: np.array([-1.0, 1.0] * 4),
    ("semiprivate.theory.graphs.", "X"): lambda: np.array([[0, 1], [1, 0]] * 4),
    ("semiprivate.theory.learners.pipeline.", "steps"): lambda: [("clf", _learner())],
}


#: deprecated names of modules found under their own name (importing them warns)
DEPRECATED_NAMES = frozenset({"semiprivate.kernels.validation"})


def _walk(package: str, *, private: bool = False) -> Iterator[str]:
    """The modules of ``package``.  ``private=False``: public modules only (a name part starting
    with ``_``, e.g. ``semiprivate.kernels._reference``, ``semiprivate.theory.bounds._core``, is
    skipped -- what they export publicly is re-exported by a public module and found there);
    ``private=True``: every module but ``__main__`` (a constraint may be declared in a private one)."""
    pkg = importlib.import_module(package)
    yield package
    for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), prefix=package + "."):
        if ".__main__" in info.name or info.name in DEPRECATED_NAMES:
            continue
        if not private and any(part.startswith("_") for part in info.name.split(".")):
            continue
        if info.name.startswith("semiprivate.kernels._cupy") and importlib.util.find_spec("cupy") is None:
            continue
        yield info.name


def _skip_reason(obj: Any) -> str:
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return "exception class"
        if issubclass(obj, tuple) and hasattr(obj, "_fields"):
            return "NamedTuple record"
        if dataclasses.is_dataclass(obj):
            return "dataclass record"
        if issubclass(obj, enum.Enum):
            return "enum"
        if inspect.isabstract(obj) or getattr(obj, "_is_protocol", False):
            return "abstract class / protocol"
    try:
        inspect.signature(obj)
    except (TypeError, ValueError):
        return "no inspectable signature"
    return ""


def _public_callables() -> tuple[list[tuple[str, Any]], dict[str, str]]:
    found: dict[int, tuple[str, Any]] = {}
    skipped: dict[str, str] = {}
    for package in PACKAGES:
        for modname in _walk(package):
            module = importlib.import_module(modname)
            for attr in getattr(module, "__all__", ()):
                obj = getattr(module, attr, None)
                if obj is None or not callable(obj) or id(obj) in found:
                    continue
                home = getattr(obj, "__module__", "") or ""
                if not home.startswith(PACKAGES_PREFIX):
                    continue  # re-exported from another library
                qual = f"{home}.{getattr(obj, '__qualname__', attr)}"
                reason = _skip_reason(obj)
                if reason:
                    skipped[qual] = reason
                    continue
                found[id(obj)] = (qual, obj)
    return sorted(found.values(), key=lambda t: t[0]), skipped


PACKAGES_PREFIX = tuple(p + "." for p in PACKAGES) + tuple(PACKAGES)


def _constraints(obj: Any) -> dict[str, Constraint]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    return dict(getattr(target, "__constraints__", {}) or {})


def _annotation(p: inspect.Parameter) -> str:
    a = p.annotation
    if a is inspect.Parameter.empty:
        return ""
    return a if isinstance(a, str) else getattr(a, "__name__", str(a))


def _is_numeric(p: inspect.Parameter, c: Constraint | None) -> bool:
    inner = c.inner if isinstance(c, Optional) else c
    if isinstance(inner, (Real, Integer)):
        return True
    if c is not None:
        return False  # declared as something else (array, options, callable, ...)
    ann = _annotation(p).replace(" ", "")
    if ann:
        parts = set(ann.split("|")) - {"None"}
        return bool(parts) and parts <= {"int", "float", "Real", "Integral"}
    d = p.default
    return isinstance(d, (int, float)) and not isinstance(d, bool) and d is not inspect.Parameter.empty


def _bad_values(qual: str, p: inspect.Parameter, c: Constraint | None) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    ann = _annotation(p).replace(" ", "")
    takes_anything = ann in ("Any", "object", "Any|None") or (qual, p.name) in ANY_OBJECT
    if not takes_anything:
        out.append(("object()", object()))
    if _is_numeric(p, c):
        out.append(("nan", math.nan))
        inner = c.inner if isinstance(c, Optional) else c
        if isinstance(inner, Real):
            if inner.low >= 0:
                out.append(("-1", -1.0))
            if not inner.allow_inf:
                out.append(("inf", math.inf))
        elif isinstance(inner, Integer):
            if inner.low is not None and inner.low >= 0:
                out.append(("-1", -1))
            out.append(("inf", math.inf))
        elif NONNEGATIVE.match(p.name):
            out += [("-1", -1), ("inf", math.inf)]
    return out


def _is_strategy(value: Any) -> bool:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:  # pragma: no cover - hypothesis is a runtime dependency
        return False
    return isinstance(value, SearchStrategy)


class _Timeout(BaseException):  # not an Exception: code under test that catches Exception must not swallow it
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


def _call(obj: Any, args: list[Any], kwargs: dict[str, Any]) -> BaseException | None:
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = obj(*args, **kwargs)
            if _is_strategy(out):  # hypothesis strategies check their arguments when drawn
                out.example()
    except BaseException as exc:  # noqa: BLE001 - classified by the caller
        if isinstance(exc, KeyboardInterrupt):
            raise
        return exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return None


def _shows_bad_value(text: str, label: str, value: Any) -> bool:
    """The bad value was reached and used unchecked: its repr appears in an error about another
    parameter (``y must have <object object at 0x..> entries``).  Only for ``object()`` (a unique
    repr) and ``nan`` (as a word); ``-1`` and ``inf`` occur in ordinary messages (``(0, inf)``)."""
    if label == "object()":
        return repr(value) in text
    if label == "nan":
        return re.search(r"(?<![A-Za-z0-9_])nan(?![A-Za-z0-9_])", text) is not None
    return False


def _cases() -> tuple[list[Any], dict[str, int]]:
    callables, skipped = _public_callables()
    cases = []
    n_params = 0
    for qual, obj in callables:
        sig = inspect.signature(obj)
        cons = _constraints(obj)
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
                continue
            bad = _bad_values(qual, p, cons.get(p.name))
            if not bad:
                continue
            n_params += 1
            cases.append(pytest.param(qual, obj, p.name, bad, id=f"{qual}-{p.name}"))
    stats = {"callables": len(callables), "skipped": len(skipped), "parameters": n_params,
             "calls": sum(len(c.values[3]) for c in cases)}
    return cases, stats


CASES, STATS = _cases()
INCONCLUSIVE: list[str] = []


@pytest.fixture(scope="module")
def _write_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bad_input")


@pytest.fixture
def write_dir(_write_root: Path) -> Path:
    """An empty folder of the test's own (a plain ``mkdtemp`` in one folder of the module: pytest's ``tmp_path``
    makes a numbered folder per test, ~1.5 ms of CPU each over the ~1,300 tests here)."""
    return Path(tempfile.mkdtemp(dir=_write_root))


@pytest.mark.parametrize(("qual", "obj", "pname", "bad"), CASES)
def test_bad_value_is_rejected_naming_the_parameter(qual: str, obj: Any, pname: str,
                                                    bad: list[tuple[str, Any]], write_dir: Path,
                                                    monkeypatch: pytest.MonkeyPatch, names_word: Callable[[str, str], bool]) -> None:
    monkeypatch.chdir(write_dir)  # a callable that writes files writes them here
    sig = inspect.signature(obj)
    cons = _constraints(obj)
    others = [p.name for p in sig.parameters.values() if p.name != pname]
    failures = []
    for label, value in bad:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.name == pname:
                v = value
            elif p.default is not p.empty:
                continue
            elif p.name in cons:
                v = cons[p.name].valid_example()
            else:
                v = _fill(p.name, qual)
            if p.kind == p.POSITIONAL_ONLY:
                args.append(v)
            else:
                kwargs[p.name] = v
        exc = _call(obj, args, kwargs)
        if isinstance(exc, _Timeout):
            failures.append(f"{pname}={label}: not rejected within {CALL_SECONDS} s")
        elif exc is None:
            failures.append(f"{pname}={label}: accepted (no error)")
        elif not isinstance(exc, (TypeError, ValueError)):
            failures.append(f"{pname}={label}: {type(exc).__name__}: {exc}")
        elif not names_word(str(exc), pname):
            if _shows_bad_value(str(exc), label, value):
                failures.append(f"{pname}={label}: used unchecked (its value appears in the error about another "
                                f"parameter): {type(exc).__name__}: {exc}")
            elif any(names_word(str(exc), o) for o in others):
                INCONCLUSIVE.append(f"{qual}({pname}={label}): stopped at another parameter: {exc}")
            else:
                failures.append(f"{pname}={label}: {type(exc).__name__} does not name {pname!r}: {exc}")
    assert not failures, f"{qual}: " + "; ".join(failures)


def test_coverage_summary() -> None:
    """Runs after the parametrized test (file order): how much was covered."""
    print(f"\nfuzzed {STATS['callables']} public callables ({STATS['skipped']} skipped: records, exceptions, "
          f"abstract), {STATS['parameters']} parameters, {STATS['calls']} bad-value calls; "
          f"{len(INCONCLUSIVE)} inconclusive calls (stopped at another parameter's filler)")
    assert STATS["callables"] > 100 and STATS["parameters"] > 300


# ---------------------------------------------------------------------------------------------
# declared constraints: every invalid example of every constraint declared with validate_params
# ---------------------------------------------------------------------------------------------
# Every public function and class constructor of kernels, theory and proofs_checks (private
# modules included) that declares constraints with validate_params, and every function the
# validation module registered: for each constrained parameter and each invalid value its
# constraint lists, a call with every other constrained required parameter set to a valid example
# (unconstrained required parameters get None: the declared checks run before the body) must raise
# TypeError or ValueError naming the parameter.

DECLARED_PACKAGES = ["semiprivate.validation", "semiprivate.kernels", "semiprivate.theory", "semiprivate.proofs_checks"]


def _constrained() -> list[tuple[str, Callable[..., Any]]]:
    seen: dict[int, tuple[str, Callable[..., Any]]] = {}
    for package in DECLARED_PACKAGES:
        for name in _walk(package, private=True):
            module = importlib.import_module(name)
            for attr, obj in vars(module).items():
                if attr.startswith("_"):
                    continue
                target = obj.__init__ if inspect.isclass(obj) else obj
                if callable(target) and hasattr(target, "__constraints__"):
                    seen[id(target)] = (f"{getattr(obj, '__module__', name)}.{getattr(obj, '__qualname__', attr)}", obj)
    for fn in registered_functions():
        qual = f"{fn.__module__}.{fn.__qualname__}"
        if not qual.rsplit(".", 1)[-1].startswith("_") and "<locals>" not in qual:
            seen.setdefault(id(fn), (qual, fn))
    return sorted(seen.values(), key=lambda t: t[0])


def _declared_cases() -> list[Any]:
    """One case per constrained parameter of each function: (function, parameter, every invalid value its
    constraint lists), each value called separately by the test."""
    cases = []
    for qual, obj in _constrained():
        target = obj.__init__ if inspect.isclass(obj) else obj
        for pname, constraint in target.__constraints__.items():
            bads = list(constraint.invalid_examples())
            if bads:
                cases.append(pytest.param(obj, pname, bads, id=f"{qual}-{pname}"))
    return cases


DECLARED_CASES = _declared_cases()


def test_some_functions_declare_constraints() -> None:
    assert DECLARED_CASES, "no public function declares constraints: the generic test would check nothing"


@pytest.mark.parametrize(("obj", "pname", "bads"), DECLARED_CASES)
def test_declared_invalid_value_is_rejected_naming_the_parameter(obj: Any, pname: str, bads: list[Any],
                                                                   names_word: Callable[[str, str], bool]) -> None:
    """Each invalid value the constraint of ``pname`` lists, alone (every other required parameter valid), is
    refused with a TypeError or ValueError naming ``pname``; the failures of all values are reported together."""
    failures = []
    for i, bad in enumerate(bads):
        problem = _declared_value_problem(obj, pname, bad, names_word)
        if problem:
            failures.append(f"invalid value #{i} ({type(bad).__name__}): {problem}")
    assert not failures, f"{pname}:\n" + "\n".join(failures)


def _declared_value_problem(obj: Any, pname: str, bad: Any, names_word: Callable[[str, str], bool]) -> str:
    """'' when calling ``obj`` with ``pname = bad`` raises TypeError/ValueError naming ``pname``, else what happened
    (any other exception propagates, as it would from the call)."""
    is_class = inspect.isclass(obj)
    target = obj.__init__ if is_class else obj
    sig = inspect.signature(target)
    constraints = target.__constraints__
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    params = list(sig.parameters.values())
    if is_class:
        params = params[1:]  # self
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name == pname:
            value = bad
        elif p.default is not p.empty:
            continue
        elif p.name in constraints:
            value = constraints[p.name].valid_example()
        else:
            value = None
        if p.kind == p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[p.name] = value
    try:
        obj(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        # The parameter's name must appear as a word (a substring check would let 'n' match "integer").
        return "" if names_word(str(exc), pname) else f"the error does not name {pname!r}: {exc}"
    return "accepted (no TypeError or ValueError)"

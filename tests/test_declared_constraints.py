"""The ONE generic invalid-input test.

Imports every module of ``kernels``, ``theory`` and ``proofs_checks``, collects every public
function and class constructor that declares constraints with
:func:`semiprivate.kernels.validation.validate_params`, and, for each constrained parameter and each
invalid value its constraint lists, calls it with every other constrained required
parameter set to a valid example (unconstrained required parameters get ``None``: the
declared checks run before the body, so they are never reached).  Each call must raise
TypeError or ValueError naming the parameter.  New public functions are picked up
automatically.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from semiprivate.kernels.validation import registered_functions

PACKAGES = ["semiprivate.kernels", "semiprivate.theory", "semiprivate.proofs_checks"]


def _walk(package: str) -> Iterator[str]:
    pkg = importlib.import_module(package)
    yield package
    for info in pkgutil.walk_packages(pkg.__path__, prefix=package + "."):
        if ".__main__" in info.name:
            continue
        if info.name.startswith("semiprivate.kernels._cupy") and importlib.util.find_spec("cupy") is None:
            continue
        yield info.name


def _constrained() -> list[tuple[str, Callable[..., Any]]]:
    seen: dict[int, tuple[str, Callable[..., Any]]] = {}
    for package in PACKAGES:
        for name in _walk(package):
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


def _cases() -> list[Any]:
    cases = []
    for qual, obj in _constrained():
        target = obj.__init__ if inspect.isclass(obj) else obj
        for pname, constraint in target.__constraints__.items():
            for i, bad in enumerate(constraint.invalid_examples()):
                cases.append(pytest.param(obj, pname, bad, id=f"{qual}-{pname}-{i}"))
    return cases


CASES = _cases()


def test_some_functions_declare_constraints() -> None:
    assert CASES, "no public function declares constraints: the generic test would check nothing"


@pytest.mark.parametrize(("obj", "pname", "bad"), CASES)
def test_invalid_value_is_rejected_naming_the_parameter(obj: Any, pname: str, bad: Any) -> None:
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
    with pytest.raises((TypeError, ValueError)) as info:
        obj(*args, **kwargs)
    # The parameter's name must appear as a word (a substring check would let 'n' match "integer").
    assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(pname)}(?![A-Za-z0-9_])", str(info.value)), (
        f"error does not name {pname!r}: {info.value}"
    )

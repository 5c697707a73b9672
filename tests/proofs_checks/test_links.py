"""A link to ``semiprivate.theory.bounds`` that cannot be imported is an error, never "link not checked"."""

from __future__ import annotations

import importlib

import pytest
from semiprivate.proofs_checks import _links


def _fail_bounds_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def fake(name: str, package: str | None = None):  # type: ignore[no-untyped-def]
        if name.startswith("semiprivate.theory.bounds."):
            raise ImportError(f"No module named {name!r} (simulated)")
        return real(name, package)

    monkeypatch.setattr(_links.importlib, "import_module", fake)


def test_bounds_module_raises_when_not_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_bounds_imports(monkeypatch)
    with pytest.raises(_links.LinkUnavailable, match="bns15"):
        _links.bounds_module("bns15")


def test_bounds_module_returns_the_module() -> None:
    assert _links.bounds_module("bns15").__name__ == "semiprivate.theory.bounds.bns15"


@pytest.mark.parametrize(("module", "fn"), [("bns15_prop_a1", "check_prop_a1"), ("pillar_lem1", "check_cor6"),
                                            ("bns15_thm5_5", "check_thm55")])
def test_a_check_with_an_unimportable_link_fails(monkeypatch: pytest.MonkeyPatch, module: str, fn: str) -> None:
    mod = importlib.import_module(f"semiprivate.proofs_checks.{module}")
    _fail_bounds_imports(monkeypatch)
    with pytest.raises(AssertionError, match="cannot be imported"):
        getattr(mod, fn)()

"""Consistent parameter names: |H| is ``n_hypotheses`` everywhere (BNS15 Prop A.1, KLNRS); the old
``h_size`` still works, with a DeprecationWarning, in the functions, the registry and the CLI."""

from __future__ import annotations

import pytest
from semiprivate.theory.bounds import evaluate
from semiprivate.theory.bounds.bns15 import expmech_failure_probability, expmech_sample_size
from semiprivate.theory.bounds.classic import klnrs_sample_size
from semiprivate.theory.bounds.cli import main


def test_new_name_is_accepted_everywhere() -> None:
    assert expmech_sample_size(n_hypotheses=1000, epsilon=1.0, gap=0.1, beta=0.05) == expmech_sample_size(
        1000, 1.0, 0.1, 0.05)
    assert klnrs_sample_size(n_hypotheses=1024, alpha=0.1, beta=0.05, epsilon=1.0) == klnrs_sample_size(
        1024, 0.1, 0.05, 1.0)
    assert evaluate("BNS15.PropA.1", n_hypotheses=1000, epsilon=1.0, gap=0.1, m=200) == expmech_failure_probability(
        1000, 1.0, 0.1, 200)


def test_old_name_warns_and_gives_the_same_value() -> None:
    with pytest.warns(DeprecationWarning, match="'h_size' is deprecated, use 'n_hypotheses'"):
        old = expmech_sample_size(h_size=1000, epsilon=1.0, gap=0.1, beta=0.05)
    assert old == expmech_sample_size(1000, 1.0, 0.1, 0.05)
    with pytest.warns(DeprecationWarning, match="h_size"):
        assert klnrs_sample_size(h_size=1024, alpha=0.1, beta=0.05, epsilon=1.0) == klnrs_sample_size(
            1024, 0.1, 0.05, 1.0)
    with pytest.warns(DeprecationWarning, match="h_size"):
        assert evaluate("BNS15.PropA.1", h_size=1000, epsilon=1.0, gap=0.1, m=200) == expmech_failure_probability(
            1000, 1.0, 0.1, 200)
    with pytest.raises(TypeError, match="both"):
        expmech_sample_size(n_hypotheses=1000, h_size=1000, epsilon=1.0, gap=0.1, beta=0.05)  # type: ignore[call-arg]


def test_cli_maps_the_old_name_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["BNS15.PropA.1", "h_size=1000", "epsilon=1", "gap=0.1", "m=200"]) == 0
    captured = capsys.readouterr()
    assert "deprecated, use 'n_hypotheses'" in captured.err and "BNS15.PropA.1: value" in captured.out


def _public_functions_with(name: str) -> list[object]:
    import inspect

    from semiprivate.theory.bounds import bns15, classic

    out = []
    for mod in (bns15, classic):
        for attr in mod.__all__:
            f = getattr(mod, attr)
            if callable(f) and not isinstance(f, type):
                try:
                    if name in inspect.signature(f).parameters:
                        out.append(f)
                except (TypeError, ValueError):
                    continue
    return out


def test_vc_is_vc_dim_everywhere_and_the_old_name_warns() -> None:
    funcs = _public_functions_with("vc_dim")
    assert len(funcs) >= 20
    for f in funcs:
        with pytest.warns(DeprecationWarning, match="'vc' is deprecated, use 'vc_dim'"):
            try:
                f(vc=1)  # type: ignore[operator]
            except TypeError:
                pass  # the other parameters are missing: the rename happened first
    assert not _public_functions_with("vc")


"""One parameter name per meaning across the bound modules: ``vc_dim`` for a VC dimension (ABM19's
``d``), ``bits`` for bits per point (BNS15 Thm 3.3 / Cor 4.17's ``d``), ``dim`` for an ambient
dimension (HPSY's and the Sec 3.3 baselines' ``d``); the old ``d`` still works with a
DeprecationWarning naming the new one."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
from semiprivate.theory.bounds import abm19, bns15, classic, compare, evaluate, hpsy, pillar
from semiprivate.theory.bounds._core import RENAMED_PARAMS, renamed_to

MODULES = (abm19, bns15, classic, compare, hpsy, pillar)
NEW_FOR_D = {"vc_dim", "bits", "dim"}


def _public_functions() -> list[Callable[..., Any]]:
    out = []
    for mod in MODULES:
        for attr in mod.__all__:
            f = getattr(mod, attr)
            if inspect.isfunction(f):
                out.append(f)
    return out


def test_no_public_bound_function_takes_d() -> None:
    names = {f.__name__: set(inspect.signature(f).parameters) for f in _public_functions()}
    assert not [n for n, params in names.items() if params & {"d", "vc", "h_size"}]
    assert sum(bool(params & NEW_FOR_D) for params in names.values()) >= 40


#: The public functions whose parameter was called ``d`` (the others had ``vc`` or never had either).
TOOK_D = {
    "abm19_cover_log_failure_probability": "vc_dim", "abm19_cover_failure_probability": "vc_dim",
    "abm19_public_sample_size": "vc_dim", "abm19_public_sample_size_oform": "vc_dim",
    "abm19_private_sample_size": "vc_dim", "abm19_sample_complexity": "vc_dim",
    "bns15_generic_unlabeled": "bits", "bns15_thm3_3": "bits", "bns15_rectangles": "bits",
    "bst14_labeled": "dim", "abm19_halfspace_labeled": "dim", "compare_halfspace_labelled": "dim",
    "hpsy_thm1_unlabeled": "dim", "karger_cut_bound": "dim", "hpsy_lem2_beta_interval": "dim",
    "hpsy_connectivity_threshold": "dim", "hpsy_thm2_unlabeled": "dim", "hpsy_thm3_unlabeled": "dim",
    "hpsy_thm1": "dim", "hpsy_thm2": "dim", "hpsy_thm3": "dim",
}


def test_every_function_that_took_d_is_covered() -> None:
    names = {f.__name__ for f in _public_functions()}
    assert set(TOOK_D) <= names


@pytest.mark.parametrize("func", [f for f in _public_functions() if f.__name__ in TOOK_D], ids=lambda f: f.__name__)
def test_old_d_warns_naming_the_functions_own_new_name(func: Callable[..., Any]) -> None:
    new = TOOK_D[func.__name__]
    assert new in inspect.signature(func).parameters and renamed_to("d", inspect.signature(func).parameters) == new
    with pytest.warns(DeprecationWarning, match=f"'d' is deprecated, use '{new}'"):
        try:
            func(d=40)
        except TypeError:
            pass  # the other parameters are missing: the rename happened first


def test_d_maps_to_bits_where_vc_dim_is_also_there() -> None:
    """BNS15 Thm 3.3 has both: its old ``d`` was bits per point (its VC dimension was ``vc``)."""
    assert RENAMED_PARAMS["d"][0] == "bits"
    with pytest.warns(DeprecationWarning, match="'d' is deprecated, use 'bits'"):
        old = bns15.bns15_thm3_3(d=10, vc_dim=2, alpha=0.1, beta=0.05, epsilon=1.0)
    assert old == bns15.bns15_thm3_3(bits=10, vc_dim=2, alpha=0.1, beta=0.05, epsilon=1.0)
    with pytest.warns(DeprecationWarning, match="'d' is deprecated, use 'bits'"):
        assert evaluate("BNS15.Thm3.3", d=10, vc_dim=2, alpha=0.1, beta=0.05, epsilon=1.0) == old


def test_registry_descriptions_say_which_meaning() -> None:
    from semiprivate.theory.bounds import list_bounds

    meaning = {"vc_dim": "VC dimension", "bits": "bits", "dim": ""}
    for b in list_bounds():
        for p in b.params:
            if p.name in ("vc_dim", "bits"):
                assert meaning[p.name] in p.description, (b.id, p.name, p.description)

"""Every registered bound function (and solver) takes NumPy arrays, broadcast by NumPy's rules, and gives
element for element what the scalar path (the specification) gives; an element whose parameters are
refused names its index and values; ``evaluate`` broadcasts too.  Deterministic."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.bounds import REGISTRY, evaluate, solve
from semiprivate.theory.bounds.abm19 import abm19_public_sample_size


def _numeric(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b if not isinstance(a, tuple) else repr(a) == repr(b)


@pytest.mark.parametrize("bound_id", sorted(b.id for b in REGISTRY.values() if b.example))
def test_every_bound_broadcasts_like_the_scalar_path(bound_id: str) -> None:
    b = REGISTRY[bound_id]
    ex = dict(b.example)
    scalar = b.function(**ex)
    names = [k for k, v in ex.items() if _numeric(v)]
    assert names, bound_id
    # the first numeric parameter as a column (2, 1), the others as rows (1, 2): a (2, 2) grid of the example
    arrays = {k: (np.array([[ex[k]], [ex[k]]]) if i == 0 else np.array([[ex[k], ex[k]]])) for i, k in enumerate(names)}
    out = b.function(**{**ex, **arrays})
    assert isinstance(out, np.ndarray) and out.shape == ((2, 2) if len(names) > 1 else (2, 1)), bound_id
    for v in out.ravel().tolist() if out.dtype != object else list(out.ravel()):
        assert _same(v, scalar), (bound_id, v, scalar)


def test_a_sweep_matches_a_python_loop() -> None:
    alphas = np.array([0.2, 0.1, 0.05, 0.02])
    got = abm19_public_sample_size(vc_dim=10, alpha=alphas, beta=0.01)
    assert got.dtype == np.int64
    assert got.tolist() == [abm19_public_sample_size(vc_dim=10, alpha=float(a), beta=0.01) for a in alphas]
    assert solve("ABM19.Lem3.3", "n_pub", vc_dim=10, alpha=alphas, beta=0.01).tolist() == got.tolist()
    ns = np.array([[1000], [20000]])
    grid = evaluate("ABM19.Lem3.3", n_pub=ns, vc_dim=10, alpha=alphas)
    assert grid.shape == (2, 4)
    assert grid.tolist() == [[float(evaluate("ABM19.Lem3.3", n_pub=int(n), vc_dim=10, alpha=float(a))) for a in alphas]
                             for n in ns[:, 0]]


def test_a_refused_element_names_its_index() -> None:
    with pytest.raises(ValueError, match=r"abm19_public_sample_size at alpha\[2\] = nan: "):
        abm19_public_sample_size(vc_dim=10, alpha=np.array([0.2, 0.1, np.nan]), beta=0.01)


def test_shapes_that_do_not_broadcast_are_refused() -> None:
    with pytest.raises(ValueError, match=r"do not broadcast together \(vc_dim \(2,\), alpha \(3,\)\)"):
        abm19_public_sample_size(vc_dim=np.array([1, 2]), alpha=np.array([0.1, 0.2, 0.3]), beta=0.01)


def test_scalars_keep_their_own_types() -> None:
    r = abm19_public_sample_size(vc_dim=10, alpha=0.05, beta=0.01)
    assert type(r).__name__ == "SampleSize" and r == 14815

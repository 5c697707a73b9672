"""semiprivate.theory.audit.core: ``vectorize`` (one-output functions as batch mechanisms) and ``assert_private``
(its defaults, the options it passes on, and its failure message)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.audit.options import AuditOptions


def test_vectorize_stacks_numbers_and_keeps_structured_outputs() -> None:
    from semiprivate.theory.audit.core import vectorize

    mech = vectorize(lambda data, rng: data + rng.integers(0, 3))
    a = mech(10, 5, 0)
    assert isinstance(a, np.ndarray) and a.shape == (5,) and a.tolist() == mech(10, 5, 0).tolist()
    assert set(a.tolist()) <= {10, 11, 12}
    s = vectorize(lambda data, rng: (data, "x"))(1, 3, 0)
    assert s.dtype == object and s.shape == (3,) and s[0] == (1, "x")
    assert vectorize(lambda d, r: 1.0)(None, 0, 0).shape == (0,)
    assert mech.__name__ == "vectorize(<lambda>)"
    with pytest.raises(TypeError, match=r"^fn must be callable, got 3 \(int\)$"):
        vectorize(3)


def test_assert_private_defaults_and_failure_message() -> None:
    from semiprivate.theory.audit.core import assert_private, vectorize
    from semiprivate.theory.privacy.mechanisms import RandomizedResponse

    res = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, trials=20_000, rng=1)
    assert (res.violation, res.epsilon, res.delta, res.confidence) == (False, 1.0, 0.0, 0.999)
    leak = vectorize(lambda data, rng: data)  # outputs its input: not DP at any epsilon
    with pytest.raises(AssertionError, match=r"^mechanism vectorize\(<lambda>\) is not \(1, 0\)-DP:\n"):
        assert_private(leak, 0, 1, epsilon=1.0, trials=2_000, rng=0)
    with pytest.raises(AssertionError, match=r"^mechanism vectorize\(<lambda>\) is not \(0.5, 1e-06\)-DP:\n"):
        assert_private(leak, 0, 1, epsilon=0.5, delta=1e-6, trials=2_000, rng=0)


def test_vectorize_keeps_dicts_and_names_callable_objects() -> None:
    from semiprivate.theory.audit.core import vectorize

    d = vectorize(lambda data, rng: {"a": data})(1, 2, 0)
    assert d.dtype == object and d.tolist() == [{"a": 1}, {"a": 1}]
    one = vectorize(lambda data, rng: {"a": data})(7, 1, 0)
    assert one.shape == (1,) and one[0] == {"a": 7}

    class Fn:
        def __call__(self, data: Any, rng: Any) -> float:
            return 1.0

        def __repr__(self) -> str:
            return "Fn()"

    f = Fn()
    m = vectorize(f)
    assert m.__name__ == "vectorize(Fn())" and m.__wrapped__ is f
    assert m(None, 2, 0).tolist() == [1.0, 1.0]


def test_assert_private_passes_delta_and_options_and_names_objects() -> None:
    from semiprivate.theory.audit.core import assert_private
    from semiprivate.theory.privacy.mechanisms import RandomizedResponse

    res = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, delta=1e-3, trials=20_000, options=AuditOptions(selection_trials=5_000),
                         rng=1)
    assert (res.delta, res.epsilon, res.trials_used, res.seed) == (1e-3, 1.0, 50_000, 1)

    class Leak:
        def __call__(self, data: Any, size: int, rng: Any) -> np.ndarray:
            return np.full(size, data)

        def __repr__(self) -> str:
            return "Leak()"

    with pytest.raises(AssertionError, match=r"^mechanism Leak\(\) is not \(1, 0\)-DP:\nclaimed \(epsilon, delta\)"):
        assert_private(Leak(), 0, 1, epsilon=1.0, trials=2_000, rng=0)

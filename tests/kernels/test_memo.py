"""The package's cache decorator keeps results, never a count of calls (a count would show a wrapper's hidden
number of runs, e.g. random stopping's K)."""

from __future__ import annotations

import pickle

import pytest
from semiprivate.kernels._memo import memo


def _state(fn) -> bytes:
    """Everything the decorated function exposes, but its code: its attributes and its closure's contents."""
    cells = [c.cell_contents for c in (fn.__closure__ or ()) if isinstance(c.cell_contents, dict)]
    return pickle.dumps((sorted(k for k in vars(fn) if k != "__wrapped__"), cells))


def test_one_call_and_seven_calls_leave_the_same_state() -> None:
    def make():
        @memo(maxsize=4)
        def f(x: int) -> int:
            return x + 1
        return f

    once, seven = make(), make()
    once(3)
    for _ in range(7):
        seven(3)
    assert _state(once) == _state(seven)
    assert not hasattr(once, "cache_info")


def test_results_are_kept_first_in_first_out_and_cleared() -> None:
    calls = []

    @memo(maxsize=2)
    def f(x: int, *, y: int = 0) -> int:
        calls.append(x)
        return x + y

    assert [f(1), f(2), f(1), f(3), f(1), f(2, y=5)] == [1, 2, 1, 3, 1, 7]
    assert calls == [1, 2, 3, 1, 2]  # 1 kept until 3 came (a hit does not refresh it), then dropped
    f.cache_clear()
    f(3)
    assert calls[-1] == 3


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, None])
def test_maxsize_is_checked(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^maxsize must be an int >= 1, got "):
        memo(bad)  # type: ignore[arg-type]

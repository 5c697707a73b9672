"""semiprivate.kernels._timing: what is timed, in which order, how many times (a scripted clock:
no assertion on real wall time)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from semiprivate.kernels import _timing
from semiprivate.kernels._timing import Timing, paired_ratios, time_call, time_interleaved


class _Clock:
    """perf_counter stand-in: each call advances by the next step of ``steps`` (cycled)."""

    def __init__(self, *steps: float) -> None:
        self.now, self.steps, self.i = 0.0, steps, 0

    def __call__(self) -> float:
        self.now += self.steps[self.i % len(self.steps)]
        self.i += 1
        return self.now


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    events: list[Any] = []
    monkeypatch.setattr(_timing.time, "sleep", lambda s: events.append(("sleep", s)))
    yield events


def test_warmup_is_untimed_and_samples_are_the_clock_differences(monkeypatch: pytest.MonkeyPatch,
                                                                   log: list[Any]) -> None:
    monkeypatch.setattr(_timing.time, "perf_counter", _Clock(1.0, 2.0))  # start +1, stop +2: 2 s each
    calls: list[int] = []
    t = time_call(lambda: calls.append(1) or len(calls), repeats=3, warmup=2, pause=0.25)
    assert len(calls) == 5 and t.samples == (2.0, 2.0, 2.0) and t.warmup == 2 and t.last == 5
    assert log == [("sleep", 0.25)] * 3  # before each timed call only
    assert (t.median, t.best, t.q1, t.q3, t.repeats) == (2.0, 2.0, 2.0, 2.0, 3)


def test_min_seconds_adds_repeats_up_to_the_cap(monkeypatch: pytest.MonkeyPatch, log: list[Any]) -> None:
    monkeypatch.setattr(_timing.time, "perf_counter", _Clock(0.0, 1.0))  # 1 s per call
    assert time_call(lambda: None, repeats=2, warmup=0, min_seconds=5.0).repeats == 5
    assert time_call(lambda: None, repeats=2, warmup=0, min_seconds=5.0, max_repeats=3).repeats == 3
    assert time_call(lambda: None, repeats=4, warmup=0, min_seconds=1.0, max_repeats=2).repeats == 4


def test_interleaved_rounds_run_in_order_and_pair_up(monkeypatch: pytest.MonkeyPatch, log: list[Any]) -> None:
    order: list[str] = []
    clock = _Clock(0.0, 1.0, 0.0, 3.0)  # a takes 1 s, b 3 s, every round
    monkeypatch.setattr(_timing.time, "perf_counter", clock)
    t = time_interleaved({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeats=2, warmup=1)
    assert order == ["a", "b"] * 3
    assert t["a"].samples == (1.0, 1.0) and t["b"].samples == (3.0, 3.0)
    assert paired_ratios(t["b"], t["a"]) == [3.0, 3.0]


def test_quartiles_of_uneven_samples() -> None:
    t = Timing((4.0, 1.0, 3.0, 2.0, 5.0), 0)
    assert (t.median, t.q1, t.q3, t.best) == (3.0, 2.0, 4.0, 1.0)
    assert t.ms() == "3e+03 ms [2e+03, 4e+03]"


@pytest.mark.parametrize(("call", "exc", "word"), [
    (lambda: time_call(3), TypeError, "fn"),  # type: ignore[arg-type]
    (lambda: time_call(lambda: None, repeats=0), ValueError, "repeats"),
    (lambda: time_call(lambda: None, repeats=True), ValueError, "repeats"),  # type: ignore[arg-type]
    (lambda: time_call(lambda: None, warmup=-1), ValueError, "warmup"),
    (lambda: time_interleaved({"x": 3}), TypeError, "methods"),  # type: ignore[dict-item]
    (lambda: paired_ratios(Timing((1.0,), 0), Timing((1.0, 2.0), 0)), ValueError, "repeats"),
    (lambda: Timing((), 0), ValueError, "samples"),
])
def test_bad_arguments_name_the_parameter(call: Any, exc: type[Exception], word: str) -> None:
    with pytest.raises(exc, match=word):
        call()

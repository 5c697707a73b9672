"""The seed record's scope: no coin state kept process-wide (a run's derived streams live in its own ticket), a
stream made outside any run is the user's seed, the record's blocks (secure mode, a separate record, a pause) hold in
their own thread, and a release re-entering its own object is checked like any nested release."""

from __future__ import annotations

import collections
import sys
import threading

import numpy as np
import pytest
from semiprivate.theory.privacy._release import child_streams, is_coin_state
from semiprivate.theory.privacy.mechanisms import GeometricMechanism
from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer
from semiprivate.theory.privacy.seeds import secure_mode, seed_reuse_allowed, separate_seed_record

X = np.array([0, 1, 1, 2, 3, 5, 5, 7, 6, 4])
NEIGHBOUR = np.array([0, 6, 1, 2, 3, 5, 5, 7, 6, 4])
SHARED = "already used by"


def _hist(rng):
    return NoisyHistogramSanitizer(1.0, domain_size=8, rng=rng)


def _coins_in_module_state() -> list[str]:
    found = []
    for name, mod in list(sys.modules.items()):
        if not name.startswith("semiprivate") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            items = [value]
            if isinstance(value, dict | collections.OrderedDict):
                items += list(value.values()) + list(value.keys())
            elif isinstance(value, list | tuple | set | frozenset | collections.deque):
                items += list(value)
            for v in items:
                inner = list(v) if isinstance(v, tuple) else [v]
                if any(is_coin_state(x) for x in inner):
                    found.append(f"{name}.{attr}")
    return found


def test_a_release_with_fresh_entropy_leaves_no_stream_in_module_state():
    before = set(_coins_in_module_state())
    for _ in range(3):
        _hist(None).sanitize(X)
    assert set(_coins_in_module_state()) <= before


def test_a_stream_made_outside_any_run_is_a_user_seed():
    _hist(child_streams(0, 1)[0]).sanitize(X)
    with pytest.raises(ValueError, match=SHARED):
        _hist(child_streams(0, 1)[0]).sanitize(NEIGHBOUR)
    with secure_mode(), pytest.raises(ValueError, match="secure mode"):
        _hist(child_streams(1, 1)[0]).sanitize(X)


def _in_threads(block, service):
    """Thread A runs ``block`` around a wait; thread B runs ``service`` while A is inside its block, and
    ``after`` once A has left it."""
    inside, done, left = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def a():
        with block():
            inside.set()
            done.wait(10)
        left.set()

    def b():
        inside.wait(10)
        try:
            service[0]()
        finally:
            done.set()
        left.wait(10)
        try:
            service[1]()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    ta, tb = threading.Thread(target=a), threading.Thread(target=b)
    ta.start(), tb.start()
    ta.join(20), tb.join(20)
    return errors


@pytest.mark.parametrize("block", [separate_seed_record, seed_reuse_allowed])
def test_another_threads_block_does_not_scope_this_threads_releases(block):
    errors = _in_threads(block, (lambda: _hist(7).sanitize(X), lambda: _hist(7).sanitize(NEIGHBOUR)))
    assert len(errors) == 1 and SHARED in str(errors[0])


def test_one_thread_leaving_secure_mode_does_not_lower_it_for_another():
    leave, inside_b, checked = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def a():
        with secure_mode():
            inside_b.wait(10)
        leave.set()

    def b():
        with secure_mode():
            inside_b.set()
            leave.wait(10)
            try:
                _hist(7).sanitize(X)
            except ValueError as e:
                errors.append(e)
        checked.set()

    ta, tb = threading.Thread(target=a), threading.Thread(target=b)
    ta.start(), tb.start()
    ta.join(20), tb.join(20)
    assert len(errors) == 1 and "secure mode" in str(errors[0])


def test_a_release_reentering_its_own_object_is_checked():
    def query(d):
        d = np.asarray(d)
        if d.ndim == 0:
            return d  # a count handed back in: answered as it is
        return int(m(int((d == 1).sum()), 1, 7)[0] - m(int((d == 5).sum()), 1, 7)[0])

    m = GeometricMechanism(1.0, query=query)
    with pytest.raises(ValueError, match="same random stream"):
        m(X, 1)
    with secure_mode(), pytest.raises(ValueError, match="secure mode"):
        m(X, 1)

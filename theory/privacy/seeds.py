"""What a seed means for a release, and the record that refuses one seed on two different releases.

A seed (``rng=0``, ``random_state=0``, ``seed=0``, a ``numpy.random.SeedSequence`` or a freshly seeded
``numpy.random.Generator``) fixes every coin a run draws.  It makes the run **reproducible, and nothing
more**:

* **Two releases, one seed: the noise cancels.**  Two releases that draw their noise from the same seed
  draw the *same* noise: ``h1 = f(D1) + Z`` and ``h2 = f(D2) + Z`` give ``h1 - h2 = f(D1) - f(D2)``
  exactly (and ``h1 = f + s1 Z``, ``h2 = f + s2 Z`` at two noise scales, e.g. two epsilons, solve for
  ``f``).  Composition theorems assume independent coins; with a shared seed no guarantee holds.
* **A known or guessable seed is no secret.**  Anyone who knows the seed replays every coin of the run
  and subtracts the noise.  A small int seed is found by brute force from anything public the run
  draws (a random projection such as ``RandomProjectionHalfspace.components_`` is a data-free function
  of the seed: trying the seeds below 2^32 takes minutes), and the run is then replayed.  A fixed seed
  is private only against someone who neither knows nor can search it; for a release, pass
  ``rng=None`` (fresh OS entropy, 128 bits).

**The record.**  Every run of a release (``fit``, ``sanitize``, ``__call__`` of a class inheriting
:class:`semiprivate.theory.privacy._release.Released`: every learner, wrapper, sanitizer and mechanism)
that is given a seed by the user (at any depth: a run inside another release's run too, unless the seed is a
stream that enclosing run derived for it) is recorded in a process-wide table: the seed's identity (an int ``s`` and ``SeedSequence(s)`` are the
same seed; so is a freshly seeded ``default_rng(s)``) against a keyed fingerprint of the release (its
class, its parameters other than the seed, and every input of the run).  The fingerprint is a BLAKE2b
MAC under a key drawn from the OS when the module is imported, so the table is not a function of the
data alone.  Running exactly the same release again with the same seed is allowed (it reproduces the
same output and reveals nothing new); the same seed on any other release (other data, other
parameters, another class), and the same inputs giving another output (something the fingerprint does not read
changed the release: a closure, a global), are refused with a ValueError that names the parameter and the fix:
distinct seeds (``numpy.random.SeedSequence(seed).spawn(k)``), or ``None``.  A generator passed
along is recorded by its state, so one Generator object handed to several releases is fine (each run
advances or spawns it).  Child streams a release derives for its own sub-fits, candidates, refits and
repetitions are not user seeds and are not recorded (:func:`semiprivate.theory.privacy._release.child_streams`
gives each its own).  :func:`forget_seeds` empties the table (an earlier release that was discarded
unpublished no longer needs protecting; each test of the project's suite starts with an empty table),
and :func:`separate_seed_record` runs a block with a table of its own.

Scope: one process.  Releases made in other processes (a worker pool, a later session) are not seen;
with several processes, give each its own seeds (``SeedSequence.spawn``) or use ``rng=None``.

**Secure mode** (:func:`set_secure_mode`, :func:`secure_mode`, or the environment variable
``SEMIPRIVATE_SECURE_MODE=1``, as Opacus's ``secure_mode``): every user seed on a release is refused,
so each run's coins come from fresh OS entropy (``numpy.random.SeedSequence()``, 128 bits from
``secrets``), split into independent child streams.  Caveat: the streams are NumPy's PCG64, which is
*not* a cryptographically secure generator: its 128-bit state can in principle be reconstructed from
enough of its raw outputs.  Released noise is drawn by the exact samplers from child streams that are
used for one release each, so no stream's raw words are published; but secure mode does not turn
PCG64 into a CSPRNG, and a process whose memory an attacker can read gives away every coin.

Examples
--------
>>> import numpy as np
>>> from semiprivate.theory.privacy.sanitizers import NoisyHistogramSanitizer
>>> X = np.array([0, 1, 1, 3])
>>> with separate_seed_record():
...     a = NoisyHistogramSanitizer(1.0, domain_size=4, rng=0).sanitize(X)
...     again = NoisyHistogramSanitizer(1.0, domain_size=4, rng=0).sanitize(X)  # the same release: allowed
...     try:
...         NoisyHistogramSanitizer(1.0, domain_size=4, rng=0).sanitize(X[1:])  # other data, same seed
...     except ValueError as e:
...         print(str(e).split(" (")[0])
NoisyHistogramSanitizer: rng=0 was already used by a different release in this process
>>> left, right = np.random.SeedSequence(0).spawn(2)   # the fix: one seed per release
>>> with separate_seed_record():
...     _ = NoisyHistogramSanitizer(1.0, domain_size=4, rng=left).sanitize(X)
...     _ = NoisyHistogramSanitizer(1.0, domain_size=4, rng=right).sanitize(X[1:])
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["forget_seeds", "separate_seed_record", "seed_reuse_allowed", "secure_mode", "set_secure_mode", "secure_mode_enabled",
           "SECURE_MODE_ENV"]

#: The environment variable that turns secure mode on for the process ("1", "true", "yes" or "on").
SECURE_MODE_ENV = "SEMIPRIVATE_SECURE_MODE"

#: Names of seed parameters (this toolkit's ``rng``, scikit-learn's and diffprivlib's ``random_state``, ``seed``).
SEED_NAMES = ("rng", "random_state", "seed")

#: Parameters that change what a run prints or how fast it runs, never its output: not part of a release's identity.
_NOT_THE_RELEASE = frozenset({"progress", "verbose", "n_jobs", "backend"})

_KEY = os.urandom(32)
_LOCK = threading.RLock()
_RECORD: dict[bytes, tuple[bytes, str, bytes]] = {}
_SECURE: list[bool] = [False]
_PAUSED: list[int] = [0]  # depth of seed_reuse_allowed() blocks


def forget_seeds() -> None:
    """Empty the process-wide record of the seeds releases used (module docstring).

    After it, a seed used by an earlier release may be given to another one: do this only when the
    earlier release is discarded unpublished (or, in a test suite, between tests).
    """
    with _LOCK:
        _RECORD.clear()


@contextlib.contextmanager
def separate_seed_record() -> Iterator[None]:
    """Run the block with an empty seed record of its own; the outer record is back afterwards.

    Seeds used inside the block are checked against each other only (for an experiment whose
    releases are separate from the rest of the process, e.g. one run of a test or of an example).
    """
    with _LOCK:
        saved = dict(_RECORD)
        _RECORD.clear()
    try:
        yield
    finally:
        with _LOCK:
            _RECORD.clear()
            _RECORD.update(saved)


@contextlib.contextmanager
def seed_reuse_allowed() -> Iterator[None]:
    """Run the block without the seed record: seeds used inside are neither checked nor recorded.

    For a test suite that exercises scikit-learn's conventions (its estimator checks refit one
    ``random_state=0`` estimator on many datasets, by design) or a reproducibility experiment whose
    outputs are never published. A release made inside the block may share its noise with another
    one: its guarantee holds alone, not for the two together. Secure mode still refuses every seed.
    """
    with _LOCK:
        _PAUSED[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _PAUSED[0] -= 1


def set_secure_mode(enabled: bool) -> bool:
    """Turn secure mode on or off for the process (module docstring); returns the previous setting.

    The environment variable ``SEMIPRIVATE_SECURE_MODE`` turns it on too, whatever this says.
    """
    if not isinstance(enabled, bool | np.bool_):
        raise TypeError(f"enabled must be a bool, got {type(enabled).__name__}")
    before = _SECURE[0]
    _SECURE[0] = bool(enabled)
    return before


def secure_mode_enabled() -> bool:
    """Whether secure mode is on (:func:`set_secure_mode` or ``SEMIPRIVATE_SECURE_MODE``)."""
    env = os.environ.get(SECURE_MODE_ENV, "").strip().lower()
    return _SECURE[0] or env in ("1", "true", "yes", "on")


def secure_mode(enabled: bool = True) -> contextlib.AbstractContextManager[None]:
    """Run the block with secure mode on (or off, ``enabled=False``), then restore the previous setting.

    ``enabled`` is checked when this is called, not when the block is entered.
    """
    if not isinstance(enabled, bool | np.bool_):
        raise TypeError(f"enabled must be a bool, got {type(enabled).__name__}")
    return _secure_block(bool(enabled))


@contextlib.contextmanager
def _secure_block(enabled: bool) -> Iterator[None]:
    before = set_secure_mode(enabled)
    try:
        yield
    finally:
        set_secure_mode(before)


# ---------------------------------------------------------------------------------------------------
# identities of seeds
# ---------------------------------------------------------------------------------------------------


def _entropy(value: Any) -> Any:
    return tuple(int(v) for v in value) if isinstance(value, list | tuple | np.ndarray) else int(value)


def _seq_identity(ss: np.random.SeedSequence, spawned: int | None = None) -> tuple[Any, ...]:
    """The root's pool words (so SeedSequence(0) and SeedSequence([0]), equal words, are one seed), the spawn key
    and the children already spawned."""
    n = ss.n_children_spawned if spawned is None else spawned
    root = np.random.SeedSequence(ss.entropy, pool_size=ss.pool_size).generate_state(8).tobytes()
    return ("seed", root, tuple(int(k) for k in ss.spawn_key), int(n))


def _state_items(state: Any) -> Any:
    if isinstance(state, dict):
        return tuple((k, _state_items(v)) for k, v in sorted(state.items()))
    if isinstance(state, np.ndarray):
        return (state.dtype.str, state.shape, state.tobytes())
    if isinstance(state, list | tuple):
        return tuple(_state_items(v) for v in state)
    return state


def _pristine(g: np.random.Generator) -> bool:
    """A generator seeded from its seed sequence and neither drawn from nor spawned since (``default_rng(s)``)."""
    bg = g.bit_generator
    ss = getattr(bg, "seed_seq", None)
    if not isinstance(ss, np.random.SeedSequence) or ss.n_children_spawned:
        return False
    try:
        fresh = type(bg)(ss)
    except Exception:  # a bit generator that cannot be rebuilt from its seed sequence: treat as used
        return False
    return _state_items(fresh.state) == _state_items(bg.state)


def seed_identity(value: Any) -> tuple[Any, ...] | None:
    """The identity of a user seed (None for ``None``): equal identities give a run the same coins.

    An int ``s``, ``SeedSequence(s)`` and a fresh ``default_rng(s)`` share one identity (the project's
    runs derive their streams from ``SeedSequence(s)``); a generator that has already been drawn from or
    spawned is identified by its whole state.
    """
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        return ("value", repr(value))
    if isinstance(value, int | np.integer):
        return _seq_identity(np.random.SeedSequence(int(value))) if int(value) >= 0 else ("value", int(value))
    if isinstance(value, np.random.SeedSequence):
        return _seq_identity(value)
    if isinstance(value, np.random.Generator):
        if _pristine(value):
            seq = value.bit_generator.seed_seq
            assert isinstance(seq, np.random.SeedSequence)  # _pristine checked it
            return _seq_identity(seq)
        ss = getattr(value.bit_generator, "seed_seq", None)
        spawned = _seq_identity(ss) if isinstance(ss, np.random.SeedSequence) else None
        return ("state", type(value.bit_generator).__name__, spawned, _state_items(value.bit_generator.state))
    if isinstance(value, np.random.RandomState):
        return ("legacy", _state_items(value.get_state(legacy=False)))
    if isinstance(value, np.random.BitGenerator):
        return ("bits", type(value).__name__, _state_items(value.state))
    return ("value", type(value).__name__, repr(value))


# ---------------------------------------------------------------------------------------------------
# fingerprints of releases
# ---------------------------------------------------------------------------------------------------


def _feed(h: Any, value: Any, seen: dict[int, Any], depth: int = 0) -> None:
    """Feed a canonical encoding of ``value`` (arrays by dtype, shape and bytes; estimators by their
    parameters, seeds left out; other objects by their non-fitted attributes) into the hash ``h``."""
    put = h.update
    if depth > 40:
        put(b"<deep>")
        return
    if value is None or isinstance(value, bool | int | float | complex | str | bytes | np.generic):
        put(f"{type(value).__name__}:{value!r};".encode())
        return
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            put(f"objarray{value.shape};".encode())
            for v in value.ravel().tolist():
                _feed(h, v, seen, depth + 1)
        else:
            put(f"array{value.dtype.str}{value.shape};".encode())
            put(np.ascontiguousarray(value).tobytes())
        return
    if id(value) in seen:
        put(b"<cycle>")
        return
    seen[id(value)] = value  # kept alive: a freed temporary's id could be reused by the next object
    if isinstance(value, list | tuple):
        if len(value) > 16:
            try:
                arr = np.asarray(value)
            except (ValueError, TypeError):
                arr = None
            if arr is not None and not arr.dtype.hasobject:
                put(f"{type(value).__name__}-as-array;".encode())
                _feed(h, arr, seen, depth + 1)
                return
        put(f"{type(value).__name__}{len(value)};".encode())
        for v in value:
            _feed(h, v, seen, depth + 1)
        return
    if isinstance(value, dict):
        put(f"dict{len(value)};".encode())
        for k in sorted(value, key=repr):
            put(f"{k!r}=".encode())
            _feed(h, value[k], seen, depth + 1)
        return
    if isinstance(value, set | frozenset):
        put(f"set{len(value)};".encode())
        for v in sorted(value, key=repr):
            _feed(h, v, seen, depth + 1)
        return
    if isinstance(value, memoryview | bytearray):
        put(b"buffer;" + bytes(value))
        return
    if isinstance(value, functools.partial):
        put(b"partial;")
        _feed(h, [value.func, value.args, value.keywords], seen, depth + 1)
        return
    if isinstance(value, np.random.Generator | np.random.SeedSequence | np.random.BitGenerator
                  | np.random.RandomState):
        put(b"<coins>")  # a nested estimator's own seed: re-routed by the wrapper, not part of the release
        return
    if isinstance(value, type):
        put(f"type:{value.__module__}.{value.__qualname__};".encode())
        return
    get_params = getattr(value, "get_params", None)
    if callable(get_params):
        try:
            params = get_params(deep=False)
        except TypeError:
            params = None
        if isinstance(params, dict):
            put(f"estimator:{type(value).__module__}.{type(value).__qualname__};".encode())
            _feed(h, {k: v for k, v in params.items() if k not in SEED_NAMES and k not in _NOT_THE_RELEASE},
                  seen, depth + 1)
            return
    to_numpy = getattr(value, "to_numpy", None)
    if callable(to_numpy) and hasattr(value, "shape"):  # a pandas frame or series: its values and labels
        put(f"frame:{type(value).__name__};".encode())
        _feed(h, np.asarray(to_numpy()), seen, depth + 1)
        for labels in ("columns", "index"):
            if hasattr(value, labels):
                _feed(h, [str(x) for x in getattr(value, labels)], seen, depth + 1)
        return
    if callable(value) and hasattr(value, "__code__"):
        code = value.__code__
        put(f"function:{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')};".encode())
        put(code.co_code)
        _feed(h, [c for c in code.co_consts if not hasattr(c, "co_code")], seen, depth + 1)
        cells = [c.cell_contents for c in (getattr(value, "__closure__", None) or ()) if _has_contents(c)]
        _feed(h, [cells, getattr(value, "__defaults__", None), getattr(value, "__kwdefaults__", None)], seen,
              depth + 1)
        return
    if hasattr(value, "__array__") and not isinstance(value, type):
        try:
            arr = np.asarray(value)  # an array-like (a dask array, a pandas object): the values the run reads
        except Exception:
            arr = None
        if arr is not None and not arr.dtype.hasobject:
            put(f"arraylike:{type(value).__qualname__};".encode())
            _feed(h, arr, seen, depth + 1)
            return
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        put(f"object:{type(value).__module__}.{type(value).__qualname__};".encode())
        _feed(h, {k: v for k, v in state.items() if not k.endswith("_") and not k.startswith("__")}, seen,
              depth + 1)
        return
    try:
        put(pickle.dumps(value, protocol=5))
    except Exception:
        put(b"opaque;" + os.urandom(16))  # a value it cannot read: never equal to anything (not its id)


def _has_contents(cell: Any) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


def output_mac(value: Any) -> bytes:
    """A keyed MAC of what a run released (its return value, or its declared attributes)."""
    h = hashlib.blake2b(key=_KEY, digest_size=32)
    try:
        h.update(pickle.dumps(value, protocol=5))
    except Exception:
        _feed(h, value, {})
    return h.digest()


def fingerprint(kind: str, params: dict[str, Any], inputs: dict[str, Any]) -> bytes:
    """A keyed BLAKE2b MAC (per-process key) of a release: its class, parameters and run inputs."""
    h = hashlib.blake2b(key=_KEY, digest_size=32)
    h.update(kind.encode() + b"\0")
    seen: dict[int, Any] = {}
    _feed(h, {k: v for k, v in params.items() if k not in SEED_NAMES and k not in _NOT_THE_RELEASE}, seen)
    _feed(h, {k: v for k, v in inputs.items() if k not in SEED_NAMES}, seen)
    return h.digest()


# ---------------------------------------------------------------------------------------------------
# the check a release's run makes
# ---------------------------------------------------------------------------------------------------


def _sealed_identity(ident: tuple[Any, ...]) -> bytes:
    """A keyed MAC of a seed's identity: the record does not hold the seeds in clear."""
    return hashlib.blake2b(repr(ident).encode(), key=_KEY, digest_size=32).digest()


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, int | np.integer) else type(value).__name__


def _fix(name: str) -> str:
    return (f"give each release its own seed (e.g. numpy.random.SeedSequence(seed).spawn(k), one child per "
            f"release), or {name}=None for fresh OS entropy; call semiprivate.theory.privacy.seeds.forget_seeds() "
            "only if the earlier release was discarded unpublished")


def snapshot(owner: str, seeds: dict[str, Any]) -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """``{name: (value, identity before the run)}`` for the non-None seeds a release's run was given.

    Refused at once in secure mode (ValueError naming the parameter): no user seed on a release.
    """
    given = {k: v for k, v in seeds.items() if v is not None}
    if given and secure_mode_enabled():
        name, value = next(iter(given.items()))
        raise ValueError(f"{owner}: {name}={value!r} is a user seed, refused in secure mode ({SECURE_MODE_ENV} or "
                         f"set_secure_mode(True)); pass {name}=None: each run then draws its coins from fresh OS "
                         "entropy")
    out = {}
    for name, value in given.items():
        ident = seed_identity(value)
        if ident is not None:
            out[name] = (value, ident)
    return out


def record(owner: str, taken: dict[str, tuple[Any, tuple[Any, ...]]], fp: bytes, out: bytes = b"") -> None:
    """After a run of a release succeeded: record the seeds it drew from, or refuse one already used by a
    different release (another fingerprint ``fp``) with a ValueError naming the parameter and the fix.

    A generator that the run left untouched (neither drawn from nor spawned) gave it no coins: not recorded.
    """
    with _LOCK:
        if _PAUSED[0]:
            return  # seed_reuse_allowed(): nothing checked, nothing recorded
        new: list[bytes] = []
        for name, (value, ident) in taken.items():
            if isinstance(value, np.random.Generator) and ident[0] == "state":
                # a generator already drawn from or spawned is not a seed the user typed: the auditor's common
                # random numbers (one generator state rebuilt for both neighbours) are not two releases; a seed
                # is an int, a SeedSequence or a fresh default_rng(seed)
                continue
            key = _sealed_identity(ident)  # the table holds MACs, not the seeds themselves
            known = _RECORD.get(key)
            if known is not None and known[0] == fp and known[2] != out:
                raise ValueError(
                    f"{owner}: {name}={_shown(value)} was already used by a release with these inputs and "
                    "parameters, and this run's output differs from that release's (something the inputs do not "
                    "show changed it: a closure, a global, an object read lazily); one seed on two different "
                    f"releases makes their noise cancel: {_fix(name)}")
            if known is not None and known[0] != fp:
                shown = repr(value) if isinstance(value, int | np.integer) else type(value).__name__
                raise ValueError(
                    f"{owner}: {name}={shown} was already used by a different release in this process "
                    f"({known[1]}, with other inputs or parameters); one seed on two releases gives them the same "
                    "noise, which cancels when their outputs are compared (h1 - h2 = f(D1) - f(D2) exactly): "
                    f"{_fix(name)}")
            if known is None:
                new.append(key)
        for key in new:
            _RECORD[key] = (fp, owner, out)

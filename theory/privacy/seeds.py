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

**The record.**  Every release (a run of a class inheriting
:class:`semiprivate.theory.privacy._release.Released`: every learner, wrapper, sanitizer and mechanism; and the
public release functions, ``exponential.sample`` and the structured mechanisms) registers the random *streams* it
draws from, at the points where coins are made (``child_streams``/``fit_stream`` and
``semiprivate.validation.as_generator``): each stream's node in the seed tree (its root's pool words, so an int ``s``,
``SeedSequence(s)``, ``SeedSequence([s])`` and ``default_rng(s)`` share a root, and its spawn key).  Runs nested
in a release draw into the outermost release's record; a stream made below one the release made is recorded
through that top stream (which owns its subtree), so the record's content, not only its size, is the same whatever
the number of nested runs: after random stopping with K = 1 and K = 7 (real learners as the base, one seed) every
key and field is the same but the MAC of the released output
(``tests/theory/privacy/release/test_random_stopping_leaves_no_trace_of_k.py``).  The record is not a
memo (dropping an entry would let a seed serve two releases): random stopping does not put it back.  After a run, a stream another release drew from (or a
stream below one whose subtree another release derived from) is refused, unless the other release had the same
keyed fingerprint (class, parameters other than the seed, every input) and the same output (a repetition: it
reveals nothing new); the output is the return value and every declared release on the object.  A generator
handed to a release is placed on its own seed's stream (:func:`stream_position`: PCG64 by the LCG distance from
the seed's first state, Philox by its counter), and the release owns the stretch it drew (a stream a release
makes from a seed owns the subtree below it and the stretch of its own stream it drew): one generator continued
from release to release (each starts where the last stopped) is allowed, and two objects holding one state (a
deep copy, a pickle round trip, a state copied by hand) draw one stretch and are refused.  A generator that cannot
be placed (a state set by hand from another seed, ``jumped()``, a drawn MT19937 or SFC64) is refused on a release.
So a used or permuted generator, a copy of one, a spawned child drawn directly, a seed under any parameter name
and a release inside another's query are caught whatever the entry point.  Fingerprints and outputs are BLAKE2b
MACs under a per-process secret key, drawn from the OS at first use and held only inside a keyed hash object
(no attribute, pickle, repr or message carries the key or a digest; code running in the same process can still
call the record's functions, so against it a small seed is no secret); the table holds keyed digests only.  Refusals are ValueErrors that name the
parameter and the fix: distinct seeds (``numpy.random.SeedSequence(seed).spawn(k)``), or ``None``.
:func:`forget_seeds` empties the table (an earlier release that was discarded unpublished no longer needs
protecting; each test of the project's suite starts with an empty table), :func:`separate_seed_record` runs a
block with a table of its own, and :func:`seed_reuse_allowed` runs a block unrecorded (both for this thread or
task only).

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
>>> from semiprivate.theory.privacy.seeds import separate_seed_record
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

import bisect
import contextlib
import contextvars
import functools
import hashlib
import os
import pickle
import secrets
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from semiprivate.validation import in_experiment

__all__ = ["forget_seeds", "separate_seed_record", "seed_reuse_allowed", "secure_mode", "set_secure_mode", "secure_mode_enabled",
           "SECURE_MODE_ENV", "stream_position"]

#: The environment variable that turns secure mode on for the process ("1", "true", "yes" or "on").
SECURE_MODE_ENV = "SEMIPRIVATE_SECURE_MODE"

#: Names of seed parameters (this toolkit's ``rng``, scikit-learn's and diffprivlib's ``random_state``, ``seed``).
SEED_NAMES = ("rng", "random_state", "seed")

#: Parameters that change what a run prints or how fast it runs, never its output: not part of a release's identity.
_NOT_THE_RELEASE = frozenset({"progress", "verbose", "n_jobs", "backend"})

_LOCK = threading.RLock()
_RECORD: dict[bytes, tuple[bytes, str, bytes, bytes, bool]] = {}
_SECURE: list[bool] = [False]
#: secure_mode() blocks active in any thread (a block raises secure mode for the process while it runs; one
#: thread leaving its block never lowers it for another still inside one)
_SECURE_BLOCKS: list[int] = [0]
#: secure_mode(False) in this context (thread or task): off here, unless the environment variable says on
_SECURE_OFF: contextvars.ContextVar[bool] = contextvars.ContextVar("semiprivate_secure_off", default=False)
#: seed_reuse_allowed() depth in this context only (another thread's experiment does not pause this one's record)
_PAUSE: contextvars.ContextVar[int] = contextvars.ContextVar("semiprivate_seed_pause", default=0)
#: separate_seed_record()'s table in this context only (another thread keeps the shared record)
_OVERLAY: contextvars.ContextVar[dict[bytes, Any] | None] = contextvars.ContextVar("semiprivate_seed_overlay",
                                                                                  default=None)


class _Paused:
    """``_PAUSED[0]``: the seed_reuse_allowed() depth of the current context."""

    def __getitem__(self, i: int) -> int:
        return _PAUSE.get()


_PAUSED = _Paused()


def _table() -> dict[bytes, Any]:
    """The record this context uses: its separate_seed_record() table, else the process-wide one."""
    overlay = _OVERLAY.get()
    return _RECORD if overlay is None else overlay


def forget_seeds() -> None:
    """Empty the process-wide record of the seeds releases used (module docstring).

    After it, a seed used by an earlier release may be given to another one: do this only when the
    earlier release is discarded unpublished (or, in a test suite, between tests).
    """
    with _LOCK:
        _table().clear()


@contextlib.contextmanager
def separate_seed_record() -> Iterator[None]:
    """Run the block with an empty seed record of its own; the outer record is back afterwards.

    Seeds used inside the block are checked against each other only (for an experiment whose
    releases are separate from the rest of the process, e.g. one run of a test or of an example).
    The block's record is this thread's (or task's) only: other threads keep the shared record.
    """
    token = _OVERLAY.set({})
    try:
        yield
    finally:
        _OVERLAY.reset(token)


@contextlib.contextmanager
def seed_reuse_allowed() -> Iterator[None]:
    """Run the block without the seed record: seeds used inside are neither checked nor recorded.

    For a test suite that exercises scikit-learn's conventions (its estimator checks refit one
    ``random_state=0`` estimator on many datasets, by design) or a reproducibility experiment whose
    outputs are never published. A release made inside the block may share its noise with another
    one: its guarantee holds alone, not for the two together. Secure mode still refuses every seed.
    The pause holds in this thread (or task) only.
    """
    token = _PAUSE.set(_PAUSE.get() + 1)
    try:
        yield
    finally:
        _PAUSE.reset(token)


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
    if env in ("1", "true", "yes", "on"):
        return True
    if _SECURE_OFF.get():
        return False
    return _SECURE[0] or _SECURE_BLOCKS[0] > 0


def secure_mode(enabled: bool = True) -> contextlib.AbstractContextManager[None]:
    """Run the block with secure mode on (or off, ``enabled=False``), then restore the previous setting.

    ``enabled`` is checked when this is called, not when the block is entered.
    """
    if not isinstance(enabled, bool | np.bool_):
        raise TypeError(f"enabled must be a bool, got {type(enabled).__name__}")
    return _secure_block(bool(enabled))


@contextlib.contextmanager
def _secure_block(enabled: bool) -> Iterator[None]:
    if not enabled:
        token = _SECURE_OFF.set(True)
        try:
            yield
        finally:
            _SECURE_OFF.reset(token)
        return
    with _LOCK:
        _SECURE_BLOCKS[0] += 1
    token = _SECURE_OFF.set(False)
    try:
        yield
    finally:
        _SECURE_OFF.reset(token)
        with _LOCK:
            _SECURE_BLOCKS[0] -= 1


# ---------------------------------------------------------------------------------------------------
# identities of seeds
# ---------------------------------------------------------------------------------------------------


def _entropy(value: Any) -> Any:
    return tuple(int(v) for v in value) if isinstance(value, list | tuple | np.ndarray) else int(value)


def _words_state(words: Any, pool: int) -> bytes:
    """The first 8 state words of the SeedSequence whose assembled entropy is ``words`` (no spawn key)."""
    return np.random.SeedSequence([int(w) for w in words], pool_size=pool).generate_state(8).tobytes()


def _uint32_words(value: Any) -> list[int]:
    """``value`` (an int, a sequence of them, nested, or a uint32 array: a SeedSequence's entropy or spawn key) as
    NumPy turns it into 32-bit words: each int little-endian, 0 as one word, sequences concatenated."""
    if isinstance(value, int | np.integer):
        n = int(value)
        words = [0] if n == 0 else []
        while n > 0:
            words.append(n & 0xFFFFFFFF)
            n >>= 32
        return words
    return [w for v in value for w in _uint32_words(v)]


def _assembled_words(ss: np.random.SeedSequence) -> list[int]:
    """The words NumPy mixes into ``ss``'s pool: the entropy's, zero-padded to the pool size when there is a spawn
    key (NumPy >= 1.19), then the spawn key's."""
    run = _uint32_words(ss.entropy)
    key = _uint32_words(ss.spawn_key)
    if key and len(run) < ss.pool_size:
        run += [0] * (int(ss.pool_size) - len(run))
    return run + key


def _node_state(ss: np.random.SeedSequence) -> bytes:
    """What determines the coins of ``ss``'s node: NumPy mixes the entropy words followed by the spawn key's
    words ("assembled entropy") into its pool, so ``SeedSequence(5).spawn(8)[7]``, ``SeedSequence([5, 0, 0, 0,
    7])`` and the int seed ``5 + (7 << 128)`` are one stream; they are one node here.  Equal words give equal
    states, and so do trailing zero words within the pool (``SeedSequence(0)`` and ``SeedSequence([0])``)."""
    return _words_state(_assembled_words(ss), int(ss.pool_size))


def _ancestor_states(ss: np.random.SeedSequence) -> list[bytes]:
    """The nodes ``ss``'s stream descends from under ANY way of writing it, nearest last, without repeats or the
    node itself.  NumPy pads the entropy to the pool size before it appends a spawn key, so a way of writing the
    assembled words as (entropy, spawn key) splits them at or after the pool size: every proper prefix at least
    that long is a node whose children include this one (a release that owns that subtree owns this stream), and
    a shorter entropy is the pool-long prefix (trailing zero words within the pool change nothing)."""
    words = _assembled_words(ss)
    pool = int(ss.pool_size)
    own = _words_state(words, pool)
    out: list[bytes] = []
    for m in range(min(pool, len(words)), len(words)):
        state = _words_state(words[:m], pool)
        if state != own and state not in out:
            out.append(state)
    return out


def _seq_identity(ss: np.random.SeedSequence, spawned: int | None = None) -> tuple[Any, ...]:
    """The node's state (:func:`_node_state`: equal assembled entropy words are one seed, however written) and the
    children already spawned."""
    n = ss.n_children_spawned if spawned is None else spawned
    return ("seed", _node_state(ss), int(ss.pool_size), int(n))


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
# the record's key
# ---------------------------------------------------------------------------------------------------


def _keyed_hash_factory() -> Callable[[bytes], Any]:
    """``keyed(tag)``: a new BLAKE2b hash under the process's secret key, with a 16-byte domain tag fed first.

    The key is 32 bytes from ``secrets.token_bytes`` (the OS's entropy), drawn at the first use, absorbed
    at once into a keyed hash object (C state: no Python attribute holds it) and then dropped; every MAC is a
    ``copy()`` of that object.  No module attribute, pickle, repr or message carries the key, and the record's
    digests are meaningless outside the process that made them (a digest that leaks, e.g. into a log, cannot be
    tested against candidate seeds elsewhere).  What this cannot do: code running in the same process can call
    the record's own functions (or read memory), so it can compute the MAC of any seed it guesses and compare;
    inside one Python process nothing is secret from introspection.  A process forked after the first use keeps
    the parent's key (its copy of the record stays consistent); a process started afresh draws its own.
    """
    template: list[Any] = []

    def keyed(tag: bytes) -> Any:
        if not template:
            with _LOCK:
                if not template:
                    template.append(hashlib.blake2b(key=secrets.token_bytes(32), digest_size=32))
        h = template[0].copy()
        h.update(tag.ljust(16, b"\0")[:16])
        return h

    return keyed


_keyed = _keyed_hash_factory()
del _keyed_hash_factory


def _mac(tag: bytes, data: bytes) -> bytes:
    h = _keyed(tag)
    h.update(data)
    return bytes(h.digest())


# ---------------------------------------------------------------------------------------------------
# fingerprints of releases
# ---------------------------------------------------------------------------------------------------


def _feed(h: Any, value: Any, seen: dict[int, Any], depth: int = 0) -> None:
    """Feed a canonical encoding of ``value`` (arrays by dtype, shape and bytes; estimators by their
    parameters, seeds left out; other objects by their non-fitted attributes) into the hash ``h``."""
    put = h.update
    if depth > 40:
        # deeper than it reads: never equal to anything, so a seed given again with such an input is refused
        # whatever the outputs (equal-looking inputs with outputs compared would tell whether the outputs are equal)
        put(b"<deep>" + os.urandom(16))
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
        # what else it reads: the object a bound method is bound to, and the module globals its code names
        # (modules by name: their contents are code, not the caller's data)
        _feed(h, [getattr(value, "__self__", None), _globals_read(value, code)], seen, depth + 1)
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
    if hasattr(value, "__len__") and hasattr(value, "__getitem__"):
        try:
            arr = np.asarray(value)  # a sequence the run reads item by item: the values it reads
        except Exception:
            arr = None
        if arr is not None and not arr.dtype.hasobject:
            put(f"sequence:{type(value).__qualname__};".encode())
            _feed(h, arr, seen, depth + 1)
            return
    state = getattr(value, "__dict__", None)
    slots = _slot_values(value)
    if isinstance(state, dict) or slots:
        # every attribute (fitted-looking names too: an input is not an estimator, its values may live there),
        # __slots__ values included
        put(f"object:{type(value).__module__}.{type(value).__qualname__};".encode())
        attrs = {k: v for k, v in (state or {}).items() if not k.startswith("__")}
        _feed(h, [attrs, slots], seen, depth + 1)
        return
    try:
        put(pickle.dumps(value, protocol=5))
    except Exception:
        put(b"opaque;" + os.urandom(16))  # a value it cannot read: never equal to anything (not its id)


def _code_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _globals_read(fn: Any, code: Any) -> dict[str, Any]:
    """The module globals ``fn``'s code (nested functions included) names: data as they are, modules and callables
    by name (following every callee's globals would walk the whole call graph past the depth limit)."""
    space = getattr(fn, "__globals__", None)
    if not isinstance(space, dict):
        return {}
    out: dict[str, Any] = {}
    for name in sorted(_code_names(code)):
        if name in space:
            v = space[name]
            if isinstance(v, types.ModuleType):
                out[name] = f"<module {v.__name__}>"
            elif callable(v):  # code it calls, by name: its data are read where it is a release's input
                out[name] = f"<callable {getattr(v, '__module__', '')}.{getattr(v, '__qualname__', type(v).__name__)}>"
            else:
                out[name] = v
    return out


def _slot_values(value: Any) -> dict[str, Any]:
    """The values of ``value``'s ``__slots__`` (every class of its MRO), by name."""
    out: dict[str, Any] = {}
    for cls in type(value).__mro__:
        names = cls.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            if name not in ("__dict__", "__weakref__") and name not in out:
                stored = f"_{cls.__name__.lstrip('_')}{name}" if name.startswith("__") and not name.endswith("__") \
                    else name  # a private slot is stored under its mangled name
                try:
                    out[name] = object.__getattribute__(value, stored)
                except AttributeError:
                    continue
    return out


def _has_contents(cell: Any) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


def output_mac(value: Any) -> bytes:
    """A keyed MAC of what a run released (its return value, or its declared attributes)."""
    h = _keyed(b"output")
    try:
        h.update(pickle.dumps(value, protocol=5))
    except Exception:
        _feed(h, value, {})
    return bytes(h.digest())


def fingerprint(kind: str, params: dict[str, Any], inputs: dict[str, Any]) -> bytes:
    """A keyed BLAKE2b MAC (per-process key) of a release: its class, parameters and run inputs."""
    h = _keyed(b"fingerprint")
    h.update(kind.encode() + b"\0")
    seen: dict[int, Any] = {}
    _feed(h, {k: v for k, v in params.items() if k not in SEED_NAMES and k not in _NOT_THE_RELEASE}, seen)
    _feed(h, {k: v for k, v in inputs.items() if k not in SEED_NAMES}, seen)
    return bytes(h.digest())


# ---------------------------------------------------------------------------------------------------
# the check a release's run makes
# ---------------------------------------------------------------------------------------------------


def _sealed_identity(ident: tuple[Any, ...]) -> bytes:
    """A keyed MAC of a seed's identity: the record does not hold the seeds in clear."""
    return _mac(b"identity", repr(ident).encode())


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


# ---------------------------------------------------------------------------------------------------
# the record: keyed on the streams a release draws from, at the points where coins are made
# ---------------------------------------------------------------------------------------------------


class Ticket:
    """The streams one release's run draws from (:func:`release_ticket`).

    ``created``: the seed-tree nodes (root words, spawn key) of generators made during the run (from a seed, a
    SeedSequence, or spawned); ``passed``: nodes of generators the run was handed and drew from as they are,
    with the object and its position on its node's stream when first seen (:func:`stream_position`): the
    release draws the stretch from there to where the object stands when the run ends.  ``off``: a run with no guarantee to protect (declared not private, or an audit-form experiment).
    """

    __slots__ = ("owner", "off", "created", "passed", "named", "derived", "fresh")

    def __init__(self, owner: str, off: bool = False) -> None:
        self.owner = owner
        self.off = off
        #: user seeds by name that runs nested in this release were given ("Class's rng=7"), for messages
        self.named: list[str] = []
        self.created: dict[bytes, tuple[Any, list[bytes], bool]] = {}
        self.passed: dict[bytes, tuple[Any, tuple[int, int], list[bytes], int | None]] = {}
        #: generators this run derived (child_streams): a nested run handed one draws the run's coins, not a seed
        self.derived: dict[int, Any] = {}
        #: keyed digests of the roots this run drew from OS entropy (rng=None): their streams are nobody's seed.  A
        #: fresh root made before the run (``as_generator(None)`` called by the caller) is not here: the caller
        #: holds that generator and can copy it, so it is recorded like any seed
        self.fresh: set[bytes] = set()


_TICKET: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar("semiprivate_release_ticket", default=None)


def current_ticket() -> Ticket | None:
    """The ticket of the release whose run is in progress in this context (the outermost one), or None."""
    return _TICKET.get()


@contextlib.contextmanager
def release_ticket(owner: str, off: bool = False) -> Iterator[Ticket | None]:
    """Open the ticket of a release's run; a run nested in another release's run draws into the outer ticket
    (yields None): every coin the outer release's output depends on is that release's."""
    if _TICKET.get() is not None:
        yield None
        return
    ticket = Ticket(owner, off)
    token = _TICKET.set(ticket)
    try:
        yield ticket
    finally:
        _TICKET.reset(token)


def _root_words(ss: np.random.SeedSequence) -> bytes:
    # the pool words, so SeedSequence(0) and SeedSequence([0]), 2**32 and [0, 1] are one root
    return np.random.SeedSequence(ss.entropy, pool_size=ss.pool_size).generate_state(8).tobytes()


def _seed_seq(gen: np.random.Generator) -> np.random.SeedSequence | None:
    ss = getattr(gen.bit_generator, "seed_seq", None)
    return ss if isinstance(ss, np.random.SeedSequence) else None


def note_fresh(gen: np.random.Generator) -> None:
    """Inside a release's run, mark ``gen``'s root as drawn from OS entropy by this run: the streams on it are
    nobody's seed.  Outside a run nothing is marked: the caller holds that generator (and can copy it), so a
    release it is handed to records it like any seed (:func:`note_stream`)."""
    ss = _seed_seq(gen)
    ticket = _TICKET.get()
    if ss is None or ticket is None or ticket.off:
        return
    ticket.fresh.add(_fresh_key(_root_words(ss)))


def _fresh_key(words: bytes) -> bytes:
    # a one-way digest: the root's words seed its own bit generator, so they are never kept
    return _mac(b"fresh-root", words)


#: PCG64's LCG multiplier (O'Neill's 128-bit default) and PCG64DXSM's 64-bit "cheap" one, as NumPy uses them.
_PCG_MULTIPLIER = {"PCG64": (2549297995355413924 << 64) + 4865540595714422341, "PCG64DXSM": 0xDA942042E4DD58B5}


def _lcg_distance(start: int, target: int, mult: int, plus: int) -> int:
    """The number of steps of ``s -> mult * s + plus (mod 2^128)`` from ``start`` to ``target`` (O'Neill's PCG
    ``distance``: one bit of the answer per round, 128 rounds at most; the LCG has full period, so it exists)."""
    mask = (1 << 128) - 1
    bit, distance = 1, 0
    while start != target:
        if (start & bit) != (target & bit):
            start = (start * mult + plus) & mask
            distance |= bit
        plus = ((mult + 1) * plus) & mask
        mult = (mult * mult) & mask
        bit <<= 1
    return distance


def stream_position(gen: np.random.Generator) -> tuple[int, int] | None:
    """``(position, period)``: where ``gen`` stands on the stream its own seed sequence starts, in 32-bit halves
    of the bit generator's 64-bit words (a buffered half counts as not yet drawn), or None when it cannot be
    placed there.

    A fresh generator stands at 0.  PCG64 and PCG64DXSM are placed by the LCG distance from the seed's first
    state, Philox by its counter; a state whose stream (PCG's increment, Philox's key) is not its seed's -- set
    by hand from another generator, or made by ``jumped()`` -- cannot be placed, nor can a drawn MT19937 or
    SFC64 (no distance to compute).  Two generators at one position of one node draw the same coins, whatever
    object holds them (a deep copy, a pickle round trip, a state copied by hand).
    """
    if not isinstance(gen, np.random.Generator):
        raise TypeError(f"gen must be a numpy.random.Generator, got {type(gen).__name__}")
    bg = gen.bit_generator
    ss = getattr(bg, "seed_seq", None)
    if not isinstance(ss, np.random.SeedSequence):
        return None
    try:
        first = type(bg)(ss).state
    except Exception:  # a bit generator that cannot be rebuilt from its seed sequence
        return None
    now = bg.state
    name = now.get("bit_generator")
    half = int(now.get("has_uint32", 0))
    if name in _PCG_MULTIPLIER:
        if now["state"]["inc"] != first["state"]["inc"]:
            return None
        steps = _lcg_distance(int(first["state"]["state"]), int(now["state"]["state"]), _PCG_MULTIPLIER[name],
                              int(now["state"]["inc"]))
        return 2 * steps - half, 2 << 128
    if name == "Philox":
        if not np.array_equal(now["state"]["key"], first["state"]["key"]):
            return None
        counter = sum(int(c) << (64 * i) for i, c in enumerate(now["state"]["counter"]))
        words = 4 * counter - 4 + int(now["buffer_pos"])
        return 2 * words - half, 8 << 256
    if _state_items(now) == _state_items(first):
        return 0, 1 << 64  # fresh: nothing drawn yet
    return None


def _buffered(gen: np.random.Generator) -> int | None:
    """The 32-bit half the bit generator holds buffered for its next 32-bit draw, or None."""
    state = gen.bit_generator.state
    return int(state["uinteger"]) if state.get("has_uint32") else None


def _unplaced(owner: str, gen: np.random.Generator) -> ValueError:
    return ValueError(
        f"{owner}: the numpy.random.Generator given as rng (or random_state) cannot be placed on its own seed's "
        f"stream (its {type(gen.bit_generator).__name__} state was set by hand or copied from another generator, "
        "made by jumped(), or drawn from by a bit generator whose position cannot be computed): another object "
        "could hold the same state and draw the same coins unnoticed, so a release does not draw from it; pass "
        "rng=None (fresh OS entropy), or a Generator made by numpy.random.default_rng(seed), drawn from or not, "
        "or a spawned child (numpy.random.SeedSequence(seed).spawn(k), one child per release)")


def _segment_key(key: bytes, gen: np.random.Generator) -> bytes:
    # one list per node and bit generator kind: a PCG64 and a Philox seeded from one node are different streams
    return _mac(b"segments", key + type(gen.bit_generator).__name__.encode())


def _pieces(start: int, length: int, period: int) -> list[tuple[int, int]]:
    """A stretch ``[start, start + length)`` of a cyclic stream of ``period`` halves, as stretches that do not
    wrap past the end (a state set by hand just before a seed's start wraps into it)."""
    if length >= period:
        return [(0, period)]
    end = start + length
    return [(start, length)] if end <= period else [(start, period - start), (0, end - period)]


def _overlapping(segments: list[tuple[Any, ...]], start: int, length: int) -> list[tuple[Any, ...]]:
    """The recorded stretches (sorted by start, pairwise disjoint) that meet ``[start, start + length)``: the last
    one starting at or before it, and those starting inside it (a binary search: the record of one generator
    continued over many releases is not scanned whole)."""
    i = bisect.bisect_right(segments, start, key=lambda seg: seg[0])
    found = [segments[i - 1]] if i and segments[i - 1][0] + segments[i - 1][1] > start else []
    while i < len(segments) and segments[i][0] < start + length:
        found.append(segments[i])
        i += 1
    return found


def _node_key(gen: np.random.Generator) -> tuple[bytes, bytes, list[bytes]]:
    """(root words, keyed MAC of the node, keyed MACs of its ancestors' nodes below the root, nearest last)."""
    ss = _seed_seq(gen)
    if ss is None:  # a bit generator built without a seed sequence: identified by its state
        ident: tuple[Any, ...] = ("bits", type(gen.bit_generator).__name__, _state_items(gen.bit_generator.state))
        return b"", _sealed_identity(ident), []
    root = _root_words(ss)
    pool = int(ss.pool_size)
    above = [_sealed_identity(("stream", state, pool)) for state in _ancestor_states(ss)]
    return root, _sealed_identity(("stream", _node_state(ss), pool)), above


def _reused_within(owner: str) -> ValueError:
    return ValueError(
        f"{owner}: two parts of this release draw from the same random stream (one seed given twice, e.g. a seed "
        "fixed on a nested estimator under a parameter name its wrapper does not re-route, such as random_seed): "
        "their noise is the same draw and cancels when their outputs are compared; give the nested estimator "
        "no seed (None) or a seed parameter named rng, random_state or seed, which the wrapper replaces by a "
        "child stream per run")


def note_stream(ticket: Ticket, gen: np.random.Generator, *, passed: bool) -> None:
    """Register, in the release's ``ticket``, the stream ``gen`` draws from.

    ``passed``: ``gen`` is a generator the run was handed and draws from as it is (else it was made during the
    run from a seed, a SeedSequence, or by spawning; a child stream the run derived counts as made).  A handed-in
    generator is registered with its position on its node's stream (:func:`stream_position`); one that cannot
    be placed is refused at once (ValueError naming rng and the fix).  Two generators on one node in one release
    (not the same object passed along) are refused at once (ValueError): they may draw the same coins.
    """
    if ticket.off or _PAUSED[0] or in_experiment():
        return
    root, key, above = _node_key(gen)
    if root and _fresh_key(root) in ticket.fresh:
        return  # a root this run drew from fresh OS entropy: no other release can draw it
    handed_in = passed and ticket.derived.get(id(gen)) is not gen
    seen = ticket.created.get(key, (None,))[0]
    if seen is None and key in ticket.passed:
        seen = ticket.passed[key][0]
    if seen is not None:
        if seen is gen:
            return  # the same generator passed along inside the run: one stream, continued
        raise _reused_within(ticket.owner)
    if handed_in:
        # a generator from outside the run (the caller's, fresh or drawn from): it draws the stretch of its node's
        # stream from where it stands now to where the run leaves it; the record keys that stretch, so two objects
        # holding one state (a copy, a pickle, a state set by hand) are one stream at one position
        where = stream_position(gen)
        if where is None:
            raise _unplaced(ticket.owner, gen)
        ticket.passed[key] = (gen, where, above, _buffered(gen))
        return
    # a node below another node this run made is reached only through it: the record keeps the top one
    # (whose subtree it owns), so the record's size does not count the run's sub-fits (random stopping's K)
    top = not any(a in ticket.created for a in above)
    ticket.created[key] = (gen, above, top)


def _stretch(gen: np.random.Generator, start: tuple[int, int]) -> tuple[int, int, int]:
    """``(start, length, period)`` of what ``gen`` drew during the run (in 32-bit halves), from ``start``
    (position, period; period 0: a generator made in the run, from its node's start); a generator that cannot
    be placed any more claims its whole stream."""
    begin, period = start
    end = stream_position(gen)
    if end is None or (period and end[1] != period):
        period = period or (1 << 64)
        return begin, period, period
    period = end[1]
    return begin, (end[0] - begin) % period, period


def close_ticket(ticket: Ticket, owner: str, shown: str, fingerprint_of: Any, output_of: Any) -> None:
    """After a release's run succeeded: refuse it if a stream it drew from was drawn by a different release
    (another fingerprint, or the same inputs with another output), else record its streams.

    ``fingerprint_of()`` and ``output_of()`` give the keyed MACs of the release and of what it released
    (computed only when the run drew from a stream a user seed can name).  A stream made in the run owns its node
    (and, for the top one, its subtree); a handed-in generator owns the stretch of its node's stream it drew, so
    one generator continued from release to release (each starts where the last stopped) is not a reuse, and
    two objects holding one state are.
    """
    if ticket.off or (not ticket.created and not ticket.passed) or in_experiment():
        return
    with _LOCK:
        if _PAUSED[0]:
            return  # seed_reuse_allowed(): nothing checked, nothing recorded
    stretches = {key: _stretch(gen, start) for key, (gen, start, _, _) in ticket.passed.items()}
    stretches = {key: st for key, st in stretches.items() if st[1] > 0}  # only spawned from: its children count
    # a 32-bit half the generator held buffered when handed in and drew during the run: it may come from an older
    # word than its position says (a 64-bit draw keeps the buffer), so it is recorded by its value too
    halves = [_mac(b"buffered-half", key + type(gen.bit_generator).__name__.encode() + half.to_bytes(8, "little"))
              for key, (gen, _, _, half) in ticket.passed.items() if half is not None and _buffered(gen) != half]
    if not ticket.created and not stretches and not halves:
        return
    fp = fingerprint_of()
    out = output_of()
    with _LOCK:
        if _PAUSED[0]:
            return
        record = _table()
        made = {k: _stretch(gen, (0, 0)) for k, (gen, _, _) in ticket.created.items()}
        nodes: list[tuple[bytes, list[bytes], tuple[int, int, int], bool, bytes]] = [
            (k, above, made[k], True, _segment_key(k, gen)) for k, (gen, above, _) in ticket.created.items()]
        nodes += [(k, ticket.passed[k][2], st, False, _segment_key(k, ticket.passed[k][0]))
                  for k, st in stretches.items()]
        fresh: list[tuple[bytes, int, int]] = []  # stretches no release drew yet: recorded after every check passed
        for key, above, stretch, created, segments in nodes:
            # the node made again in this run (it draws from the node's start), an ancestor whose whole subtree
            # another release derived its streams from, or a stretch of the node's own stream another release drew
            # (a handed-in generator's, or a stream a release made from its seed)
            owners = ([record.get(key)] if created else [None]) + [record.get(a) for a in above]
            for i, known in enumerate(owners):
                if known is None or (i and not known[4]):
                    continue  # free, or an ancestor drawn from directly: its stream, not its children's
                _same_release(known[0], known[1], known[2], fp, out, owner, shown)
            # a node below one this run made is recorded through its top (the subtree), not a stretch of its own
            keep = not created or ticket.created[key][2]
            for start, length in _pieces(*stretch):
                met = _overlapping(record.get(segments, []), start, length)
                for _, _, kfp, kowner, kout in met:
                    _same_release(kfp, kowner, kout, fp, out, owner, shown)
                if keep and not met and length:
                    fresh.append((segments, start, length))  # met only by this release again: recorded already
        for half in halves:
            known = record.get(half)
            if known is not None:
                _same_release(known[0], known[1], known[2], fp, out, owner, shown)
        for half in halves:
            record.setdefault(half, (fp, owner, out, b"", False))
        for key, (_, _, top) in ticket.created.items():
            if top:  # the node's subtree (the stretch of its own stream the run drew is in ``fresh``)
                record[key] = (fp, owner, out, b"", True)
        for segments, start, length in fresh:
            bisect.insort(record.setdefault(segments, []), (start, length, fp, owner, out), key=lambda seg: seg[0])


def _same_release(known_fp: bytes, known_owner: str, known_out: bytes, fp: bytes, out: bytes, owner: str,
                  shown: str) -> None:
    """Refuse (ValueError) a run that drew coins an earlier release drew, unless it is that release again."""
    if known_fp != fp:
        raise ValueError(
            f"{owner}: {shown} was already used by a different release in this process "
            f"({known_owner}, with other inputs or parameters): this run drew from a random stream that "
            "release drew from, so the two share their noise, which cancels when their outputs are "
            f"compared (h1 - h2 = f(D1) - f(D2) exactly): {_fix(_name_of(shown))}")
    if known_out != out:
        raise ValueError(
            f"{owner}: {shown} was already used by a release with these inputs and parameters, and "
            "this run's output differs from that release's (something the inputs do not show changed "
            "it: a closure, a global, an object read lazily); one seed on two different releases makes "
            f"their noise cancel: {_fix(_name_of(shown))}")


def _name_of(shown: str) -> str:
    name = shown.split("=")[0].split(" ")[-1]
    return name if name in SEED_NAMES else "rng"

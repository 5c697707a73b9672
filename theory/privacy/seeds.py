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
``kernels.validation.as_generator``): each stream's node in the seed tree (its root's pool words, so an int ``s``,
``SeedSequence(s)``, ``SeedSequence([s])`` and ``default_rng(s)`` share a root, and its spawn key).  Runs nested
in a release draw into the outermost release's record.  After a run, a stream another release drew from (or a
stream below one whose subtree another release derived from) is refused, unless the other release had the same
keyed fingerprint (class, parameters other than the seed, every input) and the same output (a repetition: it
reveals nothing new); the output is the return value and every declared release on the object.  A generator
handed on exactly where the previous release left it continues the stream (allowed).  So a used or permuted
generator, a spawned child drawn directly, a seed under any parameter name and a release inside another's query
are caught whatever the entry point.  Fingerprints and outputs are BLAKE2b MACs under a key drawn from the OS
when the module is imported; the table holds keyed digests only.  Refusals are ValueErrors that name the
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

import collections
import contextlib
import contextvars
import functools
import hashlib
import os
import pickle
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
from semiprivate.kernels.validation import in_experiment

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
    if isinstance(state, dict):
        # every attribute (fitted-looking names too: an input is not an estimator, its values may live there)
        put(f"object:{type(value).__module__}.{type(value).__qualname__};".encode())
        _feed(h, {k: v for k, v in state.items() if not k.startswith("__")}, seen, depth + 1)
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


# ---------------------------------------------------------------------------------------------------
# the record: keyed on the streams a release draws from, at the points where coins are made
# ---------------------------------------------------------------------------------------------------


class Ticket:
    """The streams one release's run draws from (:func:`release_ticket`).

    ``created``: the seed-tree nodes (root words, spawn key) of generators made during the run (from a seed, a
    SeedSequence, or spawned); ``passed``: nodes of generators the run was handed and drew from as they are
    (with the object and its state when first seen: continuing a stream where the last release left it is not
    a reuse).  ``off``: a run with no guarantee to protect (declared not private, or an audit-form experiment).
    """

    __slots__ = ("owner", "off", "created", "passed", "named", "derived")

    def __init__(self, owner: str, off: bool = False) -> None:
        self.owner = owner
        self.off = off
        #: user seeds by name that runs nested in this release were given ("Class's rng=7"), for messages
        self.named: list[str] = []
        self.created: dict[bytes, tuple[Any, list[bytes], bool]] = {}
        self.passed: dict[bytes, tuple[Any, bytes, list[bytes]]] = {}
        #: generators this run derived (child_streams): a nested run handed one draws the run's coins, not a seed
        self.derived: dict[int, Any] = {}


_TICKET: contextvars.ContextVar[Ticket | None] = contextvars.ContextVar("semiprivate_release_ticket", default=None)
#: One-way keyed digests of the roots this toolkit drew from OS entropy (rng=None): no user can give them again.
#: Only a bounded number of digests, one per fresh root (a release with rng=None makes one, whatever its sub-runs).
_FRESH: collections.OrderedDict[bytes, None] = collections.OrderedDict()
_FRESH_MAX = 4096


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
    """Mark ``gen``'s root as drawn from OS entropy by this toolkit: its streams are nobody's seed."""
    ss = _seed_seq(gen)
    if ss is None:
        return
    with _LOCK:
        _FRESH[_fresh_key(_root_words(ss))] = None
        while len(_FRESH) > _FRESH_MAX:
            _FRESH.popitem(last=False)


def is_fresh(gen: np.random.Generator) -> bool:
    """Whether ``gen`` descends from a root this toolkit drew from OS entropy (:func:`note_fresh`)."""
    ss = _seed_seq(gen)
    return ss is not None and _fresh_key(_root_words(ss)) in _FRESH


def _fresh_key(words: bytes) -> bytes:
    # a one-way digest: the root's words seed its own bit generator, so they are never kept
    return hashlib.blake2b(words, key=_KEY, digest_size=16, person=b"fresh-root").digest()


def _state_digest(gen: np.random.Generator) -> bytes:
    return hashlib.blake2b(repr(_state_items(gen.bit_generator.state)).encode(), key=_KEY, digest_size=16).digest()


def _node_key(gen: np.random.Generator) -> tuple[bytes, bytes, list[bytes]]:
    """(root words, keyed MAC of the node, keyed MACs of its ancestors' nodes below the root, nearest last)."""
    ss = _seed_seq(gen)
    if ss is None:  # a bit generator built without a seed sequence: identified by its state
        ident: tuple[Any, ...] = ("bits", type(gen.bit_generator).__name__, _state_items(gen.bit_generator.state))
        return b"", _sealed_identity(ident), []
    root = _root_words(ss)
    path = tuple(int(k) for k in ss.spawn_key)
    pool = int(ss.pool_size)
    above = [_sealed_identity(("stream", root, path[:i], pool)) for i in range(len(path))]
    return root, _sealed_identity(("stream", root, path, pool)), above


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
    run from a seed, a SeedSequence, or by spawning).  Two generators on one node in one release (not the same
    object passed along) are refused at once (ValueError): they draw the same coins.
    """
    if ticket.off or _PAUSED[0] or in_experiment():
        return
    root, key, above = _node_key(gen)
    if root and _fresh_key(root) in _FRESH:
        return  # fresh OS entropy: no other release can draw it
    seen = ticket.created.get(key, (None,))[0]
    if seen is None and key in ticket.passed:
        seen = ticket.passed[key][0]
    if seen is not None:
        if seen is gen:
            return  # the same generator passed along inside the run: one stream, continued
        raise _reused_within(ticket.owner)
    if passed and not _pristine(gen):
        # a generator already drawn from or spawned, handed in: it continues its stream (the same object passed
        # from release to release, or drawn from by the caller in between, is not a reuse), and its position in
        # the stream cannot be placed against another release's; its spawned children are recorded when made
        return
    if passed:
        # a fresh generator (default_rng(s), or one built on a spawned child): exactly what making one from its
        # node gives, so it is that node's stream from its start
        ticket.created[key] = (gen, above, not any(a in ticket.created for a in above))
    else:
        # a node below another node this run made is reached only through it: the record keeps the top one
        # (whose subtree it owns), so the record's size does not count the run's sub-fits (random stopping's K)
        top = not any(a in ticket.created for a in above)
        ticket.created[key] = (gen, above, top)


def close_ticket(ticket: Ticket, owner: str, shown: str, fingerprint_of: Any, output_of: Any) -> None:
    """After a release's run succeeded: refuse it if a stream it drew from was drawn by a different release
    (another fingerprint, or the same inputs with another output), else record its streams.

    ``fingerprint_of()`` and ``output_of()`` give the keyed MACs of the release and of what it released
    (computed only when the run drew from a stream a user seed can name).  A generator handed on from where
    the previous release left it (its state unchanged since) continues that stream: not a reuse.
    """
    if ticket.off or (not ticket.created and not ticket.passed) or in_experiment():
        return
    with _LOCK:
        if _PAUSED[0]:
            return  # seed_reuse_allowed(): nothing checked, nothing recorded
    fp = fingerprint_of()
    out = output_of()
    with _LOCK:
        if _PAUSED[0]:
            return
        nodes: list[tuple[bytes, list[bytes], bytes | None]] = [
            (k, above, None) for k, (_, above, _) in ticket.created.items()]
        nodes += [(k, above, start) for k, (_, start, above) in ticket.passed.items()]
        for key, above, start in nodes:
            # the node itself, or an ancestor whose whole subtree another release derived its streams from
            record = _table()
            owners = [(record.get(key), start)] + [(record.get(a), None) for a in above]
            for known, begin in owners:
                if known is None or (begin is not None and known[3] == begin):
                    continue  # free, or a generator continuing exactly where the last release left it
                if owners[0][0] is not known and not known[4]:
                    continue  # that ancestor was drawn from directly: its stream, not its children's
                if known[0] != fp:
                    raise ValueError(
                        f"{owner}: {shown} was already used by a different release in this process "
                        f"({known[1]}, with other inputs or parameters): this run drew from a random stream that "
                        "release drew from, so the two share their noise, which cancels when their outputs are "
                        f"compared (h1 - h2 = f(D1) - f(D2) exactly): {_fix(_name_of(shown))}")
                if known[2] != out:
                    raise ValueError(
                        f"{owner}: {shown} was already used by a release with these inputs and parameters, and "
                        "this run's output differs from that release's (something the inputs do not show changed "
                        "it: a closure, a global, an object read lazily); one seed on two different releases makes "
                        f"their noise cancel: {_fix(_name_of(shown))}")
        for key, (_, _, top) in ticket.created.items():
            if top:
                _table()[key] = (fp, owner, out, b"", True)
        for key, (gen, _, _) in ticket.passed.items():
            _table()[key] = (fp, owner, out, _state_digest(gen), False)


def _name_of(shown: str) -> str:
    name = shown.split("=")[0].split(" ")[-1]
    return name if name in SEED_NAMES else "rng"

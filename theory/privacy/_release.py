"""Privacy by construction: the release boundary and the RNG discipline that every learner, wrapper,
sanitizer and mechanism of the toolkit inherits (ARCHITECTURE.md, "Privacy by construction").

* **Release boundary.**  A class declares, as class attributes, what a run (``fit``, ``sanitize``,
  ``__call__``) leaves on the object: ``_releases`` (fitted attributes that are functions of
  private data and are covered by ``privacy_``) and ``_public`` (attributes that are functions of
  the parameters, the public data and the input sizes only).  :class:`Released` wraps every run
  method a subclass defines (``__init_subclass__``), so after each run :meth:`Released._seal`
  deletes every other instance attribute -- whatever a future edit stores on ``self``, it does not
  outlive the run unless it is declared -- and refuses (RuntimeError) a run that left a generator,
  a seed sequence or a bit generator anywhere in its state outside the parameters.  ``pickle``
  (``__getstate__``) carries the same attributes only, with generator parameters replaced by
  ``None``, and after a run a generator parameter is set to ``None`` on the object (the state of a
  generator, or its seed sequence, lets one replay or rewind the run's coins; the caller keeps its
  generator).  A run that raises leaves the object unfitted (no release survives it).  The warnings and
  messages of a run are the class's own responsibility; no message may echo private values.
* **RNG discipline.**  Each run draws its coins from a fresh child stream
  (:func:`child_streams`, ``numpy.random.SeedSequence.spawn``), one per sub-fit, candidate, refit
  and repetition, so no two releases share noise.  A wrapper gives its base a child stream for
  the base's own run (:func:`base_streams`) and puts the base's ``rng`` parameter back afterwards,
  so the fitted base carries none of the wrapper's coins.  What a fixed seed means: an ``int``
  seed makes a run reproducible and nothing more: anyone who knows or guesses it (small seeds are
  found by brute force, e.g. from a released public draw such as a random projection) replays every
  coin, and one seed given to two releases of related data makes their noise cancel.  Pass
  ``rng=None`` (fresh OS entropy) for a release.

:func:`coin_state_paths` is the check both :meth:`Released._seal` and the registry test
(``tests/theory/privacy/release/test_release_boundary_registry.py``) run.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import inspect
import io
import itertools
import logging
import os
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
from semiprivate.kernels._memo import memo_table, tables_kept
from semiprivate.kernels.noise import ExactStream, exact_stream
from semiprivate.theory.privacy import seeds as seed_record
from semiprivate.theory.privacy.budget import BUDGET_PARAMETERS, normal_delta, normal_epsilon
from semiprivate.validation import COIN_OBSERVERS, as_generator, check_rng

__all__ = ["Released", "RUN_METHODS", "LABELLED", "ALL_INPUTS", "NOT_PRIVATE", "PRIVACY_MODELS", "declared_model", "child_streams", "fit_stream", "base_streams", "forget_streams", "quiet", "coin_state_paths", "released_function",
           "param_names", "is_coin_state", "captured_outputs", "captured_runs", "RunCapture", "SideOutputs"]

#: Declared privacy models (re-exported by :mod:`semiprivate.theory.learners._base`, which documents them):
#: one labelled example replaced, public rows fixed; any one entry of any input; no guarantee.
LABELLED = "labelled"
ALL_INPUTS = "all inputs"
NOT_PRIVATE = "not private"
PRIVACY_MODELS = (LABELLED, ALL_INPUTS, NOT_PRIVATE)


def declared_model(est: Any) -> str | None:
    """The ``privacy_model_`` an estimator declares (a Pipeline's is its last step's); None if it declares none."""
    model = getattr(est, "privacy_model_", None)
    if model is None and hasattr(est, "steps"):
        model = getattr(est.steps[-1][1], "privacy_model_", None)
    return model if model in PRIVACY_MODELS else None


#: Private attributes a framework keeps on an estimator between calls and expects in a pickle (scikit-learn).
_FRAMEWORK_STATE = frozenset({"_sklearn_version", "_sklearn_output_config", "_metadata_request"})

#: The methods after which a :class:`Released` object is sealed.
RUN_METHODS = ("fit", "sanitize", "__call__")

_COIN_TYPES = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence, np.random.RandomState, ExactStream)


def is_coin_state(value: Any) -> bool:
    """Whether ``value`` is a generator, a bit generator, a seed sequence, a legacy RandomState or an exact stream."""
    return isinstance(value, _COIN_TYPES)


def child_streams(rng: Any, n: int) -> list[np.random.Generator]:
    """``n`` independent child generators of ``rng`` (None, int seed, SeedSequence or Generator).

    ``SeedSequence.spawn``: an int seed gives the same children every call (reproducible runs);
    a Generator gives new children at every call (its seed sequence counts the children spawned);
    None draws fresh OS entropy.  The parent's own bit stream is not advanced.  Inside a release's run,
    each child's stream (its node in the seed tree) is registered for that release (the seed record).
    """
    if isinstance(rng, np.random.Generator):
        _coins(rng, None)  # secure mode: a generator the user handed in is a seed
        out = list(rng.spawn(n))
    elif isinstance(rng, np.random.SeedSequence):
        _coins(rng, None)
        out = [np.random.default_rng(s) for s in rng.spawn(n)]
    elif rng is None:
        parent = as_generator(None)  # fresh OS entropy (marked fresh by the observer)
        out = list(parent.spawn(n))
    else:
        check_rng(rng, "rng")  # a TypeError/ValueError naming rng, without making a generator
        _coins(rng, None)
        out = [np.random.default_rng(s) for s in np.random.SeedSequence(int(rng)).spawn(n)]
    ticket = seed_record.current_ticket()
    if ticket is not None:
        for g in out:
            seed_record.note_stream(ticket, g, passed=False)
            ticket.derived[id(g)] = g  # the run's own child streams: not user seeds when a nested run gets one
    return out


def _coins(source: Any, gen: np.random.Generator | None) -> None:
    """Where coins are made (:func:`child_streams`, and :func:`semiprivate.validation.as_generator`
    through its observer): inside a release's run, refuse a user seed in secure mode and register the stream
    ``gen`` draws from for that release (``gen`` None: only the secure-mode check, the caller registers)."""
    if source is None:
        if gen is not None:
            seed_record.note_fresh(gen)
            ticket = seed_record.current_ticket()
            if ticket is not None and not ticket.off:
                ticket.derived[id(gen)] = gen  # made by this run from OS entropy: the run's own stream
        return
    ticket = seed_record.current_ticket()
    if ticket is None or ticket.off:
        return  # not a release's coins (a data generator, a test's own draws)
    # a generator from fresh OS entropy that the caller holds (as_generator(None) or child_streams(None, n) called
    # outside the run) is the caller's seed like any other: its state can be copied, so only streams the run
    # made itself are exempt
    if not _derived(source) and seed_record.secure_mode_enabled():
        raise ValueError(f"{ticket.owner}: a user seed ({_shown_seed(source)}) reached the coins of a release in "
                         f"secure mode ({seed_record.SECURE_MODE_ENV} or set_secure_mode(True)); pass None for "
                         "every seed of a release and of the estimators inside it: each run then draws its "
                         "coins from fresh OS entropy")
    if gen is not None:
        seed_record.note_stream(ticket, gen, passed=gen is source)


def _seed_sequence(gen: np.random.Generator) -> np.random.SeedSequence:
    """The SeedSequence a child stream of :func:`child_streams` was made from."""
    ss = gen.bit_generator.seed_seq
    assert isinstance(ss, np.random.SeedSequence)  # child_streams makes every child from one
    return ss


def _shown_seed(value: Any) -> str:
    return repr(int(value)) if isinstance(value, int | np.integer) else type(value).__name__


COIN_OBSERVERS.append(_coins)


#: The RandomStates :func:`base_streams` made for a base's ``random_state``/``seed`` during its block (by id).
_DERIVED_STATES: contextvars.ContextVar[Mapping[int, np.random.RandomState]] = contextvars.ContextVar(
    "semiprivate_derived_states", default=types.MappingProxyType({}))


def _derived(value: Any) -> bool:
    if isinstance(value, np.random.Generator):
        ticket = seed_record.current_ticket()
        return ticket is not None and ticket.derived.get(id(value)) is value
    return isinstance(value, np.random.RandomState) and _DERIVED_STATES.get().get(id(value)) is value


def is_derived_stream(value: Any) -> bool:
    """Whether ``value`` is a stream (or an int seed) that an enclosing run derived for a nested one
    (:func:`child_streams`, :func:`base_streams`), not a seed of the user's."""
    return _derived(value)


def _takes_generator(est: Any, key: str) -> bool:
    """Whether the randomness parameter ``key`` of ``est`` (``step__random_state`` too) belongs to an estimator
    that declares it takes a numpy Generator (class attribute ``_generator_seeds``, e.g. the learners'
    ``("rng", "random_state")``): it then gets a Generator child, not a 32-bit int."""
    head, _, name = key.rpartition("__")
    owner = est
    if head:
        try:
            owner = est.get_params(deep=True)[head]
        except (AttributeError, KeyError, TypeError):
            return False
    return name in getattr(type(owner), "_generator_seeds", ())


def fit_stream(rng: Any) -> np.random.Generator:
    """The stream of one run: the first child of ``rng`` (:func:`child_streams`)."""
    return child_streams(rng, 1)[0]


#: Names of randomness parameters (this toolkit's ``rng``, scikit-learn's and diffprivlib's ``random_state``,
#: ``seed``); any other parameter whose value is coin state counts too.
RNG_NAMES = seed_record.SEED_NAMES


def _rng_keys(est: Any) -> list[str]:
    """Every randomness parameter of ``est`` (nested ``step__name`` too): by name (:data:`RNG_NAMES`) or by
    value (a generator, bit generator, seed sequence or RandomState)."""
    if hasattr(est, "get_params"):
        try:
            params = est.get_params(deep=True)
        except TypeError:
            params = est.get_params()
        return [k for k, v in params.items()
                if k.rsplit("__", 1)[-1] in RNG_NAMES or is_coin_state(v)]
    return [k for k in RNG_NAMES if hasattr(est, k)]


def _set_params(est: Any, values: dict[str, Any]) -> None:
    if hasattr(est, "set_params"):
        est.set_params(**values)
    else:
        for k, v in values.items():
            setattr(est, k, v)


def _keys_named(est: Any, name: str) -> list[str]:
    if hasattr(est, "get_params"):
        try:
            params = est.get_params(deep=True)
        except TypeError:
            params = est.get_params()
        return [k for k in params if k == name or k.endswith("__" + name)]
    return [name] if hasattr(est, name) else []


@contextlib.contextmanager
def quiet(est: Any) -> Iterator[Any]:
    """Run ``est`` with every ``progress`` parameter (a Pipeline's ``step__progress`` too) set to False, then
    restore them: a wrapper that hides how many runs it made (random stopping's K) must own its runs' side
    outputs (one progress bar per run would print K)."""
    keys = _keys_named(est, "progress")
    if hasattr(est, "get_params"):
        params = est.get_params(deep=True) if keys else {}
        before = {k: params[k] for k in keys}
    else:
        before = {k: getattr(est, k) for k in keys}
    if keys:
        _set_params(est, dict.fromkeys(keys, False))
    try:
        yield est
    finally:
        if keys:
            _set_params(est, before)


class SideOutputs:
    """What one run wrote besides its result: printed text (through ``sys.stdout``/``sys.stderr``, and bytes
    written to file descriptors 1 and 2), warnings and logging records (:func:`captured_runs`)."""

    def __init__(self) -> None:
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()
        self.fd_bytes: dict[int, bytes] = {}
        self.warnings: list[warnings.WarningMessage] = []
        self.records: list[tuple[logging.Logger, logging.LogRecord]] = []

    def replay(self) -> None:
        """Emit the run's output now, as it would have been: text, bytes on the descriptors, warnings, then log
        records through the handlers that were in place when the run logged them."""
        sys.stdout.write(self.stdout.getvalue())
        sys.stderr.write(self.stderr.getvalue())
        for fd, data in self.fd_bytes.items():
            if data:
                with contextlib.suppress(OSError):
                    os.write(fd, data)
        for w in self.warnings:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        for logger, record in self.records:
            logging.Logger.callHandlers(logger, record)


class _ToCurrent(io.TextIOBase):
    """A text stream that writes into the current run's buffer (:class:`RunCapture`)."""

    def __init__(self, capture: RunCapture, which: str) -> None:
        self._capture = capture
        self._which = which

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return int(getattr(self._capture.current, self._which).write(text))


class RunCapture:
    """One capture around a wrapper's whole loop of runs (:func:`captured_runs`); :meth:`run` opens one run's
    buffer.  The interpreter's state changes once per capture, whatever the number of runs: one
    ``warnings.catch_warnings`` (its filter version moves once), one redirection of ``sys.stdout``/``sys.stderr``,
    of the logging hand-off and of file descriptors 1 and 2."""

    def __init__(self) -> None:
        self.current = SideOutputs()  # output between runs: held too, and dropped
        self._caught: list[warnings.WarningMessage] = []
        self._fd_files: dict[int, Any] = {}  # descriptor -> the temporary file it points at during the capture
        self._fd_at: dict[int, int] = {}

    def _fd_take(self) -> dict[int, bytes]:
        """The bytes written to descriptors 1 and 2 since the last call (flushing Python's own buffers first)."""
        if not self._fd_files:
            return {}
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        out = {}
        for fd, tmp in self._fd_files.items():
            at = self._fd_at.get(fd, 0)
            end = os.lseek(tmp.fileno(), 0, os.SEEK_END)
            out[fd] = os.pread(tmp.fileno(), end - at, at) if end > at else b""
            self._fd_at[fd] = end
        return out

    @contextlib.contextmanager
    def run(self) -> Iterator[SideOutputs]:
        """Hold back one run's outputs in their own :class:`SideOutputs`."""
        self._fd_take()  # what came before the run is not the run's
        side = SideOutputs()
        self.current = side
        start = len(self._caught)
        try:
            yield side
        finally:
            side.warnings = list(self._caught[start:])
            side.fd_bytes = self._fd_take()
            self.current = SideOutputs()


_LOGGING_LOCK = threading.RLock()


@contextlib.contextmanager
def _descriptors_to(capture: RunCapture) -> Iterator[None]:
    """Point descriptors 1 and 2 at a temporary file each for the block (C code, and streams bound before the
    block, write there), then put them back; without usable descriptors, nothing is redirected."""
    import tempfile

    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:
        yield
        return
    files = {1: tempfile.TemporaryFile(), 2: tempfile.TemporaryFile()}
    try:
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        for fd, tmp in files.items():
            os.dup2(tmp.fileno(), fd)
        capture._fd_files = files
        yield
    finally:
        capture._fd_take()
        capture._fd_files = {}
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)
        for tmp in files.values():
            tmp.close()


@contextlib.contextmanager
def captured_runs() -> Iterator[RunCapture]:
    """Hold back every side output of a loop of runs: stdout, stderr, bytes on descriptors 1 and 2, warnings and
    logging records; :meth:`RunCapture.run` gives each run its own :class:`SideOutputs`.

    For a wrapper that hides how many runs it made (random stopping's K): one line, warning or log record per
    run would show the count the guarantee hides, and so would any interpreter state changed once per run, so
    the capture is entered once around the whole loop.  Text is captured by redirecting ``sys.stdout`` and
    ``sys.stderr``, and descriptors 1 and 2 (C code, a stream bound before the search); warnings by one
    ``warnings.catch_warnings``; log records at the one place every record passes on its way to a handler
    (``logging.Logger.callHandlers``), so a handler configured before the block, which holds its own stream,
    receives nothing.  Records of every thread are held while the block runs, with the run then running: a record
    another thread of the application logs meanwhile is dropped with that run's outputs if the run loses (so is
    its printed text: the redirection is process-wide), since a base's own worker threads would otherwise show one
    record per run.  The wrapper then :meth:`SideOutputs.replay`s the outputs of the run it releases, and drops the
    others.

    Interpreter state the runs change is put back too: every module's ``__warningregistry__`` (a warning marks its
    module); the warnings-filter version, which every ``catch_warnings`` or ``simplefilter`` moves (about nine per
    halfspace fit) and nothing can move back, does not move while the block runs (the interpreter's hook is replaced
    by one that empties every module's warning registry, which is what a version change is for); handlers a run
    adds to the root logger bound to the captured streams (a library's ``logging.basicConfig()``) are removed.

    Process-wide memo state: every registered memo table of the package
    (:func:`semiprivate.kernels._memo.memo_table`, every :func:`~semiprivate.kernels._memo.memo`'s results, e.g. the
    halfspace learners' calibrations, the accounting module's epsilons and PLD compositions, the exponential
    mechanism's score tables, the exact samplers' tables, :func:`param_names`'s table) is put back, after the block,
    as it was when the first block then open began (:func:`~semiprivate.kernels._memo.tables_kept`): its keys would show
    which candidates ran.  A memo is pure, so this changes no result.  The seed record
    (:mod:`semiprivate.theory.privacy.seeds`) is not put back (it protects the release that ran): it records a
    release's top streams only, whatever the number of runs below them.

    Not held back: files, sockets, the caches of other libraries (e.g. narwhals' ``plugins._discover_entrypoints``,
    an ``lru_cache`` that scikit-learn's input validation calls a few times per fit: its call counter grows with the
    number of runs) and of the interpreter (a module first imported by one candidate's run stays in
    ``sys.modules``), module state outside the registry, and the running time; random stopping's guarantee assumes
    a base whose effects on these do not depend on the data or on the number of runs (PS22's setting).
    """
    cap = RunCapture()

    def hold(logger: logging.Logger, record: logging.LogRecord) -> None:
        cap.current.records.append((logger, record))

    with tables_kept(), _LOGGING_LOCK:
        before = logging.Logger.__dict__["callHandlers"]
        registries = _warning_registries()
        hooks = {name: getattr(warnings, name) for name in _FILTER_HOOKS if hasattr(warnings, name)}
        streams = (_ToCurrent(cap, "stdout"), _ToCurrent(cap, "stderr"))
        logging.Logger.callHandlers = hold  # type: ignore[method-assign,assignment]
        for name in hooks:
            setattr(warnings, name, _empty_warning_registries)
        try:
            with warnings.catch_warnings(record=True) as caught, _descriptors_to(cap), \
                    contextlib.redirect_stdout(streams[0]), contextlib.redirect_stderr(streams[1]):
                cap._caught = caught
                warnings.simplefilter("always")
                yield cap
        finally:
            for name, hook in hooks.items():
                setattr(warnings, name, hook)
            logging.Logger.callHandlers = before  # type: ignore[method-assign]
            # a handler a run added to the root logger (``logging.basicConfig()`` inside a library) holds the
            # capture's stream; a warning a run issued marks its module's ``__warningregistry__``
            for handler in list(logging.root.handlers):
                if getattr(handler, "stream", None) in streams:
                    logging.root.removeHandler(handler)
            _put_back_warning_registries(registries)


#: The warnings module's hook that moves the filter version (``_filters_mutated_lock_held`` from Python 3.13 on).
_FILTER_HOOKS = ("_filters_mutated", "_filters_mutated_lock_held")


def _namespace(module: Any) -> dict[str, Any] | None:
    """A loaded module's namespace, read without running anything (a lazily loaded module's body runs on the first
    attribute read; ``object.__getattribute__`` of ``__dict__`` does not trigger it), or None."""
    if not isinstance(module, types.ModuleType):
        return None
    try:
        namespace = object.__getattribute__(module, "__dict__")
    except Exception:
        return None
    return namespace if isinstance(namespace, dict) else None


def _empty_warning_registries() -> None:
    """Stands for the warnings filter-version hook while :func:`captured_runs` is open: the version would count the
    runs' filter changes; what the version does -- make every module's registry out of date -- is done by emptying
    the registries (each is put back when the block ends)."""
    for module in list(sys.modules.values()):
        namespace = _namespace(module)
        registry = namespace.get("__warningregistry__") if namespace is not None else None
        if isinstance(registry, dict):
            registry.clear()


def _warning_registries() -> dict[str, dict[Any, Any] | None]:
    """Every loaded module's ``__warningregistry__`` (a copy; None where a module has none)."""
    out: dict[str, dict[Any, Any] | None] = {}
    for name, module in list(sys.modules.items()):
        namespace = _namespace(module)
        if namespace is not None:
            registry = namespace.get("__warningregistry__")
            out[name] = dict(registry) if isinstance(registry, dict) else None
    return out


def _put_back_warning_registries(saved: dict[str, dict[Any, Any] | None]) -> None:
    """Every module's ``__warningregistry__`` as :func:`_warning_registries` read it (removed where there was none;
    a module first loaded in between keeps none)."""
    for name, module in list(sys.modules.items()):
        namespace = _namespace(module)
        if namespace is None:
            continue
        registry = saved.get(name)
        if registry is None:
            namespace.pop("__warningregistry__", None)
        else:
            namespace["__warningregistry__"] = registry


@contextlib.contextmanager
def captured_outputs() -> Iterator[SideOutputs]:
    """Hold back every side output of the block (one run: :func:`captured_runs`)."""
    with captured_runs() as cap, cap.run() as side:
        yield side


@contextlib.contextmanager
def base_streams(est: Any, stream: np.random.Generator) -> Iterator[Any]:
    """Run ``est`` (a base estimator, a Pipeline) on child streams of ``stream``, then restore its ``rng``s.

    Every randomness parameter of ``est`` (``rng``, ``random_state``, ``seed`` and every nested
    ``step__rng``, or any parameter holding coin state) is set to its own child of ``stream`` for the
    duration of the block, whatever the user set (a seed set on the
    base would make every candidate or refit of a wrapper reuse one draw), and put back to the
    value it had afterwards, so the fitted base holds none of the wrapper's coins.  A generator the
    base held is put back as ``None`` (its state could replay coins: a released object keeps no generator).
    """
    keys = _rng_keys(est)
    if hasattr(est, "get_params"):
        params = est.get_params(deep=True) if keys else {}
        before = {k: params[k] for k in keys}
    else:
        before = {k: getattr(est, k) for k in keys}
    narrow = [k for k in keys if k.rsplit("__", 1)[-1] in ("random_state", "seed") and not _takes_generator(est, k)]
    if narrow and seed_record.secure_mode_enabled():
        raise ValueError(f"{narrow[0]}: this base takes its coins from an integer seed below 2^32 (scikit-learn's "
                         "RandomState), which a search over 2^32 seeds recovers; refused in secure mode: use a base "
                         "whose rng takes a Generator")
    if keys:
        # this toolkit's rng takes a Generator; random_state / seed (scikit-learn's check_random_state takes None,
        # an int or a RandomState) get a RandomState on an MT19937 seeded by their own child's SeedSequence (128
        # bits of entropy and the spawn key): no 2^32 search finds it and no two fits share it by a birthday
        # collision, as 32-bit int seeds would (P = 0.5 at 77,000 fits in one process); the base's parameter is
        # put back afterwards and never holds the run's stream
        values = {}
        for k, child in zip(keys, child_streams(stream, len(keys))):
            name = k.rsplit("__", 1)[-1]
            values[k] = (child if name == "rng" or name not in RNG_NAMES or _takes_generator(est, k)
                         else np.random.RandomState(np.random.MT19937(_seed_sequence(child))))
        _set_params(est, values)
        derived = {id(v): v for v in values.values() if isinstance(v, np.random.RandomState)}
    token = _DERIVED_STATES.set({**_DERIVED_STATES.get(), **derived}) if keys else None
    try:
        yield est
    finally:
        if token is not None:
            _DERIVED_STATES.reset(token)
        if keys:
            _set_params(est, {k: (None if is_coin_state(v) else v) for k, v in before.items()})


def forget_streams(est: Any) -> None:
    """Set every ``rng`` parameter of ``est`` that holds coin state to None (after a run that gave it a stream)."""
    keys = _rng_keys(est)
    if not keys:
        return
    values = est.get_params(deep=True) if hasattr(est, "get_params") else {k: getattr(est, k) for k in keys}
    drop = {k: None for k in keys if is_coin_state(values.get(k))}
    if drop:
        _set_params(est, drop)


#: constructor keyword names per class, filled once per class: a registered memo table with no hit counter (an
#: ``lru_cache``'s ``cache_info()`` would count the runs, e.g. random stopping's hidden K; its keys show which classes
#: ran, so :func:`captured_runs` puts it back with every other table: :func:`semiprivate.kernels._memo.tables_kept`)
_PARAM_NAMES = memo_table(f"{__name__}._PARAM_NAMES", maxsize=4096)


def param_names(obj: Any) -> list[str]:
    """The constructor's keyword names of ``obj`` (its parameters, scikit-learn's convention)."""
    cls = type(obj)
    names = _PARAM_NAMES.get(cls)
    if names is None:
        sig = inspect.signature(cls.__init__)
        names = _PARAM_NAMES.store(cls, tuple(p.name for p in sig.parameters.values()
                                              if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)))
    return list(names)


#: Exact types that hold no other object (no coin state inside): the walk passes them without a call.
_ATOMS = frozenset({int, float, complex, str, bytes, bool, type(None)})
#: Types the walk does not enter (NumPy arrays of a non-object dtype are among them; object arrays are walked).
_LEAVES = (str, bytes, int, float, complex, type)
#: Deeper than this, the walk stops (a cycle guard beside ``seen``).
_MAX_DEPTH = 12


def coin_state_paths(obj: Any, *, _path: str = "", _seen: set[int] | None = None, _depth: int = 0,
                     skip_params: bool = True) -> list[str]:
    """Attribute paths under ``obj`` that hold coin state (a generator, bit generator, seed sequence).

    The object's own parameters are skipped (``skip_params``: a generator the user passed stays
    theirs); everything else is searched: attributes, list/tuple/dict/set items, dict keys, the items of
    object-dtype NumPy arrays, nested objects (their parameters included: a wrapper must not leave its coins
    in a base's ``rng``).  Plain values (ints, floats, strings, None, numeric arrays) are passed without a
    recursive call, and a tuple/list of plain values in one step: the walk of a fitted object's state costs a
    C-level pass over such containers, not one call per item.
    """
    seen = set() if _seen is None else _seen
    out: list[str] = []
    _walk(obj, _path, seen, _depth, skip_params, out)
    return out


def _plain(v: Any) -> bool:
    """Whether ``v`` holds no coin state for certain without entering it: an atom, a numeric array, or a
    tuple/list of atoms."""
    t = type(v)
    if t in _ATOMS:
        return True
    if t is np.ndarray:
        return v.dtype != object
    return (t is tuple or t is list) and set(map(type, v)) <= _ATOMS


def _all_plain(items: Any) -> bool:
    """Whether every item of ``items`` is an atom or a tuple of atoms (a cover of hypotheses, a list of
    pairs): two C-level passes instead of one check per item."""
    kinds = set(map(type, items))
    if kinds <= _ATOMS:
        return True
    if not kinds <= _ATOMS | {tuple}:
        return False
    return set(map(type, itertools.chain.from_iterable(v for v in items if type(v) is tuple))) <= _ATOMS


def _walk(obj: Any, path: str, seen: set[int], depth: int, skip_params: bool, out: list[str]) -> None:
    """:func:`coin_state_paths`'s walk: appends to ``out`` the path of every coin state under ``obj``."""
    if id(obj) in seen or depth > _MAX_DEPTH:
        return
    seen.add(id(obj))
    if is_coin_state(obj):
        out.append(path or "<self>")
        return
    deeper = depth + 1
    if isinstance(obj, dict):
        for k, v in obj.items():
            if type(k) not in _ATOMS and is_coin_state(k):
                out.append(f"{path}[<key {type(k).__name__}>]")
            if not _plain(v):
                _walk(v, f"{path}[{k!r}]", seen, deeper, False, out)
        return
    if isinstance(obj, list | tuple | set | frozenset):
        if _all_plain(obj):
            return
        for i, v in enumerate(obj):
            if not _plain(v):
                _walk(v, f"{path}[{i}]", seen, deeper, False, out)
        return
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            for i, v in enumerate(obj.flat):
                if not _plain(v):
                    _walk(v, f"{path}.flat[{i}]", seen, deeper, False, out)
        return
    if isinstance(obj, _LEAVES) or obj is None:
        return
    state = getattr(obj, "__dict__", None)
    if not isinstance(state, dict):
        return
    skip = param_names(obj) if skip_params else ()
    for k, v in state.items():
        if k in skip:
            continue
        if not _plain(v):
            _walk(v, f"{path}.{k}", seen, deeper, False, out)


#: Label vectors a sentinel-mode step (``PublicRowsFitted``) has split into public and private rows, with the
#: sentinel it used and the step: (y, sentinel, step), newest last.  Held by identity (a Pipeline hands the same y
#: object to every step), a few at a time.
_SENTINEL_ROWS: collections.deque[tuple[Any, Any, Any, Any]] = collections.deque(maxlen=32)
_SENTINEL_LOCK = threading.Lock()
#: Names under which a run receives the label vector its public rows may be marked in.
_LABEL_ARGUMENTS = ("y", "y_private")
#: The :func:`sentinel_rows_kept` block the current context runs in (its token; None outside any): each entry of
#: the record carries it, so the block drops its own runs' entries and no other's.
_SENTINEL_OWNER: contextvars.ContextVar[object | None] = contextvars.ContextVar("semiprivate_sentinel_owner",
                                                                               default=None)


def note_sentinel_rows(y: Any, sentinel: Any, step: Any) -> None:
    """Record that ``step`` fitted on the rows of ``y`` labelled ``sentinel`` as public rows (:func:`_check_rows`).

    Inside a :func:`sentinel_rows_kept` block, a full record drops the block's own oldest entry first (a search's
    runs never push the caller's entries out)."""
    owner = _SENTINEL_OWNER.get()
    with _SENTINEL_LOCK:
        if owner is not None and len(_SENTINEL_ROWS) == _SENTINEL_ROWS.maxlen:
            for i, entry in enumerate(_SENTINEL_ROWS):
                if entry[3] is owner:
                    del _SENTINEL_ROWS[i]
                    break
        _SENTINEL_ROWS.append((y, sentinel, step, owner))


@contextlib.contextmanager
def sentinel_rows_kept() -> Iterator[None]:
    """Run the block; afterwards no entry that the block's runs recorded is left in the public-rows record (also
    when the block raises).  For a wrapper that hides its number of runs (random stopping): one entry per run of a
    wrapper nested in it that makes its own split would stay, holding a losing run's fitted step.  Only the block's
    own entries go (entries are tagged by the context that recorded them: an application's thread keeps its own,
    and so does an overlapping search in another thread); a full record drops the block's oldest entry first, so
    the caller's entries are never pushed out.  Not tagged: entries recorded in worker threads a base starts (a new
    thread does not inherit the context); they are the caller's as far as this record can tell."""
    token = object()
    reset = _SENTINEL_OWNER.set(token)
    try:
        yield
    finally:
        _SENTINEL_OWNER.reset(reset)
        with _SENTINEL_LOCK:
            kept = [entry for entry in _SENTINEL_ROWS if entry[3] is not token]
            if len(kept) != len(_SENTINEL_ROWS):
                _SENTINEL_ROWS.clear()
                _SENTINEL_ROWS.extend(kept)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and not (a is None) ^ (b is None)
    except Exception:
        return a is b


def _check_rows(obj: Any, inputs: dict[str, Any]) -> None:
    """Before a run: if a sentinel-mode step has fitted on public rows marked in the very label vector this run
    receives, the run must read those rows as public too (its ``unlabeled_label`` is that sentinel).

    Otherwise (a learner given ``X_public`` by argument, or one whose classes include the sentinel) the step
    took private rows for public ones -- a scaler's mean of private rows -- and nothing else in a plain
    Pipeline compares the two: the run is refused and the step is left unfitted.
    """
    labels = [v for k, v in inputs.items() if k in _LABEL_ARGUMENTS and v is not None]
    if not labels or not _SENTINEL_ROWS:
        return
    with _SENTINEL_LOCK:
        seen = [(i, s, st) for i, (yy, s, st, _) in enumerate(_SENTINEL_ROWS) if st is not obj
                and any(yy is y for y in labels)]
        if not seen:
            return
        for i in sorted((i for i, _, _ in seen), reverse=True):
            del _SENTINEL_ROWS[i]
    mine = getattr(obj, "unlabeled_label", None)
    bad = [(s, st) for _, s, st in seen if not _same(mine, s)]
    if not bad:
        return
    sentinel, step = bad[0]
    for _, st in bad:
        if isinstance(st, Released):
            st._seal(strict=False, existing=frozenset())  # the step fitted on private rows: leave it unfitted
    raise ValueError(
        f"{type(obj).__name__}: unlabeled_label={mine!r}, but a preprocessing step ({type(step).__name__}, "
        f"unlabeled_label={sentinel!r}) fitted on the rows of this y labelled {sentinel!r} as public rows; this "
        "learner reads them as private labelled rows, so the step was fitted on private data (it is left "
        "unfitted). Give both the same unlabeled_label (a sentinel that is not a class), or pass the public "
        "rows by argument to both (fit(X, y, X_public=...)).")


#: How many release runs are in progress in this context: a run inside another release's run draws from the
#: stream that run derived for it (child streams), so only the outermost run's seeds are the user's.
_RUN_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("semiprivate_release_run_depth", default=0)
#: The objects whose run is in progress in this context (a subclass's run calling its parent's is one run).
_IN_RUN: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("semiprivate_release_in_run",
                                                                         default=frozenset())


def _bound(obj: Any, signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The run's inputs by name (``**fit_params`` flattened)."""
    try:
        bound = signature.bind_partial(obj, *args, **kwargs).arguments
    except TypeError:
        return {"args": args, **kwargs}
    inputs = {k: v for k, v in bound.items() if k != "self"}
    extra = inputs.pop("kwargs", None) if isinstance(inputs.get("kwargs"), dict) else None
    for name, p in signature.parameters.items():
        if p.kind is p.VAR_KEYWORD and isinstance(inputs.get(name), dict):
            inputs.update(inputs.pop(name))
    if extra:
        inputs.update(extra)
    return inputs


def _user_seeds(obj: Any, signature: inspect.Signature, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the seeds the run was given: its object's ``rng``/``random_state``/``seed`` and the run's own such
    arguments; the object's parameters; the run's other inputs)."""
    params = {k: getattr(obj, k) for k in param_names(obj) if hasattr(obj, k)}
    inputs = _bound(obj, signature, args, kwargs)
    seeds = {k: params[k] for k in RNG_NAMES if k in params}
    seeds.update({(k if seeds.get(k) is None else f"{k} (argument)"): inputs[k] for k in RNG_NAMES if k in inputs})
    return seeds, params, inputs


def _before_run(obj: Any, signature: inspect.Signature, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> tuple[bool, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Before a run of a release: (whether it has no guarantee to protect, the user seeds it was given by name,
    its parameters, its inputs).  A user seed is refused at once in secure mode (and any seed that reaches the
    coins later, by :func:`_coins`)."""
    if declared_model(obj) == NOT_PRIVATE:
        return True, {}, {}, {}  # no guarantee to protect
    if getattr(obj, "_audit_form", False) and seed_record.secure_mode_enabled():
        raise ValueError(f"{type(obj).__name__} draws float noise for audits (not exact on its support: its low bits "
                         "can tell neighbours apart, Mironov 2012), refused in secure mode; use an exact mechanism "
                         "(GeometricMechanism, the discrete samplers of semiprivate.kernels.noise)")
    if getattr(obj, "_audit_form", False):
        return True, {}, {}, {}  # declared not for a release (the auditor's textbook float laws): experiments
    seeds, params, inputs = _user_seeds(obj, signature, args, kwargs)
    # a seed the enclosing run derived for this one (child_streams, base_streams) is not the user's
    seeds = {k: v for k, v in seeds.items() if not _derived(v) and v is not None}
    seed_record.snapshot(type(obj).__name__, seeds)
    return False, seeds, params, inputs


def _released_value(obj: Any, out: Any) -> Any:
    """What a run released: its return value and every declared release on the object (both, always: a run
    that returns a part, e.g. a support, releases its declared attributes too)."""
    kept = {k: getattr(obj, k) for k in sorted(obj.kept_attributes()) if hasattr(obj, k)}
    return {"return": None if out is obj else out, "kept": kept}


def _close(ticket: Any, owner: str, seeds: dict[str, Any], kind: str, params: dict[str, Any],
           inputs: dict[str, Any], released: Callable[[], Any]) -> None:
    """After a run of a release succeeded: the seed record's check on the streams it drew from
    (:mod:`semiprivate.theory.privacy.seeds`): a stream a different release drew from is refused."""
    shown = next((f"{k}={_shown_seed(v)}" for k, v in seeds.items()), None) or next(
        iter(ticket.named), "a seed of an estimator inside it (rng)")
    seed_record.close_ticket(ticket, owner, shown, lambda: seed_record.fingerprint(kind, params, inputs),
                             lambda: seed_record.output_mac(released()))


def _normalise_budget(obj: Any) -> dict[str, Any]:
    """Read the object's budget parameters (:data:`~semiprivate.theory.privacy.budget.BUDGET_PARAMETERS`)
    through :class:`~semiprivate.theory.privacy.budget.Budget`'s normalisation before a run: a bad one is
    refused naming it (whether the constructor or ``set_params`` set it), and the run sees each as a Python
    float not above the given value.  Returns the given values that were replaced, which
    :func:`_restore_budget` puts back after the run (the parameters stay what the caller set, as scikit-learn's
    ``clone`` and ``get_params`` require)."""
    state = vars(obj)
    given: dict[str, Any] = {}
    normal: dict[str, float] = {}
    for name, kind in BUDGET_PARAMETERS.items():  # every name checked before any is written: a refused run
        value = state.get(name)                     # leaves the caller's parameters as they were
        if value is None:
            continue
        out = normal_epsilon(value, name) if kind == "epsilon" else normal_delta(value, name)
        if type(value) is not float:
            given[name] = value
            normal[name] = out
    state.update(normal)
    return given


def _restore_budget(obj: Any, given: dict[str, Any]) -> None:
    vars(obj).update(given)


def _exact_arguments(obj: Any, signature: inspect.Signature, args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The run's arguments with every coin parameter the class declares exact (``_exact_coins``) replaced by an
    :class:`~semiprivate.kernels.noise.ExactStream` on it (made inside the release's ticket: the seed record sees
    its generator).  The run's code then has no float draw to make: ``rng.laplace`` is a TypeError."""
    bound = signature.bind(obj, *args, **kwargs)
    bound.apply_defaults()
    for name in type(obj)._exact_coins:
        if name in bound.arguments:
            bound.arguments[name] = exact_stream(bound.arguments[name], name)
    return tuple(bound.args[1:]), dict(bound.kwargs)


def _sealing(method: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(method)

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        running = _IN_RUN.get()
        again = id(self) in running  # a subclass's run calling its parent's (super().fit): one run, checked once
        off = True
        seeds: dict[str, Any] = {}
        params: dict[str, Any] = {}
        inputs: dict[str, Any] = {}
        given: dict[str, Any] = {}
        try:
            if not again:
                given = _normalise_budget(self)
            if _SENTINEL_ROWS and not again:
                _check_rows(self, _bound(self, signature, args, kwargs))
            if not again:
                off, seeds, params, inputs = _before_run(self, signature, args, kwargs)
                outer = seed_record.current_ticket()
                if outer is not None and seeds:
                    outer.named += [f"{type(self).__name__}'s {k}={_shown_seed(v)}" for k, v in seeds.items()]
        except (ValueError, TypeError):
            _restore_budget(self, given)
            self._seal(strict=False, existing=frozenset(vars(self)))
            raise
        owner = type(self).__name__
        in_run = _IN_RUN.set(running | {id(self)})
        depth = _RUN_DEPTH.set(_RUN_DEPTH.get() + 1)
        inside = True
        before = frozenset(vars(self))  # what the caller (or a framework, e.g. scikit-learn's callbacks) set
        try:
            with seed_record.release_ticket(owner, off=off or again) as ticket:
                if type(self)._exact_coins:
                    args, kwargs = _exact_arguments(self, signature, args, kwargs)
                out = method(self, *args, **kwargs)
            _RUN_DEPTH.reset(depth)
            _IN_RUN.reset(in_run)
            inside = False
            if ticket is not None:
                # a stream a different release drew from: the run's output is not returned and the object is
                # left unfitted (the refusal below seals it as a failed run)
                kind = f"{type(self).__module__}.{type(self).__qualname__}.{method.__name__}"
                try:
                    _close(ticket, owner, seeds, kind, params, inputs, lambda: _released_value(self, out))
                except ValueError:
                    # the refused run's release must not survive in a base it fitted in place either
                    for name in param_names(self):
                        value = getattr(self, name, None)
                        if isinstance(value, Released) and value is not self:
                            value._seal(strict=False, existing=frozenset())
                    raise
        except BaseException:
            if inside:
                _RUN_DEPTH.reset(depth)
                _IN_RUN.reset(in_run)
            _restore_budget(self, given)
            self._seal(strict=False, existing=before)
            raise
        _restore_budget(self, given)
        self._seal(existing=before)
        return out

    run.__sealed__ = True  # type: ignore[attr-defined]
    return run


def released_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make a public function that releases noise (the exponential mechanism's ``sample``, the structured
    mechanisms) a release like the classes' runs: its ``rng`` is refused in secure mode, and the streams it
    draws from are recorded against a keyed fingerprint of its arguments and output (one seed, one release;
    the same call again is allowed).  Called inside another release's run, it draws into that release."""
    signature = inspect.signature(fn)
    owner = fn.__qualname__
    kind = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        if seed_record.current_ticket() is not None:
            return fn(*args, **kwargs)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return fn(*args, **kwargs)  # the function's own TypeError
        bound.apply_defaults()  # a default written out is the same call as the default left out
        inputs = dict(bound.arguments)
        seeds = {k: v for k, v in inputs.items() if k in RNG_NAMES and v is not None and not _derived(v)}
        seed_record.snapshot(owner, seeds)
        with seed_record.release_ticket(owner) as ticket:
            out = fn(*args, **kwargs)
        if ticket is not None:
            _close(ticket, owner, seeds, kind, {}, inputs, lambda: out)
        return out

    return run


class Released:
    """Mixin: the release boundary (module docstring).  Declare ``_releases`` and ``_public``.

    Every run method (``fit``, ``sanitize``, ``__call__``) a subclass defines is wrapped so that
    the object is sealed after it returns or raises: only the parameters, ``_releases`` and
    ``_public`` stay; a generator outside the parameters is a RuntimeError (a bug of the class).
    """

    #: fitted attributes that are functions of private data, covered by ``privacy_``
    _releases: ClassVar[frozenset[str]] = frozenset()
    #: attributes computed from the parameters, the public data and the input sizes only
    _public: ClassVar[frozenset[str]] = frozenset()
    #: run-method parameters whose coins the run receives as an exact-only stream
    #: (:class:`~semiprivate.kernels.noise.ExactStream`: exact samplers only, every float draw refused)
    _exact_coins: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in RUN_METHODS:
            fn = cls.__dict__.get(name)
            if callable(fn) and not getattr(fn, "__sealed__", False):
                setattr(cls, name, _sealing(fn))

    @classmethod
    def kept_attributes(cls) -> frozenset[str]:
        """Every non-parameter attribute a sealed object may hold (``_releases`` and ``_public``)."""
        return frozenset(cls._releases) | frozenset(cls._public)

    def _allowed(self) -> frozenset[str]:
        return frozenset(param_names(self)) | self.kept_attributes()

    def _seal(self, strict: bool = True, existing: frozenset[str] = frozenset()) -> None:
        """Drop every undeclared attribute the run added (attributes set before the run, ``existing``, belong
        to the caller: a framework such as scikit-learn sets and removes its own around ``fit``); refuse
        coin state outside the parameters (``strict``; a run that raised is sealed without the refusal, so
        its own exception is the one the caller sees)."""
        allowed = self._allowed()
        for k in [k for k in vars(self) if k not in allowed and k not in existing]:
            delattr(self, k)
        if not strict:
            # a run that raised leaves the object unfitted: no release of it (nor a previous run's privacy_,
            # which no longer describes what the object holds) survives
            for k in [k for k in vars(self) if k in self._releases or (k in self._public and k not in existing)]:
                delattr(self, k)
        # a generator passed as a parameter produced the run's coins: its state (rewound, or its seed sequence
        # re-spawned) replays them, so the fitted object does not keep it (the caller still holds it)
        for k in param_names(self):
            if is_coin_state(vars(self).get(k)):
                setattr(self, k, None)
        leaks = coin_state_paths(self)
        if leaks:
            for k in {p.split(".")[1].split("[")[0] for p in leaks if p.startswith(".")}:
                if k in vars(self):
                    delattr(self, k)
            if not strict:
                return
            raise RuntimeError(f"{type(self).__name__}: the run left coin state in {leaks} (a generator or seed "
                               "sequence lets one replay the run's noise); this is a bug of the class")

    def __getstate__(self) -> dict[str, Any]:
        allowed = self._allowed() | {k for k in vars(self) if k.startswith("_") and not k.startswith("__")
                                     and not is_coin_state(vars(self)[k]) and k in _FRAMEWORK_STATE}
        params = set(param_names(self))
        state: dict[str, Any] = {}
        for k, v in vars(self).items():
            if k not in allowed:
                continue
            state[k] = None if (k in params and is_coin_state(v)) else v
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

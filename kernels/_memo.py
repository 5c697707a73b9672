"""The package's process-wide memo state: :func:`memo_table` (a registered memo dict), :func:`memo` (the package's
one cache decorator) and :func:`tables_kept` (run a block, then put every table back as it was).

**No hit counter.**  ``functools.lru_cache`` keeps ``cache_info()`` hits and misses, which count every call: a cache
on the path a release runs then counts its runs, and a wrapper whose guarantee assumes the number of runs hidden
(random stopping's K, Papernot and Steinke 2022) shows it to anyone who reads the counter.  :func:`memo` stores what
was computed and nothing about how often it was asked for: its state is a function of the distinct arguments seen
(first-in first-out beyond ``maxsize``; a hit changes nothing), and it offers ``cache_clear()`` only.  An
architecture test (``tests/test_architecture.py``) forbids ``functools.lru_cache`` and ``functools.cache`` in the
package.

**One registry.**  The keys of a memo table still show *which* arguments were asked for: a search whose candidates
differ in a parameter that enters a key (epochs, a batch size, an epsilon) leaves the keys of every candidate that
ran, so after random stopping K = 1 leaves one candidate's keys and K = 7 most of them.  Every process-wide cache of
the package is therefore a :class:`MemoTable` made by :func:`memo_table` (a :func:`memo`'s results too), and
:func:`tables_kept` -- entered by :func:`semiprivate.theory.privacy._release.captured_runs` and around random
stopping's runs -- gives every registered table back, when each block ends, the entries (keys, order and the same
value objects) it held when the first of the blocks then open began.  A memo is pure (an entry is a function of its key), so dropping the block's
entries changes no result, only the time of a later call.  A registry test
(``tests/theory/privacy/release/test_memo_registry.py``) checks that every module-level container of the package
that running the learners changes is a registered table, or on an allow-list with its reason.

Not covered (outside what this module holds): caches of other libraries (scikit-learn's, NumPy's, SciPy's,
dp-accounting's, the interpreter's own: ``sys.modules`` when a run imports a module first), files, sockets, and
the time a later call takes (an entry dropped is computed again).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["memo", "memo_table", "MemoTable", "registered_tables", "tables_kept"]

F = TypeVar("F", bound=Callable[..., Any])

_MISSING = object()
_WHEN_FULL = ("oldest", "keep")


class MemoTable(dict):  # type: ignore[type-arg]
    """A registered process-wide memo table (:func:`memo_table`): a dict, with its name, its lock and its bound.

    Read it with :meth:`lookup` (or ``get``: never ``table[key]`` after ``key in table``, since
    :func:`tables_kept` may put the table back between the two).  Writes that go through :meth:`lookup`,
    :meth:`store` and :meth:`cache_clear` hold :attr:`lock`, as :func:`tables_kept`'s restore does, so a restore
    never meets a half-done eviction.  Pickles as a plain dict.
    """

    __slots__ = ("name", "lock", "maxsize", "when_full", "__weakref__")

    def __init__(self, name: str, maxsize: int | None, when_full: str) -> None:
        super().__init__()
        self.name = name
        self.lock = threading.RLock()
        self.maxsize = maxsize
        self.when_full = when_full

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))

    # A table is an identity (one registered object), not a value: ``table in registered_tables()`` and ``==`` never
    # compare contents (which may hold arrays, whose ``==`` has no truth value) and two tables holding the same
    # entries stay two tables.  Compare contents with ``dict(a) == dict(b)``.
    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    __hash__ = object.__hash__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MemoTable({self.name!r}, {len(self)} entries)"

    def store(self, key: Any, value: Any) -> Any:
        """Keep ``value`` under ``key`` (a key already there keeps its first value); returns the value now kept.

        When the table holds ``maxsize`` entries: ``when_full="oldest"`` drops the oldest first (first-in
        first-out), ``"keep"`` stores nothing new (the table is the first ``maxsize`` distinct keys, never emptied)."""
        with self.lock:
            got = dict.get(self, key, _MISSING)
            if got is not _MISSING:
                return got
            if self.maxsize is not None and len(self) >= self.maxsize:
                if self.when_full == "keep":
                    return value
                while len(self) >= self.maxsize:
                    del self[next(iter(self))]
            self[key] = value
            return value

    def lookup(self, key: Any, compute: Callable[[], Any]) -> Any:
        """The value kept under ``key``, else ``compute()`` (outside the lock), kept by :meth:`store`."""
        got = dict.get(self, key, _MISSING)
        if got is not _MISSING:
            return got
        return self.store(key, compute())

    def cache_clear(self) -> None:
        """Drop every entry."""
        with self.lock:
            self.clear()


#: Every live registered table, by registration number (a table dropped with its function leaves on its own).
_TABLES: weakref.WeakValueDictionary[int, MemoTable] = weakref.WeakValueDictionary()
_NUMBERS = itertools.count()
_REGISTRY_LOCK = threading.Lock()


def memo_table(name: str, *, maxsize: int | None = None, when_full: str = "oldest") -> MemoTable:
    """A new registered process-wide memo table, named ``name`` (by convention ``module.variable``).

    Parameters
    ----------
    name : str
        The table's name, for messages and the registry test.
    maxsize : int or None
        The most entries kept (>= 1; None: unbounded).
    when_full : {"oldest", "keep"}
        What :meth:`MemoTable.store` does when full: drop the oldest entry, or keep the first ``maxsize`` keys.

    Examples
    --------
    >>> from semiprivate.kernels._memo import memo_table, registered_tables
    >>> t = memo_table("doc.example", maxsize=2)
    >>> t.lookup(1, lambda: "one"), t.lookup(1, lambda: "ONE")
    ('one', 'one')
    >>> t in registered_tables()
    True
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty str, got {name!r}")
    if maxsize is not None and (isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1):
        raise ValueError(f"maxsize must be an int >= 1 or None, got {maxsize!r}")
    if when_full not in _WHEN_FULL:
        raise ValueError(f"when_full must be one of {_WHEN_FULL}, got {when_full!r}")
    table = MemoTable(name, maxsize, when_full)
    with _REGISTRY_LOCK:
        _TABLES[next(_NUMBERS)] = table
    return table


def registered_tables() -> list[MemoTable]:
    """Every live registered table, oldest registration first."""
    with _REGISTRY_LOCK:
        return [t for _, t in sorted(_TABLES.items(), key=lambda item: item[0])]


class _Held:
    """:func:`tables_kept`'s state: how many blocks are open in the process, and the tables' contents when the
    first of them began (by table id; the table itself is held weakly)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: list[tuple[weakref.ref[MemoTable], dict[Any, Any]]] = []


_HELD = _Held()


def _restore(table: MemoTable, content: dict[Any, Any]) -> None:
    with table.lock:
        # unchanged (the same keys in the same order, holding the same objects): left alone, so a concurrent reader
        # never meets an emptied table for nothing
        if len(table) == len(content) and all(a is b or a == b for a, b in zip(table, content)) \
                and all(dict.get(table, k, _MISSING) is v for k, v in content.items()):
            return
        table.clear()
        table.update(content)


@contextlib.contextmanager
def tables_kept() -> Iterator[None]:
    """Run the block; when it ends, every registered table holds what it held when the first of the blocks open at
    the time began: the same keys in the same order, bound to the same value objects (a table registered since is
    emptied).  The restore is shallow: a cached value changed in place stays changed (the package's cached values
    are not changed after they are stored).

    Blocks nest and overlap across threads (nothing waits: a base may run a nested search in a worker thread).  The
    contents are saved when the first block of the process opens, and EVERY block puts that saved state back when
    it ends (the save is dropped when the last one ends): so a search that returns leaves none of its entries
    behind, whatever other blocks are open; entries that other open blocks, or threads outside any block, stored
    meanwhile are dropped with them (a memo is pure: they are computed again when next asked for).  Each table is
    restored under its own lock, and a reader that takes ``get`` sees either a kept value or none: no restore
    corrupts a table or fails a concurrent lookup.  A table whose restore raises (a key whose comparison fails)
    does not stop the others: the first error is raised after every table has been put back.
    """
    with _HELD.lock:
        if _HELD.depth == 0:
            saved = []
            for t in registered_tables():
                with t.lock:
                    saved.append((weakref.ref(t), dict(t)))
            _HELD.saved = saved
        _HELD.depth += 1
    try:
        yield
    finally:
        first_error: BaseException | None = None
        with _HELD.lock:
            _HELD.depth -= 1
            kept: dict[int, tuple[weakref.ref[MemoTable], dict[Any, Any]]] = {}
            for ref, content in _HELD.saved:
                alive = ref()
                if alive is not None:
                    kept[id(alive)] = (ref, content)
            if _HELD.depth == 0:
                _HELD.saved = []
            for t in registered_tables():
                ref_content = kept.get(id(t))
                # the saved content of this very table (a table dropped during the block and a new one at its
                # address are not the same table: the new one is emptied)
                try:
                    _restore(t, ref_content[1] if ref_content is not None and ref_content[0]() is t else {})
                except BaseException as exc:  # every table is put back before the first error is raised
                    if first_error is None:
                        first_error = exc
        if first_error is not None:
            raise first_error


def memo(maxsize: int) -> Callable[[F], F]:
    """Cache a pure function of hashable arguments, keeping at most ``maxsize`` results, with no counter.

    The results are a registered :class:`MemoTable` named after the function (``module.qualname``), so
    :func:`tables_kept` puts them back too.

    Parameters
    ----------
    maxsize : int
        The most results kept (>= 1); the oldest is dropped first.  A hit neither moves nor counts anything.

    Returns
    -------
    callable
        A decorator; the decorated function has ``cache_clear()``.

    Examples
    --------
    >>> from semiprivate.kernels._memo import memo
    >>> @memo(maxsize=2)
    ... def square(x):
    ...     return x * x
    >>> square(3), square(3)
    (9, 9)
    >>> hasattr(square, "cache_info")
    False
    """
    if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
        raise ValueError(f"maxsize must be an int >= 1, got {maxsize!r}")

    def decorate(fn: F) -> F:
        results = memo_table(f"{fn.__module__}.{fn.__qualname__}", maxsize=maxsize)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            # keyword arguments after a marker no positional tuple can hold (as functools' own key): f(x=1) and
            # f((), (("x", 1),)) are different calls
            key = (args, _MISSING, tuple(sorted(kwargs.items()))) if kwargs else args
            got = results.get(key, _MISSING)
            if got is not _MISSING:
                return got
            return results.store(key, fn(*args, **kwargs))

        wrapper.cache_clear = results.cache_clear  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate

"""Root conftest: docstring examples (doctests) of the package, collected under their import names.

The folders ``theory/``, ``kernels/`` and ``proofs_checks/`` install as ``semiprivate.theory``,
``semiprivate.kernels`` and ``semiprivate.proofs_checks`` (setup.py's ``PACKAGE_DIRS``).  pytest's
own ``--doctest-modules`` would import ``theory/graphs.py`` as a second module named
``semiprivate.theory.graphs``; here each file's doctests run against the module the package really imports
(``semiprivate.theory.graphs``), with pytest's doctest runner and ``doctest_optionflags``.
Modules that need CuPy are skipped when it is absent.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest
from _pytest.doctest import DoctestModule

ROOT = Path(__file__).resolve().parent
PACKAGE_DIRS = {"semiprivate": "semiprivate", "theory": "semiprivate.theory", "kernels": "semiprivate.kernels",
                "proofs_checks": "semiprivate.proofs_checks"}

collect_ignore = ["setup.py", "build"]
collect_ignore_glob = ["benchmarks/*"]
_NO_CUPY = importlib.util.find_spec("cupy") is None


def import_name(path: Path) -> str | None:
    """``theory/audit/core.py`` -> ``semiprivate.theory.audit.core``; None outside the package folders."""
    rel = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else None
    if rel is None or rel.parts[0] not in PACKAGE_DIRS or rel.suffix != ".py":
        return None
    parts = [PACKAGE_DIRS[rel.parts[0]], *rel.parts[1:-1]]
    if rel.stem != "__init__":
        parts.append(rel.stem)
    return ".".join(parts)


class PackageDoctestModule(DoctestModule):
    """pytest's doctest collector over the module imported by its package name."""

    def _getobj(self) -> ModuleType:
        name = import_name(self.path)
        assert name is not None
        return importlib.import_module(name)


#: deprecated names of modules (the same module object as their new name, which carries the examples)
DEPRECATED_MODULES = frozenset({"semiprivate.kernels.validation"})


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = import_name(file_path)
    if name is None or file_path.name == "conftest.py":
        return None
    if _NO_CUPY and name.startswith("semiprivate.kernels._cupy."):
        return None
    if name in DEPRECATED_MODULES:
        return None  # importing it warns; its examples are the new module's
    return PackageDoctestModule.from_parent(parent, path=file_path)


#: the thread pools a worker's libraries start (OpenMP: the compiled kernels, scikit-learn; BLAS: NumPy, SciPy)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, each worker's OpenMP and BLAS pools get the cores divided by the workers (at least one),
    as scikit-learn's own test configuration does: with ``-n 2`` on two cores, two-thread pools in both workers
    oversubscribe the cores, and OpenBLAS's waiting threads spin (a 2048 x 2048 QR took 52 s against 2.1 s with one
    thread, on this project's 2-core CI machine beside other work).  A limit the user set in the environment is
    kept; subprocesses the tests start inherit it."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if not hasattr(config, "workerinput") or not workers:
        return
    threads = max(1, (os.cpu_count() or 1) // int(workers))
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, str(threads))  # libraries loaded from here on read these
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=int(os.environ["OMP_NUM_THREADS"]))  # and the ones already loaded


#: folders (from the repository root) whose tests share one pytest-xdist worker, and why
XDIST_GROUPS = {
    # the checks run once per process (``run_all`` keeps them; about 25 CPU-seconds) and most of these tests and
    # the docstring example of ``run_all`` read that run: in one worker it is made once
    "tests/proofs_checks": "proofs_checks",
    "proofs_checks": "proofs_checks",
}


#: measured seconds (setup + call + teardown) of the tests that take 0.5 s or more, written by
#: ``pytest --store-durations`` (a whole run, e.g. ``bash scripts/test.sh --store-durations``); read to hand the
#: longest work out first under pytest-xdist.  A test it does not list counts as ``SLOW_DEFAULT`` seconds when
#: marked ``slow``, else as 0 (collection order).
DURATIONS_FILE = ROOT / "tests" / "durations.json"
SLOW_DEFAULT = 10.0
STORED_MIN = 0.5
_GROUP_SUFFIX = re.compile(r"@\w+$")  # the xdist_group suffix of a test id (see below)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--store-durations", action="store_true", default=False,
                     help=f"write the measured seconds of every test of >= {STORED_MIN} s to {DURATIONS_FILE.name} "
                          "(read by the pytest-xdist ordering: the longest work first)")


def _durations() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))}


_MEASURED: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each test's phases (under pytest-xdist, in the controller, from the workers' reports)."""
    _MEASURED[_GROUP_SUFFIX.sub("", report.nodeid)] += report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not session.config.getoption("store_durations", False) or hasattr(session.config, "workerinput"):
        return
    kept = {k: round(v, 1) for k, v in sorted(_MEASURED.items()) if v >= STORED_MIN}
    DURATIONS_FILE.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n", encoding="utf-8")


def _xdist_groups(item: pytest.Item) -> list[str]:
    """The names of ``item``'s ``xdist_group`` marks, as pytest-xdist reads them."""
    return sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")})


#: the fixture scopes narrower than the session and wider than one test, widest first
_SHARED_SCOPES = ("package", "module", "class")


def _shared_fixture_scope(item: pytest.Item) -> str:
    """The node whose tests share a fixture with ``item`` (its package, module or class; the widest when
    several), as ``"scope:nodeid"``; "" when every fixture it uses is per test or per session.

    pytest tears such a fixture down when a worker's next test is outside that node, and builds it again when
    a later test comes back to it; so these tests are handed out as one block, kept in pytest's own order."""
    info = getattr(item, "_fixtureinfo", None)
    scopes = set()
    for defs in (info.name2fixturedefs.values() if info is not None else ()):
        if defs:
            scopes.add(str(getattr(defs[-1].scope, "value", defs[-1].scope)))
    for scope in _SHARED_SCOPES:
        if scope in scopes:
            node = item.getparent({"package": pytest.Package, "module": pytest.Module, "class": pytest.Class}[scope])
            return f"{scope}:{node.nodeid if node is not None else item.path}"
    return ""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist: the longest tests first (``DURATIONS_FILE``; unmeasured ``slow`` tests before the other
    unmeasured ones); with ``--dist loadgroup``, tests marked ``xdist_group(name)`` run in one worker.

    pytest-xdist tells its scheduler a test's group by appending ``@name`` to the test's id, which it writes to
    ``item._nodeid``; since pytest 9.2 a test's id is ``item._id`` (a structured ``NodeId``), so that write has no
    effect and every group is silently spread over the workers (pytest-xdist issue #1386; its fix, PR #1388, is
    not released).  The session-scoped builds of the packaging tests were then made once per worker.  Here the
    suffix is added where pytest-xdist's write did not take: the ids, and so the grouping, are exactly what
    pytest-xdist makes with pytest before 9.2."""
    if not hasattr(config, "workerinput"):
        return
    loadgroup = getattr(config.option, "loadgroup", False)
    if loadgroup:
        for item in items:
            rel = item.path.resolve().relative_to(ROOT).parts if item.path.resolve().is_relative_to(ROOT) else ()
            group = next((g for folder, g in XDIST_GROUPS.items() if rel[:len(Path(folder).parts)] == Path(folder).parts), None)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))
    # the longest work first (longest-processing-time order), so that the run does not end on one worker
    # finishing a long test while the other is idle: a test by its measured seconds (DURATIONS_FILE; unmeasured:
    # SLOW_DEFAULT if marked ``slow``, else 0), a group (handed out whole under --dist loadgroup) by the sum of its
    # tests, and so are the tests that share a package-, module- or class-scoped fixture (kept together: each
    # worker builds it once); stable, so collection order otherwise
    measured = _durations()

    def expected(item: pytest.Item) -> float:
        found = measured.get(item.nodeid)
        if found is not None:
            return found
        return SLOW_DEFAULT if item.get_closest_marker("slow") is not None else 0.0

    unit = {id(item): ("_".join(_xdist_groups(item)) if loadgroup else "") or _shared_fixture_scope(item)
            for item in items}
    totals: defaultdict[str, float] = defaultdict(float)
    for item in items:
        totals[unit[id(item)]] += expected(item)
    items.sort(key=lambda item: -(totals[unit[id(item)]] if unit[id(item)] else expected(item)))
    if not loadgroup:
        return
    for item in items:
        names = _xdist_groups(item)
        if not names or item.nodeid.endswith("@" + "_".join(names)):
            continue
        grouped = f"{item.nodeid}@{'_'.join(names)}"
        node_id = getattr(item, "_id", None)
        if node_id is not None and hasattr(type(node_id), "parse"):
            item._id = type(node_id).parse(grouped)  # type: ignore[attr-defined]
        else:
            item._nodeid = grouped  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _separate_seed_record():
    """Each test and each docstring example starts with an empty record of the seeds releases used
    (:mod:`semiprivate.theory.privacy.seeds`): one test's releases are not another's."""
    from semiprivate.theory.privacy.seeds import forget_seeds

    forget_seeds()
    yield
    forget_seeds()

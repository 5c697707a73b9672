"""pytest plugin: audit your own mechanisms for differential privacy inside your test suite.

Registered through the ``pytest11`` entry point, so installing ``semiprivate`` is enough.  It adds

* the fixture ``dp_audit``: ``dp_audit(mechanism, data, neighbour, epsilon=..., delta=..., **kw)``
  runs :func:`semiprivate.theory.audit.audit_mechanism` and, when the audit refutes the claim,
  fails the test with the audit report as the whole failure message (no library source);
  it returns the :class:`~semiprivate.theory.audit.AuditResult` otherwise;
* the marker ``@pytest.mark.dp_audit(epsilon=..., delta=0.0, trials=..., confidence=...)``: the
  claim (and audit settings) the fixture uses when the call does not give them;
* the options ``--dp-trials N`` (estimation trials per dataset), ``--dp-confidence C`` (default
  0.999: a correct mechanism fails a ``dp_audit`` call with probability at most 0.001) and
  ``--dp-seed S`` (default 0: audits are reproducible; each test's seed is ``S`` combined with
  the test's id, so tests do not share random streams).

Precedence: an argument of the ``dp_audit(...)`` call, then the marker, then the command line
option, then the auditor's default.

The plugin costs nothing to test runs that do not use it: it lives in the light top-level package
(``import semiprivate`` loads no sub-package), imports only pytest, and imports the auditor the
first time a test requests the fixture.  (Inside :mod:`semiprivate.theory.audit` it would load
NumPy, SciPy and the auditor, about 0.3 s, at the start of every pytest run of every project
installed next to semiprivate.)

Implements: AUDIT (pytest integration).
"""

from __future__ import annotations

import zlib
from typing import Any

import pytest

__all__ = ["DPAudit", "pytest_addoption", "pytest_configure", "dp_audit"]

MARKER = "dp_audit"
#: the gates' confidence, :data:`semiprivate.theory.audit.options.DEFAULT_CONFIDENCE` (written out here so that
#: loading the plugin imports nothing of the auditor; a test checks the two agree)
DEFAULT_CONFIDENCE = 0.999
DEFAULT_SEED = 0
_SETTINGS = ("epsilon", "delta", "trials", "confidence")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"must be >= 1, got {value}")
    return value


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 < value < 1.0:  # NaN-safe
        raise ValueError(f"must be in (0, 1), got {value}")
    return value


def _seed(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"must be >= 0, got {value}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dp-audit", "differential-privacy audits (semiprivate)")
    group.addoption("--dp-trials", type=_positive_int, default=None, metavar="N",
                    help="estimation trials per dataset of every dp_audit call (default: the auditor's, 1,000,000)")
    group.addoption("--dp-confidence", type=_probability, default=DEFAULT_CONFIDENCE, metavar="C",
                    help=f"confidence of every dp_audit call (default {DEFAULT_CONFIDENCE}: a correct mechanism "
                         "fails a call with probability at most 1 - C)")
    group.addoption("--dp-seed", type=_seed, default=DEFAULT_SEED, metavar="S",
                    help=f"base seed of the audits (default {DEFAULT_SEED}); each test mixes in its own id")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(epsilon, delta=0.0, trials=None, confidence=None): the privacy claim the dp_audit fixture "
        "checks (semiprivate)")


class DPAudit:
    """The object the ``dp_audit`` fixture returns: call it to audit a mechanism.

    ``settings`` holds the marker's and the command line's values; ``seed`` is this test's seed.
    """

    def __init__(self, settings: dict[str, Any], seed: int, nodeid: str) -> None:
        self.settings = settings
        self.seed = seed
        self.nodeid = nodeid

    def __call__(self, mechanism: Any, data: Any, neighbour: Any, **kwargs: Any) -> Any:
        """Audit ``mechanism`` (``mechanism(data, size, rng)``; wrap a one-output function with
        :func:`semiprivate.theory.audit.vectorize`) on ``data`` and ``neighbour``.

        Keyword arguments are those of :func:`semiprivate.theory.audit.audit_mechanism`: the claim
        (``epsilon``, from the call or the marker), the budget, ``options=AuditOptions(...)`` and the
        knobs by keyword, which are gathered into one
        :class:`~semiprivate.theory.audit.options.AuditOptions` passed whole.  Fails the test with the
        audit report when the claim is refuted; returns the audit result otherwise.
        """
        __tracebackhide__ = True
        from semiprivate.theory.audit.core import audit_mechanism
        from semiprivate.theory.audit.options import AuditOptions

        call = {k: v for k, v in self.settings.items() if v is not None}
        call.update(kwargs)
        if "epsilon" not in call:
            raise TypeError(f"dp_audit needs the claimed epsilon: pass epsilon=... or mark the test "
                            f"@pytest.mark.{MARKER}(epsilon=...)")
        call.setdefault("rng", self.seed)
        knobs = {k: call.pop(k) for k in AuditOptions.knob_names() if k in call}
        call["options"] = AuditOptions.resolve(call.get("options"), knobs, "dp_audit")
        result = audit_mechanism(mechanism, data, neighbour, **call)
        if result.violation:
            name = getattr(mechanism, "__name__", None) or type(mechanism).__name__
            pytest.fail(f"DP audit: {name} is not ({result.epsilon:g}, {result.delta:g})-DP\n{result.report()}",
                        pytrace=False)
        return result


def _test_seed(base: int, nodeid: str) -> int:
    """A seed for one test: the base seed and a CRC of the test id (stable across runs and machines)."""
    return base * 2**32 + zlib.crc32(nodeid.encode())


@pytest.fixture
def dp_audit(request: pytest.FixtureRequest) -> DPAudit:
    """Audit a mechanism's privacy claim; a refuted claim fails the test with the audit report."""
    config = request.config
    settings: dict[str, Any] = {"trials": config.getoption("--dp-trials"),
                                "confidence": config.getoption("--dp-confidence")}
    marker = request.node.get_closest_marker(MARKER)
    if marker is not None:
        if marker.args:
            raise TypeError(f"@pytest.mark.{MARKER} takes keyword arguments only ({', '.join(_SETTINGS)}), "
                            f"got positional {marker.args!r}")
        unknown = sorted(set(marker.kwargs) - set(_SETTINGS))
        if unknown:
            raise TypeError(f"@pytest.mark.{MARKER} got unknown argument(s) {unknown}; known: {', '.join(_SETTINGS)}")
        settings.update({k: v for k, v in marker.kwargs.items() if v is not None})
    seed = _test_seed(int(config.getoption("--dp-seed")), request.node.nodeid)
    return DPAudit(settings, seed, request.node.nodeid)

"""Empirical differential-privacy auditing (Implements: AUDIT).

* :func:`audit_mechanism` / :func:`audit_pairs`: a statistically valid epsilon lower bound
  for a mechanism ``mechanism(data, size, rng)`` on neighbouring inputs, with a witness event.
* :func:`assert_private`: the same as a pytest assertion with a readable report.
* :class:`AuditOptions`: the auditor's tuning knobs in one validated, immutable object, passed whole by
  every entry point (:mod:`semiprivate.theory.audit.options`, where the defaults are stated once).
* :func:`vectorize`: one-output ``fn(data, rng)`` -> the ``(data, size, rng)`` form.
* :func:`one_run_audit` / :func:`one_run_epsilon_bound`: the epsilon lower bound of one run with ``m``
  canaries, each included with probability 1/2 (Steinke, Nasr, Jagielski 2023; :mod:`semiprivate.theory.audit.one_run`).
* :func:`ratio_epsilon_bound` / :func:`ratio_p_value`: the exact conditional test of a probability ratio
  from two Poisson counts, behind ``audit_pairs(..., interval="poisson-conditional")``
  (:mod:`semiprivate.theory.audit.conditional`).
* :func:`hockey_stick_lower_bound` / :func:`hockey_stick_audit`: a valid lower bound on the hockey-stick
  divergence ``delta(epsilon)`` from samples (an event chosen on a training part, among the auditor's families and
  kernel MMD-witness / log-ratio scores, then two exact intervals on the rest; :mod:`semiprivate.theory.audit.hockey`).
* :func:`exact_privacy_loss`: max log ratio and delta(epsilon) (hockey-stick divergence) for
  mechanisms whose output distributions are known exactly.
* :mod:`semiprivate.theory.audit.neighbours`: plain samplers of neighbouring datasets (for searches);
  :mod:`semiprivate.theory.audit.strategies`: the same as hypothesis strategies (imported lazily, so
  hypothesis is only needed when you use them).
* :mod:`semiprivate.theory.audit.broken`: deliberately broken mechanisms (an auditor must catch them).
* :mod:`semiprivate.theory.audit.examples`: the mechanisms of published DP testers' benchmarks (SVT
  family, noisy max, histograms, prefix sums, RAPPOR; correct and broken), to copy or audit.

The toolkit's own audit cases (its mechanisms and learners) live in :mod:`semiprivate.theory.audit_suite`
(``python -m semiprivate audit``): the generic auditor imports nothing from ``semiprivate.theory.learners``.
"""

from __future__ import annotations

import importlib
from typing import Any

from semiprivate.theory.audit.conditional import ratio_epsilon_bound, ratio_p_value
from semiprivate.theory.audit.core import (
    AuditResult,
    Event,
    Mechanism,
    Witness,
    assert_private,
    audit_mechanism,
    audit_pairs,
    vectorize,
)
from semiprivate.theory.audit.curves import EpsilonCurve, epsilon_curve
from semiprivate.theory.audit.exact import ExactPrivacyLoss, exact_privacy_loss, hockey_stick
from semiprivate.theory.audit.hockey import HockeyStickBound, hockey_stick_audit, hockey_stick_lower_bound
from semiprivate.theory.audit.one_run import OneRunAudit, one_run_audit, one_run_epsilon_bound, one_run_p_value
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.audit.renyi import RenyiBound, renyi_lower_bound
from semiprivate.theory.audit.stats import clopper_pearson, cp_lower, cp_upper, epsilon_bound

__all__ = [
    "AuditResult",
    "Event",
    "Mechanism",
    "Witness",
    "assert_private",
    "audit_mechanism",
    "audit_pairs",
    "vectorize",
    "AuditOptions",
    "ExactPrivacyLoss",
    "exact_privacy_loss",
    "hockey_stick",
    "HockeyStickBound",
    "hockey_stick_audit",
    "hockey_stick_lower_bound",
    "OneRunAudit",
    "one_run_audit",
    "one_run_epsilon_bound",
    "one_run_p_value",
    "clopper_pearson",
    "cp_lower",
    "cp_upper",
    "epsilon_bound",
    "ratio_epsilon_bound",
    "ratio_p_value",
    "EpsilonCurve",
    "epsilon_curve",
    "RenyiBound",
    "renyi_lower_bound",
    "strategies",
    "neighbours",
    "examples",
]


def __getattr__(name: str) -> Any:
    if name in ("strategies", "neighbours", "broken", "examples"):
        return importlib.import_module(f"semiprivate.theory.audit.{name}")
    raise AttributeError(f"module 'semiprivate.theory.audit' has no attribute {name!r}")

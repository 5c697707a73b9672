"""Rényi-DP lower bounds from an audit's counts (:mod:`semiprivate.theory.audit.renyi`).

Calibration with power (a tight design): the mechanism ``M(0) = 1`` always, ``M(1) = 1`` with probability
``q = e^-1`` (else 0), so ``D_alpha(M(0) || M(1)) = -log q = 1`` for every order; the user event ``{x == 1}``
is tested in both directions (``K = 2``, four one-sided intervals at ``(1 - confidence) / 4`` each),
2,000 Poisson-sized outputs per input, confidence 0.5, ``R = 600`` seeds.  Since ``P[M(0) in E] = 1``, the
numerator's interval can never be above the truth, and ``d(p_lo, q_hi) > d(1, q)`` forces ``q_hi < q`` (``d``
increases in ``P`` and decreases in ``Q`` on ``P > Q``); the reverse direction has ``q_hi = 1`` and gives 0.
So a valid bound exceeds the true ``D_2 = 1`` with probability at most ``0.5 / 4 = 0.125``, the level of that one
interval, and the limit is the smallest ``L`` with ``P[Binomial(600, 0.125) >= L] <= 1e-4`` (false-failure
rate <= 1e-4).  Breaks (each kept as a test, each a monkeypatched level of the intervals):
the union bound over the two directions dropped (level ``alpha / 2``, twice the valid one; an exceedance rate
of 0.224 measured, caught with probability 0.996 at that rate), the union bound dropped entirely (``alpha``;
0.46 measured), and the point estimates instead of the corner.
Measured (2026-11-28, 500 seeds): valid 0.094, 2x level 0.224, 4x level 0.46.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.audit import AuditResult, audit_pairs, renyi
from semiprivate.theory.audit.options import AuditOptions
from semiprivate.theory.audit.renyi import RenyiBound, bernoulli_renyi, renyi_lower_bound
from semiprivate.theory.audit.stats import cp_lower, cp_upper
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

R = 600
CONFIDENCE = 0.5
VALID_RATE = (1 - CONFIDENCE) / 4  # the one interval that can err, at (1 - confidence) / (2K), K = 2
Q = math.exp(-1.0)
TRUE_D = 1.0  # -log q, every order


def _limit(rate: float) -> int:
    """The smallest L with P[Binomial(R, rate) >= L] <= 1e-4."""
    return int(np.argmax(binom.sf(np.arange(R + 1) - 1, R, rate) <= 1e-4))


LIMIT = _limit(VALID_RATE)


def test_bernoulli_renyi_against_the_definition() -> None:
    for p, q, a in [(0.9, 0.2, 2.0), (0.3, 0.6, 1.5), (0.01, 0.001, 8.0)]:
        direct = math.log(p**a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)) / (a - 1)
        assert bernoulli_renyi(p, q, a) == pytest.approx(direct, rel=1e-12)
    assert bernoulli_renyi(0.5, 0.0, 2.0) == math.inf and bernoulli_renyi(0.0, 0.5, 2.0) > 0
    with pytest.raises(ValueError, match="p must be a probability"):
        bernoulli_renyi(1.5, 0.5, 2.0)
    with pytest.raises(ValueError, match="order"):
        bernoulli_renyi(0.5, 0.5, 1.0)
    assert bernoulli_renyi(1.0, Q, 2.0) == pytest.approx(TRUE_D) == bernoulli_renyi(1.0, Q, 7.0)


def one_sided(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    """``M(0) = 1``; ``M(1) = 1`` with probability ``e^-1``: ``D_alpha(M(0) || M(1)) = 1`` at every order."""
    return np.ones(size, np.int64) if int(data) == 0 else (rng.random(size) < Q).astype(np.int64)


@functools.lru_cache(maxsize=1)
def _audits() -> tuple[AuditResult, ...]:
    return tuple(audit_pairs(one_sided, [(0, 1)], epsilon=1.0, trials=2_000, confidence=CONFIDENCE, rng=20_000 + i,
                             events=[lambda x: np.asarray(x) == 1], options=AuditOptions(interval="poisson-conditional"))
                 for i in range(R))


def _exceed(order: float = 2.0) -> int:
    return sum(renyi_lower_bound(res, order).bound > TRUE_D for res in _audits())


def _levels_times(monkeypatch: pytest.MonkeyPatch, m: float) -> None:
    """The break: every Clopper–Pearson interval of renyi.py at ``m`` times its level."""
    monkeypatch.setattr(renyi, "cp_lower", lambda k, n, a: cp_lower(k, n, min(1.0, m * a)))
    monkeypatch.setattr(renyi, "cp_upper", lambda k, n, a: cp_upper(k, n, min(1.0, m * a)))


def test_the_design_tests_one_event_both_ways() -> None:
    assert _limit(VALID_RATE) == LIMIT and binom.sf(LIMIT - 1, R, VALID_RATE) <= 1e-4 < binom.sf(LIMIT - 2, R,
                                                                                                  VALID_RATE)
    assert binom.sf(LIMIT - 1, R, 0.224) >= 0.99  # the 2x-level break at its measured rate
    assert {res.n_tests for res in _audits()} == {2}


@pytest.mark.parametrize("order", [2.0, 5.0])
def test_bound_exceeds_the_true_divergence_at_most_at_its_level(order: float) -> None:
    hits = _exceed(order)
    assert hits < LIMIT, f"{hits}/{R} bounds above the true D_{order:g} (limit {LIMIT})"


@pytest.mark.parametrize("m", [2.0, 4.0])
def test_a_weakened_union_bound_is_caught(monkeypatch: pytest.MonkeyPatch, m: float) -> None:
    _audits()
    _levels_times(monkeypatch, m)
    hits = _exceed()
    assert hits >= LIMIT, f"intervals at {m:g}x their level: only {hits}/{R} above the true D_2 (limit {LIMIT})"


def test_point_estimates_instead_of_the_corner_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def estimate(k: Any, n: Any, a: float) -> np.ndarray:
        return np.asarray(k, dtype=np.float64) / np.asarray(n, dtype=np.float64)

    _audits()
    monkeypatch.setattr(renyi, "cp_lower", estimate)
    monkeypatch.setattr(renyi, "cp_upper", estimate)
    hits = _exceed()
    assert hits >= LIMIT, f"point estimates: only {hits}/{R} above the true D_2 (limit {LIMIT})"


def test_pooled_tests_are_skipped_and_no_evidence_gives_zero() -> None:
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=1,
                      options=AuditOptions(interval="poisson-conditional", estimate_on="best"))
    rb = renyi_lower_bound(res, 3.0)
    assert isinstance(rb, RenyiBound) and rb.witness is None and rb.bound == 0.0  # the kept test is pooled
    res = audit_pairs(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=1)
    rb = renyi_lower_bound(res, 3.0)
    assert rb.witness is not None and 0 < rb.bound < 3.0 / 2 and rb.p_lo > rb.q_hi  # D_3 of Laplace(1) < 3 / 2
    with pytest.raises(TypeError, match="result must be an AuditResult"):
        renyi_lower_bound("x", 2.0)  # type: ignore[arg-type]

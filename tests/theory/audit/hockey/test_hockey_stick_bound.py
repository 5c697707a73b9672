"""Hockey-stick lower bounds from samples (:mod:`semiprivate.theory.audit.hockey`).

Calibration with power (a tight design): ``M(0) = 1`` always, ``M(1) = 1`` with probability ``q = e^-1`` (else
0), claim epsilon 0.5.  The true ``delta(0.5)`` of the pair is ``max(1 - e^0.5 q, 1 - q) = 1 - q`` (the event
``{x = 0}`` in the direction ``M(1)`` vs ``M(0)``).  Whatever event and direction the training part picks, one of
the two tested probabilities is 0 or 1 on one side (``k = 0`` or ``k = n`` every time), so the bound can exceed
the truth only when the *other* one-sided interval errs: probability at most ``(1 - confidence) / 2``.  At
confidence 0.5 that is 0.25; ``R = 400`` seeds of 2,000 outputs per input; the limit is the smallest ``L`` with
``P[Binomial(400, 0.25) >= L] <= 1e-4`` (false-failure rate <= 1e-4).  The break kept as a test: both intervals at
twice their level (``1 - confidence`` each, the union bound dropped): measured 191/400 (0.48), caught with
probability > 0.9999 at that rate.  Measured (2026-11-28): valid 71/400 integer outputs; the same design with float
outputs (the kernel-score families on): valid 21/100, 2x level 49/100 (limit 43).

Power: a Laplace mechanism run at twice its claimed epsilon (``LaplaceWrongScale(1)``, true ``delta(1) = 0.39``) and
randomized response at epsilon 2 claimed 1 (true ``delta(1) = 0.56``) are refuted at ``delta = 0`` on every seed
(measured 60/60 for Laplace at 2,000 outputs per input, confidence 0.95), while the correct Laplace mechanism was
flagged on 0/60.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom
from semiprivate.theory.audit import hockey
from semiprivate.theory.audit.broken import LaplaceWrongScale
from semiprivate.theory.audit.hockey import HockeyStickBound, KernelScore, hockey_stick_audit, hockey_stick_lower_bound
from semiprivate.theory.audit.stats import cp_lower, cp_upper
from semiprivate.theory.privacy.mechanisms import LaplaceMechanism, RandomizedResponse

R = 400
R_FLOAT = 100
CONFIDENCE = 0.5
VALID_RATE = (1 - CONFIDENCE) / 2  # the one interval that can err
Q = math.exp(-1.0)
EPS = 0.5
TRUE_DELTA = 1.0 - Q  # max(1 - e^0.5 q, 1 - q)
N = 2_000


def _limit(rate: float, r: int) -> int:
    """The smallest L with P[Binomial(r, rate) >= L] <= 1e-4."""
    return int(np.argmax(binom.sf(np.arange(r + 1) - 1, r, rate) <= 1e-4))


LIMIT = _limit(VALID_RATE, R)
LIMIT_FLOAT = _limit(VALID_RATE, R_FLOAT)


def _tight_samples(seed: int, dtype: Any = np.int64) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    return np.ones(N, dtype), (g.random(N) < Q).astype(dtype)


def _exceed(seeds: range, dtype: Any = np.int64) -> int:
    return sum(hockey_stick_lower_bound(*_tight_samples(s, dtype), EPS, confidence=CONFIDENCE).delta_lower > TRUE_DELTA
               for s in seeds)


@functools.lru_cache(maxsize=1)
def _valid_int() -> int:
    return _exceed(range(30_000, 30_000 + R))


def _levels_times(monkeypatch: pytest.MonkeyPatch, m: float) -> None:
    """The break: both Clopper–Pearson intervals of hockey.py at ``m`` times their level."""
    monkeypatch.setattr(hockey, "cp_lower", lambda k, n, a: cp_lower(k, n, min(1.0, m * a)))
    monkeypatch.setattr(hockey, "cp_upper", lambda k, n, a: cp_upper(k, n, min(1.0, m * a)))


def test_the_design_has_power_against_a_doubled_level() -> None:
    assert binom.sf(LIMIT - 1, R, VALID_RATE) <= 1e-4 < binom.sf(LIMIT - 2, R, VALID_RATE)
    assert binom.sf(LIMIT - 1, R, 0.45) >= 0.999  # the 2x-level break measured 0.48
    assert binom.sf(LIMIT_FLOAT - 1, R_FLOAT, 0.48) >= 0.85  # float outputs: 2x level measured 49/100, power 0.86


def test_bound_exceeds_the_true_delta_at_most_at_its_level() -> None:
    hits = _valid_int()
    assert hits < LIMIT, f"{hits}/{R} bounds above the true delta({EPS}) = {TRUE_DELTA:.4f} (limit {LIMIT})"


def test_bound_with_kernel_events_exceeds_the_true_delta_at_most_at_its_level() -> None:
    hits = _exceed(range(31_000, 31_000 + R_FLOAT), np.float64)
    assert hits < LIMIT_FLOAT, f"{hits}/{R_FLOAT} bounds above the true delta (limit {LIMIT_FLOAT})"


def test_intervals_at_twice_their_level_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    _levels_times(monkeypatch, 2.0)
    hits = _exceed(range(30_000, 30_000 + R))
    assert hits >= LIMIT, f"intervals at 2x their level: only {hits}/{R} above the true delta (limit {LIMIT})"


def test_the_test_outputs_never_choose_the_event() -> None:
    """Validity rests on the event being a function of the training part: changing every test output must
    leave the chosen event (and its direction) as it was, and change only the counts."""
    g = np.random.default_rng(5)
    a, b = g.laplace(0.0, 1.0, 4_000), g.laplace(1.0, 1.0, 4_000)
    first = hockey_stick_lower_bound(a, b, 0.5)
    a2, b2 = a.copy(), b.copy()
    a2[2_000:], b2[2_000:] = g.laplace(1.0, 1.0, 2_000), g.laplace(0.0, 1.0, 2_000)  # swap the test laws
    second = hockey_stick_lower_bound(a2, b2, 0.5)
    assert second.event.description == first.event.description and second.forward == first.forward
    assert second.counts != first.counts and second.delta_lower == 0.0 < first.delta_lower


def test_the_bound_is_the_corner_of_two_exact_intervals() -> None:
    g = np.random.default_rng(11)
    a, b = (g.random(3_000) < 0.7).astype(int), (g.random(3_000) < 0.3).astype(int)
    hs = hockey_stick_lower_bound(a, b, 0.25, confidence=0.9, train=0.4)
    assert hs.trials == (1_800, 1_800)
    num, den = (a[1_200:], b[1_200:]) if hs.forward else (b[1_200:], a[1_200:])
    k_p, k_q = hs.counts  # {x == 1} A vs B, or its complement B vs A: the same test
    assert k_p == int(np.count_nonzero(num == int(hs.forward))) and k_q == int(np.count_nonzero(den == int(hs.forward)))
    p_lo, q_hi = float(cp_lower(k_p, 1_800, 0.05)), float(cp_upper(k_q, 1_800, 0.05))
    assert hs.p_lo == p_lo and hs.q_hi == q_hi
    assert hs.delta_lower == pytest.approx(p_lo - math.exp(0.25) * q_hi, abs=1e-15)
    assert 0.0 < hs.delta_lower < 0.7 - math.exp(0.25) * 0.3
    assert hs.refutes(0.2) and not hs.refutes(0.4)
    assert hs.epsilon_lower_bound(0.0) == pytest.approx(math.log(p_lo / q_hi))
    assert hs.epsilon_lower_bound(0.99) == 0.0
    assert ("A vs B" if hs.forward else "B vs A") in hs.describe() and hs.event.description in hs.describe()


def test_doubled_epsilon_is_refuted_and_the_correct_mechanism_is_not() -> None:
    for seed in range(8):
        doubled = hockey_stick_audit(LaplaceWrongScale(1.0), [(0.0, 1.0)], epsilon=1.0, trials=N, rng=50_000 + seed)
        assert doubled.refutes(0.0), doubled.describe()  # true delta(1) = 1 - e^(-1/2) = 0.39
        rr = hockey_stick_audit(RandomizedResponse(2.0), [(0, 1)], epsilon=1.0, trials=N, rng=51_000 + seed)
        assert rr.delta_lower > 0.4, rr.describe()  # true delta(1) = (e^2 - e) / (1 + e^2) = 0.56
        fine = hockey_stick_audit(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=N, rng=52_000 + seed)
        assert not fine.refutes(0.0), fine.describe()


def test_the_leaky_pair_is_found_among_several() -> None:
    def leaky_above_two(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        scale = 0.25 if float(data) > 2 else 1.0  # epsilon 4 on the pair (3, 4), 1 elsewhere
        return float(data) + rng.laplace(0.0, scale, size)

    hs = hockey_stick_audit(leaky_above_two, [(0.0, 1.0), (1.0, 2.0), (3.0, 4.0)], epsilon=1.0, trials=4_000, rng=2)
    assert hs.pair == 2 and hs.refutes(0.3), hs.describe()


def test_vector_and_structured_outputs() -> None:
    g = np.random.default_rng(7)
    shift = np.array([1.0, -1.0, 0.5])
    a, b = g.laplace(0.0, 1.0, (6_000, 3)), g.laplace(0.0, 1.0, (6_000, 3)) + shift  # epsilon 2.5 on the L1 shift
    hs = hockey_stick_lower_bound(a, b, 1.0)
    assert hs.delta_lower > 0.05 and hs.trials == (3_000, 3_000), hs.describe()
    labels_a = [("yes", int(v)) for v in g.random(4_000) < 0.8]
    labels_b = [("yes", int(v)) for v in g.random(4_000) < 0.2]
    hs = hockey_stick_lower_bound(labels_a, labels_b, 1.0)
    assert hs.delta_lower > 0.1, hs.describe()  # true 0.8 - e 0.2 = 0.256


def test_samples_of_different_sizes() -> None:
    g = np.random.default_rng(8)
    hs = hockey_stick_lower_bound(g.laplace(0.0, 1.0, 3_000), g.laplace(2.0, 1.0, 2_000), 1.0, train=0.5)
    assert hs.trials in ((1_500, 1_000), (1_000, 1_500)) and hs.delta_lower > 0.1, hs.describe()


def test_kernel_scores_are_fixed_functions_of_their_training_outputs() -> None:
    a = np.linspace(-1.0, 1.0, 300)
    w, lr = KernelScore(a, a + 2.0, "witness"), KernelScore(a, a + 2.0, "logratio")
    x = np.array([-0.5, 1.0, 2.5])
    assert np.all(np.diff(w(x)) < 0) and np.all(np.diff(lr(x)) < 0)
    assert np.array_equal(w(x), w(x)) and w(np.zeros((5, 1))).shape == (5,)
    with pytest.raises(ValueError, match="kind must be"):
        KernelScore(a, a, "mmd")


@pytest.mark.parametrize(("kwargs", "exc", "match"), [
    (dict(samples_a="abc"), TypeError, "samples_a must be a sequence"),
    (dict(samples_b=[1.0]), ValueError, "samples_b must hold at least 2 outputs"),
    (dict(epsilon=-1.0), ValueError, "epsilon"),
    (dict(confidence=1.0), ValueError, "confidence"),
    (dict(train=0.0), ValueError, "train"),
])
def test_bad_input_is_refused_naming_the_parameter(kwargs: dict[str, Any], exc: type, match: str) -> None:
    args: dict[str, Any] = dict(samples_a=np.zeros(10), samples_b=np.ones(10), epsilon=0.5) | kwargs
    with pytest.raises(exc, match=match):
        hockey_stick_lower_bound(**args)


def test_bad_audit_input_is_refused_naming_the_parameter() -> None:
    with pytest.raises(TypeError, match="mechanism must be callable"):
        hockey_stick_audit(3, [(0, 1)], epsilon=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pairs must be"):
        hockey_stick_audit(LaplaceMechanism(1.0), [], epsilon=1.0)
    with pytest.raises(ValueError, match="trials"):
        hockey_stick_audit(LaplaceMechanism(1.0), [(0.0, 1.0)], epsilon=1.0, trials=1)
    assert isinstance(hockey_stick_audit(RandomizedResponse(1.0), [(0, 1)], epsilon=1.0, trials=200, rng=1),
                      HockeyStickBound)

"""Hockey-stick testing: a valid lower bound on ``delta(epsilon)`` from samples (Implements: AUDIT).

A mechanism is ``(epsilon, delta)``-DP on a neighbouring pair ``(A, B)`` if and only if the hockey-stick
divergence of order ``gamma = e^epsilon`` is at most ``delta`` both ways [BO13]_:

    ``H_gamma(P || Q) = sup_E P(E) - gamma Q(E) = E_Q[(dP/dQ - gamma)_+]``,  ``P = M(A)``, ``Q = M(B)``.

The supremum is reached by the event ``{dP/dQ > gamma}``.  dp_auditorium [KMRS24]_ estimates it with a
classifier's weighted accuracy and Hoeffding's inequality, and bounds it through the kernel mean discrepancy
(its MMD tester).  :func:`hockey_stick_lower_bound` does the same job with exact intervals:

1. **Split.**  The first ``train`` share of each sample chooses the event; the rest tests it.
2. **Choose** (training part only).  The auditor's candidate events for the output type
   (:func:`semiprivate.theory.audit.candidates.search_pair`: thresholds, value sets ordered by likelihood ratio,
   projections, table and pattern events), plus, for numeric outputs, thresholds of two kernel scores learned on
   the training part (:class:`KernelScore`): the MMD witness ``mean_i k(x, a_i) - mean_j k(x, b_j)`` (the
   function that attains the kernel mean discrepancy) and the kernel log-ratio
   ``log mean_i k(x, a_i) - log mean_j k(x, b_j)`` (an estimate of ``log dP/dQ``, whose superlevel set at
   ``epsilon`` is the optimal event).  Each (event, direction) is scored by the pessimistic anticipated bound
   ``P_lo - gamma Q_hi`` at the test sizes (:func:`semiprivate.theory.audit.selection.anticipated_hockey_stick`)
   and the best one is kept: one test, ``K = 1``.
3. **Test** (test part only).  With ``k_P`` of ``n_P`` numerator outputs and ``k_Q`` of ``n_Q`` other outputs in
   the event, one-sided Clopper–Pearson bounds ``p_lo`` and ``q_hi`` at level ``(1 - confidence) / 2`` each give

       ``delta_lower = max(0, p_lo - gamma q_hi)``.

Validity: the event and its direction are functions of the training outputs, which are independent of the test
outputs, so given them ``k_P`` and ``k_Q`` are independent binomials with the true probabilities; with
probability ``>= confidence`` both intervals hold, and then ``delta_lower <= P(E) - gamma Q(E) <= H_gamma``.  No
correction is owed for the candidates discarded on the training part (the argument of the auditor's two-stage
design, :mod:`semiprivate.theory.audit.core`).  The same two intervals also give, for any claimed ``delta``,
``epsilon >= log((p_lo - delta) / q_hi)`` (:meth:`HockeyStickBound.epsilon_lower_bound`), simultaneously.

Compared with the accuracy form (Hoeffding on the weighted accuracy, half-width
``(1 + e^eps) sqrt(log(1 / alpha) / (2 n))`` in ``delta`` units), the two exact intervals are narrower, most on
events of small mass, where the witness of a small ``delta`` lives: at ``n = 20,000`` test outputs per side,
confidence 0.95 and ``epsilon = 0.5``, the Hoeffding form loses 0.023 whatever the event; the two intervals lose
0.017 on ``P = 0.61, Q = 0.23`` (Laplace's optimal event) and 0.0022 on ``P = 0.01, Q = 0.001``.

:func:`hockey_stick_audit` draws the samples from a mechanism on one or more pairs: the training part of every
pair is searched, the single best (pair, event, direction) is tested on fresh outputs of its pair only.

References
----------
.. [BO13] G. Barthe, F. Olmedo, "Beyond differential privacy: composition theorems and relational logic for
   f-divergences between probabilistic programs", ICALP 2013 (the hockey-stick characterisation of
   (epsilon, delta)-DP).
.. [KMRS24] W. Kong, A. Muñoz Medina, M. Ribero, U. Syed, "DP-Auditorium: a large scale library for auditing
   differential privacy", IEEE S&P 2024 (hockey-stick and MMD testers from samples).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.audit.candidates import Candidate, search_pair, threshold_candidates
from semiprivate.theory.audit.draws import Codec, Mechanism, Outputs, normalize
from semiprivate.theory.audit.events import Event, ThresholdEvent
from semiprivate.theory.audit.outputs import OutputSchema
from semiprivate.theory.audit.selection import anticipated_hockey_stick
from semiprivate.theory.audit.stats import cp_lower, cp_upper
from semiprivate.validation import (
    DELTA,
    EPSILON,
    RNG,
    Integer,
    Optional,
    Real,
    as_generator,
    experiment_coins,
    validate_params,
)

__all__ = ["HockeyStickBound", "KernelScore", "hockey_stick_audit", "hockey_stick_lower_bound"]

#: kernel centres per side drawn from the training part (the first ones), for :class:`KernelScore`
KERNEL_CENTRES = 128
#: rows per block when a kernel score is evaluated (bounds the memory at rows x centres)
_KERNEL_BLOCK = 8192


class KernelScore:
    """A Gaussian-kernel score fitted on training outputs only (a fixed function afterwards).

    ``kind="witness"``: the MMD witness ``mean_i k(x, a_i) - mean_j k(x, b_j)``; ``kind="logratio"``: the kernel
    log density ratio ``log(mean_i k(x, a_i) + t) - log(mean_j k(x, b_j) + t)`` with ``t = 1e-12``.
    ``k(x, y) = exp(-|x - y|^2 / (2 h^2))`` on coordinates standardised by the pooled training mean and standard
    deviation; ``h`` is the median distance between centres (the median heuristic).

    >>> a = np.linspace(-1.0, 1.0, 50)[:, None]
    >>> score = KernelScore(a, a + 3.0, "witness")
    >>> bool(score(np.array([[-1.0]]))[0] > 0 > score(np.array([[4.0]]))[0])
    True
    """

    def __init__(self, a: np.ndarray, b: np.ndarray, kind: str) -> None:
        if kind not in ("witness", "logratio"):
            raise ValueError(f"kind must be 'witness' or 'logratio', got {kind!r}")
        a, b = _as_rows(a), _as_rows(b)
        pooled = np.concatenate([a, b])
        self.mean = pooled.mean(axis=0)
        sd = pooled.std(axis=0)
        self.scale = np.where(sd > 0, sd, 1.0)
        self.a = (a[:KERNEL_CENTRES] - self.mean) / self.scale
        self.b = (b[:KERNEL_CENTRES] - self.mean) / self.scale
        c = np.concatenate([self.a, self.b])
        d2 = ((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        off = d2[np.triu_indices(c.shape[0], 1)]
        med = float(np.median(off[off > 0])) if np.any(off > 0) else 1.0
        self.inv = 1.0 / (2.0 * med)  # 1 / (2 h^2) with h^2 = the median squared distance
        self.kind = kind

    def _means(self, z: np.ndarray, centres: np.ndarray) -> np.ndarray:
        d2 = (z * z).sum(axis=1)[:, None] - 2.0 * z @ centres.T + (centres * centres).sum(axis=1)[None, :]
        return np.exp(-np.maximum(d2, 0.0) * self.inv).mean(axis=1)

    def means(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(mean_i k(x, a_i), mean_j k(x, b_j))`` for every row of ``x``."""
        z = (_as_rows(x) - self.mean) / self.scale
        ka, kb = np.empty(z.shape[0]), np.empty(z.shape[0])
        for i in range(0, z.shape[0], _KERNEL_BLOCK):
            blk = z[i:i + _KERNEL_BLOCK]
            ka[i:i + _KERNEL_BLOCK], kb[i:i + _KERNEL_BLOCK] = self._means(blk, self.a), self._means(blk, self.b)
        return ka, kb

    def from_means(self, ka: np.ndarray, kb: np.ndarray) -> np.ndarray:
        """The score from the two kernel means (:meth:`means`)."""
        return ka - kb if self.kind == "witness" else np.log(ka + 1e-12) - np.log(kb + 1e-12)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.from_means(*self.means(x))


def _as_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x[:, None] if x.ndim == 1 else x.reshape(x.shape[0], -1)


@dataclass
class HockeyStickBound:
    """A lower bound on the hockey-stick divergence ``H_{e^epsilon}`` of one neighbouring pair, one direction.

    With probability ``>= confidence``, ``delta_lower <= P[M(num) in E] - e^epsilon P[M(other) in E]``, so a
    mechanism claimed ``(epsilon, delta)``-DP with ``delta < delta_lower`` is refuted (:meth:`refutes`).
    ``forward`` is True when the numerator is the pair's first dataset; ``counts = (k_num, k_other)`` out of
    ``trials = (n_num, n_other)`` test outputs; ``p_lo`` and ``q_hi`` are the two one-sided bounds.
    """

    epsilon: float
    confidence: float
    delta_lower: float
    event: Event
    forward: bool
    counts: tuple[int, int]
    trials: tuple[int, int]
    p_lo: float
    q_hi: float
    pair: int = 0

    def refutes(self, delta: float) -> bool:
        """Whether the claim ``(epsilon, delta)``-DP is refuted at ``confidence``."""
        return self.delta_lower > float(delta)

    def epsilon_lower_bound(self, delta: float = 0.0) -> float:
        """``max(0, log((p_lo - delta) / q_hi))``: the epsilon the same intervals force for a claimed ``delta``."""
        d = float(DELTA.validate("delta", delta))
        if self.p_lo <= d:
            return 0.0
        return max(0.0, math.log(self.p_lo - d) - math.log(self.q_hi))

    def describe(self) -> str:
        """One line: the bound, the event and its direction, the counts."""
        arrow = "A vs B" if self.forward else "B vs A"
        return (f"delta({self.epsilon:g}) >= {self.delta_lower:.4g} at confidence {self.confidence:g}: "
                f"{self.event.description} ({arrow}), {self.counts[0]}/{self.trials[0]} vs "
                f"{self.counts[1]}/{self.trials[1]} test outputs (pair {self.pair})")


def _schema(train: list[Outputs], codec: Codec, categorical: Sequence[Any] | None) -> None:
    """Structured outputs: fix the table columns on the training outputs (as the audit's selection does)."""
    rows = [r for out in train if out.rows is not None for r in out.rows]
    if not rows:
        return
    codec.schema = OutputSchema(rows, categorical=categorical)
    for out in train:
        if out.rows is not None:
            out.table, out.rows = codec.schema.table(out.rows, codec.encode), None


def _kernel_candidates(tx: Outputs, ty: Outputs, score: Any) -> list[Candidate]:
    """Thresholds of the two kernel scores (real-valued outputs; discrete outputs have their value sets ordered by
    likelihood ratio, which hold the optimal event), the best few per score and direction."""
    if tx.num is None or ty.num is None or tx.discrete or tx.num.dtype.kind != "f":
        return []
    x, y = tx.num.astype(np.float64), ty.num.astype(np.float64)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return []
    out: list[Candidate] = []
    witness = KernelScore(x, y, "witness")
    mx, my = witness.means(x), witness.means(y)
    for kind in ("witness", "logratio"):
        ks = witness if kind == "witness" else copy.copy(witness)
        ks.kind = kind
        sx, sy = ks.from_means(*mx), ks.from_means(*my)
        t, cx, cy = threshold_candidates(sx, sy, 256)
        s = x.shape[0]
        kx = np.concatenate([cx, s - cx])
        ky = np.concatenate([cy, s - cy])
        name = "<MMD witness, x>" if kind == "witness" else "<kernel log-ratio, x>"
        for forward, sc in ((True, score(kx, ky)), (False, score(ky, kx))):
            for i in np.argsort(-sc, kind="stable")[:4]:
                ev = ThresholdEvent(float(t[i % t.size]), bool(i < t.size), ks, name)
                out.append(Candidate(float(sc[i]), 0, ev, forward, (0, f"kernel-{kind}", forward)))
    return out


def _candidates(tx: Outputs, ty: Outputs, n_test: int, a: float, gamma: float, codec: Codec,
                categorical: Sequence[Any], max_values: int) -> list[Candidate]:
    s = min(_size(tx), _size(ty))

    def score(kx: np.ndarray, ky: np.ndarray) -> np.ndarray:
        return anticipated_hockey_stick(kx, ky, s, n_test, a, gamma)

    cands, _ = search_pair(0, tx, ty, s, n_test, a, 0.0, 256, max_values, codec, categorical=categorical,
                           score=score)
    # the cross-fitted pattern sets carry the auditor's epsilon score: rescore them on the training counts
    for c in cands:
        if c.group[1] == "patternset":
            num, den = (tx, ty) if c.forward else (ty, tx)
            kx = float(np.count_nonzero(c.event.indicator(num)))
            ky = float(np.count_nonzero(c.event.indicator(den)))
            c.score = float(score(np.array([kx]), np.array([ky]))[0])
    return cands + _kernel_candidates(tx, ty, score)


def _size(out: Outputs) -> int:
    return int(out.num.shape[0]) if out.num is not None else int(len(out.keys))  # type: ignore[arg-type]


def _head(out: Outputs, m: int) -> Outputs:
    """The first ``m`` outputs of a normalised batch (equal training sizes for the candidate search)."""
    if _size(out) == m:
        return out

    def cut(v: Any) -> Any:
        return None if v is None else v[:m]

    return Outputs(cut(out.raw), out.kind, cut(out.num), cut(out.keys), out.discrete, cut(out.table), None)


def _test(event: Event, forward: bool, ox: Outputs, oy: Outputs, epsilon: float, alpha: float,
          confidence: float, pair: int) -> HockeyStickBound:
    num, den = (ox, oy) if forward else (oy, ox)
    k_p, k_q = int(np.count_nonzero(event.indicator(num))), int(np.count_nonzero(event.indicator(den)))
    n_p, n_q = _size(num), _size(den)
    p_lo = float(cp_lower(k_p, n_p, alpha / 2.0))
    q_hi = float(cp_upper(k_q, n_q, alpha / 2.0))
    bound = max(0.0, p_lo - math.exp(epsilon) * q_hi)
    return HockeyStickBound(float(epsilon), float(confidence), bound, event, bool(forward), (k_p, k_q), (n_p, n_q),
                            p_lo, q_hi, pair)


def _split(samples: Any, name: str, train: float) -> tuple[Any, Any]:
    if isinstance(samples, (str, bytes)) or not hasattr(samples, "__len__"):
        raise TypeError(f"{name} must be a sequence or array of outputs, got {type(samples).__name__}")
    n = len(samples)
    cut = int(math.floor(train * n))
    if cut < 1 or n - cut < 1:
        raise ValueError(f"{name} must hold at least 2 outputs with train={train:g} leaving both parts non-empty, "
                         f"got {n}")
    return samples[:cut], samples[cut:]


@validate_params(epsilon=Real(0.0, math.inf, closed="left"), confidence=Real(0.0, 1.0, closed="neither"),
                 train=Real(0.0, 1.0, closed="neither"), max_values=Integer(1))
def hockey_stick_lower_bound(samples_a: Any, samples_b: Any, epsilon: float, *, confidence: float = 0.95,
                             train: float = 0.5, categorical: Sequence[Any] | None = None,
                             max_values: int = 2048) -> HockeyStickBound:
    """A lower bound on ``max(H_gamma(P || Q), H_gamma(Q || P))``, ``gamma = e^epsilon``, from samples of ``P`` and
    ``Q`` (the module docstring: split, choose on the training part, two exact intervals on the rest).

    Parameters
    ----------
    samples_a, samples_b : array-like or sequence
        Independent outputs of the mechanism on the two neighbouring datasets, in the forms the auditor accepts
        (numbers, fixed-length vectors, labels, structured outputs).  Their order must not depend on their
        values (the first ``train`` share of each is the training part).
    epsilon : float
        The epsilon at which ``delta`` is bounded (``>= 0``).
    confidence : float
        The bound holds with at least this probability.
    train : float
        Share of each sample that chooses the event.
    categorical, max_values
        As in :class:`semiprivate.theory.audit.options.AuditOptions`.

    Returns
    -------
    HockeyStickBound

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.laplace(0.0, 1.0, 40_000), rng.laplace(1.0, 1.0, 40_000)  # Laplace, epsilon 1
    >>> hs = hockey_stick_lower_bound(a, b, 0.5)  # true delta(0.5) = 1 - e^(-1/4) = 0.2212
    >>> bool(0.18 < hs.delta_lower <= 0.2212), hs.refutes(0.1), hs.refutes(0.25)
    (True, True, False)
    """
    tr_a, te_a = _split(samples_a, "samples_a", train)
    tr_b, te_b = _split(samples_b, "samples_b", train)
    codec = Codec()
    tx, ty = normalize(tr_a, len(tr_a), codec), normalize(tr_b, len(tr_b), codec)
    _schema([tx, ty], codec, categorical)
    s = min(_size(tx), _size(ty))
    tx, ty = _head(tx, s), _head(ty, s)
    ox, oy = normalize(te_a, len(te_a), codec), normalize(te_b, len(te_b), codec)
    alpha = 1.0 - float(confidence)
    n_test = min(_size(ox), _size(oy))
    cands = _candidates(tx, ty, n_test, alpha / 2.0, math.exp(epsilon), codec, categorical or (), max_values)
    if not cands:
        raise ValueError("no candidate event could be built from the training outputs")
    best = max(cands, key=lambda c: c.score)
    return _test(best.event, best.forward, ox, oy, float(epsilon), alpha, float(confidence), 0)


def _draw(mechanism: Mechanism, data: Any, size: int, g: np.random.Generator) -> Any:
    # an experiment, not a release: the privacy layer's seed record does not count these draws
    with experiment_coins():
        return mechanism(data, size, g)


@validate_params(epsilon=EPSILON, trials=Integer(2), confidence=Real(0.0, 1.0, closed="neither"),
                 train=Real(0.0, 1.0, closed="neither"), rng=Optional(RNG))
def hockey_stick_audit(mechanism: Mechanism, pairs: Sequence[tuple[Any, Any]], *, epsilon: float,
                       trials: int = 100_000, confidence: float = 0.95, train: float = 0.5,
                       rng: Any = None) -> HockeyStickBound:
    """:func:`hockey_stick_lower_bound` for a mechanism ``mechanism(data, size, rng)`` on neighbouring ``pairs``.

    Each dataset of each pair gets ``floor(train * trials)`` training outputs; every pair is searched and the
    single best (pair, event, direction) by the anticipated bound is kept (a function of the training outputs
    only, so ``K = 1``); then ``trials - floor(train * trials)`` fresh outputs of each of its two datasets test
    it.  ``bound.pair`` names the pair.

    Examples
    --------
    >>> from semiprivate.theory.audit.broken import LaplaceWrongScale
    >>> doubled = LaplaceWrongScale(1.0)  # claims epsilon 1, runs at epsilon 2
    >>> hs = hockey_stick_audit(doubled, [(0.0, 1.0)], epsilon=1.0, trials=20_000, rng=3)
    >>> hs.refutes(0.0)  # true delta(1) = 1 - e^(-1/2) = 0.39
    True
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(data, size, rng), got {type(mechanism).__name__}")
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs must be a sequence of (dataset, neighbour) tuples, got {type(pairs).__name__}")
    pairs = list(pairs)
    if not pairs or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
        raise ValueError("pairs must be a non-empty sequence of (dataset, neighbour) tuples")
    g = as_generator(rng)
    s = int(math.floor(train * trials))
    n = trials - s
    if s < 1 or n < 1:
        raise ValueError(f"trials={trials} with train={train:g} leaves an empty training or test part")
    alpha = 1.0 - float(confidence)
    codec = Codec()
    best: Candidate | None = None
    for i, (da, db) in enumerate(pairs):
        tx, ty = normalize(_draw(mechanism, da, s, g), s, codec), normalize(_draw(mechanism, db, s, g), s, codec)
        _schema([tx, ty], codec, None)
        for c in _candidates(tx, ty, n, alpha / 2.0, math.exp(epsilon), codec, (), 2048):
            if best is None or c.score > best.score:
                best = Candidate(c.score, i, c.event, c.forward, c.group)
    if best is None:
        raise ValueError("no candidate event could be built from the training outputs")
    da, db = pairs[best.pair]
    ox, oy = normalize(_draw(mechanism, da, n, g), n, codec), normalize(_draw(mechanism, db, n, g), n, codec)
    return _test(best.event, best.forward, ox, oy, float(epsilon), alpha, float(confidence), best.pair)

"""Empirical differential-privacy auditing with statistically valid epsilon lower bounds.

A *mechanism* is a callable ``mechanism(data, size, rng)`` returning ``size`` independent
outputs along axis 0 (scalars, fixed-length vectors, or hashable labels); :func:`vectorize`
turns a one-output ``fn(data, rng)`` into that form.

How :func:`audit_mechanism` works (Implements: AUDIT):

1. **Selection** (first batch, ``selection_trials`` outputs per dataset).  For every
   neighbouring pair, candidate events are built from these outputs: thresholds
   ``{x > t}``/``{x <= t}`` at quantiles and extremes of scalar outputs; single values and
   likelihood-ratio-ordered sets of values for discrete outputs (integers, labels, atoms of
   real outputs, integer vectors); for vector outputs, thresholds on projections (a
   regularised Fisher discriminant trained to tell the two sides apart, the mean difference,
   a logistic score on ``(z, z**2)``, with ``mlp=True`` a small neural network's logit, and for
   real-valued vectors the whitened-sign score, :class:`semiprivate.theory.audit.selection.SignScore`,
   near the likelihood-ratio statistic of independent Laplace noise) and on each coordinate
   (beyond 16 coordinates, the 16 ranked first by a selection-batch Kolmogorov–Smirnov statistic,
   :func:`semiprivate.theory.audit.selection.rank_columns`).  Structured
   outputs (tuples, dicts, variable-length sequences) and vectors with categorical coordinates
   (declared with ``categorical=``, non-numeric leaves, or integer coordinates with at most 16
   values) also get value events per categorical coordinate and *joint* events
   ``{x[j] == v and x[i] > t}`` (see :mod:`semiprivate.theory.audit.outputs`).  Float vectors with coded columns
   (atoms such as SVT's above / below / aborted codes, :func:`semiprivate.theory.audit.selection.atom_blocks`)
   also get whole-row pattern events and cross-fitted likelihood-ratio-ordered pattern sets
   (:class:`semiprivate.theory.audit.selection.RowPatterns`, ``pattern`` / ``patternset``); ``float_bits=True`` adds events on
   the sign, exponent and low mantissa bits of float outputs (``events.bit_keys``).  Each
   (pair, event, direction) is scored by a pessimistic anticipated bound
   (:func:`semiprivate.theory.audit.selection.anticipated_bound`) and ``K`` are kept, every pair first
   (:func:`semiprivate.theory.audit.selection.pick`).  The families searched per pair, their sizes and the
   best scores are reported (:class:`PairSearch`, :meth:`AuditResult.explain`).
2. **Estimation** (fresh batches, ``trials`` outputs per dataset, drawn after selection and
   independent of it).  For each kept (pair, event, direction) with numerator dataset ``A``
   and other dataset ``B``, one-sided Clopper–Pearson bounds ``p_lo <= P[M(A) in E]`` and
   ``q_hi >= P[M(B) in E]`` are computed, each at level ``alpha / (2K)``
   (``alpha = 1 - confidence``, ``K`` = number of kept tuples: a Bonferroni correction across
   pairs, events and both directions).  ``K`` is fixed before the estimation batch is drawn and
   the kept events are fixed functions of the output chosen from the selection batch only, so
   the correction covers every candidate family, however many candidates were scored.
3. **Bound**.  (epsilon, delta)-DP forces ``P[M(A) in E] <= e^eps P[M(B) in E] + delta``, so
   with probability ``>= confidence`` *every* kept tuple satisfies
   ``eps >= log((p_lo - delta) / q_hi)``; ``epsilon_lower_bound`` is the largest of these
   (at least 0).  ``violation`` is ``epsilon_lower_bound > epsilon``; the probability that a
   mechanism that *is* (epsilon, delta)-DP is flagged is at most ``1 - confidence``.
   ``p_value`` is the smallest ``alpha`` at which the bound would exceed the claimed epsilon
   (the dual p-value of the same test).

**Two-stage design** (``estimate_on="best"``; Implements: AUDIT, two-stage estimation).  Step 2
spreads the estimation over every dataset and pays the Bonferroni factor ``2K`` with ``K >=`` the
number of pairs.  With ``estimate_on="best"`` the audit also chooses *where* to spend it, in two
stages before any estimation output is drawn: (a) the ``K`` tests of step 1 (every pair's best
events), with the best test of every other event group of the same pairs (at most
:data:`MAX_OFFERED` in all; they cost no extra outputs), are counted on a fresh *choice batch*
of ``c = min(s, n // 2)`` outputs per dataset and rescored by the pessimistic anticipated bound
at the level ``alpha / (2 j)`` (``j = n_best``) and at the trials they would get,
``(n D - c D) / min(D, 2 j)`` (``D`` distinct datasets): re-counting on outputs that did not build the events removes the winner's curse of the search over thousands of
candidates, which made the selection batch's best score the most over-fitted one.  At large
budgets (``n // 16 >= 2 c``) the :data:`CHOICE_FINALISTS` best of that round are counted again on
a second fresh batch of ``n // 16`` outputs per dataset and rescored on it alone, so that the
choice's own winner's curse among the offered tests shrinks as the estimation's width does
(:func:`_choice_rounds`); (b) ``j`` are kept
(:func:`semiprivate.theory.audit.selection.pick` without per-pair slots: the best one, then the best of
each event group not yet kept, then the rest by score; for ``j = 1`` simply the best) and the rest of the
estimation budget, ``n D`` less the choice outputs, is drawn on the ``D'`` distinct datasets of the kept tests
only: ``n' = floor((n D - choice outputs) / D')`` each.  Each kept test gets its two one-sided Clopper–Pearson
intervals at level ``alpha / (2 j)``.  Validity: the kept events, their directions, ``D'`` and ``n'``
are functions of the selection and choice batches alone, which are independent of the estimation
outputs (drawn after them); given them, the estimation counts are binomial with the true
probabilities, so the union bound over the ``2 j`` intervals holds with probability ``>= 1 - alpha``
conditionally on the choice, hence unconditionally.  The discarded candidates need no correction,
however many there were: the same argument as DP-Sniper's final estimate [BSBV21] and StatDP's
detection stage [DWWZK18], which choose one witness on separate samples.  (Counting the estimate on
the outputs that chose the test would break exactly this independence; the calibration tests catch
it.)  The gain: about ``D / D'`` times the outputs per test (5 for one pair among 10 datasets, less
the choice batch) at a level ``K / j`` times larger; the risk: a test that wins the choice batch
while another is better.

**Conditional test** (``interval="poisson-conditional"``, ``delta = 0``; Implements: AUDIT, conditional
test).  Steps 2-3 bound each test by the worst corner of two intervals.  With this option the
estimation draws ``N_j ~ Poisson(lam)`` outputs per dataset (redrawn above ``trials``; ``lam`` keeps
that truncation below ``alpha / (1000 D')`` per dataset, :func:`semiprivate.theory.audit.conditional.poisson_mean`),
so a test's two counts are independent Poisson variables and, given their sum ``T``, the numerator's
count is ``Binomial(T, p / (p + q))``.  One Clopper–Pearson lower bound ``r`` on that success
probability at level ``alpha (1 - 1/1000) / K`` gives ``eps >= log(r / (1 - r))``
(:func:`semiprivate.theory.audit.conditional.ratio_epsilon_bound`): exact for every ``T``, a union
bound over the ``K`` tests, and the truncation's total-variation cost ``alpha / 1000`` paid in the
level.  The choice stage then scores with
:func:`semiprivate.theory.audit.selection.anticipated_ratio_bound`.  Same confidence, a bound closer to
the true ratio: one interval at ``alpha / K`` instead of two at ``alpha / (2K)``, with widths that add
in quadrature.

There is no probability floor: an event seen under one input and never under the other
(a *support mismatch*) is marked as such in the witness; its bound uses the exact
Clopper–Pearson upper bound ``1 - (alpha/2K)^(1/n)`` of the zero count, so it grows without
cap like ``log(n)`` as trials increase (a finite sample never *proves* a probability is 0, so
a finite-sample bound is finite; ``inf`` is returned only for user events whose
probabilities are known exactly, never from estimates).

References
----------
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea, "Auditing differentially private machine
   learning: how private is private SGD?", NeurIPS 2020 (Clopper–Pearson epsilon bounds).
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting violations of
   differential privacy", CCS 2018 (event selection on a separate batch).
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: black-box discovery of
   differential privacy violations using classifiers", IEEE S&P 2021 (witness chosen on separate
   samples, re-estimated on fresh ones at the full level).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np
from semiprivate.kernels.threads import blas_controller
from semiprivate.kernels.validation import (
    DELTA,
    EPSILON,
    RNG,
    Boolean,
    CallableConstraint,
    Integer,
    Optional,
    Options,
    Real,
    as_generator,
    validate_params,
)
from semiprivate.theory.audit import selection
from semiprivate.theory.audit.batches import DEFAULT_TIMEOUT as DEFAULT_BATCH_TIMEOUT
from semiprivate.theory.audit.batches import batch_sizes, run_batches
from semiprivate.theory.audit.candidates import Candidate, search_pair
from semiprivate.theory.audit.conditional import TRUNCATION_SHARE, poisson_sizes, ratio_epsilon_bound, ratio_p_value
from semiprivate.theory.audit.draws import Codec, Mechanism, Outputs, normalize, vectorize
from semiprivate.theory.audit.events import Event, UserEvent
from semiprivate.theory.audit.outputs import OutputSchema
from semiprivate.theory.audit.pooled import count_plan, pair_counts, pooled_candidates, sides
from semiprivate.theory.audit.result import AuditResult, PairSearch, Witness
from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound
from tqdm.auto import tqdm

__all__ = [
    "Mechanism",
    "Event",
    "Witness",
    "AuditResult",
    "vectorize",
    "audit_mechanism",
    "audit_pairs",
    "assert_private",
]

DEFAULT_TRIALS = 1_000_000
#: seconds an audit runs before its progress bar appears (``progress=None`` on a terminal)
PROGRESS_DELAY = 3.0
_CHUNK_ELEMENTS = 1 << 21


def _audit_bar(progress: bool | None, total: int) -> Any:
    """The audit's tqdm bar over ``total`` outputs (see ``progress`` in :func:`audit_pairs`)."""
    show = sys.stderr.isatty() if progress is None else bool(progress)
    return tqdm(total=int(total), desc="audit", unit="outputs", unit_scale=True, disable=not show, file=sys.stderr,
                delay=PROGRESS_DELAY if progress is None else 0.0, leave=False)


def _check_pairs(pairs: Any, name: str) -> list[tuple[Any, Any]]:
    """``pairs`` as a list of (data, neighbour) 2-tuples, or TypeError / ValueError naming ``name``."""
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"{name} must be a list of (data, neighbour) pairs, got {type(pairs).__name__}")
    out = []
    for i, pr in enumerate(pairs):
        if isinstance(pr, (str, bytes)) or not hasattr(pr, "__len__") or len(pr) != 2:
            raise ValueError(f"{name}[{i}] must be a (data, neighbour) pair, got {pr!r:.60}")
        out.append((pr[0], pr[1]))
    return out


def _check_arity(mechanism: Any) -> None:
    """TypeError suggesting :func:`vectorize` when ``mechanism`` cannot take (data, size, rng)."""
    try:
        sig = inspect.signature(mechanism, follow_wrapped=False)
    except (TypeError, ValueError):  # builtins without a signature: called as they are
        return
    try:
        sig.bind(None, 1, None)
    except TypeError:
        raise TypeError(f"mechanism must be callable as mechanism(data, size, rng) returning size outputs; "
                        f"{getattr(mechanism, '__name__', type(mechanism).__name__)}{sig} is not. For a one-output "
                        "fn(data, rng), audit semiprivate.theory.audit.vectorize(fn)") from None


def _seed_of(rng: Any) -> Any:
    """The seed that reproduces an audit: an int seed as given, a SeedSequence's entropy, else ``None``
    (a Generator's future draws are not recorded)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return rng.entropy
    return None


def _dataset_key(d: Any) -> Any:
    """Content key of a dataset, so that equal datasets are sampled once.

    NumPy arrays of numbers/bools/strings: ``(dtype, shape, bytes)``; anything picklable: the
    SHA-256 digest of its pickle (equal pickles mean equal state; equal objects with different
    pickles, e.g. sets built in another order, are merely sampled twice); otherwise identity.
    Implements: AUDIT (dataset de-duplication)."""
    if isinstance(d, np.ndarray) and d.dtype.kind in "biufcSUb":
        return ("ndarray", d.dtype.str, d.shape, np.ascontiguousarray(d).tobytes())
    try:
        return ("pickle", type(d).__qualname__, hashlib.sha256(pickle.dumps(d, protocol=4)).hexdigest())
    except Exception:  # unpicklable (closures, open files, ...): identity
        return ("id", id(d))


def _draw(mechanism: Mechanism, data: Any, size: int, g: np.random.Generator, codec: Codec) -> Outputs:
    return normalize(mechanism(data, size, g), size, codec)


def _count(mechanism: Mechanism, data: Any, events: list[Event], n: int, g: np.random.Generator,
           codec: Codec, bar: Any = None) -> np.ndarray:
    """Event counts among ``n`` fresh outputs, drawn in chunks of about 2^21 numbers; ``bar`` (a tqdm bar,
    optional) advances by the outputs drawn."""
    counts = np.zeros(len(events), dtype=np.int64)
    probe = _draw(mechanism, data, min(n, 1024), g, codec)
    kind = (probe.kind, None if probe.num is None else probe.num.shape[1:])
    width = 1 if probe.num is None or probe.num.ndim == 1 else probe.num.shape[1]
    for i, e in enumerate(events):
        counts[i] += int(np.count_nonzero(e.indicator(probe)))
    done = probe.num.shape[0] if probe.num is not None else len(probe.keys)  # type: ignore[arg-type]
    if bar is not None:
        bar.update(done)
    chunk = max(1024, _CHUNK_ELEMENTS // max(width, 1))
    while done < n:
        m = min(chunk, n - done)
        out = _draw(mechanism, data, m, g, codec)
        if (out.kind, None if out.num is None else out.num.shape[1:]) != kind:
            raise ValueError(f"the mechanism's outputs changed form between batches ({kind} -> {out.kind}); "
                             "return one consistent type (numbers, fixed-length vectors or labels)")
        for i, e in enumerate(events):
            counts[i] += int(np.count_nonzero(e.indicator(out)))
        done += m
        if bar is not None:
            bar.update(m)
    return counts


def _count_batch(mechanism: Mechanism, data: Any, events: list[Event], n: int, seed: np.random.SeedSequence,
                 codec: Codec) -> np.ndarray:
    """One estimation batch (runs on a worker): event counts of ``n`` outputs from stream ``seed``.

    The codec arrives as it was after selection; labels first seen here get codes local to this
    batch, which no event refers to (events are built from selection outputs only)."""
    return _count(mechanism, data, events, n, np.random.default_rng(seed), codec)


def _events_per_dataset(chosen: list[Candidate], index: list[tuple[int, int]]) -> dict[int, list[Event]]:
    """The distinct events to count on each dataset for the tests ``chosen`` (by dataset index)."""
    per_dataset: dict[int, list[Event]] = {}
    for c in chosen:
        for j, ev in count_plan(c, index):
            lst = per_dataset.setdefault(j, [])
            if all(e is not ev for e in lst):
                lst.append(ev)
    return per_dataset


def _count_datasets(mechanism: Mechanism, datasets: list[Any], per_dataset: dict[int, list[Event]],
                    n: int | dict[int, int], g: np.random.Generator, codec: Codec, bar: Any, executor: Any,
                    batch_size: int | None, timeout: float | None) -> dict[tuple[int, int], int]:
    """Counts of each dataset's events among ``n`` fresh outputs of that dataset (``n[j]`` for dataset
    ``j`` when ``n`` is a dict), keyed by (dataset index, ``id(event)``).  Without ``executor`` and
    ``batch_size`` the outputs come from ``g`` in order; otherwise in seeded batches
    (:mod:`semiprivate.theory.audit.batches`): one SeedSequence child of a seed drawn from ``g`` per
    batch, in a fixed order, so the counts do not depend on where the batches run."""
    size_of = {j: n[j] if isinstance(n, dict) else n for j in per_dataset}
    order = sorted(j for j in per_dataset if size_of[j] > 0)
    # a Poisson size of 0: nothing to draw, every count is 0
    counts = {(j, id(e)): 0 for j in per_dataset if j not in order for e in per_dataset[j]}
    if not order:
        return counts
    if executor is None and batch_size is None:
        for j in order:
            for e, cval in zip(per_dataset[j],
                               _count(mechanism, datasets[j], per_dataset[j], size_of[j], g, codec, bar)):
                counts[(j, id(e))] = int(cval)
        return counts
    largest = max(size_of[j] for j in order)
    bs = int(batch_size) if batch_size is not None else min(max(largest // 64, 1_000_000), 100_000_000)
    sizes = {j: batch_sizes(size_of[j], bs) for j in order}
    root = np.random.SeedSequence(int(g.integers(2**63)))
    children = root.spawn(len(order))
    jobs = [(mechanism, datasets[j], per_dataset[j], m, seed, codec)
            for j, child in zip(order, children) for m, seed in zip(sizes[j], child.spawn(len(sizes[j])))]
    results = run_batches(_count_batch, jobs, executor, name="executor",
                          timeout=DEFAULT_BATCH_TIMEOUT if timeout is None else float(timeout))
    start = 0
    for j in order:
        cnt = np.sum(results[start:start + len(sizes[j])], axis=0)
        start += len(sizes[j])
        bar.update(size_of[j])
        for e, cval in zip(per_dataset[j], cnt):
            counts[(j, id(e))] = int(cval)
    return counts


#: tests kept by the first choice round for the second (see :func:`_choice_rounds`)
CHOICE_FINALISTS = 8
#: the second choice round counts the finalists on ``trials // CHOICE_SHARE`` outputs per dataset
CHOICE_SHARE = 16


def _choice_rounds(s: int, n: int) -> list[int]:
    """Outputs per dataset of the rounds of the choice stage at selection batch ``s`` and ``n``
    estimation trials per dataset: ``c1 = min(s, n // 2)`` for every offered test, then, when
    ``n // CHOICE_SHARE`` is at least twice ``c1``, a second round of ``n // CHOICE_SHARE`` for the
    :data:`CHOICE_FINALISTS` best of the first.

    The second round is there for large budgets.  The selection batch is capped (500,000 by
    default), and a first round that size carries a winner's curse the estimation then pays in full:
    among 64 offered tests, a rare event (about 75 outputs in each dataset) counted 95 against 56 wins
    with a pessimistic score of 0.27 though its true log ratio is 0, and the estimation on 625 million
    outputs per dataset gives a bound of 0.  A choice noise that falls like the estimation's own,
    ``1 / sqrt(trials)``, keeps the loss of the choice a fixed fraction of the bound's width; the cost
    is ``1 / CHOICE_SHARE`` of the estimation budget at most, about 3% on the bound's width.  Budgets
    below 16 million trials per dataset keep one round (1/16 of DP-Sniper's samples is 7.4 or 12.3
    million); DP-Sniper's full budget (125 or 204 million) gets two."""
    c1 = max(1, min(s, n // 2))
    c2 = n // CHOICE_SHARE
    return [c1, c2] if c2 >= 2 * c1 else [c1]


def _choose_best(mechanism: Mechanism, datasets: list[Any], index: list[tuple[int, int]], offered: list[Candidate],
                 rounds: list[int], n_best: int, budget: int, alpha: float, delta: float, g: np.random.Generator,
                 codec: Codec, bar: Any, executor: Any = None, batch_size: int | None = None,
                 timeout: float | None = None, conditional: bool = False) -> tuple[list[Candidate], int]:
    """The choice stage of the two-stage design (``estimate_on="best"``): ``n_best`` of the
    ``offered`` tests, rescored on fresh choice batches of ``rounds[r]`` outputs per dataset.

    Each round counts the tests still in the running on a fresh batch of their datasets and scores
    each (pair, event, direction) by the pessimistic anticipated bound
    (:func:`semiprivate.theory.audit.selection.anticipated_bound`) of those counts alone, at the level
    ``alpha / (2 n_best)`` and at the estimation trials it would get, ``(budget - choice outputs) /
    min(D, 2 n_best)`` per dataset.  The events were built on the selection batch, so these counts
    carry no winner's curse of the search (thousands of candidates), only that of the choice among the
    offered few.  A round before the last keeps ``max(CHOICE_FINALISTS, n_best)`` tests
    (:func:`semiprivate.theory.audit.selection.pick` without per-pair slots), the last keeps
    ``n_best``.  With ``conditional`` (``interval="poisson-conditional"``) the score is the conditional
    test's (:func:`semiprivate.theory.audit.selection.anticipated_ratio_bound`) at the level
    ``alpha (1 - TRUNCATION_SHARE) / n_best``.  Returns the kept candidates and the outputs drawn."""
    used = 0
    running = offered
    for r, c_trials in enumerate(rounds):
        last = r == len(rounds) - 1
        per_dataset = _events_per_dataset(running, index)
        counts = _count_datasets(mechanism, datasets, per_dataset, c_trials, g, codec, bar, executor, batch_size,
                                 timeout)
        used += c_trials * len(per_dataset)
        later = sum(rounds[r + 1:]) * len(per_dataset)  # at most what the later rounds will draw
        n_plan = max(1, (budget - used - later) // min(len(datasets), 2 * n_best))
        kx = np.empty(len(running))
        ky = np.empty(len(running))
        m = np.array([sides(c) for c in running])
        for t, c in enumerate(running):
            kx[t], ky[t] = pair_counts(c, index, counts)
        if conditional:  # a pooled test (m = 2) adds up two inputs' outputs: 2 c_trials draws, 2 n_plan trials
            scores = np.empty(len(running))
            for mm in np.unique(m):
                sub = m == mm
                scores[sub] = selection.anticipated_ratio_bound(kx[sub], ky[sub], int(mm) * c_trials,
                                                                int(mm) * n_plan,
                                                                alpha * (1.0 - TRUNCATION_SHARE) / n_best)
        else:
            scores = selection.anticipated_bound(kx, ky, c_trials, n_plan, alpha / (2 * n_best), delta)
        rescored = [Candidate(float(sc), c.pair, c.event, c.forward, c.group) for sc, c in zip(scores, running)]
        running = selection.pick(rescored, n_best if last else max(CHOICE_FINALISTS, n_best), per_pair=False)
    return running, used


#: the most tests offered to the choice batch of the two-stage design (see :func:`_offered`)
MAX_OFFERED = 64


def _offered(planned: list[Candidate], cands: list[Candidate]) -> list[Candidate]:
    """The tests offered to the choice batch: the ``K`` planned ones, then the best candidate of
    every other event group (family and direction) of the same pairs, by selection score, up to
    :data:`MAX_OFFERED` in all.

    The extra tests cost no choice outputs (their pairs' datasets are counted anyway) and keep a
    family in the running when the search's best scores belong to over-fitted ones: events at the
    sample extremes, counted 5 against 0 among thousands of candidates, outrank a projection with a
    real but small effect on the selection batch, and lose to it on the fresh choice batch."""
    pairs = {c.pair for c in planned}
    best: dict[tuple[Any, ...], Candidate] = {}
    for c in cands:
        if c.pair in pairs and (c.group not in best or c.score > best[c.group].score):
            best[c.group] = c
    extra = sorted((c for c in best.values() if all(c is not d for d in planned)), key=lambda c: -c.score)
    return planned + extra[:max(0, MAX_OFFERED - len(planned))]


def _bounds_at(kn: np.ndarray, ko: np.ndarray, n: int, a: float, delta: float) -> np.ndarray:
    return epsilon_bound(cp_lower(kn, n, a), cp_upper(ko, n, a), delta)


def _p_value(kn: np.ndarray, ko: np.ndarray, n: int, k: int, epsilon: float, delta: float) -> float:
    def crosses(log_alpha: float) -> bool:
        a = math.exp(log_alpha) / (2 * k)
        return bool(np.max(_bounds_at(kn, ko, n, a, delta)) > epsilon)

    if not crosses(0.0):
        return 1.0
    lo, hi = -690.0, 0.0
    if crosses(lo):
        return math.exp(lo)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if crosses(mid):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_blas_thread(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """``func`` with every loaded BLAS library limited to one thread while it runs.

    The audit's parallel work is its counting batches (``executor``).  Its BLAS calls (the
    covariances of the whitened-sign and logistic scores on the selection batch, the score
    matrices of the events in each counting thread) on a pool of their own oversubscribe the
    cores, and OpenBLAS's idle threads then spin: ``np.cov`` of 500,000 x 20 took 6-8 s with two
    BLAS threads instead of 0.1-0.3 s with one, on the 2-core machine at load 4
    (benchmarks/RESULTS.md, "BLAS threads")."""
    @functools.wraps(func)
    def limited(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with blas_controller().limit(limits=1, user_api="blas"):
            return func(*args, **kwargs)
    return limited


#: the constraints shared by :func:`audit_pairs` and :func:`audit_mechanism` (the claim and the budget)
_CLAIM_CONSTRAINTS = dict(
    mechanism=CallableConstraint(),
    epsilon=EPSILON,
    delta=DELTA,
    trials=Optional(Integer(1)),
    confidence=Real(0.0, 1.0, closed="neither"),
    rng=RNG,
)


@_one_blas_thread
@validate_params(
    **_CLAIM_CONSTRAINTS,
    selection_trials=Optional(Integer(1)),
    max_events=Integer(1),
    n_thresholds=Integer(1),
    max_values=Integer(1),
    batch_size=Optional(Integer(1)),
    timeout=Optional(Real(0.0, math.inf, closed="neither")),
    progress=Optional(Boolean()),
    estimate_on=Options("all", "best"),
    n_best=Integer(1),
    interval=Options("clopper-pearson", "poisson-conditional"),
    pooled=Boolean(),
)
def audit_pairs(
    mechanism: Mechanism,
    pairs: Sequence[tuple[Any, Any]],
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = 0.95,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    selection_trials: int | None = None,
    max_events: int = 4,
    n_thresholds: int = 256,
    max_values: int = 2048,
    batch_size: int | None = None,
    executor: Any = None,
    timeout: float | None = None,
    categorical: Sequence[int | str] | None = None,
    float_bits: bool = False,
    mlp: bool = False,
    progress: bool | None = None,
    estimate_on: str = "all",
    n_best: int = 1,
    interval: str = "clopper-pearson",
    pooled: bool = True,
) -> AuditResult:
    """Audit ``mechanism`` on several neighbouring pairs ``[(D1, D1'), (D2, D2'), ...]``.

    Same method and guarantees as :func:`audit_mechanism` (which calls this); the
    Bonferroni correction covers every tested (pair, event, direction).  With
    ``estimate_on="best"`` a choice batch keeps ``n_best`` of those tests (the best first) and the
    estimation budget goes to their datasets only (the two-stage design of the module docstring).

    Implements: AUDIT (with ``estimate_on="best"``: AUDIT, two-stage estimation).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng)`` returning ``size`` outputs along axis 0.
    pairs : sequence of (dataset, dataset)
        Neighbouring pairs to search.
    epsilon, delta : float
        The claimed privacy parameters.
    trials : int, optional
        Estimation outputs per dataset (default 1,000,000); with ``estimate_on="best"`` the
        estimation budget, ``trials`` times the number of distinct datasets, pays the choice batch
        and is drawn on the kept tests' datasets only.
    confidence : float
        Probability that the reported lower bound is valid (default 0.95).
    events : sequence of callables, optional
        User events ``event(outputs) -> bool array``; when given, no selection batch is drawn
        and every (pair, event, direction) is tested.
    rng : None, int or Generator
        Randomness of the audit and of the mechanism calls.
    selection_trials : int, optional
        Selection outputs per dataset (default ``min(max(10_000, trials // 4), 500_000)``).
    max_events : int
        How many (pair, event, direction) tuples are kept for estimation (``K``); raised to the
        number of pairs (at most 32) so that every pair gets a slot (its best event), see
        :mod:`semiprivate.theory.audit.selection`.  Events are ranked by a pessimistic anticipated bound.
        With ``estimate_on="best"``, the tests offered to the choice batch.
    n_thresholds, max_values : int
        Size of the candidate families (quantile thresholds, distinct values).
    batch_size : int, optional
        Split each dataset's estimation trials into batches of this many outputs, each with its
        own random stream: the children, in order, of one ``numpy.random.SeedSequence`` drawn
        from ``rng`` after selection.  The counts, and so the result, depend only on ``rng`` and
        ``batch_size``: identical here, on a 2-worker ``LocalCluster`` or on any cluster.
        Default (with ``executor=None``): one stream, the sequential path.  With an executor
        and no batch size: ``trials // 64`` clipped to [1e6, 1e8] (about 64 tasks per dataset; at
        1e11 trials, 1e8 per batch: see ``docs/dask.md`` for the overhead rule behind both ends).
    executor : None, dask.distributed.Client or concurrent.futures.Executor
        Where the estimation batches run (see :mod:`semiprivate.theory.audit.batches`); the selection batch
        (and the choice batch of ``estimate_on="best"``) is always drawn here.  The mechanism and the events are sent to the workers
        (cloudpickle for Dask): one that cannot be pickled is refused with a TypeError.
    timeout : float, optional
        Seconds to wait for a Dask client's batches (default 3600); a dead cluster raises
        TimeoutError instead of hanging.
    categorical : sequence of int or str, optional
        Output coordinates to treat as categorical: they get value events (``x[j] == v``, value
        sets) and joint events ``{x[j] == v and x[i] > t}`` with the numeric coordinates, never
        thresholds.  An int is a coordinate of a vector output or an item of a tuple output; a str a
        dict key or a path name (``"x[1]['count']"``, see :mod:`semiprivate.theory.audit.outputs`).  Without it,
        non-numeric leaves of structured outputs and integer coordinates with at most 16 values are
        categorical automatically (the latter keep their thresholds too).
    float_bits : bool
        Add events on the sign, exponent and lowest 1 or 4 mantissa bits of float outputs (scalar,
        or the ranked coordinates of vectors).  A textbook Laplace mechanism computed in doubles
        (``value + rng.laplace(...)``) is *not* epsilon-DP (Mironov 2012): its output support
        depends on the input, and these events show it; snap outputs to a grid to pass.  Off by
        default, so that audits of such mechanisms test the real-valued claim.
    mlp : bool
        For vector outputs, also threshold the logit of a small neural network (scikit-learn's
        ``MLPClassifier``, 32 ReLU units, see :func:`semiprivate.theory.audit.selection.mlp_score`) fitted on
        the selection batch, beside the logistic score; it reaches interactions between
        coordinates that the logistic score on ``(z, z**2)`` cannot.  Off by default (about a
        second of fitting per pair).
    progress : bool, optional
        A tqdm bar on stderr over the outputs drawn, with a time estimate.  Default: shown when stderr
        is a terminal and the audit is still running after :data:`PROGRESS_DELAY` seconds; ``True`` /
        ``False`` force it on / off.
    estimate_on : {"all", "best"}
        Where the estimation batch is drawn.  ``"all"`` (default): every distinct dataset gets
        ``trials`` outputs and every pair's best events are tested, at level
        ``(1 - confidence) / (2K)``.  ``"best"``: the two-stage design (module docstring): those
        ``K`` tests are rescored on a choice batch of ``min(selection_trials, trials // 2)`` outputs
        per dataset (and the 8 best again on ``trials // 16`` more when that is at least twice as many),
        ``n_best`` are kept (the best first; module docstring) and tested at level ``(1 - confidence) / (2 n_best)``
        on the rest of the budget (``trials`` times the ``D`` distinct datasets, less the choice
        batch), split over their ``D'`` datasets; the bound keeps its confidence with no correction
        for the tests dropped, since the choice depends on the selection and choice batches only.
        Needs the selection batch (refused with ``events``).
    n_best : int
        With ``estimate_on="best"``: how many (pair, event, direction) candidates are kept (default
        1: one witness, as DP-Sniper and StatDP test).  Only 1 is accepted with ``"all"``.
    interval : {"clopper-pearson", "poisson-conditional"}
        The bound of each test.  ``"clopper-pearson"`` (default): two one-sided Clopper–Pearson
        intervals, on ``P[M(A) in E]`` and ``P[M(B) in E]``, at level ``alpha / (2K)`` each.
        ``"poisson-conditional"`` (``delta = 0`` only): the estimation draws a Poisson number of
        outputs per dataset (truncated at ``trials``, mean about ``trials - 4 sqrt(trials)``) and
        bounds ``P[M(A) in E] / P[M(B) in E]`` by one exact conditional binomial test per (pair,
        event, direction) at level ``alpha (1 - 1/1000) / K``
        (:mod:`semiprivate.theory.audit.conditional`): the same confidence, a bound closer to the
        true ratio (about 0.55 times the distance for rare events at confidence 0.9).
    pooled : bool
        With ``interval="poisson-conditional"`` and a selection batch (default ``True``): also offer pooled
        two-direction tests ``P_A(E) + P_B(F) <= e^eps (P_B(E) + P_A(F))`` built from each pair's best
        events in both directions, one exact conditional test each
        (:mod:`semiprivate.theory.audit.pooled`); they compete with the one-direction tests like any
        candidate.  Ignored with the Clopper–Pearson interval.

    Returns
    -------
    AuditResult
    """
    t0 = time.perf_counter()
    pairs = _check_pairs(pairs, "pairs")
    if not pairs:
        raise ValueError("pairs must contain at least one neighbouring pair")
    _check_arity(mechanism)
    if events is not None:
        if isinstance(events, (str, bytes)) or not isinstance(events, (list, tuple)):
            raise TypeError(f"events must be a list of callables event(outputs) -> bool array, got "
                            f"{type(events).__name__}")
        if not all(callable(e) or isinstance(e, Event) for e in events):
            raise TypeError("events must be a list of callables event(outputs) -> bool array (or Event objects)")
    if categorical is not None:
        if isinstance(categorical, (str, bytes)) or not isinstance(categorical, (list, tuple, range, np.ndarray)):
            raise TypeError(f"categorical must be a list of coordinates (int) or names (str), got "
                            f"{type(categorical).__name__}")
        if not all(isinstance(c, (int, np.integer, str)) and not isinstance(c, (bool, np.bool_)) for c in categorical):
            raise TypeError("categorical must be a list of coordinates (int) or names (str)")
    if not isinstance(float_bits, (bool, np.bool_)):
        raise TypeError(f"float_bits must be True or False, got {float_bits!r}")
    if not isinstance(mlp, (bool, np.bool_)):
        raise TypeError(f"mlp must be True or False, got {mlp!r}")
    two_stage = estimate_on == "best"
    conditional = interval == "poisson-conditional"
    if conditional and float(delta) > 0.0:
        raise ValueError(f"interval='poisson-conditional' bounds the ratio P[M(A) in E] / P[M(B) in E], which "
                         f"needs delta=0, got delta={delta!r}: use interval='clopper-pearson' for delta > 0")
    if not two_stage and n_best != 1:
        raise ValueError(f"n_best applies to estimate_on='best' only, got n_best={n_best} with estimate_on='all'")
    if two_stage and events is not None:
        raise ValueError("estimate_on='best' ranks candidates on a selection batch, which events=[...] skips "
                         "(every user event is tested): use estimate_on='all' with events")
    cat_decl = tuple(categorical or ())
    g = as_generator(rng)
    n = DEFAULT_TRIALS if trials is None else int(trials)
    alpha = 1.0 - float(confidence)
    eps, dl = float(epsilon), float(delta)
    codec = Codec()
    used = 0
    seed = _seed_of(rng)
    # datasets: each distinct dataset is sampled once; equal datasets passed as separate objects
    # (equal arrays, equal lists, ...) are recognised by content (see _dataset_key)
    datasets: list[Any] = []
    index: list[tuple[int, int]] = []
    where: dict[Any, int] = {}
    for d0, d1 in pairs:
        ids = []
        for d in (d0, d1):
            key = _dataset_key(d)
            if key not in where:
                where[key] = len(datasets)
                datasets.append(d)
            ids.append(where[key])
        index.append((ids[0], ids[1]))

    n_candidates = 0
    fams: list[dict[str, int]] = [{} for _ in pairs]
    best_sel: list[tuple[float, str]] = [(math.nan, "") for _ in pairs]
    if events is not None:
        ev_list: list[Event] = [e if isinstance(e, Event) else UserEvent(e) for e in events]
        if not ev_list:
            raise ValueError("events must not be empty")
        chosen = [Candidate(0.0, p, e, fwd, ()) for p in range(len(pairs)) for e in ev_list for fwd in (True, False)]
        bar = _audit_bar(progress, len(datasets) * n)
        n_candidates = len(chosen)
        fams = [{"user": 2 * len(ev_list)} for _ in pairs]
    else:
        s = min(max(10_000, n // 4), 500_000) if selection_trials is None else int(selection_trials)
        k_planned = selection.planned_tests(max_events, len(pairs))
        a_plan = alpha / (2 * k_planned)
        sel = {}
        bar = _audit_bar(progress, len(datasets) * (s + n))
        for j, d in enumerate(datasets):
            sel[j] = _draw(mechanism, d, s, g, codec)
            used += s
            bar.update(s)
        if any(o.rows is not None for o in sel.values()):
            # structured outputs: the table's columns are fixed here, on the selection batch only
            codec.schema = OutputSchema([r for o in sel.values() if o.rows is not None for r in o.rows], cat_decl)
            for o in sel.values():
                if o.rows is not None:
                    o.table, o.rows = codec.schema.table(o.rows, codec.encode), None
        cands: list[Candidate] = []
        for p, (i0, i1) in enumerate(index):
            with np.errstate(invalid="ignore", over="ignore"):  # +-inf outputs: inf - inf in the statistics
                found, fams[p] = search_pair(p, sel[i0], sel[i1], s, n, a_plan, dl, n_thresholds, max_values,
                                             codec, cat_decl, bool(float_bits), bool(mlp))
            if conditional and pooled:
                joint, fams[p]["pooled"] = pooled_candidates(p, found, sel[i0], sel[i1], s, n, a_plan)
                found = found + joint
            cands += found
            n_candidates += sum(fams[p].values())
            if found:
                top = max(found, key=lambda c: c.score)
                best_sel[p] = (top.score, f"{{{top.event.description}}}, "
                                          f"{'data -> neighbour' if top.forward else 'neighbour -> data'}")
        del sel
        if not cands:
            raise ValueError("no candidate events could be built from the outputs (e.g. no finite value to "
                             "threshold and no repeated value to test): pass events=[...] to test your own")
        chosen = selection.pick(cands, k_planned)
        if two_stage:
            chosen = _offered(chosen, cands)
            # the choice batch takes its outputs from the estimation budget of n per dataset
            budget = n * len(datasets)
            chosen, c_used = _choose_best(mechanism, datasets, index, chosen, _choice_rounds(s, n), int(n_best),
                                          budget, alpha, dl, g, codec, bar, executor, batch_size, timeout,
                                          conditional)
            used += c_used
    k = len(chosen)

    # estimation on fresh batches
    per_dataset = _events_per_dataset(chosen, index)
    if two_stage:  # what is left of the estimation budget, on the kept tests' datasets only
        n = max(1, (budget - c_used) // len(per_dataset))
    if conditional:  # Poisson sizes truncated at n; the truncation's share of alpha is paid below
        tail = alpha * TRUNCATION_SHARE / len(per_dataset)
        size_of = dict(zip(sorted(per_dataset), poisson_sizes(n, len(per_dataset), tail, g)))
        a = alpha * (1.0 - TRUNCATION_SHARE) / k  # one test per (pair, event, direction)
    else:
        size_of = {j: n for j in per_dataset}
        a = alpha / (2 * k)  # two one-sided intervals per (pair, event, direction)
    counts = _count_datasets(mechanism, datasets, per_dataset, size_of, g, codec, bar, executor, batch_size,
                             timeout)
    used += sum(size_of.values())

    kn = np.empty(k)
    ko = np.empty(k)
    nn = np.empty(k, dtype=np.int64)
    no = np.empty(k, dtype=np.int64)
    for t, c in enumerate(chosen):
        i0, i1 = index[c.pair]
        num, oth = (i0, i1) if c.forward else (i1, i0)
        kn[t], ko[t] = pair_counts(c, index, counts)
        # a pooled test's counts add up both inputs' outputs
        nn[t], no[t] = (size_of[num], size_of[oth]) if sides(c) == 1 else (size_of[i0] + size_of[i1],) * 2
    nn1, no1 = np.maximum(nn, 1), np.maximum(no, 1)  # a Poisson size of 0 has count 0: intervals [0, 1]
    p_lo, p_hi = cp_lower(kn, nn1, a), cp_upper(kn, nn1, a)
    q_lo, q_hi = cp_lower(ko, no1, a), cp_upper(ko, no1, a)
    bounds = ratio_epsilon_bound(kn, ko, a) if conditional else epsilon_bound(p_lo, q_hi, dl)
    witnesses = [
        Witness(
            event=c.event,
            direction=("pooled: data -> neighbour and neighbour -> data" if sides(c) == 2
                       else "data -> neighbour" if c.forward else "neighbour -> data"),
            pair_index=c.pair,
            p=float(kn[t] / nn1[t]), p_interval=(float(p_lo[t]), float(p_hi[t])),
            q=float(ko[t] / no1[t]), q_interval=(float(q_lo[t]), float(q_hi[t])),
            counts=(int(kn[t]), int(ko[t]), int(nn[t])),
            support_mismatch=bool(ko[t] == 0 and kn[t] > 0),
            lower_bound=float(bounds[t]),
            data=pairs[c.pair][0],
            neighbour=pairs[c.pair][1],
            seed=seed,
            trials=(int(nn[t]), int(no[t])) if conditional else None,
        )
        for t, c in enumerate(chosen)
    ]
    search = []
    for p in range(len(pairs)):
        mine = [float(bounds[t]) for t, c in enumerate(chosen) if c.pair == p]
        search.append(PairSearch(p, fams[p], best_sel[p][0], best_sel[p][1], len(mine),
                                 max(mine) if mine else math.nan))
    best = int(np.argmax(bounds))
    lb = max(0.0, float(bounds[best]))
    bar.close()
    return AuditResult(
        epsilon_lower_bound=lb,
        violation=bool(lb > eps),
        p_value=(min(1.0, k * float(np.min(ratio_p_value(kn, ko, eps))) + alpha * TRUNCATION_SHARE) if conditional
                 else _p_value(kn, ko, n, k, eps, dl)),
        witness=witnesses[best],
        trials_used=used,
        epsilon=eps,
        delta=dl,
        confidence=float(confidence),
        n_tests=k,
        n_pairs=len(pairs),
        n_candidates=n_candidates,
        seconds=time.perf_counter() - t0,
        tests=witnesses,
        search=search,
        seed=seed,
        estimate_on=str(estimate_on),
        interval=str(interval),
    )


@validate_params(**_CLAIM_CONSTRAINTS, n_neighbours=Integer(1))
def audit_mechanism(
    mechanism: Mechanism,
    data: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = 0.95,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    n_neighbours: int = 1,
    extra_pairs: Sequence[tuple[Any, Any]] = (),
    **options: Any,
) -> AuditResult:
    """Audit a mechanism's claimed ``(epsilon, delta)`` on neighbouring inputs.

    Returns a lower bound on the mechanism's epsilon (at the given delta) that is valid
    with probability at least ``confidence``; see the module docstring for the method
    (events chosen on a separate selection batch, Clopper–Pearson bounds on fresh batches,
    Bonferroni across pairs, events and both directions, no probability floor).

    Implements: AUDIT.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng)`` -> ``size`` outputs along axis 0.
    data : any
        The first dataset (whatever the mechanism accepts).
    neighbour : dataset or callable
        A neighbouring dataset, or a sampler ``neighbour(data, rng) -> dataset`` (see
        :mod:`semiprivate.theory.audit.neighbours`) from which ``n_neighbours`` neighbours are drawn and
        all searched.
    epsilon, delta : float
        The claimed privacy parameters.
    trials : int, optional
        Estimation outputs per dataset (default 1,000,000); selection uses
        ``min(max(10_000, trials // 4), 500_000)`` more per dataset unless ``selection_trials``
        is given.
    confidence : float
        The bound holds with probability ``>= confidence``; a correct mechanism is flagged
        with probability ``<= 1 - confidence``.
    events : sequence of callables, optional
        User events (``event(outputs) -> bool array``) tested instead of selected ones.
    rng : None, int or Generator
        Seed or generator (used for the mechanism and the neighbour sampler).
    n_neighbours : int
        Number of neighbours drawn when ``neighbour`` is a sampler.
    extra_pairs : sequence of (dataset, dataset)
        Further neighbouring pairs to search.
    **options
        Passed to :func:`audit_pairs` (``selection_trials``, ``max_events``, ...).

    Returns
    -------
    AuditResult
        ``epsilon_lower_bound``, ``violation``, ``p_value``, ``witness``, ``trials_used``.

    Raises
    ------
    ValueError
        Bad parameters, or a mechanism that does not return ``size`` outputs.

    Examples
    --------
    >>> from semiprivate.theory.privacy.mechanisms import LaplaceMechanism
    >>> res = audit_mechanism(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=200_000, rng=0)
    >>> res.violation, 0.8 < res.epsilon_lower_bound <= 1.0
    (False, True)
    >>> broken = LaplaceMechanism(2.0)  # claims 1.0 but adds half the noise
    >>> audit_mechanism(broken, 0.0, 1.0, epsilon=1.0, trials=200_000, rng=0).violation
    True
    """
    g = as_generator(rng)
    pairs: list[tuple[Any, Any]] = []
    if callable(neighbour) and not isinstance(neighbour, np.ndarray):
        for _ in range(n_neighbours):
            pairs.append((data, neighbour(data, g)))
    else:
        pairs.append((data, neighbour))
    pairs.extend(_check_pairs(extra_pairs, "extra_pairs"))
    res = audit_pairs(mechanism, pairs, epsilon=epsilon, delta=delta, trials=trials, confidence=confidence,
                      events=events, rng=g, **options)
    # the seed that reproduces this call (audit_pairs only saw the Generator made from it)
    res.seed = _seed_of(rng)
    for w in res.tests:
        w.seed = res.seed
    return res


def assert_private(
    mechanism: Mechanism,
    data: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    confidence: float = 0.999,
    **kwargs: Any,
) -> AuditResult:
    """Fail (``AssertionError``) when an audit refutes the claimed ``(epsilon, delta)``.

    For use inside pytest/hypothesis tests.  The default ``confidence=0.999`` means a
    correct mechanism makes this fail with probability at most 0.001 per call (per
    hypothesis example: lower it by the number of examples if you need a per-test rate).
    The failure message shows the claim, the lower bound, the witness event and both
    probabilities with their intervals.  Returns the :class:`AuditResult` otherwise.

    Implements: AUDIT (pytest helper).

    Examples
    --------
    >>> from semiprivate.theory.privacy.mechanisms import RandomizedResponse
    >>> r = assert_private(RandomizedResponse(1.0), 0, 1, epsilon=1.0, trials=100_000, rng=1)
    >>> r.violation
    False
    """
    __tracebackhide__ = True  # pytest: a failure shows the audit report, not this library's frames
    res = audit_mechanism(mechanism, data, neighbour, epsilon=epsilon, delta=delta, confidence=confidence, **kwargs)
    if res.violation:
        name = getattr(mechanism, "__name__", None) or repr(mechanism)
        raise AssertionError(f"mechanism {name} is not ({epsilon:g}, {delta:g})-DP:\n{res.report()}")
    return res

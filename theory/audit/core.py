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
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

import numpy as np
from semiprivate.kernels.threads import blas_controller
from semiprivate.theory.audit import selection
from semiprivate.theory.audit.batches import DEFAULT_TIMEOUT as DEFAULT_BATCH_TIMEOUT
from semiprivate.theory.audit.batches import batch_sizes, run_batches
from semiprivate.theory.audit.candidates import Candidate, search_pair
from semiprivate.theory.audit.conditional import TRUNCATION_SHARE, poisson_sizes, ratio_epsilon_bound, ratio_p_value
from semiprivate.theory.audit.curves import epsilon_curve
from semiprivate.theory.audit.draws import Codec, Mechanism, Outputs, normalize, vectorize
from semiprivate.theory.audit.events import Event, UserEvent
from semiprivate.theory.audit.options import DEFAULT_CONFIDENCE, DEFAULT_TRIALS, READING_CONFIDENCE, AuditOptions
from semiprivate.theory.audit.outputs import OutputSchema
from semiprivate.theory.audit.pooled import count_plan, pair_counts, pooled_candidates, sides
from semiprivate.theory.audit.pvalues import cp_p_value_and_log
from semiprivate.theory.audit.result import AuditResult, PairSearch, Witness
from semiprivate.theory.audit.stats import cp_lower, cp_upper, epsilon_bound
from semiprivate.validation import (
    DELTA,
    EPSILON,
    RNG,
    CallableConstraint,
    Integer,
    Optional,
    Real,
    as_generator,
    experiment_coins,
    validate_params,
)
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
    "AuditOptions",
]

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
    # an experiment, not a release: one generator state is replayed on both neighbours on purpose (common
    # random numbers), so the privacy layer's seed record does not count these draws
    with experiment_coins():
        return normalize(mechanism(data, size, g), size, codec)


def _count(mechanism: Mechanism, data: Any, events: list[Event], n: int, g: np.random.Generator,
           codec: Codec, bar: Any = None) -> np.ndarray:
    """Event counts among ``n`` fresh outputs, drawn in chunks of about 2^21 numbers; ``bar`` (a tqdm bar,
    optional) advances by the outputs drawn."""
    counts = np.zeros(len(events), dtype=np.int64)
    probe = _draw(mechanism, data, min(n, 1024), g, codec)
    kind = (probe.kind, None if probe.num is None else probe.num.shape[1:])
    width = 1 if probe.num is None or probe.num.ndim == 1 else probe.num.shape[1]
    done = probe.num.shape[0] if probe.num is not None else len(probe.keys)  # type: ignore[arg-type]
    for i, e in enumerate(events):
        counts[i] += int(np.count_nonzero(_indicator(e, probe, done, g)))
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
            counts[i] += int(np.count_nonzero(_indicator(e, out, m, g)))
        done += m
        if bar is not None:
            bar.update(m)
    return counts


def _coins(g: np.random.Generator, size: int) -> np.ndarray:
    """One uniform coin per output for a randomised event, from the counting stream after the outputs."""
    return g.random(size)


def _indicator(e: Event, out: Outputs, size: int, g: np.random.Generator) -> np.ndarray:
    """``e``'s indicator on ``size`` outputs; a randomised event (``coins``) gets fresh coins from ``g``."""
    return e.indicator(out, _coins(g, size)) if getattr(e, "coins", False) else e.indicator(out)  # type: ignore[call-arg]


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


@dataclass
class _Run:
    """What one audit carries from stage to stage: the distinct datasets, the options, the randomness, the
    outputs drawn so far (``used``) and the progress bar."""

    mechanism: Mechanism
    pairs: list[tuple[Any, Any]]
    datasets: list[Any]
    index: list[tuple[int, int]]  # per pair: (dataset index of data, of neighbour)
    opts: AuditOptions
    g: np.random.Generator
    n: int
    alpha: float
    delta: float
    codec: Codec = field(default_factory=Codec)
    bar: Any = None
    used: int = 0


@dataclass
class _Search:
    """The selection stage's outcome: the tests to estimate (or offer to the choice batch) and, per pair, the
    candidate families and the best selection score."""

    chosen: list[Candidate]
    candidates: list[Candidate]
    families: list[dict[str, int]]
    best: list[tuple[float, str]]
    n_candidates: int


def _start(mechanism: Mechanism, pairs: Any, events: Any, opts: AuditOptions, trials: int | None,
           confidence: float, delta: float, rng: Any) -> _Run:
    """Stage 0: the arguments checked together, and each distinct dataset indexed once (equal datasets passed
    as separate objects, equal arrays or lists, are recognised by content: :func:`_dataset_key`)."""
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
        if not events:
            raise ValueError("events must not be empty")
        if opts.estimate_on == "best":
            raise ValueError("estimate_on='best' ranks candidates on a selection batch, which events=[...] skips "
                             "(every user event is tested): use estimate_on='all' with events")
    if opts.interval == "poisson-conditional" and float(delta) > 0.0:
        raise ValueError(f"interval='poisson-conditional' bounds the ratio P[M(A) in E] / P[M(B) in E], which "
                         f"needs delta=0, got delta={delta!r}: use interval='clopper-pearson' for delta > 0")
    datasets: list[Any] = []
    index: list[tuple[int, int]] = []
    where: dict[Any, int] = {}
    for pair in pairs:
        ids = []
        for d in pair:
            key = _dataset_key(d)
            if key not in where:
                where[key] = len(datasets)
                datasets.append(d)
            ids.append(where[key])
        index.append((ids[0], ids[1]))
    n = DEFAULT_TRIALS if trials is None else int(trials)
    return _Run(mechanism, pairs, datasets, index, opts, as_generator(rng), n, 1.0 - float(confidence), float(delta))


def _select(run: _Run, events: Sequence[Any] | None) -> _Search:
    """Stage 1 (draw and search): the user's events on every pair and direction, or a selection batch per
    dataset, the candidate events of every pair built and scored on it (:func:`search_pair`, with the pooled
    tests of :mod:`semiprivate.theory.audit.pooled`), and ``K`` kept (:func:`selection.pick`)."""
    o, npairs = run.opts, len(run.pairs)
    if events is not None:
        ev_list: list[Event] = [e if isinstance(e, Event) else UserEvent(e) for e in events]
        chosen = [Candidate(0.0, p, e, fwd, ()) for p in range(npairs) for e in ev_list for fwd in (True, False)]
        run.bar = _audit_bar(o.progress, len(run.datasets) * run.n)
        return _Search(chosen, chosen, [{"user": 2 * len(ev_list)} for _ in run.pairs],
                       [(math.nan, "") for _ in run.pairs], len(chosen))
    s = _selection_size(run)
    k_planned = selection.planned_tests(o.max_events, npairs)
    run.bar = _audit_bar(o.progress, len(run.datasets) * (s + run.n))
    sel = {}
    for j, d in enumerate(run.datasets):
        sel[j] = _draw(run.mechanism, d, s, run.g, run.codec)
        run.used += s
        run.bar.update(s)
    if any(out.rows is not None for out in sel.values()):
        # structured outputs: the table's columns are fixed here, on the selection batch only
        run.codec.schema = OutputSchema([r for out in sel.values() if out.rows is not None for r in out.rows],
                                        o.categorical or ())
        for out in sel.values():
            if out.rows is not None:
                out.table, out.rows = run.codec.schema.table(out.rows, run.codec.encode), None
    found = _Search([], [], [{} for _ in run.pairs], [(math.nan, "") for _ in run.pairs], 0)
    a_plan = run.alpha / (2 * k_planned)
    counts_score = selection.CountScores(s, run.n, a_plan, run.delta)  # one table for every pair
    for p, (i0, i1) in enumerate(run.index):
        with np.errstate(invalid="ignore", over="ignore"):  # +-inf outputs: inf - inf in the statistics
            mine, found.families[p] = search_pair(p, sel[i0], sel[i1], s, run.n, a_plan, run.delta, o.n_thresholds,
                                                  o.max_values, run.codec, o.categorical or (), o.float_bits, o.mlp,
                                                  o.learned, counts_score=counts_score)
        if o.interval == "poisson-conditional" and o.pooled:
            joint, found.families[p]["pooled"] = pooled_candidates(p, mine, sel[i0], sel[i1], s, run.n, a_plan)
            mine = mine + joint
        found.candidates += mine
        found.n_candidates += sum(found.families[p].values())
        if mine:
            top = max(mine, key=lambda c: c.score)
            found.best[p] = (top.score, f"{{{top.event.description}}}, "
                                        f"{'data -> neighbour' if top.forward else 'neighbour -> data'}")
    if not found.candidates:
        raise ValueError("no candidate events could be built from the outputs (e.g. no finite value to "
                         "threshold and no repeated value to test): pass events=[...] to test your own")
    found.chosen = selection.pick(found.candidates, k_planned)
    return found


def _choose(run: _Run, found: _Search) -> tuple[list[Candidate], int]:
    """Stage 2 (``estimate_on="best"``, the two-stage design): the planned tests and the best of every other
    event group offered to the choice batch (:func:`_offered`), ``n_best`` kept (:func:`_choose_best`); the
    choice batch is paid from the estimation budget.  Returns the kept tests and the estimation trials left
    per kept dataset."""
    budget = run.n * len(run.datasets)
    chosen, c_used = _choose_best(run.mechanism, run.datasets, run.index, _offered(found.chosen, found.candidates),
                                  _choice_rounds(_selection_size(run), run.n), run.opts.n_best, budget, run.alpha,
                                  run.delta, run.g, run.codec, run.bar, run.opts.executor, run.opts.batch_size,
                                  run.opts.timeout, run.opts.interval == "poisson-conditional")
    run.used += c_used
    return chosen, max(1, (budget - c_used) // len(_events_per_dataset(chosen, run.index)))


def _selection_size(run: _Run) -> int:
    s = run.opts.selection_trials
    return min(max(10_000, run.n // 4), 500_000) if s is None else int(s)


@dataclass
class _Estimate:
    """Stage 3's counts and bounds, one entry per kept test (numerator / other side)."""

    kn: np.ndarray
    ko: np.ndarray
    nn: np.ndarray
    no: np.ndarray
    level: float
    bounds: np.ndarray


def _estimate(run: _Run, chosen: list[Candidate], n: int) -> _Estimate:
    """Stage 3 (draw, count and bound): fresh estimation batches of ``n`` outputs on each kept test's datasets
    (Poisson-sized with the conditional test, the truncation's share of alpha paid in the level), the events
    counted, and each test's bound: two Clopper–Pearson intervals at ``alpha / (2K)``, or one conditional test
    at ``alpha (1 - TRUNCATION_SHARE) / K``."""
    per_dataset = _events_per_dataset(chosen, run.index)
    k, conditional = len(chosen), run.opts.interval == "poisson-conditional"
    if conditional:  # Poisson sizes truncated at n; the truncation's share of alpha is paid below
        tail = run.alpha * TRUNCATION_SHARE / len(per_dataset)
        size_of = dict(zip(sorted(per_dataset), poisson_sizes(n, len(per_dataset), tail, run.g)))
        a = run.alpha * (1.0 - TRUNCATION_SHARE) / k  # one test per (pair, event, direction)
    else:
        size_of = {j: n for j in per_dataset}
        a = run.alpha / (2 * k)  # two one-sided intervals per (pair, event, direction)
    counts = _count_datasets(run.mechanism, run.datasets, per_dataset, size_of, run.g, run.codec, run.bar,
                             run.opts.executor, run.opts.batch_size, run.opts.timeout)
    run.used += sum(size_of.values())
    kn, ko = np.empty(k), np.empty(k)
    nn, no = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
    for t, c in enumerate(chosen):
        i0, i1 = run.index[c.pair]
        num, oth = (i0, i1) if c.forward else (i1, i0)
        kn[t], ko[t] = pair_counts(c, run.index, counts)
        # a pooled test's counts add up both inputs' outputs
        nn[t], no[t] = (size_of[num], size_of[oth]) if sides(c) == 1 else (size_of[i0] + size_of[i1],) * 2
    bounds = (ratio_epsilon_bound(kn, ko, a) if conditional else
              epsilon_bound(cp_lower(kn, np.maximum(nn, 1), a), cp_upper(ko, np.maximum(no, 1), a), run.delta))
    return _Estimate(kn, ko, nn, no, a, bounds)


def _witnesses(run: _Run, chosen: list[Candidate], est: _Estimate, seed: Any) -> list[Witness]:
    """One :class:`Witness` per kept test, its intervals at the test's level."""
    nn1, no1 = np.maximum(est.nn, 1), np.maximum(est.no, 1)  # a Poisson size of 0 has count 0: intervals [0, 1]
    p_lo, p_hi = cp_lower(est.kn, nn1, est.level), cp_upper(est.kn, nn1, est.level)
    q_lo, q_hi = cp_lower(est.ko, no1, est.level), cp_upper(est.ko, no1, est.level)
    return [
        Witness(event=c.event,
                direction=("pooled: data -> neighbour and neighbour -> data" if sides(c) == 2
                           else "data -> neighbour" if c.forward else "neighbour -> data"),
                pair_index=c.pair, p=float(est.kn[t] / nn1[t]), p_interval=(float(p_lo[t]), float(p_hi[t])),
                q=float(est.ko[t] / no1[t]), q_interval=(float(q_lo[t]), float(q_hi[t])),
                counts=(int(est.kn[t]), int(est.ko[t]), int(est.nn[t])),
                support_mismatch=bool(est.ko[t] == 0 and est.kn[t] > 0), lower_bound=float(est.bounds[t]),
                data=run.pairs[c.pair][0], neighbour=run.pairs[c.pair][1], seed=seed,
                trials=(int(est.nn[t]), int(est.no[t])) if run.opts.interval == "poisson-conditional" else None)
        for t, c in enumerate(chosen)
    ]


def _report(run: _Run, chosen: list[Candidate], found: _Search, est: _Estimate, n: int, epsilon: float,
            seed: Any, t0: float) -> AuditResult:
    """Stage 4: the result: the largest bound and its witness, the p-value of the claim (its logarithm too,
    :mod:`semiprivate.theory.audit.pvalues`), the search per pair and, with ``epsilons``, the epsilon curve."""
    witnesses = _witnesses(run, chosen, est, seed)
    k, conditional = len(chosen), run.opts.interval == "poisson-conditional"
    search = []
    for p in range(len(run.pairs)):
        mine = [float(est.bounds[t]) for t, c in enumerate(chosen) if c.pair == p]
        search.append(PairSearch(p, found.families[p], found.best[p][0], found.best[p][1], len(mine),
                                 max(mine) if mine else math.nan))
    if conditional:
        p_value = min(1.0, k * float(np.min(ratio_p_value(est.kn, est.ko, epsilon))) + run.alpha * TRUNCATION_SHARE)
        log_p = math.log(p_value)
    else:
        p_value, log_p = cp_p_value_and_log(est.kn, est.ko, n, k, epsilon, run.delta)
    best = int(np.argmax(est.bounds))
    lb = max(0.0, float(est.bounds[best]))
    run.bar.close()
    result = AuditResult(
        epsilon_lower_bound=lb, violation=bool(lb > epsilon), p_value=p_value, witness=witnesses[best],
        trials_used=run.used, epsilon=epsilon, delta=run.delta, confidence=1.0 - run.alpha, n_tests=k,
        n_pairs=len(run.pairs), n_candidates=found.n_candidates, seconds=time.perf_counter() - t0, tests=witnesses,
        search=search, seed=seed, estimate_on=run.opts.estimate_on, interval=run.opts.interval, log_p_value=log_p)
    if run.opts.epsilons is not None:
        result.curve = epsilon_curve(result, run.opts.epsilons)
    return result


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
@validate_params(**_CLAIM_CONSTRAINTS)
def audit_pairs(mechanism: Mechanism, pairs: Sequence[tuple[Any, Any]], *, epsilon: float, delta: float = 0.0,
                trials: int | None = None, confidence: float = READING_CONFIDENCE,
                events: Sequence[Callable[[Any], Any]] | None = None, rng: Any = None,
                options: AuditOptions | None = None, **knobs: Any) -> AuditResult:
    """Audit ``mechanism`` on several neighbouring pairs ``[(D1, D1'), (D2, D2'), ...]``.

    Same method and guarantees as :func:`audit_mechanism` (which calls this; see the module docstring); the
    Bonferroni correction covers every tested (pair, event, direction).  The audit runs in stages: draw the
    selection batch and search the candidate events (or take the user's ``events``), with
    ``estimate_on="best"`` choose the tests on a choice batch, draw and count the estimation batch and bound
    each test, then report.

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
        Estimation outputs per dataset (default :data:`~semiprivate.theory.audit.options.DEFAULT_TRIALS`,
        1,000,000); with ``estimate_on="best"`` the budget, ``trials`` times the number of distinct
        datasets, pays the choice batch and is drawn on the kept tests' datasets only.
    confidence : float
        Probability that the reported lower bound is valid (default 0.95, a reading; the gates use 0.999).
    events : sequence of callables, optional
        User events ``event(outputs) -> bool array``; when given, no selection batch is drawn
        and every (pair, event, direction) is tested.
    rng : None, int or Generator
        Randomness of the audit and of the mechanism calls.
    options : AuditOptions, optional
        How the audit searches and estimates (:class:`~semiprivate.theory.audit.options.AuditOptions`).
    **knobs
        Any field of :class:`~semiprivate.theory.audit.options.AuditOptions` by keyword
        (``estimate_on="best"``), applied on top of ``options``: deprecated (a ``DeprecationWarning`` naming them), same result.

    Returns
    -------
    AuditResult
        With ``options.epsilons``, ``result.curve`` holds the epsilon curve of those claims.
    """
    t0 = time.perf_counter()
    opts = AuditOptions.resolve(options, knobs, "audit_pairs", deprecated=True)
    run = _start(mechanism, pairs, events, opts, trials, confidence, delta, rng)
    found = _select(run, events)
    chosen, n = _choose(run, found) if opts.estimate_on == "best" else (found.chosen, run.n)
    est = _estimate(run, chosen, n)
    return _report(run, chosen, found, est, n, float(epsilon), _seed_of(rng), t0)

@validate_params(**_CLAIM_CONSTRAINTS, n_neighbours=Integer(1))
def audit_mechanism(
    mechanism: Mechanism,
    data: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    trials: int | None = None,
    confidence: float = READING_CONFIDENCE,
    events: Sequence[Callable[[Any], Any]] | None = None,
    rng: Any = None,
    n_neighbours: int = 1,
    extra_pairs: Sequence[tuple[Any, Any]] = (),
    options: AuditOptions | None = None,
    **knobs: Any,
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
    options : AuditOptions, optional
        How the audit searches and estimates (:class:`~semiprivate.theory.audit.options.AuditOptions`),
        passed whole to :func:`audit_pairs`.
    **knobs
        Fields of :class:`~semiprivate.theory.audit.options.AuditOptions` by keyword (deprecated: a ``DeprecationWarning`` naming them),
        applied on top of ``options``.

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
    opts = AuditOptions.resolve(options, knobs, "audit_mechanism", deprecated=True)
    g = as_generator(rng)
    pairs: list[tuple[Any, Any]] = []
    if callable(neighbour) and not isinstance(neighbour, np.ndarray):
        for _ in range(n_neighbours):
            pairs.append((data, neighbour(data, g)))
    else:
        pairs.append((data, neighbour))
    pairs.extend(_check_pairs(extra_pairs, "extra_pairs"))
    res = audit_pairs(mechanism, pairs, epsilon=epsilon, delta=delta, trials=trials, confidence=confidence,
                      events=events, rng=g, options=opts)
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
    confidence: float = DEFAULT_CONFIDENCE,
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
    knobs = {k: kwargs.pop(k) for k in list(kwargs) if k in AuditOptions.knob_names()}
    if knobs:
        kwargs["options"] = AuditOptions.resolve(kwargs.pop("options", None), knobs, "assert_private", deprecated=True)
    res = audit_mechanism(mechanism, data, neighbour, epsilon=epsilon, delta=delta, confidence=confidence, **kwargs)
    if res.violation:
        name = getattr(mechanism, "__name__", None) or repr(mechanism)
        raise AssertionError(f"mechanism {name} is not ({epsilon:g}, {delta:g})-DP:\n{res.report()}")
    return res

"""The auditor's tuning knobs in one validated, immutable object (:class:`AuditOptions`).

:func:`semiprivate.theory.audit.audit_pairs` takes the claim (``epsilon``, ``delta``), the budget (``trials``,
``confidence``), the randomness (``rng``) and the user's ``events`` as arguments, and everything else, how
the search and the estimation are tuned, as one :class:`AuditOptions`.  :func:`~semiprivate.theory.audit.audit_mechanism`,
:func:`~semiprivate.theory.audit.assert_private`, the pytest fixture ``dp_audit``, the command line
``semiprivate audit MODULE:FUNCTION`` and the built-in suite pass that object on whole.  The knobs are still
accepted as keyword arguments of :func:`~semiprivate.theory.audit.audit_pairs`,
:func:`~semiprivate.theory.audit.audit_mechanism` and :func:`~semiprivate.theory.audit.assert_private`
(``estimate_on="best"``), deprecated: each is mapped into an :class:`AuditOptions` by :meth:`AuditOptions.resolve`,
with the same validation, and gives the same result on the same seed, with a ``DeprecationWarning`` naming the
options to move into ``options=AuditOptions(...)``.  (The pytest fixture ``dp_audit`` and its marker gather their
keywords into one :class:`AuditOptions` by design: no warning there.)

Defaults, stated once here for the whole auditor: :data:`DEFAULT_TRIALS` = 1,000,000 estimation trials per
dataset and, for every gate (``assert_private``, the pytest fixture, the command line, the built-in suite),
:data:`DEFAULT_CONFIDENCE` = 0.999; :func:`~semiprivate.theory.audit.audit_pairs` and
:func:`~semiprivate.theory.audit.audit_mechanism` return a reading at :data:`READING_CONFIDENCE` = 0.95
unless told otherwise.

Implements: AUDIT (audit options).
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from types import FrameType
from typing import Any

import numpy as np
from semiprivate import validation as _validation
from semiprivate.validation import Boolean, Constraint, Integer, Optional, Options, Real

__all__ = ["AuditOptions", "DEFAULT_CONFIDENCE", "DEFAULT_TRIALS", "READING_CONFIDENCE"]

#: estimation trials per dataset when ``trials`` is not given (every entry point)
DEFAULT_TRIALS = 1_000_000
#: confidence of every audit gate: ``assert_private``, the pytest plugin, ``semiprivate audit``, the built-in suite
DEFAULT_CONFIDENCE = 0.999
#: confidence of :func:`audit_pairs` / :func:`audit_mechanism` when not given (a reading, not a gate)
READING_CONFIDENCE = 0.95


@dataclass(frozen=True)
class AuditOptions:
    """How an audit searches and estimates (every knob of :func:`semiprivate.theory.audit.audit_pairs`).

    Validated on construction (TypeError / ValueError naming the field); immutable, so one object can be
    shared by many audits; ``dataclasses.replace(options, n_best=2)`` makes a variant.

    Parameters
    ----------
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
        (and the choice batch of ``estimate_on="best"``) is always drawn here.  The mechanism and the events
        are sent to the workers (cloudpickle for Dask): one that cannot be pickled is refused with a TypeError.
    timeout : float, optional
        Seconds to wait for a Dask client's batches (default 3600); a dead cluster raises
        TimeoutError instead of hanging.
    categorical : sequence of int or str, optional
        Output coordinates to treat as categorical: they get value events (``x[j] == v``, value
        sets) and joint events ``{x[j] == v and x[i] > t}`` with the numeric coordinates, never
        thresholds.  An int is a coordinate of a vector output or an item of a tuple output; a str a
        dict key or a path name (``"x[1]['count']"``, see :mod:`semiprivate.theory.audit.outputs`).  Without it,
        non-numeric leaves of structured outputs and integer coordinates with at most 16 values are
        categorical automatically (the latter keep their thresholds too).  Stored as a tuple.
    float_bits : bool
        Add events on the sign, exponent and lowest 1 or 4 mantissa bits of float outputs (scalar,
        or the ranked coordinates of vectors).  A textbook Laplace mechanism computed in doubles
        (``value + rng.laplace(...)``) is *not* epsilon-DP (Mironov 2012): its output support
        depends on the input, and these events show it; snap outputs to a grid to pass.  Off by
        default, so that audits of such mechanisms test the real-valued claim.
    mlp : bool
        For vector outputs, also threshold the logit of a small neural network (scikit-learn's
        ``MLPClassifier``, 32 ReLU units, see :func:`semiprivate.theory.audit.selection.mlp_score`) fitted on
        the selection batch, beside the logistic score.  Off by default (about a second of fitting per pair).
    progress : bool, optional
        A tqdm bar on stderr over the outputs drawn, with a time estimate.  Default: shown when stderr
        is a terminal and the audit is still running after a few seconds; ``True`` / ``False`` force it on / off.
    estimate_on : {"all", "best"}
        Where the estimation batch is drawn.  ``"all"`` (default): every distinct dataset gets
        ``trials`` outputs and every pair's best events are tested, at level
        ``(1 - confidence) / (2K)``.  ``"best"``: the two-stage design (see :mod:`semiprivate.theory.audit.core`):
        those ``K`` tests are rescored on a choice batch, ``n_best`` are kept and tested at level
        ``(1 - confidence) / (2 n_best)`` on the rest of the budget, split over their datasets; no correction
        is needed for the tests dropped, since the choice depends on the selection and choice batches only.
        Needs the selection batch (refused with ``events``).
    n_best : int
        With ``estimate_on="best"``: how many (pair, event, direction) candidates are kept (default
        1: one witness, as DP-Sniper and StatDP test).  Only 1 is accepted with ``"all"``.
    interval : {"clopper-pearson", "poisson-conditional"}
        The bound of each test: two one-sided Clopper–Pearson intervals at level ``alpha / (2K)`` each
        (default), or (``delta = 0`` only) one exact conditional binomial test of the probability ratio on
        Poisson-sized batches at level ``alpha (1 - 1/1000) / K`` (:mod:`semiprivate.theory.audit.conditional`).
    pooled : bool
        With ``interval="poisson-conditional"`` and a selection batch (default ``True``): also offer pooled
        two-direction tests ``P_A(E) + P_B(F) <= e^eps (P_B(E) + P_A(F))`` (:mod:`semiprivate.theory.audit.pooled`).
        Ignored with the Clopper–Pearson interval.
    learned : bool
        Also offer learned randomised events for outputs with repeated values: the likelihood-ratio
        ordering of the values on the selection batch (the frequency classifier), its first ``k`` values plus
        the next one kept with probability ``gamma`` in {1/4, 1/2, 3/4} per output
        (:class:`semiprivate.theory.audit.events.RandomizedEvent`, DP-Sniper's randomised threshold), scored
        and chosen like every candidate on the selection and choice batches only; the coins come from the
        counting stream, one per output, so validity is unchanged.  Off by default.
    epsilons : sequence of float, optional
        Claims whose p-values the result also reports: the epsilon curve
        (:func:`semiprivate.theory.audit.curves.epsilon_curve`) from the same counts, in ``result.curve``.
        Stored as a sorted tuple of floats.

    Examples
    --------
    >>> opts = AuditOptions(estimate_on="best", interval="poisson-conditional", epsilons=(1, 0.5))
    >>> opts.n_best, opts.epsilons
    (1, (0.5, 1.0))
    >>> AuditOptions(n_best=0)
    Traceback (most recent call last):
    ...
    ValueError: n_best must be an integer in [1, inf], got 0
    """

    selection_trials: int | None = None
    max_events: int = 4
    n_thresholds: int = 256
    max_values: int = 2048
    batch_size: int | None = None
    executor: Any = None
    timeout: float | None = None
    categorical: tuple[int | str, ...] | None = None
    float_bits: bool = False
    mlp: bool = False
    progress: bool | None = None
    estimate_on: str = "all"
    n_best: int = 1
    interval: str = "clopper-pearson"
    pooled: bool = True
    learned: bool = False
    epsilons: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        for flag in ("float_bits", "mlp"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise TypeError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        for name, rule in _RULES.items():
            rule.validate(name, getattr(self, name))
        if self.categorical is not None:
            object.__setattr__(self, "categorical", _categorical(self.categorical))
        if self.epsilons is not None:
            object.__setattr__(self, "epsilons", _epsilons(self.epsilons))
        if self.estimate_on == "all" and self.n_best != 1:
            raise ValueError(f"n_best applies to estimate_on='best' only, got n_best={self.n_best} with "
                             "estimate_on='all'")

    @staticmethod
    def knob_names() -> frozenset[str]:
        """The names of the knobs (the fields), as accepted by keyword by the audit's entry points."""
        return _FIELDS

    @classmethod
    def resolve(cls, options: AuditOptions | None, knobs: Mapping[str, Any], caller: str,
                deprecated: bool = False) -> AuditOptions:
        """``options`` (default :class:`AuditOptions()`) with the keyword arguments ``knobs`` applied on top.

        The keyword form of the knobs (``audit_pairs(..., estimate_on="best")``) is kept for existing code;
        with ``deprecated=True`` (the audit's entry points) it warns (``DeprecationWarning`` naming the options,
        attributed to the first caller outside the auditor); an unknown name is a TypeError naming ``caller``,
        as Python's own would be.
        """
        if options is not None and not isinstance(options, AuditOptions):
            raise TypeError(f"options must be an AuditOptions, got {type(options).__name__}")
        unknown = sorted(set(knobs) - _FIELDS)
        if unknown:
            raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r} (the audit's knobs: "
                            f"{', '.join(sorted(_FIELDS))})")
        base = options if options is not None else cls()
        if not knobs:
            return base
        resolved = replace(base, **knobs)  # a bad knob is refused first, with its own message
        if deprecated:
            names = sorted(knobs)
            warnings.warn(f"{caller}(): the audit options {', '.join(names)} by keyword are deprecated; pass "
                          f"options=AuditOptions({', '.join(f'{k}=...' for k in names)}) "
                          "(semiprivate.theory.audit.AuditOptions)", DeprecationWarning, stacklevel=_outside())
        return resolved


def _outside() -> int:
    """The ``stacklevel`` of the first frame outside the auditor and the validation layer (the user's call)."""
    auditor, rules = os.path.dirname(os.path.abspath(__file__)), os.path.abspath(_validation.__file__)
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and (os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == auditor
                                 or os.path.abspath(frame.f_code.co_filename) == rules):
        frame, level = frame.f_back, level + 1
    return level


def _categorical(value: Any) -> tuple[int | str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, range, np.ndarray)):
        raise TypeError(f"categorical must be a list of coordinates (int) or names (str), got {type(value).__name__}")
    if not all(isinstance(c, (int, np.integer, str)) and not isinstance(c, (bool, np.bool_)) for c in value):
        raise TypeError("categorical must be a list of coordinates (int) or names (str)")
    return tuple(int(c) if isinstance(c, (int, np.integer)) else c for c in value)


def _epsilons(value: Any) -> tuple[float, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"epsilons must be a sequence of claimed epsilons, got {type(value).__name__}")
    if not all(isinstance(e, (int, float, np.integer, np.floating)) and not isinstance(e, (bool, np.bool_))
               for e in value):
        raise TypeError("epsilons must be a sequence of numbers")
    eps = sorted(float(e) for e in value)
    if not eps or not all(math.isfinite(e) and e >= 0.0 for e in eps):
        raise ValueError(f"epsilons must be a non-empty sequence of finite claims >= 0, got {value!r:.80}")
    return tuple(eps)


#: the declared rule of each knob with one (the flags, ``categorical`` and ``epsilons`` have their own checks)
_RULES: dict[str, Constraint] = dict(
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
    learned=Boolean(),
)
_FIELDS = frozenset(f.name for f in fields(AuditOptions))

"""Private active learning (BNS15 Section 5): label oracles, transcripts, PAL/TPAL, SubSampling.

Implements: BNS15.Def5.1, BNS15.Def5.3, BNS15.Def5.4, BNS15.Thm5.5, BNS15.Thm5.6, BNS15.Alg4,
BNS15.Cl5.7, BNS15.Thm5.8.

- BNS15.Def5.1 (active learner): the learner gets a pool ``D = (x_1..x_t)`` of unlabelled
  points and may ask the label of index ``i``; an (alpha, beta, n=t, m)-active learner asks at
  most ``m`` labels and returns an alpha-good hypothesis w.p. >= 1 - beta.  Here the oracle is
  :class:`LabelOracle`; it answers ``query(i)`` with ``y_i`` and records the *transcript*
  (the ordered queried indices).  Rules: ``i`` must be an int in ``[0, t)``; an index may be
  queried once (a repeat is a ``ValueError``: the learner already knows it); at most ``budget``
  queries (``BudgetExceededError``).  An unqueried label is never revealed: the labels are held
  in a closure, not in an attribute.
- BNS15.Def5.3 (PAL): an active learner that is (epsilon, delta)-DP as a function of the
  labelled database ``S = ((x_i, y_i))_i`` -- its *output* only.
- BNS15.Def5.4 (TPAL): (epsilon, delta)-DP for the pair (output, transcript).  Neighbouring
  databases differ in one entry (x_i, y_i).  :class:`PrivacyClaim` declares which property a
  learner satisfies and with what (epsilon, delta); :func:`check_claim` tests it exactly on a
  given distribution pair.
- BNS15.Thm5.5: every (alpha, beta, eps, delta, n, m)-PSSL is an (alpha, beta, eps, delta, n, m)-TPAL:
  ask the labels of the first m indices in order (the transcript is the constant (0..m-1)).
  :class:`PSSLAsTPAL`.
- BNS15.Thm5.6: a TPAL for THRESH_d needs m >= e^{-2eps}(1 - 25 beta/9)/(9 alpha) - n delta (1 + e^{-eps})
  labels (:func:`semiprivate.theory.bounds.bns15.bns15_tpal_threshold_lower_bound`, re-exported as
  :func:`tpal_threshold_lower_bound`); compare :class:`BinarySearchThresholdLearner`, which is
  not transcript private and uses O(log 1/alpha) labels.
- BNS15.Alg4 / Cl5.7: :class:`SubSampling` runs an (eps*, delta)-PSSL A on a uniformly random
  n-subset J of a t-point pool, asks the labels of the m smallest indices of J, and is an
  (eps, (7 + e^{eps*})/(3 + e^{2 eps*}) eps delta)-PAL for t = (n/eps)(3 + e^{2 eps*})
  (:func:`semiprivate.theory.bounds.privacy.active_subsampling_privacy`).  The proof's last step needs
  R = (q a + 1 - q)/(q/a + 1 - q) <= 3 with q = eps/(3 + a), a = e^{2 eps*}, i.e.
  eps <= 2(3 + a)/(a + 2 - 3/a) = 2a/(a - 1) (proofs_checks/bns15_cl5_7.py); the statement
  itself follows from group privacy (2 eps*: one swap changes two entries of A's input) and
  joint convexity.  :func:`subsampling_guarantee` returns ``valid=False`` outside the condition.
  SubSampling is a PAL, *not* a TPAL: its transcript K reveals the smallest indices of J only,
  which does not depend on the data, so its transcript is in fact data-independent too; the
  pair (output, transcript) is audited exactly in the tests.
- BNS15.Thm5.8: PAL with O(n/eps) unlabelled and m = O(VC/alpha log 1/(alpha beta)) labels,
  independent of eps (:func:`semiprivate.theory.bounds.bns15.bns15_thm5_8`).

Labels are in {0, 1}.  Learners return an :class:`ActiveResult` ``(hypothesis, transcript)``.

Examples
--------
>>> import numpy as np
>>> from semiprivate.theory.classes import Thresholds
>>> X = np.arange(0, 64, 2)
>>> y = (X < 21).astype(int)
>>> bs = BinarySearchThresholdLearner(Thresholds(6))
>>> res = bs.fit(X, LabelOracle(y, budget=10))
>>> res.hypothesis, len(res.transcript) <= 6
(22, True)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from semiprivate.theory.bounds._core import BoundOverflowError
from semiprivate.theory.bounds.bns15 import bns15_thm5_8, bns15_tpal_threshold_lower_bound
from semiprivate.theory.bounds.privacy import active_subsampling_privacy
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.learners._base import ALL_INPUTS, NOT_PRIVATE, require_all_inputs
from semiprivate.theory.privacy._release import Released, base_streams, child_streams
from semiprivate.validation import DELTA, EPSILON, POSITIVE_INT, RNG, Boolean, validate_params

__all__ = [
    "LabelOracle", "BudgetExceededError", "ActiveResult", "PrivacyClaim", "check_claim",
    "PSSLAsTPAL", "SubSampling", "SubsamplingGuarantee", "subsampling_guarantee",
    "BinarySearchThresholdLearner", "tpal_threshold_lower_bound", "pal_sample_sizes",
    "transcript_distribution",
]

tpal_threshold_lower_bound = bns15_tpal_threshold_lower_bound
pal_sample_sizes = bns15_thm5_8


class BudgetExceededError(ValueError):
    """Raised when a learner asks more labels than the oracle's ``budget``."""


def _check_labels(y: Any) -> np.ndarray:
    try:
        arr = np.asarray(y)
    except Exception as exc:  # pragma: no cover - numpy raises many types
        raise TypeError(f"y must be an array of 0/1 labels, got {type(y).__name__}") from exc
    if arr.ndim != 1 or arr.dtype.kind not in "biuf" or arr.size == 0:
        raise TypeError(f"y must be a non-empty 1-d array of 0/1 labels, got {arr.dtype} shape {arr.shape}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("y must contain only labels 0 and 1")
    return arr.astype(np.int64)


class LabelOracle:
    """Label oracle over a pool of ``t`` points (BNS15 Def 5.1 / Def 5.4).

    Implements: BNS15.Def5.1, BNS15.Def5.4 (transcript = ordered queried indices).

    ``query(i)`` returns ``y_i``.  Rules: ``i`` an int in ``[0, t)``; each index at most once
    (repeats raise ``ValueError``); at most ``budget`` queries (``BudgetExceededError``).  The
    labels are held in a closure: no attribute exposes an unqueried label.
    """

    __slots__ = ("_answer", "_size", "_budget", "_transcript")

    def __init__(self, y: Any, budget: Any = None) -> None:
        labels = _check_labels(y)
        size = int(labels.size)
        if budget is None:
            budget = size
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 0:
            raise ValueError(f"budget must be a non-negative int, got {budget!r}")
        self._size = size
        self._budget = int(budget)
        self._transcript: list[int] = []

        def answer(i: int) -> int:
            return int(labels[i])

        self._answer: Callable[[int], int] = answer

    @property
    def size(self) -> int:
        """Pool size t."""
        return self._size

    @property
    def budget(self) -> int:
        """Maximum number of queries m."""
        return self._budget

    @property
    def count(self) -> int:
        """Number of queries answered so far."""
        return len(self._transcript)

    @property
    def transcript(self) -> tuple[int, ...]:
        """Ordered queried indices (BNS15 Def 5.4)."""
        return tuple(self._transcript)

    def query(self, i: Any) -> int:
        """Label of pool index ``i`` (rules in the class docstring)."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"index i must be an int, got {type(i).__name__}")
        i = int(i)
        if not 0 <= i < self._size:
            raise ValueError(f"index i={i} out of range [0, {self._size})")
        if i in self._transcript:
            raise ValueError(f"index i={i} already queried (each index may be queried once)")
        if len(self._transcript) >= self._budget:
            raise BudgetExceededError(f"label budget={self._budget} exceeded (query of index {i})")
        self._transcript.append(i)
        return self._answer(i)

    def __getstate__(self) -> None:
        raise TypeError("LabelOracle cannot be pickled or copied (it would reveal unqueried labels)")

    def __repr__(self) -> str:
        return f"LabelOracle(size={self._size}, budget={self._budget}, count={self.count})"


class ActiveResult(NamedTuple):
    """Output of an active learner: the hypothesis and the transcript (ordered queried indices).

    ``transcript`` is ``None`` where the learner releases its output only (a PAL whose guarantee,
    BNS15 Def 5.3, covers the hypothesis and not the pair: :class:`SubSampling`); the oracle's own
    record (``LabelOracle.transcript``) stays with whoever holds the labels.
    """

    hypothesis: Any
    transcript: Any  # tuple[int, ...], or None where only the output is released (SubSampling)


@dataclass(frozen=True)
class PrivacyClaim:
    """A declared privacy property (BNS15 Def 5.3 PAL: output; Def 5.4 TPAL: (output, transcript)).

    Implements: BNS15.Def5.3, BNS15.Def5.4.
    """

    kind: str
    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        if self.kind not in ("PAL", "TPAL"):
            raise ValueError(f"kind must be 'PAL' or 'TPAL', got {self.kind!r}")
        if not (isinstance(self.epsilon, (int, float)) and self.epsilon >= 0 and not math.isnan(self.epsilon)):
            raise ValueError(f"epsilon must be >= 0, got {self.epsilon!r}")
        if not (isinstance(self.delta, (int, float)) and 0 <= self.delta < 1):
            raise ValueError(f"delta must be in [0, 1), got {self.delta!r}")

    def project(self, dist: dict[Any, float]) -> dict[Any, float]:
        """The law of what the claim is about: (h, transcript) for TPAL, h for PAL."""
        if self.kind == "TPAL":
            return dict(dist)
        out: dict[Any, float] = {}
        for (h, _tr), p in dist.items():
            out[h] = out.get(h, 0.0) + p
        return out


def _hockey_stick(p: dict[Any, float], q: dict[Any, float], epsilon: float) -> float:
    """max_F P(F) - e^eps Q(F) (the smallest delta for which the pair is (eps, delta)-close)."""
    e = math.exp(epsilon)
    return sum(max(0.0, pv - e * q.get(k, 0.0)) for k, pv in p.items())


def check_claim(claim: PrivacyClaim, dist_a: dict[Any, float], dist_b: dict[Any, float],
                *, tol: float = 1e-12) -> tuple[bool, float]:
    """Exact check of a claim on one neighbouring pair: (holds, largest hockey-stick divergence).

    ``dist_a``/``dist_b`` map (hypothesis, transcript) to probabilities (see
    :func:`transcript_distribution`).
    """
    if not isinstance(claim, PrivacyClaim):
        raise TypeError(f"claim must be a PrivacyClaim, got {type(claim).__name__}")
    pa, pb = claim.project(dist_a), claim.project(dist_b)
    d = max(_hockey_stick(pa, pb, claim.epsilon), _hockey_stick(pb, pa, claim.epsilon))
    return d <= claim.delta + tol, d


def _hkey(h: Any) -> Any:
    if isinstance(h, np.ndarray):
        return tuple(h.tolist())
    if isinstance(h, np.generic):
        return h.item()
    return h


def _base_distribution(learner: Any, X_lab: np.ndarray, y_lab: np.ndarray, X_unl: np.ndarray) -> list[tuple[Any, float]]:
    """Exact output law of a PSSL with ``output_distribution`` (ASSPP: (hyps, probs); KLNRS: probs)."""
    fn = getattr(learner, "output_distribution", None)
    if fn is None:
        raise TypeError(f"{type(learner).__name__} has no output_distribution; exact laws need one")
    try:
        res = fn(X_lab, y_lab, X_unl)
    except TypeError:
        res = fn(X_lab, y_lab)
    if isinstance(res, tuple):
        hyps, probs = res
    else:
        hyps = getattr(learner, "hypothesis_list", None)
        hyps, probs = (learner.hypotheses if hyps is None else hyps), res
    return [(_hkey(h), float(p)) for h, p in zip(hyps, np.asarray(probs, dtype=float)) if p > 0]


def _learner_privacy(learner: Any, n_labelled: int | None = None, n_unlabelled: int | None = None) -> tuple[float, float]:
    """The guarantee ``learner`` will report on inputs of the given sizes.

    A learner whose guarantee depends on its input sizes (LabelBoost: the iterations and the
    sub-sampling ratios are functions of them) states it with ``privacy_for(n_labelled,
    n_unlabelled)``; otherwise its ``privacy`` is used.
    """
    fn = getattr(learner, "privacy_for", None)
    priv = fn(n_labelled, n_unlabelled) if callable(fn) and n_labelled is not None else getattr(learner, "privacy", None)
    if priv is None:
        raise TypeError(f"learner {type(learner).__name__} must state its privacy (a 'privacy' (eps, delta))")
    eps, delta = float(priv[0]), float(priv[1])
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"learner privacy epsilon must be finite and > 0, got {eps!r}")
    if not 0 <= delta < 1:
        raise ValueError(f"learner privacy delta must be in [0, 1), got {delta!r}")
    return eps, delta


def _check_learner(learner: Any) -> None:
    if not (callable(getattr(learner, "fit", None)) and callable(getattr(learner, "predict", None))):
        raise TypeError(f"learner must have fit and predict, got {type(learner).__name__}")


def _check_pool(X: Any, name: str = "X_pool") -> np.ndarray:
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be an array of points, got {type(X).__name__}")
    arr = np.asarray(X)
    if arr.ndim == 0 or arr.shape[0] == 0 or arr.dtype.kind not in "biufO":
        raise TypeError(f"{name} must be a non-empty array of points, got dtype {arr.dtype} shape {arr.shape}")
    return arr


def _check_oracle(oracle: Any, size: int) -> None:
    if not isinstance(oracle, LabelOracle):
        raise TypeError(f"oracle must be a LabelOracle, got {type(oracle).__name__}")
    if oracle.size != size:
        raise ValueError(f"oracle size={oracle.size} differs from the pool size {size}")


class PSSLAsTPAL(Released):
    """A PSSL run as a TPAL (BNS15 Thm 5.5): the labelled indices are fixed to 0..m-1, asked in order.

    Implements: BNS15.Thm5.5.  If A is an (alpha, beta, eps, delta, n, m)-PSSL that uses the
    first m entries as its labelled sample, the active learner that asks the labels of 0..m-1
    (in that order) and runs A is an (alpha, beta, eps, delta, n, m)-TPAL: its transcript is a
    constant, so (output, transcript) has the law of the output.

    Parameters
    ----------
    learner : object with fit(X, y, X_public) / predict and ``privacy`` (eps, delta)
    m : int
        Number of labels (the PSSL's labelled sample size).

    Attributes (after fit)
    ----------------------
    privacy_ : (eps, delta) of the learner as it ran (its ``privacy_``), claim_ : PrivacyClaim('TPAL', ...).

    The TPAL guarantee is over one entry (x_i, y_i) of the pool, labelled or not, so the base
    learner must be private in every input it reads (privacy model ``"all inputs"``); a
    ``"labelled"`` base (ASSPP, the HPSY disjunction learner, the halfspace learners: private in
    the labelled sample for a fixed public sample) is refused with a ValueError.
    """

    privacy_model_ = ALL_INPUTS
    _releases = frozenset({"hypothesis_", "privacy_", "claim_"})

    @validate_params(m=POSITIVE_INT)
    def __init__(self, learner: Any, m: int) -> None:
        _check_learner(learner)
        require_all_inputs(learner, "PSSLAsTPAL (BNS15 Thm 5.5)",
                           "the pool entries m.. are its public sample, and a TPAL must be private in them too")
        self.learner = learner
        self.m = m

    @property
    def claim(self) -> PrivacyClaim:
        eps, delta = _learner_privacy(self.learner)
        return PrivacyClaim("TPAL", eps, delta)

    def fit(self, X_pool: Any, oracle: LabelOracle) -> ActiveResult:
        # the learner is checked again at every fit: set_params or an attribute may have replaced it since __init__
        _check_learner(self.learner)
        require_all_inputs(self.learner, "PSSLAsTPAL (BNS15 Thm 5.5)",
                           "the pool entries m.. are its public sample, and a TPAL must be private in them too")
        X = _check_pool(X_pool)
        _check_oracle(oracle, X.shape[0])
        if self.m > X.shape[0]:
            raise ValueError(f"m={self.m} exceeds the pool size n={X.shape[0]}")
        y = np.array([oracle.query(i) for i in range(self.m)], dtype=np.int64)
        self.learner.fit(X[: self.m], y, X[self.m:])  # the learner draws from its own fresh child stream
        self.hypothesis_ = self.learner.hypothesis_
        ran = getattr(self.learner, "privacy_", None)
        if ran is None:
            raise TypeError(f"learner {type(self.learner).__name__} reported no privacy_ after fit")
        eps, delta = ran
        self.privacy_ = (float(eps), float(delta))
        self.claim_ = PrivacyClaim("TPAL", *self.privacy_)
        return ActiveResult(self.hypothesis_, oracle.transcript)

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.learner.predict(X))

    def exact_distribution(self, X_pool: Any, y_pool: Any) -> dict[Any, float]:
        """Exact law of (hypothesis, transcript) (for transcript-DP checks)."""
        X, y = _check_pool(X_pool), _check_labels(y_pool)
        tr = tuple(range(self.m))
        return {(h, tr): p for h, p in _base_distribution(self.learner, X[: self.m], y[: self.m], X[self.m:])}

    def __repr__(self) -> str:
        return f"PSSLAsTPAL(learner={self.learner!r}, m={self.m})"


class SubsamplingGuarantee(NamedTuple):
    """BNS15 Cl 5.7 for given parameters: (epsilon, delta'), t, the proof's ratio R and its condition."""

    epsilon: float
    delta: float
    t: int
    R: float
    valid: bool


@validate_params(n=POSITIVE_INT, epsilon_star=EPSILON, delta=DELTA, epsilon=EPSILON, strict=Boolean())
def subsampling_guarantee(n: int, epsilon_star: float, delta: float, epsilon: float, *,
                          strict: bool = False) -> SubsamplingGuarantee:
    r"""BNS15 Cl 5.7 for the parameters used, with the proof condition exposed.

    Implements: BNS15.Cl5.7.  t = ceil((n/eps)(3 + e^{2 eps*})), delta' = (7 + e^{eps*})/(3 + e^{2 eps*}) eps delta
    (from :func:`semiprivate.theory.bounds.privacy.active_subsampling_privacy`).  ``valid`` is the condition
    of the proof's last step: R = (q a + 1 - q)/(q/a + 1 - q) <= 3, q = eps/(3 + a),
    a = e^{2 eps*}, i.e. eps <= 2a/(a - 1); also q <= 1 (t >= n).  ``strict=True`` raises
    ``ValueError`` outside it.

    >>> g = subsampling_guarantee(10, 0.5, 0.0, 1.0)
    >>> g.t, g.valid
    (58, True)
    >>> subsampling_guarantee(10, 2.0, 0.0, 3.0).valid
    False
    """
    a = math.exp(2 * epsilon_star)
    q = epsilon / (3 + a)
    valid = q <= 1
    R = (q * a + 1 - q) / (q / a + 1 - q) if q < 1 else a * a
    valid = valid and R <= 3 * (1 + 1e-12)
    if strict and not valid:
        raise ValueError(f"epsilon={epsilon} outside BNS15 Cl 5.7's proof condition eps <= 2a/(a-1) = "
                         f"{2 * a / (a - 1) if a > 1 else math.inf:.6g} (a = e^(2 epsilon_star), epsilon_star={epsilon_star})")
    if valid:
        try:
            sub = active_subsampling_privacy(n, epsilon_star, delta, epsilon)
        except BoundOverflowError:
            raise ValueError(f"epsilon={float(epsilon)!r} is too small for BNS15 Cl 5.7: the pool size t = n (3 + "
                             "e^(2 epsilon_star)) / epsilon passes the float range (about 1.8e308)") from None
        return SubsamplingGuarantee(float(sub.epsilon), float(sub.delta), int(sub.t), float(R), True)
    # outside the proof (t < n or R > 3): the claim's formulas, flagged invalid
    delta_f = (7 + math.exp(epsilon_star)) / (3 + a) * epsilon * delta
    return SubsamplingGuarantee(float(epsilon), float(delta_f), max(math.ceil(n / epsilon * (3 + a)), n), float(R), False)


class SubSampling(Released):
    """BNS15 Algorithm 4: SubSampling around any PSSL (a PAL, Cl 5.7).

    Implements: BNS15.Alg4, BNS15.Cl5.7, BNS15.Thm5.8.

    1. Pick J, a uniformly random n-subset of {0..t-1}; K = the m smallest indices of J.
    2. Ask the labels of K (increasing order).
    3. Run A on D_J: labelled (x_i, y_i), i in K; unlabelled x_i, i in J \\ K.

    Parameters
    ----------
    learner : PSSL with fit(X, y, X_public), predict, ``privacy`` = (eps*, delta)
    n, m : int
        A's database size and number of labels (m <= n).
    epsilon : float
        Target epsilon; Cl 5.7 needs a pool of t >= (n/eps)(3 + e^{2 eps*}) points.
    t : int or None
        Pool size to require (default: Cl 5.7's t).  ``t < n`` is an error; a t below Cl 5.7's
        value makes ``valid=False``.
    strict : bool
        Raise in ``guarantee()`` outside the proof condition (default False: ``valid`` says so).
        ``fit`` always refuses a configuration whose guarantee does not hold.
    rng : seed or Generator

    Attributes (after fit)
    ----------------------
    guarantee_ : SubsamplingGuarantee, privacy_ : (eps, delta'), claim_ : PrivacyClaim('PAL', ...).

    The subsets J, K are not kept, and ``fit`` returns the hypothesis with ``transcript=None``:
    Cl 5.7's amplification needs J to stay secret, and a PAL's guarantee (Def 5.3) is over the
    output only.  The pair (output, transcript) is not covered: K names the pool entries A read, so
    with eps* > eps the pair is not (eps, delta')-DP (an exact check on 12-point pools finds delta
    about 2.6e-3 at (1, 0) for eps* = 0.5).  The oracle's own record (``LabelOracle.transcript``) is
    seen by whoever answers the queries, as in Def 5.1.
    The base learner must be private in every input it reads (privacy model ``"all inputs"``):
    a swap in the pool can change an unlabelled entry of A's input.  Its guarantee eps* is the
    one it states for inputs of m labelled and n - m unlabelled points (``privacy_for`` where
    the learner has it, e.g. LabelBoost, else ``privacy``), so the pool is sized from the
    guarantee A will report (BNS15 Thm 5.8).
    """

    privacy_model_ = ALL_INPUTS
    _releases = frozenset({"hypothesis_", "privacy_", "claim_"})
    _public = frozenset({"guarantee_"})

    def __init__(self, learner: Any, n: int, m: int, epsilon: float, *, t: int | None = None,
                 strict: bool = False, rng: Any = None) -> None:
        _check_learner(learner)
        require_all_inputs(learner, "SubSampling (BNS15 Alg 4, Cl 5.7)",
                           "a swap in the pool changes one entry of its input, possibly an unlabelled one")
        validate = validate_params(n=POSITIVE_INT, m=POSITIVE_INT, epsilon=EPSILON, strict=Boolean(), rng=RNG)
        validate(lambda n, m, epsilon, strict, rng: None)(n=n, m=m, epsilon=epsilon, strict=strict, rng=rng)
        if t is not None:
            validate_params(t=POSITIVE_INT)(lambda t: None)(t=t)
        if m > n:
            raise ValueError(f"m={m} must be <= n={n} (labels are asked inside the n-subset)")
        if t is not None and t < n:
            raise ValueError(f"t={t} must be >= n={n}")
        self.learner = learner
        self.n = n
        self.m = m
        self.epsilon = epsilon
        self.t = t
        self.strict = strict
        self.rng = rng

    def guarantee(self) -> SubsamplingGuarantee:
        """Cl 5.7 for the current parameters and the learner's stated privacy."""
        eps_star, delta = _learner_privacy(self.learner, int(self.m), int(self.n) - int(self.m))
        g = subsampling_guarantee(self.n, eps_star, delta, float(self.epsilon), strict=self.strict)
        t = g.t if self.t is None else int(self.t)
        valid = g.valid and t >= g.t
        if self.strict and not valid:
            raise ValueError(f"t={t} below Cl 5.7's t={g.t}")
        return g._replace(t=t, valid=valid)

    @property
    def claim(self) -> PrivacyClaim:
        g = self.guarantee()
        return PrivacyClaim("PAL", g.epsilon, g.delta)

    def _choose_K(self, X: np.ndarray, J: np.ndarray) -> np.ndarray:
        """K = the m smallest indices of J (Alg 4 step 1): a function of J only, never of the data."""
        return np.sort(J)[: self.m]

    def fit(self, X_pool: Any, oracle: LabelOracle) -> ActiveResult:
        # the learner is checked again at every fit: set_params or an attribute may have replaced it since __init__
        _check_learner(self.learner)
        require_all_inputs(self.learner, "SubSampling (BNS15 Alg 4, Cl 5.7)",
                           "a swap in the pool changes one entry of its input, possibly an unlabelled one")
        X = _check_pool(X_pool)
        _check_oracle(oracle, X.shape[0])
        g = self.guarantee()
        if not g.valid:
            raise ValueError(f"SubSampling's guarantee does not hold for these parameters (BNS15 Cl 5.7 needs "
                             f"epsilon <= 2a/(a-1), a = e^(2 epsilon_star), and t >= the claim's t = {g.t}): "
                             "lower epsilon, enlarge t, or use a base learner with a "
                             "smaller epsilon_star")
        if X.shape[0] < g.t:
            raise ValueError(f"X_pool has {X.shape[0]} points; SubSampling needs t={g.t} (BNS15 Cl 5.7)")
        stated = _learner_privacy(self.learner, int(self.m), int(self.n) - int(self.m))
        rng, base_stream = child_streams(self.rng, 2)  # J's coins; the base learner's own stream
        t = X.shape[0]
        J = np.sort(rng.choice(t, size=self.n, replace=False))
        K = self._choose_K(X, J)
        y = np.array([oracle.query(int(i)) for i in K], dtype=np.int64)
        U = np.setdiff1d(J, K)
        with base_streams(self.learner, base_stream):
            self.learner.fit(X[K], y, X[U])
        ran = getattr(self.learner, "privacy_", None)
        if ran is None or float(ran[0]) > stated[0] * (1 + 1e-12) or float(ran[1]) > stated[1] * (1 + 1e-12):
            raise ValueError(f"learner {type(self.learner).__name__} reported privacy_={ran} after fit, weaker than "
                             "the guarantee SubSampling was sized from")
        self.hypothesis_ = self.learner.hypothesis_
        self.guarantee_ = g._replace(t=t)
        self.privacy_ = (g.epsilon, g.delta)
        self.claim_ = PrivacyClaim("PAL", g.epsilon, g.delta)
        # the hypothesis only: Cl 5.7 covers A's output (a PAL, Def 5.3); K, hence the transcript, tells which
        # pool entries reached A, and (output, transcript) is not (eps, delta')-DP once eps* > eps
        return ActiveResult(self.hypothesis_, None)

    def predict(self, X: Any) -> np.ndarray:
        return np.asarray(self.learner.predict(X))

    def exact_distribution(self, X_pool: Any, y_pool: Any) -> dict[Any, float]:
        """Exact law of (hypothesis, transcript) by enumerating every n-subset J of the pool."""
        X, y = _check_pool(X_pool), _check_labels(y_pool)
        t = X.shape[0]
        subsets = list(itertools.combinations(range(t), self.n))
        w = 1.0 / len(subsets)
        out: dict[Any, float] = {}
        for J in subsets:
            Ja = np.array(J)
            K = self._choose_K(X, Ja)
            U = np.setdiff1d(Ja, K)
            tr = tuple(int(i) for i in K)
            for h, p in _base_distribution(self.learner, X[K], y[K], X[U]):
                out[(h, tr)] = out.get((h, tr), 0.0) + w * p
        return out

    def __repr__(self) -> str:
        return f"SubSampling(learner={self.learner!r}, n={self.n}, m={self.m}, epsilon={self.epsilon}, t={self.t})"


def transcript_distribution(learner: Any, X_pool: Any, y_pool: Any) -> dict[Any, float]:
    """Exact law of (hypothesis, transcript) of an active learner with ``exact_distribution``."""
    fn = getattr(learner, "exact_distribution", None)
    if fn is None:
        raise TypeError(f"learner {type(learner).__name__} has no exact_distribution")
    return dict(fn(X_pool, y_pool))


class BinarySearchThresholdLearner(Released):
    """Classic non-private active learner for THRESH_d (c_t(x) = 1 iff x < t): binary search.

    Implements: BNS15.Def5.1 (an active learner; neither PAL nor TPAL).  Sorts the pool, then
    binary-searches the first point labelled 0: ceil(log2(t + 1)) labels, i.e. O(log 1/alpha)
    for a pool of size O(1/alpha log 1/beta).  Returns the smallest pool value labelled 0
    (or 2^d if none), consistent with the pool.  Its transcript depends on the x values and
    the labels: it is not transcript private (no finite epsilon).  Privacy model ``"not private"``.
    """

    claim = None
    privacy_model_ = NOT_PRIVATE
    _releases = frozenset({"hypothesis_"})

    def __init__(self, concept_class: ConceptClass) -> None:
        if not isinstance(concept_class, ConceptClass) or not hasattr(concept_class, "d"):
            raise TypeError(f"concept_class must be Thresholds(d), got {type(concept_class).__name__}")
        self.concept_class = concept_class

    def fit(self, X_pool: Any, oracle: LabelOracle) -> ActiveResult:
        X = _check_pool(X_pool)
        _check_oracle(oracle, X.shape[0])
        order = np.argsort(X, kind="stable")
        lo, hi = 0, len(order)  # invariant: sorted positions < lo are 1, >= hi are 0
        while lo < hi:
            mid = (lo + hi) // 2
            if oracle.query(int(order[mid])) == 1:
                lo = mid + 1
            else:
                hi = mid
        d = int(self.concept_class.d)  # type: ignore[attr-defined]
        self.hypothesis_ = int(X[order[lo]]) if lo < len(order) else 2 ** d
        return ActiveResult(self.hypothesis_, oracle.transcript)

    def exact_distribution(self, X_pool: Any, y_pool: Any) -> dict[Any, float]:
        """The (deterministic) law of (hypothesis, transcript)."""
        res = self.fit(X_pool, LabelOracle(y_pool))
        return {(res.hypothesis, res.transcript): 1.0}

    def predict(self, X: Any) -> np.ndarray:
        return self.concept_class.evaluate(self.hypothesis_, X).astype(np.int64)

    def __repr__(self) -> str:
        return f"BinarySearchThresholdLearner({self.concept_class!r})"

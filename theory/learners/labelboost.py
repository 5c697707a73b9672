"""LabelBoost of BNS15 (Algorithm 3) around Algorithm 2 (LabelBoostProcedure), with the privacy of what ran.

Implements: BNS15.Lem4.1, BNS15.Alg3 (LabelBoost),
BNS15.Cl4.3, BNS15.Cl4.5, BNS15.Lem4.6, BNS15.Lem4.12, BNS15.Thm4.13, BNS15.Thm4.14,
BNS15.Thm4.16, BNS15.Cor4.17, BNS15.Rem4.10.

* :func:`label_boost_procedure` (Algorithm 2, re-exported from
  :mod:`semiprivate.theory.learners.labelboost_procedure`) relabels S∘T by a hypothesis the
  exponential mechanism (epsilon = 1) picks; Algorithm 3 runs it once per iteration.
* :class:`LabelBoost` is Algorithm 3.  ``mode="faithful"``: the paper's constants (|D| >= 90000 n,
  loop while |S| < 300 n, alpha_i = alpha/(10 2^i), beta_i = beta/(4 2^i),
  v = min{30000 n, beta_i VC exp(alpha_i |S|/(200 VC)) - |S|}, keep 1/100 of T and of S,
  keep 1/300 at the end, |S| i.i.d. draws, run A).  ``mode="scaled"`` (default): the same algorithm
  with every constant a parameter, by default :data:`SMALL_SIZE_CONSTANTS` (Claim 4.2's step-2b
  limit, no deletion), which run on hundreds to thousands of points with the plain-chain guarantee.
  ``epsilon`` (Thm 4.14) wraps the run in a uniform sub-sample of the whole input (Claim 4.3).
* ``privacy_`` is computed in :func:`labelboost_run_privacy` from the transformers of
  :mod:`semiprivate.theory.bounds.privacy` (Cl 4.5, Cl 4.3, Lem 4.1) for the ratios and the number of
  iterations that actually ran, at the ratios that actually ran.  Policy (the one of Lem 4.6's proof): a sub-sampling step
  that keeps 1/r of its input is credited with Claim 4.3 at target epsilon 1 when
  r >= 3 + e^{eps*}; otherwise Claim 4.3 does not apply and the step is credited with the
  (eps*, delta) of its input only (sub-sampling never hurts).  With the faithful constants this
  reproduces Lem 4.6's (1, 41 delta) (indeed (1, delta_N) with delta_N <= 41 delta).

Rounding: "delete 99/100 of T" keeps ceil(|T|/100) entries (as
:func:`semiprivate.theory.bounds.bns15.bns15_labelboost_schedule`); v is floored.  The paper writes
"Delete (permanently) 99/100 |T| random entries from T, and 99/100 |S| random entries from S"
and applies Claim 4.3, whose database has exactly t = (n/eps)(3 + e^{eps*}) entries of which n
are kept; with rounding the kept fraction ceil(|S|/r)/|S| can exceed 1/r by far for a small
|S| (5 entries at r = 100 keep 1: ratio 5).  ``privacy_`` is therefore computed from the ratios
as run (|S|/kept, per step; ``schedule_[i]["ratio"]``, ``final_ratio_``): the paper's (1, 41 delta)
is reported only when every step's kept fraction meets Claim 4.3.  Labels are {0, 1}.

Examples
--------
>>> from semiprivate.theory.classes import Thresholds
>>> C = Thresholds(4)
>>> r = label_boost_procedure(C, [1, 9], [1, 0], [3, 12], rng=0)
>>> r.labels.shape
(4,)
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from semiprivate.theory.bounds.privacy import (
    iid_resampling_privacy,
    label_boost_procedure_privacy,
    subsampling_privacy,
)
from semiprivate.theory.classes.base import ConceptClass
from semiprivate.theory.learners._base import (
    ALL_INPUTS,
    CHECKS_ON_FEATURE_MATRICES,
    CONCEPT_CLASS_REASON,
    LABELLED,
    NOT_PRIVATE,
    LearnerBase,
    _Params,
    check_fit_inputs,
    declared_failures,
    require_fitted,
    seed_of,
)
from semiprivate.theory.learners.labelboost_procedure import label_boost_procedure, label_boost_procedure_distribution
from semiprivate.theory.privacy._release import Released, base_streams, child_streams
from semiprivate.validation import (
    EPSILON,
    PROBABILITY,
    RNG,
    Boolean,
    Integer,
    Optional,
    Options,
    Real,
    validate_params,
)

__all__ = [
    "label_boost_procedure",
    "label_boost_procedure_distribution",
    "labelboost_run_privacy",
    "LabelBoost",
    "FAITHFUL_CONSTANTS",
    "SMALL_SIZE_CONSTANTS",
]

#: The constants of BNS15 Algorithm 3 (faithful mode).
FAITHFUL_CONSTANTS: dict[str, float] = {
    "unlabelled_factor": 90000,   # |D| = 90000 n (Claim 4.8)
    "target_factor": 300,         # while |S| < 300 n
    "cap_factor": 30000,          # v <= 30000 n
    "exponent_constant": 200,     # exp(alpha_i |S| / (200 VC))
    "alpha_factor": 10,           # alpha_i = alpha / (10 2^i)
    "beta_factor": 4,             # beta_i = beta / (4 2^i)
    "iteration_ratio": 100,       # delete 99/100 of T and of S
    "final_ratio": 300,           # delete 299/300 of S
}

#: The default constants of ``mode="scaled"``: Algorithm 3 at small sizes (hundreds to thousands of points).
#: Step 2b's v is Claim 4.2's own size limit, |T| <= (beta'/e) VC exp(alpha'|S|/(2 VC)) - |S|, at
#: alpha' = alpha/2^i and beta' = beta/2^i (so the failure probabilities sum to <= beta); the loop
#: stops once |S| >= n, each iteration draws at most n public points, and nothing is deleted
#: (ratios 1): at these sizes Claim 4.3 cannot amplify (it needs step 2c to keep <= 1/(3 + e^4)
#: and step 3 <= 1/247 of S), so deleting would cost accuracy and buy no privacy.  The guarantee
#: is then the plain chain Cl 4.5 -> Lem 4.1 per iteration: (ln 244 + 3 N, (4e)^N 2467 delta)
#: after N iterations, for an (epsilon <= 1, delta) base; :meth:`LabelBoost.privacy_for` gives
#: it for given sizes before any data is read.
SMALL_SIZE_CONSTANTS: dict[str, float] = {
    "unlabelled_factor": 1,        # |D| >= n
    "target_factor": 1,            # while |S| < n
    "cap_factor": 1,               # v <= n
    "exponent_constant": 2,        # exp(alpha_i |S| / (2 VC))   (Claim 4.2)
    "alpha_factor": 1,             # alpha_i = alpha / 2^i
    "beta_factor": math.e,         # beta_i = beta / (e 2^i)     (Claim 4.2's beta / e)
    "iteration_ratio": 1,          # step 2c keeps all of S and T
    "final_ratio": 1,              # step 3 keeps all of S
}

# ---------------------------------------------------------------------------------------------
# Privacy accounting of a run
# ---------------------------------------------------------------------------------------------


class PrivacyStep(NamedTuple):
    """One transformer applied in the privacy accounting of a LabelBoost run."""

    name: str        # "BNS15.Cl4.5", "BNS15.Cl4.3", "BNS15.Lem4.1", "none"
    epsilon: float
    delta: float
    note: str


def _subsample_step(eps: float, delta: float, ratio: float, n: int, what: str) -> PrivacyStep:
    """Credit a step that keeps a 1/ratio fraction: Claim 4.3 at target 1 if it applies."""
    if ratio >= 3.0 + math.exp(min(eps, 700.0)):
        r = subsampling_privacy(max(int(n), 1), eps, delta, 1.0)
        return PrivacyStep("BNS15.Cl4.3", r.epsilon, r.delta,
                           f"{what}: keep 1/{ratio:g} >= 1/(3+e^{eps:.4g}) -> target epsilon 1")
    return PrivacyStep("none", eps, delta,
                       f"{what}: keep 1/{ratio:g} < 1/(3+e^{eps:.4g}): Claim 4.3 does not apply, no amplification")


@validate_params(base_epsilon=EPSILON, base_delta=Real(0.0, 1.0, closed="left"), iterations=Integer(0),
                 final_ratio=Real(1.0, math.inf), iteration_ratio=Real(1.0, math.inf),
                 target_epsilon=Optional(Real(0.0, 1.0, closed="right")), target_ratio=Optional(Real(1.0, math.inf)),
                 n=Integer(1))
def labelboost_run_privacy(base_epsilon: float, base_delta: float, iterations: int, *, final_ratio: float = 300,
                           iteration_ratio: float = 100, target_epsilon: float | None = None,
                           target_ratio: float | None = None, n: int = 1,
                           iteration_ratios: Any = None) -> list[PrivacyStep]:
    r"""The privacy of a LabelBoost run, built from BNS15's transformers (last step = the guarantee).

    Implements: BNS15.Lem4.6 (its induction, for the ratios and iterations that ran),
    BNS15.Cl4.5, BNS15.Cl4.3, BNS15.Lem4.1, BNS15.Thm4.14 (final sub-sampling).

    The guarantee is over one entry of S or of D.  An entry of D first enters S at some
    iteration i (step 2b) and is protected only by the stages from there on, not by the
    sub-sampling of earlier iterations; so the run's guarantee is the worst over the stages at
    which entries enter (a last ``BNS15.Lem4.6`` step when ``iterations`` >= 1), not the
    outermost stage alone.

    L_0 = keep 1/``final_ratio`` of S, then |S| i.i.d. draws, then A: Cl 4.5 turns A's
    (eps <= 1, delta) into (ln 244, 2467 delta); Cl 4.3 then gives (1, 4/(3+244) 2467 delta)
    when final_ratio >= 247.  L_t = keep 1/``iteration_ratio`` then LabelBoostProcedure then
    L_{t-1}: Lem 4.1 gives (eps+3, 4 e delta), Cl 4.3 gives (1, 4/(3+e^4) 4 e delta) when
    iteration_ratio >= 3 + e^4.  A step where Claim 4.3 does not apply keeps its input's
    guarantee.  With ``target_epsilon`` (Thm 4.14), a last Cl 4.3 step at that epsilon, on a
    uniform sub-sample keeping 1/``target_ratio`` of the input (needs target_ratio >=
    (3 + e^{eps_L})/target_epsilon, else no amplification is credited).

    The ratios are those of the run: ``final_ratio`` = |S| / (entries kept) of step 3, and
    ``iteration_ratios[i - 1]`` the ratio of step 2c of iteration i (default: ``iteration_ratio``
    for every iteration).  Claim 4.3 is stated for t = (n/eps)(3 + e^{eps*}) entries of
    which n are kept, i.e. the kept fraction itself must be <= eps/(3 + e^{eps*}); "delete
    99/100" with the kept count rounded up keeps ceil(|S|/100) entries, a larger fraction
    than 1/100 when |S| is not a multiple of 100 (|S| = 101 keeps 2: ratio 50.5 < 3 + e^4),
    so :class:`LabelBoost` passes the ratios it actually ran, not the nominal constants.
    Step 2c keeps a uniform part of S and, independently, of T; an entry of S∘T is kept with
    probability 1/ratio_S or 1/ratio_T, so the step's ratio is min(ratio_S, ratio_T).

    Raises
    ------
    ValueError
        If ``base_epsilon > 1`` (Claim 4.5, the i.i.d. resampling step, needs epsilon <= 1).

    Examples
    --------
    >>> s = labelboost_run_privacy(1.0, 1e-6, 2)
    >>> s[-1].epsilon, round(s[-1].delta / 1e-6, 4)
    (1.0, 30.1674)
    """
    if iteration_ratios is None:
        ratios = [float(iteration_ratio)] * iterations
    else:
        if isinstance(iteration_ratios, (str, bytes)):
            raise TypeError(f"iteration_ratios must be a sequence of numbers, got the string {iteration_ratios!r}")
        try:
            ratios = [float(r) for r in iteration_ratios]
        except (TypeError, ValueError):
            raise TypeError(f"iteration_ratios must be a sequence of numbers, got {iteration_ratios!r}") from None
        if len(ratios) != iterations or not all(r >= 1 and math.isfinite(r) for r in ratios):
            raise ValueError(f"iteration_ratios must hold {iterations} finite ratios >= 1 (one per iteration), "
                             f"got {iteration_ratios!r}")
    if base_epsilon > 1:
        raise ValueError(f"base_epsilon must be <= 1 for BNS15 Claim 4.5 (i.i.d. resampling), got {base_epsilon}; "
                         "use a base learner run at epsilon <= 1")
    steps: list[PrivacyStep] = []
    g = iid_resampling_privacy(base_epsilon, base_delta)
    steps.append(PrivacyStep("BNS15.Cl4.5", g.epsilon, g.delta, "|S| i.i.d. draws from S, then A"))
    steps.append(_subsample_step(g.epsilon, g.delta, final_ratio, n, f"step 3 (keep 1/{final_ratio:g} of S)"))
    for t in range(1, iterations + 1):
        e, d = steps[-1].epsilon, steps[-1].delta
        lp = label_boost_procedure_privacy(e, d)
        steps.append(PrivacyStep("BNS15.Lem4.1", lp.epsilon, lp.delta, f"iteration {iterations - t + 1}: "
                                 "LabelBoostProcedure (exp. mechanism, epsilon 1)"))
        r_it = ratios[iterations - t]
        steps.append(_subsample_step(lp.epsilon, lp.delta, r_it, n,
                                     f"iteration {iterations - t + 1}: keep 1/{r_it:g} of S and of T"))
    if iterations:
        # Lem 4.6's induction per entry: an entry of D that enters S at iteration i is protected by
        # the stage that starts there (its sub-sampling step), an entry of S by the outermost one;
        # the run is private in every entry only at the worst stage.
        stages = [st for st in steps[3::2]]
        worst = PrivacyStep("BNS15.Lem4.6", max(st.epsilon for st in stages), max(st.delta for st in stages),
                            "entries entering S at each iteration: the worst stage")
        steps.append(worst)
    if target_epsilon is not None:
        e, d = steps[-1].epsilon, steps[-1].delta
        ratio = float(target_ratio) if target_ratio is not None else (3.0 + math.exp(e)) / target_epsilon
        if target_epsilon < e and ratio * target_epsilon >= 3.0 + math.exp(e):
            r = subsampling_privacy(max(int(n), 1), e, d, float(target_epsilon))
            steps.append(PrivacyStep("BNS15.Cl4.3", r.epsilon, r.delta,
                                     f"Thm 4.14: uniform sub-sample keeping 1/{ratio:g} of the input"))
        else:
            steps.append(PrivacyStep("none", e, d, f"Thm 4.14: keep 1/{ratio:g}: Claim 4.3 not applicable"))
    return steps


# ---------------------------------------------------------------------------------------------
# LabelBoost
# ---------------------------------------------------------------------------------------------


@dataclass
class _Iteration:
    i: int
    alpha_i: float
    beta_i: float
    s_before: int
    v: int
    s_kept: int
    t_kept: int
    s_after: int
    ratio: float = field(default=1.0)   # min(|S|/kept S, |T|/kept T): the ratio step 2c runs at
    pos: int = field(default=0)         # first entry of D this iteration draws (step 2b)


def _smallest_growing(size: int, a: float, b: float) -> int:
    """The smallest s > ``size`` with floor(a e^{b s}) - s >= 1 (step 2b's v > 0), given that ``size`` has v <= 0.

    s -> a e^{b s} - s is convex, <= 0 at ``size`` and tends to infinity: one crossing above ``size``.
    """
    def grows(s: int) -> bool:
        return math.log(a) + b * s > math.log(s + 1)

    lo, hi = size, max(2 * size, size + 1)
    while not grows(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if grows(mid) else (mid, hi)
    return hi


def _keep(g: np.random.Generator, size: int, kept: int) -> np.ndarray:
    """Indices of ``kept`` entries kept (in order) after deleting the rest at random."""
    k = min(size, kept)
    return np.sort(g.choice(size, size=k, replace=False)) if k < size else np.arange(size)


class LabelBoost(Released, _Params, LearnerBase):
    r"""BNS15 Algorithm 3 (LabelBoost) around a private base learner A.

    Implements: BNS15.Alg3, BNS15.Lem4.6, BNS15.Lem4.12, BNS15.Thm4.13, BNS15.Thm4.14,
    BNS15.Thm4.16, BNS15.Cor4.17, BNS15.Rem4.10.

    Lem 4.12: on an (alpha, beta, n, n)-SSL with |D| >= 90000 n and
    |S| >= (96000/alpha) VC log(2240/(alpha beta)) the result is an (11 alpha, 2 beta)-SSL.
    Thm 4.13/Lem 4.6: for an (epsilon = 1, delta) base learner it is (1, 41 delta)-DP.
    Thm 4.14: sub-sampling (Claim 4.3) to any epsilon <= 1.  Thm 4.16 (agnostic): the same
    algorithm with the labels of S not necessarily from C (``concept_class`` = F); the
    exponential mechanism of Alg 2 then picks h in Pi_F(P) with small empirical error.
    Cor 4.17: with ``concept_class=Rectangles(d, l)`` (structured dichotomies) and VC = 2 l.

    Parameters
    ----------
    base_learner : estimator
        A private learner with ``fit(X, y)`` / ``predict``, run on the last |S| i.i.d. draws.
    n : int
        Sample complexity of the base learner (its (labelled and unlabelled) sample size).
    alpha, beta : float
        Accuracy and confidence parameters (alpha_i = alpha/(alpha_factor 2^i), ...).
    mode : {"faithful", "scaled"}
        ``faithful`` uses :data:`FAITHFUL_CONSTANTS` and ignores the constant parameters below
        (it needs |D| >= 90000 n); ``scaled`` (default) uses them.
    concept_class : ConceptClass
        C (required).  Its VC dimension is used in step 2b; the hypotheses of Algorithm 2 are
        one per dichotomy of Pi_C(P).  (Thm 4.16: the class F the hypotheses come from.)
    base_privacy : (epsilon, delta), optional
        The base learner's guarantee (default: ``base_learner.privacy``).
    vc : int, optional
        VC(C) as you state it; must equal ``concept_class.vc_dimension`` (checked).
    epsilon : float, optional
        Thm 4.14: run on a uniform sub-sample of the input keeping 1/``(3+e^{eps_L})/epsilon``
        of the points (eps_L the guarantee of the run).  None: no outer sub-sampling.
    unlabelled_factor, target_factor, cap_factor, exponent_constant, alpha_factor,
    beta_factor, iteration_ratio, final_ratio : float
        The constants of Algorithm 3 (scaled mode): |D| >= unlabelled_factor n; loop while
        |S| < target_factor n; v = min{cap_factor n, beta_i VC exp(alpha_i |S|/(exponent_constant
        VC)) - |S|} with alpha_i = alpha/(alpha_factor 2^i), beta_i = beta/(beta_factor 2^i);
        step 2c keeps 1/iteration_ratio of S and of T, step 3 keeps 1/final_ratio of S.
        Defaults: :data:`SMALL_SIZE_CONSTANTS` (Claim 4.2's own step-2b limit, the loop up to
        |S| >= n, no deletion), which run on hundreds to thousands of points; the paper's values
        are :data:`FAITHFUL_CONSTANTS`.
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    progress : bool
        Print one line per iteration.
    random_state : None, int, SeedSequence or Generator
        The seed of Algorithm 3's coins and of the base learner's stream (scikit-learn's name).

    Attributes
    ----------
    schedule_ : list of dict
        Rem 4.10: the sizes of each iteration (i, alpha_i, beta_i, |S| before, v, kept |S|,
        kept |T|, |S| after, ``ratio`` = min(|S|/kept |S|, v/kept |T|): the sub-sampling ratio
        of step 2c).  Functions of the input sizes only.
    final_ratio_ : float
        |S| / kept |S| of step 3 (``final_ratio`` rounded: ceil(|S|/final_ratio) kept).
    outer_ratio_ : float
        Thm 4.14's ratio r (1.0 without ``epsilon``): at most 1/r of S and of D is kept.
    privacy_ : (epsilon, delta)
        From :func:`labelboost_run_privacy` for the ratios and iterations of the run, which are
        functions of the input sizes only: the value :meth:`privacy_for` gives before the run.
    privacy_steps_ : list of PrivacyStep
    hypothesis_ : the base learner's output; ``base_learner_`` the fitted copy.
    n_labelled_final_ : |S| fed to the base learner.

    Privacy model ``"all inputs"``: the guarantee is over one entry of S or of D (BNS15 Lem 4.6,
    with the worst stage at which an entry of D enters S).  The fitted state holds no count of
    errors on private data (the base learner gets labelled data only).

    Privacy at the default constants.  Claim 4.3's amplification needs each sub-sampling step to
    keep at most 1/(3 + e^4) = 1/57.6 (step 2c) and 1/247 (step 3) of its input, which leaves
    nothing to learn from at small sizes; the defaults therefore delete nothing and get the plain
    chain: Claim 4.5 (|S| i.i.d. draws: (ln 244, 2467 delta)), then Lemma 4.1 per iteration
    (+3, x 4e), so one iteration around an (1, 0) base gives (ln 244 + 3, 0) = (8.497, 0).
    This depends on the sizes and the parameters only: :meth:`privacy_for` (and
    :meth:`privacy_steps_for`, step by step) gives it before any data is read, and ``fit``
    reports exactly that.  Constants that delete enough earn Lemma 4.6's (1, O(delta)) where
    |D| is large next to |S| (second example); ``epsilon`` (Thm 4.14) sub-samples the input to
    a smaller epsilon, and is refused where the sizes leave no labelled example.

    Examples
    --------
    The defaults on 500 labelled and 2000 public points (well under a second), the guarantee
    known before the data is read:

    >>> from semiprivate.theory.classes import Thresholds
    >>> from semiprivate.theory.distributions import ThresholdDistribution
    >>> from semiprivate.theory.learners.exponential import GenericPrivateLearner
    >>> C, D = Thresholds(8), ThresholdDistribution(8, 100)
    >>> X_priv, y_priv = D.sample(500, rng=0)
    >>> X_pub = D.sample_X(2000, rng=1)
    >>> L = LabelBoost(GenericPrivateLearner(1.0, concept_class=C), concept_class=C, n=1000, random_state=2)
    >>> eps, delta = L.privacy_for(500, 2000)
    >>> round(eps, 3), delta
    (8.497, 0.0)
    >>> L = L.fit(X_priv, y_priv, X_pub)
    >>> L.privacy_ == (eps, delta), L.iterations_, L.n_labelled_final_
    (True, 1, 1500)

    Amplified (scaled constants that delete enough, |D| large next to |S|):

    >>> C = Thresholds(6)
    >>> rng = np.random.default_rng(0)
    >>> X_D, X_S = rng.integers(0, 64, 20000), rng.integers(0, 64, 60)
    >>> L = LabelBoost(GenericPrivateLearner(1.0, concept_class=C), concept_class=C, n=4, alpha=0.5,
    ...                unlabelled_factor=4000, target_factor=16, cap_factor=4000, exponent_constant=0.05,
    ...                alpha_factor=1, beta_factor=1, iteration_ratio=60, final_ratio=300, random_state=1)
    >>> L.privacy_for(len(X_S), len(X_D))
    (1.0, 0.0)
    >>> L = L.fit(X_S, (X_S < 30).astype(int), X_D)
    >>> L.iterations_, L.privacy_
    (1, (1.0, 0.0))
    >>> L.set_params(iteration_ratio=2).privacy_for(60, 20000)  # step 2c: no amplification at ratio 2
    (4.0, 0.0)
    """

    privacy_model_ = ALL_INPUTS
    expected_failed_checks = declared_failures(CHECKS_ON_FEATURE_MATRICES, CONCEPT_CLASS_REASON, set_params_validates=True)
    _releases = frozenset({"base_learner_", "hypothesis_", "privacy_"})
    _public = frozenset({"n_labelled_final_", "schedule_", "iterations_", "unlabelled_used_", "final_ratio_",
                         "outer_ratio_", "privacy_steps_"})  # functions of the input sizes and the constants

    @validate_params(n=Integer(1), alpha=PROBABILITY, beta=PROBABILITY, mode=Options("faithful", "scaled"),
                     vc=Optional(Integer(1)), epsilon=Optional(Real(0.0, 1.0, closed="right")),
                     unlabelled_factor=Real(0.0, math.inf, closed="neither"),
                     target_factor=Real(0.0, math.inf, closed="neither"),
                     cap_factor=Real(0.0, math.inf, closed="neither"),
                     exponent_constant=Real(0.0, math.inf, closed="neither"),
                     alpha_factor=Real(0.0, math.inf, closed="neither"),
                     beta_factor=Real(0.0, math.inf, closed="neither"),
                     iteration_ratio=Real(1.0, math.inf), final_ratio=Real(1.0, math.inf), rng=RNG,
                     progress=Boolean(), random_state=RNG)
    def __init__(self, base_learner: Any, *, concept_class: ConceptClass, n: int, alpha: float = 0.1,
                 beta: float = 0.1, mode: str = "scaled", base_privacy: tuple[float, float] | None = None,
                 vc: int | None = None, epsilon: float | None = None,
                 unlabelled_factor: float = SMALL_SIZE_CONSTANTS["unlabelled_factor"],
                 target_factor: float = SMALL_SIZE_CONSTANTS["target_factor"],
                 cap_factor: float = SMALL_SIZE_CONSTANTS["cap_factor"],
                 exponent_constant: float = SMALL_SIZE_CONSTANTS["exponent_constant"],
                 alpha_factor: float = SMALL_SIZE_CONSTANTS["alpha_factor"],
                 beta_factor: float = SMALL_SIZE_CONSTANTS["beta_factor"],
                 iteration_ratio: float = SMALL_SIZE_CONSTANTS["iteration_ratio"],
                 final_ratio: float = SMALL_SIZE_CONSTANTS["final_ratio"], rng: Any = None,
                 progress: bool = False, random_state: Any = None) -> None:
        if not (hasattr(base_learner, "fit") and hasattr(base_learner, "predict")):
            raise TypeError(f"base_learner must have fit and predict, got {type(base_learner).__name__}")
        self.base_learner = base_learner
        self.n = n
        self.alpha = alpha
        self.beta = beta
        self.mode = mode
        self.concept_class = concept_class
        self.base_privacy = base_privacy
        self.vc = vc
        self.epsilon = epsilon
        self.unlabelled_factor = unlabelled_factor
        self.target_factor = target_factor
        self.cap_factor = cap_factor
        self.exponent_constant = exponent_constant
        self.alpha_factor = alpha_factor
        self.beta_factor = beta_factor
        self.iteration_ratio = iteration_ratio
        self.final_ratio = final_ratio
        self.rng = rng
        self.progress = progress
        self.random_state = random_state
        self._class()
        self._base_guarantee()

    # -- parameters -----------------------------------------------------------------------------
    def _class(self) -> ConceptClass:
        C = self.concept_class
        if not isinstance(C, ConceptClass):
            raise TypeError(f"concept_class must be a ConceptClass, got {type(C).__name__}")
        if self.vc is not None and int(self.vc) != C.vc_dimension:
            raise ValueError(f"vc={self.vc} does not match the VC dimension {C.vc_dimension} of {C!r}")
        return C

    def _base_guarantee(self) -> tuple[float, float]:
        bp = self.base_privacy if self.base_privacy is not None else getattr(self.base_learner, "privacy", None)
        if bp is None:
            raise TypeError("base_privacy must be given as (epsilon, delta): the base learner "
                            f"{type(self.base_learner).__name__} states no privacy guarantee")
        try:
            e, d = (float(v) for v in bp)
        except (TypeError, ValueError):
            raise TypeError(f"base_privacy must be a pair (epsilon, delta) of floats, got {bp!r}") from None
        if not (e > 0 and math.isfinite(e)) or not 0 <= d < 1:
            raise ValueError(f"base_privacy must have epsilon in (0, inf) and delta in [0, 1), got {bp!r}")
        if e > 1:
            raise ValueError(f"base_privacy epsilon must be <= 1 (BNS15 Claim 4.5 needs it), got {e}")
        return e, d

    def constants(self) -> dict[str, float]:
        """The constants of Algorithm 3 this object runs with (faithful: the paper's)."""
        if self.mode == "faithful":
            return dict(FAITHFUL_CONSTANTS)
        return {k: float(getattr(self, k)) for k in FAITHFUL_CONSTANTS}

    def required_unlabelled(self) -> int:
        """|D| this mode requires: ceil(unlabelled_factor * n) (90000 n in faithful mode, Claim 4.8)."""
        return math.ceil(self.constants()["unlabelled_factor"] * self.n)

    @property
    def privacy(self) -> tuple[float, float]:
        """The guarantee of a zero-iteration run at the nominal ratios (kept fraction exactly 1/ratio).

        Indicative only: the guarantee depends on the input sizes (the iterations and the
        ratios that run); :meth:`privacy_for` gives it, before any data is seen, for given sizes,
        and ``fit`` reports exactly that value in ``privacy_``.
        """
        e, d = self._base_guarantee()
        k = self.constants()
        s = labelboost_run_privacy(e, d, 0, final_ratio=k["final_ratio"], iteration_ratio=k["iteration_ratio"],
                                   target_epsilon=self.epsilon, n=self.n)
        return (s[-1].epsilon, s[-1].delta)

    # -- planning: everything but the data ------------------------------------------------
    def _schedule(self, n_S: int, n_D: int) -> tuple[list[_Iteration], float]:
        """The iterations (sizes only) and the final ratio of a run on |S| = n_S, |D| = n_D.

        Every size Algorithm 3 uses is a function of |S|, |D| and the constants, never of the
        data: the schedule, hence the guarantee, is fixed before the run.  Raises ValueError
        (naming the sizes, never data) where Algorithm 3 fails.
        """
        k = self.constants()
        vc = self._class().vc_dimension
        a, b, n = float(self.alpha), float(self.beta), int(self.n)
        out: list[_Iteration] = []
        size, pos, i = int(n_S), 0, 1
        while size < k["target_factor"] * n:
            ai = a / (k["alpha_factor"] * 2**i)
            bi = b / (k["beta_factor"] * 2**i)
            log_v = math.log(bi * vc) + ai * size / (k["exponent_constant"] * vc)
            cap = math.floor(k["cap_factor"] * n)
            v = cap if log_v > math.log(cap + size) else math.floor(math.exp(log_v) - size)
            if v <= 0:
                need = (f"step 2b grows |S| from |S| = "
                        f"{_smallest_growing(size, bi * vc, ai / (k['exponent_constant'] * vc))} on: give more "
                        "labelled examples or a larger alpha" if i == 1 else "give more labelled examples")
                raise ValueError(f"LabelBoost iteration {i}: v = {v} <= 0, the labelled sample |S| = {size} "
                                 f"is too small for alpha_i = {ai:.3g}, beta_i = {bi:.3g} (step 2b: v = beta_i VC "
                                 f"exp(alpha_i |S|/({k['exponent_constant']:g} VC)) - |S|); {need} (faithful "
                                 "constants: BNS15 Claim 4.9, |S| >= (96000/alpha) VC log(2240/(alpha beta)))")
            if pos + v > n_D:
                raise ValueError(f"LabelBoost iteration {i}: step 2b needs {v} more unlabelled points, "
                                 f"{n_D - pos} left in X_public (fail, as in Algorithm 3)")
            ks = min(size, math.ceil(size / k["iteration_ratio"]))
            kt = min(v, math.ceil(v / k["iteration_ratio"]))
            out.append(_Iteration(i, ai, bi, size, v, ks, kt, ks + kt, min(size / ks, v / kt), pos))
            if ks + kt <= size:
                raise ValueError(f"LabelBoost iteration {i}: |S| stopped growing ({size} -> {ks + kt}); "
                                 "give more labelled examples or larger constants")
            size, pos, i = ks + kt, pos + v, i + 1
        kf = min(size, math.ceil(size / k["final_ratio"]))
        return out, size / kf

    def _inner_steps(self, n_S: int, n_D: int) -> list[PrivacyStep]:
        base_eps, base_delta = self._base_guarantee()
        schedule, final_ratio = self._schedule(n_S, n_D)
        return labelboost_run_privacy(base_eps, base_delta, len(schedule), final_ratio=final_ratio,
                                      iteration_ratios=[it.ratio for it in schedule], n=int(self.n))

    def _outer_sizes(self, n_S: int, n_D: int) -> tuple[int, int, float, list[PrivacyStep]]:
        """Thm 4.14: kept |S|, kept |D|, the ratio and the inner steps, all fixed before the run.

        S and D are each sub-sampled uniformly to a fixed count, keeping at most 1/r of each,
        r = (3 + e^{eps_L})/epsilon with eps_L the guarantee of the inner run on the kept sizes
        (found by raising eps_L until the inner run on those sizes meets it).  For a neighbour
        differing in an entry of S (or of D) the other part's sub-sample is independent of it,
        so Claim 4.3 applies to every sub-sample drawn.
        """
        eps = float(self.epsilon)  # type: ignore[arg-type]
        eps_l = 1.0
        for _ in range(64):
            ratio = (3.0 + math.exp(eps_l)) / eps  # inf for a subnormal epsilon
            if not ratio <= n_S:
                need = math.ceil(ratio) if math.isfinite(ratio) else "more than 1.8e308"
                raise ValueError(f"epsilon={eps!r}: the Thm 4.14 sub-sample keeps 1/{ratio:.4g} of X, "
                                 f"no labelled example of {n_S}; give at least {need} labelled examples")
            ks, kd = math.floor(n_S / ratio), math.floor(n_D / ratio)
            steps = self._inner_steps(ks, kd)
            if steps[-1].epsilon <= eps_l * (1 + 1e-12):
                return ks, kd, ratio, steps
            eps_l = steps[-1].epsilon
        raise ValueError(f"epsilon={eps}: no Thm 4.14 sub-sampling ratio found for |S| = {n_S}, |D| = {n_D}")

    def _plan(self, n_S: int, n_D: int) -> tuple[int, int, float, list[PrivacyStep]]:
        """(kept |S|, kept |D|, outer ratio, privacy steps) of a run on |S| = n_S, |D| = n_D."""
        if self.epsilon is None:
            need = self.required_unlabelled()
            if n_D < need:
                k = self.constants()
                raise ValueError(f"X_public has {n_D} points; {self.mode} mode needs |D| >= "
                                 f"{k['unlabelled_factor']:g} n = {need} (n = {self.n})")
            return n_S, n_D, 1.0, self._inner_steps(n_S, n_D)
        ks, kd, ratio, inner = self._outer_sizes(n_S, n_D)
        need = self.required_unlabelled()
        if kd < need:
            raise ValueError(f"after the Thm 4.14 sub-sample X_public keeps {kd} points; needs {need}: give "
                             f"ceil({need} * {ratio:.4g}) unlabelled points")
        e, d = inner[-1].epsilon, inner[-1].delta
        steps = list(inner)
        if float(self.epsilon) < e:
            r = subsampling_privacy(max(int(self.n), 1), e, d, float(self.epsilon))
            steps.append(PrivacyStep("BNS15.Cl4.3", r.epsilon, r.delta,
                                     f"Thm 4.14: S and D each sub-sampled to at most 1/{ratio:g}"))
        else:
            steps.append(PrivacyStep("none", e, d, "Thm 4.14: the inner run already meets epsilon"))
        return ks, kd, ratio, steps

    def privacy_steps_for(self, n_labelled: int, n_unlabelled: int) -> list[PrivacyStep]:
        """The privacy steps ``fit`` will run on inputs of these sizes, last = the guarantee (no data read).

        Each :class:`PrivacyStep` names the transformer (``BNS15.Cl4.5``, ``BNS15.Cl4.3``,
        ``BNS15.Lem4.1``, ``BNS15.Lem4.6``) or ``"none"`` where a sub-sampling step keeps too large
        a fraction for Claim 4.3 (its note says so), with the (epsilon, delta) after it; ``fit``
        stores the same list in ``privacy_steps_``.  Raises ValueError where Algorithm 3 cannot
        run on these sizes.
        """
        for name, v in (("n_labelled", n_labelled), ("n_unlabelled", n_unlabelled)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"{name} must be a non-negative int, got {v!r}")
        if n_labelled < 1:
            raise ValueError(f"n_labelled must be >= 1, got {n_labelled}")
        return list(self._plan(int(n_labelled), int(n_unlabelled))[3])

    def privacy_for(self, n_labelled: int, n_unlabelled: int) -> tuple[float, float]:
        """The (epsilon, delta) ``fit`` will report on inputs of these sizes (fixed before any data is seen).

        Raises ValueError where Algorithm 3 cannot run on these sizes.  With the default
        constants (:data:`SMALL_SIZE_CONSTANTS`) and an (epsilon <= 1, delta) base, N iterations
        give (ln 244 + 3 N, (4e)^N 2467 delta): Claim 4.5 then Lemma 4.1 per iteration, no
        sub-sampling credit (:meth:`privacy_steps_for` shows each step).

        >>> from semiprivate.theory.classes import Thresholds
        >>> from semiprivate.theory.learners.exponential import GenericPrivateLearner
        >>> A = GenericPrivateLearner(1.0, delta=0.0, concept_class=Thresholds(3))
        >>> L = LabelBoost(A, concept_class=Thresholds(3), n=2, final_ratio=300, base_privacy=(1.0, 1e-6))
        >>> e, d = L.privacy_for(300, 2)  # zero iterations: Cl 4.5 then Cl 4.3 at ratio 300
        >>> e, round(d / 1e-6, 4)
        (1.0, 39.9514)
        """
        steps = self.privacy_steps_for(n_labelled, n_unlabelled)
        return (steps[-1].epsilon, steps[-1].delta)

    # -- fit ----------------------------------------------------------------------------------
    def fit(self, X: Any, y: Any, X_public: Any = None) -> LabelBoost:
        """Run Algorithm 3 on S = (X, y) and D = X_public (unlabelled)."""
        C = self._class()
        declared = getattr(self.base_learner, "privacy_model_", None)
        if declared not in (ALL_INPUTS, LABELLED, NOT_PRIVATE):
            raise ValueError(f"base_learner: {type(self.base_learner).__name__} declares no privacy model "
                             "(privacy_model_); LabelBoost's guarantee (BNS15 Lem 4.6) needs a private base learner "
                             "that reports privacy_ after its fit (base_privacy may only tighten it, never stand in "
                             "for it)")
        if declared == NOT_PRIVATE:
            raise ValueError(f"base_learner: {type(self.base_learner).__name__} is not private (privacy model "
                             f"{NOT_PRIVATE!r}); LabelBoost's guarantee (BNS15 Lem 4.6) needs a private base learner")
        base_eps, base_delta = self._base_guarantee()
        X_S, y_S = check_fit_inputs(C, X, y)
        if X_public is None:
            raise ValueError("X_public (the unlabelled database D) is required")
        X_D = C.validate_points(X_public, "X_public", allow_empty=True)
        ks, kd, ratio, steps = self._plan(len(X_S), len(X_D))
        g, base_stream = child_streams(seed_of(self), 2)  # Algorithm 3's coins; the base learner's own stream
        if self.epsilon is not None:
            # Thm 4.14 with Rem 4.4: uniform fixed-size sub-samples of S and of D, in random order
            lab = g.permutation(len(X_S))[:ks]
            unl = g.permutation(len(X_D))[:kd]
            X_S, y_S, X_D = X_S[lab], y_S[lab], X_D[unl]
        schedule, final_ratio = self._schedule(len(X_S), len(X_D))
        for it in schedule:
            X_T = X_D[it.pos:it.pos + it.v]
            keep_s, keep_t = _keep(g, len(X_S), it.s_kept), _keep(g, len(X_T), it.t_kept)
            X_S, y_S, X_T = X_S[keep_s], y_S[keep_s], X_T[keep_t]
            r = label_boost_procedure(C, X_S, y_S, X_T, rng=g)
            X_S = np.concatenate([X_S, X_T])
            y_S = r.labels
            if self.progress:
                print(f"LabelBoost iteration {it.i}: |S| {it.s_before} -> {len(X_S)} (v = {it.v})", flush=True)
        kf = _keep(g, len(X_S), math.ceil(len(X_S) / self.constants()["final_ratio"]))
        X_S, y_S = X_S[kf], y_S[kf]
        draw = g.integers(0, len(X_S), size=len(X_S))
        X_fin, y_fin = X_S[draw], y_S[draw]
        base = copy.deepcopy(self.base_learner)
        # the base runs on its own child stream; its rng parameter is put back afterwards (None if it held a
        # generator), so the fitted base_learner_ holds none of the run's coins
        with base_streams(base, base_stream):
            base.fit(X_fin, y_fin.astype(np.int64))
        reported = getattr(base, "privacy_", None)
        if reported is None:
            raise ValueError(f"base_learner: {type(base).__name__} reported no privacy_ after fit; LabelBoost's "
                             "guarantee needs the base's own guarantee for the run (base_privacy cannot stand in for it)")
        if float(reported[0]) > base_eps * (1 + 1e-12) or float(reported[1]) > base_delta * (1 + 1e-12):
            raise ValueError(f"base_learner: it reported privacy_ = {tuple(reported)} after fit, weaker than the "
                             f"base_privacy ({base_eps}, {base_delta}) LabelBoost's guarantee was computed from")
        self.base_learner_ = base
        self.hypothesis_ = getattr(base, "hypothesis_", None)
        self.n_labelled_final_ = len(X_fin)
        self.schedule_ = [{k: v for k, v in it.__dict__.items() if k != "pos"} for it in schedule]
        self.iterations_ = len(schedule)
        self.unlabelled_used_ = sum(it.v for it in schedule)
        self.final_ratio_ = float(final_ratio)
        self.outer_ratio_ = ratio
        self.privacy_steps_ = steps
        self.privacy_ = (steps[-1].epsilon, steps[-1].delta)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Labels (0/1 as int64) of the base learner's output hypothesis on ``X``."""
        require_fitted(self, "base_learner_")
        return np.asarray(self.base_learner_.predict(X), dtype=np.int64)


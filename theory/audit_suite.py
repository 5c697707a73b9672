"""The built-in audit suite and ``python -m semiprivate audit``: every mechanism and learner of the
toolkit with its claimed (epsilon, delta), plus the deliberately broken mechanisms of
:mod:`semiprivate.theory.audit.broken`.

It lives beside the report and the command line, not inside :mod:`semiprivate.theory.audit`: the generic
auditor must not depend on the algorithms it audits (import direction kernels <- ... <-
privacy <- learners <- report; ``semiprivate.theory.audit`` imports nothing from ``semiprivate.theory.learners``).
Used by ``python -m semiprivate audit`` (:func:`main`), the report section
``theory/report/sections/audit.py`` and the tests.  Each :class:`AuditCase` names the
mechanism, the neighbouring pairs to search, the claim, whether the mechanism is expected to
be private, and -- where it can be computed -- the *exact* epsilon of the mechanism on those
pairs (``true_epsilon``), so a table can show how close the audit's lower bound comes.

Implements: AUDIT ("applied to every mechanism and learner above, with the claimed
(eps, delta) of each, and shown to catch deliberately broken mechanisms").
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from semiprivate.theory.audit import AuditOptions, AuditResult, Mechanism, audit_pairs, broken, vectorize
from semiprivate.theory.audit.exact import exact_privacy_loss
from semiprivate.theory.audit.options import DEFAULT_CONFIDENCE, DEFAULT_TRIALS
from semiprivate.theory.audit.pvalues import format_p_value
from semiprivate.theory.privacy import mechanisms as mech
from semiprivate.validation import (
    POSITIVE_INT,
    PROBABILITY,
    RNG,
    Boolean,
    CallableConstraint,
    Optional,
    as_generator,
    validate_params,
)

__all__ = ["AuditCase", "SuiteRow", "builtin_cases", "run_case", "run_suite", "case_trials", "MIN_TRIALS", "format_table",
           "SUMMARY", "main"]

SUMMARY = "audit the toolkit's mechanisms for differential privacy, empirically"


@dataclass
class AuditCase:
    """One audit of the suite."""

    name: str
    mechanism: Mechanism
    pairs: list[tuple[Any, Any]]
    epsilon: float
    delta: float
    private: bool  # expected verdict: True = the claim holds
    true_epsilon: float | None = None  # exact epsilon (at delta) on these pairs, when known
    claim: str = ""
    trials_scale: float = 1.0  # fraction of the trials budget (slow, non-vectorised mechanisms)
    options: AuditOptions = field(default_factory=AuditOptions)  # the audit's knobs, passed whole


@dataclass
class SuiteRow:
    case: AuditCase
    result: AuditResult
    seconds: float

    @property
    def as_expected(self) -> bool:
        return self.result.violation != self.case.private


def _exact(lp: Callable[[Any], np.ndarray], pairs: Sequence[tuple[Any, Any]]) -> float:
    return max(exact_privacy_loss(lp(a), lp(b), log=True).epsilon for a, b in pairs)


def _kernel_cases() -> list[AuditCase]:
    try:
        from semiprivate import kernels

        backends = kernels.available_backends()
        kernels.exponential_mechanism  # noqa: B018 - import check
    except (ImportError, AttributeError):
        return []
    k = 8
    s0 = np.zeros(k)
    s0[0] = 1.0
    s1 = 1.0 - s0
    pairs = [(s0, s1)]

    def true(eps: float) -> float:
        return _exact(lambda s: kernels.exponential_log_probabilities(s, eps), pairs)

    out = []
    for b in backends:
        def m(data: Any, size: int, rng: Any = None, _b: str = b) -> np.ndarray:
            if _b == "cupy":  # GPU: CuPy scores in, CuPy indices out, copied back for counting
                import cupy  # type: ignore[import-not-found]

                out = kernels.exponential_mechanism(cupy.asarray(data), 1.0, size=size, rng=rng, backend="cupy")
                return np.asarray(cupy.asnumpy(out))
            return np.asarray(kernels.exponential_mechanism(data, 1.0, size=size, rng=rng, backend=_b))

        try:
            m(s0, 2, 0)
        except Exception:  # backend listed but this kernel not built: not auditable here
            continue
        out.append(AuditCase(f"kernels.exponential_mechanism [{b}]", m, pairs, 1.0, 0.0, True, true(1.0),
                             "McSherry-Talwar Thm 6: eps-DP, scores of sensitivity 1"))

    def m_exact(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return np.asarray(kernels.exponential_mechanism(data, 1.0, size=size, rng=rng, backend="numpy", exact=True))

    out.append(AuditCase("kernels.exponential_mechanism [exact=True]", m_exact, pairs, 1.0, 0.0, True, true(1.0),
                         "McSherry-Talwar Thm 6 (exact sampler)", trials_scale=0.05))
    return out


def _theory_cases() -> list[AuditCase]:
    out: list[AuditCase] = []
    try:
        from semiprivate.theory.privacy import exponential as tex
    except ImportError:
        return out
    # all 8 labelings of 3 points as the hypothesis class; neighbours flip one label
    P = np.array([[(h >> j) & 1 for j in range(3)] for h in range(8)], dtype=bool)
    y0, y1 = np.array([0, 0, 0]), np.array([1, 0, 0])

    def em(data: Any, size: int, rng: Any = None) -> np.ndarray:
        return np.asarray(tex.sample(tex.error_counts_of(P, data), 1.0, size=size, rng=rng))

    true = _exact(lambda y: tex.log_output_distribution(tex.error_counts_of(P, y), 1.0), [(y0, y1)])
    out.append(AuditCase("semiprivate.theory.privacy.exponential.sample", em, [(y0, y1)], 1.0, 0.0, True, true,
                         "EXPMECH, q = -#errors (sensitivity 1): eps-DP"))

    X0, X1 = ([3, 9, 12], [1, 1, 0]), ([3, 9, 12], [1, 0, 0])

    def thr(data: Any, rng: Any) -> int:
        return tex.structured_threshold_mechanism(data[0], data[1], 1.0, 4, rng=rng)

    true_t = _exact(lambda d: np.array([tex.structured_threshold_log_probability(t, d[0], d[1], 1.0, 4)
                                        for t in range(17)]), [(X0, X1)])
    out.append(AuditCase("semiprivate.theory.privacy.exponential.structured_threshold_mechanism (d=4)", vectorize(thr),
                         [(X0, X1)], 1.0, 0.0, True, true_t, "Structured EXPMECH: eps-DP", trials_scale=0.005))

    def itv(data: Any, rng: Any) -> Any:
        return tex.structured_interval_mechanism(data[0], data[1], 1.0, 4, rng=rng)

    outputs: list[Any] = [None] + [(a, b) for a in range(16) for b in range(a, 16)]
    true_i = _exact(lambda d: np.array([tex.structured_interval_log_probability(h, d[0], d[1], 1.0, 4)
                                        for h in outputs]), [(X0, X1)])
    out.append(AuditCase("semiprivate.theory.privacy.exponential.structured_interval_mechanism (d=4)", vectorize(itv),
                         [(X0, X1)], 1.0, 0.0, True, true_i, "Structured EXPMECH (intervals): eps-DP",
                         trials_scale=0.005))
    try:
        from semiprivate.theory.classes import Thresholds
        from semiprivate.theory.learners import ASSPP, GenericPrivateLearner, ReductionLearner
    except ImportError:
        return out
    C = Thresholds(4)
    Xp, yp0, yp1 = [1, 2, 12, 14], [1, 1, 0, 0], [1, 0, 0, 0]
    gen_learner = GenericPrivateLearner(1.0, concept_class=C)

    def fit_generic(data: Any, rng: Any) -> int:
        gen_learner.random_state = rng
        return gen_learner.fit(Xp, data).index_

    true_g = _exact(lambda y: np.log(gen_learner.output_distribution(Xp, y)), [(yp0, yp1)])
    out.append(AuditCase("semiprivate.theory.learners.GenericPrivateLearner (KLNRS, Thresholds(4))", vectorize(fit_generic),
                         [(yp0, yp1)], gen_learner.privacy[0], gen_learner.privacy[1], True, true_g,
                         "KLNRS.Generic: eps-DP (privacy attribute)", trials_scale=0.005))
    Xpub = [0, 3, 5, 8, 11, 13, 15]
    asspp = ASSPP(1.0, concept_class=C)

    def fit_asspp(data: Any, rng: Any) -> int:
        asspp.random_state = rng
        return asspp.fit(Xp, data, Xpub).index_

    true_a = _exact(lambda y: np.log(asspp.output_distribution(Xp, y, Xpub)[1]), [(yp0, yp1)])
    out.append(AuditCase("semiprivate.theory.learners.ASSPP (ABM19 Alg 1, Thresholds(4))", vectorize(fit_asspp),
                         [(yp0, yp1)], asspp.privacy[0], asspp.privacy[1], True, true_a,
                         "ABM19 Lem 3.2: eps-DP for every public sample", trials_scale=0.005))
    out.append(_reduction_case(ASSPP, ReductionLearner))
    return out


def _reduction_case(ASSPP: Any, ReductionLearner: Any) -> AuditCase:
    """ABM19 Claim 4.5 audited where the claim is tight enough to be tested.

    B = ReductionLearner over A = ASSPP; B claims A's (epsilon, delta) (Claim 4.5), read from
    ``privacy_`` after a ``fit`` (what the run reports), not from the constructor.

    Worst-case pair for the step whose privacy the claim rests on (A's exponential mechanism
    seeing the private point): H = POINT_16 (:class:`semiprivate.theory.classes.PointFunctions`), D0 with
    x uniform on {2, ..., 2^16 - 1} and uniform labels, n_pub = 1, n_priv = 300 (p = 1/100,
    sample size 30).  The cover of the public point x_p is {c_0, c_{x_p}} (c_0 is the smallest
    point outside T_pub); the two differ only at 0 and at x_p, so D0's dummies (which land at
    x_p with probability 300/65534 per run) add nothing to the score difference, and the canary
    (x = 0, label 1 vs 0, first in S~; the other 29 private points sit at x = 1, labelled 0 by
    both hypotheses) moves it by exactly 1.  The output audited is B's prediction at 0
    (post-processing: c_0 predicts 1, c_{x_p} predicts 0).  The canary is used with probability
    q = 1 - 0.99^300 = 0.951, so for A at epsilon_A (score factor epsilon_A / 2):
    P(1 | y = 1) = q sigma(epsilon_A/2) + (1 - q)/2, P(1 | y = 0) = q sigma(-epsilon_A/2) + (1 - q)/2.
    Correct (epsilon_A = 1): 0.617 vs 0.383, epsilon 0.48 <= 1 (no flag).  A run at 5 epsilon
    but reporting epsilon: 0.903 vs 0.097, epsilon 2.23; at 20 epsilon: 0.976 vs 0.024,
    epsilon 3.68 -- both far above the claimed 1, found with the suite's trials (tests in
    tests/theory/audit/strategies/test_strategies_suite_cli.py).  (The earlier case, Thresholds(4) with
    n_priv = 20, used its private point with probability 0.18 among random-label dummies and
    could not tell A at 20 epsilon from A at epsilon.)  ``true_epsilon`` is left unset: the
    dummy collisions with x_p make the exact value differ from 0.48 by O(1e-2).
    """
    from semiprivate.theory.classes import PointFunctions
    from semiprivate.theory.distributions import RandomLabelDistribution

    C = PointFunctions(16)
    D0 = RandomLabelDistribution(lambda n, g: 2 + g.integers(0, 2**16 - 2, size=n))
    red = ReductionLearner(1.0, base_learner=lambda e, d, g: ASSPP(e, d, random_state=g, concept_class=C),
                           n_priv=300, n_pub=1, D0=D0)
    s = red.sample_size
    Xr = [0] + [1] * (s - 1)
    y1, y0 = [1] + [0] * (s - 1), [0] * s

    def fit_reduction(data: Any, rng: Any) -> int:
        red.random_state = rng
        return int(red.fit(Xr, data).predict([0])[0])

    red_privacy = red.fit(Xr, y1).privacy_  # the guarantee B reports for a run (Claim 4.5), read after fit
    return AuditCase("semiprivate.theory.learners.ReductionLearner (ABM19 Alg 2 over ASSPP, POINT_16 canary)",
                     vectorize(fit_reduction), [(y1, y0)], red_privacy[0], red_privacy[1], True, None,
                     "ABM19 Claim 4.5: inherits A's (eps, delta)", trials_scale=0.005)


@validate_params(include_broken=Boolean())
def builtin_cases(*, include_broken: bool = True) -> list[AuditCase]:
    """The suite: correct mechanisms of the toolkit (expected private) and, optionally, the
    deliberately broken ones (expected to be caught)."""
    e1 = np.zeros(5)
    e1[0] = 1.0
    rnm_pairs = [(e1, 1.0 - e1)]
    gumbel = mech.ReportNoisyMax(1.0, noise="gumbel")
    rr4 = mech.RandomizedResponse(1.0, n_categories=4)
    cases = [
        AuditCase("LaplaceMechanism", mech.LaplaceMechanism(1.0), [(0.0, 1.0)], 1.0, 0.0, True, 1.0,
                  "DR14 Thm 3.6: eps-DP, L1 sensitivity 1"),
        AuditCase("LaplaceMechanism (vector, L1)", mech.LaplaceMechanism(1.0),
                  [(np.zeros(3), np.array([1.0, 0, 0])), (np.zeros(3), np.array([0.5, 0, -0.5]))], 1.0, 0.0, True,
                  1.0, "DR14 Thm 3.6"),
        AuditCase("GaussianMechanism (analytic)", mech.GaussianMechanism(1.0, 1e-5), [(0.0, 1.0)], 1.0, 1e-5, True,
                  1.0, "BW18 Thm 8: (eps, delta)-DP, L2 sensitivity 1 (tight)"),
        AuditCase("GaussianMechanism (classic)", mech.GaussianMechanism(0.5, 1e-5, calibration="classic"),
                  [(0.0, 1.0)], 0.5, 1e-5, True, None, "DR14 Thm A.1 (eps < 1)"),
        AuditCase("GeometricMechanism", mech.GeometricMechanism(1.0), [(0, 1)], 1.0, 0.0, True, 1.0,
                  "GRS12: eps-DP, integer sensitivity 1"),
        AuditCase("RandomizedResponse (binary)", mech.RandomizedResponse(1.0), [(0, 1)], 1.0, 0.0, True, 1.0,
                  "DR14 Sec 3.2"),
        AuditCase("RandomizedResponse (k=4)", rr4, [(0, 1)], 1.0, 0.0, True,
                  _exact(rr4.log_probabilities, [(0, 1)]), "DR14 Sec 3.2 (k-ary)"),
        AuditCase("RandomizedResponse (vector of 4 bits)", mech.RandomizedResponse(1.0),
                  [(np.array([0, 1, 0, 1]), np.array([1, 1, 0, 1]))], 1.0, 0.0, True, 1.0, "DR14 Sec 3.2"),
        AuditCase("ReportNoisyMax (Laplace)", mech.ReportNoisyMax(1.0), rnm_pairs, 1.0, 0.0, True, None,
                  "DR14 Claim 3.9 (scale 2/eps, non-monotone scores)"),
        AuditCase("ReportNoisyMax (Gumbel)", gumbel, rnm_pairs, 1.0, 0.0, True,
                  _exact(gumbel.log_probabilities, rnm_pairs), "= exponential mechanism, DR14 Thm 3.10"),
    ]
    cases += _kernel_cases()
    cases += _theory_cases()
    from semiprivate.theory.privacy.sgd_audits import (
        audit_cases as sgd_audit_cases,  # DP-SGD and Noisy SGD canaries (+ broken)
    )

    cases += [AuditCase(**c) for c in sgd_audit_cases(include_broken=include_broken)]
    if include_broken:
        lw = broken.LaplaceWrongScale(1.0, 0.5)
        nq = broken.NoiseOnWrongQuantity(0.5)
        nmv = broken.NoisyMaxValue(1.0)
        bwn = broken.BranchWithoutNoise(1.0)
        brr = broken.BinaryFormulaRR(1.0, 4)
        enh = broken.ExponentialMechanismNoHalf(1.0)
        s0 = np.zeros(8)
        s0[0] = 1.0
        cases += [
            AuditCase("BROKEN Laplace, half the noise", lw, [(0.0, 1.0)], 1.0, 0.0, False,
                      lw.true_epsilon((0.0, 1.0)), "claims DR14 Thm 3.6"),
            AuditCase("BROKEN mean: noise on the sum", nq, [(np.zeros(3), np.array([1.0, 0, 0]))], 0.5, 0.0, False,
                      nq.true_epsilon((np.zeros(3), np.array([1.0, 0, 0]))), "claims eps-DP mean"),
            AuditCase("BROKEN noisy max releases the value", nmv, [(np.zeros(5), np.ones(5))], 1.0, 0.0, False,
                      nmv.true_epsilon((np.zeros(5), np.ones(5))), "claims DR14 Claim 3.9"),
            AuditCase("BROKEN branch without noise", bwn, [(0.0, 1.0)], 1.0, 0.0, False, math.inf,
                      "claims Laplace eps-DP"),
            AuditCase("BROKEN k-ary RR with the binary formula", brr, [(0, 1)], 1.0, 0.0, False,
                      brr.true_epsilon((0, 1)), "claims DR14 Sec 3.2"),
            AuditCase("BROKEN exponential mechanism without the 1/2", enh, [(s0, 1.0 - s0)], 1.0, 0.0, False,
                      enh.true_epsilon((s0, 1.0 - s0)), "claims McSherry-Talwar"),
        ]
    return cases


#: the fewest trials per dataset a case is audited with (a scaled-down case never gets fewer unless asked)
MIN_TRIALS = 2_000


@validate_params(trials=POSITIVE_INT, min_trials=POSITIVE_INT)
def case_trials(case: AuditCase, trials: int, min_trials: int = MIN_TRIALS) -> int:
    """The trials per dataset :func:`run_case` uses for ``case``: ``trials * case.trials_scale``, at least
    ``min_trials``."""
    if not isinstance(case, AuditCase):
        raise TypeError(f"case must be an AuditCase, got {type(case).__name__}")
    return max(min_trials, int(trials * case.trials_scale))


@validate_params(trials=POSITIVE_INT, confidence=PROBABILITY, rng=RNG, min_trials=POSITIVE_INT)
def run_case(case: AuditCase, *, trials: int = DEFAULT_TRIALS, confidence: float = DEFAULT_CONFIDENCE,
             rng: Any = None, min_trials: int = MIN_TRIALS) -> SuiteRow:
    """Audit one case with ``trials * case.trials_scale`` (at least ``min_trials``, 2,000 by default) trials per
    dataset (:func:`case_trials`)."""
    if not isinstance(case, AuditCase):
        raise TypeError(f"case must be an AuditCase, got {type(case).__name__}")
    n = case_trials(case, trials, min_trials)
    opts = case.options
    if case.trials_scale < 1 and opts.selection_trials is None:
        opts = replace(opts, selection_trials=max(1_000, n // 2))
    t0 = time.perf_counter()
    res = audit_pairs(case.mechanism, case.pairs, epsilon=case.epsilon, delta=case.delta, trials=n,
                      confidence=confidence, rng=rng, options=opts)
    return SuiteRow(case, res, time.perf_counter() - t0)


@validate_params(trials=POSITIVE_INT, confidence=PROBABILITY, rng=RNG, echo=Optional(CallableConstraint()),
                 min_trials=POSITIVE_INT)
def run_suite(cases: Sequence[AuditCase] | None = None, *, trials: int = DEFAULT_TRIALS,
              confidence: float = DEFAULT_CONFIDENCE,
              rng: Any = None, echo: Callable[[str], None] | None = None, min_trials: int = MIN_TRIALS) -> list[SuiteRow]:
    """Run every case (each with its own child seed of ``rng``; ``min_trials``: see :func:`run_case`)."""
    cases = builtin_cases() if cases is None else _case_list(cases)
    g = as_generator(rng)
    seeds = g.integers(0, 2**63 - 1, size=len(cases))
    rows: list[SuiteRow] = []
    for case, ss in zip(cases, seeds):
        row = run_case(case, trials=trials, confidence=confidence, rng=np.random.default_rng(int(ss)),
                       min_trials=min_trials)
        rows.append(row)
        if echo is not None:
            echo(format_table([row], header=not rows[:-1]))
    return rows


def _case_list(cases: Any) -> list[AuditCase]:
    if isinstance(cases, (str, bytes)) or not isinstance(cases, (list, tuple)):
        raise TypeError(f"cases must be a list of AuditCase, got {type(cases).__name__}")
    bad = [type(c).__name__ for c in cases if not isinstance(c, AuditCase)]
    if bad:
        raise TypeError(f"cases must be a list of AuditCase, got an element of type {bad[0]}")
    return list(cases)


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.3f}"


@validate_params(header=Boolean(), markdown=Boolean())
def format_table(rows: Sequence[SuiteRow], *, header: bool = True, markdown: bool = False) -> str:
    """A plain-text (or markdown) table of suite results."""
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, SuiteRow) for r in rows):
        raise TypeError(f"rows must be a list of SuiteRow (from run_suite), got {type(rows).__name__}")
    cols = ["mechanism", "claim (eps, delta)", "exact eps on pairs", "eps lower bound", "verdict", "expected",
            "p-value", "trials", "s"]
    lines = []
    data = []
    for r in rows:
        res = r.result
        verdict = "VIOLATION" if res.violation else "ok"
        expected = ("ok" if r.case.private else "VIOLATION") + ("" if r.as_expected else "  <-- UNEXPECTED")
        data.append([r.case.name, f"({r.case.epsilon:g}, {r.case.delta:g})", _fmt(r.case.true_epsilon),
                     _fmt(res.epsilon_lower_bound), verdict, expected,
                     format_p_value(res.p_value, res.log_p_value),
                     f"{res.trials_used:,}", f"{r.seconds:.2f}"])
    if markdown:
        if header:
            lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(d) + " |" for d in data]
        return "\n".join(lines)
    widths = [56, 18, 18, 15, 9, 24, 8, 12, 6]
    if header:
        lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip())
    for d in data:
        lines.append("  ".join(v.ljust(w) for v, w in zip(d, widths)).rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# command line: python -m semiprivate audit
# ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m semiprivate audit``.

    Every mechanism of the toolkit is audited with its claimed (epsilon, delta) (expected: no
    violation), and the deliberately broken mechanisms of :mod:`semiprivate.theory.audit.broken` are
    audited too (expected: violation), unless ``--no-broken``.  Exit status 0 when every verdict
    is the expected one, 1 otherwise, 2 for a usage error (a message, never a traceback).  Each
    audit's bound is valid at ``--confidence`` (default 0.999, so with ~16 correct mechanisms a
    false alarm somewhere has probability <= 1.6%).
    """
    p = argparse.ArgumentParser(prog="semiprivate audit", description=SUMMARY + ".")
    p.add_argument("--trials", type=int, default=None,
                   help="estimation trials per dataset, >= 1 (default 1,000,000; 100,000 with --quick); "
                        "slow non-vectorised mechanisms use a documented fraction")
    p.add_argument("--seed", type=int, default=20261121, help="base seed, an integer >= 0 (default 20261121)")
    p.add_argument("--quick", action="store_true", help="fewer trials (about 10x faster)")
    p.add_argument("--confidence", type=float, default=DEFAULT_CONFIDENCE,
                   help=f"confidence of each bound, in (0, 1) (default {DEFAULT_CONFIDENCE})")
    p.add_argument("--no-broken", action="store_true", help="skip the deliberately broken mechanisms")
    p.add_argument("--only", default=None, help="run only cases whose name contains this text")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    return p


def _usage_error(message: str) -> int:
    print(f"semiprivate audit: error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    """Entry point of ``python -m semiprivate audit`` (returns the exit status).

    Implements: AUDIT (command line).
    """
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"argv must be a list of strings, got {type(argv).__name__}")
    args = build_parser().parse_args(argv)  # argparse: usage errors exit 2 with a message, --help exits 0
    if not 0 < args.confidence < 1:  # NaN-safe
        return _usage_error(f"--confidence must be in (0, 1), got {args.confidence}")
    if args.seed < 0:
        return _usage_error(f"--seed must be an integer >= 0, got {args.seed}")
    trials = args.trials if args.trials is not None else (100_000 if args.quick else DEFAULT_TRIALS)
    if trials < 1:
        return _usage_error(f"--trials must be >= 1, got {trials}")
    cases = builtin_cases(include_broken=not args.no_broken)
    if args.only:
        names = [c.name for c in cases]
        cases = [c for c in cases if args.only.lower() in c.name.lower()]
        if not cases:
            return _usage_error(f"no case name contains {args.only!r}; the cases are: " + "; ".join(names))
    if args.list:
        for c in cases:
            print(f"{c.name}: claims ({c.epsilon:g}, {c.delta:g}); {c.claim}; expected "
                  f"{'private' if c.private else 'VIOLATION'}")
        return 0
    t0 = time.perf_counter()
    echo = None if args.markdown else print
    rows = run_suite(cases, trials=trials, confidence=args.confidence, rng=args.seed, echo=echo)
    if args.markdown:
        print(format_table(rows, markdown=True))
    bad = [r for r in rows if not r.as_expected]
    print(f"\n{len(rows)} audits in {time.perf_counter() - t0:.1f} s (confidence {args.confidence:g} each, "
          f"seed {args.seed}): {len(rows) - len(bad)} as expected, {len(bad)} unexpected.")
    return 0 if not bad else 1

"""Report section: the empirical DP audit table (every mechanism with its claim, and the
deliberately broken ones), produced by :mod:`semiprivate.theory.audit_suite`, plus the audit's own
calibration (how often correct mechanisms are flagged), how the bound grows with trials, and DP-SGD
audited in one training run (:mod:`semiprivate.theory.dpsgd_one_run`: bound vs claimed epsilon for several
numbers of canaries, broken trainers, bound per unit of compute against the many-run canary audit)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from semiprivate.theory.report import ReportContext, Section, pyplot
from semiprivate.theory.report.sections._common import OKABE_ITO, cpu_name

TITLE = "Empirical DP audits"
ORDER = 50


#: quick mode's fewest trials per dataset (the full report keeps the suite's floor, ``audit_suite.MIN_TRIALS``)
_QUICK_MIN_TRIALS = 1_000


def _calibration(ctx: ReportContext) -> tuple[list[str], bool, str]:
    """The calibration table, whether every flag count is within the gate, and the summary's numbers."""
    from semiprivate import kernels
    from semiprivate.theory.audit import audit_mechanism, cp_upper
    from semiprivate.theory.privacy.mechanisms import GeometricMechanism, LaplaceMechanism, RandomizedResponse

    repeats = 50 if ctx.quick else 200
    trials = 20_000
    alpha = 0.05
    s0 = np.zeros(8)
    s0[0] = 1.0

    def em(data, size, rng):  # type: ignore[no-untyped-def]
        return np.asarray(kernels.exponential_mechanism(data, 1.0, size=size, rng=rng))

    tight_em = 0.8715956955993109  # exact epsilon of the exponential mechanism on (s0, 1 - s0)
    cases: list[tuple[str, Any, Any, Any, float]] = [
        ("LaplaceMechanism(1), pair (0, 1)", LaplaceMechanism(1.0), 0.0, 1.0, 1.0),
        ("GeometricMechanism(1), pair (0, 1)", GeometricMechanism(1.0), 0, 1, 1.0),
        ("RandomizedResponse(1), pair (0, 1)", RandomizedResponse(1.0), 0, 1, 1.0),
        ("kernels.exponential_mechanism(1), claim = exact eps 0.8716", em, s0, 1.0 - s0, tight_em),
    ]
    rows = ["| mechanism (claim = true epsilon on the pair) | repeats | flagged | flag rate | "
            "95% upper bound on the rate | stated rate |", "|---|---|---|---|---|---|"]
    ok = True
    counts = []
    for i, (name, mech, d0, d1, eps) in enumerate(cases):
        flags = sum(audit_mechanism(mech, d0, d1, epsilon=eps, trials=trials, confidence=1 - alpha,
                                    rng=ctx.seed + 1000 * i + r).violation for r in range(repeats))
        hi = float(cp_upper(flags, repeats, 0.05))
        ok &= flags <= max(3, 3 * alpha * repeats)
        counts.append(flags)
        rows.append(f"| {name} | {repeats} | {flags} | {flags / repeats:.3f} | {hi:.3f} | <= {alpha} |")
    total = len(cases) * repeats
    numbers = (f"calibration {sum(counts)}/{total} false flags of correct mechanisms at confidence {1 - alpha:g} "
               f"({trials:,} trials per dataset; rate {sum(counts) / total:.3f}, 95% upper bound {float(cp_upper(sum(counts), total, 0.05)):.3f}; "
               f"stated <= {alpha:g})")
    return rows, ok, numbers


def _growth(ctx: ReportContext) -> list[str]:
    from semiprivate.theory.audit import audit_mechanism, broken

    sizes = [10_000, 100_000] if ctx.quick else [10_000, 100_000, 1_000_000]
    lw = broken.LaplaceWrongScale(1.0, 0.5)
    bw = broken.BranchWithoutNoise(1.0)
    rows = ["| trials per dataset | Laplace with half the noise (true eps 2) | branch without noise (true eps inf) |",
            "|---|---|---|"]
    for n in sizes:
        a = audit_mechanism(lw, 0.0, 1.0, epsilon=1.0, trials=n, rng=ctx.seed).epsilon_lower_bound
        b = audit_mechanism(bw, 0.0, 1.0, epsilon=1.0, trials=n, rng=ctx.seed).epsilon_lower_bound
        rows.append(f"| {n:,} | {a:.3f} | {b:.3f} (log of n / log(2K/alpha) = {math.log(n / math.log(160)):.3f}) |")
    return rows


def _one_run(ctx: ReportContext) -> tuple[list[str], bool, str]:
    """DP-SGD audited in one training run ([SNJ23] white-box): bound vs claimed epsilon for several m, a
    figure, broken trainers caught in one run, and bound per unit of compute against the many-run canary audit."""
    from semiprivate.theory.dpsgd_one_run import compare_with_many_runs, one_run_dpsgd, sweep
    from semiprivate.theory.privacy.accounting import calibrate_noise_multiplier

    # quick: two claims and two m (each point costs one PLD accounting of its claim): the rise with the claim and
    # with m still shows; the full run has the whole grid
    epsilons = [1.0, 4.0] if ctx.quick else [1.0, 2.0, 4.0, 8.0]
    ms = [1000, 10_000] if ctx.quick else [1000, 10_000, 100_000, 1_000_000]
    rows = sweep(epsilons, ms, seed=ctx.seed)
    dl = rows[0]["delta"]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for k, m in enumerate(ms):
        pts = [r for r in rows if r["m"] == m]
        ax.plot([r["claim"] for r in pts], [r["bound"] for r in pts], "o-", color=OKABE_ITO[(1, 5, 6, 7)[k % 4]],
                label=f"one run, m = {m:,} canaries")
    ax.plot(epsilons, epsilons, "k--", label="claimed epsilon (DP-SGD's report)")
    ax.set_xlabel(f"claimed epsilon (DP-SGD's report at delta = {dl:g})")
    ax.set_ylabel("one-run epsilon lower bound (confidence 0.95)")
    ax.set_title("DP-SGD audited in one training run (white-box canaries)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = ctx.path("audit_one_run_dpsgd.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    ok = all(r["bound"] <= r["claim"] for r in rows)
    md = [f"| claimed eps (delta {dl:g}) | noise multiplier | m canaries | correct / guesses | one-run lower bound | s |",
          "|---|---|---|---|---|---|"]
    md += [f"| {r['claim']:.2f} | {r['sigma']:.3f} | {r['m']:,} | {r['correct']}/{r['guesses']} | {r['bound']:.3f} | "
           f"{r['seconds']:.1f} |" for r in rows]
    sigma = float(calibrate_noise_multiplier(2.0, 1e-5, 1.0, 1, relation="add_or_remove_one"))
    # halved noise is caught in one run from about 1e6 canaries (benchmarks/RESULTS.md): the full run shows it;
    # quick mode checks the correct and the clipping-skipped trainers on 1e5
    mb = 100_000 if ctx.quick else 1_000_000
    broken = [one_run_dpsgd(mb, noise_multiplier=sigma, steps=1, variant=v, canary_norm=20.0 if v == "clipping_skipped"
                            else 2.0, rng=ctx.seed + 7) for v in ("correct", "noise_halved", "clipping_skipped")]
    ok &= not broken[0].violation and broken[2].violation
    md += ["", f"| trainer (eps 2 at delta 1e-5; audited at delta {broken[0].delta:g}: claim "
               f"{broken[0].claimed_epsilon:.3f}), {mb:,} canaries | one-run bound | verdict |", "|---|---|---|"]
    md += [f"| {b.variant} | {b.epsilon_lower_bound:.3f} | {'VIOLATION' if b.violation else 'no violation'} |"
           for b in broken]
    cmp = compare_with_many_runs(sigma, m=100_000, trials=20_000 if ctx.quick else 200_000, rng=ctx.seed)
    md += ["", f"| audit of the same DP-SGD (claim eps {cmp.claimed_epsilon:.2f} at delta {cmp.delta:g}) | training runs "
               "| bound | seconds | bound per 1,000 runs |",
           "|---|---|---|---|---|",
           f"| one run, {cmp.m:,} canaries | {cmp.one_run_runs} | {cmp.one_run_bound:.3f} | {cmp.one_run_seconds:.1f} | "
           f"{1000 * cmp.one_run_bound / cmp.one_run_runs:.1f} |",
           f"| many runs, worst-case canary pair | {cmp.many_run_runs:,} | {cmp.many_run_bound:.3f} | "
           f"{cmp.many_run_seconds:.1f} | {1000 * cmp.many_run_bound / cmp.many_run_runs:.4f} |",
           "", f"![one-run audit]({path.name})"]
    worst = max(rows, key=lambda r: r["bound"] / r["claim"])
    numbers = (f"one-run DP-SGD: largest bound / claim {worst['bound'] / worst['claim']:.2f} (m = {worst['m']:,}), "
               + ", ".join(f"{b.variant} {'caught' if b.violation else 'not caught'}" for b in broken)
               + f" at {mb:,} canaries"
               + (" (halved noise is caught in one run from about 1e6 canaries: the full report)"
                  if not broken[1].violation and mb < 1_000_000 else ""))
    return md, ok, numbers


def build(ctx: ReportContext) -> Section:
    from semiprivate.theory.audit_suite import MIN_TRIALS, builtin_cases, case_trials, format_table, run_suite

    trials = 100_000 if ctx.quick else 1_000_000
    # quick: the slow mechanisms audited at their floor (all of them correct ones: fewer trials keep every pass
    # valid and only lower the power, which the broken mechanisms -- never at the floor -- need) get 1,000
    min_trials = _QUICK_MIN_TRIALS if ctx.quick else MIN_TRIALS
    confidence = 0.999
    cases = builtin_cases()
    rows = run_suite(cases, trials=trials, confidence=confidence, rng=ctx.seed, min_trials=min_trials)
    scaled = sorted(n for n in (case_trials(c, trials, min_trials) for c in cases) if n < trials)
    measured = f"the {len(rows)} audits at {trials:,} trials per dataset" + (
        f" ({len(scaled)} slow mechanisms: {scaled[0]:,} to {scaled[-1]:,})" if scaled else "")
    bad = [r for r in rows if not r.as_expected]
    n_ok = sum(r.case.private for r in rows)
    n_broken = len(rows) - n_ok
    caught = sum((not r.case.private) and r.result.violation for r in rows)
    false_alarms = sum(r.case.private and r.result.violation for r in rows)
    cal_rows, cal_ok, cal_numbers = _calibration(ctx)
    one_rows, one_ok, one_numbers = _one_run(ctx)
    md = [
        f"Each row audits one mechanism on the listed neighbouring pairs with `semiprivate.theory.audit.audit_pairs`: "
        f"events chosen on a selection batch, probabilities estimated on fresh batches of {trials:,} outputs per "
        f"dataset (slow, non-vectorised mechanisms use a stated fraction, at least {min_trials:,}: the `trials` "
        f"column), one-sided Clopper–Pearson bounds with a "
        f"Bonferroni correction over pairs, events and directions. Every *eps lower bound* is valid with "
        f"probability >= {confidence}; *exact eps on pairs* is the mechanism's true epsilon on those pairs "
        f"(computed from its exact output distribution or in closed form; `-` where not computed; it is the "
        f"epsilon at the claimed delta).",
        "",
        format_table(rows, markdown=True),
        "",
        "The `s` column is the wall time of each audit (one run, no repetition: indicative only, lower is "
        f"better; {cpu_name()}, shared machine). Speed comparisons live in `benchmarks/bench_audit.py`.",
        "",
        f"Correct mechanisms: {n_ok}, false alarms: {false_alarms}. Deliberately broken mechanisms: {n_broken}, "
        f"caught: {caught}.",
        "",
        "Known limit: for the Gaussian mechanism at delta = 1e-5 the event that makes its epsilon tight has "
        "probability of order delta, so 1e6 trials give a bound well below the true epsilon (valid, not tight).",
        "",
        "### Calibration of the audit",
        "",
        "Repeated audits (20,000 trials per dataset, confidence 0.95) of correct mechanisms on pairs where the "
        "claim equals the true epsilon (the hardest case for validity). The audit promises a flag rate <= 0.05.",
        "",
        *cal_rows,
        "",
        "### No probability floor: the bound grows with the trials",
        "",
        "Confidence 0.95, K = 4 tested events. For a support mismatch the bound is log(1 / (1 - a^(1/n))) with "
        "a = 0.05/8, about log(n / log(160)): unbounded in n, never capped by a floor.",
        "",
        *_growth(ctx),
        "",
        "### DP-SGD audited in one training run",
        "",
        "Steinke, Nasr, Jagielski (NeurIPS 2023): m gradient canaries (one weight each, gradient norm 2 C), each "
        "put in the training set with probability 1/2; DP-SGD (q = 1, one step, noise calibrated to the claimed "
        "epsilon) runs once, its canary block as one-weight runs that are equal in law to the joint run (O(m) per "
        "step, so m = 1e6 fits); each canary's weight is its score; the top k (and the top and bottom k) scores "
        "are guessed in / out (k on a geometric grid fixed before the run, Bonferroni over it) and the paper's "
        "theorem turns the number of right guesses into an epsilon lower bound at delta 0.01 / m "
        "(`semiprivate.theory.audit.one_run`), against DP-SGD's own report at that delta. The bound rises with "
        "the claim and with m (about log of the number of right guesses): loose (a quarter to a half of the "
        "claim) at small claims, the shape of the paper's white-box figure. With 1e6 canaries one run catches a "
        "halved noise, which 4,000 canaries cannot.",
        "",
        *one_rows,
    ]
    summary = (f"{len(rows)} audits: {n_ok - false_alarms}/{n_ok} correct mechanisms pass, "
               f"{caught}/{n_broken} broken ones caught; {cal_numbers}" + ("" if cal_ok else " FAILED") + f"; {one_numbers}; {measured}")
    return Section(title=TITLE, markdown="\n".join(md), summary=summary, ok=not bad and cal_ok and one_ok)

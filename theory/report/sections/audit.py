"""Report section: the empirical DP audit table (every mechanism with its claim, and the
deliberately broken ones), produced by :mod:`theory.audit.suite`."""

from __future__ import annotations

from theory.report import ReportContext, Section

TITLE = "Empirical DP audits"
ORDER = 50


def build(ctx: ReportContext) -> Section:
    from theory.audit.suite import builtin_cases, format_table, run_suite

    trials = 100_000 if ctx.quick else 1_000_000
    confidence = 0.999
    rows = run_suite(builtin_cases(), trials=trials, confidence=confidence, rng=ctx.seed)
    bad = [r for r in rows if not r.as_expected]
    n_ok = sum(r.case.private for r in rows)
    n_broken = len(rows) - n_ok
    caught = sum((not r.case.private) and r.result.violation for r in rows)
    false_alarms = sum(r.case.private and r.result.violation for r in rows)
    md = [
        f"Each row audits one mechanism on the listed neighbouring pairs with `theory.audit.audit_pairs`: "
        f"events chosen on a selection batch, probabilities estimated on fresh batches of {trials:,} outputs per "
        f"dataset (slow, non-vectorised learners use a stated fraction), one-sided Clopper–Pearson bounds with a "
        f"Bonferroni correction over pairs, events and directions. Every *eps lower bound* is valid with "
        f"probability >= {confidence}; *exact eps on pairs* is the mechanism's true epsilon on those pairs "
        f"(computed from its exact output distribution or in closed form; `-` where not computed; it is the "
        f"epsilon at the claimed delta).",
        "",
        format_table(rows, markdown=True),
        "",
        f"Correct mechanisms: {n_ok}, false alarms: {false_alarms}. Deliberately broken mechanisms: {n_broken}, "
        f"caught: {caught}.",
    ]
    summary = (f"{len(rows)} audits: {n_ok - false_alarms}/{n_ok} correct mechanisms pass, "
               f"{caught}/{n_broken} broken ones caught")
    return Section(title=TITLE, markdown="\n".join(md), summary=summary, ok=not bad)

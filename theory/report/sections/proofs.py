"""Report section: the machine-checked proof steps (``proofs_checks``), as a verdict summary.

The full report runs every registered check (deterministic: fixed seeds) and writes the full per-check
report next to the main report.  Quick mode re-checks the committed certificate documents instead
(:func:`semiprivate.proofs_checks.report.quick_outcomes`): a document whose recorded sources are the files as
they are now is re-verified by the independent checker (every certificate, the chain, the counterexample search
and the verdict it supports); every other check -- an edited theorem constant, framework or bound function --
runs again.  Both show the verdict table with the counterexamples of every FAILS verdict.
"""

from __future__ import annotations

from semiprivate.theory.report import ReportContext, Section

TITLE = "Machine-checked proofs"
ORDER = 60


def _cell(text: str, n: int = 160) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= n else text[: n - 3] + "..."


def build(ctx: ReportContext) -> Section:
    """Run the proofs_checks registry (quick: re-check the current committed documents) and summarise the verdicts."""
    from semiprivate.proofs_checks import Verdict, render_markdown, run_all
    from semiprivate.proofs_checks.report import QuickOutcome, quick_outcomes

    files = []
    if ctx.quick:
        outs: list[QuickOutcome] = quick_outcomes()
        rerun = [o for o in outs if o.how == "run"]
        how = (f"Quick mode: {len(outs) - len(rerun)} checks re-checked from their committed certificate documents "
               "(the files that computed each are unchanged; the independent checker re-established every "
               "certificate, proof chain and counterexample search, and the verdict each document supports), "
               f"{len(rerun)} run again"
               + (" (" + "; ".join(f"{o.id}: {o.why}" for o in rerun[:5]) + ("; ..." if len(rerun) > 5 else "") + ")"
                  if rerun else "")
               + ". The full report runs every check and writes the per-check details.")
    else:
        full_outs = run_all()
        outs = [QuickOutcome(o.id, "run", o.verdict, o.check.claim if o.check else "", o.check.method if o.check else "",
                             o.check.counterexample if o.check else None, o.check.corrected if o.check else None,
                             o.error) for o in full_outs]
        full = ctx.path("proofs_checks_report.md")
        full.write_text(render_markdown(full_outs), encoding="utf-8")
        files.append(full)
        how = f"Full details: `{full.name}` (also `proofs_checks/REPORT.md` in the source tree)."
    counts = {v: sum(1 for o in outs if o.verdict is v) for v in Verdict}
    errors = [o for o in outs if o.error is not None]
    unexpected = [o for o in outs if not o.as_expected]
    tally = ", ".join(f"**{counts[v]} {v.value}**" for v in Verdict)
    lines = [
        f"{len(outs)} checks of the papers' steps (HPSY, ABM19, BNS15, PILLAR): {tally}"
        + (f", **{len(errors)} ERRORS**" if errors else "") + ". A HOLDS verdict is a formally stated claim whose chain "
        "of certified steps the independent checker closes (HOLDS GIVEN: with cited results, listed); UNPROVED: no "
        f"closed chain. {how}",
        "",
        "| id | claim | method | verdict |",
        "|---|---|---|---|",
    ]
    for o in outs:
        if o.verdict is None:
            lines.append(f"| {o.id} | (error: {_cell(o.error or '', 300)}) | | **ERROR** |")
        else:
            lines.append(f"| {o.id} | {_cell(o.claim)} | {o.method} | **{o.verdict.value}** |")
    fails = [o for o in outs if o.verdict is Verdict.FAILS]
    if fails:
        lines += ["", "Steps that do not hold as written:", ""]
        for o in fails:
            fix = f" Corrected: {_cell(o.corrected, 400)}" if o.corrected else ""
            lines.append(f"- **{o.id}**: {_cell(o.counterexample or '', 400)}{fix}")
    if unexpected:
        lines += ["", "Checks whose verdict differs from the recorded expectation: "
                  + ", ".join(o.id for o in unexpected)]
    summary = (f"{len(outs)} checks: " + ", ".join(f"{counts[v]} {v.value}" for v in Verdict)
               + (f", {len(errors)} errors" if errors else ""))
    if ctx.quick:
        summary += (f" (quick: {len(outs) - len(rerun)} re-checked from the committed certificates by the independent "
                    f"checker, {len(rerun)} run again)")
    return Section(title=TITLE, markdown="\n".join(lines), files=files, summary=summary, ok=not unexpected)

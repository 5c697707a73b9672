"""Report section: the machine-checked proof steps (``proofs_checks``), as a verdict summary.

Runs every registered check (deterministic: fixed seeds; about 10 s, the same in quick and full
mode), writes the full per-check report next to the main report, and shows the verdict table
with the counterexamples of every FAILS verdict.
"""

from __future__ import annotations

from semiprivate.theory.report import ReportContext, Section

TITLE = "Machine-checked proofs"
ORDER = 60


def _cell(text: str, n: int = 160) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= n else text[: n - 3] + "..."


def build(ctx: ReportContext) -> Section:
    """Run the proofs_checks registry and summarise the verdicts."""
    from semiprivate.proofs_checks import Verdict, render_markdown, run_all

    outs = run_all()
    counts = {v: sum(1 for o in outs if o.verdict is v) for v in Verdict}
    errors = [o for o in outs if o.error is not None]
    unexpected = [o for o in outs if not o.as_expected]
    full = ctx.path("proofs_checks_report.md")
    full.write_text(render_markdown(outs), encoding="utf-8")
    tally = ", ".join(f"**{counts[v]} {v.value}**" for v in Verdict)
    lines = [
        f"{len(outs)} checks of the papers' steps (HPSY, ABM19, BNS15, PILLAR): {tally}"
        + (f", **{len(errors)} ERRORS**" if errors else "") + ". A HOLDS verdict is a formally stated claim whose chain "
        "of certified steps the independent checker closes (HOLDS GIVEN: with cited results, listed); UNPROVED: no "
        f"closed chain. Full details: `{full.name}` (also `proofs_checks/REPORT.md` in the source tree).",
        "",
        "| id | claim | method | verdict |",
        "|---|---|---|---|",
    ]
    for o in outs:
        if o.check is None:
            lines.append(f"| {o.id} | (error) | | **ERROR** |")
        else:
            lines.append(f"| {o.id} | {_cell(o.check.claim)} | {o.check.method} | **{o.check.verdict.value}** |")
    fails = [o for o in outs if o.check is not None and o.check.verdict is Verdict.FAILS]
    if fails:
        lines += ["", "Steps that do not hold as written:", ""]
        for o in fails:
            c = o.check
            assert c is not None
            fix = f" Corrected: {_cell(c.corrected, 400)}" if c.corrected else ""
            lines.append(f"- **{c.id}**: {_cell(c.counterexample or '', 400)}{fix}")
    if unexpected:
        lines += ["", "Checks whose verdict differs from the recorded expectation: "
                  + ", ".join(o.id for o in unexpected)]
    summary = (f"{len(outs)} checks: " + ", ".join(f"{counts[v]} {v.value}" for v in Verdict)
               + (f", {len(errors)} errors" if errors else ""))
    return Section(title=TITLE, markdown="\n".join(lines), files=[full], summary=summary, ok=not unexpected)

"""Report section: every learner's declared privacy model and its end-to-end check on a tiny case.

One table: learner, privacy model (the neighbour relation of its ``privacy_``), method (exact
enumeration of the whole fitted state, a statistical audit of it, or the coin-free remainder plus
a statistical audit of the DP-SGD noise in ``coef_`` for the private halfspace learners),
the worst epsilon and delta found, the claimed ``privacy_`` and whether it holds; from
:mod:`semiprivate.theory.learner_checks`.  ``quick`` skips the slow (statistical) checks.
"""

from __future__ import annotations

import math

from semiprivate.theory.learner_checks import EXTRA, REGISTRY
from semiprivate.theory.report import ReportContext, Section

TITLE = "Privacy models and end-to-end checks of the learners"
ORDER = 55


def _fmt(v: float) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "-"
    return "inf" if v == math.inf else f"{v:.4g}"


def build(ctx: ReportContext) -> Section:
    rows = ["| learner | privacy model | method | tiny case | worst epsilon | worst delta at claimed epsilon "
            "| claimed privacy_ | holds |", "|---|---|---|---|---:|---:|---|---|"]
    ok = True
    checks = [(name, c.relation, c.method, c.case, c.run) for name, c in REGISTRY.items()
              if not (ctx.quick and c.slow)]
    if not ctx.quick:  # the other path of a learner and a learner outside its model: the full run shows them
        checks += [(c.name, c.relation, c.method, c.case, c.run) for c in EXTRA]
    skipped = [name for name, c in REGISTRY.items() if ctx.quick and c.slow]
    failed = []
    ratios: list[tuple[float, str]] = []  # worst epsilon / claimed epsilon, per check of a learner in its model
    for name, relation, method, case, run in checks:
        r = run()
        rows.append(f"| {name} | {relation} | {method} | {case} | {_fmt(r.epsilon)} | {_fmt(r.delta)} "
                    f"| ({_fmt(r.claimed[0])}, {_fmt(r.claimed[1])}) | {'yes' if r.holds else 'NO'} |")
        if "not its model" in name:
            continue
        if not r.holds:
            failed.append(name)
        if math.isfinite(r.claimed[0]) and r.claimed[0] > 0 and not math.isnan(r.epsilon):
            ratios.append((r.epsilon / r.claimed[0], name))
    ok = not failed
    body = ("Each learner declares the neighbour relation of its guarantee (``privacy_model_``): "
            "'labelled' (one labelled example replaced by another, the public sample fixed; DP-SGD, Noisy SGD and "
            "PILLAR Alg 2 are all accounted under this replace-one relation) or 'all inputs' (any entry of "
            "any input it reads).  Wrappers that need 'all inputs' (PSSLAsTPAL, SubSampling) refuse a "
            "'labelled' base.  The last row shows why: ASSPP is not private in its public sample.\n\n"
            + "\n".join(rows) + "\n")
    worst = max(ratios) if ratios else None
    summary = (f"{len(checks)} learners checked, " + (f"claims refuted: {', '.join(failed)}" if failed else
               "every worst-case loss within its privacy_")
               + (f"; largest worst epsilon / claimed epsilon {worst[0]:.3f} ({worst[1]})" if worst else ""))
    verdict = "FAIL" if failed else ("NOT SHOWN" if not ratios else "SHOWN")
    if skipped:
        body += (f"\nQuick mode: the statistical checks ({', '.join(skipped)}) and the extra rows run in the full "
                 "report only.\n")
        summary += f"; {len(skipped)} statistical checks only in the full run"
    return Section(TITLE, body, summary=summary, ok=ok, verdict=verdict)

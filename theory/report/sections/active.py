"""Report section: transcript-private active learning (BNS15 Section 5).

Implements: BNS15.Thm5.5, BNS15.Thm5.6, BNS15.Alg4, BNS15.Cl5.7, BNS15.Thm5.8 (experiments).
"""

from __future__ import annotations

import math
import time

import numpy as np
from semiprivate.theory.report import ReportContext, Section, pyplot

TITLE = "Transcript-private active learning (BNS15 Sec 5)"
ORDER = 38

_OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#D55E00", "#0072B2", "#CC79A7"]


def _audits(trials: int, seed: int) -> list[tuple[str, float, bool, bool]]:
    from semiprivate.theory.audit import AuditOptions, audit_pairs, vectorize
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learners.active import BinarySearchThresholdLearner, LabelOracle, SubSampling
    from semiprivate.theory.learners.exponential import GenericPrivateLearner

    T3 = Thresholds(3)

    def mech(make):  # (hypothesis, transcript) outputs, audited as structured labels
        def fn(data, rng):
            X, y = data
            res = make(rng).fit(X, LabelOracle(y))
            return (res.hypothesis, res.transcript)
        return vectorize(fn)

    def klnrs(rng):
        return GenericPrivateLearner(0.1, concept_class=T3, hypotheses=list(range(9)), random_state=rng)

    class _SmallestX(SubSampling):  # broken on purpose: K = the m smallest x of J (depends on the data)
        def _choose_K(self, X, J):
            J = np.sort(J)
            return np.sort(J[np.argsort(X[J], kind="stable")[: self.m]])

    X = np.array([0, 3, 3, 3, 3])
    X2 = np.array([7, 3, 3, 3, 3])
    pair = [((X, (X < 4).astype(int)), (X2, (X2 < 4).astype(int)))]
    rows = []
    # one seed per audited learner (one seed on two releases is refused): children of the section's seed
    for (name, make, eps), audit_seed in zip((
        ("binary search (claim eps = 3)", lambda r: BinarySearchThresholdLearner(T3), 3.0),
        ("SubSampling(KLNRS eps* = 0.1), eps = 2", lambda r: SubSampling(klnrs(r), 2, 1, 2.0, rng=r), 2.0),
        ("broken SubSampling (K = smallest x), eps = 2", lambda r: _SmallestX(klnrs(r), 2, 1, 2.0, rng=r), 2.0),
    ), np.random.SeedSequence(seed).spawn(3)):
        res = audit_pairs(mech(make), pair, epsilon=eps, trials=trials, options=AuditOptions(selection_trials=trials),
                          rng=np.random.default_rng(audit_seed))
        sm = bool(res.witness is not None and res.witness.support_mismatch)
        rows.append((name, res.epsilon_lower_bound, res.violation, sm))
    return rows


def build(ctx: ReportContext) -> Section:
    from semiprivate.theory.bounds.bns15 import bns15_generic_labeled, bns15_thm5_8, bns15_tpal_threshold_lower_bound
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learners.active import BinarySearchThresholdLearner, LabelOracle

    t0 = time.perf_counter()
    beta, eps = 0.1, 0.1
    alphas = [0.1, 0.03, 0.01, 0.003, 0.001] if ctx.quick else [0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005]
    reps = 5 if ctx.quick else 30
    rng = np.random.default_rng(ctx.seed)
    T = Thresholds(64)
    bs, lb, pal, tpal, errs = [], [], [], [], []
    for a in alphas:
        t = math.ceil(4 / a * math.log(2 / beta))
        used, err = [], []
        for _ in range(reps):
            X = rng.integers(0, 2**62, size=t)
            thr = int(rng.integers(0, 2**62))
            y = (X < thr).astype(int)
            res = BinarySearchThresholdLearner(T).fit(X, LabelOracle(y))
            used.append(len(res.transcript))
            Xt = rng.integers(0, 2**62, size=2000)
            err.append(float(np.mean(T.evaluate(res.hypothesis, Xt).astype(int) != (Xt < thr))))
        bs.append(float(np.mean(used)))
        errs.append(float(np.quantile(err, 1 - beta)))
        lb.append(bns15_tpal_threshold_lower_bound(a, beta, eps))
        tpal.append(bns15_generic_labeled(1, a, beta, eps))
        pal.append(bns15_thm5_8(1, a, beta, eps, 1)[1])
    audit_rows = _audits(150 if ctx.quick else 3000, ctx.seed)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(alphas, bs, "o-", color=_OKABE_ITO[0], label="binary search (measured, not private)")
    ax.plot(alphas, tpal, "s-", color=_OKABE_ITO[1], label="PSSL as TPAL (Thm 5.5; Thm 3.3 m, constant 1)")
    ax.plot(alphas, pal, "^-", color=_OKABE_ITO[2], label="SubSampling PAL (Thm 5.8 m, constant 1)")
    ax.plot(alphas, [max(v, 0.5) for v in lb], "k--", label="Thm 5.6 lower bound for every TPAL")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("accuracy alpha (error rate)")
    ax.set_ylabel("labels queried (count)")
    ax.set_title(f"THRESH_64, beta = {beta}, eps = {eps}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = ctx.path("active_labels_vs_alpha.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    # SubSampling releases its hypothesis only (BNS15 Cl 5.7 covers the output; its transcript is not returned), so
    # the broken variant's data-dependent K shows only through that hypothesis: its row is reported, not required
    ok = all(e <= a for e, a in zip(errs, alphas)) and audit_rows[0][2] and not audit_rows[1][2]
    md = ["| alpha | binary search labels (mean) | its 90% error quantile | Thm 5.6 TPAL lower bound |",
          "|---|---|---|---|"]
    md += [f"| {a} | {b:.1f} | {e:.4f} | {v} |" for a, b, e, v in zip(alphas, bs, errs, lb)]
    md += ["", "Audit of what each learner returns ((hypothesis, transcript); SubSampling returns its hypothesis "
           "only, the output BNS15 Cl 5.7 covers), one neighbouring pair x_0: 0 -> 7:", "",
           "| learner | epsilon lower bound | violation | support mismatch |", "|---|---|---|---|"]
    md += [f"| {n} | {e:.3f} | {v} | {s} |" for n, e, v, s in audit_rows]
    md += ["", "Binary search uses O(log 1/alpha) labels but its transcript reveals the order of the data; every "
           "TPAL needs Omega(1/alpha) labels (Thm 5.6). SubSampling's transcript is data-independent.", "",
           f"![labels vs alpha]({path.name})"]
    verdict = ["flags" if v else "passes" for _, _, v, _ in audit_rows]
    summary = (f"binary search {bs[-1]:.0f} labels at alpha={alphas[-1]} vs TPAL lower bound {lb[-1]}; audit "
               f"{verdict[0]} binary search, {verdict[1]} SubSampling, {verdict[2]} the broken SubSampling whose "
               f"data-dependent K shows only through its hypothesis ({time.perf_counter() - t0:.0f} s)")
    return Section(title=TITLE, markdown="\n".join(md), files=[path], summary=summary, ok=ok)

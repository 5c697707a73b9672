"""The report: every part of the toolkit run on real inputs, written as markdown + figures.

``python -m semiprivate report [--quick] [--out DIR]`` calls :func:`run_report`.

Sections are plug-ins: each module in :mod:`semiprivate.theory.report.sections` defines

* ``TITLE: str`` and ``ORDER: int`` (position in the report), and
* ``build(ctx: ReportContext) -> Section``.

:data:`PLANNED` lists the sections the toolkit is meant to have; one whose module is not
there yet is reported as "not available yet" instead of silently missing.

``report.md`` starts with a summary: one line per section, SHOWN, NOT SHOWN or FAIL
(:attr:`Section.summary_verdict`), with the claim it checks (:data:`CLAIMS`) and the number the
section measured for it, then a legend (:data:`LEGEND`, the proof verdicts included).  A tqdm bar over the sections shows progress on a
terminal (``progress=``, see :func:`semiprivate.theory.progress.progress_bar`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semiprivate.theory.progress import progress_bar

__all__ = ["ReportContext", "Section", "Report", "PLANNED", "CLAIMS", "LEGEND", "VERDICTS", "run_report",
           "discover_sections", "summary_lines", "legend_lines", "pyplot"]

# module name in semiprivate.theory.report.sections -> (title, what provides it)
PLANNED: dict[str, tuple[str, str]] = {
    "build": ("Build and backends", "foundation"),
    "exponential": ("Exponential-mechanism kernels", "kernels: exponential mechanism"),
    "pca": ("PCA kernels", "kernels: PCA"),
    "covers": ("Concept classes, covers and cover-based learners", "semiprivate.theory.classes / covers / learners"),
    "bounds": ("Bounds of the four papers", "semiprivate.theory.bounds"),
    "halfspaces": ("Halfspaces: PCA on public data + private SGD (HPSY Thm 3, PILLAR)", "semiprivate.theory.learners.halfspaces"),
    "disjunctions": ("Disjunctions via the component graph (HPSY Thm 1/2, Lem 1/2)", "semiprivate.theory.learners.disjunctions"),
    "bns15": ("BNS15: GenericLearner and LabelBoost", "semiprivate.theory.learners.generic / labelboost"),
    "active": ("Transcript-private active learning (BNS15 Sec 5)", "semiprivate.theory.learners.active"),
    "audit": ("Empirical DP audits", "semiprivate.theory.audit"),
    "privacy_models": ("Privacy models and end-to-end checks of the learners", "semiprivate.theory.learner_checks"),
    "proofs": ("Machine-checked proofs", "proofs_checks"),
}

# module name in semiprivate.theory.report.sections -> the claim its summary line checks (a paper's claim,
# or for "build"/"pca"/"audit" the toolkit's own promise), with the number the section measures for it
CLAIMS: dict[str, str] = {
    "build": "the compiled kernels compute what the NumPy reference computes (a compiled sum within 1e-9 of math.fsum)",
    "exponential": "every sampler draws from exp(eps q / 2) and the mechanism is eps-DP (EXPMECH, BNS15 Prop A.1)",
    "pca": "every PCA backend matches the reference decomposition",
    "covers": "ASSPP reaches excess error <= alpha at the Lem 3.3 public sample size (ABM19 Alg 1, Thm 3.1)",
    "bounds": "LabelBoost's privacy chain stays within (eps, 41 delta) (BNS15 Lem 4.6), replayed with exact constants",
    "halfspaces": "PCA on public data + private SGD beats the full dimension at small eps (HPSY Thm 3, PILLAR)",
    "disjunctions": "HPSY Lem 2, Thm 1 and Thm 2 hold as stated (the component graph is connected / the learner is "
                    "within beta at the stated sample sizes)",
    "bns15": "LabelBoost's privacy at the paper's sizes is within (1, 41e-6) (BNS15 Lem 4.6)",
    "active": "the active learner's error is <= alpha and its audits come out as claimed (BNS15 Sec 5)",
    "audit": "every private mechanism passes its audit, every broken one is caught, the auditor is calibrated",
    "privacy_models": "every learner's exact worst-case privacy loss on tiny domains is within its reported privacy_",
    "proofs": "every step of the papers' proofs holds as written (each checked by machine; FAILS: a step that does not)",
}

#: the words of the summary lines and of the proof verdicts, explained under the summary of ``report.md``
LEGEND: tuple[tuple[str, str], ...] = (
    ("SHOWN", "the number measured in this run shows the claim"),
    ("NOT SHOWN", "this run does not establish the claim either way (e.g. nothing to compare, or too few runs)"),
    ("FAIL", "the measured number contradicts the claim, or the section's own check failed (see its text)"),
    ("HOLDS", "proof verdict: the step holds as written"),
    ("HWC", "proof verdict, HOLDS WITH CONDITION: the step holds under a condition the paper leaves implicit"),
    ("HOLDS GIVEN", "proof verdict: the step holds given a cited result that is not re-checked here"),
    ("UNPROVED", "proof verdict: no machine check settles the step either way"),
    ("FAILS", "proof verdict: the step does not hold as written (a counterexample is shown)"),
)

#: CPU seconds a section took in a quick run (2-core Xeon, measured 2026-11-28): the parallel run starts the
#: costliest first, so that the last one to start is a short one
_COST: dict[str, float] = {"audit": 35.0, "proofs": 23.0, "privacy_models": 21.0, "halfspaces": 11.0,
                           "disjunctions": 7.0, "pca": 3.0, "covers": 2.2, "active": 2.0, "bns15": 1.9,
                           "exponential": 1.1}

#: the verdicts a section may give its summary line (``Section.verdict``)
VERDICTS = ("SHOWN", "NOT SHOWN", "FAIL")


def pyplot() -> Any:
    """``matplotlib.pyplot`` with the non-interactive Agg backend (figures are written to files)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@dataclass
class ReportContext:
    """What a section gets: where to write files, how much work to do, a base seed, where to run.

    ``client`` (a ``dask.distributed.Client``, or None to run here) is where :meth:`simulate`
    sends seeded runs; the numbers do not depend on it (``python -m semiprivate report --workers N``).
    """

    out_dir: Path
    quick: bool = False
    seed: int = 20261121
    client: Any = None

    def path(self, name: str) -> Path:
        """A file path inside the output directory (created on demand)."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        return self.out_dir / name

    def simulate(self, fn: Any, seeds: list[Any], desc: str) -> list[Any]:
        """``[fn(numpy.random.default_rng(s)) for s in seeds]`` through
        :func:`semiprivate.theory.distributed.monte_carlo`: a progress bar here, or the runs on ``client``;
        same results either way."""
        from semiprivate.theory.distributed import monte_carlo

        return monte_carlo(fn, seeds=seeds, client=self.client, desc=desc)


@dataclass
class Section:
    """One section's output: markdown body, files it wrote, a short console summary."""

    title: str
    markdown: str
    files: list[Path] = field(default_factory=list)
    summary: str = ""
    seconds: float = 0.0
    ok: bool = True
    #: CPU time of the process that built it (all its threads), to read the wall time against the load
    cpu_seconds: float = 0.0
    #: the summary line's verdict on the claim (:data:`VERDICTS`); "" means "SHOWN" when ``ok``, else "FAIL".
    #: ``ok`` is whether the section ran and its own checks passed (the exit status); ``verdict`` is what its
    #: numbers say about the claim (a paper's claim can FAIL while the section is ok)
    verdict: str = ""

    @property
    def summary_verdict(self) -> str:
        """The verdict the summary line shows: ``verdict``, or SHOWN / FAIL from ``ok``; FAIL whenever not ``ok``."""
        if self.verdict and self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS} or '', got {self.verdict!r}")
        if not self.ok:
            return "FAIL"
        return self.verdict or "SHOWN"


@dataclass
class Report:
    sections: list[Section]
    missing: list[tuple[str, str]]
    path: Path
    names: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.sections)


def discover_sections() -> list[tuple[int, str, object]]:
    """(ORDER, module name, module) of every section module present, sorted."""
    from semiprivate.theory.report import sections as pkg

    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        found.append((int(getattr(mod, "ORDER", 100)), info.name, mod))
    return sorted(found, key=lambda t: (t[0], t[1]))


_PROOF_FAILS = re.compile(r"(\d+) FAILS")


def summary_lines(names: list[str], sections: list[Section]) -> list[str]:
    """The summary at the top of ``report.md``: one markdown bullet per section, in report order.

    Each line: the verdict (:attr:`Section.summary_verdict`: SHOWN, NOT SHOWN or FAIL), the title, the
    claim it checks (:data:`CLAIMS`) and the number the section measured for it (its one-line result).
    The proofs line is FAIL when its result counts a step that FAILS (the papers' claim is that every
    step holds as written).

    >>> summary_lines(["pca"], [Section("PCA kernels", "", summary="subspace distance 0.3", ok=False)])
    ['- **FAIL** PCA kernels -- claim: every PCA backend matches the reference decomposition; measured: subspace distance 0.3']
    """
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise TypeError(f"names must be a list of section names (str), got {type(names).__name__}")
    if not isinstance(sections, (list, tuple)) or not all(isinstance(s, Section) for s in sections):
        raise TypeError(f"sections must be a list of Section, got {type(sections).__name__}")
    if len(names) != len(sections):
        raise ValueError(f"names and sections must have the same length, got {len(names)} and {len(sections)}")
    out = []
    for name, sec in zip(names, sections, strict=True):
        claim = CLAIMS.get(name, "")
        verdict = _line_verdict(name, sec)
        out.append(f"- **{verdict}** {sec.title}" + (f" -- claim: {claim}" if claim else "")
                   + f"; measured: {sec.summary or 'no summary'}")
    return out


def _line_verdict(name: str, sec: Section) -> str:
    verdict = sec.summary_verdict
    if name == "proofs" and verdict == "SHOWN":
        found = _PROOF_FAILS.search(sec.summary)
        if found is None:
            return "NOT SHOWN"  # no count of FAILS verdicts to read the claim from
        if int(found.group(1)) > 0:
            return "FAIL"
    return verdict


def legend_lines() -> list[str]:
    """The legend printed under the summary (:data:`LEGEND`)."""
    return ["Legend: " + "; ".join(f"**{word}** = {meaning}" for word, meaning in LEGEND) + "."]


def _build_one(name: str, ctx: ReportContext) -> Section:
    """Build section ``name`` (a traceback becomes a failed Section), timed; runs in a worker process too."""
    from semiprivate.theory.privacy.seeds import separate_seed_record
    from semiprivate.theory.report import sections as pkg

    mod = importlib.import_module(f"{pkg.__name__}.{name}")
    title = str(getattr(mod, "TITLE", name))
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        # each section is its own experiment on simulated data: its seeds are checked against each other
        # (one seed, one release), not against another section's that happened to run in this process
        with separate_seed_record():
            sec = mod.build(ctx)
    except Exception:
        sec = Section(title=title, markdown="```\n" + traceback.format_exc() + "```\n", summary="FAILED", ok=False)
    sec.seconds = time.perf_counter() - t0
    sec.cpu_seconds = time.process_time() - c0
    return sec


def _time_line(wall: float, sections: list[Section], jobs: int, main_cpu: float = 0.0) -> str:
    import os

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"Time: {wall:.0f} s wall with {jobs} section(s) at a time, {sum(s.cpu_seconds for s in sections):.0f} s "
            f"CPU in the sections (+ {main_cpu:.0f} s in the main process: imports, scheduling, writing), on "
            f"{os.cpu_count()} logical CPUs at a 1-min load average of {load:.1f} "
            "(a loaded machine stretches the wall time, and a little the CPU time).")


def _count_line(names: list[str], sections: list[Section]) -> str:
    verdicts = [_line_verdict(n, s) for n, s in zip(names, sections, strict=True)]
    broken = sum(not s.ok for s in sections)
    return (f"Of {len(sections)} claims, this run shows {verdicts.count('SHOWN')}, does not show "
            f"{verdicts.count('NOT SHOWN')} and finds {verdicts.count('FAIL')} failing"
            + (f" ({broken} of them because the section's own check failed)" if broken else "")
            + ". Each line: the claim, then the number measured for it; details in the section.")


def run_report(out_dir: str | Path = "report_out", *, quick: bool = False, only: list[str] | None = None,
               echo: bool = True, client: Any = None, progress: bool | None = None, jobs: int = 1) -> Report:
    """Build every available section, write ``out_dir/report.md``, return the :class:`Report`.

    ``client``: a ``dask.distributed.Client`` on which the sections' seeded simulations run
    (:meth:`ReportContext.simulate`); None runs them here.  The numbers are the same.
    ``jobs``: without a client, how many sections are built at once in worker processes (1: one after
    the other in this process); the sections are independent and seeded, so the numbers are the same.

    A section that raises is reported with its traceback and makes ``Report.ok`` False
    (the CLI then exits non-zero); the other sections still run.

    Arguments are checked before anything runs or is written: ``out_dir`` a str or path,
    ``quick``/``echo`` bools, ``progress`` None or a bool (None: a bar on a terminal only), ``only`` None or a list of known section names (an unknown name
    is a ValueError listing the known ones; report.md is then left untouched).
    """
    import os

    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"out_dir must be a str or path, got {out_dir!r} ({type(out_dir).__name__})")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    for flag_name, flag in (("quick", quick), ("echo", echo)):
        if not isinstance(flag, bool):
            raise TypeError(f"{flag_name} must be a bool, got {flag!r} ({type(flag).__name__})")
    if only is not None:
        if isinstance(only, (str, bytes)) or not isinstance(only, (list, tuple)) \
                or not all(isinstance(n, str) for n in only):
            raise TypeError(f"only must be None or a list of section names (str), got {only!r}")
        known = [name for _order, name, _mod in discover_sections()]
        unknown = [n for n in only if n not in known]
        if unknown or not only:
            raise ValueError(f"only names unknown section(s) {unknown!r}; known: {', '.join(known)}"
                             if unknown else "only must name at least one section (None runs them all)")
    if client is not None:
        from semiprivate.theory.audit.batches import check_executor

        check_executor(client, "client")
    started, started_cpu = time.perf_counter(), time.process_time()
    ctx = ReportContext(Path(out_dir), quick=quick, client=client)
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    found = discover_sections()
    present = {name for _order, name, _mod in found}
    todo = [(name, mod) for _order, name, mod in found if not only or name in only]
    bar = progress_bar(progress, len(todo), threshold=1, desc="report", unit="section")
    done: dict[str, Section] = {}

    def finished(name: str, sec: Section) -> None:
        done[name] = sec
        bar.update(1)
        if echo:
            line = f"[{sec.seconds:6.1f} s] {_line_verdict(name, sec)} {sec.title}: {sec.summary}"
            if bar.disable:
                print(line, flush=True)
            else:
                bar.write(line, file=sys.stdout)

    if jobs > 1 and client is None and len(todo) > 1:
        # the sections are independent and seeded from ctx.seed: the same numbers in any process, any order;
        # the slowest (by ``COST``) start first
        from concurrent.futures import ProcessPoolExecutor, as_completed

        order = sorted(todo, key=lambda t: -_COST.get(t[0], 1.0))
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            futures = {pool.submit(_build_one, name, ctx): name for name, _mod in order}
            for fut in as_completed(futures):
                finished(futures[fut], fut.result())
    else:
        for name, _mod in todo:
            bar.set_postfix_str(name, refresh=True)
            finished(name, _build_one(name, ctx))
    names = [name for name, _mod in todo]
    sections = [done[name] for name in names]
    bar.close()
    missing = [(PLANNED[n][0], PLANNED[n][1]) for n in PLANNED if n not in present]

    lines = ["# semiprivate report", "",
             f"Mode: {'quick' if quick else 'full'}. Base seed: {ctx.seed}. "
             "Every number below was computed by this run.", "",
             _time_line(time.perf_counter() - started, sections, jobs if client is None else 1,
                        time.process_time() - started_cpu - (0.0 if jobs > 1 and client is None and len(todo) > 1
                                                             else sum(s.cpu_seconds for s in sections))), "",
             "## Summary", "",
             _count_line(names, sections), "",
             *summary_lines(names, sections), "", *legend_lines(), ""]
    for sec in sections:
        lines += [f"## {sec.title}", "", sec.markdown.rstrip(), "",
                  f"_Section time: {sec.seconds:.1f} s wall, {sec.cpu_seconds:.1f} s CPU._", ""]
    if missing:
        lines += ["## Not available yet", ""]
        lines += [f"- {title} ({what}): not in this version yet." for title, what in missing]
        lines.append("")
    path = ctx.path("report.md")
    path.write_text("\n".join(lines))
    if echo:
        for title, what in missing:
            print(f"[  n/a  ] {title} ({what}): not available yet", flush=True)
        print(f"report written to {path}", flush=True)
    return Report(sections=sections, missing=missing, path=path, names=names)

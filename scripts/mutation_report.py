#!/usr/bin/env python
"""Mutation-testing report and equivalent-mutant keys (used by scripts/mutation.sh).

    python scripts/mutation_report.py report --work DIR --out docs/reports/mutation.md \
        --equivalents docs/reports/mutation_equivalent.txt MODULE.py ...
    python scripts/mutation_report.py rekey --work DIR --equivalents docs/reports/mutation_equivalent.txt

``report`` reads mutmut's results of each module's work directory (``results.txt``, ``diffs.json``,
``stamp``, ...; written by ``scripts/mutation.sh run``) and writes the per-module and overall score.
A module without a work directory keeps its row and section from the previous report, marked
'earlier run'.

Equivalent mutants are keyed by a stable description, not by mutmut's number (which changes on
every edit of the module): one line per mutant, tab-separated::

    MODULE<TAB>FUNCTION<TAB>ORIGINAL LINE<TAB>MUTATED LINE<TAB>REASON

(``MODULE`` as in the report, e.g. ``theory/covers.py``; ``FUNCTION`` the mutated function,
``Class.method`` for methods; the two lines stripped of surrounding blanks, as the mutant's diff
shows them).  A surviving mutant is equivalent when a line matches its module, function and diff.
Lines of the older form ``NAME: REASON`` (a mutmut name such as
``theory.covers.x__cover_check__mutmut_69``) are still read by name; ``rekey`` rewrites each of
them to the stable form using the diffs of the work directories, and keeps the ones whose diff
is not available (with the count on stdout).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import platform
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

_NAME = re.compile(r"^(?P<mod>[\w.]+)\.x(?:ǁ(?P<cls>\w+)ǁ|_)(?P<fn>\w+?)__mutmut_\d+$")


def function_of(name: str) -> str:
    """The mutated function of a mutmut name: ``theory.covers.x__cover_check__mutmut_69`` ->
    ``_cover_check``; ``...xǁCoverǁ__init____mutmut_3`` -> ``Cover.__init__``."""
    m = _NAME.match(name)
    if m is None:
        raise ValueError(f"not a mutmut mutant name: {name!r}")
    return f"{m['cls']}.{m['fn']}" if m["cls"] else m["fn"]


def mangled(function: str) -> str:
    """mutmut's name of a function (``f`` -> ``x_f``) or method (``Cls.m`` -> ``xǁClsǁm``)."""
    cls, _, meth = function.rpartition(".")
    return f"xǁ{cls}ǁ{meth}" if cls else f"x_{function}"


def changed_lines(diff: str) -> tuple[str, str]:
    """(original, mutated) line of a mutant's unified diff, stripped; several changed lines are
    joined with `` / ``."""
    minus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    plus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return " / ".join(minus), " / ".join(plus)


@dataclass
class Equivalents:
    """The equivalent-mutant list: stable keys (module, function, original, mutated) and older
    numbered names, each with its reason."""

    stable: dict[tuple[str, str, str, str], str] = field(default_factory=dict)
    by_name: dict[str, str] = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> Equivalents:
        eq = cls()
        for ln in path.read_text().splitlines() if path.exists() else []:
            if not ln.strip():
                continue
            if ln.startswith("#"):
                eq.comments.append(ln)
                continue
            parts = ln.split("\t")
            if len(parts) == 5:
                eq.stable[(parts[0], parts[1], parts[2], parts[3])] = parts[4]
            elif ":" in ln:
                k, v = ln.split(":", 1)
                eq.by_name[k.strip()] = v.strip()
        return eq

    def reason(self, module: str, name: str, diff: str | None) -> str | None:
        """Why the surviving mutant ``name`` of ``module`` is equivalent, or None (it counts)."""
        if diff is not None:
            key = (module, function_of(name), *changed_lines(diff))
            if key in self.stable:
                return self.stable[key]
        # the export lays folders out under the import name: mutmut names start "semiprivate."; older
        # numbered entries were written without it
        return self.by_name.get(name) or self.by_name.get(name.removeprefix("semiprivate."))

    def write(self, path: Path) -> None:
        rows = [*self.comments]
        rows += ["\t".join((*k, v)) for k, v in sorted(self.stable.items())]
        rows += [f"{k}: {v}" for k, v in sorted(self.by_name.items())]
        path.write_text("\n".join(rows) + "\n")


def work_dirs(work: Path) -> dict[str, Path]:
    """Module (as in the report) -> its work directory, for those with results."""
    if not work.is_dir():
        return {}
    return {(d / "module").read_text().strip(): d for d in sorted(work.iterdir())
            if (d / "module").exists() and (d / "results.txt").exists()}


def rekey(work: Path, eq_path: Path) -> int:
    """Rewrite the numbered entries of ``eq_path`` to stable keys where a work directory has the
    mutant's diff; print how many were converted and how many stay numbered."""
    eq = Equivalents.read(eq_path)
    diffs: dict[str, tuple[str, str]] = {}
    for module, d in work_dirs(work).items():
        if (d / "diffs.json").exists():
            for n, diff in json.loads((d / "diffs.json").read_text()).items():
                diffs[n] = (module.split(" [")[0], diff)
    converted = 0
    for name in list(eq.by_name):
        full = name if name in diffs else f"semiprivate.{name}"
        if full in diffs:
            module, diff = diffs[full]
            eq.stable[(module, function_of(name), *changed_lines(diff))] = eq.by_name.pop(name)
            converted += 1
    eq.write(eq_path)
    print(f"{converted} equivalent mutants re-keyed by description, {len(eq.by_name)} still keyed by number "
          f"(no diff in {work}: rerun their modules with scripts/mutation.sh run, then rekey)")
    return 0


def report(work: Path, out: Path, default: list[str], eq_path: Path) -> int:
    """Write the report ``out`` from the work directories (see the module docstring)."""
    eq = Equivalents.read(eq_path)
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor()
    mods = work_dirs(work)
    # a module with no work directory here keeps its row and section from the previous report,
    # marked as an earlier run (its own date and HEAD stay in the row); it is not rerun or recounted
    prev_rows, prev_secs = {}, {}
    if out.exists():
        cur = None
        for ln in out.read_text().splitlines():
            r = re.match(r"\| `([^`]+)` \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ", ln)
            if r:
                prev_rows[r.group(1)] = ln
            h = re.match(r"## `([^`]+)`", ln)
            if h:
                cur = h.group(1)
                prev_secs[cur] = []
            if cur is not None:
                prev_secs[cur].append(ln)
    # function rows ('MODULE [f, g]', MUTATION_FUNCTIONS) supersede their functions in the module's own row:
    # the module row's surviving and equivalent mutants of those functions are dropped from it (the
    # function row counts them as they are now); its killed count still includes their earlier kills
    superseded: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
    for key, d in mods.items():
        if (d / "functions").exists():
            for f in (d / "functions").read_text().strip().split(","):
                superseded[key.split(" [")[0]].append((f.strip(), key))
    for key in prev_rows:
        if " [" in key and key not in mods:
            for f in key.split(" [", 1)[1].rstrip("]").split(","):
                superseded[key.split(" [")[0]].append((f.strip(), key))


    def _superseding(m: str, name: str) -> str | None:
        short = name.split(".")[-1]
        return next((k for f, k in superseded.get(m, []) if short.startswith(f"{mangled(f)}__mutmut_")), None)


    carried = collections.Counter()
    table, sections, tot = [], [], collections.Counter()
    for m in list(default) + sorted((set(mods) | set(prev_rows)) - set(default)):
        if m not in mods:
            if m in prev_rows:
                row = prev_rows[m]
                cells = [c.strip() for c in row.strip("|").split("|")]
                if "earlier run" not in cells[6]:
                    cells[6] += " (earlier run)"
                sec = prev_secs.get(m, [f"## `{m}`", ""])
                if sec and "(earlier run" not in sec[0]:
                    sec = [sec[0] + " (earlier run, kept from the previous report)"] + sec[1:]
                # drop the survivors / equivalents of functions that a function row re-ran
                kept, drop_live, drop_eq, skipping, moved = [], 0, 0, False, []
                for ln in sec:
                    h = re.match(r"### `([^`]+)`", ln)
                    e = re.match(r"- `([^`]+)`: ", ln)
                    if h:
                        skipping = _superseding(m, h.group(1)) is not None
                        if skipping:
                            drop_live += 1
                            moved.append(h.group(1))
                    elif ln.startswith("## ") or ln.startswith("Equivalent") or ln.startswith("Surviving"):
                        skipping = False
                    if e and _superseding(m, e.group(1)) is not None:
                        drop_eq += 1
                        continue
                    if not skipping:
                        kept.append(ln)
                if drop_live or drop_eq:
                    cells[3] = str(int(cells[3]) - drop_live)
                    cells[4] = str(int(cells[4]) - drop_eq)
                    kk, ll = int(cells[2]), int(cells[3])
                    cells[6] = re.sub(r"\*\*[\d.]+%\*\*", f"**{100.0 * kk / (kk + ll):.1f}%**", cells[6])
                    sups = sorted({k for f, k in superseded[m]})
                    kept += ["", f"Superseded by {', '.join(f'`{k}`' for k in sups)}: {drop_live} surviving and "
                             f"{drop_eq} equivalent mutants of those functions dropped from this row (its killed count "
                             "still includes their earlier kills)." , ""]
                    sec = kept
                table.append("| " + " | ".join(cells) + " |")
                nc = re.search(r"not checked (\d+)", cells[5])
                carried.update(killed=int(cells[2]), live=int(cells[3]), equiv=int(cells[4]), total=int(cells[1]),
                               notchecked=int(nc.group(1)) if nc else 0)
                sections += sec
            else:
                table.append(f"| `{m}` | not run | | | | | | |")
            continue
        d = mods[m]
        rows = []
        funcs = (d / "functions").read_text().split(",") if (d / "functions").exists() else None
        for line in (d / "results.txt").read_text().splitlines():
            r = re.match(r"\s*([\w.]+__mutmut_\d+):\s*(.+)$", line)
            if r and (funcs is None or any(r.group(1).split(".")[-1].startswith(f"{mangled(f.strip())}__mutmut_")
                                           for f in funcs)):
                rows.append((r.group(1), r.group(2).strip()))
        st = collections.Counter(s for _, s in rows)
        surv = [n for n, s in rows if s == "survived"]
        diffs = json.loads((d / "diffs.json").read_text()) if (d / "diffs.json").exists() else {}
        reasons = {n: eq.reason(m.split(" [")[0], n, diffs.get(n)) for n in surv}
        equiv = [n for n in surv if reasons[n] is not None]
        live = [n for n in surv if reasons[n] is None]
        killed = st.get("killed", 0)
        other = {s: c for s, c in st.items() if s not in ("killed", "survived")}
        denom = killed + len(live)
        score = 100.0 * killed / denom if denom else float("nan")
        partial = st.get("not checked", 0) > 0
        if rows and st.get("not checked", 0) == len(rows):
            stamp = (d / "stamp").read_text().strip() if (d / "stamp").exists() else "?"
            table.append(f"| `{m}` | {len(rows)} | | | | not checked {len(rows)} | no result kept | {stamp} |")
            continue
        tot.update(killed=killed, live=len(live), equiv=len(equiv), total=len(rows), notchecked=st.get("not checked", 0))
        stamp = (d / "stamp").read_text().strip() if (d / "stamp").exists() else "?"
        el = (d / "elapsed").read_text().strip() if (d / "elapsed").exists() else "?"
        # the timeout settings of the run (a directory from before they were recorded: mutmut's 1 s and 3.0)
        tm = (d / "timeout_multiplier").read_text().split() if (d / "timeout_multiplier").exists() else []
        tmult, tconst = (tm + ["3.0"])[0], (tm[1:] + ["1.0"])[0]
        el = f"{el} s, timeout ({tconst} s + clean time) x {tmult}"
        if len(tm) >= 5 and tm[2] == "recheck":
            el += f" (recheck: ({tm[4]} s + clean time) x {tm[3]})"
        table.append(f"| `{m}` | {len(rows)} | {killed} | {len(live)} | {len(equiv)} | "
                     + (", ".join(f"{s} {c}" for s, c in sorted(other.items())) or "-")
                     + f" | **{score:.1f}%**{' (partial)' if partial else ''} | {stamp}, {el} |")
        sec = [f"## `{m}`", ""]
        if equiv:
            sec += ["Equivalent (surviving, with reason):", ""] + [f"- `{n}`: {reasons[n]}" for n in equiv] + [""]
        sec += ["Surviving mutants:", ""]
        if not live:
            sec += ["None.", ""]
        for n in live:
            sec += [f"### `{n}`", "", "```diff", diffs.get(n, "(diff not recorded)"), "```", ""]
        sections += sec
    k, lv = tot["killed"], tot["live"]
    overall = 100.0 * k / (k + lv) if k + lv else float("nan")
    ak, al = k + carried["killed"], lv + carried["live"]
    with_earlier = 100.0 * ak / (ak + al) if ak + al else float("nan")
    lines = [
        "<!-- GENERATED by scripts/mutation_report.py (scripts/mutation.sh report): do not edit by hand (equivalences: docs/reports/mutation_equivalent.txt). -->",
        "# Mutation testing (mutmut)",
        "",
        f"Report {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; runs on {cpu}, mutmut over HEAD "
        "(`git archive`), one module at a time with its own test selection (scripts/mutation.sh TESTS; slow/GPU tests excluded).",
        "Score = killed / (killed + surviving non-equivalent); equivalents listed with a reason in "
        "docs/reports/mutation_equivalent.txt; 'not checked' (run stopped), 'timeout', 'no tests' counted apart.",
        "mutmut 3 does not mutate decorated functions (`@validate_params`, `@property`, ...): scripts/mutation.sh rewrites "
        "each decorated definition of the module as `def f` + `f = dec(f)` in its export (scripts/mutation_undecorate.py), "
        "so validated functions, constructors and properties are mutated under their decorators.  Rows run before "
        "2026-11-26T19:00Z are from before that step: they mutated undecorated `_name` twins of the validated functions "
        "(since folded into them) and left decorated bodies out.",
        "A row `MODULE [functions]` is a run over those functions only (MUTATION_FUNCTIONS), after they changed "
        "since the module's own row: for them it supersedes that row.",
        "",
        "| module | mutants | killed | surviving | equivalent | other | score | run (UTC, HEAD), time |",
        "|---|---|---|---|---|---|---|---|",
        *table,
        "",
        f"**Overall (modules run): {overall:.1f}%** ({k} killed, {lv} surviving non-equivalent, {tot['equiv']} equivalent, "
        f"{tot['notchecked']} not checked, of {tot['total']} mutants).",
        *([f"With the rows marked (earlier run), kept from the previous report and not rerun here: **{with_earlier:.1f}%** "
           f"({ak} killed, {al} surviving non-equivalent, {tot['equiv'] + carried['equiv']} equivalent, "
           f"{tot['notchecked'] + carried['notchecked']} not checked, of {tot['total'] + carried['total']} mutants)."]
          if carried["total"] else []),
        "",
        *sections,
    ]
    out.write_text("\n".join(lines) + "\n")
    print(f"overall {overall:.1f}% ({k} killed, {lv} surviving, {tot['equiv']} equivalent); wrote {out}")
    for row in table:
        print(row)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report", help="write the report")
    r.add_argument("--work", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--equivalents", type=Path, required=True)
    r.add_argument("modules", nargs="*")
    k = sub.add_parser("rekey", help="numbered equivalents -> stable keys, where the diffs are available")
    k.add_argument("--work", type=Path, required=True)
    k.add_argument("--equivalents", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "report":
        return report(args.work, args.out, args.modules, args.equivalents)
    return rekey(args.work, args.equivalents)


if __name__ == "__main__":
    sys.exit(main())

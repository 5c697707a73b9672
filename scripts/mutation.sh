#!/usr/bin/env bash
# Mutation testing of the privacy-critical modules with mutmut 3 (not part of CI's default run).
#
# Usage:
#   scripts/mutation.sh run MODULE.py ...      mutate each module in its own fresh export (one at a time)
#   scripts/mutation.sh recheck MODULE.py ...  rerun only the surviving / unchecked / untested mutants of each module
#                                              against the tests of the current HEAD (after adding kill tests)
#   scripts/mutation.sh report [OUT.md]        write the per-module and overall score (default tests/MUTATION.md)
#                                              (a module with no work directory keeps its row and section from
#                                              the previous OUT.md, marked 'earlier run', with its own date and HEAD)
#   scripts/mutation.sh [OUT.md] [MODULE.py ...]   run, then report (MODULES default: the core listed below)
# Env: PYTHON (default .venv/bin/python), MUTATION_WORKDIR (default /tmp/semiprivate-mutation; one
#      sub-directory per module, kept between invocations so `report` and `recheck` can read it),
#      MUTATION_CHILDREN (parallel mutants, default 1), MUTATION_TIMEOUT (seconds per module, default
#      none; a module stopped by it keeps its 'not checked' mutants and is reported as partial),
#      MUTATION_ONLY (recheck: only the mutants whose names match this extended regex, e.g. a function),
#      MUTATION_FUNCTIONS (run / recheck: only the mutants of these top-level functions of the module, comma-
#      separated, e.g. _audit_pairs,_audit_mechanism; their own work directory and their own report row
#      'MODULE [functions]', next to the module's row: for a change to a few functions of a module whose
#      full run takes an hour).
#      MUTATION_TIMEOUT_MULTIPLIER, MUTATION_TIMEOUT_CONSTANT (MULT and CONST below, defaults 3.0 and 5 s).
# A mutant whose tests use more than 2 x MULT x (their clean time + CONST) CPU seconds, or run longer than
# MULT x (their clean time + CONST) wall-clock seconds (mutmut >= 3.8's fork server), is a 'timeout' (an
# endless loop, e.g. in the exact sampler's refinement; mutmut's default factor 15 let one such mutant hold a
# run for minutes).  The clean time counts only the tests' calls, not their collection and fixtures, and the
# wall bound runs on a machine shared by MUTATION_CHILDREN mutants: with CONST = 1 s (mutmut's default) a
# module whose tests take 3.6 s got 14 s and timed out without any loop (kernels/_exponential.py).
#
# The working tree is never touched: the committed HEAD is exported with `git archive` into the
# module's work directory (plus the built extension modules, which git does not track) and mutmut
# runs there (mutmut 3 mutates a mutants/ copy of that export).  Uncommitted changes are not tested.
# Each module runs with its own small test selection (TESTS below; slow and GPU tests excluded,
# pytest -x), so a module's score says how well *those* tests pin the module down.
# Score = killed / (killed + surviving mutants not listed in tests/mutation_equivalent.txt).
# Needs mutmut >= 3 in the environment (pip install mutmut, or the project's dev extra).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="${MUTATION_WORKDIR:-/tmp/semiprivate-mutation}"
CHILDREN="${MUTATION_CHILDREN:-1}"
MTIMEOUT="${MUTATION_TIMEOUT:-0}"
ONLY="${MUTATION_ONLY:-.}"
FUNCS="${MUTATION_FUNCTIONS:-}"
TMULT="${MUTATION_TIMEOUT_MULTIPLIER:-3.0}"
TCONST="${MUTATION_TIMEOUT_CONSTANT:-5.0}"
for v in MUTATION_TIMEOUT_MULTIPLIER:"$TMULT" MUTATION_TIMEOUT_CONSTANT:"$TCONST"; do
  [[ "${v#*:}" =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! "${v#*:}" =~ ^0+(\.0+)?$ ]] \
    || { echo "${v%%:*} must be a number > 0, got '${v#*:}'" >&2; exit 2; }
done
DEFAULT_MODULES=(theory/privacy/exponential.py kernels/_reference.py kernels/_exponential.py theory/learners/asspp.py
                 theory/learners/exponential.py theory/learners/reduction.py theory/covers.py
                 theory/classes/integer.py theory/privacy/mechanisms.py theory/privacy/sanitizers.py
                 theory/audit/stats.py theory/audit/core.py theory/privacy/sgd.py
                 theory/learners/generic.py theory/learners/labelboost.py theory/learners/active.py
                 theory/learners/disjunctions.py theory/learners/halfspaces.py)

# tests that pin each module down (mutmut maps tests to functions and runs only those that reach a mutant;
# fast deterministic files first: with pytest -x a failing property-based test can shrink past the timeout)
declare -A TESTS=(
  [theory/privacy/exponential.py]="tests/theory/privacy/test_exponential.py tests/mutation_kills/test_privacy_exponential_kills.py"
  [theory/audit/stats.py]="tests/theory/audit/test_stats_exact.py tests/theory/audit/test_stats_boundaries.py tests/mutation_kills/test_audit_stats_kills.py"
  [kernels/_reference.py]="tests/kernels/test_exponential.py tests/kernels/test_exponential_stats.py tests/mutation_kills/test_kernels_reference_kills.py"
  [kernels/_exponential.py]="tests/mutation_kills/test_kernels_exponential_kills.py tests/kernels/test_exponential.py tests/kernels/test_validation.py tests/kernels/test_exponential_stats.py"
  [theory/learners/asspp.py]="tests/theory/learners/test_learners.py tests/mutation_kills/test_learners_asspp_kills.py"
  [theory/learners/exponential.py]="tests/theory/learners/test_learners.py tests/mutation_kills/test_learners_exponential_kills.py"
  [theory/learners/reduction.py]="tests/theory/learners/test_learners.py tests/mutation_kills/test_learners_reduction_kills.py"
  [theory/privacy/mechanisms.py]="tests/theory/privacy/test_mechanisms.py tests/mutation_kills/test_privacy_mechanisms_kills.py"
  [theory/privacy/sanitizers.py]="tests/theory/privacy/test_sanitizers.py tests/mutation_kills/test_privacy_sanitizers_kills.py"
  [theory/covers.py]="tests/mutation_kills/test_covers_kills.py tests/theory/test_covers.py tests/theory/classes/test_classes.py"
  [theory/classes/integer.py]="tests/mutation_kills/test_classes_integer_kills.py tests/theory/classes/test_classes.py"
  [theory/privacy/sgd.py]="tests/theory/privacy/test_sgd.py tests/mutation_kills/test_privacy_sgd_kills.py tests/theory/learners/test_halfspaces.py"
  [theory/learners/generic.py]="tests/theory/learners/test_generic.py tests/mutation_kills/test_learners_generic_kills.py"
  [theory/learners/labelboost.py]="tests/theory/learners/test_labelboost.py tests/mutation_kills/test_learners_labelboost_kills.py"
  [theory/learners/active.py]="tests/theory/learners/test_active.py tests/mutation_kills/test_learners_active_kills.py"
  [theory/learners/disjunctions.py]="tests/theory/learners/test_disjunctions.py tests/mutation_kills/test_learners_disjunctions_kills.py"
  [theory/learners/halfspaces.py]="tests/theory/learners/test_halfspaces.py tests/mutation_kills/test_learners_halfspaces_kills.py"
  [theory/audit/core.py]="tests/mutation_kills/test_audit_core_kills.py tests/theory/audit/test_audit.py tests/theory/audit/test_audit_power.py"
)

slug() { echo "${1//\//_}" | sed 's/\.py$//'; }
# the work directory of a module (of some of its functions with MUTATION_FUNCTIONS)
workdir() { if [ -n "$FUNCS" ]; then echo "$WORK/$(slug "$1")__fn_${FUNCS//,/_}"; else echo "$WORK/$(slug "$1")"; fi; }
# the mutant names of MUTATION_FUNCTIONS as an extended regex (any name without it)
fnregex() { if [ -n "$FUNCS" ]; then echo "\.x_(${FUNCS//,/|})__mutmut_[0-9]+$"; else echo "."; fi; }
# mutmut's name patterns for MUTATION_FUNCTIONS (none: every mutant of the module)
patterns() { local f dotted; dotted="$(echo "${1%.py}" | tr / .)"; for f in ${FUNCS//,/ }; do echo "$dotted.x_${f}__mutmut_*"; done; }
die() { echo "$*" >&2; exit 2; }

"$PY" -c "import mutmut" 2>/dev/null || die "mutmut is not installed: $PY -m pip install mutmut"
MUTMUT="$(dirname "$PY")/mutmut"

# the [tool.mutmut] section for one module; test files that do not exist at HEAD are left out
write_config() {  # dir module [recheck]
  local dir="$1" m="$2" t x sel=()
  t="${TESTS[$m]:-}"
  [ -n "$t" ] || die "no test selection for $m: add it to TESTS in $0"
  for x in $t; do [ -e "$dir/$x" ] && sel+=("\"$x\""); done
  [ "${#sel[@]}" -gt 0 ] || die "none of the tests of $m exist at HEAD: $t"
  local IFS=,
  # drop a previous [tool.mutmut] section (recheck), then append the current one
  "$PY" - "$dir/pyproject.toml" <<'PYEOF'
import sys, re
p = sys.argv[1]; s = open(p).read()
s = re.sub(r"\n\[tool\.mutmut\]\n(?:(?!\n\[).)*", "\n", s, flags=re.S)
open(p, "w").write(s)
PYEOF
  # the run's timeout settings; a recheck with other settings is noted after them (the report shows both)
  if [ "${3:-}" = recheck ]; then
    local om="" oc=""  # a work directory from before the settings were recorded ran with mutmut's 3.0 and 1 s
    [ ! -f "$dir/timeout_multiplier" ] || read -r om oc _ < "$dir/timeout_multiplier" || true
    om="${om:-3.0}"; oc="${oc:-1.0}"
    [ "$om $oc" = "$TMULT $TCONST" ] || echo "$om $oc recheck $TMULT $TCONST" > "$dir/timeout_multiplier"
  else
    echo "$TMULT $TCONST" > "$dir/timeout_multiplier"
  fi
  cat >> "$dir/pyproject.toml" <<EOF

[tool.mutmut]
source_paths = ["theory", "kernels"]
only_mutate = ["$m"]
also_copy = ["conftest.py", "proofs_checks", "benchmarks"]
timeout_multiplier = $TMULT
timeout_constant = $TCONST
pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not slow and not gpu", "-q", "-o", "addopts=-ra --strict-markers --import-mode=importlib"]
pytest_add_cli_args_test_selection = [${sel[*]}]
EOF
}

export_head() {  # dir [subtree]  (records the exported commit for the report's stamp)
  local head
  head=$(git -C "$ROOT" rev-parse HEAD)
  git -C "$ROOT" archive "$head" ${2:-} | tar -x -C "$1"
  git -C "$ROOT" rev-parse --short "$head" > "$1/exported"
}

run_mutmut() {  # dir [mutant names...]
  local dir="$1"; shift
  local start rc=0
  start=$(date +%s)
  if [ "$MTIMEOUT" -gt 0 ]; then
    (cd "$dir" && timeout --signal=INT --kill-after=30 "$MTIMEOUT" "$MUTMUT" run --max-children "$CHILDREN" "$@") \
      >> "$dir/mutmut-run.log" 2>&1 || rc=$?
  else
    (cd "$dir" && "$MUTMUT" run --max-children "$CHILDREN" "$@") >> "$dir/mutmut-run.log" 2>&1 || rc=$?
  fi
  echo $(( $(date +%s) - start + $(cat "$dir/elapsed" 2>/dev/null || echo 0) )) > "$dir/elapsed"
  (cd "$dir" && "$MUTMUT" results --all true > "$dir/results.txt" 2>&1) || true
  grep -c "__mutmut_" "$dir/results.txt" > /dev/null || echo "mutmut produced no results for $dir (see $dir/mutmut-run.log)" >&2
  echo "$(date -u +%Y-%m-%dT%H:%MZ) $(cat "$dir/exported" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD)" > "$dir/stamp"
  # the diff of every mutant not killed, for the report (the work directory may be gone by then)
  "$PY" - "$dir" "$MUTMUT" <<'PYEOF'
import json, re, subprocess, sys
from pathlib import Path
d, mutmut = Path(sys.argv[1]), sys.argv[2]
old = json.loads((d / "diffs.json").read_text()) if (d / "diffs.json").exists() else {}
out = {}
for line in (d / "results.txt").read_text().splitlines():
    m = re.match(r"\s*([\w.]+__mutmut_\d+):\s*(.+)$", line)
    if m and m.group(2).strip() in ("survived", "timeout", "suspicious"):
        n = m.group(1)
        out[n] = old.get(n) or subprocess.run([mutmut, "show", n], cwd=d, capture_output=True, text=True,
                                              timeout=120).stdout.strip()
(d / "diffs.json").write_text(json.dumps(out, indent=0))
PYEOF
  return 0
}

cmd_run() {
  local m dir
  for m in "$@"; do
    [ -f "$ROOT/$m" ] || die "no such module: $m"
    dir="$(workdir "$m")"
    rm -rf "$dir"; mkdir -p "$dir"
    export_head "$dir"
    (cd "$ROOT" && find kernels theory -name '*.so' -print0 | while IFS= read -r -d '' f; do cp "$f" "$dir/$f"; done)
    if [ -n "$FUNCS" ]; then
      echo "$m [${FUNCS//,/, }]" > "$dir/module"
      echo "$FUNCS" > "$dir/functions"
    else
      echo "$m" > "$dir/module"
    fi
    write_config "$dir" "$m"
    echo "mutating $(cat "$dir/module") in $dir ..." >&2
    # shellcheck disable=SC2046
    run_mutmut "$dir" $(patterns "$m")
  done
}

cmd_recheck() {
  local m dir names
  for m in "$@"; do
    dir="$(workdir "$m")"
    [ -f "$dir/results.txt" ] || die "no earlier run of $m in $dir: use 'run' first"
    # the tests of the current HEAD (mutmut copies tests/ into mutants/ at every run)
    rm -rf "$dir/tests"; export_head "$dir" tests
    write_config "$dir" "$m" recheck
    names=$(grep -E "__mutmut_[0-9]+: (survived|not checked|timeout|suspicious|no tests)" "$dir/results.txt" | sed 's/:.*//' | tr -d ' ' \
            | grep -E -- "$ONLY" | grep -E -- "$(fnregex)" || true)
    [ -n "$names" ] || { echo "$m: nothing to recheck" >&2; continue; }
    echo "rechecking $(echo "$names" | wc -l) mutants of $m ..." >&2
    # keep the earlier results: when HEAD's tests fail on the exported sources (newer commits
    # changed other modules), mutmut cannot collect stats and resets every result
    rm -rf "$dir/keep"; mkdir -p "$dir/keep"
    cp "$dir/results.txt" "$dir/diffs.json" "$dir/stamp" "$dir/keep/" 2>/dev/null || true
    (cd "$dir" && find mutants -name '*.meta' -print0 | xargs -0 -r cp --parents -t keep)
    local logsize
    logsize=$(stat -c %s "$dir/mutmut-run.log" 2>/dev/null || echo 0)
    # shellcheck disable=SC2086
    run_mutmut "$dir" $names
    if tail -c +"$((logsize + 1))" "$dir/mutmut-run.log" | grep -q "failed to collect stats"; then
      (cd "$dir/keep" && cp results.txt diffs.json stamp .. 2>/dev/null; find mutants -name '*.meta' -print0 \
        | xargs -0 -r cp --parents -t ..)
      echo "$m: HEAD's tests fail on the sources of the earlier run (see $dir/mutmut-run.log); earlier results kept: use 'run'" >&2
      continue
    fi
    # mutmut resets the results of mutants whose functions new tests reach ('not checked', also
    # ones killed before): a second pass checks those
    local again
    again=$(grep -E "__mutmut_[0-9]+: not checked" "$dir/results.txt" | sed 's/:.*//' | tr -d ' ' \
            | grep -E -- "$ONLY" | grep -E -- "$(fnregex)" | grep -vxF -f <(echo "$names") || true)
    if [ -n "$again" ]; then
      echo "rechecking $(echo "$again" | wc -l) mutants of $m whose results the new tests reset ..." >&2
      # shellcheck disable=SC2086
      run_mutmut "$dir" $again
    fi
  done
}

cmd_report() {
  local out="${1:-tests/MUTATION.md}"
  case "$out" in /*) ;; *) out="$ROOT/$out" ;; esac
  MUTATION_EQUIVALENT="$ROOT/tests/mutation_equivalent.txt" "$PY" - "$WORK" "$out" "${DEFAULT_MODULES[@]}" <<'PYEOF'
import collections, datetime, json, os, platform, re, sys
from pathlib import Path
work, out, default = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
eq = {}
eqp = Path(os.environ["MUTATION_EQUIVALENT"])
for ln in (eqp.read_text().splitlines() if eqp.exists() else []):
    if ln.strip() and not ln.startswith("#") and ":" in ln:
        k, v = ln.split(":", 1)
        eq[k.strip()] = v.strip()
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except Exception:
    cpu = platform.processor()
mods = {}
for d in sorted(p for p in work.iterdir() if (p / "module").exists() and (p / "results.txt").exists()):
    mods[(d / "module").read_text().strip()] = d
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
    return next((k for f, k in superseded.get(m, []) if short.startswith(f"x_{f}__mutmut_")), None)


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
        if r and (funcs is None or any(r.group(1).split(".")[-1].startswith(f"x_{f.strip()}__mutmut_") for f in funcs)):
            rows.append((r.group(1), r.group(2).strip()))
    st = collections.Counter(s for _, s in rows)
    surv = [n for n, s in rows if s == "survived"]
    equiv = [n for n in surv if n in eq]
    live = [n for n in surv if n not in eq]
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
    diffs = json.loads((d / "diffs.json").read_text()) if (d / "diffs.json").exists() else {}
    sec = [f"## `{m}`", ""]
    if equiv:
        sec += ["Equivalent (surviving, with reason):", ""] + [f"- `{n}`: {eq[n]}" for n in equiv] + [""]
    sec += ["Surviving mutants:", ""]
    if not live:
        sec += ["None.", ""]
    for n in live:
        sec += [f"### `{n}`", "", "```diff", diffs.get(n, "(diff not recorded)"), "```", ""]
    sections += sec
k, l = tot["killed"], tot["live"]
overall = 100.0 * k / (k + l) if k + l else float("nan")
ak, al = k + carried["killed"], l + carried["live"]
with_earlier = 100.0 * ak / (ak + al) if ak + al else float("nan")
lines = [
    "<!-- GENERATED by scripts/mutation.sh report: do not edit by hand (equivalences: tests/mutation_equivalent.txt). -->",
    "# Mutation testing (mutmut)",
    "",
    f"Report {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; runs on {cpu}, mutmut over HEAD "
    "(`git archive`), one module at a time with its own test selection (scripts/mutation.sh TESTS; slow/GPU tests excluded).",
    "Score = killed / (killed + surviving non-equivalent); equivalents listed with a reason in "
    "tests/mutation_equivalent.txt; 'not checked' (run stopped), 'timeout', 'no tests' counted apart.",
    "mutmut 3 does not mutate decorated functions (`@validate_params`, `@property`, ...; `@staticmethod` and "
    "`@classmethod` excepted): a validated function that does more than check its arguments is a decorated wrapper "
    "over an undecorated body (`_name`), which is mutated; constructors and properties stay outside these counts.",
    "A row `MODULE [functions]` is a run over those functions only (MUTATION_FUNCTIONS), after they changed "
    "since the module's own row: for them it supersedes that row.",
    "",
    "| module | mutants | killed | surviving | equivalent | other | score | run (UTC, HEAD), time |",
    "|---|---|---|---|---|---|---|---|",
    *table,
    "",
    f"**Overall (modules run): {overall:.1f}%** ({k} killed, {l} surviving non-equivalent, {tot['equiv']} equivalent, "
    f"{tot['notchecked']} not checked, of {tot['total']} mutants).",
    *([f"With the rows marked (earlier run), kept from the previous report and not rerun here: **{with_earlier:.1f}%** "
       f"({ak} killed, {al} surviving non-equivalent, {tot['equiv'] + carried['equiv']} equivalent, "
       f"{tot['notchecked'] + carried['notchecked']} not checked, of {tot['total'] + carried['total']} mutants)."]
      if carried["total"] else []),
    "",
    *sections,
]
out.write_text("\n".join(lines) + "\n")
print(f"overall {overall:.1f}% ({k} killed, {l} surviving, {tot['equiv']} equivalent); wrote {out}")
for row in table:
    print(row)
PYEOF
}

case "${1:-}" in
  run) shift; [ "$#" -gt 0 ] || set -- "${DEFAULT_MODULES[@]}"; cmd_run "$@" ;;
  recheck) shift; [ "$#" -gt 0 ] || set -- "${DEFAULT_MODULES[@]}"; cmd_recheck "$@" ;;
  report) shift; cmd_report "$@" ;;
  -h|--help) sed -n '2,28p' "$0" ;;
  *)
    OUT="${1:-tests/MUTATION.md}"; shift || true
    [ "$#" -gt 0 ] || set -- "${DEFAULT_MODULES[@]}"
    cmd_run "$@"; cmd_report "$OUT" ;;
esac

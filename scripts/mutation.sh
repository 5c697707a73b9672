#!/usr/bin/env bash
# Mutation testing of the privacy-critical modules with mutmut 3 (not part of CI's default run).
#
# Usage: scripts/mutation.sh [OUT.md] [MODULE.py ...]
#   OUT.md   where the score and the surviving mutants are written (default tests/MUTATION.md)
#   MODULES  files to mutate (default: the privacy-critical core listed below)
# Env: PYTHON (default .venv/bin/python), MUTATION_WORKDIR (default /tmp/semiprivate-mutation),
#      MUTATION_CHILDREN (parallel mutants, default 1).
#
# The working tree is never touched: the committed HEAD is exported with `git archive` into
# MUTATION_WORKDIR (plus the built extension modules, which git does not track) and mutmut runs
# there (mutmut 3 mutates a mutants/ copy of that export).  Uncommitted changes are not tested.
# Needs mutmut >= 3 in the environment (pip install mutmut).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="${MUTATION_WORKDIR:-/tmp/semiprivate-mutation}"
CHILDREN="${MUTATION_CHILDREN:-1}"
OUT="${1:-tests/MUTATION.md}"
shift || true
if [ "$#" -gt 0 ]; then
  MODULES=("$@")
else
  MODULES=(theory/privacy/exponential.py theory/audit/stats.py kernels/_reference.py theory/learners/asspp.py)
fi
case "$OUT" in /*) ;; *) OUT="$ROOT/$OUT" ;; esac

# tests that exercise each module (mutmut maps tests to functions and runs only those that reach a mutant)
declare -A TESTS=(
  [theory/privacy/exponential.py]="tests/theory/privacy/test_exponential.py"
  [theory/audit/stats.py]="tests/theory/audit/test_audit.py tests/theory/audit/test_stats_exact.py tests/theory/audit/test_stats_boundaries.py"
  [kernels/_reference.py]="tests/kernels/test_exponential.py tests/kernels/test_exponential_stats.py"
  [theory/learners/asspp.py]="tests/theory/learners/test_learners.py"
  [theory/learners/exponential.py]="tests/theory/learners/test_learners.py"
  [theory/learners/reduction.py]="tests/theory/learners/test_learners.py"
  [theory/covers.py]="tests/theory/test_covers.py tests/theory/classes/test_classes.py"
  [theory/classes/integer.py]="tests/theory/classes/test_classes.py"
  [theory/audit/core.py]="tests/theory/audit/test_audit.py"
)

"$PY" -c "import mutmut, sys; v = mutmut.__version__ if hasattr(mutmut, '__version__') else '3'; sys.exit(0)" \
  || { echo "mutmut is not installed: $PY -m pip install mutmut" >&2; exit 2; }
MUTMUT="$(dirname "$PY")/mutmut"

rm -rf "$WORK"
mkdir -p "$WORK"
git -C "$ROOT" archive HEAD | tar -x -C "$WORK"
# built extension modules (ignored by git) so the export imports like the checkout
(cd "$ROOT" && find kernels theory -name '*.so' -print0 | while IFS= read -r -d '' f; do cp "$f" "$WORK/$f"; done)

tests=()
for m in "${MODULES[@]}"; do
  t="${TESTS[$m]:-}"
  if [ -z "$t" ]; then echo "no test selection for $m: add it to TESTS in $0" >&2; exit 2; fi
  for x in $t; do tests+=("\"$x\""); done
done
mods=()
for m in "${MODULES[@]}"; do mods+=("\"$m\""); done
join() { local IFS=,; echo "$*"; }
cat >> "$WORK/pyproject.toml" <<EOF

[tool.mutmut]
source_paths = ["theory", "kernels"]
only_mutate = [$(join "${mods[@]}")]
also_copy = ["conftest.py", "proofs_checks", "benchmarks"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not slow and not gpu", "-q", "-o", "addopts=-ra --strict-markers --import-mode=importlib"]
pytest_add_cli_args_test_selection = [$(join $(printf '%s\n' "${tests[@]}" | sort -u))]
EOF

cd "$WORK"
start=$(date +%s)
"$MUTMUT" run --max-children "$CHILDREN" > "$WORK/mutmut-run.log" 2>&1 || true
elapsed=$(( $(date +%s) - start ))
"$MUTMUT" results --all true > "$WORK/results.txt" 2>&1 || "$MUTMUT" results > "$WORK/results.txt" 2>&1 || true

MUTATION_EQUIVALENT="$ROOT/tests/mutation_equivalent.txt" "$PY" - "$WORK" "$OUT" "$elapsed" "${MODULES[@]}" <<'PYEOF'
import subprocess, sys, re, platform, collections, datetime, os
from pathlib import Path
work, out, elapsed, modules = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
rows = []
for line in (work / "results.txt").read_text().splitlines():
    m = re.match(r"\s*([\w.]+__mutmut_\d+):\s*(.+)$", line)
    if m:
        rows.append((m.group(1), m.group(2).strip()))
status = collections.Counter(s for _, s in rows)
mutmut = str(Path(sys.executable).parent / "mutmut")
# equivalences recorded by hand: name -> one-line reason (kept in tests/mutation_equivalent.txt)
eq = {}
eqp = Path(os.environ["MUTATION_EQUIVALENT"])
if eqp.exists():
    for ln in eqp.read_text().splitlines():
        if ln.strip() and not ln.startswith("#") and ":" in ln:
            k, v = ln.split(":", 1)
            eq[k.strip()] = v.strip()
killed = status.get("killed", 0)
survived = [n for n, s in rows if s == "survived"]
equivalent = [n for n in survived if n in eq]
live = [n for n in survived if n not in eq]
other = {s: c for s, c in status.items() if s not in ("killed", "survived")}
denom = killed + len(live)
score = 100.0 * killed / denom if denom else float("nan")
cpu = ""
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except Exception:
    cpu = platform.processor()
lines = [
    "<!-- GENERATED by scripts/mutation.sh: do not edit by hand (equivalences: tests/mutation_equivalent.txt). -->",
    "# Mutation testing (mutmut)",
    "",
    f"Run {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC on {cpu}, {elapsed} s, mutmut over HEAD "
    f"(`git archive`), modules: {', '.join('`%s`' % m for m in modules)}.",
    "",
    f"- mutants: {len(rows)}; killed {killed}; survived {len(survived)} ({len(equivalent)} marked equivalent); "
    + ", ".join(f"{s} {c}" for s, c in sorted(other.items())),
    f"- **score: {score:.1f}%** killed of the non-equivalent mutants that ran (killed / (killed + surviving "
    "non-equivalent)); 'no tests' / 'timeout' / 'suspicious' counted separately above.",
    "",
]
if equivalent:
    lines += ["## Equivalent (surviving, with reason)", ""]
    lines += [f"- `{n}`: {eq[n]}" for n in equivalent] + [""]
lines += ["## Surviving mutants", ""]
if not live:
    lines.append("None.")
for n in live:
    try:
        diff = subprocess.run([mutmut, "show", n], cwd=work, capture_output=True, text=True, timeout=60).stdout
    except Exception as e:  # pragma: no cover
        diff = f"(mutmut show failed: {e})"
    lines += [f"### `{n}`", "", "```diff", diff.strip(), "```", ""]
out.write_text("\n".join(lines) + "\n")
print(f"score {score:.1f}% ({killed} killed, {len(live)} surviving, {len(equivalent)} equivalent, other {other}); wrote {out}")
PYEOF

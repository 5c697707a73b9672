#!/usr/bin/env bash
# Mutation testing of the privacy-critical modules with mutmut 3 (not part of CI's default run).
#
# Usage:
#   scripts/mutation.sh run MODULE.py ...      mutate each module in its own fresh export (one at a time)
#   scripts/mutation.sh recheck MODULE.py ...  rerun only the surviving / unchecked / untested mutants of each module
#                                              against the tests of the current HEAD (after adding kill tests)
#   scripts/mutation.sh report [OUT.md]        write the per-module and overall score (default docs/reports/mutation.md)
#                                              (a module with no work directory keeps its row and section from
#                                              the previous OUT.md, marked 'earlier run', with its own date and HEAD)
#   scripts/mutation.sh [OUT.md] [MODULE.py ...]   run, then report (MODULES default: the core listed below)
# Env: PYTHON (default .venv/bin/python), MUTATION_WORKDIR (default /tmp/semiprivate-mutation; one
#      sub-directory per module, kept between invocations so `report` and `recheck` can read it),
#      MUTATION_CHILDREN (parallel mutants, default 1), MUTATION_TIMEOUT (seconds per module, default
#      none; a module stopped by it keeps its 'not checked' mutants and is reported as partial),
#      MUTATION_ONLY (recheck: only the mutants whose names match this extended regex, e.g. a function;
#      mutants outside it whose results mutmut resets on the way are rechecked too),
#      MUTATION_FUNCTIONS (run / recheck: only the mutants of these functions of the module, comma-
#      separated, e.g. audit_pairs,audit_mechanism or a method as Class.method; their own work directory and their own report row
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
# mutmut 3 does not mutate decorated functions: in the export (only there) the module's decorated
# definitions become `def f` followed by `f = dec(f)` (scripts/mutation_undecorate.py), so mutmut's
# trampoline wraps the body and the decorators (@validate_params, @property) wrap the trampoline.
# The folders theory/, kernels/, proofs_checks/ move under semiprivate/ in the export (their import
# names), so mutants are named semiprivate.theory.MODULE.x_f__mutmut_N.
# Each module runs with its own small test selection (TESTS below; slow and GPU tests excluded,
# pytest -x), so a module's score says how well *those* tests pin the module down.
# Score = killed / (killed + surviving mutants not listed in docs/reports/mutation_equivalent.txt).
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
                 theory/audit/stats.py theory/audit/core.py theory/privacy/linear.py
                 theory/privacy/accounting.py theory/privacy/noisy_sgd.py theory/privacy/dpsgd.py
                 theory/privacy/pillar_selection.py theory/privacy/sgd_audits.py
                 theory/learners/generic.py theory/learners/labelboost.py theory/learners/labelboost_procedure.py
                 theory/learners/active.py kernels/sparse_vector.py theory/audit/device.py theory/audit/conditional.py theory/audit/one_run.py
                 theory/learners/disjunctions.py theory/learners/halfspaces.py)

# tests that pin each module down (mutmut maps tests to functions and runs only those that reach a mutant;
# fast deterministic files first: with pytest -x a failing property-based test can shrink past the timeout)
declare -A TESTS=(
  [theory/privacy/exponential.py]="tests/theory/privacy/exponential/test_exponential.py tests/theory/privacy/exponential/test_sampling_and_structured_laws.py"
  [theory/audit/stats.py]="tests/theory/audit/stats/test_exact_intervals.py tests/theory/audit/stats/test_boundaries.py tests/theory/audit/stats/test_errors_and_extremes.py"
  [kernels/_reference.py]="tests/kernels/exponential/test_sampler.py tests/kernels/exponential/test_output_distribution.py tests/kernels/reference/test_inversion_and_exact_samplers.py"
  [kernels/_exponential.py]="tests/kernels/exponential/test_error_bounds_checks_and_dispatch.py tests/kernels/exponential/test_sampler.py tests/kernels/validation/test_validation.py tests/kernels/exponential/test_output_distribution.py"
  [theory/learners/asspp.py]="tests/theory/learners/test_learners.py tests/theory/learners/asspp/test_asspp.py"
  [theory/learners/exponential.py]="tests/theory/learners/test_learners.py tests/theory/learners/exponential/test_seeded_fit.py"
  [theory/learners/reduction.py]="tests/theory/learners/test_learners.py tests/theory/learners/reduction/test_reduction_learner.py"
  [theory/privacy/mechanisms.py]="tests/theory/privacy/mechanisms/test_mechanisms.py tests/theory/privacy/mechanisms/test_queries_and_exact_laws.py"
  [theory/privacy/sanitizers.py]="tests/theory/privacy/sanitizers/test_sanitizers.py tests/theory/privacy/sanitizers/test_histogram_clipping.py"
  [theory/covers.py]="tests/theory/covers/test_neighbour_search_and_counts.py tests/theory/covers/test_cover_property.py tests/theory/covers/test_disagreement_messages.py tests/theory/classes/test_classes.py"
  [theory/classes/integer.py]="tests/theory/classes/integer/test_uniform_sampler.py tests/theory/classes/test_classes.py"
  [theory/privacy/linear.py]="tests/theory/privacy/linear/test_defaults.py tests/theory/privacy/linear/test_feature_checks.py tests/theory/privacy/linear/test_feature_dtypes_of_the_margin_losses.py tests/theory/privacy/test_private_sgd.py tests/theory/privacy/test_private_sgd_exact_values.py tests/theory/learners/halfspaces/test_estimators.py"
  [theory/privacy/accounting.py]="tests/theory/privacy/accounting/test_replace_one_relation.py tests/theory/privacy/accounting/test_group_of_two_split_search.py tests/theory/privacy/accounting/test_calibration_routes_and_bracket.py tests/theory/privacy/test_private_sgd.py tests/theory/privacy/test_private_sgd_exact_values.py tests/theory/learners/halfspaces/test_estimators.py"
  [theory/privacy/noisy_sgd.py]="tests/theory/privacy/noisy_sgd/test_defaults.py tests/theory/privacy/noisy_sgd/test_accountant_epsilon.py tests/theory/privacy/noisy_sgd/test_many_runs.py tests/theory/privacy/noisy_sgd/test_theorem_range.py tests/theory/privacy/test_private_sgd.py tests/theory/privacy/test_private_sgd_exact_values.py tests/theory/learners/halfspaces/test_estimators.py"
  [theory/privacy/dpsgd.py]="tests/theory/privacy/dpsgd/test_result_epsilon.py tests/theory/privacy/dpsgd/test_batches_and_blas_work.py tests/theory/privacy/dpsgd/test_progress_of_several_runs.py tests/theory/privacy/dpsgd/test_first_step_of_several_runs.py tests/theory/privacy/accounting/test_replace_one_relation.py tests/theory/privacy/test_private_sgd.py tests/theory/privacy/test_private_sgd_exact_values.py tests/theory/learners/halfspaces/test_estimators.py"
  [theory/privacy/pillar_selection.py]="tests/theory/privacy/pillar_selection/test_runs_it_starts.py tests/theory/privacy/test_private_sgd.py tests/theory/privacy/test_private_sgd_exact_values.py tests/theory/learners/halfspaces/test_estimators.py"
  [theory/privacy/sgd_audits.py]="tests/theory/privacy/sgd_audits/test_case_deltas.py tests/theory/privacy/sgd_audits/test_broken_noisy_sgd_canary.py tests/theory/privacy/test_private_sgd_exact_values.py tests/theory/privacy/test_private_sgd.py"
  [theory/learners/generic.py]="tests/theory/learners/generic/test_generic_learner.py tests/theory/learners/generic/test_what_each_step_runs_with.py"
  [theory/learners/labelboost.py]="tests/theory/learners/labelboost/test_labelboost.py tests/theory/learners/labelboost/test_schedule_and_accounting.py"
  [theory/learners/labelboost_procedure.py]="tests/theory/learners/labelboost/test_procedure_inputs_and_result.py tests/theory/learners/labelboost/test_labelboost.py"
  [theory/learners/active.py]="tests/theory/learners/active/test_active_learners.py tests/theory/learners/active/test_what_the_base_learner_receives.py tests/theory/learners/active/test_refusals_and_invalid_guarantees.py"
  [theory/learners/disjunctions.py]="tests/theory/learners/disjunctions/test_component_learner.py tests/theory/learners/disjunctions/test_samplers_on_many_rows.py"
  [theory/learners/halfspaces.py]="tests/theory/learners/halfspaces/test_estimators.py tests/theory/learners/halfspaces/test_edge_inputs_and_budget.py"
  [kernels/sparse_vector.py]="tests/kernels/sparse_vector/test_compiled_equals_reference.py tests/kernels/sparse_vector/test_cupy_equals_reference.py tests/theory/audit/examples/test_vectorised_mechanisms.py"
  [theory/audit/device.py]="tests/theory/audit/device/test_on_device.py"
  [theory/audit/one_run.py]="tests/theory/audit/one_run/test_one_run_exact_values.py tests/theory/audit/one_run/test_one_run_bound.py"
  [theory/audit/conditional.py]="tests/theory/audit/conditional/test_ratio_bound_exact_size.py tests/theory/audit/conditional/test_poisson_sizes.py tests/theory/audit/core/test_conditional_interval.py"
  [theory/audit/core.py]="tests/theory/audit/events/test_event_membership.py tests/theory/audit/draws/test_normalize_and_codec.py tests/theory/audit/result/test_reports.py tests/theory/audit/candidates/test_table_events.py tests/theory/audit/candidates/test_search_pair.py tests/theory/audit/core/test_vectorize_and_assert_private.py tests/theory/audit/core/test_counting_and_seeded_batches.py tests/theory/audit/core/test_audit_pairs_arguments_and_results.py tests/theory/audit/core/test_audit_mechanism.py tests/theory/audit/core/test_choice_rounds.py tests/theory/audit/core/test_choose_best_step_by_step.py tests/theory/audit/core/test_blas_threads.py tests/theory/audit/examples/test_power_on_published_mechanisms.py tests/theory/audit/core/test_conditional_interval.py tests/theory/audit/core/test_choose_best_conditional.py tests/theory/audit/core/test_report_first_and_progress.py tests/theory/audit/core/test_two_stage_power.py tests/theory/audit/core/test_offered_pool.py tests/theory/audit/core/test_user_events_and_defaults.py tests/theory/audit/core/test_two_stage_settings.py"
)

slug() { echo "${1//\//_}" | sed 's/\.py$//'; }
# the work directory of a module (of some of its functions with MUTATION_FUNCTIONS)
workdir() { if [ -n "$FUNCS" ]; then echo "$WORK/$(slug "$1")__fn_${FUNCS//,/_}"; else echo "$WORK/$(slug "$1")"; fi; }
# mutmut's mangled name of a function (f -> x_f) or method (Class.method -> xǁClassǁmethod)
mangle() { case "$1" in *.*) echo "xǁ${1%%.*}ǁ${1#*.}" ;; *) echo "x_$1" ;; esac; }
# the mutant names of MUTATION_FUNCTIONS as an extended regex (any name without it)
fnregex() {
  local f alts=()
  [ -n "$FUNCS" ] || { echo "."; return; }
  for f in ${FUNCS//,/ }; do alts+=("$(mangle "$f")"); done
  local IFS='|'; echo "\.(${alts[*]})__mutmut_[0-9]+$"
}
# mutmut's name patterns for MUTATION_FUNCTIONS (none: every mutant of the module)
patterns() { local f dotted; dotted="semiprivate.$(echo "${1%.py}" | tr / .)"; for f in ${FUNCS//,/ }; do echo "$dotted.$(mangle "$f")__mutmut_*"; done; }
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
source_paths = ["semiprivate"]
only_mutate = ["semiprivate/$m"]
also_copy = ["conftest.py", "benchmarks"]
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
    # decorated definitions of the module become `def f` + `f = dec(f)` in the export only, so that
    # mutmut (which skips decorated functions) mutates their bodies under the decorators
    "$PY" "$ROOT/scripts/mutation_undecorate.py" "$dir/$m" >&2
    # the package folders under their import names (setup.py's PACKAGE_DIRS: theory/ is semiprivate.theory),
    # so that the mutants' names (semiprivate.theory.x.x_f__mutmut_N) are the modules' import names,
    # which mutmut's trampoline compares with the function's __module__
    for x in theory kernels proofs_checks; do mv "$dir/$x" "$dir/semiprivate/$x"; done
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
    # mutmut resets the results of mutants whose functions new tests reach, and of every mutant when
    # the test selection changed ('not checked', also ones killed before): a second pass checks those,
    # MUTATION_ONLY or not (a reset mutant outside it would otherwise stay 'not checked': a partial row)
    local again
    again=$(grep -E "__mutmut_[0-9]+: not checked" "$dir/results.txt" | sed 's/:.*//' | tr -d ' ' \
            | grep -E -- "$(fnregex)" | grep -vxF -f <(echo "$names") || true)
    if [ -n "$again" ]; then
      echo "rechecking $(echo "$again" | wc -l) mutants of $m whose results the new tests reset ..." >&2
      # shellcheck disable=SC2086
      run_mutmut "$dir" $again
    fi
  done
}

cmd_report() {
  local out="${1:-docs/reports/mutation.md}"
  case "$out" in /*) ;; *) out="$ROOT/$out" ;; esac
  "$PY" "$ROOT/scripts/mutation_report.py" report --work "$WORK" --out "$out" \
    --equivalents "$ROOT/docs/reports/mutation_equivalent.txt" "${DEFAULT_MODULES[@]}"
}

case "${1:-}" in
  run) shift; [ "$#" -gt 0 ] || set -- "${DEFAULT_MODULES[@]}"; cmd_run "$@" ;;
  recheck) shift; [ "$#" -gt 0 ] || set -- "${DEFAULT_MODULES[@]}"; cmd_recheck "$@" ;;
  report) shift; cmd_report "$@" ;;
  -h|--help) sed -n '2,29p' "$0" ;;
  *)
    OUT="${1:-docs/reports/mutation.md}"; shift || true
    [ "$#" -gt 0 ] || set -- "${DEFAULT_MODULES[@]}"
    cmd_run "$@"; cmd_report "$OUT" ;;
esac

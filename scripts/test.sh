#!/usr/bin/env bash
# The whole test suite, as a new user and CI run it:
#   bash scripts/test.sh [extra pytest arguments]
# Sets up .venv (scripts/bootstrap.sh), then runs pytest (every test, slow ones included, and the
# doctests of semiprivate/, theory/, kernels/ and proofs_checks/) after the documentation build with
# its examples (scripts/docs.sh); ruff and mypy run beside the documentation build (part of it uses one
# core) and their verdict is printed after pytest's. Fails if pytest collects nothing.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VPY="$(bash scripts/bootstrap.sh | tail -n 1)" || { echo "test.sh: bootstrap failed" >&2; exit 1; }
export MPLBACKEND=Agg
# Bytecode goes to one directory inside the venv (PYTHONPYCACHEPREFIX), not into the checkout: the tree stays
# clean, and each module is compiled once for the docs build, both pytest workers and every Python process the
# tests start (with PYTHONDONTWRITEBYTECODE each of them compiled the package and pytest rewrote the test modules
# in each worker). Python checks each cached file against its source, as for __pycache__.
PYTHONPYCACHEPREFIX="$(dirname "$(dirname "$VPY")")/pycache"
export PYTHONPYCACHEPREFIX
unset PYTHONDONTWRITEBYTECODE

# ruff, then mypy, in the background from here on; their output is shown after pytest
LINT_LOG="$(mktemp)"
(
    echo "test.sh: ruff check"
    "$VPY" -m ruff check . || exit 1
    # mypy reads the package under its import name from a link tree (scripts/link_tree.sh): it cannot
    # follow an editable install's import hook.
    echo "test.sh: mypy -p semiprivate"
    bash scripts/link_tree.sh "$ROOT/.typecheck" || exit 1
    (cd "$ROOT/.typecheck" && "$VPY" -m mypy --config-file "$ROOT/pyproject.toml" -p semiprivate) || exit 1
) > "$LINT_LOG" 2>&1 &
LINT_PID=$!
trap 'kill "$LINT_PID" 2>/dev/null; rm -f "$LINT_LOG"' EXIT

# the documentation first (site with warnings as errors, gallery run, page doctests): the site tests
# in tests/docs then read this build instead of building it again
echo "test.sh: documentation (scripts/docs.sh)"
PYTHON_DOCS="$VPY" SEMIPRIVATE_DOCS_OUT="$ROOT/docs/_build" bash scripts/docs.sh || exit 1
export SEMIPRIVATE_DOCS_SITE="$ROOT/docs/_build/html"

start=$(date +%s)
# on every core (pytest-xdist; tests that share a session build carry an xdist_group marker)
"$VPY" -m pytest -p no:cacheprovider -n "${SEMIPRIVATE_TEST_WORKERS:-auto}" --dist loadgroup --durations=30 "$@"  # the 30 slowest in the log: where CI time goes
rc=$?
echo "test.sh: pytest finished with exit code $rc in $(( $(date +%s) - start )) s"
if [ "$rc" = 5 ]; then
    echo "test.sh: pytest collected no tests: failing" >&2
    exit 1
fi
[ "$rc" = 0 ] || exit "$rc"

wait "$LINT_PID"
lint_rc=$?
cat "$LINT_LOG"
[ "$lint_rc" = 0 ] || { echo "test.sh: ruff or mypy failed (above)" >&2; exit 1; }
echo "test.sh: all checks passed"

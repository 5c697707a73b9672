#!/usr/bin/env bash
# Builds the documentation site (docs/) and runs its code examples:
#   bash scripts/docs.sh [extra sphinx-build arguments]
# 1. the HTML site, warnings as errors (docs/_build/html/index.html); the gallery examples
#    (examples/gallery/plot_*.py) are executed during the build;
# 2. every `.. doctest::` example of the pages, with Sphinx's doctest builder.
# Uses the project's .venv (scripts/bootstrap.sh installs the docs extra) unless $PYTHON_DOCS names
# a Python that has semiprivate[docs] installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ -n "${PYTHON_DOCS:-}" ]; then
    VPY="$PYTHON_DOCS"
else
    VPY="$(bash scripts/bootstrap.sh | tail -n 1)"
fi
export MPLBACKEND=Agg
OUT="${SEMIPRIVATE_DOCS_OUT:-$ROOT/docs/_build}"
start=$(date +%s)
# a full build every time: an incremental one re-reads only changed pages and would not repeat
# the warnings of the others
rm -rf "$OUT/doctrees" "$OUT/html" "$OUT/doctest"
"$VPY" -m sphinx -W --keep-going -q -b html -d "$OUT/doctrees" "$@" docs "$OUT/html"
echo "docs.sh: HTML built in $OUT/html ($(( $(date +%s) - start )) s)"
"$VPY" -m sphinx -W --keep-going -q -b doctest -d "$OUT/doctrees" "$@" docs "$OUT/doctest"
tail -n 4 "$OUT/doctest/output.txt"
echo "docs.sh: site and examples OK in $(( $(date +%s) - start )) s"

#!/usr/bin/env bash
# Builds the documentation site (docs/) and runs its code examples:
#   bash scripts/docs.sh [extra sphinx-build arguments]
# 1. the HTML site, warnings as errors (docs/_build/html/index.html); the gallery examples
#    (examples/gallery/plot_*.py) are executed during the build;
# 2. every `.. doctest::` example of the pages, with Sphinx's doctest builder.
# Which Python builds: $PYTHON_DOCS when set; else the active environment's (the activated venv's
# python, else python3 on PATH) when it has the docs extra (semiprivate, sphinx, sphinx-gallery:
# `pip install ".[docs]"`); else the project's .venv, created by scripts/bootstrap.sh.
# SEMIPRIVATE_DOCS_WHICH=1 prints the Python it would use and exits.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
has_docs_extra() {
    "$1" -c "import semiprivate, sphinx, sphinx_gallery" >/dev/null 2>&1
}
if [ -n "${PYTHON_DOCS:-}" ]; then
    VPY="$PYTHON_DOCS"
else
    ACTIVE=""
    if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
        ACTIVE="$VIRTUAL_ENV/bin/python"
    elif command -v python3 >/dev/null 2>&1; then
        ACTIVE="$(command -v python3)"
    fi
    if [ -n "$ACTIVE" ] && has_docs_extra "$ACTIVE"; then
        VPY="$ACTIVE"
    else
        [ -n "${SEMIPRIVATE_DOCS_WHICH:-}" ] && { echo "bootstrap"; exit 0; }
        echo "docs.sh: the active Python (${ACTIVE:-none}) lacks the docs extra; using the project's .venv" >&2
        VPY="$(bash scripts/bootstrap.sh | tail -n 1)"
    fi
fi
if [ -n "${SEMIPRIVATE_DOCS_WHICH:-}" ]; then
    echo "$VPY"
    exit 0
fi
export MPLBACKEND=Agg
OUT="${SEMIPRIVATE_DOCS_OUT:-$ROOT/docs/_build}"
start=$(date +%s)
# a full build every time: an incremental one re-reads only changed pages and would not repeat
# the warnings of the others
rm -rf "$OUT/doctrees" "$OUT/html" "$OUT/doctest"
# -j auto: the pages are read and written on every core (the gallery's examples run in worker processes too:
# sphinx_gallery_conf["parallel"] in docs/conf.py)
"$VPY" -m sphinx -W --keep-going -q -j auto -b html -d "$OUT/doctrees" "$@" docs "$OUT/html"
echo "docs.sh: HTML built in $OUT/html ($(( $(date +%s) - start )) s)"
"$VPY" -m sphinx -W --keep-going -q -b doctest -d "$OUT/doctrees" "$@" docs "$OUT/doctest"
tail -n 4 "$OUT/doctest/output.txt"
echo "docs.sh: site and examples OK in $(( $(date +%s) - start )) s"

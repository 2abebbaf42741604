#!/usr/bin/env bash
# Write the lecture slide decks into _build/slides/, fully offline: one reveal.js deck per
# lecture of the five-week plan (book/instructors.md), from the Markdown in slides/weekN.md.
#
#   bash scripts/build_slides.sh [--student] [--week N ...]
#
#   --student   decks without speaker notes and without the appendix of solutions, into
#               _build/slides/student/ (the build fails if an exercise's answer is in them)
#   --week N    only that week's deck (repeatable)
#
# Output: _build/slides/weekN.html, figures/ (the book's figures, taken from the executed
# chapters) and _vendor/ (reveal.js 6 from npm and the book's MathJax 3): the folder is
# self-contained; present with
#   .venv/bin/python -m http.server --bind 127.0.0.1 --directory _build/slides 8001
# and open http://127.0.0.1:8001/week1.html (arrow keys move, S opens the speaker view with the
# notes and a timer, F is full screen).  The decks are designed for 1280x720 (16:9).
#
# Figures come from the executed chapters of the last book build (_build/jupyter_execute/) when
# they are newer than the chapter; otherwise the chapters a deck needs are executed once
# (cached in _build/slides_executed/).  Edit the slides in slides/*.md (syntax: slides/README.md).
# To present a chapter live instead, open it in JupyterLab and press Alt+R (jupyterlab-rise).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --student) args+=(--student); shift ;;
        --week)
            [ $# -ge 2 ] || { echo "--week needs a value" >&2; exit 2; }
            args+=(--week "$2"); shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (usage: bash scripts/build_slides.sh [--student] [--week N])" >&2; exit 2 ;;
    esac
done

bash scripts/setup_env.sh
bash scripts/fetch_vendor.sh
bash scripts/fetch_vendor.sh slides
export MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
exec .venv/bin/python -m privpca_edu._coursekit.decks "${args[@]}"

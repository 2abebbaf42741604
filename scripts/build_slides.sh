#!/usr/bin/env bash
# Write a reveal.js slide deck per chapter into _build/slides/, fully offline.
#
#   bash scripts/build_slides.sh [--chapter NN ...]
#
#   --chapter NN  only the chapter(s) whose file name starts with NN (e.g. 03)
#
# Output: _build/slides/<chapter>.slides.html and _build/slides/_vendor/ (reveal.js from npm,
# MathJax 3, require.js and the widgets HTML manager — the book's copies): the folder is
# self-contained; present with
#   .venv/bin/python -m http.server --bind 127.0.0.1 --directory _build/slides 8001
# and open http://127.0.0.1:8001/<chapter>.slides.html (arrow keys move, S opens speaker notes).
#
# Slides come from each cell's metadata.slideshow.slide_type (scripts/slide_metadata.py sets
# it from the headings).  The executed notebooks of the last book build
# (_build/jupyter_execute/notebooks/) are used when they are newer than the chapter; otherwise
# nbconvert executes the chapter (seconds each; Chapter 7 about 15 s).  The template
# scripts/slides_template/privpca_reveal/ is nbconvert's reveal.js template with every script
# loaded from _vendor/ instead of a CDN; its theme is "white" (some reveal.js themes import
# Google Fonts).  To present live from the notebook instead, open it
# in JupyterLab and press Alt+R (jupyterlab-rise, installed by scripts/setup_env.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

only=()
while [ $# -gt 0 ]; do
    case "$1" in
        --chapter)
            [ $# -ge 2 ] || { echo "--chapter needs a value" >&2; exit 2; }
            only+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (usage: bash scripts/build_slides.sh [--chapter NN])" >&2; exit 2 ;;
    esac
done

bash scripts/setup_env.sh
bash scripts/fetch_vendor.sh
bash scripts/fetch_vendor.sh slides
export MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

OUT="$ROOT/_build/slides"
mkdir -p "$OUT/_vendor"
rm -rf "$OUT/_vendor/"*
mkdir -p "$OUT/_vendor/reveal.js"
cp -r _vendor/slides/reveal.js/dist _vendor/slides/reveal.js/LICENSE "$OUT/_vendor/reveal.js/"
cp -r book/_vendor/mathjax book/_vendor/requirejs book/_vendor/html-manager "$OUT/_vendor/"
# the book's MathJax 2 -> 3 shim for widget labels (book/_ext/book_assets.py)
.venv/bin/python -c 'import sys; sys.path.insert(0, "book/_ext"); import book_assets
print(book_assets.MATHJAX2_SHIM_JS)' >"$OUT/_vendor/mathjax2-shim.js"

t0=$(date +%s)
n=0
for nb in notebooks/*.ipynb; do
    name="$(basename "$nb" .ipynb)"
    if [ "${#only[@]}" -gt 0 ]; then
        keep=0
        for o in "${only[@]}"; do case "$name" in "$o"*) keep=1 ;; esac; done
        [ "$keep" -eq 1 ] || continue
    fi
    executed="_build/jupyter_execute/notebooks/$name.ipynb"
    run=()
    if [ -f "$executed" ] && [ "$executed" -nt "$nb" ]; then
        src="$executed"
    else
        src="$nb"
        run=(--execute --ExecutePreprocessor.timeout=600)
    fi
    echo "[build_slides] $name (from $src${run:+, executing})"
    .venv/bin/jupyter nbconvert "$src" --to slides "${run[@]}" \
        --template privpca_reveal \
        --TemplateExporter.extra_template_basedirs="$ROOT/scripts/slides_template" \
        --SlidesExporter.reveal_url_prefix=_vendor/reveal.js --SlidesExporter.reveal_theme=white \
        --SlidesExporter.require_js_url=_vendor/requirejs/require.js \
        --SlidesExporter.widget_renderer_url=_vendor/html-manager/dist/embed-amd.js \
        --output-dir "$OUT" --output "$name" --log-level=WARN
    n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "[build_slides] no chapter matches ${only[*]}" >&2; exit 2; }
echo "[build_slides] $n deck(s) in $(( $(date +%s) - t0 )) s: $OUT/"

#!/usr/bin/env bash
# Build the book and serve it on 127.0.0.1.
#
#   bash scripts/build_book.sh [--student] [--no-serve] [--port N] [--strict]
#
#   --student    the student edition: no solutions, no expected values and no instructors' page,
#                in _build/student/html (the sources are copied to a temporary folder with every
#                collapsed solution and solution cell removed, built there, and the result is
#                searched for every exercise's answer at any printed precision, also ×/÷ a power
#                of ten: the build fails if one is found; see privpca_edu/_coursekit/student.py;
#                needs a clone, whose instructor/ folder knows the answers).  Without it: the
#                instructor edition, with collapsed solutions, in _build/html.
#   --no-serve   build only; the site is in _build/html (or _build/student/html)
#   --port N     serve on port N (default 8000)
#   --strict     fail on any warning or notebook error: jupyter-book build -W -n --keep-going
#                (always on when CI=true; this is also what the browser tests run)
#
# Steps: scripts/setup_env.sh (the .venv with the package, Jupyter Book, JupyterLab),
# scripts/fetch_vendor.sh (require.js, the widgets HTML manager, MathJax and Thebe from npm into the
# git-ignored book/_vendor/, so the built pages load nothing from the internet), a clean
# build of _config.yml/_toc.yml into _build/html (every notebook is executed afresh), then
# `python -m http.server --bind 127.0.0.1` on _build/html unless --no-serve.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

serve=1
port=8000
strict=0
student=0
[ "${CI:-}" = "true" ] && strict=1
usage() { echo "usage: bash scripts/build_book.sh [--student] [--no-serve] [--port N] [--strict]"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --no-serve) serve=0; shift ;;
        --student) student=1; shift ;;
        --strict) strict=1; shift ;;
        --port)
            [ $# -ge 2 ] || { usage >&2; exit 2; }
            port="$2"; shift 2 ;;
        --port=*) port="${1#--port=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done
case "$port" in ''|*[!0-9]*) echo "--port must be a number, got '$port'" >&2; exit 2 ;; esac

bash scripts/setup_env.sh
bash scripts/fetch_vendor.sh

# Headless plotting, and one BLAS thread (2-core machines; small matrices run faster that way).
export MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Every dashboard is precomputed over a grid of settings for the static pages (book/_ext/explorables.py);
# the frames are cached here, so a chapter whose code did not change is not recomputed next time.
export PRIVPCA_EXPLORABLES_CACHE="$ROOT/_build/explorables-cache"

flags=()
if [ "$strict" -eq 1 ]; then
    flags=(-W -n --keep-going)
fi
t0=$(date +%s)
if [ "$student" -eq 1 ]; then
    out=_build/student/html
    echo "[build_book] building the student edition into $out${flags:+ (strict: ${flags[*]})}"
    src="$(mktemp -d "${TMPDIR:-/tmp}/privpca_edu-student.XXXXXX")"
    trap 'rm -rf "$src"' EXIT
    .venv/bin/python -m privpca_edu._coursekit.student prepare "$src"
    .venv/bin/jupyter-book build "$src" "${flags[@]}"
    rm -rf _build/student
    mkdir -p _build/student
    mv "$src/_build/html" "$out"
    rm -rf "$src"     # (the EXIT trap covers failures; `exec` below would skip it)
    echo "[build_book] built in $(( $(date +%s) - t0 )) s: $ROOT/$out/index.html"
    .venv/bin/python -m privpca_edu._coursekit.student check "$out"
else
    out=_build/html
    echo "[build_book] building the book into $out${flags:+ (strict: ${flags[*]})}"
    # A clean static build of this edition; the other outputs under _build/ (the live build of
    # scripts/live_book.sh, the course kit's) are left alone.
    rm -rf _build/html _build/jupyter_execute _build/.doctrees
    .venv/bin/jupyter-book build . "${flags[@]}"
    echo "[build_book] built in $(( $(date +%s) - t0 )) s: $ROOT/$out/index.html"
fi

if [ "$serve" -eq 0 ]; then
    echo "[build_book] --no-serve: not serving"
    exit 0
fi
echo "[build_book] serving the book at http://127.0.0.1:$port/  (Ctrl-C stops)"
exec .venv/bin/python -m http.server --bind 127.0.0.1 --directory "$out" "$port"

#!/usr/bin/env bash
# Write the whole book as one PDF, offline: _build/pdf/privpca_edu_book.pdf.
#
#   bash scripts/build_pdf.sh [--student]
#
#   --student   without solutions: _build/pdf/privpca_edu_book_student.pdf
#
# A single-page build of the book (jupyter-book build --builder singlehtml) printed by Debian's
# Chromium through Playwright, with typeset maths, every figure, a table of contents and PDF
# bookmarks; pdftotext then checks that every chapter's title is in it.  When a book build
# (bash scripts/build_book.sh) left executed chapters in _build/jupyter_execute/ that are newer
# than the sources, they are reused (about a minute); otherwise every chapter is executed first
# (several minutes).  See privpca_edu/_coursekit/pdf.py.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
args=()
for a in "$@"; do
    case "$a" in
        --student) args+=(--student) ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown argument: $a (usage: bash scripts/build_pdf.sh [--student])" >&2; exit 2 ;;
    esac
done

bash scripts/setup_env.sh          # also installs chromium and poppler-utils (pdftotext) from Debian
bash scripts/fetch_vendor.sh
export MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
.venv/bin/python -m privpca_edu._coursekit.pdf "${args[@]}"

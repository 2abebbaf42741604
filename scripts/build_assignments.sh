#!/usr/bin/env bash
# Write the nbgrader course folder: one graded assignment per chapter with exercises.
#
#   bash scripts/build_assignments.sh [--term SEED] [--release] [--chapter 03 ...]
#
#   --term SEED   this term's variant: every auto-graded exercise draws its parameters (ε, δ, n, …)
#                 from SEED and is graded against the answers computed for them; the same SEED
#                 gives the same assignments.  Without it: the book's own numbers.
#   --release     also run `nbgrader generate_assignment` for each assignment (the student
#                 versions, without solutions, hidden tests or mark schemes, in
#                 _build/assignments/release/) and search them for the term's answers
#   --chapter NN  only the chapter(s) whose file name starts with NN
#
# Output: _build/assignments/{nbgrader_config.py, TERM, answer_keys.json (the term's hashes),
# source/chNN_<chapter>/<chapter>.ipynb}.  Each exercise cell becomes an autograded answer and one locked test cell
# per checked value, worth one point, whose hidden test checks the answer key (never the value:
# feedback cannot print it); each open exercise a manually graded cell with its mark scheme.
# See instructor/assignments.py and the instructors page for a term's workflow.
# Needs a clone (the instructor/ folder) and the .venv (the `course` extra installs nbgrader).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

release=0
args=()
usage="usage: bash scripts/build_assignments.sh [--term SEED] [--release] [--chapter NN]"
while [ $# -gt 0 ]; do
    case "$1" in
        --release) release=1; shift ;;
        --chapter)
            [ $# -ge 2 ] || { echo "--chapter needs a value" >&2; exit 2; }
            args+=(--chapter "$2"); shift 2 ;;
        --term)
            [ $# -ge 2 ] || { echo "--term needs a seed (an integer >= 0)" >&2; exit 2; }
            case "$2" in ''|*[!0-9]*) echo "--term must be an integer >= 0, got '$2'" >&2; exit 2 ;; esac
            args+=(--term "$2"); shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 ($usage)" >&2; exit 2 ;;
    esac
done
[ -f instructor/assignments.py ] || { echo "instructor/ is missing: assignments are built from a clone of the repository" >&2; exit 2; }

bash scripts/setup_env.sh
COURSE="$ROOT/_build/assignments"
rm -rf "$COURSE/source" "$COURSE/release"
.venv/bin/python -m instructor.assignments "$COURSE" "${args[@]}"

if [ "$release" -eq 1 ]; then
    # nbgrader runs `alembic` (the gradebook's migrations) as a program: the venv's bin first.
    export PATH="$ROOT/.venv/bin:$PATH"
    (
        cd "$COURSE"
        for dir in source/*/; do
            name="$(basename "$dir")"
            echo "[build_assignments] nbgrader generate_assignment $name"
            nbgrader generate_assignment "$name" --force --log-level=WARN
        done
    )
    .venv/bin/python -m instructor.assignments "$COURSE" --check-release
    echo "[build_assignments] student versions in $COURSE/release/"
fi
echo "[build_assignments] course folder: $COURSE (cd there; nbgrader generate_assignment <name>, nbgrader autograde <name>)"

#!/usr/bin/env bash
# Write the nbgrader course folder: one graded assignment per chapter with exercises.
#
#   bash scripts/build_assignments.sh [--release] [--chapter 03 ...]
#
#   --release     also run `nbgrader generate_assignment` for each assignment (the student
#                 versions, without solutions or hidden tests, in _build/assignments/release/)
#   --chapter NN  only the chapter(s) whose file name starts with NN
#
# Output: _build/assignments/{nbgrader_config.py, source/chNN_<chapter>/<chapter>.ipynb}.  Each
# exercise cell becomes an autograded answer (the solution between ### BEGIN/END SOLUTION) and
# one locked test cell per checked value, worth one point, with a hidden exact test.  See
# privpca_edu/_coursekit/assignments.py and the instructors page for a term's workflow.
# Offline: needs only the .venv (the `course` extra installs nbgrader).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

release=0
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --release) release=1; shift ;;
        --chapter)
            [ $# -ge 2 ] || { echo "--chapter needs a value" >&2; exit 2; }
            args+=(--chapter "$2"); shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (usage: bash scripts/build_assignments.sh [--release] [--chapter NN])" >&2; exit 2 ;;
    esac
done

bash scripts/setup_env.sh
COURSE="$ROOT/_build/assignments"
.venv/bin/python -m privpca_edu._coursekit.assignments "$COURSE" "${args[@]}"

if [ "$release" -eq 1 ]; then
    # nbgrader runs `alembic` (the gradebook's migrations) as a program: the venv's bin first.
    export PATH="$ROOT/.venv/bin:$PATH"
    cd "$COURSE"
    for dir in source/*/; do
        name="$(basename "$dir")"
        echo "[build_assignments] nbgrader generate_assignment $name"
        nbgrader generate_assignment "$name" --force --log-level=WARN
    done
    echo "[build_assignments] student versions in $COURSE/release/"
fi
echo "[build_assignments] course folder: $COURSE (cd there; nbgrader generate_assignment <name>, nbgrader autograde <name>)"

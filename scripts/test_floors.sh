#!/usr/bin/env bash
# The declared minimum versions, tested: a throw-away venv gets the LOWEST versions that
# pyproject.toml allows for each direct dependency (uv's --resolution lowest-direct) with the
# test and crypto extras, then runs the fast tier of the suite in it.  Not part of CI's default run (it
# downloads and installs a second environment: a few minutes); run it when a floor changes.
#
#   bash scripts/test_floors.sh            # build the venv in a temp folder, run the fast tier, remove it
#   bash scripts/test_floors.sh --keep DIR # keep (and reuse) the venv in DIR
#   bash scripts/test_floors.sh -- -x -k privacy   # pytest arguments after --
#
# Exits with pytest's exit code.  Works from any directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

keep=""
pytest_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep="$2"; shift 2 ;;
        --) shift; pytest_args=("$@"); break ;;
        *) echo "usage: bash scripts/test_floors.sh [--keep DIR] [-- PYTEST ARGS]" >&2; exit 2 ;;
    esac
done

PYTHON="${PYTHON:-python3}"
if [ -n "$keep" ]; then
    VENV="$keep"
else
    VENV="$(mktemp -d -t privpca-floors-XXXXXX)"
    trap 'rm -rf "$VENV"' EXIT
fi
log() { echo "[test_floors] $*"; }

if [ ! -x "$VENV/bin/python" ]; then
    log "creating $VENV with $("$PYTHON" --version)"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --progress-bar off uv
log "installing the lowest allowed direct dependencies (uv pip install --resolution lowest-direct -e .[test,crypto])"
# --upgrade: a kept venv is re-resolved (moved down to the floors), not left as it was
"$VENV/bin/python" -m uv pip install --quiet --python "$VENV/bin/python" --resolution lowest-direct --upgrade -e ".[test,crypto]"
"$VENV/bin/python" - <<'PY'
from importlib.metadata import version
names = ["numpy", "scipy", "matplotlib", "ipywidgets", "threadpoolctl", "scikit-learn", "pytest", "hypothesis"]
print("[test_floors] versions: " + ", ".join(f"{n} {version(n)}" for n in names))
PY

export MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
log "$(date -u +%H:%M:%S) fast tier starts"
set +e
# test_book_launch.py drives the book's Sphinx extension (the book extra, not a library floor).
# Paths among the pytest arguments replace tests/.
targets=(tests --ignore=tests/browser --ignore=tests/test_book_launch.py)
for arg in ${pytest_args[@]+"${pytest_args[@]}"}; do
    case "$arg" in -*) ;; *) [ -e "${arg%%::*}" ] && targets=() ;; esac
done
"$VENV/bin/python" -m pytest -q -ra -p no:cacheprovider -m "not slow and not browser" ${targets[@]+"${targets[@]}"} \
    ${pytest_args[@]+"${pytest_args[@]}"}
status=$?
set -e
log "$(date -u +%H:%M:%S) done (exit $status)"
exit $status

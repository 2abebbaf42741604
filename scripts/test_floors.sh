#!/usr/bin/env bash
# The declared minimum versions, tested: a throw-away venv gets the LOWEST versions that
# pyproject.toml allows for each direct dependency (uv's --resolution lowest-direct) with the
# test and crypto extras, then runs the fast tier of the suite in it.  The full tier
# (scripts/run_tests.sh with no paths, i.e. CI) runs this in the background beside its own pytest.
#
# Everything happens in one temp folder: a copy of the source tree (the package is installed
# editable from the copy, so no egg-info or build folder is written into the repository, and
# tests that write next to themselves write into the copy), the venv, TMPDIR (pytest's tmp_path,
# Hypothesis) and MPLCONFIGDIR, so that it can run at the same time as another test run.
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
WORK="$(mktemp -d -t privpca-floors-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    VENV="$(cd "$keep" && pwd)"
else
    VENV="$WORK/venv"
fi
log() { echo "[test_floors] $*"; }

# The copy: the tracked tree as it is on disk, without environments, builds and caches.
SRC="$WORK/src"
mkdir -p "$SRC" "$WORK/tmp" "$WORK/mpl"
tar -C "$ROOT" -cf - --exclude=./.git --exclude=./.venv --exclude=./_build --exclude=./build \
    --exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ --exclude=.pytest_cache \
    --exclude=.hypothesis --exclude=./reproduce-results --exclude=./.privpca_edu_cache \
    --exclude=node_modules --exclude=./book/_vendor . | tar -C "$SRC" -xf -
cd "$SRC"

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
import sys
names = ["numpy", "scipy", "matplotlib", "ipywidgets", "threadpoolctl", "scikit-learn", "gmpy2", "phe", "joblib",
         "pytest", "hypothesis"]
print(f"[test_floors] versions: Python {sys.version.split()[0]}, " + ", ".join(f"{n} {version(n)}" for n in names))
PY

export MPLBACKEND=Agg OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
export TMPDIR="$WORK/tmp" MPLCONFIGDIR="$WORK/mpl"
log "$(date -u +%H:%M:%S) fast tier starts"
set +e
# test_book_launch.py drives the book's Sphinx extension and test_live_kernel_server.py the book's
# Jupyter server (the book extra: not library floors).  Paths among the pytest arguments replace tests/.
targets=(tests --ignore=tests/browser --ignore=tests/book/test_book_launch.py
         --ignore=tests/book/test_live_kernel_server.py)
for arg in ${pytest_args[@]+"${pytest_args[@]}"}; do
    case "$arg" in -*) ;; *) [ -e "${arg%%::*}" ] && targets=() ;; esac
done
"$VENV/bin/python" -m pytest -q -ra -p no:cacheprovider -m "not slow and not browser" ${targets[@]+"${targets[@]}"} \
    ${pytest_args[@]+"${pytest_args[@]}"}
status=$?
set -e
log "$(date -u +%H:%M:%S) done (exit $status)"
exit $status

#!/usr/bin/env bash
# THE test command (what CI runs): set up .venv, then run the whole suite with pytest —
# tests/ and, when notebooks exist, every notebooks/*.ipynb executed headless by nbmake.
#
#   bash scripts/run_tests.sh                     # everything (the full tier: what CI runs)
#   bash scripts/run_tests.sh --fast              # the fast tier: unit tests only, no notebooks,
#                                                 # no browser, no tests marked slow (see pyproject)
#   bash scripts/run_tests.sh -x -k privacy       # extra pytest options are passed through
#   bash scripts/run_tests.sh tests/privacy       # explicit paths replace the defaults
#   PRIVPCA_FLOORS=0 bash scripts/run_tests.sh    # the full tier without the floors run (below)
#
# The full tier (no paths, no --fast, no -k/-m selection) also runs scripts/test_floors.sh (the
# fast tier at the lowest versions pyproject.toml allows) in the background: the suite is one
# serial pytest process, so the second core is otherwise mostly idle.  test_floors.sh works in a
# copy of the tree in its own temp folder (own venv, TMPDIR, caches): nothing collides with the
# main run.  Its log goes to a temp folder; its summary is printed after pytest's.
# PRIVPCA_FLOORS=0 turns it off (local runs); PRIVPCA_FLOORS=1 is the default.
#
# Exits with pytest's exit code, or, if pytest passed, the floors run's.  Works from any directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# --fast (anywhere among the arguments) selects the fast tier; it is not passed to pytest.
fast=0
args=()
for arg in "$@"; do
    if [ "$arg" = "--fast" ]; then fast=1; else args+=("$arg"); fi
done
set -- ${args[@]+"${args[@]}"}

bash scripts/setup_env.sh

# Headless plotting for tests and notebooks.
export MPLBACKEND=Agg
# One BLAS/OpenMP thread.  These machines have 2 cores, and the suite is dominated by loops
# over small matrices (d ≲ 200: Gibbs sweeps, repeated mechanism draws), where OpenBLAS's
# thread start-up and synchronisation cost far more than the work: measured here, such loops
# ran about 10x slower with the default thread count.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
export PYTHONDONTWRITEBYTECODE=1

# Default targets, unless the caller named paths of their own.
explicit_paths=0
explicit_notebooks=0
for arg in "$@"; do
    case "$arg" in -*) continue ;; esac
    if [ -e "${arg%%::*}" ]; then
        explicit_paths=1
        case "$arg" in *.ipynb* | notebooks | notebooks/*) explicit_notebooks=1 ;; esac
    fi
done
targets=()
if [ "$fast" -eq 1 ]; then
    # the markers are registered in pyproject.toml; tests/conftest.py marks whole slow modules
    targets=(-m "not slow and not browser")
    if [ "$explicit_paths" -eq 0 ]; then
        targets+=(tests --ignore=tests/browser)
        echo "[run_tests] fast tier: tests/ without the browser tests, notebooks or tests marked slow"
    fi
elif [ "$explicit_paths" -eq 1 ] && [ "$explicit_notebooks" -eq 1 ]; then
    targets=(--nbmake --nbmake-timeout=900)
elif [ "$explicit_paths" -eq 0 ]; then
    targets=(tests)
    shopt -s nullglob
    notebooks=(notebooks/*.ipynb)
    shopt -u nullglob
    if [ "${#notebooks[@]}" -gt 0 ]; then
        # (--nbmake executes every .ipynb under the given paths: keep notebooks out of tests/)
        targets+=(--nbmake --nbmake-timeout=900 notebooks)
        echo "[run_tests] ${#notebooks[@]} notebook(s) in notebooks/ will be executed by nbmake"
    else
        echo "[run_tests] no notebooks/*.ipynb yet: running tests/ only"
    fi
fi

# The floors run: only with the full tier, i.e. no paths, no --fast and no -k/-m/--collect-only.
floors=0
if [ "$fast" -eq 0 ] && [ "$explicit_paths" -eq 0 ] && [ "${PRIVPCA_FLOORS:-1}" != "0" ]; then
    floors=1
    for arg in "$@"; do
        case "$arg" in -k | -k* | -m | -m* | --co | --collect-only | --lf | --last-failed) floors=0 ;; esac
    done
fi
if [ "$floors" -eq 1 ]; then
    floors_dir="$(mktemp -d -t privpca-floors-log-XXXXXX)"
    floors_log="$floors_dir/test_floors.log"
    # nice: the main run keeps its core; the floors run takes what is left.  setsid: its own
    # process group, so that an interrupted run stops it (with its pytest) too.
    setsid nice -n 19 bash scripts/test_floors.sh >"$floors_log" 2>&1 &
    floors_pid=$!
    trap 'kill -- -"$floors_pid" 2>/dev/null; exit 130' INT TERM
    echo "[run_tests] floors run (scripts/test_floors.sh) started in the background, log: $floors_log" \
         "(PRIVPCA_FLOORS=0 turns it off)"
fi

echo "[run_tests] $(date -u +%H:%M:%S) pytest starts"
set +e
.venv/bin/python -m pytest -q -ra -p no:cacheprovider --durations=15 ${targets[@]+"${targets[@]}"} "$@"
status=$?
set -e
if [ "$floors" -eq 1 ]; then
    echo "[run_tests] $(date -u +%H:%M:%S) pytest done (exit $status); waiting for the floors run"
    set +e
    wait "$floors_pid"
    floors_status=$?
    set -e
    if [ "$floors_status" -ne 0 ]; then
        echo "[run_tests] the floors run FAILED (exit $floors_status); the end of its log ($floors_log):"
        tail -n 60 "$floors_log"
    else
        # the versions it ran with, then its last two lines: pytest's summary and its end
        grep '^\[test_floors\] versions' "$floors_log" || true
        tail -n 2 "$floors_log"
        rm -rf "$floors_dir"
    fi
    echo "[run_tests] pytest: exit $status; floors run: exit $floors_status"
    if [ "$status" -eq 0 ]; then status=$floors_status; fi
fi
exit "$status"

#!/usr/bin/env bash
# THE test command (what CI runs): set up .venv, then run the whole suite with pytest —
# tests/ and, when notebooks exist, every notebooks/*.ipynb executed headless by nbmake.
#
#   bash scripts/run_tests.sh                     # everything (the full tier: what CI runs)
#   bash scripts/run_tests.sh --fast              # the fast tier: unit tests only, no notebooks,
#                                                 # no browser, no tests marked slow (see pyproject)
#   bash scripts/run_tests.sh -x -k privacy       # extra pytest options are passed through
#   bash scripts/run_tests.sh tests/privacy       # explicit paths replace the defaults
#
# Exits with pytest's exit code.  Works from any directory.
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

echo "[run_tests] $(date -u +%H:%M:%S) pytest starts"
# exec: pytest's exit code is ours, and its summary line ("N passed, ...") is the last output.
exec .venv/bin/python -m pytest -q -ra -p no:cacheprovider --durations=15 ${targets[@]+"${targets[@]}"} "$@"
